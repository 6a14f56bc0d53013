"""benchmarks/ladder.py: the table's rung and the progress it reports on stderr agree."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

# Appended, not prepended: its modules (engine, bots, load...) must not shadow a package.
sys.path.append(str(Path(__file__).resolve().parents[1] / "benchmarks"))

import ladder  # noqa: E402


def test_ladder_reports_each_rungs_games_as_they_finish(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--levels", "easy,medium", "--rules", "standard", "--players", "2"]
    assert ladder.main([*argv, "--games", "20", "--jobs", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    progress = re.findall(
        r"standard, 2 players, medium > easy: (\d+)/20 games, upper won (\d+) \(", err
    )
    assert [int(done) for done, _ in progress] == list(range(2, 21, 2))  # every tenth
    rung = json.loads(out.splitlines()[-1])["rungs"]["standard"][0]
    assert rung["games"] == 20
    wins = [int(w) for _, w in progress]
    assert wins == sorted(wins)
    assert wins[-1] == round(rung["win_rate"] * 20)  # the last line is the rung's own count
    assert f"{int(rung['holds'])} of 1 rungs hold" in err


def test_progress_counts_a_win_of_the_upper_level_in_any_seat() -> None:
    out = io.StringIO()
    p = ladder.Progress("x", 4, out)
    p({"entrants": [1, 0, 1, 1], "winners": [1]})  # the upper level in seat 1 won
    p({"entrants": [0, 1, 1, 1], "winners": [2]})
    p({"entrants": [1, 1, 0, 1], "winners": [0, 2]})  # shared: whole, as the arena counts it
    p({"entrants": [1, 1, 1, 0], "winners": []})  # capped: nobody won
    shown = out.getvalue()
    assert "x: 4/4 games, upper won 2 (50.0%)" in shown
    assert shown.count("\n") == 4


def test_a_ladder_run_again_with_its_journals_plays_no_game_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--levels", "random,easy,medium", "--rules", "quick", "--players", "2"]
    argv += ["--games", "4", "--jobs", "1", "--json", "--journal-dir", str(tmp_path)]
    assert ladder.main(argv) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[-1])["rungs"]["quick"]
    books = sorted(p.name for p in tmp_path.iterdir())
    assert books == [
        "quick-2p-easy-over-random-seed1.jsonl",
        "quick-2p-medium-over-easy-seed1.jsonl",
    ]
    assert ladder.main(argv) == 0
    out, err = capsys.readouterr()
    again = json.loads(out.splitlines()[-1])["rungs"]["quick"]
    assert [r["win_rate"] for r in again] == [r["win_rate"] for r in first]
    for book in tmp_path.iterdir():  # nothing appended: every game was read back
        assert len(book.read_text().splitlines()) == 1 + 4

    assert ladder.main([*argv, "--think-ms", "5"]) == 2  # another run's journals: refused
    assert "of another run (think_ms: null in the journal, 5.0 in this run)" in (
        capsys.readouterr().err
    )


def test_a_journal_dir_that_is_not_a_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        ladder.main(["--journal-dir", str(tmp_path / "nowhere")])
    assert "--journal-dir" in capsys.readouterr().err
