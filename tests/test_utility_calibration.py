"""benchmarks/utility_calibration.py: the utility's chances set against the games' winners,
and the temper that calibrates them."""

from __future__ import annotations

import math
import random
import re
import sys
from pathlib import Path

import pytest

# Appended, not prepended: their modules (engine, bots, load...) must not shadow a package.
ROOT = Path(__file__).resolve().parents[1]
sys.path += [str(ROOT / "benchmarks"), str(ROOT / "scripts")]

import utility_calibration as uc  # noqa: E402
from fit_call_calibration import brier, fit  # noqa: E402

from yaniv.bots.belief import tempered  # noqa: E402
from yaniv.rules import RuleSet  # noqa: E402


@pytest.mark.parametrize("players", [2, 3])
def test_each_round_start_judges_every_active_seat_against_its_share_of_the_game(
    players: int,
) -> None:
    rows = uc.game_rows(RuleSet.preset("quick"), players, "medium", 11)
    # The first round starts at 0 each: every seat judged alike.
    assert [p for p, _ in rows[:players]] == pytest.approx([1 / players] * players)
    # The winners are active at every round start, so each start's shares sum to 1 over its
    # active seats, as do its chances.
    starts = math.fsum(y for _, y in rows)
    assert starts == round(starts) >= 2
    assert math.isclose(math.fsum(p for p, _ in rows), starts, abs_tol=1e-9)
    shares = {0.0} | {1 / k for k in range(1, players + 1)}  # a win, shared by k, or a loss
    assert all(0.0 <= p <= 1.0 and y in shares for p, y in rows)


def test_a_game_cut_at_the_move_cap_has_no_winner_and_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(uc, "MAX_MOVES", 3)
    assert uc.game_rows(RuleSet(), 2, "medium", 11) == []


def test_the_fitted_temper_finds_an_over_confident_chance() -> None:
    rng = random.Random(3)
    rows = []
    for _ in range(20_000):
        p = rng.uniform(0.02, 0.98)
        truth = tempered(p, 0.5, 0.0)  # the chance is twice as sure as it should be
        rows.append((p, 1.0 if rng.random() < truth else 0.0))
    a, b = fit(rows)
    assert 0.45 < a < 0.55 and abs(b) < 0.05
    raw, cal = brier(rows, a, b)
    assert cal < raw
    assert tempered(0.8, 1.0, 0.0) == pytest.approx(0.8)


def test_the_command_prints_the_brier_score_the_temper_and_every_position_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert uc.main(["--level", "medium", "--games", "6", "--rules", "quick"]) == 0
    out = capsys.readouterr().out
    positions = int(re.search(r"(\d+) positions; Brier 0\.\d{4}", out)[1])  # type: ignore[index]
    assert re.search(r"temper a = \d\.\d{3}, b = -?\d\.\d{3}|too few games", out)
    counts = re.findall(r"^\| \d\.\d-\d\.\d \| (\d+) \|", out, re.M)
    assert sum(int(c) for c in counts) == positions


def test_a_bad_count_is_refused_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        uc.main(["--games", "0"])
    assert "--games and --jobs must be 1 or more" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        uc.main(["--level", "grandmaster"])
    assert "invalid choice: 'grandmaster'" in capsys.readouterr().err
