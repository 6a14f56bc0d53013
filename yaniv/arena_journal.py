"""The arena's journal: each game written down as it finishes, so that a long run that stops
(a crash, Ctrl-C, a machine taken back) loses none of its finished games, and the same command
given the same journal plays only the games that are not in it yet.

A JSON-lines file. The first line names the run: everything that decides how a game is played
(the lineup, the rules, the seed, the limits, the search budget). Each further line is one
game's summary as ``arena.play_game`` returned it. A game is seeded by its index alone, so a
game read back is the very game the run would play, and a run of more games may extend a
journal of fewer (its games past the run's count are kept in the file and left out of the run).
A last line cut short (the process killed while writing it) is dropped; any other line that is
not a game of this run is an error that names the line.

Written for one run at a time: two runs appending to one journal at once are not guarded.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from .errors import YanivError

__all__ = ["FORMAT", "Journal"]

#: The first line's ``journal`` field: which program wrote the file, and its layout's version.
FORMAT = "yaniv arena journal 1"


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return (_is_int(x) or isinstance(x, float)) and math.isfinite(x)


def _count(x: Any) -> bool:
    return _is_int(x) and x >= 0


def _ints(x: Any, n: int) -> bool:
    return isinstance(x, list) and len(x) == n and all(_is_int(v) for v in x)


def _game_fault(game: Any, lineup: list[str]) -> str | None:
    """What is wrong with ``game`` as a game summary of a run of this lineup; None: nothing."""
    if not isinstance(game, dict):
        return "not a game (a JSON object)"
    n = len(lineup)
    index: Any = game.get("index")
    if not _count(index):
        return "no game number ('index', a whole number from 0)"
    rot = index % n
    entrants = [(s + rot) % n for s in range(n)]
    checks: dict[str, bool] = {
        "entrants": game.get("entrants") == entrants,
        "seats": game.get("seats") == [lineup[e] for e in entrants],
        "winners": isinstance(w := game.get("winners"), list)
        and all(_is_int(s) and 0 <= s < n for s in w),
        "scores": _ints(game.get("scores"), n),
        "rounds": _count(game.get("rounds")),
        "moves": _count(game.get("moves")),
        "capped": isinstance(game.get("capped"), bool),
        "points": isinstance(p := game.get("points"), list)
        and len(p) == n
        and all(isinstance(q, list) and all(_is_int(v) for v in q) for q in p),
        "calls": _ints(game.get("calls"), n),
        "assafs": _ints(game.get("assafs"), n),
        "times": isinstance(t := game.get("times"), list)
        and len(t) == n
        and all(isinstance(q, list) and all(_is_number(v) for v in q) for q in t),
        "startup": isinstance(u := game.get("startup"), list)
        and len(u) == n
        and all(v is None or _is_number(v) for v in u),
        "calib": isinstance(c := game.get("calib"), list)
        and all(
            isinstance(pair, list)
            and len(pair) == 2
            and _is_number(pair[0])
            and isinstance(pair[1], bool)
            for pair in c
        ),
        "errors": isinstance(e := game.get("errors"), list)
        and all(
            isinstance(x, list)
            and len(x) == 3
            and _is_int(x[0])
            and -1 <= x[0] < n
            and isinstance(x[1], str)
            and isinstance(x[2], str)
            for x in e
        ),
    }
    bad = [key for key, ok in checks.items() if not ok]
    if bad:
        return f"game {index} does not fit this run ({', '.join(bad)})"
    return None


def _text(item: Mapping[str, Any]) -> str:
    """A line of the journal, less its newline."""
    return json.dumps(item, separators=(",", ":"))


class Journal:
    """A run's journal at ``path``: the games already in it (``done``, by game number, those
    below ``games``), and ``write`` to add a finished one. ``header`` names the run; a journal
    of another run is refused with the first field that differs."""

    def __init__(self, path: Path, header: Mapping[str, Any], games: int) -> None:
        self.path = path
        # as it reads back from JSON (lists, not tuples), so that it compares equal
        self.header = json.loads(json.dumps({"journal": FORMAT, **header}))
        self.done: dict[int, dict[str, Any]] = {}
        self._seen: set[int] = set()
        lineup = list(header["lineup"])
        keep = 0  # the bytes of whole, good lines: the rest (a line cut short) is dropped
        try:
            data = path.read_bytes() if path.exists() else b""
        except OSError as exc:
            raise YanivError(f"cannot read the journal {path}: {exc.strerror}") from None
        lines = data.split(b"\n") if data.strip() else []  # a new file, or only blanks
        for no, raw in enumerate(lines, 1):
            last = no == len(lines)
            if not raw.strip():
                if last:  # after the last newline
                    continue
                if no == 1:
                    self._check_header(None)
                raise YanivError(f"journal {path}, line {no}: a blank line")
            try:
                item = json.loads(raw)
            except (ValueError, RecursionError):
                # Cut short while being written: that game is played again. Never another
                # program's file, given by mistake: it is refused, not cut.
                ours = _text(self.header).encode()
                if last and (no > 1 or ours.startswith(raw)):
                    break
                if no == 1:
                    self._check_header(None)
                raise YanivError(f"journal {path}, line {no}: not JSON") from None
            if no == 1:
                self._check_header(item)
            else:
                self._take(item, lineup, games, f"journal {path}, line {no}")
            keep += len(raw) + (0 if last else 1)
        try:
            if keep < len(data):
                with path.open("r+b") as f:
                    f.truncate(keep)
            if keep and not data[:keep].endswith(b"\n"):
                with path.open("ab") as f:
                    f.write(b"\n")
            self._file: TextIO = path.open("a", encoding="utf-8")
            if not keep:
                self._line(self.header)
        except OSError as exc:
            raise YanivError(f"cannot write the journal {path}: {exc.strerror}") from None

    def _check_header(self, item: Any) -> None:
        if not isinstance(item, dict) or item.get("journal") != FORMAT:
            raise YanivError(
                f"{self.path} is not an arena journal (its first line should name "
                f"{FORMAT!r}): give a new file or that of the same run"
            )
        for key, value in self.header.items():
            if item.get(key) != value:
                raise YanivError(
                    f"the journal {self.path} is of another run ({key}: "
                    f"{json.dumps(item.get(key))} in the journal, {json.dumps(value)} in this "
                    "run): give a new file or that of the same run"
                )

    def _take(self, item: Any, lineup: list[str], games: int, where: str) -> None:
        fault = _game_fault(item, lineup)
        if fault is not None:
            raise YanivError(f"{where}: {fault}")
        index = item["index"]
        if index in self._seen:
            raise YanivError(f"{where}: game {index} is in it twice")
        self._seen.add(index)
        if index < games:  # a longer run's games past it stay in the file
            self.done[index] = item

    def _line(self, item: Mapping[str, Any]) -> None:
        self._file.write(_text(item) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def write(self, game: Mapping[str, Any]) -> None:
        """Add a finished game (a summary of ``play_game``) and flush it to the disk."""
        try:
            self._line(game)
        except OSError as exc:
            raise YanivError(f"cannot write the journal {self.path}: {exc.strerror}") from None

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
