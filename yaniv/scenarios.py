"""The rule-scenario runner: ``python -m yaniv.scenarios FILE...``.

Runs scenario files in the format of the shared conformance suite (a position, a rule set,
moves, and what must hold after each step), prints ``ok NAME`` or ``FAIL NAME: why`` per
scenario and last ``N passed, M failed``; exits 1 when any scenario fails.

The runner never stops on bad input: a file that cannot be read, a scenario of the wrong
shape, or an error nobody expected is one ``FAIL`` line, and the run goes on. A scenario's
shape is checked before any of it reaches the engine, so a mistake in a file is named in
words (``setup.hands[1][0] must be a card such as "7H", got the number 5``).
"""

from __future__ import annotations

import json
import re
import reprlib
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cards import card_name, parse_card
from .errors import CardError, MoveError, RuleError, SetupError, YanivError
from .game import Game
from .rules import RuleSet


@dataclass(frozen=True)
class Outcome:
    """One scenario's verdict: ``reason`` is None when it passed."""

    name: str
    reason: str | None

    @property
    def passed(self) -> bool:
        """Whether every step held."""
        return self.reason is None

    def line(self) -> str:
        """``ok NAME`` or ``FAIL NAME: why``."""
        return f"ok {self.name}" if self.passed else f"FAIL {self.name}: {self.reason}"


class ScenarioFailure(Exception):
    """A step did not hold, or the scenario is not of the documented shape (internal)."""


def load(path: str | Path) -> list[dict[str, Any]]:
    """The scenarios of a file: a JSON list of objects."""
    data = _read(path)
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise YanivError(f"{path}: expected a JSON list of scenario objects")
    return data


