"""Friends in a room: two browser contexts, one host, one guest, playing each other."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, expect

from browser.browser_support import Server, new_context, no_page_errors, watched
from browser.table_driver import (
    click_turn,
    log_lines,
    next_round_all,
    round_no,
    table,
    turn_or_end_now,
)


def test_two_players_in_a_room(browser: Browser, server: Server) -> None:
    host_ctx, guest_ctx = new_context(browser), new_context(browser)
    watch_ctx = new_context(browser)
    try:
        host = watched(host_ctx.new_page())
        guest = watched(guest_ctx.new_page())

        host.goto(server.url)
        host.get_by_label("Your name").fill("Hostess")
        host.get_by_role("button", name="Create a room").click()
        code_el = host.locator(".lobby .code")
        expect(code_el).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        code = code_el.inner_text()
        expect(host).to_have_url(re.compile(f"#/room/{code}$"))
        expect(host.get_by_label("Share link")).to_have_value(re.compile(f"#/room/{code}$"))

        # the guest types the shared code on the home page, then a name
        guest.goto(server.url)
        guest.locator("#join-code").fill(code.lower())
        guest.locator("#join-code").press("Enter")
        expect(guest.get_by_role("heading", name=f"Join room {code}")).to_be_visible()
        guest.get_by_label("Your name").fill("Guest")
        guest.get_by_role("button", name="Join", exact=True).click()
        expect(guest.get_by_text("Waiting for the host to start the game")).to_be_visible()

        # the host sees the guest arrive (the lobby polls), fills a seat with a bot, starts
        seats = host.locator(".lobby .seats li")
        expect(seats).to_have_count(2)
        expect(seats.nth(1)).to_contain_text("Guest")
        host.get_by_role("button", name="Add a computer player").click()
        expect(seats).to_have_count(3)
        host.get_by_role("button", name="Start the game").click()

        # a third browser watches with the code: no hand, every seat shown
        watcher = watched(watch_ctx.new_page())
        watcher.goto(server.url)
        watcher.locator("#watch-code").fill(code)
        watcher.get_by_role("button", name="Watch", exact=True).click()
        expect(watcher).to_have_url(re.compile(f"#/watch/{code}$"))
        expect(watcher.get_by_text("You are watching")).to_be_visible()
        expect(watcher.locator(".opponents .seat")).to_have_count(3)
        expect(watcher.locator(".hand")).to_have_count(0)

        for page in (host, guest):
            expect(table(page)).to_have_attribute("data-round", "1")
            expect(page.locator(".opponents .seat")).to_have_count(2)
        expect(host.locator(".opponents")).to_contain_text("Guest")
        expect(guest.locator(".opponents")).to_contain_text("Hostess")
        assert host.locator(".me .seat-name").inner_text() == "Hostess"
        assert guest.locator(".me .seat-name").inner_text() == "Guest"

        # both play their turns by clicking until a round is over in which both moved (a
        # round that a bot's early Yaniv ends first is followed by the next,
        # dealt once both are ready)
        turns = {"host": 0, "guest": 0}
        stats: dict[str, int] = {}
        deadline = time.monotonic() + 90
        while True:
            assert time.monotonic() < deadline, f"the round did not end: {turns}"
            now = {who: turn_or_end_now(page) for who, page in (("host", host), ("guest", guest))}
            if now["host"] == "end" and now["guest"] == "end":
                if min(turns.values()) >= 1:
                    break
                next_round_all([guest, host])  # each person says Ready
                turns = {"host": 0, "guest": 0}
                continue
            moved = False
            for who, page in (("host", host), ("guest", guest)):
                if now[who] == "turn":
                    click_turn(page, turns[who], stats)
                    turns[who] += 1
                    moved = True
            if not moved:
                host.wait_for_timeout(50)  # polling two pages in turn; not an assertion
        played = round_no(host)

        # each saw the other's moves, by name, in the log
        assert any(line.startswith("Guest ") for line in log_lines(host)), log_lines(host)
        assert any(line.startswith("Hostess ") for line in log_lines(guest)), log_lines(guest)
        watched_log = log_lines(watcher)
        assert any(line.startswith("Hostess ") for line in watched_log), watched_log
        assert not any(line.startswith("You ") for line in watched_log), watched_log
        for page in (host, guest, watcher):
            end = page.get_by_role("dialog", name=f"Round {played} is over")
            expect(end.locator("table.result tbody tr")).to_have_count(3)
            no_page_errors(page)
    finally:
        for ctx in (host_ctx, guest_ctx, watch_ctx):
            ctx.close()
