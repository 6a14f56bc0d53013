"""The rollouts' turns in C (yaniv/_plan.c) against the Python loops, which stay the reference:
the discard-first turn's plan (``heuristics.turn_plan``) and whole turn
(``rollout.rollout_turn``, either turn order), the draw-first draw
(``heuristics.draw_first_choice``) and discard (``heuristics.best_discard_after_draw``).
They must give the same judgements (the same floats), the very same discard objects and the
same draws, over random positions, rule sets, weights, bonus pulls and feed penalties; and
whole rollouts on the two must be the same games. Skipped where the core is not built (as
tests/test_core.py is)."""

from __future__ import annotations

import os
import random

import pytest
from test_core import fits, random_rules

from yaniv import Game, Phase, compiled
from yaniv.bots import heuristics as H
from yaniv.bots import rollout
from yaniv.bots.rollout import rollout_turn, rollout_turns
from yaniv.moves import Discard, Draw
from yaniv.rules import RuleSet

pytestmark = pytest.mark.skipif(
    compiled.AVAILABLE is None and not os.environ.get("CI"), reason="the core is not built"
)


def positions(
    rng: random.Random, count: int, draw_first: bool = False, phase: Phase = Phase.START
) -> list[Game]:
    """``count`` positions in ``phase`` of random games (random moves) of random rule sets,
    draw-first or not, copied as they stood."""
    found: list[Game] = []
    while len(found) < count:
        rules = random_rules(rng)
        players = rng.randint(2, 8)
        if rules.draw_first != draw_first or not fits(rules, players):
            continue
        g = Game.new(rules, players, rng.getrandbits(32))
        for _ in range(rng.randint(0, 60)):
            if g.phase >= Phase.ROUND_OVER or (g.phase == phase and rng.random() < 0.2):
                break
            legal = g.legal_moves()
            g.apply(legal[rng.randrange(len(legal))])
        if g.phase == phase and g.to_move is not None:
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
    for g in positions(rng, 1600):
        for _ in range(3):
            both(g, rng)


def test_the_compiled_discard_after_a_draw_is_the_python_one() -> None:
    rng = random.Random(12)
    games = positions(rng, 800, draw_first=True, phase=Phase.DISCARD)
    assert sum(g.drawn >= 0 for g in games) > 100  # pile draws too, whose card is not laid
    for g in games:
        p = g.to_move
        assert p is not None
        for _ in range(3):
            w = rng.choice([H.SHED_WEIGHT, 1.0, rng.uniform(0.0, 1.5)])
            feed = rng.choice([0.0, 1.0, rng.uniform(0.0, 2.0)])
            collects = rng.choice([0, g.known[(p + 1) % g.n], g.hands[(p + 1) % g.n]])
            args = (g.hands[p], g.values[p], g.drawn, g.rules, collects, feed, w)
            expected = H.best_discard_after_draw(*args, compiled=False)
            got = H.best_discard_after_draw(*args, compiled=True)
            assert [e for e, _ in got] == [e for e, _ in expected]
            assert all(a is b for (_, a), (_, b) in zip(got, expected, strict=True))


def test_the_compiled_choice_after_a_draw_is_the_python_one_ties_included() -> None:
    rng = random.Random(14)
    ties = 0
    for g in positions(rng, 600, draw_first=True, phase=Phase.DISCARD):
        p = g.to_move
        assert p is not None
        hand, value = g.hands[p], g.values[p]
        for _ in range(4):
            w = rng.choice([H.SHED_WEIGHT, 1.0, rng.uniform(0.0, 1.5)])
            feed = rng.choice([0.0, 1.0])
            collects = rng.choice([0, g.known[(p + 1) % g.n]])
            args = (hand, value, g.drawn, g.rules, collects, feed, w)
            ds = H.best_discard_after_draw(*args, compiled=False)
            pull: tuple[int, float] | None = None
            if len(ds) > 1 and rng.random() < 0.8:
                # a pull toward a later discard's hand, worth what puts it level with the first
                (e0, _), (e, d) = ds[0], ds[rng.randrange(1, len(ds))]
                need = value - d.value
                pull = (need, e - e0) if need > 0 else None
                if pull is not None and rng.random() < 0.3:
                    pull = (need, rng.uniform(0.0, 2 * (e - e0)))
            expected = H.after_draw_choice(*args, pull, compiled=False)
            assert H.after_draw_choice(*args, pull, compiled=True) is expected
            if pull is not None:
                pulled = H.pulled_discards(ds, value, *pull)
                ties += len(pulled) > 1 and pulled[0][0] == pulled[1][0]
    assert ties > 50  # level judgements after the pull, broken as the two stable sorts break them


