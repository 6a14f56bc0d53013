"""The server's SQLite file: created private (0600, its folder 0700), refused in words when
it cannot be written, and survived when it goes read-only under a running server."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from typer.testing import CliRunner  # noqa: E402

from yaniv.cli import app as cli_app  # noqa: E402
from yaniv.server.storage import Store, check_database  # noqa: E402


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextlib.contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


@contextlib.contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Make ``paths`` read-only to this process: a read-only mode for a user other than root,
    the immutable flag (chattr +i) for root, whom modes do not stop."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in paths}
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            yield
        finally:
            for p, m in modes.items():
                p.chmod(m)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: nothing makes a file read-only")
    done = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not supported here: {done.stderr.decode(errors='replace')}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], check=True)


# ------------------------------------------------------------------ fault 10: private files


def test_the_sqlite_file_is_created_0600_in_a_folder_0700(tmp_path: Path) -> None:
    """Under the usual umask (022) the file and its WAL would be 0644, the folder 0755."""
    folder = tmp_path / "data" / "yaniv"
    path = folder / "yaniv-web.sqlite3"
    with umask(0o022):
        store = Store(f"sqlite:///{path}")
        try:
            store.save_room("ABCDEF", {}, [], "waiting", None)
            assert mode(folder) == 0o700
            assert mode(path) == 0o600
            companions = [p for p in folder.iterdir() if p != path]
            assert companions, "WAL mode writes a -wal file beside the database"
            for p in companions:
                assert mode(p) == 0o600, p
        finally:
            store.close()
    assert mode(tmp_path / "data") == 0o755  # only the database's own folder is made private


def test_an_existing_file_and_folder_keep_their_modes(tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite3"
    path.touch(mode=0o640)
    path.chmod(0o640)
    tmp_path.chmod(0o750)
    Store(f"sqlite:///{path}").close()
    assert mode(path) == 0o640
    assert mode(tmp_path) == 0o750


# ------------------------------------------------------------------ fault 5: read-only files


@pytest.fixture
def existing(tmp_path: Path) -> Path:
    """An SQLite database made (and migrated) by a server that has stopped."""
    path = tmp_path / "db" / "yaniv.sqlite3"
    Store(f"sqlite:///{path}").close()
    return path


def serve(
    database: str, monkeypatch: pytest.MonkeyPatch, *options: str
) -> tuple[int, str, list[Any]]:
    """``yaniv serve --database DATABASE [OPTIONS]``, uvicorn replaced by a recorder: the exit
    code, the output and the apps it would have served."""
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, *_: served.append(self.config.app))
    result = CliRunner().invoke(
        cli_app, ["serve", "--no-browser", "--database", database, *options]
    )
    return result.exit_code, result.output, served


def test_serve_refuses_a_read_only_database_file(
    existing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with read_only(existing):
        code, output, served = serve(f"sqlite:///{existing}", monkeypatch)
    assert (code, served) == (2, []), output
    assert "yaniv serve: cannot write the database" in output
    assert f"{existing} is read-only" in output
    assert "Traceback" not in output


def test_serve_refuses_a_read_only_folder(existing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with read_only(existing.parent):
        code, output, served = serve(f"sqlite:///{existing}", monkeypatch)
    assert (code, served) == (2, []), output
    assert f"the database's folder {existing.parent} is read-only" in output
    assert "Traceback" not in output


def test_serve_refuses_a_new_database_in_a_read_only_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only(folder):
        code, output, served = serve(f"sqlite:///{folder / 'new.sqlite3'}", monkeypatch)
    assert (code, served) == (2, []), output
    assert "yaniv serve: cannot create the database" in output
    assert "Traceback" not in output


def test_a_database_opened_read_only_is_refused(existing: Path) -> None:
    """SQLite's own read-only mode (no file mode involved): the write check finds it."""
    with pytest.raises(ValueError, match="cannot open the database "):
        check_database(f"sqlite:///file:{existing}?mode=ro&uri=true")


