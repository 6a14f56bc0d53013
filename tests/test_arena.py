"""The arena: reports, statistics, duplicate deals, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from yaniv.arena import calibration_table, deal_for, lineup_for, percentile, run_arena, wilson
from yaniv.cli import app
from yaniv.errors import YanivError
from yaniv.rules import RuleSet


def test_wilson_interval_matches_the_formula() -> None:
    lo, hi = wilson(60, 100)
    z = 1.959964
    p, n = 0.6, 100
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert lo == pytest.approx(centre - half) and hi == pytest.approx(centre + half)
    assert (round(lo, 4), round(hi, 4)) == (0.5020, 0.6906)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile_and_calibration_table() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile([], 0.99) == 0.0
    rows = calibration_table([(0.95, True), (0.91, False), (0.15, False), (1.0, True)])
    assert rows[9]["calls"] == 3 and rows[9]["observed"] == pytest.approx(2 / 3)
    assert rows[1]["calls"] == 1 and rows[0]["calls"] == 0


def test_lineup_fills_with_the_last_bot() -> None:
    assert lineup_for(["expert", "medium"], 4) == ("expert", "medium", "medium", "medium")
    with pytest.raises(YanivError):
        lineup_for(["a", "b", "c"], 2)


def test_duplicate_deals_are_identical_across_rotations() -> None:
    a = deal_for(RuleSet(), [False, False], 3, 42, 1)
    b = deal_for(RuleSet(), [False, False], 3, 42, 1)
    c = deal_for(RuleSet(), [False, False], 4, 42, 1)
    assert a == b and a != c


def test_small_arena_report_has_the_required_keys() -> None:
    report = run_arena(["easy", "random"], 2, 6, RuleSet(), seed=3, calibration=True)
    assert report["games"] == 6
    names = [b["name"] for b in report["bots"]]
    assert names == ["easy", "random"]
    for b in report["bots"]:
        for key in ("name", "games", "wins", "win_rate", "ci95", "decision_ms", "rating",
                    "mean_round_points", "assaf_rate"):
            assert key in b
        assert b["games"] == 6
        assert set(b["decision_ms"]) >= {"median", "p99"}
        assert b["ci95"] == list(wilson(b["wins"], b["games"]))
    assert sum(b["wins"] for b in report["bots"]) >= 6  # every game has a winner
    assert len(report["calibration"]) == 10
    assert report["errors"] == []


def test_arena_is_deterministic_for_a_seed() -> None:
    def wins(seed: int) -> list[int]:
        r = run_arena(["medium", "easy"], 2, 4, RuleSet.preset("slapdown"), seed=seed)
        return [b["wins"] for b in r["bots"]]

    assert wins(8) == wins(8)


def test_parallel_jobs_give_the_same_report() -> None:
    one = run_arena(["easy", "random"], 3, 6, RuleSet(), seed=2, jobs=1)
    two = run_arena(["easy", "random"], 3, 6, RuleSet(), seed=2, jobs=2)
    assert [b["wins"] for b in one["bots"]] == [b["wins"] for b in two["bots"]]


def test_cli_arena_writes_json_and_plot(tmp_path: Path) -> None:
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    result = CliRunner().invoke(app, ["arena", "--bots", "easy,random", "--games", "4",
                                      "--rules", "quick", "-o", "draw_first=true",
                                      "--json", str(out), "--plot", str(png)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["rules"]["draw_first"] is True and report["rules"]["yaniv_threshold"] == 5
    assert png.stat().st_size > 1000
    assert "win rate" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "easy,wizard"], "unknown bot 'wizard'"),
    (["--bots", "easy", "-o", "pickup=sideways"], "pickup"),
    (["--bots", "easy", "-o", "nonsense"], "KEY=VALUE"),
    (["--bots", "easy", "--players", "9"], "9 players"),
])
def test_cli_arena_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["arena", "--games", "1", *args])
    assert result.exit_code != 0
    assert message in result.output
