"""The master level: legal under every rule option and 2-8 players, deterministic, searching."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import hidden_permuted, rule_sets

from yaniv import Game
from yaniv.bots import get_bot
from yaniv.bots.base import bot_names
from yaniv.bots.inference import play_weigh
from yaniv.bots.master_bot import MasterBot, resample
from yaniv.cards import Card, parse_card, parse_cards
from yaniv.game import Phase
from yaniv.moves import Move
from yaniv.rules import RuleSet
from yaniv.search import World

#: A small budget keeps the tests quick; the search still runs its least worlds.
FAST = 8.0


def _play(
    rules: RuleSet, players: int, seed: int, moves: int, think_ms: float = FAST
) -> tuple[list[str], list[MasterBot]]:
    """A game of masters (even seats) and experts, ``moves`` moves long or to its end; every
    move checked legal by the engine. The masters' moves, and the masters."""
    game = Game.new(rules, players=players, seed=seed)
    masters = {s: MasterBot(seed * 10 + s, think_ms=think_ms) for s in range(0, players, 2)}
    bots = [masters.get(s) or get_bot("expert", seed * 10 + s) for s in range(players)]
    played: list[str] = []
    for _ in range(moves):
        if game.phase == Phase.GAME_OVER:
            break
        if game.phase == Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        move = bots[seat].choose(view)
        assert move in view.legal_moves, (seat, move, rules.differences())
        game.play(move, seat=seat)  # the engine accepts it
        if seat in masters:
            played.append(f"{seat}:{move}")
    return played, list(masters.values())


def test_master_is_a_registered_level() -> None:
    assert "master" in bot_names()
    bot = get_bot("master", 3)
    assert isinstance(bot, MasterBot) and bot.name == "master"


def test_master_refuses_a_budget_that_is_not_positive() -> None:
    with pytest.raises(ValueError, match="think_ms"):
        MasterBot(1, think_ms=0)


@pytest.mark.parametrize("power", [-0.5, math.inf, math.nan])
def test_master_refuses_a_play_power_below_0_or_not_finite(power: float) -> None:
    with pytest.raises(ValueError, match="play_power"):
        MasterBot(1, play_power=power)


@settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(rules=rule_sets(), players=st.integers(2, 8), seed=st.integers(0, 10_000))
def test_master_plays_only_legal_moves_under_random_rules(
    rules: RuleSet, players: int, seed: int
) -> None:
    _play(rules, players, seed, moves=60)


@pytest.mark.parametrize("preset", ["standard", "quick", "hebrew", "draw_first", "slapdown"])
def test_master_searches_and_stays_legal_under_each_preset(preset: str) -> None:
    rules = RuleSet.preset(preset)
    moves, masters = _play(rules, 2 + len(preset) % 3, 5, moves=160)
    assert moves
    # The search ran (simulated turns), so the legality above covers its choices.
    assert sum(m.simulated for m in masters) > 0, preset


def test_master_is_deterministic_for_a_seed_and_budget() -> None:
    rules = RuleSet.preset("hebrew")
    a, ma = _play(rules, 3, 21, moves=150)
    b, mb = _play(rules, 3, 21, moves=150)
    assert a == b
    assert [m.simulated for m in ma] == [m.simulated for m in mb] and ma[0].simulated > 0


def test_a_larger_budget_simulates_more() -> None:
    rules = RuleSet()
    _, small = _play(rules, 2, 8, moves=80, think_ms=4)
    _, large = _play(rules, 2, 8, moves=80, think_ms=40)
    # The same game up to the first searched decision; from there the budgets differ.
    assert large[0].simulated > small[0].simulated > 0


def test_master_takes_a_sure_winning_yaniv() -> None:
    # I hold AC (1); the opponent holds high cards known from the pile: the call cannot fail.
    rules = RuleSet()
    game = Game.from_position(
        rules,
        [["AC"], ["KS", "KH", "QD"]],
        ["5C", "6C", "7C", "8C", "9C"],
        [["2D"]],
        0,
        known=[[], ["KS", "KH", "QD"]],
        scores=[150, 150],
    )
    assert MasterBot(1).choose(game.view(0)) == game.legal_moves()[0]
    assert str(game.legal_moves()[0]) == "yaniv"


