"""A guest's lobby shows the room's rules, and the replay (issue 14, fault 8): a run with a
joker shown in the order it was laid, a round's call told once; axe on the history page
(fault 9). English and Hebrew, desktop and phone."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Browser, Route, expect

from browser.a11y import assert_no_violations
from browser.browser_support import Server, no_page_errors
from browser.screens import QUICK_ROUND, context_for, finish_quick_round, new_page, start_game

RULES_LINE = {
    "en": "Yaniv at 5 or less · Assaf +30 · out over 150",
    "he": "יניב עד 5 · אסף \u2066+30\u2069 · בחוץ מעל 150",
}
CHANGED = {"en": "Score limit: 150", "he": "גבול הניקוד: 150"}
JOKER_RUN = {
    "en": ["four of diamonds", "red joker", "six of diamonds"],
    "he": ["ארבע יהלום", "ג'וקר אדום", "שש יהלום"],
}


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("he", "phone")])
def test_a_guest_sees_the_rules_in_the_lobby(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    host_context = context_for(browser, "en", "desktop")
    guest_context = context_for(browser, lang, size)
    host = new_page(host_context)
    host.goto(server.url)
    host.locator("#name").fill("Hostess")
    host.locator("fieldset.rules summary").click()
    host.locator("#opt-yaniv_threshold").fill("5")
    host.locator("#opt-score_limit").fill("150")
    host.locator("section[aria-labelledby=friends-title] button.primary").click()
    code = host.locator(".lobby .code").inner_text()

    guest = new_page(guest_context)
    guest.goto(f"{server.url}#/room/{code}")
    guest.locator("#join-name").fill("Guest")
    guest.locator("form.panel button[type=submit]").click()
    rules = guest.locator(".room-rules")
    expect(rules).to_be_visible()
    expect(rules.locator("p").nth(1)).to_have_text(RULES_LINE[lang])
    expect(rules).to_contain_text(CHANGED[lang])  # what differs from the nearest rule set
    expect(guest.locator(".lobby .seats li")).to_have_count(2)
    no_page_errors(guest)
    host_context.close()
    guest_context.close()


def test_the_hosts_unsaved_choices_outlive_a_guest_joining(
    browser: Browser, server: Server
) -> None:
    """The lobby is drawn again when someone joins; the host's rules edits not yet saved and
    the bot level picked stay (they were drawn back to the room's rules and to medium)."""
    context = context_for(browser, "en", "desktop")
    host = new_page(context)
    host.goto(server.url)
    host.locator("#name").fill("Hostess")
    host.locator("section[aria-labelledby=friends-title] button.primary").click()
    code = host.locator(".lobby .code").inner_text()
    host.locator(".lobby fieldset.rules summary").click()
    host.locator("#opt-yaniv_threshold").fill("5")  # not saved
    host.locator("#bot-level").select_option("expert")
    request = urllib.request.Request(
        f"{server.url}api/rooms/{code}/join",
        data=json.dumps({"name": "Guest"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
    expect(host.locator(".lobby .seats li")).to_have_count(2)  # drawn again
    expect(host.locator("#opt-yaniv_threshold")).to_have_value("5")
    expect(host.locator("#bot-level")).to_have_value("expert")
    no_page_errors(host)
    context.close()


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("he", "phone")])
def test_the_replay_lays_a_joker_run_in_order_and_calls_once(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    context = context_for(browser, lang, size)
    page = new_page(context)
    # a game of one round: the first call ends it (first over one point)
    start_game(
        page,
        server.url,
        "Tami",
        opponents=1,
        options={**QUICK_ROUND, "end_mode": "first_over", "score_limit": 1},
    )
    finish_quick_round(page)
    expect(page.locator(".table-page")).to_have_attribute("data-phase", "game_over")

    page.goto(f"{server.url}#/history")
    replay = page.locator("table.history button[data-game]").first
    expect(replay).to_be_visible()
    assert_no_violations(page, f"the history page ({lang}, {size})")

    # the replay of a discard of 4♦ ★ 6♦ (laid so: the joker between), as the server sends
    # the discard's group in the order it was laid: the page keeps that order
    def joker_run(route: Route) -> None:
        answer = route.fetch()
        game = answer.json()
        # a discard's step if the game has one (a first-turn Yaniv leaves only the deal's)
        steps = game["steps"]
        step = next((s for s in steps if (s["move"] or "").startswith("discard ")), steps[0])
        step["pile"] = ["4D", "RJ", "6D"]
        route.fulfill(
            response=answer,
            body=json.dumps(game),
            headers={**answer.headers, "content-type": "application/json"},
        )

    page.route(re.compile(r".*/api/history/\d+$"), joker_run)
    replay.click()
    expect(page.locator(".replay-count")).to_be_visible()
    steps = int(re.findall(r"\d+", page.locator(".replay-count").inner_text())[1])
    laid = []
    for _ in range(steps):
        pile = page.locator(".replay-pile .card")
        if pile.count() == 3:
            laid = [str(x) for x in pile.evaluate_all("els => els.map(e => e.title)")]
            break
        page.locator('[data-step="next"]').click()
    assert laid == JOKER_RUN[lang], laid

    # the last step: the call that ended the game, with "Yaniv!" said once
    page.locator('[data-step="last"]').click()
    words = page.locator(".replay-words").inner_text()
    call = "Yaniv!" if lang == "en" else "יניב!"
    assert words.count(call) <= 1 and (call in words or "Assaf" in words or "אסף" in words), words
    no_page_errors(page)
    context.close()
