"""The Hebrew page: right to left, mirrored, and the move log in Hebrew; screenshots of both."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.table_driver import (
    events,
    hand_card,
    hand_cards,
    play_turns,
    select_cards,
    start_vs_computer,
    table,
)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _centre_x(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    return box["x"] + box["width"] / 2


def _layout(page: Page) -> dict[str, float]:
    """The horizontal centres of elements whose order mirrors with the direction, once the
    cards in flight have landed (a flight is drawn where it comes from)."""
    page.evaluate("() => Promise.allSettled(document.getAnimations().map(a => a.finished))")
    return {
        "brand": _centre_x(page.locator(".top .brand")),
        "stock": _centre_x(page.locator('[data-key="stock"]')),
        "pile": _centre_x(page.locator(".pile")),
        "first_card": _centre_x(page.locator(".hand .card").first),
        "last_card": _centre_x(page.locator(".hand .card").last),
        "felt": _centre_x(page.locator(".felt")),
        "side": _centre_x(page.locator(".side")),
    }


def _shoot(page: Page, tmp_path: Path, name: str) -> Path:
    """A screenshot under the test's tmp dir, copied to docs/screenshots/ when that copy is
    missing or YANIV_SCREENSHOTS is set (so that a test run does not change the checkout)."""
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True, animations="disabled")  # cards landed
    assert path.stat().st_size > 10_000, "an empty screenshot"
    kept = SCREENSHOTS / name
    if os.environ.get("YANIV_SCREENSHOTS") or not kept.exists():
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, kept)
    return path


def test_hebrew_is_right_to_left(page: Page, server: Server, tmp_path: Path) -> None:
    start_vs_computer(page, server.url, "Shira", opponents=3)
    # one turn, so that the log and the pile have something; again where the log ends on the
    # next round's deal (the person's Yaniv, or an Assaf of a bot's call, ended the round)
    turn_line = re.compile(r"^\u2068[^\u2069]+\u2069: ")
    for _ in range(3):
        play_turns(page, 1)
        if turn_line.match(page.locator(".log .story li").last.inner_text()):
            break
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    english = _layout(page)
    _shoot(page, tmp_path, "table-en.png")

    page.get_by_label("Language").select_option("he")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "he")
    expect(page.get_by_role("button", name="ראשי")).to_be_visible()
    expect(table(page)).to_have_attribute("data-my-turn", "true")
    hebrew = _layout(page)
    shot = _shoot(page, tmp_path, "table-he.png")
    assert shot.is_file()

    # what is left of what in English is right of it in Hebrew
    for a, b in (("stock", "pile"), ("first_card", "last_card"), ("felt", "side")):
        assert english[a] < english[b], (a, b, english)
        assert hebrew[a] > hebrew[b], (a, b, hebrew)
    width = page.viewport_size["width"] if page.viewport_size else 1280
    assert english["brand"] < width / 2 < hebrew["brand"]

    # the move log and the turn line are Hebrew, the names in them as typed
    log = page.locator(".log .story")
    expect(log.locator("li").first).to_have_text(re.compile(r"^סיבוב 1: "))
    expect(log.locator("li").last).to_have_text(turn_line)
    expect(log.get_by_text(re.compile(r"^בתורך: (זריקת|קריאת יניב)"))).not_to_have_count(0)
    expect(log).not_to_contain_text("discarded")
    expect(page.locator(".me .seat-name")).to_have_text("Shira")

    # a selection that is no discard is explained in Hebrew as soon as it is made, nothing
    # lights up, and nothing is sent
    naturals = [c for c in hand_cards(page) if c not in ("RJ", "BJ")]
    pair = next(  # two cards of two ranks: never a discard (a run has three or more)
        [a, b] for i, a in enumerate(naturals) for b in naturals[i + 1 :] if a[:-1] != b[:-1]
    )
    before = events(page)
    select_cards(page, pair)
    expect(page.locator(".hint")).to_have_text(re.compile(r"^אי אפשר לזרוק את הקלפים האלה יחד"))
    expect(page.locator('[data-key="discard"]')).to_be_disabled()
    expect(page.locator(".centre .glow")).to_have_count(0)
    expect(page.locator(".error")).to_have_count(0)
    assert events(page) == before and hand_cards(page).count(pair[0]) == 1
    for code in pair:  # the selection is kept until the player changes it
        expect(hand_card(page, code)).to_have_attribute("aria-pressed", "true")
        hand_card(page, code).click()
    no_page_errors(page)

    # and back: the choice is kept, and English mirrors back
    page.get_by_label("שפה").select_option("en")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect(log.get_by_text(re.compile(r"^You (discarded|called Yaniv)"))).not_to_have_count(0)
