"""Rules at the table (issue 15): one click on "Rules" shows the room's rule set in words (the
threshold, the Assaf, the pickup rule, the turn, the bonus, how the game ends) and every
option that differs from standard, in English on a desktop and in Hebrew on a phone."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Browser, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import context_for, new_page, no_sideways_scroll, shoot, start_game
from browser.table_driver import reach_turn

WEB = Path(__file__).resolve().parents[2] / "yaniv" / "web"
EN = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
HE = json.loads((WEB / "i18n" / "he.json").read_text(encoding="utf-8"))


def test_rules_at_the_table_in_english_on_a_desktop(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    page = new_page(context_for(browser, "en", "desktop"))
    start_game(page, server.url, "Dana", opponents=2, preset="quick",
               options={"assaf_penalty": 25, "pickup": "any"})  # fmt: skip
    reach_turn(page)  # a bot's call that ends the round first covers the table with its result
    page.get_by_role("button", name=EN["table.rules_button"]).click()
    dialog = page.get_by_role("dialog", name=EN["rw.title"])
    expect(dialog).to_be_visible()
    words = dialog.locator(".rules-sentences li")
    expect(words).to_have_text([
        "Yaniv may be called with a hand of 5 or less.",
        "Assaf: when another player holds as much or less, the caller scores their hand + 25 "
        "and the lowest hand scores 0.",
        "From the previous player's discard you may take any card.",
        "A turn: discard first, then draw one card.",
        "A score that lands exactly on 100, 200 is halved.",
        "Over 100 a player is out; the last player left wins.",
    ])  # fmt: skip
    # what differs from standard: the quick preset's two, and the two options set over it
    changed = dialog.locator(".rules-changed li")
    expect(changed).to_have_count(4)
    expect(dialog.locator('[data-option="yaniv_threshold"]')).to_contain_text(
        f"{EN['opt.yaniv_threshold']}: 5"
    )
    expect(dialog.locator('[data-option="pickup"]')).to_contain_text(EN["choice.any"])
    expect(dialog.locator('[data-option="assaf_penalty"]')).to_contain_text("25")
    expect(dialog.locator('[data-option="score_limit"]')).to_contain_text("100")
    expect(dialog.locator(".rules-preset")).to_have_text("Rule set: custom")
    shoot(page, tmp_path, "rules-en-desktop.png")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    no_page_errors(page)


def test_rules_at_the_table_in_hebrew_on_a_phone(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    page = new_page(context_for(browser, "he", "phone"))
    start_game(page, server.url, "דנה", opponents=1, preset="hebrew")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    reach_turn(page)  # under hebrew a bot may call at its first turn (yaniv_above_threshold)
    page.get_by_role("button", name=HE["table.rules_button"]).click()
    dialog = page.get_by_role("dialog", name=HE["rw.title"])
    expect(dialog).to_be_visible()
    expect(dialog.locator(".rules-preset")).to_have_text(
        HE["room.rules_preset"].replace("{preset}", HE["preset.hebrew"])
    )
    sentences = dialog.locator(".rules-sentences")
    expect(sentences).to_contain_text(HE["rw.end_first_over"].replace("{limit}", "200"))
    expect(sentences).to_contain_text(
        HE["rw.bonus_subtract"].replace("{step}", "50").replace("{amount}", "50")
    )
    expect(sentences).to_contain_text(
        HE["rw.deliberate"].replace("{limit}", "7").replace("{penalty}", "30")
    )
    for option in ("pickup", "bonus", "end_mode", "yaniv_above_threshold"):
        expect(dialog.locator(f'[data-option="{option}"]')).to_be_visible()
    assert no_sideways_scroll(page)
    shoot(page, tmp_path, "rules-he-phone.png")
    dialog.get_by_role("button", name=HE["rw.close"]).click()
    expect(dialog).to_have_count(0)
    no_page_errors(page)
