"""The rollouts' fast turn: its quick guess at a call's chance, and calls judged by it."""

from __future__ import annotations

import math
from itertools import product

import pytest

from yaniv import Game
from yaniv.bots import rollout
from yaniv.bots.rollout import CALL_BETA, quick_call_chance, rollout_turn
from yaniv.cards import VALUE, deck, parse_card, parse_cards
from yaniv.game import Phase
from yaniv.rules import RuleSet


def _game(mine: str, theirs: str, known: str = "") -> Game:
    """Seat 0 to move with ``mine``; seat 1 holds ``theirs``, ``known`` of them seen taken."""
    dealt = set(parse_cards(mine) + parse_cards(theirs))
    rest = [c for c in deck(2) if c not in dealt]
    stock, pile = rest[:10], [[c] for c in rest[10:]]
    return Game.from_position(
        RuleSet(),
        [mine.split(), theirs.split()],
        stock,
        pile,
        0,
        known=[[], known.split()],
    )


def _enumerated(unseen: int, more_than: int) -> float:
    """The chance that ``unseen`` cards, each drawn with the low-card likelihood, are worth
    more than ``more_than``: by enumerating every draw."""
    weights = dict.fromkeys(range(11), 0.0)
    for c in deck(2):
        weights[VALUE[c]] += math.exp(-CALL_BETA * VALUE[c])
    total = sum(weights.values())
    return sum(
        math.prod(weights[v] / total for v in values)
        for values in product(range(11), repeat=unseen)
        if sum(values) > more_than
    )


@pytest.mark.parametrize(("theirs", "mine"), [("KD", "5C"), ("KD QD", "7C"), ("KD QD", "AC")])
def test_the_quick_chance_is_the_low_card_models(theirs: str, mine: str) -> None:
    g = _game(mine, theirs)
    unseen = len(theirs.split())
    assert quick_call_chance(g, 0) == pytest.approx(_enumerated(unseen, VALUE[parse_card(mine)]))


def test_the_quick_chance_reads_only_what_the_caller_can_see() -> None:
    # The opponent's real cards do not matter, only how many and which were seen taken.
    assert quick_call_chance(_game("5C", "KD"), 0) == quick_call_chance(_game("5C", "AD"), 0)
    # A seen card counts at its value: a known king leaves nothing to chance against a 5.
    assert quick_call_chance(_game("5C", "KD 2S", known="KD"), 0) == 1.0
    # A known ace leaves a 5 to beat with one unseen card (more than 4).
    seen = quick_call_chance(_game("5C", "AD 2S", known="AD"), 0)
    assert seen == pytest.approx(_enumerated(1, 4))
    # More unseen cards, more chance; a higher hand, less.
    assert quick_call_chance(_game("5C", "2S 3S"), 0) > quick_call_chance(_game("5C", "2S"), 0)
    assert quick_call_chance(_game("7C", "2S"), 0) < quick_call_chance(_game("5C", "2S"), 0)


def test_judged_calls_call_at_a_good_chance_and_not_at_a_poor_one() -> None:
    # An ace against five unseen cards: CALL_AT calls too, and so does the judged rule.
    g = _game("AC", "2D 3D 4D 5D 6D")
    rollout_turn(g, 0, 1.0, judged_calls=True)
    assert g.phase >= Phase.ROUND_OVER
    # A 3 against two unseen cards: CALL_AT calls (3 at two cards), the judged rule does not
    # (two low cards are worth 3 or less too often: the expert declines there).
    assert quick_call_chance(_game("3C", "KD QD"), 0) < rollout.CALL_CHANCE
    for judged, called in ((False, True), (True, False)):
        g = _game("3C", "KD QD")
        rollout_turn(g, 0, 1.0, judged_calls=judged)
        assert (g.phase >= Phase.ROUND_OVER) is called
    # A 6 against four unseen cards: CALL_AT calls at 7 and under, the judged rule too.
    g = _game("6C", "KD QD JD 9D")
    rollout_turn(g, 0, 1.0, judged_calls=True)
    assert g.phase >= Phase.ROUND_OVER
