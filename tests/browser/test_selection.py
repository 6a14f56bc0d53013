"""A selection and the keyboard focus on the player's turn (issue 14, faults 5 and 2), in
English and Hebrew, on a desktop and a phone: nothing lights up until the selection is a
discard the view lists as legal, the reason shows as soon as it is selected; after a move made
by keys the focus stays in the hand."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import context_for, new_page, start_game
from browser.table_driver import (
    best_discard,
    events,
    hand_card,
    hand_cards,
    phase,
    reach_turn,
    table,
    wait_turn_or_end,
)

NOT_A_DISCARD = {
    "en": re.compile(r"^Those cards cannot be discarded together"),
    "he": re.compile(r"^אי אפשר לזרוק את הקלפים האלה יחד"),
}
COMBOS = [("en", "desktop"), ("he", "phone"), ("he", "desktop"), ("en", "small")]


def focused_card(page: Page) -> str | None:
    value = page.evaluate(
        "() => { const e = document.activeElement;"
        " return e && e.closest('.hand') ? e.dataset.card : null; }"
    )
    return None if value is None else str(value)


def lit(page: Page) -> int:
    """How many of the stock and pile cards light up (and may be tapped)."""
    return page.locator(".centre .glow:enabled").count()


@pytest.mark.parametrize(("lang", "size"), COMBOS)
def test_nothing_lights_up_until_the_selection_is_a_discard(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    context = context_for(browser, lang, size)
    page = new_page(context)
    start_game(page, server.url, "Avi", opponents=1)
    reach_turn(page)
    assert phase(page) == "start"  # a discard-first turn: select, then tap where to draw
    discard = page.locator('[data-key="discard"]')
    expect(discard).to_be_disabled()
    assert lit(page) == 0, "nothing is selected: nothing to tap yet"

    # two cards of two ranks (2♣ with J♥): never a discard; the reason at once, nothing lit
    naturals = [c for c in hand_cards(page) if c not in ("RJ", "BJ")]
    pair = next(
        [a, b] for i, a in enumerate(naturals) for b in naturals[i + 1 :] if a[:-1] != b[:-1]
    )
    before = events(page)
    for code in pair:
        hand_card(page, code).click()
    expect(hand_card(page, pair[1])).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".me .hint")).to_have_text(NOT_A_DISCARD[lang])
    expect(discard).to_be_disabled()
    assert lit(page) == 0, "an illegal selection lights the stock or the pile"
    expect(page.locator('[data-key="stock"]')).to_be_disabled()

    # one card of the two: a legal discard; the reason goes, the stock and Discard light up
    hand_card(page, pair[1]).click()
    expect(page.locator(".me .hint")).to_have_count(0)
    expect(discard).to_be_enabled()
    expect(page.locator('[data-key="stock"]')).to_be_enabled()
    expect(page.locator('[data-key="stock"]')).to_have_class(re.compile(r"\bglow\b"))
    assert events(page) == before, "nothing was sent"
    hand_card(page, pair[0]).click()  # unselect
    expect(discard).to_be_disabled()
    no_page_errors(page)
    context.close()


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("he", "phone")])
def test_the_focus_stays_in_the_hand_after_each_move(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    context = context_for(browser, lang, size)
    page = new_page(context)
    start_game(page, server.url, "Kiki", opponents=1)
    reach_turn(page)  # a round the bot ends at its first turn is followed by the next
    moves = 0
    for _ in range(6):
        if wait_turn_or_end(page) == "end":
            break
        if phase(page) != "start":
            break
        held = hand_cards(page)
        chosen = best_discard(held)
        page.locator(".hand .card").first.focus()
        page.keyboard.press("Home")
        for code in chosen:  # to the card by arrow keys (the reading direction), then Space
            cards = hand_cards(page)
            page.keyboard.press("Home")
            step = "ArrowLeft" if lang == "he" else "ArrowRight"
            for _ in range(cards.index(code)):
                page.keyboard.press(step)
            assert focused_card(page) == code
            page.keyboard.press("Space")
        before = events(page)
        page.keyboard.press("Enter")  # the discard
        page.wait_for_function(
            "n => Number(document.querySelector('.table-page').dataset.events) > n", arg=before
        )
        expect(table(page)).to_have_attribute("data-phase", "draw")
        if len(chosen) < len(held):  # (a discard may shed the whole hand: no card to focus)
            expect(page.locator(".hand .card:focus")).to_have_count(1)  # not dropped to the page
        before = events(page)
        page.keyboard.press("s")  # the draw from the stock
        page.wait_for_function(
            "n => Number(document.querySelector('.table-page').dataset.events) > n", arg=before
        )
        if phase(page) in ("round_over", "game_over"):
            break  # the other player called Yaniv at once: the round's end takes the focus
        expect(page.locator(".hand .card:focus")).to_have_count(1)
        # the focused card is the hand's one stop for Tab (a roving tabindex)
        expect(page.locator(".hand .card:focus")).to_have_attribute("tabindex", "0")
        moves += 2
        # and still there when the turn comes back, after the other player's moves
        if wait_turn_or_end(page) == "turn":
            expect(page.locator(".hand .card:focus")).to_have_count(1)
    assert moves, "no move was made by keys"
    no_page_errors(page)
    context.close()
