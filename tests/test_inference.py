"""Policy-based inference: the worlds weighed by each opponent's last turn, from the view only."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from yaniv import Game
from yaniv.bots import get_bot
from yaniv.bots.heuristics import DECK_DIST
from yaniv.bots.inference import LastTurn, hand_likelihood, last_turns, play_weigh
from yaniv.cards import parse_card, parse_cards
from yaniv.events import Discarded, Drew, Slapped
from yaniv.game import Phase
from yaniv.moves import YANIV
from yaniv.rules import RuleSet
from yaniv.search import sample_worlds


def _played(rules: RuleSet, players: int, seed: int, turns: int) -> Game | None:
    """A round of experts (no Yaniv) ``turns`` turns in, at the start of a turn; None where
    the round could not get there."""
    game = Game.new(rules, players=players, seed=seed)
    bots = [get_bot("expert", seed * 10 + s) for s in range(players)]
    started = 0
    for _ in range(40 * players):
        if game.phase >= Phase.ROUND_OVER:
            return None
        if game.phase == Phase.START:
            if started >= turns:
                return game
            started += 1
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        move = bots[seat].choose(view)
        if move == YANIV:
            move = next(m for m in view.legal_moves if m != YANIV)
        game.play(move, seat=seat)
    return None


def test_the_last_turn_is_what_the_seat_was_seen_to_do() -> None:
    for preset in ("standard", "draw_first", "slapdown", "quick"):
        rules = RuleSet.preset(preset)
        for seed in range(6):
            game = _played(rules, 2, seed, 5)
            if game is None:
                continue
            me = game.to_move
            assert me is not None
            view = game.view(me)
            turns = last_turns(view)
            other = 1 - me
            laid = [e for e in view.events if isinstance(e, Discarded) and e.seat == other]
            drew = [e for e in view.events if isinstance(e, Drew) and e.seat == other]
            slapped = any(isinstance(e, Slapped) for e in view.events)
            if not laid or not drew:
                assert other not in turns
                continue
            if slapped and other not in turns:
                continue  # a slap in or before the turn: not judged
            turn = turns[other]
            assert turn.laid == laid[-1].cards
            assert (turn.source, turn.drawn) == (drew[-1].source, drew[-1].card)
            assert turn.draw_first == rules.draw_first
            if turn.source == "pile":
                # kept (seen taken), or laid again with others (draw first, R11)
                assert turn.drawn in view.known[other] or turn.drawn in turn.laid
                assert turn.drawn in turn.offered


def test_a_pair_broken_for_no_reason_is_unlikely() -> None:
    """It laid one K and took the 2: a guess where it held two kings (it would have laid both)
    is much less likely than one where the K was alone."""
    rules = RuleSet()
    turn = LastTurn(
        laid=(parse_card("KS"),),
        source="pile",
        drawn=parse_card("2C"),
        offered=(parse_card("2C"),),
        draw_first=False,
    )
    paired = parse_cards("2C KH 9D 8C")
    single = parse_cards("2C QH 9D 8C")
    a = hand_likelihood(paired, paired[1:], turn, rules, DECK_DIST)
    b = hand_likelihood(single, single[1:], turn, rules, DECK_DIST)
    assert 0 < a < b / 5, (a, b)
    # A guess that lacks the pile card it was seen to take does not fit: not judged.
    assert hand_likelihood(single[1:], single[1:], turn, rules, DECK_DIST) == 1.0


def test_after_a_stock_draw_every_hidden_card_may_be_the_one_drawn() -> None:
    """The weight averages the guesses of which hidden card came from the stock."""
    rules = RuleSet()
    turn = LastTurn((parse_card("9S"),), "stock", None, (parse_card("3D"),), False)
    hand = parse_cards("AC 4H 7D")
    whole = hand_likelihood(hand, hand, turn, rules, DECK_DIST)
    one = hand_likelihood(hand, hand[:1], turn, rules, DECK_DIST)
    assert whole != one and 0 < whole <= 1 and 0 < one <= 1


def _hidden_of(world_hand: tuple[int, ...], known: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(c for c in world_hand if c not in known)


def test_the_weights_never_read_the_hidden_cards() -> None:
    """Two games that differ only in what the seat cannot see weigh every guess alike."""
    from test_bots import _twin, _with_events

    for seed in range(5):
        game = _played(RuleSet(), 3, seed, 7)
        if game is None:
            continue
        me = game.to_move
        assert me is not None
        view = game.view(me)
        other = _twin(game, seed)
        twin = _with_events(other.view(me), view)
        weigh_a, weigh_b = play_weigh(view), play_weigh(twin)
        for world in sample_worlds(view, 30, seed=seed):
            for s in range(game.n):
                if s == me:
                    continue
                guess = _hidden_of(world.hands[s], view.known[s])
                assert weigh_a(view, s, guess) == weigh_b(twin, s, guess)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=st.integers(2, 8), seed=st.integers(0, 10_000))
def test_every_rule_set_gives_finite_weights(rules: RuleSet, players: int, seed: int) -> None:
    game = _played(rules, players, seed, 2 * players)
    if game is None:
        return
    me = game.to_move
    assert me is not None
    view = game.view(me)
    weigh = play_weigh(view)
    for world in sample_worlds(view, 8, seed=seed):
        for s in view.active_seats():
            if s == me:
                continue
            guess = _hidden_of(world.hands[s], view.known[s])
            w = weigh(view, s, guess)
            # a prior of at most 1 times a chance: in (0, 1]
            assert math.isfinite(w) and 0 < w <= 1.0


def test_a_tempered_weight_is_the_last_turns_likelihood_to_its_power() -> None:
    """Without the low-card prior (``beta_scale`` 0), a weight is the likelihood of the seat's
    last turn raised to ``power``: 0.5 gives the square root of 1's."""
    judged = 0
    for seed in range(6):
        game = _played(RuleSet(), 3, seed, 6)
        if game is None:
            continue
        me = game.to_move
        assert me is not None
        view = game.view(me)
        whole, half = play_weigh(view, 0.0), play_weigh(view, 0.0, power=0.5)
        for world in sample_worlds(view, 20, seed=seed):
            for s in last_turns(view):
                guess = _hidden_of(world.hands[s], view.known[s])
                if s == me or not guess:
                    continue
                w = whole(view, s, guess)
                assert math.isclose(half(view, s, guess), math.sqrt(w))
                judged += w < 1.0
    assert judged > 20  # likelihoods below 1, where the power changes the weight
