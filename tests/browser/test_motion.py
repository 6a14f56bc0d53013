"""Cards that fly (issue 14, motion): the deal, a discard to the pile, a draw to a seat, the
showdown's reveal, each 150-400 ms with the Web Animations API; others' moves paced by their
flights; with prefers-reduced-motion nothing moves. English and Hebrew, desktop and phone."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import QUICK_ROUND, context_for, finish_quick_round, new_page, start_game
from browser.table_driver import click_turn, events, reach_turn, table, wait_turn_or_end
from browser.test_table_social import room

DURATION = {"deal": 300, "discard": 280, "draw": 240, "slap": 240, "reveal": 320}  # motion.js

# every animation the page starts, and when each state is shown (the table is redrawn whole)
RECORD = """
window.__flights = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  const o = typeof options === "number" ? { duration: options } : options || {};
  const what = this.closest && this.closest(".flying-card") ? "ghost"
    : this.closest && this.closest(".hand") ? "hand"
    : this.closest && this.closest(".pile") ? "pile"
    : this.closest && this.closest(".result-hand") ? "reveal"
    : this.closest && this.closest(".seat") ? "seat" : String(this.className);
  window.__flights.push({ what, duration: o.duration, delay: o.delay || 0,
    at: performance.now() });
  return animate.call(this, frames, options);
};
window.__shown = [];
new MutationObserver(() => {
  const p = document.querySelector(".table-page[data-events]");
  if (!p) return;
  const last = window.__shown[window.__shown.length - 1];
  const key = `${p.dataset.round}:${p.dataset.events}`;
  if (!last || last.key !== key) {
    window.__shown.push({ key, at: performance.now(), mine: p.dataset.toMove === p.dataset.seat });
  }
}).observe(document, { childList: true, subtree: true });
"""


def flights(page: Page) -> list[dict[str, float | str]]:
    value = page.evaluate("() => window.__flights")
    assert isinstance(value, list)
    return value


def kinds(page: Page, since: int = 0) -> set[str]:
    return {str(f["what"]) for f in flights(page)[since:]}


def _play_three_turns(page: Page) -> None:
    """The player's first turn, its flights checked, then up to two more turns."""
    # the player's discard and draw: the card flies from the hand to the pile, one to the hand
    reach_turn(page)
    start = len(flights(page))
    stats: dict[str, int] = {}
    click_turn(page, 0, stats)  # a whole turn: a discard, then a draw (or a Yaniv)
    if stats.get("yaniv"):
        return
    page.wait_for_function(
        "n => window.__flights.slice(n).some((f) => f.duration === 240)", arg=start
    )
    mine = flights(page)[start:]
    # the discard flies to the pile (280 ms), the drawn card to the hand (240 ms)
    assert any(f["duration"] == DURATION["discard"] for f in mine), mine
    assert any(
        f["duration"] == DURATION["draw"] and f["what"] in ("hand", "ghost") for f in mine
    ), mine
    for turn in range(2):  # two more turns each, to see the other's moves shown
        if wait_turn_or_end(page) == "end":
            return
        click_turn(page, 2 * turn, stats)
    wait_turn_or_end(page)


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("he", "phone")])
def test_cards_fly(browser: Browser, server: Server, lang: str, size: str) -> None:
    context = context_for(browser, lang, size)
    context.add_init_script(RECORD)
    page = new_page(context)
    # a bot's early Yaniv can end the round before four moves were shown: such a game tells
    # nothing about pacing, and a fresh one is started (the deal is the server's own)
    for attempt in range(5):
        if attempt:
            page.goto(server.url)
        start_game(page, server.url, "Moti", opponents=1)
        _play_three_turns(page)
        if len(page.evaluate("() => window.__shown")) >= 5:
            break
    # every move shown, the player's and the other's, set cards flying as it was shown: the
    # observer's time is taken after the redraw that started the flights (a microtask after
    # it, later still on a loaded machine), so a state's flights start after the last state
    # was seen and before, or just after, this one was
    seen = page.evaluate("() => window.__shown")
    shown = seen[1:]  # after the first view (nothing new)
    card_flights = {DURATION["discard"], DURATION["draw"], DURATION["slap"]}
    times = [float(f["at"]) for f in flights(page) if f["duration"] in card_flights]
    for last, state in zip(seen, shown, strict=False):
        assert any(last["at"] < at <= state["at"] + 80 for at in times), (state, seen, times)

    # the moves are paced: a state that comes while cards are in flight waits for them to
    # land, so two states are never shown closer than a flight (240 ms or more; the server
    # here plays a bot's move in 0.05 s: unpaced, its moves would show 50 ms apart)
    gaps = [b["at"] - a["at"] for a, b in zip(shown, shown[1:], strict=False)]
    assert len(gaps) >= 3 and min(gaps) >= 200, (gaps, shown)

    # the round's end: the hands turn face up; the next round is dealt from the stock
    page.goto(server.url)
    start_game(page, server.url, "Moti", opponents=1, options=QUICK_ROUND)
    finish_quick_round(page)
    page.wait_for_function("() => window.__flights.some((f) => f.what === 'reveal')")
    before = len(flights(page))
    round_no = int(table(page).get_attribute("data-round") or 1)
    page.locator('.round-end [data-key="next"]').click()
    expect(table(page)).to_have_attribute("data-round", str(round_no + 1))
    page.wait_for_function(
        "n => window.__flights.slice(n).filter((f) => f.what === 'hand').length >= 5", arg=before
    )
    for flight in flights(page):
        assert 150 <= float(flight["duration"]) <= 400, flight
    no_page_errors(page)
    context.close()


