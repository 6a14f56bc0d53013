"""The table's sounds (issue 14): made with the Web Audio API only after the first touch or
click, quiet (a low master volume), card sounds for moves and the call at the round's end, a
switch that mutes them and is remembered. English and Hebrew, desktop and phone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import QUICK_ROUND, context_for, finish_quick_round, new_page, start_game
from browser.table_driver import click_turn, events, reach_turn, table, wait_turn_or_end

CALL = re.compile(r"^(yaniv|assaf)$")

# what the page asks of the Web Audio API
RECORD = """
window.__audio = { contexts: 0, sources: 0, gains: [] };
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  constructor(...a) { super(...a); window.__audio.contexts += 1; window.__audio.last = this; }
};
const start = AudioScheduledSourceNode.prototype.start;
AudioScheduledSourceNode.prototype.start = function (...a) {
  window.__audio.sources += 1; return start.apply(this, a); };
const createGain = BaseAudioContext.prototype.createGain;
BaseAudioContext.prototype.createGain = function () {
  const g = createGain.call(this); window.__audio.gains.push(g); return g; };
"""


def audio(page: Page) -> dict[str, Any]:
    value = page.evaluate(
        "() => ({ contexts: __audio.contexts, sources: __audio.sources,"
        " master: __audio.gains.length ? __audio.gains[0].gain.value : null,"
        " state: __audio.last ? __audio.last.state : null })"
    )
    assert isinstance(value, dict)
    return value


def sounds(page: Page) -> int:
    return int(page.locator("html").get_attribute("data-sounds") or 0)


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("he", "phone")])
def test_sounds_are_quiet_unlocked_by_a_touch_and_muted_for_good(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    context = context_for(browser, lang, size)
    context.add_init_script(RECORD)
    page = new_page(context)
    start_game(page, server.url, "Lior", opponents=1, options=QUICK_ROUND)
    # the click on Play unlocked the audio: the moves since made their sounds, quietly
    expect(page.locator("html")).to_have_attribute("data-audio", "unlocked")
    expect(page.locator("#sound")).to_be_checked()
    finish_quick_round(page)
    # the round ends with its call: "Yaniv!" or, when caught, "Assaf!"
    expect(page.locator("html")).to_have_attribute("data-last-sound", CALL)
    made = audio(page)
    assert made["contexts"] == 1 and made["sources"] > 0, made
    assert made["master"] is not None and 0 < made["master"] <= 0.25, made  # quiet
    assert made["state"] == "running", made

    # muted: the next moves make no sound, and the choice is kept over a reload
    round_no = int(table(page).get_attribute("data-round") or 1)
    page.locator('.round-end [data-key="next"]').click()
    expect(table(page)).to_have_attribute("data-round", str(round_no + 1))
    page.locator("#sound").uncheck()
    expect(page.locator("html")).to_have_attribute("data-sound", "muted")
    before, sources = sounds(page), audio(page)["sources"]
    if wait_turn_or_end(page) == "turn":
        moved = events(page)
        click_turn(page, 1, {})  # a discard
        assert events(page) > moved
    assert sounds(page) == before and audio(page)["sources"] == sources

    page.reload()
    expect(table(page)).to_be_visible()
    expect(page.locator("#sound")).not_to_be_checked()
    expect(page.locator("html")).to_have_attribute("data-sound", "muted")
    no_page_errors(page)

    # sound on again after a reload: nothing plays, nor is audio made, before a touch or click
    page.locator("#sound").evaluate(
        "e => { e.checked = true; e.dispatchEvent(new Event('change')); }"
    )
    expect(page.locator("html")).to_have_attribute("data-sound", "on")
    if page.locator(".round-end").count() == 0:
        reach_turn(page)
    assert audio(page)["contexts"] == 0, "audio before any touch or click"
    assert page.locator("html").get_attribute("data-audio") is None
    # the first touch of this page: the header, or the round's result where it covers the table
    # (the bot may have called at once in the round the reload came back to)
    touch = "#round-end-title" if page.locator(".round-end").count() else ".table-header"
    page.locator(touch).click()
    expect(page.locator("html")).to_have_attribute("data-audio", "unlocked")
    assert audio(page)["contexts"] == 1
    no_page_errors(page)
    context.close()
