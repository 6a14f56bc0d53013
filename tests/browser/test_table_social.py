"""The table among people, in a real Chromium, in English and Hebrew, on a desktop and a phone:
the round's end waits for every person (or its countdown), a stand-in shown and credited as the
computer's (seat, story, replay), the turn timer's ring and its end, and quick reactions."""

from __future__ import annotations

import json
import re
import secrets
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from browser.browser_support import Server, new_context, no_page_errors, watched
from browser.table_driver import (
    after_move,
    can_call_yaniv,
    click_turn,
    events,
    highest_card,
    log_lines,
    phase,
    play_to_game_over,
    round_no,
    select_cards,
    table,
    turn_or_end_now,
)

CATALOGUES = Path(__file__).resolve().parents[2] / "yaniv" / "web" / "i18n"
LANGS = {"en": "en-GB", "he": "he-IL"}
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
EVERY_YANIV = {"preset": "standard", "yaniv_threshold": 500}  # a call at the first turn
CASES = [(lang, size) for lang in LANGS for size in VIEWPORTS]
IDS = [f"{lang}-{size}" for lang, size in CASES]


def words(lang: str, key: str, **params: Any) -> str:
    """A catalogue's message with its placeholders filled (the page's own words)."""
    data = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    if key not in data:
        data = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))
    text = str(data[key])
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m.group(1), m.group(0))), text)


def pattern(lang: str, key: str, **params: Any) -> re.Pattern[str]:
    """A catalogue message as a pattern: a {count} left open is any number. A key ending in
    ``#other`` matches any of its plural forms (Hebrew's 'שתי שניות', 'שנייה אחת')."""
    data = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    keys = [key]
    if key.endswith("#other"):
        base = key.removesuffix("#other")
        keys = [k for k in data if k.startswith(base + "#")]
    forms = []
    for k in keys:
        text = words(lang, k, **params)
        forms.append(r"\d+".join(re.escape(p) for p in text.split("{count}")))
    return re.compile("|".join(f"(?:{f})" for f in forms))


