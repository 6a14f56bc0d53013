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
from yaniv.bots.master_bot import MasterBot  # noqa: E402
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


def test_a_variant_is_named_by_its_options_and_its_tables_contents(tmp_path: Path) -> None:
    options = master_ab.parse_sets(["z=1.5", "judged_calls=false", "sure=0.1,0.9"])
    name = master_ab.variant_name("variant", options, None)
    assert name == "variant-judged_calls=false-sure=0.1,0.9-z=1.5"
    assert master_ab.variant_name("base", {}, None) == "base"
    table = tmp_path / "t.json"
    table.write_text(json.dumps(U._file(None)))
    with_table = master_ab.variant_name("base", {}, table)
    assert with_table.startswith("base-table=") and with_table != "base"
    table.write_text(json.dumps(U._file(None)) + " ")  # other contents, another name
    assert master_ab.variant_name("base", {}, table) != with_table
    many = {f"option{i}": i for i in range(20)}
    long = master_ab.variant_name("variant", many, None)
    assert long.startswith("variant-") and len(long) == len("variant-") + 16


def test_a_run_with_a_journal_dir_again_plays_no_game_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--set", "z=1", "--games", "4", "--think-ms", "2", "--seed", "6"]
    argv += ["--journal-dir", str(tmp_path)]
    master_ab.main(argv)
    first = capsys.readouterr().out
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [
        "base-2p-vs-expert-standard-seed6.jsonl",
        "variant-z=1.0-2p-vs-expert-standard-seed6.jsonl",  # z=1 named by its value
    ]

    asked: list[PlayerView] = []

    def refuse(self: object, view: PlayerView) -> Move:
        asked.append(view)
        raise AssertionError("a journaled game was played again")

    monkeypatch.setattr(MasterBot, "choose", refuse)
    master_ab.main(argv)
    again = capsys.readouterr().out
    assert asked == []
    strip = [line.rpartition("; load")[0] or line for line in first.splitlines()]
    assert strip == [line.rpartition("; load")[0] or line for line in again.splitlines()]
    # another budget is another run: refused in words, before any game
    with pytest.raises(SystemExit) as caught:
        master_ab.main([*argv, "--think-ms", "3"])
    assert "of another run (think_ms: 2.0 in the journal, 3.0 in this run)" in str(
        caught.value.code
    )


def test_a_journal_dir_that_is_not_a_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        master_ab.main(["--journal-dir", str(tmp_path / "nowhere")])
    assert "--journal-dir" in capsys.readouterr().err
