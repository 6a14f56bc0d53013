"""What the browser tests share: the real server (``yaniv serve``) in a subprocess, Debian's
Chromium and its contexts, and the check that a page raised no script error. (A module of its
own: the tests import it by name, which they cannot do with a ``conftest``.)"""

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
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
BOT_DELAY = "0.05"
TIMEOUT_MS = 15_000


def chromium_executable() -> str:
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
        self.extra: list[str] = []  # more options of ``yaniv serve`` (--round-wait 4)

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
            *self.extra,
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


def new_context(browser: Browser, **options: Any) -> BrowserContext:
    """A context with English as the browser's language, a desktop viewport and short
    timeouts."""
    settings: dict[str, Any] = {"locale": "en-GB", "viewport": {"width": 1280, "height": 900}}
    settings.update(options)
    context = browser.new_context(**settings)
    context.set_default_timeout(TIMEOUT_MS)
    return context


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
