"""Browser tests: the real server (``yaniv serve``) in a subprocess, Debian's Chromium driven by
Playwright. Without a Chromium the tests are skipped, except under CI (env ``CI``), where a
missing browser is a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

    from browser.browser_support import (
        CHROMIUM_ARGS,
        Server,
        chromium_executable,
        new_context,
        watched,
    )

    HAVE_PLAYWRIGHT = True
except ImportError:  # the dev extra is not installed: under CI, that is an error
    if os.environ.get("CI"):
        raise
    HAVE_PLAYWRIGHT = False
    collect_ignore_glob = ["*.py"]  # nothing here imports without it


def pytest_report_header() -> list[str]:
    """Say why the browser tests are left out."""
    if HAVE_PLAYWRIGHT:
        return []
    return ["browser tests: not run, playwright is not installed (pip install -e '.[dev]')"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a browser test."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium (Playwright's own download is not used)."""
    return chromium_executable()


def _serving(folder: Path) -> Iterator[Server]:
    """A server on a database in ``folder``, running until the fixture ends."""
    srv = Server(folder / "yaniv.sqlite", folder / "server.log")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[Server]:
    """One server for the tests that do not stop it."""
    yield from _serving(tmp_path_factory.mktemp("server"))


@pytest.fixture
def own_server(tmp_path: Path, chromium_path: str) -> Iterator[Server]:
    """A server of this test's own (to kill and restart)."""
    yield from _serving(tmp_path)


# Package scope, not session: Playwright's sync API keeps an event loop running in the main
# thread until it stops, and later tests (the terminal game's) call asyncio.run().
@pytest.fixture(scope="package")
def playwright_instance(chromium_path: str) -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="package")
def browser(playwright_instance: Playwright, chromium_path: str) -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    chromium = playwright_instance.chromium.launch(
        executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
    )
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = new_context(browser)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    """A page that fails the test on any uncaught script error."""
    return watched(context.new_page())
