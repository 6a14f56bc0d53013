"""A game's afterlife: the History page and its replay viewer, after a game against the computer
played to its end by clicking; and a rematch in a room of friends, which both tables follow
without a reload."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, new_context, no_page_errors, watched
from browser.table_driver import (
    ROOM_URL,
    hand_cards,
    phase,
    play_to_game_over,
    room_code,
    set_rule_options,
    table,
)

# One round almost always ends the game: the first player over 1 point ends it (every hand but
# a lone ace or joker is; a round that does not is followed by the next), and Yaniv may be
# called at 15, so that rounds are short.
LIMIT = 15
QUICK = {"end_mode": "first_over", "score_limit": "1", "yaniv_threshold": str(LIMIT)}
STANDARD_END = {"end_mode": "elimination", "score_limit": "200", "yaniv_threshold": "7"}
STEP = re.compile(r"^Step (\d+) of (\d+), round \d+$")


def clean(text: str) -> str:
    """Text as read, without the Unicode isolates around names."""
    return text.replace("\u2068", "").replace("\u2069", "")


def step_of(page: Page) -> tuple[int, int]:
    """The replay's step counter: (this step, how many)."""
    found = STEP.match(page.locator(".replay-count").inner_text())
    assert found, page.locator(".replay-count").inner_text()
    return int(found[1]), int(found[2])


def expect_step(page: Page, n: int, total: int) -> None:
    expect(page.locator(".replay-count")).to_have_text(re.compile(f"^Step {n} of {total},"))


def test_history_and_replay_of_a_game_against_the_computer(page: Page, server: Server) -> None:
    me = "Rivka"  # not one of the bot names
    page.goto(server.url)
    page.get_by_label("Your name").fill(me)
    page.get_by_label("Opponents").select_option("1")
    set_rule_options(page, QUICK)
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page).to_have_url(ROOM_URL)
    expect(table(page)).to_have_attribute("data-round", "1")
    bot = clean(page.locator(".opponents .seat-name").inner_text())

    stats = play_to_game_over([page], LIMIT)
    over = page.get_by_role("dialog", name="Game over")
    expect(over).to_be_visible()
    expect(over.locator(".winners")).to_contain_text(re.compile(f"({me}|{bot})"))
    won = me in over.locator(".winners").inner_text()
    finished_room = room_code(page)
    no_page_errors(page)

    # the History page, by its link from the home page
    over.get_by_role("button", name="Home").click()
    page.get_by_role("link", name="Your games and statistics").click()
    expect(page).to_have_url(re.compile(r"#/history$"))
    expect(page.get_by_role("heading", name="Your games")).to_be_visible()
    stat = page.locator(".stats .stat").filter(has=page.get_by_text("Games finished"))
    expect(stat.locator("dd")).to_have_text("1")
    wins = page.locator(".stats .stat").filter(has=page.get_by_text("Wins", exact=True))
    expect(wins.locator("dd")).to_have_text("1" if won else "0")
    rows = page.locator("table.history tbody tr")
    expect(rows).to_have_count(1)
    row = rows.first
    expect(row.locator("td").nth(1)).to_have_text(finished_room)
    expect(row.locator(".players-cell")).to_contain_text(f"{me}\u2069 (you)")
    expect(row.locator(".players-cell")).to_contain_text(bot)
    expect(row.locator("td").nth(4)).to_have_text("Won" if won else "Place 2 of 2")
    expect(row.locator("td").nth(5)).to_have_text(re.compile(r"^\d+$"))
    expect(row.get_by_role("button", name="Continue")).to_have_count(0)

    # the replay: from the deal, step by step, by buttons and by keys
    row.get_by_role("button", name=re.compile(r"^Replay the game of .+ in room ")).click()
    expect(page).to_have_url(re.compile(r"#/history/\d+$"))
    expect(
        page.get_by_role("heading", name=re.compile(f"^Replay: room {finished_room}"))
    ).to_be_visible()
    words = page.locator(".replay-words")
    expect(words).to_have_text(re.compile(r"^Round 1 is dealt: .+ starts\.$"))
    _, total = step_of(page)
    # the deal and at least the call that ended the game (the bot, who starts, may call Yaniv
    # at its first turn: then there is no other move)
    assert total >= 2, total
    expect(page.locator(".replay-seat")).to_have_count(2)
    expect(page.locator(".replay-seat .replay-cards").first).to_have_attribute(
        "aria-label", re.compile(r"'s hand: .+ of ")
    )
    back = page.get_by_role("button", name="One move back")
    forward = page.get_by_role("button", name="One move forward")
    expect(back).to_be_disabled()
    forward.click()
    expect_step(page, 2, total)
    second_raw = words.inner_text()
    second = clean(second_raw)
    # a move in words, or, where the bot's first move was the call, its result alone (the
    # call that ends a round is told by the result: "Yaniv! Dana wins the round with 5.")
    assert re.match(f"^(({me}|{bot}) (discards|draws|takes)|(Yaniv|Assaf)! )", second), second
    back.click()
    expect_step(page, 1, total)
    expect(back).to_be_disabled()
    page.keyboard.press("ArrowRight")
    expect_step(page, 2, total)
    expect(words).to_have_text(second_raw)
    page.keyboard.press("ArrowLeft")
    expect_step(page, 1, total)

    # every move in words, to the end of the game
    told: list[str] = []
    for n in range(2, total + 1):
        page.keyboard.press("ArrowRight")
        expect_step(page, n, total)
        told.append(clean(words.inner_text()))
    expect(forward).to_be_disabled()
    page.keyboard.press("ArrowRight")  # nothing past the end
    expect_step(page, total, total)
    assert re.search(r"Game over: .+ won\.$", told[-1]), told
    assert re.search(r"(Yaniv! .+ wins the round with \d+|Assaf! )", told[-1]), told
    if stats.get("discard_button") or stats.get("stock") or stats.get("take"):
        assert any(line.startswith(f"{me} discards ") for line in told), told
    if stats.get("yaniv"):  # the player's call, told once by its result (issue 14)
        assert any(
            line.startswith((f"Yaniv! {me} wins", f"{me} called Yaniv above"))
            or f"caught {me}'s Yaniv" in line
            for line in told
        ), told
    assert not [line for line in told if line.count("Yaniv!") > 1], told
    # seat 1, the bot, starts the first round: its move, or its call told by the result
    assert told[0].startswith(f"{bot} ") or (
        told[0].startswith(("Yaniv! ", "Assaf! ")) and bot in told[0]
    ), told
    page.keyboard.press("Home")
    expect_step(page, 1, total)
    page.keyboard.press("End")
    expect_step(page, total, total)
    page.get_by_role("button", name="To the start of the game").click()
    expect_step(page, 1, total)

    # an unfinished game is offered to continue, not to replay
    page.get_by_role("button", name="Back to your games").click()
    expect(rows).to_have_count(1)
    page.get_by_role("button", name="Home", exact=True).click()
    page.get_by_label("Your name").fill(me)
    # the standard end (out over 200) and threshold: one round cannot end this game, so it is
    # still in play whatever the bot does before the page looks (under QUICK, which the home
    # form keeps, the bot that starts could call and end the game at its first turn)
    set_rule_options(page, STANDARD_END)
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page).to_have_url(ROOM_URL)
    expect(table(page)).to_be_visible()
    playing_room = room_code(page)
    page.goto(server.url + "#/history")
    expect(rows).to_have_count(2)
    newest = rows.first
    expect(newest.locator("td").nth(1)).to_have_text(playing_room)
    expect(newest.locator("td").nth(4)).to_have_text("In play")
    expect(newest.get_by_role("button", name=re.compile("^Replay"))).to_have_count(0)
    expect(stat.locator("dd")).to_have_text("1")  # still one game finished
    newest.get_by_role("button", name="Continue").click()
    expect(page).to_have_url(re.compile(f"#/room/{playing_room}$"))
    expect(table(page)).to_have_attribute("data-round", "1")
    no_page_errors(page)


