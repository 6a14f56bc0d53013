"""The game-level utility: the shipped table loads, and the chances of winning make sense."""

from __future__ import annotations

import json
import random
from importlib import resources

import pytest

from yaniv import compiled
from yaniv.bots import utility as U
from yaniv.rules import RuleSet

PRESETS = ["standard", "quick", "hebrew", "draw_first", "slapdown"]


def test_the_shipped_table_covers_the_presets_for_2_to_8_players() -> None:
    data = json.loads(
        resources.files("yaniv.bots").joinpath("data", U.DATA_FILE).read_text("utf-8")
    )
    assert data["version"] == U.VERSION and data["cpu_seconds"] > 0
    for name in PRESETS:
        for players in range(2, 9):
            assert U.is_shipped(RuleSet.preset(name), players), (name, players)
    for entry in data["entries"]:
        points = {int(k): v for k, v in entry["points"].items()}
        # Every round has a winner at 0 and others who score: about one seat in n at 0.
        share = points.get(0, 0) / sum(points.values())
        assert 0.5 / entry["players"] < share < 2.0 / entry["players"] + 0.2, entry["rules"]


def test_game_options_do_not_change_a_rounds_key() -> None:
    base = RuleSet()
    game_only = base.replace(bonus="subtract", score_limit=100, end_mode="first_over")
    assert U.round_key(game_only) == U.round_key(base)
    assert U.round_key(base.replace(yaniv_threshold=5)) != U.round_key(base)
    assert U.round_points(game_only, 3) == U.round_points(base, 3)


def test_round_points_are_a_distribution() -> None:
    dist = U.round_points(RuleSet(), 4)
    assert abs(sum(p for _, p in dist) - 1) < 1e-9
    assert [x for x, _ in dist] == sorted(x for x, _ in dist) and dist[0][0] == 0