def _read(path: str | Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def run_scenario(scenario: object, *, fallback_name: str = "<unnamed>") -> Outcome:
    """Run one scenario and say whether it passed, and if not, why; never raises.

    ``scenario`` is what a file holds (normally an object); anything else is a failure that
    says what it is. ``fallback_name`` names a scenario that has no ``name``.
    """
    if not isinstance(scenario, dict):
        return Outcome(fallback_name, f"a scenario must be an object, got {_kind(scenario)}")
    name = _name(scenario.get("name"), fallback_name)
    try:
        _run(scenario)
    except ScenarioFailure as exc:
        return Outcome(name, str(exc))
    except Exception as exc:  # one scenario's surprise must not end the run
        return Outcome(name, f"unexpected {type(exc).__name__}: {_cut(_text(exc))}")
    return Outcome(name, None)


# --- shape -----------------------------------------------------------------------------------

_SHOW = reprlib.Repr()
_SHOW.maxstring = 60
_SHOW.maxother = 60
_SHOW.maxlong = 40
_SHOW.maxlist = 60
_SHOW.maxdict = 20
_SHOW.maxlevel = 4

_SETUP_KEYS = ("hands", "stock", "discards", "scores", "out", "to_move")
_STEP_KEYS = ("play", "illegal", "expect")
_SEAT_KEY = re.compile(r"[0-9]{1,3}")


def _show(value: object) -> str:
    """A short repr of a value from a file: long strings and deep or long lists are cut."""
    try:
        return _SHOW.repr(value)
    except Exception:  # e.g. an int too long to print
        return f"<{type(value).__name__}>"


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # an exception that cannot say itself
        return "(no message)"


def _name(value: object, fallback: str) -> str:
    if value is None:
        return fallback
    if isinstance(value, str) and value and value.isprintable() and len(value) <= 200:
        return value
    return _show(value)


def _kind(value: object) -> str:
    """What a JSON value is, in words: ``the string '1'``, ``a list``, ``true``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {_show(value)}"
    if isinstance(value, str):
        return f"the string {_show(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _object(value: object, where: str, example: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioFailure(f"{where} must be an object such as {example}, got {_kind(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ScenarioFailure(f"{where} has a key that is not text: {_show(key)}")
    return value


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioFailure(f"{where} must be true or false, got {_kind(value)}")
    return value


def _int(value: object, where: str, what: str = "an integer") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioFailure(f"{where} must be {what}, got {_kind(value)}")
    return value


def _seat_or_null(value: object, where: str) -> int | None:
    return None if value is None else _int(value, where, "a seat number or null")


def _ints(value: object, where: str, what: str) -> list[int]:
    if not isinstance(value, list):
        raise ScenarioFailure(f"{where} must be a list of {what}, got {_kind(value)}")
    return [_int(v, f"{where}[{j}]") for j, v in enumerate(value)]


def _str(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise ScenarioFailure(f"{where} must be {what}, got {_kind(value)}")
    return value


def _cards(value: object, where: str) -> list[str]:
    """A list of card texts, as a file gives them (the engine reads the notation)."""
    if not isinstance(value, list):
        raise ScenarioFailure(
            f'{where} must be a list of cards such as ["7H", "8H"], got {_kind(value)}'
        )
    for j, card in enumerate(value):
        if not isinstance(card, str):
            raise ScenarioFailure(f'{where}[{j}] must be a card such as "7H", got {_kind(card)}')
    return value


def _card_lists(value: object, where: str, what: str) -> list[list[str]]:
    if not isinstance(value, list):
        raise ScenarioFailure(
            f'{where} must be a list of card lists ({what}) such as [["7H"], ["8C", "9C"]], '
            f"got {_kind(value)}"
        )
    return [_cards(v, f"{where}[{j}]") for j, v in enumerate(value)]


def _names_of(value: object, where: str) -> list[str]:
    """Card texts in canonical notation (``10h`` is ``TH``), for comparing with the game."""
    texts = _cards(value, where)
    try:
        return [card_name(parse_card(t)) for t in texts]
    except CardError as exc:
        raise ScenarioFailure(f"{where}: {exc}") from None


def _unknown_keys(given: dict[str, Any], known: Sequence[str], where: str) -> None:
    for key in given:
        if key not in known:
            raise ScenarioFailure(
                f"{where} has an unknown key {_show(key)}; known keys: {', '.join(known)}"
            )


@dataclass(frozen=True)
class _Setup:
    hands: list[list[str]]
    stock: list[str]
    discards: list[list[str]]
    to_move: int
    scores: list[int] | None
    out: list[int]


def _setup(value: object) -> _Setup:
    setup = _object(value, "setup", '{"hands": [...], "discards": [...], "to_move": 0}')
    _unknown_keys(setup, _SETUP_KEYS, "setup")
    for key in ("hands", "discards", "to_move"):
        if key not in setup:
            raise ScenarioFailure(f"setup has no {key!r}")
    scores = setup.get("scores")
    return _Setup(
        hands=_card_lists(setup["hands"], "setup.hands", "one per seat"),
        stock=_cards(setup.get("stock", []), "setup.stock"),
        discards=_card_lists(setup["discards"], "setup.discards", "discard groups, oldest first"),
        to_move=_int(setup["to_move"], "setup.to_move", "a seat number (an integer)"),
        scores=None if scores is None else _ints(scores, "setup.scores", "scores (integers)"),
        out=_ints(setup.get("out", []), "setup.out", "seat numbers"),
    )


def _want(key: str, value: object, where: str, seats: int) -> Any:
    """An expectation's value checked for shape, cards in canonical notation."""
    if key in ("to_move", "winner", "next_starter"):
        return _seat_or_null(value, where)
    if key in ("phase", "result"):
        return _str(value, where, "text")
    if key == "can_yaniv":
        return _flag(value, where)
    if key == "stock_size":
        return _int(value, where, "a number of cards (an integer)")
    if key in ("hand_values", "round_points", "scores"):
        return _ints(value, where, "integers, one per seat")
    if key in ("out", "game_winners"):
        return _ints(value, where, "seat numbers")
    if key == "pile_top":
        return _names_of(value, where)
    if key == "legal_draws":
        texts = _cards(value, where)
        return [
            "stock" if t.strip().lower() == "stock" else _names_of([t], where)[0] for t in texts
        ]
    if key == "legal_discards":
        if not isinstance(value, list):
            raise ScenarioFailure(f"{where} must be a list of card lists, got {_kind(value)}")
        return [_names_of(v, f"{where}[{j}]") for j, v in enumerate(value)]
    # hands: {SEAT: [cards]}
    hands = _object(value, where, '{"0": ["7H", "8H"]}')
    want: dict[str, list[str]] = {}
    for seat_text, cards in hands.items():
        if not _SEAT_KEY.fullmatch(seat_text) or int(seat_text) >= seats:
            raise ScenarioFailure(
                f"{where} names seat {_show(seat_text)}, but the seats are 0 to {seats - 1}"
            )
        want[str(int(seat_text))] = sorted(_names_of(cards, f"{where}[{seat_text!r}]"))
    return want


@dataclass(frozen=True)
class _Step:
    move: str | None  # a move to play, or None for an expectation
    illegal: bool
    expect: dict[str, Any]


def _steps(value: object, seats: int) -> list[_Step]:
    if not isinstance(value, list):
        raise ScenarioFailure(f"steps must be a list of step objects, got {_kind(value)}")
    steps: list[_Step] = []
    for i, raw in enumerate(value, 1):
        where = f"step {i}"
        step = _object(raw, where, '{"play": "draw stock"} or {"expect": {"phase": "start"}}')
        _unknown_keys(step, _STEP_KEYS, where)
        if ("play" in step) == ("expect" in step):
            raise ScenarioFailure(f"{where}: needs exactly one of 'play' and 'expect'")
        if "play" in step:
            move = _str(step["play"], f"{where}: play", 'a move such as "draw stock"')
            illegal = _flag(step.get("illegal", False), f"{where}: illegal")
            steps.append(_Step(move, illegal, {}))
            continue
        if "illegal" in step:
            raise ScenarioFailure(f"{where}: 'illegal' goes with 'play', not 'expect'")
        expect = _object(step["expect"], f"{where}: expect", '{"phase": "start"}')
        checked: dict[str, Any] = {}
        for key, want in expect.items():
            if key not in CHECKS:
                raise ScenarioFailure(f"{where}: unknown expectation {_show(key)}")
            checked[key] = _want(key, want, f"{where}: expect.{key}", seats)
        steps.append(_Step(None, False, checked))
    return steps


# --- running ---------------------------------------------------------------------------------


def _run(scenario: dict[str, Any]) -> None:
    rules_error = _flag(scenario.get("rules_error", False), "rules_error")
    setup_error = _flag(scenario.get("setup_error", False), "setup_error")
    options = _object(scenario.get("rules", {}), "rules", '{"preset": "standard"}')
    try:
        rules = RuleSet.from_dict(options)
    except RuleError as exc:
        if rules_error:
            return
        raise ScenarioFailure(f"rule set refused: {exc}") from None
    if rules_error:
        raise ScenarioFailure("the rule set was accepted but should be refused")
    if "setup" not in scenario:
        raise ScenarioFailure("no setup: a scenario needs a position (hands, discards, to_move)")
    setup = _setup(scenario["setup"])
    steps = _steps(scenario.get("steps", []), len(setup.hands))
    try:
        game = Game.from_position(
            rules,
            hands=setup.hands,
            stock=setup.stock,
            discards=setup.discards,
            to_move=setup.to_move,
            scores=setup.scores,
            out=setup.out,
        )
    except SetupError as exc:
        if setup_error:
            return
        raise ScenarioFailure(f"setup refused: {exc}") from None
    if setup_error:
        raise ScenarioFailure("the setup was accepted but should be refused")
    for i, step in enumerate(steps, 1):
        if step.move is not None:
            _play(game, step.move, step.illegal, i)
            continue
        for key, want in step.expect.items():
            try:
                got = CHECKS[key](game)
            except ScenarioFailure as exc:
                raise ScenarioFailure(f"step {i}: {key}: {exc}") from None
            if not _same(key, got, want):
                raise ScenarioFailure(f"step {i}: {key} is {_show(got)}, expected {_show(want)}")


def _play(game: Game, move: str, illegal: bool, i: int) -> None:
    if illegal:
        before = game.fingerprint()
        try:
            game.play(move)
        except MoveError:
            if game.fingerprint() != before:
                raise ScenarioFailure(f"step {i}: refused {_show(move)} changed the game") from None
            return
        raise ScenarioFailure(f"step {i}: {_show(move)} was accepted but is illegal")
    try:
        game.play(move)
    except MoveError as exc:
        raise ScenarioFailure(f"step {i}: {_cut(_text(exc))}") from None


def _names(cards: Iterable[int]) -> list[str]:
    return [card_name(c) for c in cards]


def _result(game: Game) -> Any:
    if game.result is None:
        raise ScenarioFailure("no round has ended")
    return game.result


CHECKS: dict[str, Callable[[Game], Any]] = {
    "to_move": lambda g: g.to_move,
    "phase": lambda g: g.phase.label,
    "hands": lambda g: {str(s): _names(g.hand(s)) for s in range(g.n)},
    "hand_values": lambda g: list(g.values),
    "stock_size": lambda g: len(g.stock),
    "pile_top": lambda g: _names(g.pile[-1]) if g.pile else [],
    "can_yaniv": lambda g: g.can_yaniv(),
    "legal_draws": lambda g: [str(d)[5:] for d in g.draw_options()],
    "legal_discards": lambda g: [_names(d.cards) for d in g.discard_options()],
    "result": lambda g: _result(g).kind.value,
    "round_points": lambda g: list(_result(g).points),
    "scores": lambda g: list(g.scores),
    "out": lambda g: [s for s in range(g.n) if g.out[s]],
    "winner": lambda g: _result(g).winner,
    "next_starter": lambda g: _result(g).next_starter,
    "game_winners": lambda g: list(g.winners),
}


def _same(key: str, got: Any, want: Any) -> bool:
    """Whether the game's ``got`` matches the checked expectation ``want`` (see ``_want``)."""
    if key == "hands":
        return all(sorted(got[seat]) == cards for seat, cards in want.items())
    if key in ("legal_draws", "out", "game_winners"):
        return sorted(got) == sorted(want)
    if key == "legal_discards":
        return _as_sets(got) == _as_sets(want)
    return bool(got == want)


def _as_sets(groups: Sequence[Sequence[str]]) -> list[frozenset[str]]:
    unique = {frozenset(g) for g in groups}
    return sorted(unique, key=lambda s: sorted(s))


def run_files(paths: Sequence[str | Path], out: Callable[[str], None] = print) -> tuple[int, int]:
    """Run every scenario of the files, printing a line each; returns (passed, failed).

    A file that cannot be read, or is not a JSON list, is one failure; the run goes on.
    """
    passed = failed = 0
    for path in paths:
        try:
            data = _read(path)
        except Exception as exc:  # missing, unreadable, not JSON, too deep...
            out(f"FAIL {path}: cannot read scenarios: {_cut(_text(exc))}")
            failed += 1
            continue
        if not isinstance(data, list):
            out(
                f"FAIL {path}: cannot read scenarios: expected a JSON list of scenario objects, "
                f"got {_kind(data)}"
            )
            failed += 1
            continue
        for j, scenario in enumerate(data, 1):
            outcome = run_scenario(scenario, fallback_name=f"{path}#{j}")
            out(outcome.line())
            if outcome.passed:
                passed += 1
            else:
                failed += 1
    out(f"{passed} passed, {failed} failed")
    return passed, failed


def _print(line: str) -> None:
    """Print a line even where the terminal cannot show every character of it."""
    try:
        print(line)
    except UnicodeEncodeError:
        print(line.encode("ascii", "backslashreplace").decode("ascii"))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m yaniv.scenarios FILE...``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m yaniv.scenarios FILE...", file=sys.stderr)
        return 2
    _, failed = run_files(args, _print)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
