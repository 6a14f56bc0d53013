"""A whole round against the computer, played by clicking; the move log in the page's words."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from browser.browser_support import Server, no_page_errors
from browser.table_driver import (
    STANDARD,
    card_value,
    hand_cards,
    play_round_by_clicking,
    reach_turn,
    round_no,
    start_vs_computer,
    table,
)


def test_a_round_against_bots_by_clicking(page: Page, server: Server) -> None:
    # a name that looks like markup must be shown as text
    me = "<b>Rivka</b>"
    start_vs_computer(page, server.url, me, opponents=2)
    expect(page.locator(".me .seat-name")).to_have_text(me)
    expect(page.locator(".me .seat-name b")).to_have_count(0)
    expect(table(page)).to_have_attribute("data-round", "1")
    expect(page.locator(".opponents .seat")).to_have_count(2)
    expect(page.locator(".hand .card")).to_have_count(5)

    stats = play_round_by_clicking(page)
    assert sum(stats.values()) > 0, "the player never moved"

    played = round_no(page)  # 1, unless a bot called Yaniv before the player's first turn
    end = page.get_by_role("dialog", name=f"Round {played} is over")
    expect(end).to_be_visible()
    # every hand shown, with its cards named for screen readers, and a score for every seat
    rows = end.locator("table.result tbody tr")
    expect(rows).to_have_count(3)
    for i in range(3):
        row = rows.nth(i)
        expect(row.locator(".result-hand")).to_have_attribute("aria-label", re.compile(r" of "))
        assert row.locator(".result-hand .mini").count() >= 1
        expect(row.locator("td").last).to_have_text(re.compile(r"^\d+"))
    expect(rows.locator("th").filter(has_text=me)).to_have_count(1)
    expect(end.get_by_text(re.compile(r"called Yaniv"))).to_be_visible()
    # the score table: a column per player, a row per round
    scores = end.locator(".scores table")
    expect(scores.locator("thead th")).to_have_count(4)
    expect(scores.locator("tbody tr")).to_have_count(played)

    # the move log, in English, written on the page from the round's events
    log = page.locator(".log .story")
    expect(log.locator("li").first).to_have_text(re.compile(r"^Round 1: .+ turned up\.$"))
    if stats.get("stock", 0) + stats.get("take", 0) + stats.get("discard_button", 0):
        expect(log.get_by_text(re.compile(r"^You discarded "))).not_to_have_count(0)
    expect(log.locator("li").last).to_have_text(re.compile(r"^(Yaniv!|Assaf!|.+deliberate)"))
    assert log.get_attribute("lang") is None, "the log is in the page's language now"
    no_page_errors(page)

    # the next round is dealt from the round-end screen
    end.get_by_role("button", name="Next round").click()
    expect(table(page)).to_have_attribute("data-round", str(played + 1))
    expect(page.get_by_role("dialog", name=re.compile("is over"))).to_have_count(0)
    # the log keeps the earlier rounds above the new one
    expect(log.locator("li").first).to_have_text(re.compile(r"^Round 1: "))
    expect(log.get_by_text(re.compile(f"^Round {played + 1}: .+ turned up\\.$"))).to_have_count(1)


@pytest.mark.parametrize("preset", ["draw_first", "slapdown", "hebrew"])
def test_a_round_under_other_rules(page: Page, server: Server, preset: str) -> None:
    start_vs_computer(page, server.url, "Yael", opponents=1, preset=preset)
    expect(table(page)).to_have_attribute(
        "data-draw-first", "true" if preset == "draw_first" else "false"
    )
    if preset == "hebrew":
        # Yaniv above the limit is allowed here (a deliberate Assaf): the page asks first (at
        # the person's first turn, in the next round where a bot's call ended the first)
        reach_turn(page)
        value = sum(map(card_value, hand_cards(page)))
        if value > STANDARD.yaniv_threshold:
            before = table(page).get_attribute("data-events")
            page.locator('[data-key="yaniv"]').click()
            ask = page.get_by_role("dialog", name="A deliberate Assaf?")
            expect(ask).to_contain_text(f"worth {value}")
            ask.get_by_role("button", name="Cancel").click()
            expect(ask).to_have_count(0)
            expect(table(page)).to_have_attribute("data-events", str(before))
            expect(table(page)).to_have_attribute("data-my-turn", "true")
    stats = play_round_by_clicking(page)
    expect(page.get_by_role("dialog", name=re.compile(r"^Round \d+ is over$"))).to_be_visible()
    log = page.locator(".log .story")
    if preset == "draw_first" and stats.get("discard_button"):
        # a draw-first turn is told draw first
        expect(
            log.get_by_text(re.compile(r"^You (took|drew) .+ and discarded "))
        ).not_to_have_count(0)
    if stats.get("slap"):
        expect(log).to_contain_text("then slapped down")
    no_page_errors(page)