def test_a_rule_set_not_shipped_is_measured_at_first_use_deterministically() -> None:
    rules = RuleSet(yaniv_threshold=3, hand_size=4, assaf_penalty=20)
    assert not U.is_shipped(rules, 3)
    dist = U.round_points(rules, 3)
    assert U.round_points(rules, 3) is dist  # cached
    seed = U.entry_seed(U.round_key(rules), 3)
    again = U.self_play_points(rules, 3, U.FIRST_USE_ROUNDS, seed, U.FIRST_USE_TURNS)
    total = sum(again.values())
    assert dist == tuple((k, v / total) for k, v in sorted(again.items()))
    # A penalty of 20 with a threshold of 3: an Assaf costs at most 23, a hand 4 cards.
    assert max(x for x, _ in dist) <= 40


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("players", [2, 4])
def test_chances_sum_to_one_and_favour_the_lower_score(name: str, players: int) -> None:
    rules = RuleSet.preset(name)
    limit = rules.score_limit
    scores = [limit * k // (players + 1) for k in range(players)]
    chances = U.win_chances(rules, scores)
    assert abs(sum(chances) - 1) < 1e-9
    assert chances[0] > chances[-1]
    assert U.win_chances(rules, [0] * players) == pytest.approx([1 / players] * players, abs=1e-9)


@pytest.mark.parametrize("end_mode", ["elimination", "first_over"])
@pytest.mark.parametrize("limit", [100, 200])
def test_without_a_bonus_the_chance_falls_with_my_score(end_mode: str, limit: int) -> None:
    rules = RuleSet(bonus="none", end_mode=end_mode, score_limit=limit)
    mine = [U.win_probability(rules, [s, limit // 2, limit // 3], 0) for s in range(limit + 1)]
    assert all(a >= b - 1e-12 for a, b in zip(mine, mine[1:], strict=False))
    assert mine[0] > 0.5 > mine[-1]
    # ...and rises with an opponent's.
    theirs = [U.win_probability(rules, [limit // 2, s], 0) for s in range(0, limit + 1, 5)]
    assert all(a <= b + 1e-12 for a, b in zip(theirs, theirs[1:], strict=False))


def test_the_bonus_is_priced_from_the_rule_set() -> None:
    # Halve at 100: a score just under the target can land on it, which is worth something.
    halve = RuleSet(bonus="halve", bonus_targets=(100, 200))
    none = RuleSet(bonus="none")
    assert U.win_probability(halve, [95, 60], 0) > U.win_probability(none, [95, 60], 0)
    # Subtract at multiples of 40 (a step of this rule set, not the standard's 50).
    sub = RuleSet(bonus="subtract", bonus_step=40, bonus_amount=40)
    assert U.win_probability(sub, [75, 60], 0) > U.win_probability(none, [75, 60], 0)
    assert U.survival(sub, 2)[75][5] > U.survival(none, 2)[75][5]


def test_the_limit_and_the_out_are_read_from_the_rules() -> None:
    assert U.win_chances(RuleSet(score_limit=100), [150, 10]) == (0.0, 1.0)
    assert U.win_chances(RuleSet(), [150, 10])[0] > 0.0  # 150 is under 200
    assert U.win_chances(RuleSet(), [0, 10, 20], out=[True, False, False])[0] == 0.0
    # The last two out together: the lower score wins (R19).
    assert U.win_chances(RuleSet(score_limit=100), [120, 130]) == (1.0, 0.0)
    # A very high limit is modelled on a coarser grid, still summing to 1.
    big = RuleSet(score_limit=5000)
    assert U.grid_step(big) > 1
    assert abs(sum(U.win_chances(big, [100, 4000])) - 1) < 1e-9
    assert U.win_probability(big, [100, 4000], 0) > 0.9


def test_more_players_lower_each_ones_chance() -> None:
    rules = RuleSet()
    assert U.win_chances(rules, [50, 50])[0] > U.win_chances(rules, [50, 50, 50, 50])[0]


def test_the_shipped_table_is_what_the_build_script_makes() -> None:
    data = json.loads(
        resources.files("yaniv.bots").joinpath("data", U.DATA_FILE).read_text("utf-8")
    )
    entry = next(e for e in data["entries"] if e["rules"] == "standard" and e["players"] == 2)
    again = U.table_entry(RuleSet(), 2, entry["rounds"])
    assert again["key"] == entry["key"] and again["points"] == entry["points"]
    landing = next(e for e in data["landing"] if e["rules"] == "standard" and e["players"] == 2)
    assert U.landing_entry(RuleSet(), 2, landing["rounds"]) == {
        k: v for k, v in landing.items() if k != "rules"
    }


def test_the_shipped_landings_cover_the_presets_and_add_up() -> None:
    data = json.loads(
        resources.files("yaniv.bots").joinpath("data", U.DATA_FILE).read_text("utf-8")
    )
    keys = {(e["key"], e["players"]) for e in data["landing"]}
    for name in PRESETS:
        for players in range(2, 9):
            assert (U.landing_key(RuleSet.preset(name)), players) in keys, (name, players)
    for entry in data["landing"]:
        counts = entry["counts"]
        assert len(counts) == 50 and all(0 <= landed <= tries for tries, landed in counts)
        # A seat counts once in a round that was not stalled, where a bonus score is in reach
        # (stalled seats call whenever they may, so hardly a round is left out at any size).
        rules = RuleSet.from_dict(json.loads(entry["key"]))
        scores = range(rules.score_limit + 1)
        reach = sum(U.H.bonus_need(rules, s) is not None for s in scores) / len(scores)
        seats = entry["rounds"] * entry["players"]
        tries = sum(t for t, _ in counts)
        assert 0.9 * reach * seats <= tries <= 1.05 * reach * seats, (
            entry["rules"],
            entry["players"],
        )


def test_the_need_is_the_first_bonus_score_in_reach() -> None:
    halve = RuleSet(bonus="halve", bonus_targets=(100, 200))
    assert U.H.bonus_need(halve, 85) == (15, 50)
    assert U.H.bonus_need(halve, 150) == (50, 100)
    assert U.H.bonus_need(halve, 149) is None  # 51 under 200: out of reach
    assert U.H.bonus_need(halve, 100) is None  # on a target, the next 100 away
    assert U.H.bonus_need(halve, 50) == (50, 50)
    sub = RuleSet(bonus="subtract", bonus_step=40, bonus_amount=30)
    assert U.H.bonus_need(sub, 75) == (5, 30) and U.H.bonus_need(sub, 80) == (40, 30)
    assert U.H.bonus_need(RuleSet(bonus="none"), 95) is None


@pytest.mark.parametrize("name", ["standard", "hebrew"])
def test_a_score_within_reach_lands_on_its_bonus_more_often_than_by_chance(name: str) -> None:
    rules = RuleSet.preset(name)
    rates = U.landing(rules, 2)
    base = dict(U.round_points(rules, 2))
    # The expert's pull: 11-20 points under a bonus score, it lands several times as often
    # as a round's points alone would put it there (13 % of its games' rounds against 1.8 %).
    pulled = sum(rates[n] for n in range(11, 21))
    alone = sum(base.get(n, 0.0) for n in range(11, 21))
    assert pulled > 3 * alone and pulled / 10 > 0.05


def _clear_the_chain() -> None:
    U._survival.cache_clear()
    U._fail_table.cache_clear()
    U._chances.cache_clear()


def test_the_chain_prices_the_pull(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = RuleSet.preset("standard")
    scores = [85, 60]  # seat 0 is 15 under the target 100
    pulled = U.win_chances(rules, scores)
    base = dict(U.round_points(rules, 2))
    alone_rates = (0.0, *(base.get(n, 0.0) for n in range(1, 51)))
    monkeypatch.setattr(U, "landing", lambda rules, players: alone_rates)
    _clear_the_chain()
    try:
        alone = U.win_chances(rules, scores)
    finally:
        monkeypatch.undo()
        _clear_the_chain()
    assert pulled[0] > alone[0] and abs(sum(pulled) - 1) < 1e-9
    assert U.win_chances(rules, scores) == pulled


def test_without_a_bonus_nothing_is_pulled() -> None:
    rules = RuleSet(bonus="none", yaniv_threshold=6)
    counts = U.self_play_landing(rules, 2, 50, 1)
    assert all(t == 0 for t, _ in counts)
    base = dict(U.round_points(rules, 2))
    assert U.landing(rules, 2)[1:] == tuple(base.get(n, 0.0) for n in range(1, 51))


def test_the_pull_makes_room_in_a_rounds_points() -> None:
    dist = [(0, 0.5), (10, 0.1), (20, 0.4)]
    pulled = dict(U._pulled(dist, 10, 0.3))
    assert pulled[10] == 0.3 and abs(sum(pulled.values()) - 1) < 1e-12
    assert pulled[0] / pulled[20] == pytest.approx(0.5 / 0.4)
    assert dict(U._pulled(dist, 15, 0.2))[15] == 0.2


def test_landings_not_shipped_are_measured_at_first_use_deterministically() -> None:
    rules = RuleSet(bonus="subtract", bonus_step=30, bonus_amount=30, yaniv_threshold=6)
    assert not U.is_shipped(rules, 3)
    key = U.landing_key(rules)
    seed = U.entry_seed(key, 3)
    counts = U.self_play_landing(rules, 3, U.FIRST_USE_LANDING_ROUNDS, seed, U.FIRST_USE_TURNS // 2)
    assert counts == U.self_play_landing(
        rules, 3, U.FIRST_USE_LANDING_ROUNDS, seed, U.FIRST_USE_TURNS // 2
    )
    assert sum(t for t, _ in counts[30:]) == 0  # a step of 30: no need above it
    rates = U.landing(rules, 3)
    assert len(rates) == 51 and all(0.0 <= r <= 1.0 for r in rates)
    assert U.landing(rules, 3) is rates  # cached
    # The rate of need 10 pools needs 8-12, drawn toward the round points' own chance of 10.
    tries = sum(t for t, _ in counts[7:12])
    landed = sum(n for _, n in counts[7:12])
    own = dict(U.round_points(rules, 3)).get(10, 0.0)
    assert tries > 0
    assert rates[10] == pytest.approx((landed + U.LANDING_PRIOR * own) / (tries + U.LANDING_PRIOR))


@pytest.mark.parametrize(("name", "players"), [("standard", 2), ("hebrew", 8)])
def test_no_self_play_round_is_left_out_as_stalled(name: str, players: int) -> None:
    # The policy's call bars (a point or less against a seat of one card) kept hands of one
    # low card each going round the pile: 5 % of two-player standard rounds and 10 % of
    # eight-player hebrew ones were left out. Stalled seats call whenever they may.
    hist = U.self_play_points(RuleSet.preset(name), players, 200, seed=1)
    assert sum(hist.values()) == 200 * players


@pytest.mark.skipif(compiled.AVAILABLE is None, reason="the core is not built")
def test_the_compiled_sums_are_the_python_ones() -> None:
    # utility._raw_chances and its C twin (yaniv/_plan.c's win_raw): the same floats, from the
    # fail tables of every preset and 2 to 8 players still in, at random scores.
    core = compiled.AVAILABLE
    assert core is not None
    rng = random.Random(4)
    for name in PRESETS:
        rules = RuleSet.preset(name)
        for k in range(2, 9):
            table = U._fail_table(rules, k, None)
            for _ in range(20):
                fails = [rng.choice(table) for _ in range(k)]
                got = core.win_raw(fails)
                assert got is not None and list(got) == U._raw_chances(fails)
    assert core.win_raw([(0.5, 1.0)]) is None  # one player: not a sum it makes
    assert core.win_raw([(0.5, 1.0), (0.5,)]) is None  # rows of other lengths
    assert core.win_raw([(0.5, 1), (0.5, 1.0)]) is None  # not floats
