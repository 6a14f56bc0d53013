"""``yaniv play`` in a real terminal (tmux): it starts, draws the table, and quits when asked."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"
    ),
]

YANIV = Path(sys.executable).with_name("yaniv")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def _new_session(session: str, width: int, height: int, command: str) -> None:
    """Start ``command`` in a detached tmux session. A tmux server that is just exiting (its
    last session, a previous test's, has ended) refuses a new session for a moment: retry."""
    for attempt in range(5):
        done = subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                session,
                "-x",
                str(width),
                "-y",
                str(height),
                command,
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            return
        time.sleep(0.2 * (attempt + 1))
    raise AssertionError(f"tmux could not start a session: {done.stderr.strip()}")


def _wait_for(check: Callable[[str], bool], session: str, timeout: float = 20.0) -> str:
    end = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < end:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if check(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"timed out; the terminal shows:\n{screen}")


def _need_script() -> None:
    if not YANIV.exists():
        pytest.skip(f"the yaniv console script is not installed beside {sys.executable}")


def test_play_starts_and_quits_in_a_real_terminal(tmp_path: Path) -> None:
    _need_script()
    session = f"yaniv-test-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "exited"
    command = (
        f"{YANIV} play --seed 7 --delay 0 --level easy --data-dir {tmp_path}; touch {done}; sleep 5"
    )
    _new_session(session, 120, 40, command)
    try:
        _wait_for(lambda s: "press Enter to start" in s, session)
        _tmux("send-keys", "-t", session, "Enter")
        screen = _wait_for(lambda s: "YOUR TURN" in s, session)
        assert "Stock" in screen and "hand" in screen and "Moves" in screen
        _tmux("send-keys", "-t", session, "q")
        _wait_for(lambda s: "Quit the game?" in s, session)
        _tmux("send-keys", "-t", session, "y")
        end = time.monotonic() + 15
        while not done.exists() and time.monotonic() < end:
            time.sleep(0.2)
        assert done.exists(), "yaniv play did not exit after q, y"
        assert list(tmp_path.glob("games/*.json")), "the game was not saved"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_setup_fits_80x24_and_y_says_why(tmp_path: Path) -> None:
    """In an 80x24 terminal the setup screen shows every field, its tick boxes read [ ], and
    at the table a `y` with a high hand says why no Yaniv."""
    _need_script()
    session = f"yaniv-test-{uuid.uuid4().hex[:8]}"
    command = f"{YANIV} play --seed 7 --delay 0 --level easy -n 3 --data-dir {tmp_path}"
    _new_session(session, 80, 24, command)
    try:
        screen = _wait_for(lambda s: "press Enter to start" in s, session)
        for words in (
            "Your name",
            "Seed",
            "Opponents",
            "Delay",
            "Levels",
            "Rules",
            "[ ] four-colour deck",
            "[ ] no colour",
            "Options",
            "Start the game (Enter)",
        ):
            assert words in screen, f"{words!r} is not on the 80x24 setup screen:\n{screen}"
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(lambda s: "YOUR TURN" in s, session)
        _tmux("send-keys", "-t", session, "y")
        _wait_for(lambda s: "over the Yaniv threshold" in s or "Yaniv only" in s, session)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