@pytest.mark.parametrize("play_power", [0.0, 1.0])
def test_master_never_reads_hidden_cards(play_power: float) -> None:
    """Positions that differ only in what the seat cannot see give the same move, with the
    belief's worlds resampled by the last turns or not."""
    from test_bots import _mid_round, _twin, _with_events

    for seed in range(3):
        game = _mid_round(seed)
        me = game.to_move
        assert me is not None
        view = game.view(me)
        other = _twin(game, seed)
        assert [other.hand(s) for s in range(game.n)] != [game.hand(s) for s in range(game.n)]
        a = MasterBot(5, think_ms=FAST, play_power=play_power).choose(view)
        twin = _with_events(other.view(me), view)
        b = MasterBot(5, think_ms=FAST, play_power=play_power).choose(twin)
        assert a == b, (seed, a, b)


def test_resampling_follows_the_weights() -> None:
    worlds = [World(((),), (i,), w) for i, w in enumerate((0.0, 1.0, 3.0))]
    kept = resample(worlds, 400, random.Random(1))
    assert len(kept) == 400 and all(k.weight == 1.0 for k in kept)
    picked = [sum(1 for k in kept if k.stock == (i,)) for i in range(3)]
    # Systematic resampling keeps each world in proportion to its weight, within one.
    assert picked[0] == 0 and abs(picked[1] - 100) <= 1 and abs(picked[2] - 300) <= 1
    # Every weight 0: uniform.
    flat = resample([World(((),), (i,), 0.0) for i in range(4)], 8, random.Random(3))
    assert sorted(k.stock[0] for k in flat) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_the_belief_worlds_resampled_by_the_last_turns_fit_them_better() -> None:
    """With ``play_power`` the belief's worlds are resampled by how likely each opponent's last
    turn was in them: the worlds kept are consistent with the view, and the last turns are
    likelier in them (the mean log-likelihood) than in the belief's worlds alone."""
    from test_bots import _mid_round

    gained = []
    for seed in range(4):
        game = _mid_round(seed)
        me = game.to_move
        assert me is not None
        view = game.view(me)
        likelihood = play_weigh(view, 0.0)
        fit = []
        for power in (0.0, 1.0):
            worlds = MasterBot(seed, play_power=power).sample(view, 64)
            logs = []
            for world in worlds:
                assert world.hands[me] == view.hand and world.weight == 1.0
                for s in view.active_seats():
                    hidden = tuple(c for c in world.hands[s] if c not in view.known[s])
                    assert set(view.known[s]) <= set(world.hands[s])
                    assert len(world.hands[s]) == view.hand_sizes[s]
                    if s != me and hidden:
                        logs.append(math.log(likelihood(view, s, hidden)))
            fit.append(math.fsum(logs) / len(logs))
        gained.append(fit[1] - fit[0])
    assert sum(g > 0 for g in gained) >= 3 and math.fsum(gained) > 0, gained


def test_many_players_spend_the_budget_on_fewer_turns() -> None:
    from yaniv.bots.master_bot import turn_weight

    assert turn_weight(2) == turn_weight(4) == 1.0
    assert 1.0 < turn_weight(5) < turn_weight(6) < turn_weight(8)


def test_the_budget_reaches_the_searching_levels_only() -> None:
    from yaniv.errors import YanivError

    assert isinstance(get_bot("master", 3, think_ms=12), MasterBot)
    assert get_bot("master", 3, think_ms=12).think_ms == 12  # type: ignore[attr-defined]
    assert get_bot("master", 3).think_ms == 250  # type: ignore[attr-defined]
    assert get_bot("expert", 3, think_ms=12).name == "expert"  # no budget: ignored
    for bad in (0.0, -5.0, float("nan"), 1e9):
        with pytest.raises(YanivError, match="--think-ms"):
            get_bot("master", 3, think_ms=bad)


def test_the_arena_gives_its_budget_to_the_master(monkeypatch: pytest.MonkeyPatch) -> None:
    from yaniv.arena import run_arena
    from yaniv.bots.base import BOTS

    budgets: list[float] = []

    class Spy(MasterBot):
        def __init__(self, seed: int | None = None, think_ms: float = 250.0) -> None:
            budgets.append(think_ms)
            super().__init__(seed, think_ms=think_ms)

    get_bot("master")  # the built-in levels registered, then the spy in the master's place
    monkeypatch.setitem(BOTS, "master", Spy)
    report = run_arena(["master", "random"], 2, 1, RuleSet(score_limit=30), think_ms=6)
    assert report["think_ms"] == 6 and budgets and set(budgets) == {6}


