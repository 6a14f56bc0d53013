"""The JSON-lines bot protocol (docs/bot-protocol.md): external programs as seats, `yaniv bot`.

Both ends of the protocol live here: :class:`CmdBot` seats an external program that speaks it,
and :func:`answer_request` / :func:`serve` are the program side that ``yaniv bot LEVEL`` runs for
the package's own bots. Nothing here prints to a terminal or knows the command line.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

from .discards import as_laid
from .errors import ViewError, YanivError
from .moves import Move, parse_move
from .view import PlayerView

#: The longest line an external program may answer (a view line is a few kB); longer fails it.
MAX_LINE_BYTES = 1 << 20

#: Seconds a program may take, on top of ``time_limit``, to answer its first request: the time
#: to start (an interpreter, a JIT, loading a model). Its first answer is timed on its own.
STARTUP_LIMIT = 10.0

#: Seconds a program is given to exit after ``{"quit": true}`` before it is killed.
QUIT_GRACE = 1.0

_CHUNK = 1 << 16  # bytes read from a program at a time
_MAX_WAIT = 60.0  # seconds of one wait on a pipe (a huge time limit is waited for in steps)
_QUIT = b'{"quit": true}\n'


class BotFailure(YanivError):
    """A bot answered garbage, an illegal move, nothing in time, or raised."""


def check_time_limit(time_limit: float, option: str = "--time-limit") -> None:
    """Raise YanivError unless ``time_limit`` is a positive, finite number of seconds."""
    if not (
        isinstance(time_limit, int | float)
        and not isinstance(time_limit, bool)
        and math.isfinite(time_limit)
        and time_limit > 0
    ):
        raise YanivError(f"{option} {time_limit!r}: expected a positive, finite number of seconds")


# ----------------------------------------------------------------- external programs


#: What a program may ask for with ``"features": [...]`` in an answer (docs/bot-protocol.md):
#: ``results``, its view at the end of every round (the showdown, the scores, the winners);
#: ``new_game``, one process for many games (``{"new_game": true}`` between them).
FEATURES = frozenset({"results", "new_game"})

_NEW_GAME = b'{"new_game": true}\n'


class CmdBot:
    """An external program speaking the bot protocol (docs/bot-protocol.md) on stdin/stdout.

    Its pipes are read and written without threads, by waiting on them until the move's
    deadline, so a program that stops reading, stops answering or floods its output costs
    at most its time limit and ``max_line`` bytes.

    The first request gets ``startup_limit`` seconds more than the others, and its time is
    kept apart in :attr:`startup_ms` (the program's start-up is in it), so that the start of
    an interpreter is neither a timeout nor a slow decision.
    """

    def __init__(
        self,
        command: str,
        time_limit: float = 10.0,
        max_line: int = MAX_LINE_BYTES,
        startup_limit: float = STARTUP_LIMIT,
    ) -> None:
        check_time_limit(time_limit)
        check_time_limit(startup_limit, "--startup-limit")
        self.name = "cmd:" + command
        self.command = command
        self.time_limit = time_limit
        self.startup_limit = startup_limit
        self.max_line = max_line
        self.startup_ms: float | None = None  # the first answer's time, start-up included
        self.failed = False  # broke the protocol: killed at once, no grace
        self._buf = bytearray()  # what the program wrote and was not yet taken as an answer
        self._scanned = 0  # bytes of _buf known to hold no newline
        self._eof = False
        self._quit_sent = False
        self._closed = False
        self._first_request = False  # the request under way is the first (start-up time)
        self.features: frozenset[str] = frozenset()  # asked for in an answer (FEATURES)
        self.games = 1  # games this process has been given (new_game adds one)
        try:
            self.proc = subprocess.Popen(
                shlex.split(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            raise BotFailure(f"cannot start {command!r}: {exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._wsel = selectors.DefaultSelector()
        self._wsel.register(self._in, selectors.EVENT_WRITE)
        self._rsel = selectors.DefaultSelector()
        self._rsel.register(self._out, selectors.EVENT_READ)

    def _limit_text(self) -> str:
        """The time the current request is allowed, in words, for a failure's message."""
        if self._first_request:
            return f"{self.startup_limit + self.time_limit:g} s (start-up included)"
        return f"{self.time_limit:g} s"

    def _send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the program's stdin, giving up at ``deadline``."""
        rest = memoryview(data)
        while rest:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure(
                    f"{self.command!r} did not read its input within {self._limit_text()}"
                )
            if not self._wsel.select(min(left, _MAX_WAIT)):
                continue
            try:
                rest = rest[os.write(self._in, rest) :]
            except BlockingIOError:
                continue
            except OSError:
                raise BotFailure(f"{self.command!r} is not reading its input (exited?)") from None

    def _too_long(self) -> BotFailure:
        return BotFailure(
            f"{self.command!r} sent a line longer than the limit of "
            f"{self.max_line} bytes ({self.max_line / (1 << 20):g} MiB) "
            "without a newline"
        )

    def _readline(self, deadline: float) -> bytes | None:
        """The program's next line (without its newline), None at the end of its output."""
        while True:
            i = self._buf.find(b"\n", self._scanned)
            if i > self.max_line or (i < 0 and len(self._buf) > self.max_line):
                raise self._too_long()
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[: i + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buf)
            if self._eof:
                if not self._buf:
                    return None
                line = bytes(self._buf)  # a last line without its newline
                self._buf.clear()
                self._scanned = 0
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure(f"{self.command!r} gave no answer within {self._limit_text()}")
            if not self._rsel.select(min(left, _MAX_WAIT)):
                continue
            try:
                chunk = os.read(self._out, _CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                self._buf += chunk
            else:
                self._eof = True

    def choose(self, view: PlayerView) -> Move:
        """Send the view, wait for one line, and check the move it names."""
        try:
            return self._choose(view)
        except BotFailure:
            self.failed = True
            raise

    def _choose(self, view: PlayerView) -> Move:
        request = (json.dumps({"view": view.to_dict()}) + "\n").encode()  # our time, not its
        first = self._first_request = self.startup_ms is None
        t0 = time.perf_counter()
        deadline = time.monotonic() + self.time_limit + (self.startup_limit if first else 0.0)
        self._send(request, deadline)
        raw = self._readline(deadline)
        self._first_request = False
        if first:
            self.startup_ms = (time.perf_counter() - t0) * 1000
        if raw is None:
            raise BotFailure(f"{self.command!r} exited without answering")
        line = raw.decode("utf-8", errors="replace")
        try:
            data = json.loads(line)
            text = data["move"]
            if not isinstance(text, str):
                raise TypeError
            asked = data.get("features")
            if isinstance(asked, list):  # unknown ones, or a malformed list, are ignored
                self.features |= {f for f in asked if isinstance(f, str) and f in FEATURES}
        except (ValueError, TypeError, KeyError):
            raise BotFailure(
                f"{self.command!r} answered garbage: {line.strip()[:80]!r} "
                '(expected {"move": "..."})'
            ) from None
        try:
            move = parse_move(text)
        except YanivError as exc:
            raise BotFailure(f"{self.command!r} answered a bad move: {exc}") from None
        if move not in view.legal_moves:
            raise BotFailure(
                f"{self.command!r} answered an illegal move {text!r}; legal: "
                + ", ".join(str(m) for m in itertools.islice(view.legal_moves, 8))
            )
        return as_laid(move, view.rules)  # a run given out of order, in its laid order (R9)

    def tell_round_over(self, view: PlayerView) -> None:
        """Send the program its view at the end of a round (``{"round_over": VIEW}``) where it
        asked for ``results``; no answer is read. A program that does not read it in its time
        limit is marked failed (its next request fails)."""
        if "results" not in self.features or self.failed or self._closed:
            return
        line = (json.dumps({"round_over": view.to_dict()}) + "\n").encode()
        try:
            self._send(line, time.monotonic() + self.time_limit)
        except BotFailure:
            self.failed = True

    def reusable(self) -> bool:
        """Whether the program may play another game: it asked for ``new_game``, never failed,
        was not told to quit and is still running."""
        return (
            "new_game" in self.features
            and not (self.failed or self._quit_sent or self._closed or self._eof)
            and not self._exited()
        )

    def new_game(self) -> None:
        """Tell the program that a new game begins (``{"new_game": true}``; no answer is read):
        its next request is the new game's first view. Raises BotFailure (and marks it failed)
        where it does not read the line within its time limit."""
        try:
            self._send(_NEW_GAME, time.monotonic() + self.time_limit)
        except BotFailure:
            self.failed = True
            raise
        self.games += 1

    def quit(self) -> None:
        """Send ``{"quit": true}`` (unless the program failed) and close its stdin; no wait."""
        if self._quit_sent or self._closed:
            return
        self._quit_sent = True
        if not self.failed:
            with contextlib.suppress(OSError):  # a full pipe or a program gone: no matter
                os.write(self._in, _QUIT)
        with contextlib.suppress(OSError):
            if self.proc.stdin:
                self.proc.stdin.close()

    def _exited(self) -> bool:
        """Whether the program has exited, without reaping it (its group id stays ours)."""
        if not hasattr(os, "waitid"):  # macOS: reaped, and its group killed all the same
            return self.proc.poll() is not None
        try:
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None

    def close(self, deadline: float | None = None) -> None:
        """Ask the program to quit, wait for it until ``deadline`` (``QUIT_GRACE`` seconds
        from now by default; no wait for a program that failed), then kill what is left of it
        and of anything it started."""
        if self._closed:
            return
        self.quit()
        if deadline is None:
            deadline = time.monotonic() + QUIT_GRACE
        if not self.failed:
            while not self._exited() and time.monotonic() < deadline:
                time.sleep(0.005)
        with contextlib.suppress(OSError, ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the program, if it is still running,
            # and whatever it started and left behind
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        with contextlib.suppress(OSError):
            if self.proc.stdout:
                self.proc.stdout.close()
        self._wsel.close()
        self._rsel.close()
        self._buf.clear()
        self._closed = True


def close_all(bots: list[CmdBot], grace: float = QUIT_GRACE) -> None:
    """Ask every program to quit at once, then close each, sharing one ``grace`` period."""
    for bot in bots:
        bot.quit()
    deadline = time.monotonic() + grace
    for bot in bots:
        bot.close(deadline)


# ----------------------------------------------------------------- the program side


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "null"


def answer_request(bot: Any, raw: bytes) -> dict[str, Any] | None:
    """The answer to one request line of the protocol; None for ``{"quit": true}``, and an
    empty dict (nothing to write) for a round's result, ``{"round_over": VIEW}``, and for
    ``{"new_game": true}``.

    Never raises for bad input: each problem is answered as ``{"error": "..."}`` in words.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {
            "error": f"the line is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at "
            f"position {exc.start}): send one JSON object per line, in UTF-8"
        }
    try:
        data = json.loads(text)
    except ValueError as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        return {
            "error": f'the line is not JSON ({why}): expected {{"view": VIEW}} or {{"quit": true}}'
        }
    if not isinstance(data, dict):
        return {
            "error": f"the line is a JSON {_json_type(data)}, not an object: expected "
            '{"view": VIEW} or {"quit": true}'
        }
    if data.get("quit"):
        return None
    if ("round_over" in data or "new_game" in data) and "view" not in data:
        return {}  # told, not asked: nothing to answer (``serve`` writes nothing)
    if "view" not in data:
        keys = ", ".join(repr(k) for k in list(data)[:5]) or "none"
        return {
            "error": 'the request has no "view" (its keys: ' + keys + "): expected "
            '{"view": VIEW} or {"quit": true}'
        }
    if not isinstance(data["view"], dict):
        return {
            "error": f'"view" is a JSON {_json_type(data["view"])}, not an object: '
            "expected a view as docs/bot-protocol.md describes"
        }
    try:
        view = PlayerView.from_dict(data["view"])
    except ViewError as exc:
        return {"error": f"{exc} (see docs/bot-protocol.md)"}
    if not view.legal_moves:
        return {"error": f"the view has no legal moves: seat {view.seat} is not to act"}
    try:
        return {"move": str(bot.choose(view))}
    except Exception as exc:  # the protocol never dies on a bad view
        return {"error": f"the bot could not choose a move from this view: {exc}"}


def _is_new_game(raw: bytes) -> bool:
    """Whether a request line (one ``answer_request`` took without an answer) is a new game."""
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return isinstance(data, dict) and "new_game" in data and "round_over" not in data


def serve(
    bot: Any, stdin: BinaryIO, stdout: TextIO, fresh: Callable[[], Any] | None = None
) -> None:
    """Answer requests from ``stdin`` on ``stdout``, one line each, until quit or the end.

    With ``fresh`` (a new bot, as at the start), the first move's answer asks for
    ``new_game`` and each ``{"new_game": true}`` replaces the bot by ``fresh()``, so a game
    played by a process kept up is the game a new process would have played.

    Reads bytes, so a bad byte is answered whatever the locale's encoding; a line over
    ``MAX_LINE_BYTES`` is skipped (boundedly) and answered as an error; a reader that goes away
    ends the loop quietly.
    """
    asked = False
    while True:
        raw = stdin.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        answer: dict[str, Any] | None
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line, bounded
                raw = stdin.readline(MAX_LINE_BYTES)
            answer = {"error": f"the line is longer than {MAX_LINE_BYTES} bytes: ignored"}
        elif not raw.strip():
            continue
        else:
            answer = answer_request(bot, raw)
            if answer is None:
                break
            if not answer:
                if fresh is not None and _is_new_game(raw):
                    bot = fresh()
                continue
            if fresh is not None and not asked and "move" in answer:
                answer["features"] = ["new_game"]
                asked = True
        try:
            stdout.write(json.dumps(answer) + "\n")
            stdout.flush()
        except BrokenPipeError:  # the reader went away: stop quietly
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
            break
