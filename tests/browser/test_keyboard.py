"""Keyboard-only play: from the home page to the next round with keys alone, no pointer."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from browser.browser_support import Server, no_page_errors
from browser.table_driver import (
    best_discard,
    can_call_yaniv,
    card_value,
    events,
    hand_cards,
    phase,
    table,
    wait_turn_or_end,
)

COUNT_POINTERS = """
window.__pointers = 0;
for (const kind of ["pointerdown", "mousedown", "click"]) {
  window.addEventListener(kind, (e) => { if (e.isTrusted && e.detail > 0) window.__pointers += 1; },
    true);
}
"""


def focused(page: Page, attribute: str) -> str | None:
    """An attribute of the focused element."""
    value = page.evaluate(
        "a => document.activeElement ? document.activeElement.getAttribute(a) : null", attribute
    )
    return None if value is None else str(value)


def tab_to(page: Page, selector: str, limit: int = 60) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def after(page: Page, before: int) -> None:
    page.wait_for_function(
        "n => Number(document.querySelector('.table-page').dataset.events) > n", arg=before
    )


def select_by_keys(page: Page, code: str) -> None:
    """Move to ``code`` in the hand with Home and the arrow keys, and select it with Space."""
    cards = hand_cards(page)
    page.keyboard.press("Home")
    assert focused(page, "data-card") == cards[0]
    for _ in range(cards.index(code)):
        page.keyboard.press("ArrowRight")
    assert focused(page, "data-card") == code
    page.keyboard.press("Space")
    expect(page.locator(f'.hand .card[data-card="{code}"]')).to_have_attribute(
        "aria-pressed", "true"
    )


def key_turn(page: Page, turn: int, used: set[str]) -> None:
    """One turn with keys: Y within the limit; else the highest card selected and either
    Enter then S (odd turns) or a digit for a cheap pile card, or S (even turns)."""
    before = events(page)
    if can_call_yaniv(page):
        page.keyboard.press("y")
        used.add("y")
        after(page, before)
        return
    chosen = best_discard(hand_cards(page))
    for code in chosen:
        select_by_keys(page, code)
    if turn % 2:
        page.keyboard.press("Enter")
        used.add("enter")
        after(page, before)
        assert wait_turn_or_end(page) == "turn"
        assert phase(page) == "draw"
        before = events(page)
        page.keyboard.press("s")
        used.add("s")
    else:
        pile = page.locator(".pile .card")
        digit = None
        for i in range(pile.count()):
            card = pile.nth(i)
            pile_code = card.get_attribute("data-card") or ""
            if card.get_attribute("data-takeable") == "true" and card_value(pile_code) < card_value(
                chosen[0]
            ):
                digit = str(i + 1)
                break
        page.keyboard.press(digit or "s")
        used.add("digit" if digit else "s")
    after(page, before)


def next_by_keys(page: Page) -> None:
    """The round's end takes the focus on its Next round button: Enter deals the next round."""
    played = int(table(page).get_attribute("data-round") or 0)
    expect(page.get_by_role("dialog", name=f"Round {played} is over")).to_be_visible()
    expect(page.get_by_role("button", name="Next round")).to_be_focused()
    page.keyboard.press("Enter")
    expect(table(page)).to_have_attribute("data-round", str(played + 1))


def test_keyboard_only(page: Page, server: Server) -> None:
    page.add_init_script(COUNT_POINTERS)
    page.goto(server.url)
    tab_to(page, "#name")
    page.keyboard.type("Kiki")
    tab_to(page, "form button[type=submit]")
    page.keyboard.press("Enter")
    expect(table(page)).to_have_attribute("data-round", "1")
    expect(page.locator(".me .seat-name")).to_have_text("Kiki")

    while wait_turn_or_end(page) == "end":  # a bot's Yaniv before the player's first turn
        next_by_keys(page)
    # a screen reader hears, through the live region, that it is the player's turn
    expect(page.locator("#announce")).to_contain_text("Your turn")

    used: set[str] = set()
    for turn in range(80):
        if wait_turn_or_end(page) == "end":
            break
        key_turn(page, turn, used)
    else:
        raise AssertionError("the round did not end")
    assert used, "no move was made by keys"

    next_by_keys(page)
    assert page.evaluate("window.__pointers") == 0, "a pointer was used"
    no_page_errors(page)