def post(server: Server, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server.url + path.lstrip("/"),
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return dict(json.loads(answer.read()))


def room(
    server: Server, people: int, bots: int = 0, start: bool = True, **options: Any
) -> tuple[str, list[str]]:
    """A room of ``people`` (Host, P1, ...) and ``bots``; its code and the people's tokens."""
    body: dict[str, Any] = {"name": "Host", "rules": EVERY_YANIV, **options}
    host = post(server, "/api/rooms", body)
    code, tokens = host["room"], [host["token"]]
    for n in range(1, people):
        tokens.append(post(server, f"/api/rooms/{code}/join", {"name": f"P{n}"})["token"])
    if bots:
        seats = [{"seat": people + i, "level": "easy"} for i in range(bots)]
        post(server, f"/api/rooms/{code}/settings", {"token": tokens[0], "bots": seats})
    if start:
        post(server, f"/api/rooms/{code}/start", {"token": tokens[0]})
    return code, tokens


def seat_page(
    ctx: BrowserContext, server: Server, code: str, token: str, seat: int, lang: str
) -> Page:
    """A page of ``ctx`` holding the seat's token (as the page keeps it), at the room."""
    page = watched(ctx.new_page())
    page.goto(server.url)
    entry = json.dumps({"token": token, "seat": seat, "host": seat == 0})
    page.evaluate(
        "([code, entry, lang]) => { localStorage.setItem(`yaniv.room.${code}`, entry);"
        " localStorage.setItem('yaniv.lang', lang); }",
        [code, entry, lang],
    )
    page.goto(f"{server.url}#/room/{code}")
    return page


def contexts(browser: Browser, lang: str, size: str, count: int) -> list[BrowserContext]:
    return [
        new_context(browser, locale=LANGS[lang], viewport=VIEWPORTS[size]) for _ in range(count)
    ]


def yaniv_now(pages: list[Page]) -> None:
    """Whoever of ``pages`` is to play calls Yaniv (the rules allow it on any hand)."""
    for _ in range(200):
        for page in pages:
            if turn_or_end_now(page) == "end":
                return
            if turn_or_end_now(page) == "turn" and can_call_yaniv(page, 500):
                page.locator('[data-key="yaniv"]').click()
                expect(table(page)).to_have_attribute("data-phase", re.compile("over$"))
                return
        pages[0].wait_for_timeout(50)  # polling the pages in turn; not an assertion
    raise AssertionError("nobody could call Yaniv")


@pytest.fixture
def quick_server(tmp_path: Path, chromium_path: str) -> Iterator[Server]:
    """A server whose round's end waits 8 s (time enough to see it wait on a busy machine,
    short enough to see it end), whose grace is 2 s."""
    srv = Server(tmp_path / "yaniv.sqlite", tmp_path / "server.log", grace=2.0)
    srv.extra = ["--round-wait", "8"]
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


# ---------------------------------------------------------------- fault 3


@pytest.mark.parametrize(("lang", "size"), CASES, ids=IDS)
def test_the_round_end_waits_for_each_person(
    browser: Browser, quick_server: Server, lang: str, size: str
) -> None:
    ctxs = contexts(browser, lang, size, 2)
    try:
        code, tokens = room(quick_server, people=2)
        host = seat_page(ctxs[0], quick_server, code, tokens[0], 0, lang)
        guest = seat_page(ctxs[1], quick_server, code, tokens[1], 1, lang)
        for page in (host, guest):
            expect(table(page)).to_have_attribute("data-round", "1")
        yaniv_now([host, guest])
        for page in (host, guest):
            expect(table(page)).to_have_attribute("data-phase", "round_over")
            expect(page.locator(".round-end .round-wait")).to_have_text(
                pattern(lang, "clock.next_round#other")
            )
        ready = host.locator('.round-end [data-key="next"]')
        expect(ready).to_have_text(words(lang, "ready.ready"))
        ready.click()
        expect(ready).to_have_text(words(lang, "ready.waiting"))
        expect(ready).to_be_disabled()
        # the guest still reads the result: the dialog stays, and says who is ready
        expect(guest.locator('.ready li[data-seat="0"]')).to_have_attribute("data-ready", "true")
        expect(guest.locator('.ready li[data-seat="0"]')).to_have_text(
            words(lang, "ready.yes", name="Host")
        )
        expect(guest.locator('.ready li[data-seat="1"]')).to_have_text(
            words(lang, "ready.no", name="P1")
        )
        assert round_no(guest) == 1 and guest.locator(".round-end").is_visible()
        assert guest.locator('.round-end [data-key="next"]').is_enabled()
        # nobody else clicks: the server's countdown deals the next round for both
        for page in (host, guest):
            expect(table(page)).to_have_attribute("data-round", "2", timeout=20_000)
            expect(page.locator(".round-end")).to_have_count(0)
            no_page_errors(page)
    finally:
        for ctx in ctxs:
            ctx.close()


# ---------------------------------------------------------------- fault 4


@pytest.mark.parametrize(("lang", "size"), CASES, ids=IDS)
def test_a_stand_in_is_shown_and_told_as_the_computer(
    browser: Browser, quick_server: Server, lang: str, size: str
) -> None:
    ctxs = contexts(browser, lang, size, 2)
    try:
        code, tokens = room(quick_server, people=2, rules={"preset": "standard"})
        host = seat_page(ctxs[0], quick_server, code, tokens[0], 0, lang)
        guest = seat_page(ctxs[1], quick_server, code, tokens[1], 1, lang)
        expect(table(guest)).to_have_attribute("data-round", "1")
        guest.close()  # the guest goes: the seat is held for the grace, then the computer plays
        seat = host.locator('.seat[data-seat="1"]')
        expect(seat.locator(".grace")).to_have_text(pattern(lang, "clock.grace#other"))
        expect(seat.locator(".stand-in")).to_have_text(words(lang, "seat.stand_in"))
        expect(seat.locator(".grace")).to_have_count(0)
        # the host plays on; the guest's moves are the computer's in the story, never P1's
        told = words(lang, "log.stand_in_turn", name="P1", actions="")
        credited = words(lang, "log.turn", name="P1", actions="")
        lines: list[str] = []
        for _ in range(100):
            lines = log_lines(host)
            if any(x.startswith(told) for x in lines):
                break
            if turn_or_end_now(host) == "turn":
                click_turn(host, 0, {})
            else:
                host.wait_for_timeout(100)  # waiting for the stand-in's turn; not an assertion
        else:
            raise AssertionError(f"no stand-in line in the story: {lines}")
        assert not any(x.startswith(credited) for x in lines), lines
        no_page_errors(host)
    finally:
        for ctx in ctxs:
            ctx.close()


# ---------------------------------------------------------------- the turn timer


@pytest.mark.parametrize(("lang", "size"), CASES, ids=IDS)
def test_the_turn_timer_runs_out_and_the_computer_plays(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    (ctx,) = contexts(browser, lang, size, 1)
    try:
        code, tokens = room(server, people=1, start=False, rules={"preset": "standard"})
        page = seat_page(ctx, server, code, tokens[0], 0, lang)
        # the host sets the timer in the lobby, adds a bot and starts
        choice = page.locator("#turn-timer")
        expect(choice).to_have_value("0")
        choice.select_option("15")
        expect(page.locator("#turn-timer")).to_have_value("15")
        page.locator(".lobby .inline button").filter(has_text=words(lang, "room.add_bot")).click()
        expect(page.locator(".lobby .seats li")).to_have_count(2)
        page.get_by_role("button", name=words(lang, "room.start")).click()
        expect(table(page)).to_be_visible()
        # whoever is to play has the ring; on the person's turn it counts down and warns
        page.wait_for_function(
            "() => document.querySelector('.table-page')?.dataset.myTurn === 'true'",
            timeout=30_000,
        )
        ring = page.locator('.me .turn-clock[data-clock="turn"]')
        expect(ring).to_be_visible()
        first = int(ring.get_attribute("data-seconds") or 0)
        assert 10 <= first <= 15, first
        expect(ring).to_have_attribute("aria-label", pattern(lang, "clock.turn#other"))
        expect(ring).to_have_class(re.compile(r"\bwarn\b"), timeout=15_000)
        expect(ring).to_have_attribute("aria-label", pattern(lang, "clock.turn_warn#other"))
        # time is up: the computer plays the turn, and the story says so
        expect(page.locator(".log .story")).to_contain_text(
            words(lang, "log.you_stand_in_turn", actions=""), timeout=10_000
        )
        # a second turn runs out: the seat is away, the computer plays on until "I'm back"
        back = page.locator('.me [data-key="back"]')
        for _ in range(400):
            if back.count():
                break
            nxt = page.locator('.round-end [data-key="next"]')
            # a round the stand-in or the bot ended: ready once (the button is disabled while
            # the answer comes; an away seat's round is dealt by the server all the same)
            if phase(page) == "round_over" and nxt.count() and nxt.is_enabled():
                nxt.click()
            page.wait_for_timeout(100)  # the server's clock runs; not an assertion
        expect(back).to_have_text(words(lang, "seat.back"))
        expect(page.locator(".me .stand-in")).to_have_text(words(lang, "seat.stand_in_you"))
        back.click()
        expect(back).to_have_count(0)
        no_page_errors(page)
    finally:
        ctx.close()


# ---------------------------------------------------------------- quick reactions


def test_a_home_page_answered_late_does_not_cover_the_table_opened_meanwhile(
    browser: Browser, server: Server
) -> None:
    """The home page waits for its levels; the person opens their room before they come. The
    home page's late answer must not replace the table (CI once saw the home page, with the
    table's words in the live region, where the table should have been)."""
    ctx = contexts(browser, "en", "desktop", 1)[0]
    try:
        code, tokens = room(server, people=2)
        page = watched(ctx.new_page())
        held: list[Any] = []
        page.route("**/api/levels", lambda route: held.append(route))  # held back
        page.goto(server.url)
        expect(page.locator("main")).to_contain_text(words("en", "common.loading"))
        entry = json.dumps({"token": tokens[0], "seat": 0, "host": True})
        page.evaluate("([c, e]) => localStorage.setItem(`yaniv.room.${c}`, e)", [code, entry])
        page.goto(f"{server.url}#/room/{code}")
        expect(table(page)).to_be_visible()
        assert len(held) == 1
        with page.expect_response("**/api/levels"):
            held[0].continue_()  # now the home page's answer comes
        page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # and is read
        expect(table(page)).to_be_visible()
        expect(page.locator(".home")).to_have_count(0)
        no_page_errors(page)
    finally:
        ctx.close()


@pytest.mark.parametrize(("lang", "size"), CASES, ids=IDS)
def test_quick_reactions_reach_the_room_and_can_be_muted(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    ctxs = contexts(browser, lang, size, 2)
    try:
        code, tokens = room(server, people=2, rules={"preset": "standard"})
        host = seat_page(ctxs[0], server, code, tokens[0], 0, lang)
        guest = seat_page(ctxs[1], server, code, tokens[1], 1, lang)
        expect(table(guest)).to_be_visible()
        bar = host.get_by_role("group", name=words(lang, "react.title"))
        expect(bar.locator("button")).to_have_count(6)
        bar.get_by_role("button", name=words(lang, "react.laugh")).click()
        bubble = guest.locator('.seat[data-seat="0"] .reaction-bubble')
        expect(bubble).to_have_text("😂")
        expect(host.locator(".me .reaction-bubble")).to_have_text("😂")
        expect(bubble).to_have_count(0, timeout=8_000)  # shown for a few seconds
        # too soon again: the server refuses, the page says so in the reader's language
        bar.get_by_role("button", name=words(lang, "react.yaniv_soon")).click()
        bar.get_by_role("button", name=words(lang, "react.yaniv_soon")).click()
        expect(host.locator(".react-notice")).to_have_text(words(lang, "react.too_soon"))
        # the guest mutes the host: no more bubbles, and the choice is remembered
        mute = guest.locator('[data-key="mute:0"]')
        expect(mute).to_have_text(words(lang, "react.mute", name="Host"))
        mute.click()
        expect(mute).to_have_attribute("aria-pressed", "true")
        guest.reload()
        expect(guest.locator('[data-key="mute:0"]')).to_have_attribute("aria-pressed", "true")
        host.wait_for_timeout(3200)  # the server's gap between two reactions of a seat
        bar.get_by_role("button", name=words(lang, "react.nice")).click()
        expect(host.locator(".me .reaction-bubble")).to_have_text(words(lang, "react.nice"))
        guest.wait_for_timeout(500)  # the reaction had time to arrive; it must not show
        expect(guest.locator(".reaction-bubble")).to_have_count(0)
        for page in (host, guest):
            no_page_errors(page)
    finally:
        for ctx in ctxs:
            ctx.close()


@pytest.mark.parametrize(("lang", "size"), CASES, ids=IDS)
def test_the_replay_tells_the_stand_ins_moves(
    browser: Browser, quick_server: Server, lang: str, size: str
) -> None:
    ctxs = contexts(browser, lang, size, 2)
    try:
        key = secrets.token_urlsafe(32)
        rules = {"preset": "standard", "end_mode": "first_over", "score_limit": 1}
        rules["yaniv_threshold"] = 15
        host_body = {"name": "Host", "rules": rules, "player_key": key}
        host_room = post(quick_server, "/api/rooms", host_body)
        code, tokens = host_room["room"], [host_room["token"]]
        tokens.append(post(quick_server, f"/api/rooms/{code}/join", {"name": "P1"})["token"])
        post(quick_server, f"/api/rooms/{code}/start", {"token": tokens[0]})
        ctxs[0].add_init_script(f"localStorage.setItem('yaniv.player_key', {json.dumps(key)})")
        host = seat_page(ctxs[0], quick_server, code, tokens[0], 0, lang)
        guest = seat_page(ctxs[1], quick_server, code, tokens[1], 1, lang)
        expect(table(guest)).to_have_attribute("data-round", "1")
        guest.close()
        expect(host.locator('.seat[data-seat="1"] .stand-in')).to_be_visible(timeout=10_000)
        told = words(lang, "log.stand_in_turn", name="P1", actions="")
        # the host plays plain turns (no call) until the computer has moved for P1
        for _ in range(100):
            if any(x.startswith(told) for x in log_lines(host)) or phase(host) == "game_over":
                break
            if turn_or_end_now(host) != "turn":
                host.wait_for_timeout(100)  # the stand-in's turn; not an assertion
                continue
            before = events(host)
            if phase(host) == "slap":
                host.locator('[data-key="pass"]').click()
            else:
                select_cards(host, [highest_card(host)])
                host.locator('[data-key="stock"]').click()
            after_move(host, before)
        if phase(host) != "game_over":
            play_to_game_over([host], 15, seconds=90)
        expect(table(host)).to_have_attribute("data-phase", "game_over")
        # the History page's replay: the stand-in's moves are the computer's
        host.goto(f"{quick_server.url}#/history")
        host.locator("table.history tbody tr button[data-game]").first.click()
        expect(host.locator(".replay-words")).to_be_visible()
        suffix = words(lang, "history.stand_in", words="").strip()
        seen: list[str] = []
        last = host.locator('[data-step="next"]')
        while True:
            seen.append(host.locator(".replay-words").inner_text())
            if last.is_disabled():
                break
            count = host.locator(".replay-count").inner_text()
            last.click()
            expect(host.locator(".replay-count")).not_to_have_text(count)
        by_computer = [x for x in seen if suffix in x]
        assert by_computer, seen
        assert all("P1" in x for x in by_computer), by_computer
        no_page_errors(host)
    finally:
        for ctx in ctxs:
            ctx.close()
