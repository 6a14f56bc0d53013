"""Coming back: a closed tab reopened on the same browser profile, and a server restarted on
the same database, both mid-round, and the game going on."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from browser.browser_support import Server, new_context, no_page_errors, watched
from browser.table_driver import (
    hand_card,
    hand_cards,
    highest_card,
    play_round_by_clicking,
    play_turns,
    room_code,
    start_vs_computer,
    table,
)


def test_a_closed_tab_comes_back_and_plays_on(context: BrowserContext, server: Server) -> None:
    page = watched(context.new_page())
    start_vs_computer(page, server.url, "Closer", opponents=1)
    play_turns(page, 2)
    code = room_code(page)
    hand = hand_cards(page)
    round_no = table(page).get_attribute("data-round")
    events = table(page).get_attribute("data-events")
    no_page_errors(page)
    page.close()

    # a new tab of the same profile (the token is in localStorage), at the room's address
    again = watched(context.new_page())
    again.goto(f"{server.url}#/room/{code}")
    expect(table(again)).to_have_attribute("data-events", str(events))
    expect(table(again)).to_have_attribute("data-round", str(round_no))
    expect(table(again)).to_have_attribute("data-my-turn", "true")
    assert hand_cards(again) == hand
    expect(again.locator(".me .seat-name")).to_have_text("Closer")
    play_round_by_clicking(again)
    expect(again.get_by_role("dialog", name=re.compile(r"^Round \d+ is over$"))).to_be_visible()
    no_page_errors(again)


def test_the_server_restarts_mid_game(page: Page, own_server: Server) -> None:
    start_vs_computer(page, own_server.url, "Stayer", opponents=1)
    play_turns(page, 2)
    hand = hand_cards(page)
    events = table(page).get_attribute("data-events")

    own_server.kill()
    expect(table(page)).to_have_attribute("data-net", "reconnecting")
    expect(page.get_by_role("status").filter(has_text="reconnecting")).to_be_visible()
    assert hand_cards(page) == hand, "the hand stays on the page while the server is away"

    # a move made while the server is away waits for the connection: discard, then draw
    card = highest_card(page)
    hand_card(page, card).click()
    page.locator('[data-key="stock"]').click()
    expect(table(page)).to_have_attribute("data-busy", "true")
    own_server.start()
    expect(table(page)).to_have_attribute("data-net", "open", timeout=30_000)
    # the discard and the draw were both played: two events more, and the turn passed on
    page.wait_for_function(
        "n => Number(document.querySelector('.table-page').dataset.events) >= n",
        arg=int(str(events)) + 2,
    )
    assert card not in hand_cards(page) or hand.count(card) > 1
    assert len(hand_cards(page)) == len(hand)
    expect(page.locator(".log .story")).to_contain_text(re.compile(r"You discarded \S+ and drew"))
    play_round_by_clicking(page)
    expect(page.get_by_role("dialog", name=re.compile(r"^Round \d+ is over$"))).to_be_visible()
    no_page_errors(page)


def test_a_bot_stands_in_after_the_grace_and_the_player_takes_back(
    browser: Browser, tmp_path: Path
) -> None:
    srv = Server(tmp_path / "yaniv.sqlite", tmp_path / "server.log", grace=1.0)
    srv.start()
    player_ctx, watch_ctx = new_context(browser), new_context(browser)
    try:
        page = watched(player_ctx.new_page())
        start_vs_computer(page, srv.url, "Leaver", opponents=1)
        play_turns(page, 1)
        code = room_code(page)
        page.close()

        # a spectator sees the computer play the seat, and its moves told as the computer's
        # (issue 14: they were credited to the player)
        watcher = watched(watch_ctx.new_page())
        watcher.goto(f"{srv.url}#/watch/{code}")
        seat = watcher.locator(".opponents .seat").filter(has_text="Leaver")
        expect(seat).to_contain_text("played by the computer")
        stand_in = re.compile(
            r"^The computer played for \u2068Leaver\u2069: discarded .+ and (drew|took)"
        )
        expect(watcher.locator(".log .story li").filter(has_text=stand_in)).not_to_have_count(0)

        # the player comes back on the same profile and plays on
        again = watched(player_ctx.new_page())
        again.goto(f"{srv.url}#/room/{code}")
        expect(again.locator(".me .seat-name")).to_have_text("Leaver")
        expect(seat).not_to_contain_text("played by the computer")
        play_round_by_clicking(again)
        expect(again.get_by_role("dialog", name=re.compile(r"^Round \d+ is over$"))).to_be_visible()
        no_page_errors(again)
        no_page_errors(watcher)
    finally:
        player_ctx.close()
        watch_ctx.close()
        srv.stop()
