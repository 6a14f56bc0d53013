"""benchmarks/master_ab.py: a master variant against the shipped master on the same deals, its
options or its utility table changed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

# Appended, not prepended: their modules (engine, bots, load...) must not shadow a package.
ROOT = Path(__file__).resolve().parents[1]
sys.path += [str(ROOT / "benchmarks"), str(ROOT / "scripts")]

import master_ab  # noqa: E402

from yaniv import Game, RuleSet  # noqa: E402
from yaniv.bots import utility as U  # noqa: E402
from yaniv.bots.expert_bot import ExpertBot  # noqa: E402
from yaniv.moves import Move  # noqa: E402
from yaniv.view import PlayerView  # noqa: E402


def test_options_are_parsed_by_their_defaults_type_and_refused_in_words() -> None:
    got = master_ab.parse_sets(
        ["z=1.5", "judged_calls=false", "candidates=4", "sure=0.1,0.9", "per_opponent_calls=false"]
    )
    assert got == {
        "z": 1.5,
        "judged_calls": False,
        "candidates": 4,
        "sure": (0.1, 0.9),
        "per_opponent_calls": False,
    }
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        master_ab.parse_sets(["nonsense=1"])
    with pytest.raises(ValueError, match="expected true or false"):
        master_ab.parse_sets(["belief=yes"])


def test_the_variant_decides_with_its_table_and_the_others_with_the_shipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "t.json"
    table.write_text(json.dumps(U._file(None)))
    seen: list[str | None] = []

    def choose(self: ExpertBot, view: PlayerView) -> Move:
        seen.append(U.table_source())
        return view.legal_moves[0]

    monkeypatch.setattr(ExpertBot, "choose", choose)
    game = Game.new(RuleSet(), players=2, seed=3)
    assert game.to_move is not None
    view = game.view(game.to_move)
    variant = master_ab.master_with({}, 20.0, table)(seed=1)
    master = master_ab.master_with({}, 20.0)(seed=1)
    variant.choose(view)
    master.choose(view)
    ExpertBot(seed=1).choose(view)
    assert seen == [str(table.resolve()), None, None]
    assert variant.think_ms == 20.0 and type(variant).__name__ == "variant"
    assert type(master).__name__ == "master" and U.table_source() is None


def _run(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["master_ab.py", *args])
    master_ab.main()


def test_a_table_that_is_not_one_stops_it_in_words_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(SystemExit) as caught:
        _run(monkeypatch, "--table", str(missing), "--games", "2")
    assert str(caught.value.code).startswith(f"utility table {missing}: cannot be read")
    bad = tmp_path / "old.json"
    bad.write_text('{"version": 1}')
    with pytest.raises(SystemExit) as caught:
        _run(monkeypatch, "--base-table", str(bad), "--games", "2")
    assert "expected version 2, found 1" in str(caught.value.code)


def test_the_shipped_table_copied_changes_no_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same table read from a file of its own: the same moves, so a difference of exactly 0.
    table = tmp_path / "copy.json"
    table.write_text(json.dumps(U._file(None)))
    _run(monkeypatch, "--table", str(table), "--games", "2", "--think-ms", "2", "--seed", "4")
    out = capsys.readouterr().out
    assert "variant - master: +0.0%" in out and " 0 games changed" in out
    assert f"tables {table} / shipped" in out
