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
