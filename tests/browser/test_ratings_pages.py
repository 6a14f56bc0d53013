"""The profile and the leaderboard as people see them (issue 15), in English on a desktop and in
Hebrew on a phone: rated games are played over the API by two player keys, then each browser
(holding one of the keys) reads its profile, chooses a public name and finds its place."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

from browser.browser_support import Server, no_page_errors
from browser.screens import context_for, new_page, no_sideways_scroll, shoot
from yaniv.server import ratings

WEB = Path(__file__).resolve().parents[2] / "yaniv" / "web"
HE = json.loads((WEB / "i18n" / "he.json").read_text(encoding="utf-8"))
EN = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
#: Any Yaniv call ends the game.
QUICK = {"preset": "standard", "yaniv_above_threshold": True, "score_limit": 1,
         "end_mode": "first_over"}  # fmt: skip


def play_rated_game(url: str, first: str, second: str) -> None:
    """A room of two people (the two keys) over the API; each calls Yaniv at their first turn,
    which ends the game."""
    api = url.rstrip("/")
    host = httpx.post(f"{api}/api/rooms", json={"name": "A", "rules": QUICK, "player_key": first})
    code, token = host.json()["room"], host.json()["token"]
    pal = httpx.post(f"{api}/api/rooms/{code}/join", json={"name": "B", "player_key": second})
    assert httpx.post(f"{api}/api/rooms/{code}/start", json={"token": token}).status_code == 200
    ws_url = api.replace("http://", "ws://")
    with (
        connect(f"{ws_url}/ws/{code}?token={token}") as ws0,
        connect(f"{ws_url}/ws/{code}?token={pal.json()['token']}") as ws1,
    ):
        sockets = {0: ws0, 1: ws1}
        acted: set[tuple[int, int]] = set()
        for _ in range(200):
            message: dict[str, Any] = json.loads(ws0.recv(timeout=10))
            if message["type"] != "state":
                continue
            view = message["view"]
            if view["phase"] == "game_over":
                return
            moment = (view["round"], len(view["events"]))
            if view["phase"] == "start" and moment not in acted:
                acted.add(moment)
                mover = sockets[view["to_move"]]
                mover.send(json.dumps({"type": "move", "move": "yaniv", "id": f"y{moment}"}))
    raise AssertionError("the game did not end")


def keyed_page(browser: Browser, lang: str, size: str, key: str) -> Page:
    context = context_for(browser, lang, size)
    context.add_init_script(f"localStorage.setItem('yaniv.player_key', {json.dumps(key)});")
    return new_page(context)


def test_profile_and_leaderboard_in_english_and_hebrew(
    browser: Browser, own_server: Server, tmp_path: Path
) -> None:
    ann, ben = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    games = ratings.MIN_GAMES
    for _ in range(games):
        play_rated_game(own_server.url, ann, ben)

    # English, desktop: the profile with its rating, plot and figures; a public name in markup
    page = keyed_page(browser, "en", "desktop", ann)
    page.goto(own_server.url + "#/")
    page.get_by_role("link", name=EN["profile.link"]).click()
    expect(page.locator("h1.profile-title")).to_have_text(EN["profile.title"])
    expect(page.locator(".rating-value")).to_be_visible()
    expect(page.locator(".rating-plot circle")).to_have_count(games + 1)  # the start, then each
    games_dd = page.locator('[data-stat="profile.games"] dd')
    expect(games_dd).to_have_text(str(games))
    expect(page.locator('[data-stat="profile.rated_games"] dd')).to_have_text(str(games))
    expect(page.locator(".board-place")).to_contain_text("choose a public name")
    page.locator("#public-name").fill("<b>Ann</b>")
    page.get_by_role("button", name=EN["profile.name_save"]).click()
    expect(page.locator(".notice")).to_have_text(EN["profile.name_saved"])
    expect(page.locator(".public-name .name-text")).to_have_text("<b>Ann</b>")
    assert page.locator("main b").count() == 0  # the markup is text
    expect(page.locator(".board-place")).to_contain_text("Your place on the leaderboard:")
    shoot(page, tmp_path, "profile-en-desktop.png")
    page.get_by_role("link", name=EN["board.link"]).first.click()
    expect(page.locator(".board-page h1")).to_have_text(EN["board.title"])
    rows = page.locator("table.leaderboard tbody tr")
    expect(rows).to_have_count(1)  # Ben has no public name yet
    expect(rows.first).to_have_class("you")
    expect(rows.first.locator(".name-text")).to_have_text("<b>Ann</b>")
    expect(page.locator(".your-place")).to_have_text("Your place: 1")
    assert no_sideways_scroll(page)
    no_page_errors(page)

    # Hebrew, a phone: the same name in other case is taken; another is not
    phone = keyed_page(browser, "he", "phone", ben)
    phone.goto(own_server.url + "#/profile")
    expect(phone.locator("html")).to_have_attribute("dir", "rtl")
    expect(phone.locator("h1.profile-title")).to_have_text(HE["profile.title"])
    expect(phone.locator(".rating-plot")).to_be_visible()
    phone.locator("#public-name").fill("<B>ANN</B>")
    phone.get_by_role("button", name=HE["profile.name_save"]).click()
    expect(phone.get_by_role("alert")).to_contain_text("taken")
    phone.locator("#public-name").fill("בן")
    phone.get_by_role("button", name=HE["profile.name_save"]).click()
    expect(phone.locator(".notice")).to_have_text(HE["profile.name_saved"])
    assert no_sideways_scroll(phone)
    shoot(phone, tmp_path, "profile-he-phone.png")
    phone.goto(own_server.url + "#/leaderboard")
    expect(phone.locator(".board-page h1")).to_have_text(HE["board.title"])
    rows = phone.locator("table.leaderboard tbody tr")
    expect(rows).to_have_count(2)
    names = rows.locator(".name-text").all_text_contents()
    assert sorted(names) == sorted(["<b>Ann</b>", "בן"])
    mine = 1 + names.index("בן")
    expect(phone.locator(".your-place")).to_have_text(
        HE["board.you_place"].replace("{place}", str(mine))
    )
    expect(rows.nth(mine - 1)).to_have_class("you")
    headers = phone.locator("table.leaderboard th").all_text_contents()
    assert headers == [HE[f"board.col.{c}"] for c in ("place", "name", "rating", "games", "wins")]
    assert no_sideways_scroll(phone)
    shoot(phone, tmp_path, "leaderboard-he-phone.png")
    # a named player's public profile, from the board
    rows.nth(0 if mine == 2 else 1).locator("a").click()
    expect(phone.locator("h1.profile-title")).to_contain_text("<b>Ann</b>")
    expect(phone.locator("#public-name")).to_have_count(0)  # not one's own: no name form
    no_page_errors(phone)

    page.reload()  # the same address: read the board again
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
    shoot(page, tmp_path, "leaderboard-en-desktop.png")
    no_page_errors(page)
