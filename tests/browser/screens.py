"""What the tests of the table as people see it share (issue 14): a browser context in either
language at a desktop's or a phone's size, a game started without words of either language,
the checks that something is in view, and the screenshots kept for docs/screenshots.md."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from browser.browser_support import new_context, watched
from browser.table_driver import ROOM_URL, table

Size = Literal["desktop", "phone", "small"]
VIEWPORTS: dict[str, dict[str, int]] = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
    "small": {"width": 360, "height": 640},
}
LOCALES = {"en": "en-GB", "he": "he-IL"}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def context_for(
    browser: Browser,
    lang: str,
    size: str,
    *,
    coach: bool = False,
    reduced_motion: bool = False,
    **options: Any,
) -> BrowserContext:
    """A context whose browser speaks ``lang`` (the page starts in it), at ``size``; the coach
    on from the start when asked (the stored preference, set once: a page may change it)."""
    context = new_context(
        browser,
        locale=LOCALES[lang],
        viewport=VIEWPORTS[size],
        reduced_motion="reduce" if reduced_motion else "no-preference",
        has_touch=size != "desktop",
        **options,
    )
    prefs = {"fourColour": False, "coach": coach, "sort": True}
    context.add_init_script(
        "if (!localStorage.getItem('yaniv.prefs')) "
        f"localStorage.setItem('yaniv.prefs', {json.dumps(json.dumps(prefs))});"
    )
    return context


def new_page(context: BrowserContext) -> Page:
    return watched(context.new_page())


def start_game(
    page: Page,
    url: str,
    name: str,
    opponents: int = 1,
    options: dict[str, Any] | None = None,
    preset: str | None = None,
) -> None:
    """From the home page, in any language: a game against ``opponents`` bots with these
    rule options (by the Options form's fields), until the table shows."""
    page.goto(url)
    page.locator("#name").fill(name)
    page.locator("#count").select_option(str(opponents))
    if preset is not None:
        page.locator("#preset").select_option(preset)
    if options:
        page.locator("fieldset.rules summary").click()
        for key, value in options.items():
            field = page.locator(f"#opt-{key}")
            if field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(json.dumps(value))
            else:
                field.fill(str(value))
    page.locator("form[aria-labelledby=vs-title] button[type=submit]").click()
    expect(page).to_have_url(ROOM_URL)
    expect(table(page)).to_be_visible()


# Rules that end a round at the first turn: anyone may call Yaniv with a hand of 50 or less
QUICK_ROUND = {"yaniv_threshold": 50}


def in_view(locator: Locator) -> bool:
    """Whether the element is wholly inside the viewport as the page is scrolled now, once it
    has landed: a card in flight (the deal staggers them) is drawn where it flies from."""
    for _ in range(10):
        result = locator.evaluate(
            """async e => {
              await Promise.allSettled(e.getAnimations({ subtree: true }).map(a => a.finished));
              if (!e.isConnected) return null;  // redrawn meanwhile: ask for the new one
              const r = e.getBoundingClientRect();
              return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                && r.bottom <= innerHeight && r.right <= innerWidth; }"""
        )
        if result is not None:
            return bool(result)
    return False


def no_sideways_scroll(page: Page) -> bool:
    """Whether the page is no wider than the viewport."""
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"))


def shoot(page: Page, tmp_path: Path, name: str) -> Path:
    """A screenshot of the viewport under the test's tmp dir, copied to docs/screenshots/ when
    that copy is missing or YANIV_SCREENSHOTS is set (a test run does not change the
    checkout otherwise)."""
    path = tmp_path / name
    page.screenshot(path=str(path), animations="disabled")
    assert path.stat().st_size > 10_000, "an empty screenshot"
    kept = SCREENSHOTS / name
    if os.environ.get("YANIV_SCREENSHOTS") or not kept.exists():
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, kept)
    return path


def finish_quick_round(page: Page) -> None:
    """Under QUICK_ROUND: call Yaniv at the player's first turn (a bot may call first), and
    wait for the round's end."""
    from browser.table_driver import click_turn, wait_turn_or_end

    stats: dict[str, int] = {}
    for turn in range(30):
        if wait_turn_or_end(page) == "end":
            break
        yaniv = page.locator('[data-key="yaniv"]')
        if yaniv.count() and yaniv.is_enabled():
            yaniv.click()
        else:
            click_turn(page, turn, stats)
    expect(page.locator(".round-end")).to_be_visible()