def test_a_rematch_in_a_room_reaches_both_tables(browser: Browser, server: Server) -> None:
    host_ctx, guest_ctx = new_context(browser), new_context(browser)
    try:
        host = watched(host_ctx.new_page())
        guest = watched(guest_ctx.new_page())
        host.goto(server.url)
        host.get_by_label("Your name").fill("Hostess")
        set_rule_options(host, QUICK)
        host.get_by_role("button", name="Create a room").click()
        code_el = host.locator(".lobby .code")
        expect(code_el).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        code = code_el.inner_text()

        guest.goto(server.url + f"#/room/{code}")
        guest.get_by_label("Your name").fill("Guest")
        guest.get_by_role("button", name="Join", exact=True).click()
        expect(guest.get_by_text("Waiting for the host to start the game")).to_be_visible()
        seats = host.locator(".lobby .seats li")
        expect(seats).to_have_count(2)
        host.get_by_role("button", name="Add a computer player").click()
        expect(seats).to_have_count(3)
        host.get_by_role("button", name="Start the game").click()
        for page in (host, guest):
            expect(table(page)).to_have_attribute("data-round", "1")

        play_to_game_over([host, guest], LIMIT)
        urls: dict[str, str] = {}
        hands: dict[str, list[str]] = {}
        for name, page in (("host", host), ("guest", guest)):
            expect(page.get_by_role("dialog", name="Game over")).to_be_visible()
            urls[name] = page.url
            hands[name] = sorted(hand_cards(page))

        # the guest asks for the rematch; both tables are dealt the new game in place (a mark
        # left on each page's window shows that neither was reloaded)
        for page in (host, guest):
            page.evaluate("() => { window.__sameDocument = true; }")
        guest.get_by_role("dialog", name="Game over").get_by_role("button", name="Rematch").click()
        for name, page in (("host", host), ("guest", guest)):
            expect(page.get_by_role("dialog", name="Game over")).to_have_count(0)
            expect(table(page)).to_have_attribute("data-round", "1")
            expect(table(page)).not_to_have_attribute("data-phase", re.compile("over$"))
            expect(page.locator(".hand .card")).to_have_count(5)
            expect(page.locator(".opponents .seat")).to_have_count(2)
            assert page.url == urls[name], "the table moved to another address"
            assert phase(page) in ("start", "draw", "discard"), phase(page)
            assert sorted(hand_cards(page)) != hands[name], "the old hand is still shown"
            assert page.evaluate("() => window.__sameDocument === true"), "the page reloaded"

        # the host's history: the finished game, and the rematch as the room's second game
        host.goto(server.url + "#/history")
        rows = host.locator("table.history tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0).locator("td").nth(1)).to_have_text(f"{code} · 2")
        expect(rows.nth(0).locator("td").nth(4)).to_have_text("In play")
        expect(rows.nth(1).locator("td").nth(1)).to_have_text(code)
        expect(rows.nth(1).get_by_role("button", name=re.compile("^Replay"))).to_have_count(1)
        no_page_errors(host)
        no_page_errors(guest)
    finally:
        host_ctx.close()
        guest_ctx.close()
