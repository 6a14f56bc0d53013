"""The rollouts' discard-first turn (``heuristics.turn_plan``): the compiled loop (yaniv/_plan.c)
against the Python loop, which stays the reference. They must give the same judgement (the
same float), the very same discard object and the same draw, over random positions, rule sets,
weights, bonus pulls and feed penalties; and whole rollouts on the two must be the same games.
Skipped where the core is not built (as tests/test_core.py is)."""

from __future__ import annotations

import os
import random

import pytest
from test_core import fits, random_rules

from yaniv import Game, Phase, compiled
from yaniv.bots import heuristics as H
from yaniv.bots.rollout import rollout_turn
from yaniv.rules import RuleSet

pytestmark = pytest.mark.skipif(
    compiled.AVAILABLE is None and not os.environ.get("CI"), reason="the core is not built"
)


def positions(rng: random.Random, games: int) -> list[Game]:
    """Turn starts of random discard-first games (random moves), copied as they stood."""
    found: list[Game] = []
    while len(found) < games * 8:
        rules = random_rules(rng)
        players = rng.randint(2, 8)
        if rules.draw_first or not fits(rules, players):
            continue
        g = Game.new(rules, players, rng.getrandbits(32))
        for _ in range(rng.randint(0, 60)):
            if g.phase >= Phase.ROUND_OVER:
                break
            legal = g.legal_moves()
            g.apply(legal[rng.randrange(len(legal))])
        if g.phase == Phase.START and g.to_move is not None:
            found.append(g.clone())
    return found


def both(g: Game, rng: random.Random) -> None:
    p = g.to_move
    assert p is not None
    hand, others = g.hands[p], [s for s in range(g.n) if s != p]
    w = rng.choice([H.SHED_WEIGHT, 1.0, 0.8, rng.uniform(0.0, 1.5)])
    pull = rng.choice([None, (rng.randint(1, 50), rng.choice([0.0, rng.uniform(0.0, 30.0)]))])
    collects = rng.choice([0, g.known[rng.choice(others)], g.hands[rng.choice(others)]])
    feed = rng.random() < 0.5
    stock_ok = bool(g.stock) and rng.random() < 0.8  # an empty stock is rare in games: asked
    args = (hand, g.values[p], g.pickable, stock_ok, g.rules, w, collects, pull, feed)
    expected = H.turn_plan(*args, compiled=False)
    got = H.turn_plan(*args, compiled=True)
    assert got[0] == expected[0]  # the same float, not a close one
    assert got[1] is expected[1] and got[2] == expected[2]


def test_the_compiled_plan_is_the_python_plan_over_random_positions() -> None:
    rng = random.Random(11)
    for g in positions(rng, 200):
        for _ in range(3):
            both(g, rng)


def test_the_compiled_plan_answers_itself_and_leaves_odd_inputs_to_python() -> None:
    core = compiled.AVAILABLE
    assert core is not None
    g = Game.new(RuleSet(), 3, 5)
    p = g.to_move
    assert p is not None
    rules, hand = g.rules, g.hands[p]
    lister = H.discards_of(rules)
    table = H._shed_table(rules)
    call = [lister(hand), lister, table, g.pickable, rules, hand, g.values[p], True]
    call += [0.55, 12, 4.0, 0, True]
    answer = core.turn_plan(*call)
    assert answer is not None and answer[1] in lister(hand)  # not a silent fall-back
    # a weight that is an int, a hand that is not one of cards: the Python loop's to judge
    for at, odd in ((8, 1), (5, 1 << 60), (3, [*g.pickable])):
        assert core.turn_plan(*call[:at], odd, *call[at + 1 :]) is None
    assert H.turn_plan(hand, g.values[p], g.pickable, True, rules, 1) == H.turn_plan(
        hand, g.values[p], g.pickable, True, rules, 1, compiled=False
    )
    with pytest.raises(TypeError, match="13 arguments"):
        core.turn_plan(*call[:5])


def test_an_empty_hand_has_no_plan_in_words() -> None:
    with pytest.raises(ValueError, match="no legal discard of the hand 0x0"):
        H.turn_plan(0, 0, (5,), True, RuleSet(), 0.55, compiled=False)
    with pytest.raises(ValueError, match="no legal discard"):
        H.turn_plan(0, 0, (5,), True, RuleSet(), 0.55, compiled=True)


def test_rollouts_on_the_two_loops_are_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    for g in positions(rng, 40):
        me = g.to_move
        assert me is not None
        like_expert = rng.random() < 0.5
        played = []
        for core in (compiled.AVAILABLE, None):
            monkeypatch.setattr(H._compiled, "choose", lambda _c, core=core: core)
            r = g.clone()
            for _ in range(300):
                if r.phase >= Phase.ROUND_OVER:
                    break
                rollout_turn(r, me, 0.8, H.SHED_WEIGHT, True, like_expert)
            played.append((r.moves, r.fingerprint()))
        assert played[0] == played[1]
        assert len(played[0][0]) > len(g.moves)