def test_a_writable_database_is_served(existing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, output, served = serve(f"sqlite:///{existing}", monkeypatch)
    assert code == 0 and len(served) == 1, output


def test_a_second_store_on_the_same_file_is_refused(existing: Path) -> None:
    """One process owns every room of an SQLite store: a second server on its file is told
    that the database is locked, rather than serving the same rooms twice."""
    store = Store(f"sqlite:///{existing}")
    try:
        store.save_room("ABCDEF", {}, [], "waiting", None)
        with pytest.raises(ValueError, match="database is locked"):
            check_database(f"sqlite:///{existing}?timeout=0.1")
    finally:
        store.close()
    check_database(f"sqlite:///{existing}")  # free again once the first has closed


# ------------------------------------------------------------------ read-only under a server


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(base: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        base + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(json.loads(answer.read()))
    except urllib.error.HTTPError as answer:
        return answer.code, dict(json.loads(answer.read()))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen[bytes]]]:
    """``yaniv serve`` in a process of its own (a SIGBUS must not take pytest with it): its
    address, its SQLite file and the process."""
    path = tmp_path / "db" / "yaniv.sqlite3"
    port = _free_port()
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "yaniv.cli",
            "serve",
            "--no-browser",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{path}",
            "--bot-delay",
            "0",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:  # polling for the port, not an assertion
        assert process.poll() is None, (tmp_path / "server.log").read_text()
        try:
            with urllib.request.urlopen(base + "/api/levels", timeout=2):
                break
        except OSError:
            assert time.monotonic() < deadline, "the server did not answer within 60 s"
            time.sleep(0.1)
    try:
        yield base, path, process
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def test_a_database_gone_read_only_under_a_running_server_is_told(
    served: tuple[str, Path, subprocess.Popen[bytes]],
) -> None:
    """With the SQLite file and its WAL read-only, a new game is refused in words (503), the
    process lives on (it died of SIGBUS, writing SQLite's memory-mapped -shm file), and once
    the files are writable again the server stores again."""
    base, path, process = served
    status, body = _post(base, "/api/rooms", {"name": "Before", "rules": {}})
    assert status == 200, body
    files = sorted(p for p in path.parent.iterdir())
    with read_only(*files):
        for _ in range(3):
            status, body = _post(base, "/api/rooms", {"name": "During", "rules": {}})
            assert status == 503, body
            assert body["error"].startswith("the game could not be saved; try again")
            assert "read-only" in body["error"]
        assert process.poll() is None
    status, body = _post(base, "/api/rooms", {"name": "After", "rules": {}})
    assert status == 200, body
    assert process.poll() is None


def test_a_move_under_a_read_only_database_is_refused_in_words(
    served: tuple[str, Path, subprocess.Popen[bytes]],
) -> None:
    """The mover is told, in words, and keeps the socket (it was closed without a word, and
    with the -shm file read-only the process died of SIGBUS)."""
    import websockets.sync.client

    base, path, process = served
    status, game = _post(base, "/api/games", {"name": "Me", "opponents": ["easy"], "rules": {}})
    assert status == 200, game
    url = base.replace("http", "ws", 1) + f"/ws/{game['room']}?token={game['token']}"
    with websockets.sync.client.connect(url) as ws:
        while True:  # the person's turn (the bot plays at once)
            message = json.loads(ws.recv(timeout=30))
            view = message.get("view") if message["type"] == "state" else None
            if view and view["to_move"] == 0 and view["phase"] not in ("round_over", "game_over"):
                break
        files = sorted(path.parent.iterdir())
        with read_only(*files):
            ws.send(json.dumps({"type": "move", "move": view["legal_moves"][0], "id": "m1"}))
            while (message := json.loads(ws.recv(timeout=30)))["type"] == "state":
                pass
            assert message["type"] == "error", message
            assert message["message"].startswith("the game could not be saved; try again")
            assert "read-only" in message["message"]
            ws.send(json.dumps({"type": "ping"}))
            while (message := json.loads(ws.recv(timeout=30)))["type"] == "state":
                pass
            assert message == {"type": "pong"}
            assert process.poll() is None
    status, _ = _post(base, "/api/rooms", {"name": "After", "rules": {}})
    assert status == 200
    assert process.poll() is None


def test_serve_takes_limit_options_and_tells_bad_ones(
    existing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from yaniv.server.guard import Guard

    code, output, served = serve(
        f"sqlite:///{existing}", monkeypatch, "--limit", "lookups=7", "--limit", "max-body=1k"
    )
    assert code == 0 and len(served) == 1, output
    (guard,) = [m for m in served[0].user_middleware if m.cls is Guard]
    assert (guard.kwargs["limits"].lookups, guard.kwargs["limits"].max_body) == (7, 1024)
    code, output, served = serve(f"sqlite:///{existing}", monkeypatch, "--limit", "speed=3")
    assert (code, served) == (2, []), output
    assert output.startswith("yaniv serve: --limit 'speed=3': expected NAME=VALUE")
