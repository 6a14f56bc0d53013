"""The interactive tutorial as a learner uses it (issue 15): each step says what to do, a move
that the rules forbid or that the step does not teach is refused in words and changes nothing,
the round is played to its Yaniv, and it ends with a real round against an easy bot; in English
on a desktop and in Hebrew on a phone."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import context_for, new_page, no_sideways_scroll, shoot
from browser.table_driver import ROOM_URL, table

WEB = Path(__file__).resolve().parents[2] / "yaniv" / "web"
EN = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
HE = json.loads((WEB / "i18n" / "he.json").read_text(encoding="utf-8"))


def at(page: Page, step: str) -> None:
    expect(page.locator(".tutorial")).to_have_attribute("data-expect", step)


def discard(page: Page, *cards: str) -> None:
    for card in cards:
        page.locator(f'.hand .card[data-card="{card}"]').click()
    page.locator("#tut-discard").click()


def test_tutorial_in_english_on_a_desktop(browser: Browser, server: Server, tmp_path: Path) -> None:
    page = new_page(context_for(browser, "en", "desktop"))
    page.goto(server.url + "#/")
    page.get_by_role("link", name=EN["tut.link"]).click()
    at(page, "pair")
    expect(page.locator("#tut-say")).to_have_text(EN["tut.pair"].replace("{value}", "27"))
    expect(page.locator(".hand .card")).to_have_count(5)
    # Yaniv at 27: the engine refuses it
    page.locator("#tut-yaniv").click()
    expect(page.get_by_role("alert")).to_have_attribute("data-code", "illegal")
    expect(page.get_by_role("alert")).to_have_text(EN["tut.illegal"])
    # the king alone is legal, but not this step's move
    discard(page, "KC")
    expect(page.get_by_role("alert")).to_have_attribute("data-code", "not_the_step")
    expect(page.locator(".hand .card")).to_have_count(5)
    at(page, "pair")
    discard(page, "7H", "7S")
    at(page, "take")
    expect(page.get_by_role("alert")).to_have_count(0)
    page.locator("#tut-stock").click()  # allowed, but the step teaches the pile
    expect(page.get_by_role("alert")).to_have_attribute("data-code", "not_the_step")
    page.locator('.pile .card[data-card="3D"]').click()
    at(page, "run")
    expect(page.locator("#tut-say")).to_contain_text("Dana")
    expect(page.locator(".log li")).to_have_count(3)  # the learner's turn, then Dana's, Avi's
    discard(page, "AD", "2D", "3D")
    at(page, "stock")
    page.locator("#tut-stock").click()
    at(page, "king")
    discard(page, "KC")
    at(page, "stock_again")
    page.locator("#tut-stock").click()
    at(page, "yaniv")
    say = EN["tut.yaniv"].replace("{value}", "6").replace("{cards}", "3")
    say = say.replace("{first}", "\u2068Dana\u2069").replace("{second}", "\u2068Avi\u2069")
    expect(page.locator("#tut-say")).to_have_text(say)
    expect(page.locator(".hand-value")).to_have_text("Hand: 6")
    page.evaluate("() => window.scrollTo(0, 0)")
    shoot(page, tmp_path, "tutorial-en-desktop.png")
    page.locator("#tut-yaniv").click()
    at(page, "done")
    expect(page.locator("#tut-say")).to_contain_text("21")
    no_page_errors(page)
    page.locator("#tut-play").click()
    expect(page).to_have_url(ROOM_URL)
    expect(table(page)).to_be_visible()
    code = page.url.rsplit("/", 1)[1]
    room = httpx.get(f"{server.url}api/rooms/{code}").json()
    assert [(s["kind"], s.get("level")) for s in room["seats"]] == [
        ("human", None),
        ("bot", "easy"),
    ]
    assert room["status"] == "playing"


def test_tutorial_in_hebrew_on_a_phone(browser: Browser, server: Server, tmp_path: Path) -> None:
    page = new_page(context_for(browser, "he", "phone"))
    page.goto(server.url + "#/tutorial")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    at(page, "pair")
    expect(page.locator("#tut-title")).to_have_text(HE["tut.title"])
    expect(page.locator("#tut-say")).to_have_text(HE["tut.pair"].replace("{value}", "27"))
    discard(page, "7H", "7S")
    at(page, "take")
    expect(page.locator("#tut-say")).to_have_text(HE["tut.take"])
    page.locator('.pile .card[data-card="3D"]').click()
    at(page, "run")
    expect(page.locator('.tut-seat[data-seat="1"] .seat-name')).to_have_text(HE["tut.left"])
    discard(page, "3D", "AD", "2D")  # any order
    at(page, "stock")
    page.locator("#tut-stock").click()
    at(page, "king")
    discard(page, "KC")
    at(page, "stock_again")
    page.locator("#tut-stock").click()
    at(page, "yaniv")
    assert no_sideways_scroll(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    shoot(page, tmp_path, "tutorial-he-phone.png")
    page.locator("#tut-yaniv").click()
    at(page, "done")
    expect(page.locator("#tut-play")).to_have_text(HE["tut.play"])
    no_page_errors(page)