def test_the_arena_command_refuses_a_bad_budget_in_words() -> None:
    from typer.testing import CliRunner

    from yaniv.cli import app

    result = CliRunner().invoke(app, ["arena", "--games", "1", "--think-ms", "-1"])
    assert result.exit_code == 2 and "--think-ms" in result.output and "above 0" in result.output


def _doubtful_call(mine: str = "2C 3D", theirs: str = "9S 4H AD KC 6D") -> Game:
    """Two players; I hold ``mine`` (by default 5) and may call; the other's cards are unknown."""
    hands = [parse_cards(mine), parse_cards(theirs)]
    used = {*hands[0], *hands[1], parse_card("8H")}
    stock = [c for c in range(54) if c not in used]
    return Game.from_position(RuleSet(), hands, stock, [[parse_card("8H")]], 0)


def test_a_searched_call_is_priced_by_the_coach_in_every_world() -> None:
    # The worlds' showdowns are dealt by the uncalibrated low-card model; the call is worth the
    # coach's calibrated odds times the utility of its two outcomes, the same in every world.
    from yaniv.bots.coach import call_value, yaniv_success_probability
    from yaniv.moves import YANIV

    view = _doubtful_call().view(0)
    turn = next(m for m in view.legal_moves if m != YANIV)
    cands: list[tuple[Move, Card | None]] = [(YANIV, None), (turn, None)]
    values = MasterBot(3, think_ms=FAST, call_odds="coach").world_values(view, cands)
    assert values is not None and len(values[0]) == len(values[1]) >= 6
    p, cv = yaniv_success_probability(view), call_value(view)
    assert values[0] == [p * cv.success + (1 - p) * cv.failure] * len(values[0])
    # Judged by the showdowns instead, the call's value changes from world to world.
    shown = MasterBot(3, think_ms=FAST, coach_call=False).world_values(view, cands)
    assert shown is not None and len(set(shown[0])) > 1


def test_a_searched_call_may_be_priced_by_the_belief() -> None:
    # call_odds="belief": the chance is the share of the belief's worlds in which the call
    # succeeds (belief.CALL_WORLDS of them), calibrated, times the same utility of the two
    # outcomes.
    from yaniv.bots.belief import CALL_WORLDS, call_calibration, logit
    from yaniv.bots.coach import call_value
    from yaniv.moves import YANIV

    view = _doubtful_call("3C 4D", "9S KC").view(0)  # 7 against two unknown cards
    turn = next(m for m in view.legal_moves if m != YANIV)
    cands: list[tuple[Move, Card | None]] = [(YANIV, None), (turn, None)]
    values = MasterBot(3, think_ms=FAST, call_odds="belief").world_values(view, cands)
    assert values is not None and len(set(values[0])) == 1
    cv = call_value(view)
    p = (values[0][0] - cv.failure) / (cv.success - cv.failure)
    assert 0.0 < p < 1.0
    a, b = call_calibration()
    raw = 1 / (1 + math.exp(-(logit(p) - b) / a))  # the calibration undone
    assert abs(raw * CALL_WORLDS - round(raw * CALL_WORLDS)) < 1e-6


def test_a_candidate_must_beat_the_heuristic_by_its_paired_error() -> None:
    from yaniv.moves import YANIV

    view = _doubtful_call().view(0)
    turns = [m for m in view.legal_moves if m != YANIV][:3]
    cands: list[tuple[Move, Card | None]] = [(YANIV, None), *((t, None) for t in turns)]
    base = [0.4, 0.6, 0.4, 0.6]
    values = [
        [0.55] * 4,  # better on average than the base, but within its noise
        base,
        [b + d for b, d in zip(base, [0.3, -0.25, 0.3, -0.25], strict=True)],  # noise
        [b + 0.02 for b in base],  # a little better in every world: a real difference
    ]
    totals = MasterBot(1)._tested(cands, values, 1, view.n)
    assert totals[1] == pytest.approx(2.0) and totals[3] == pytest.approx(2.08)
    assert totals[0] < totals[1] and totals[2] < totals[1]
    # Without the test (z = 0 is a plain comparison of means) the noisy ones would stand.
    plain = MasterBot(1, z=0.0)._tested(cands, values, 1, view.n)
    assert plain[0] > plain[1] and plain[2] > plain[1]


