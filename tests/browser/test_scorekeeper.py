"""The score keeper for real cards as people use it (issue 15): in English on a desktop and in
Hebrew on a phone, a sheet is made, rounds are entered as values and as cards, scored by the
server (the engine's scoring), a bad hand is refused in words, a round is corrected and the
rest re-scored, the rules are one click away, and the shared link is read-only."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import context_for, new_page, no_sideways_scroll, shoot

WEB = Path(__file__).resolve().parents[2] / "yaniv" / "web"
EN = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
HE = json.loads((WEB / "i18n" / "he.json").read_text(encoding="utf-8"))
FSI, PDI = "\u2068", "\u2069"  # a name is isolated in its line (bidi)


def new_sheet(page: Page, url: str, names: list[str], cat: dict[str, str], preset: str) -> str:
    page.goto(url + "#/")
    page.get_by_role("link", name=cat["sk.link"]).click()
    expect(page.locator("#sk-title")).to_have_text(cat["sk.title"])
    page.locator("#sk-add-player").click()  # a fourth field, left empty: it is skipped
    for i, name in enumerate(names):
        page.locator(f"#sk-name-{i}").fill(name)
    page.locator("#preset").select_option(preset)
    page.locator("#sk-start").click()
    expect(page).to_have_url(re.compile(r"#/scores/[A-Za-z0-9_-]{10}$"))
    return page.url.rsplit("/", 1)[1]


def enter(page: Page, caller: str, hands: dict[int, str]) -> None:
    page.locator("#sk-caller").select_option(label=caller)
    for seat, hand in hands.items():
        page.locator(f"#sk-hand-{seat}").fill(hand)
    page.locator("#sk-score").click()


def test_score_keeper_in_english_on_a_desktop(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    page = new_page(context_for(browser, "en", "desktop"))
    code = new_sheet(page, server.url, ["Dana", "Avi", "Noa"], EN, "standard")
    expect(page.locator(".sk-status")).to_have_text(f"Round 1: {FSI}Avi{PDI} starts.")

    # Avi calls with the ace and the four (as cards); Noa's 3 catches him: Assaf
    enter(page, "Avi", {0: "12", 1: "ac 4d", 2: "3"})
    row = page.locator('table.sk-table tbody tr[data-round="1"]')
    expect(row.locator('td[data-seat="1"] .sheet-points')).to_have_text("Assaf \u20665 + 30\u2069")
    expect(row.locator('td[data-seat="2"] .sheet-points')).to_have_text("Assaf! 0")
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["12", "35", "0"])
    expect(page.locator(".sk-status")).to_have_text(f"Round 2: {FSI}Noa{PDI} starts.")

    # a hand that cannot be: refused in words, nothing scored
    enter(page, "Noa", {0: "51", 1: "20", 2: "2"})
    expect(page.get_by_role("alert")).to_contain_text("Dana's hand value 51 cannot be a hand")
    expect(page.locator("table.sk-table tbody tr")).to_have_count(1)
    page.locator("#sk-hand-0").fill("30")
    page.locator("#sk-score").click()
    expect(page.locator("table.sk-table tbody tr")).to_have_count(2)
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["42", "55", "0"])

    # round 1 corrected: Noa held 9, so Avi's call won; round 2 is scored again on it
    page.locator("#sk-edit-1").click()
    expect(page.locator("#sk-entry-title")).to_have_text("Correct round 1")
    expect(page.locator("#sk-hand-1")).to_have_value("AC 4D")
    page.locator("#sk-hand-2").fill("9")
    page.locator("#sk-score").click()
    expect(row.locator('td[data-seat="1"] .sheet-points')).to_have_text("Yaniv 0")
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["42", "20", "9"])
    expect(page.locator(".sk-status")).to_have_text(f"Round 3: {FSI}Noa{PDI} starts.")

    # the rules, one click away
    page.locator("#sk-rules summary").click()
    words = page.locator("#sk-rules-words")
    expect(words).to_contain_text("Yaniv may be called with a hand of 7 or less.")
    expect(words).to_contain_text("Over 200 a player is out; the last player left wins.")
    expect(words.locator(".rules-standard")).to_have_text(EN["rw.all_standard"])
    page.evaluate("() => window.scrollTo(0, 0)")
    shoot(page, tmp_path, "scorekeeper-en-desktop.png")
    no_page_errors(page)

    # the shared link, in a browser without the keeper's key: read-only
    other = new_page(context_for(browser, "en", "desktop"))
    other.goto(server.url + f"#/scores/{code}")
    expect(other.locator(".sk-readonly")).to_have_text(EN["sk.read_only"])
    expect(other.locator("#sk-entry")).to_have_count(0)
    expect(other.locator(".sk-edit")).to_have_count(0)
    expect(other.locator("table.sk-table tfoot td")).to_have_text(["42", "20", "9"])
    no_page_errors(other)

    # the keeper's sheets are listed with the score keeper and in the history
    for where in ("#/scores", "#/history"):
        page.goto(server.url + where)
        expect(page.locator(f'.sk-list a[data-code="{code}"]')).to_have_text(
            "\u2068Dana\u2069, \u2068Avi\u2069, \u2068Noa\u2069"
        )
    page.locator(f'.sk-list a[data-code="{code}"]').click()
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["42", "20", "9"])


def test_score_keeper_in_hebrew_on_a_phone(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    page = new_page(context_for(browser, "he", "phone"))
    new_sheet(page, server.url, ["דנה", "אבי"], HE, "hebrew")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#sk-sheet-title")).to_have_text(HE["sk.sheet_title"])
    # the Hebrew rules allow a deliberate call above 7: 12 + 30, and Avi's 3 scores 0
    enter(page, "דנה", {0: "12", 1: "3"})
    row = page.locator('table.sk-table tbody tr[data-round="1"]')
    expect(row.locator('td[data-seat="0"] .sheet-points')).to_contain_text("12 + 30")
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["42", "0"])
    # 58 lands on nothing; then 100 - a multiple of 50 - loses 50 (the Racheli)
    enter(page, "אבי", {0: "16", 1: "2"})
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["58", "0"])
    enter(page, "אבי", {0: "QH KH JH 2C", 1: "2"})  # 58 + 32 = 90
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["90", "0"])
    enter(page, "אבי", {0: "10", 1: "1"})  # 100: minus 50
    expect(page.locator("table.sk-table tfoot td")).to_have_text(["50", "0"])
    bonus = page.locator('table.sk-table tbody tr[data-round="4"] td[data-seat="0"] .sheet-total')
    expect(bonus).to_have_text("\u2066100 → 50\u2069")
    page.locator("#sk-rules summary").click()
    words = page.locator("#sk-rules-words")
    expect(words).to_contain_text(HE["rw.end_first_over"].replace("{limit}", "200"))
    expect(words.locator('[data-option="end_mode"]')).to_be_visible()
    expect(words.locator('[data-option="yaniv_above_threshold"]')).to_be_visible()
    assert no_sideways_scroll(page)
    page.locator("#sk-sheet-title").scroll_into_view_if_needed()
    shoot(page, tmp_path, "scorekeeper-he-phone.png")
    no_page_errors(page)
