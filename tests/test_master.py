"""The master level: legal under every rule option and 2-8 players, deterministic, searching."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import rule_sets
from yaniv import Game
from yaniv.bots import get_bot
from yaniv.bots.base import bot_names
from yaniv.bots.master_bot import MasterBot, resample
from yaniv.game import Phase
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


def test_master_never_reads_hidden_cards() -> None:
    """Positions that differ only in what the seat cannot see give the same move."""
    from tests.test_bots import _mid_round, _with_events

    for seed in range(3):
        game = _mid_round(seed)
        me = game.to_move
        assert me is not None
        view = game.view(me)
        hidden = [
            c for s in range(game.n) if s != me for c in game.hand(s) if c not in view.known[s]
        ] + game.stock_top()
        shuffled = hidden[:]
        random.Random(seed).shuffle(shuffled)
        it = iter(shuffled)
        hands = [
            game.hand(s)
            if s == me
            else [c if c in view.known[s] else next(it) for c in game.hand(s)]
            for s in range(game.n)
        ]
        other = Game.from_position(game.rules, hands, list(it), game.pile, me, scores=game.scores)
        assert [other.hand(s) for s in range(game.n)] != [game.hand(s) for s in range(game.n)]
        a = MasterBot(5, think_ms=FAST).choose(view)
        b = MasterBot(5, think_ms=FAST).choose(_with_events(other.view(me), view))
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


def test_many_players_spend_the_budget_on_fewer_turns() -> None:
    from yaniv.bots.master_bot import turn_weight

    assert turn_weight(2) == turn_weight(4) == 1.0
    assert 1.0 < turn_weight(5) < turn_weight(6) < turn_weight(8)