def test_the_compiled_draw_first_draw_is_the_python_one() -> None:
    rng = random.Random(13)
    for g in positions(rng, 800, draw_first=True):
        p = g.to_move
        assert p is not None
        for _ in range(2):
            w = rng.choice([H.SHED_WEIGHT, 1.0, rng.uniform(0.0, 1.5)])
            pull = rng.choice([None, (rng.randint(1, 50), rng.uniform(0.0, 30.0))])
            feed = rng.choice([0.0, 1.0])
            collects = rng.choice([0, g.known[(p + 1) % g.n]])
            stock_ok = bool(g.stock) and rng.random() < 0.8
            args = (g.hands[p], g.values[p], g.pickable, stock_ok, g.rules, w, collects, feed, pull)
            if not stock_ok and not g.pickable:
                continue  # nothing to draw
            expected = H.draw_first_choice(*args, compiled=False)
            assert H.draw_first_choice(*args, compiled=True) == expected


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
    after = [lister(hand), lister, table, rules, hand, g.values[p], -1, 0.55, 0, 1.0]
    listed = core.discards_after_draw(*after)
    assert listed is not None and len(listed) == len(lister(hand))  # a stock draw: every one
    for at, odd in ((9, 1), (6, 54), (0, [*lister(hand)])):
        assert core.discards_after_draw(*after[:at], odd, *after[at + 1 :]) is None
    first = [lister(hand), lister, table, g.pickable, rules, hand, g.values[p], True, 0.55]
    first += [0, 1.0, -1, 0.0]
    drawn = core.draw_first_choice(*first)
    assert drawn == -1 or drawn in g.pickable  # the stock, or a pile card: not a fall-back
    for at, odd in ((10, 1), (3, [*g.pickable]), (11, "need")):
        assert core.draw_first_choice(*first[:at], odd, *first[at + 1 :]) is None
    choice = [lister(hand), lister, table, rules, hand, g.values[p], -1, 0.55, 0, 1.0, -1, 0.0]
    assert core.after_draw_choice(*choice) in lister(hand)  # not a silent fall-back
    for at, odd in ((7, 1), (6, 54), (10, "need"), (0, [*lister(hand)])):
        assert core.after_draw_choice(*choice[:at], odd, *choice[at + 1 :]) is None
    with pytest.raises(ValueError, match="no legal discard of the hand 0x1 after drawing 0"):
        H.after_draw_choice(1, 1, 0, rules, compiled=True)  # its one card was just drawn


def test_the_compiled_turn_makes_the_turn_and_leaves_the_rest_to_python() -> None:
    core = compiled.AVAILABLE
    assert core is not None
    g = Game.new(RuleSet(), 3, 5)
    p = g.to_move
    tables = (rollout._above(g.rules.jokers), H._shed_table(g.rules))
    args = (p, 0.55, H.SHED_WEIGHT, True, True, True, *tables)
    assert core.rollout_turn(g, *args) is True and g.to_move != p  # not a silent fall-back
    assert len(g.moves) == 2
    drawing_first = Game.new(RuleSet(draw_first=True), 3, 5)
    assert core.rollout_turn(drawing_first, *args) is True and drawing_first.to_move != p
    assert [type(m) for _, m in drawing_first.moves] == [Draw, Discard]  # drew, then laid
    pure = Game.new(RuleSet(), 3, 5, compiled=False)
    before = pure.fingerprint()
    assert core.rollout_turn(pure, *args) is None and pure.fingerprint() == before
    assert core.rollout_turn(g, p, 1, *args[2:]) is None  # a weight that is not a float
    # turn after turn in one call, up to the count asked, and none where C leaves the turn
    many = Game.new(RuleSet(), 3, 6)
    assert core.rollout_turns(many, *args, 7) == 7 and len(many.moves) == 14
    assert core.rollout_turns(many, p, 1, *args[2:], 7) == 0 and len(many.moves) == 14


def test_an_empty_hand_has_no_plan_in_words() -> None:
    with pytest.raises(ValueError, match="no legal discard of the hand 0x0"):
        H.turn_plan(0, 0, (5,), True, RuleSet(), 0.55, compiled=False)
    with pytest.raises(ValueError, match="no legal discard"):
        H.turn_plan(0, 0, (5,), True, RuleSet(), 0.55, compiled=True)


@pytest.mark.parametrize("draw_first", [False, True])
def test_rollouts_on_the_two_loops_are_the_same_games(
    monkeypatch: pytest.MonkeyPatch, draw_first: bool
) -> None:
    rng = random.Random(5)
    for g in positions(rng, 320, draw_first):
        me = rng.choice([-1, g.to_move, rng.randrange(g.n)])
        assert me is not None
        w_me = rng.choice([0.8, 1.0, rng.uniform(0.0, 1.5)])
        flags = [rng.random() < 0.5 for _ in range(3)]  # judged, like the expert, per opponent
        turns = rng.choice([1, 4, 300])
        played = []
        for core in (compiled.AVAILABLE, None):
            monkeypatch.setattr(H._compiled, "choose", lambda _c, core=core: core)
            r = g.clone()
            made = 0
            for _ in range(turns):
                if r.phase >= Phase.ROUND_OVER:
                    break
                rollout_turn(r, me, w_me, H.SHED_WEIGHT, *flags)
                made += 1
            played.append((r.moves, r.fingerprint(), made))
            # the turns one after another (in C where built): the same turns, counted
            r = g.clone()
            made = rollout_turns(r, me, w_me, H.SHED_WEIGHT, *flags, turns=turns)
            played.append((r.moves, r.fingerprint(), made))
        assert played[1:] == played[:1] * 3
        assert len(played[0][0]) > len(g.moves)
