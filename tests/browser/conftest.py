"""Browser tests: the real server (``yaniv serve``) in a subprocess, Debian's Chromium driven by
Playwright. Without a Chromium the tests are skipped, except under CI (env ``CI``), where a
missing browser is a failure."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

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


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
BOT_DELAY = "0.05"
TIMEOUT_MS = 15_000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a browser test."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        reason = "Chromium is not installed (apt-get install chromium): no browser tests"
        if os.environ.get("CI"):
            pytest.fail(reason + ", and CI is set")
        pytest.skip(reason)
    return path


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _yaniv_command() -> list[str]:
    exe = Path(sys.executable).with_name("yaniv")
    if exe.is_file():
        return [str(exe)]
    return [sys.executable, "-m", "yaniv.cli"]


class Server:
    """``yaniv serve`` on a free port with its own SQLite database; restartable on the same
    database and port."""

    def __init__(self, database: Path, log: Path, grace: float = 60.0) -> None:
        self.database = database
        self.log = log
        self.grace = grace
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until it answers."""
        command = [
            *_yaniv_command(),
            "serve",
            "--no-browser",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--database",
            f"sqlite:///{self.database}",
            "--bot-delay",
            BOT_DELAY,
            "--grace",
            str(self.grace),
        ]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(self.url + "api/levels", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)  # polling for the port, not an assertion
        self.stop()
        raise RuntimeError("the server did not answer within 30 s")

    def kill(self) -> None:
        """Kill the server at once (SIGKILL): no clean shutdown."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium (Playwright's own download is not used)."""
    return _chromium()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[Server]:
    """One server for the tests that do not stop it."""
    folder = tmp_path_factory.mktemp("server")
    srv = Server(folder / "yaniv.sqlite", folder / "server.log")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def own_server(tmp_path: Path, chromium_path: str) -> Iterator[Server]:
    """A server of this test's own (to kill and restart)."""
    srv = Server(tmp_path / "yaniv.sqlite", tmp_path / "server.log")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def playwright_instance(chromium_path: str) -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright, chromium_path: str) -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    chromium = playwright_instance.chromium.launch(
        executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
    )
    try:
        yield chromium
    finally:
        chromium.close()


def new_context(browser: Browser, **options: Any) -> BrowserContext:
    """A context with English as the browser's language, a desktop viewport and short
    timeouts."""
    settings: dict[str, Any] = {"locale": "en-GB", "viewport": {"width": 1280, "height": 900}}
    settings.update(options)
    context = browser.new_context(**settings)
    context.set_default_timeout(TIMEOUT_MS)
    return context


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


_ERRORS: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()


def watched(page: Page) -> Page:
    """Record uncaught script errors on the page (checked by ``no_page_errors``)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    _ERRORS[page] = errors
    return page


def no_page_errors(page: Page) -> None:
    """Fail on any uncaught script error the page raised."""
    errors = _ERRORS.get(page, [])
    assert not errors, errors
