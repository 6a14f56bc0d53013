"""The rule-scenario runner: ``python -m yaniv.scenarios FILE...``.

Runs scenario files in the format of the shared conformance suite (a position, a rule set,
moves, and what must hold after each step), prints ``ok NAME`` or ``FAIL NAME: why`` per
scenario and last ``N passed, M failed``; exits 1 when any scenario fails.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cards import card_name, parse_card
from .errors import MoveError, RuleError, SetupError, YanivError
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
    """A step did not hold (internal to the runner)."""


def load(path: str | Path) -> list[dict[str, Any]]:
    """The scenarios of a file: a JSON list of objects."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise YanivError(f"{path}: expected a JSON list of scenario objects")
    return data


def run_scenario(scenario: dict[str, Any]) -> Outcome:
    """Run one scenario and say whether it passed, and if not, why."""
    name = str(scenario.get("name", "<unnamed>"))
    try:
        _run(scenario)
    except ScenarioFailure as exc:
        return Outcome(name, str(exc))
    except (YanivError, KeyError, TypeError, ValueError) as exc:
        return Outcome(name, f"unexpected {type(exc).__name__}: {exc}")
    return Outcome(name, None)


def _run(scenario: dict[str, Any]) -> None:
    try:
        rules = RuleSet.from_dict(scenario.get("rules", {}))
    except RuleError as exc:
        if scenario.get("rules_error"):
            return
        raise ScenarioFailure(f"rule set refused: {exc}") from None
    if scenario.get("rules_error"):
        raise ScenarioFailure("the rule set was accepted but should be refused")
    setup = scenario["setup"]
    try:
        game = Game.from_position(
            rules,
            hands=setup["hands"],
            stock=setup.get("stock", []),
            discards=setup["discards"],
            to_move=setup["to_move"],
            scores=setup.get("scores"),
            out=setup.get("out", []),
        )
    except SetupError as exc:
        if scenario.get("setup_error"):
            return
        raise ScenarioFailure(f"setup refused: {exc}") from None
    if scenario.get("setup_error"):
        raise ScenarioFailure("the setup was accepted but should be refused")
    for i, step in enumerate(scenario.get("steps", []), 1):
        if "play" in step:
            _play(game, step, i)
        elif "expect" in step:
            for key, want in step["expect"].items():
                check = CHECKS.get(key)
                if check is None:
                    raise ScenarioFailure(f"step {i}: unknown expectation {key!r}")
                got = check(game)
                if not _same(key, got, want):
                    raise ScenarioFailure(f"step {i}: {key} is {got!r}, expected {want!r}")
        else:
            raise ScenarioFailure(f"step {i}: neither 'play' nor 'expect'")


def _play(game: Game, step: dict[str, Any], i: int) -> None:
    move = step["play"]
    if step.get("illegal"):
        before = game.fingerprint()
        try:
            game.play(move)
        except MoveError:
            if game.fingerprint() != before:
                raise ScenarioFailure(f"step {i}: refused {move!r} changed the game") from None
            return
        raise ScenarioFailure(f"step {i}: {move!r} was accepted but is illegal")
    try:
        game.play(move)
    except MoveError as exc:
        raise ScenarioFailure(f"step {i}: {exc}") from None


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
    "pile_top": lambda g: _names(g.pile[-1]),
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
    if key == "hands":
        return all(
            sorted(got[str(seat)]) == sorted(card_name(parse_card(c)) for c in cards)
            for seat, cards in want.items()
        )
    if key == "legal_draws":
        return sorted(got) == sorted(want)
    if key == "legal_discards":
        return _as_sets(got) == _as_sets(want)
    if key in ("out", "game_winners"):
        return sorted(got) == sorted(want)
    return bool(got == want)


def _as_sets(groups: Sequence[Sequence[str]]) -> list[frozenset[str]]:
    unique = {frozenset(g) for g in groups}
    return sorted(unique, key=lambda s: sorted(s))


def run_files(paths: Sequence[str | Path], out: Callable[[str], None] = print) -> tuple[int, int]:
    """Run every scenario of the files, printing a line each; returns (passed, failed)."""
    passed = failed = 0
    for path in paths:
        try:
            scenarios = load(path)
        except (OSError, ValueError, YanivError) as exc:
            out(f"FAIL {path}: cannot read scenarios: {exc}")
            failed += 1
            continue
        for scenario in scenarios:
            outcome = run_scenario(scenario)
            out(outcome.line())
            if outcome.passed:
                passed += 1
            else:
                failed += 1
    out(f"{passed} passed, {failed} failed")
    return passed, failed


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m yaniv.scenarios FILE...``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m yaniv.scenarios FILE...", file=sys.stderr)
        return 2
    _, failed = run_files(args)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
