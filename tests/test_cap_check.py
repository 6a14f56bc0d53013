"""benchmarks/bots.py --cap-check: the capped games counted, the same in one process or many."""

from __future__ import annotations

import sys
from pathlib import Path

# Appended, not prepended: its modules (engine, bots, load...) must not shadow a package.
sys.path.append(str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bots  # noqa: E402

from yaniv.rules import RuleSet  # noqa: E402


def check(
    games: int, jobs: int, max_moves: int = 5000, budget_s: float | None = None
) -> dict[str, object]:
    """Easy's self-play of three players from deal 2 (seed 7)."""
    r: dict[str, object] = bots.cap_check(
        "easy", 3, games, RuleSet(), 7, max_moves, budget_s, None, first_deal=2, jobs=jobs
    )
    return r


def test_processes_count_the_same_games_as_one() -> None:
    one, two = check(6, 1), check(6, 2)
    keys = ("games", "capped", "capped_games", "errors", "mean_moves", "max_moves", "longest_game")
    assert {k: one[k] for k in keys} == {k: two[k] for k in keys}
    assert one["games"] == 6 and one["capped"] == 0 and one["errors"] == 0
    assert one["longest_game"] in range(2 * 3, 8 * 3, 3)  # rotation 0 of deals 2 to 7
    assert isinstance(one["cpu_s"], float) and isinstance(two["cpu_s"], float)
    assert one["cpu_s"] > 0 and two["cpu_s"] > 0  # the workers' CPU counted, not the parent's


def test_a_game_past_the_move_cap_is_counted_by_its_index() -> None:
    r = check(4, 2, max_moves=30)
    assert r["capped"] == 4 and r["capped_games"] == [6, 9, 12, 15]
    assert r["max_moves"] == 30


def test_a_run_stopped_by_its_budget_counts_the_first_deals_only() -> None:
    r = check(50, 2, max_moves=30, budget_s=0.0)
    assert r["games"] == 1 and r["capped_games"] == [6]  # the first deal, not whichever ended