def _better_by_1_2_to_2_errors(
    diffs: list[float],
) -> tuple[list[tuple[Move, Card | None]], list[list[float]]]:
    """Two candidates and their values over ``len(diffs)`` worlds: the second better than the
    first (the default) by ``diffs``, between Z_MANY and Z standard errors of their mean."""
    from yaniv.bots.coach import mean_and_error
    from yaniv.bots.master_bot import Z_MANY, Z

    moves = _doubtful_call().view(0).legal_moves[:2]
    cands: list[tuple[Move, Card | None]] = [(m, None) for m in moves]
    base = [0.5] * len(diffs)
    mean, error = mean_and_error(diffs)
    assert Z_MANY < 1.2 < mean / error < 2.0 <= Z
    return cands, [base, [b + d for b, d in zip(base, diffs, strict=True)]]


def test_a_larger_table_searched_in_many_worlds_asks_fewer_standard_errors() -> None:
    # Chosen at a table of four searched in MANY_WORLDS worlds (z = 1), kept out at a table of
    # two (z = 2), or where set to z = 2.
    from yaniv.bots.master_bot import MANY_WORLDS

    cands, values = _better_by_1_2_to_2_errors([0.045, -0.025] * (MANY_WORLDS // 2))
    four = MasterBot(1)._tested(cands, values, 0, 4)
    assert four[1] == pytest.approx(math.fsum(values[1])) and four[1] > four[0]
    two = MasterBot(1)._tested(cands, values, 0, 2)
    assert two[1] < two[0]
    assert MasterBot(1, z=2.0)._tested(cands, values, 0, 4)[1] < four[0]


def test_a_larger_table_searched_in_few_worlds_asks_the_two_seat_standard_errors() -> None:
    # Under MANY_WORLDS worlds the error itself is measured poorly: the candidate is kept out
    # at a table of four too, unless z is set lower.
    from yaniv.bots.master_bot import MANY_WORLDS

    cands, values = _better_by_1_2_to_2_errors([0.03, -0.01] * 4)
    assert len(values[0]) < MANY_WORLDS
    four = MasterBot(1)._tested(cands, values, 0, 4)
    assert four[1] < four[0]
    assert MasterBot(1, z=1.0)._tested(cands, values, 0, 4)[1] > four[0]


def test_a_doubtful_call_defaults_to_the_coach_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    # The call is worth 0.45 in every world; the turn 0.5 on average, within its noise. The
    # search keeps the coach's verdict (call where the call beats its price of playing on).
    from yaniv.bots import master_bot
    from yaniv.bots.coach import CallValue
    from yaniv.moves import YANIV

    view = _doubtful_call().view(0)
    turn = next(m for m in view.legal_moves if m != YANIV)
    cands: list[tuple[Move, Card | None]] = [(YANIV, None), (turn, None)]
    bot = MasterBot(1)
    values = [[0.45] * 4, [0.62, 0.38, 0.62, 0.38]]
    monkeypatch.setattr(bot, "world_values", lambda v, c: values)
    for play_on, calls in ((0.40, True), (0.50, False)):
        price = CallValue(0.6, 0.1, play_on)
        monkeypatch.setattr(master_bot, "call_value", lambda v, price=price: price)
        totals = bot._search(view, cands)
        assert totals is not None and (totals[0] > totals[1]) is calls, play_on


@pytest.mark.parametrize("index", [14, 129])
def test_a_stalled_round_over_the_threshold_is_broken(index: int) -> None:
    # Ladder games (master against expert, the house rules, seed 1) that ran to the
    # 5,000-move cap: from move 929 of game 14 both held A 2 3 (6, over the threshold of 5),
    # laid the 3 and took the other's, turn after turn; the stalled turn took the pile's card,
    # the lowest hand, every time. It now draws from the stock now and then.
    from yaniv.arena import GameTask, play_game

    house = RuleSet.preset(
        "standard",
        yaniv_threshold=5,
        score_limit=100,
        assaf_scoring="caller_only",
        assaf_penalty=30,
        bonus="subtract",
        bonus_step=50,
        bonus_amount=50,
        jokers_in_sets=True,
        pickup="run_ends_set_any",
        next_starter="caller",
    )
    summary = play_game(GameTask(index, ("master", "expert"), house, 1, think_ms=20))
    assert summary["errors"] == [] and not summary["capped"] and summary["winners"], summary


def test_the_cap_on_worlds_holds_whatever_the_budget() -> None:
    # A large budget searches up to max_worlds (MAX_WORLDS unless set) and no further.
    from yaniv.bots.master_bot import MAX_WORLDS

    view = _doubtful_call().view(0)
    cands: list[tuple[Move, Card | None]] = [(m, None) for m in view.legal_moves[:2]]
    counts = []
    for cap in (10, None):
        bot = MasterBot(3, think_ms=10_000.0)
        if cap is not None:
            bot.max_worlds = cap
        values = bot.world_values(view, cands)
        assert values is not None
        counts.append(len(values[0]))
    assert counts == [10, MAX_WORLDS]


def _close_draw_first_discard(seed: int) -> Game:
    """A four-player draw-first game of experts, played to a seat's discard after its draw
    where the heuristic's two best discards are within the master's ``close`` points."""
    game = Game.new(RuleSet.preset("draw_first"), players=4, seed=seed)
    experts = [get_bot("expert", seed * 10 + s) for s in range(4)]
    probe = MasterBot(0)
    probe.w_now = probe.weight(game.rules)
    while True:
        if game.phase == Phase.ROUND_OVER:
            game.next_round()
            continue
        assert game.phase != Phase.GAME_OVER, "no close discard in a whole game"
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        if game.phase == Phase.DISCARD:
            best = [e for e, d in probe.discards_after_draw(view, 0.0) if d in view.legal_moves]
            if len(best) > 1 and best[1] - best[0] <= probe.close:
                return game
        game.play(experts[seat].choose(view), seat=seat)


def test_the_draw_first_discard_is_searched_where_close() -> None:
    # With search_discards the discard after the draw is searched (turns simulated) and legal;
    # without, it is the expert's, unsearched.
    for seed in range(3):
        game = _close_draw_first_discard(seed)
        view = game.view(game.to_move or 0)
        searching = MasterBot(seed, think_ms=FAST)
        assert searching.choose(view) in view.legal_moves
        assert searching.simulated > 0, seed
        plain = MasterBot(seed, think_ms=FAST, search_discards=False)
        assert plain.choose(view) == get_bot("expert", seed).choose(view)
        assert plain.simulated == 0


def test_the_searched_discard_never_reads_hidden_cards() -> None:
    # The others' unknown cards and the stock permuted: the same view, the same discard.
    for seed in range(3):
        game = _close_draw_first_discard(seed)
        seat = game.to_move
        assert seat is not None
        a, b = hidden_permuted(game, seat, seed)
        assert a.hands != b.hands
        va, vb = a.view(seat), b.view(seat)
        assert va == vb
        assert MasterBot(7, think_ms=FAST).choose(va) == MasterBot(7, think_ms=FAST).choose(vb)


@pytest.mark.parametrize("preset", ["standard", "draw_first"])
def test_the_rollouts_others_judge_hands_as_the_expert_does(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other seats of a rollout are experts: their shed weight is the expert's for the
    # rules (lower in draw-first), unless others_weight says otherwise.
    from yaniv.bots.expert_bot import shed_weight
    from yaniv.bots.rollout import rollout_turns as turns

    seen: set[float] = set()

    def recording(g: Game, me: int, w_me: float, w_others: float, *rest: Any) -> int:
        seen.add(w_others)
        return turns(g, me, w_me, w_others, *rest)

    monkeypatch.setattr("yaniv.bots.master_bot.rollout_turns", recording)
    rules = RuleSet.preset(preset)
    view = Game.new(rules, players=3, seed=4).view(1)
    cands: list[tuple[Move, Card | None]] = [(m, None) for m in view.legal_moves[:2]]
    assert MasterBot(1, think_ms=FAST).world_values(view, cands) is not None
    assert seen == {shed_weight(rules)}
    seen.clear()
    assert MasterBot(1, think_ms=FAST, others_weight=0.8).world_values(view, cands) is not None
    assert seen == {0.8}
    assert shed_weight(RuleSet.preset("draw_first")) < shed_weight(RuleSet())