def test_a_round_that_ended_before_the_page_opened_is_revealed(
    browser: Browser, server: Server
) -> None:
    # the bot starts (seat 1, R6) and calls at its first turn: the round is over before the
    # page's first view, whose result still turns the hands face up, with the call's sound
    code, tokens = room(server, people=1, bots=1)
    time.sleep(2)  # the bots' pace here is 0.05 s
    context = context_for(browser, "en", "desktop")
    context.add_init_script(RECORD)
    page = new_page(context)
    page.goto(server.url)
    page.locator("#name").click()  # a touch that lets the page make sound
    expect(page.locator("html")).to_have_attribute("data-audio", "unlocked")
    entry = json.dumps({"token": tokens[0], "seat": 0, "host": True})
    page.evaluate(
        "([code, entry]) => localStorage.setItem(`yaniv.room.${code}`, entry)", [code, entry]
    )
    page.goto(f"{server.url}#/room/{code}")  # the same document: the audio stays unlocked
    expect(page.locator(".round-end")).to_be_visible()
    page.wait_for_function("() => window.__flights.some((f) => f.what === 'reveal')")
    shown = page.evaluate("() => window.__shown")
    assert len(shown) == 1, shown  # the first view was the round's end: nothing else came
    expect(page.locator("html")).to_have_attribute("data-last-sound", re.compile("^(yaniv|assaf)$"))
    no_page_errors(page)
    context.close()


@pytest.mark.parametrize(("lang", "size"), [("he", "desktop"), ("en", "phone")])
def test_nothing_moves_with_reduced_motion(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    context = context_for(browser, lang, size, reduced_motion=True)
    context.add_init_script(RECORD)
    page = new_page(context)
    start_game(page, server.url, "Dina", opponents=1, options=QUICK_ROUND)
    finish_quick_round(page)
    round_no = int(table(page).get_attribute("data-round") or 1)
    page.locator('.round-end [data-key="next"]').click()
    expect(table(page)).to_have_attribute("data-round", str(round_no + 1))
    # a move of the player's, if the round gives one before it ends
    if wait_turn_or_end(page) == "turn":
        before = events(page)
        click_turn(page, 0, {})
        assert events(page) > before
    assert flights(page) == [], flights(page)
    # no CSS animation or transition runs either (the pile's glow, a selected card's lift)
    assert page.evaluate("() => document.getAnimations().length") == 0
    no_page_errors(page)
    context.close()
