"""The rollouts' fast turn: its quick guess at a call's chance, and calls judged by it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import product

import pytest

from yaniv import Game
from yaniv.bots import get_bot, rollout
from yaniv.bots.expert_bot import ExpertBot
from yaniv.bots.rollout import CALL_BETA, discard_after_draw, quick_call_chance, rollout_turn
from yaniv.cards import VALUE, deck, parse_card, parse_cards
from yaniv.game import Phase
from yaniv.moves import YANIV
from yaniv.rules import RuleSet
from yaniv.view import PlayerView


def _game(mine: str, theirs: str, known: str = "") -> Game:
    """Seat 0 to move with ``mine``; seat 1 holds ``theirs``, ``known`` of them seen taken."""
    return _table(mine, theirs, known=known)


def _table(mine: str, *theirs: str, known: str = "", out: tuple[int, ...] = ()) -> Game:
    """Seat 0 to move with ``mine``; seat 1, 2... hold ``theirs`` (seat 1 ``known`` of them
    seen taken); the seats in ``out`` are out of the game, with no cards."""
    hands = [mine, *("" if s in out else h for s, h in enumerate(theirs, 1))]
    dealt = {c for hand in hands for c in parse_cards(hand)}
    rest = [c for c in deck(2) if c not in dealt]
    stock, pile = rest[:10], [[c] for c in rest[10:]]
    return Game.from_position(
        RuleSet(),
        [hand.split() for hand in hands],
        stock,
        pile,
        0,
        out=out,
        known=[[], known.split(), *([] for _ in theirs[1:])],
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


def test_judged_calls_ask_call_chance_per_opponent() -> None:
    # CALL_CHANCE per opponent still in the game: the chance that every one of them holds
    # more falls with their number, and so does the expert's bar (benchmarks/rollout_calls.py:
    # it calls at 12 % of its callable turns with eight in, 45 % with two, where CALL_CHANCE
    # alone called at 1 % and 42 %).
    assert rollout.call_chance_needed(_game("AC", "KD")) == rollout.CALL_CHANCE
    four = _table("AC", "KD QD", "JD 9D", "8D 7D")
    assert rollout.call_chance_needed(four) == pytest.approx(rollout.CALL_CHANCE**3)
    three = _table("AC", "KD QD", "JD 9D", "8D 7D", out=(2,))
    assert rollout.call_chance_needed(three) == pytest.approx(rollout.CALL_CHANCE**2)
    # An ace against three hands of two unseen cards: a chance under CALL_CHANCE but over
    # its cube, so the judged rollout player calls; against one such hand too (a higher chance).
    chance = quick_call_chance(four, 0)
    assert rollout.CALL_CHANCE**3 < chance < rollout.CALL_CHANCE
    for g in (four, _game("AC", "KD QD")):
        rollout_turn(g, 0, 1.0, judged_calls=True)
        assert g.phase >= Phase.ROUND_OVER
    # A 2 against the same three hands: under the cube, so it plays on.
    g = _table("2C", "KD QD", "JD 9D", "8D 7D")
    assert quick_call_chance(g, 0) < rollout.CALL_CHANCE**3
    rollout_turn(g, 0, 1.0, judged_calls=True)
    assert g.phase == Phase.START and g.to_move == 1


def test_a_flat_call_bar_is_the_same_at_any_table() -> None:
    four = _table("AC", "KD QD", "JD 9D", "8D 7D")
    assert rollout.call_chance_needed(four, per_opponent=False) == rollout.CALL_CHANCE
    # The ace against three hands of two unseen cards: over the cube, under the flat bar, so
    # the flat rollout player plays on where the one per opponent calls.
    assert quick_call_chance(four, 0) < rollout.CALL_CHANCE
    rollout_turn(four, 0, 1.0, judged_calls=True, per_opponent_calls=False)
    assert four.phase == Phase.START and four.to_move == 1
    # Against one opponent the two bars are one: the flat player calls as before.
    two = _game("AC", "KD QD")
    rollout_turn(two, 0, 1.0, judged_calls=True, per_opponent_calls=False)
    assert two.phase >= Phase.ROUND_OVER


def _expert_turn(g: Game, bot: ExpertBot) -> None:
    """The expert's whole turn for the seat to move (its first move, draw and any slap)."""
    seat = g.to_move
    while g.to_move == seat and g.phase < Phase.ROUND_OVER:
        g.apply(bot.choose(g.view(seat)))
        if g.phase == Phase.START:
            break


def _self_play(
    rules: RuleSet, players: int, seed: int, bot_seed: int
) -> Iterator[tuple[Game, int, PlayerView]]:
    """A game of experts (seat ``s`` seeded ``bot_seed + s``): the game, the seat to move and
    its view before each move, which is played once the caller has looked."""
    bots = [get_bot("expert", seed=bot_seed + s) for s in range(players)]
    g = Game.new(rules, players=players, seed=seed)
    while not g.is_over:
        if g.phase >= Phase.ROUND_OVER:
            g.next_round()
            continue
        seat = g.to_move
        assert seat is not None
        view = g.view(seat)
        yield g, seat, view
        g.apply(bots[seat].choose(view))


def _agreement(rules: RuleSet, players: int, games: int) -> dict[bool, float]:
    """On the expert's self-play, the share of its turns (not calls) that ``rollout_turn``
    plays alike (the same hand left and the same pile), without and with ``like_expert``."""
    alike = {False: 0, True: 0}
    turns = 0
    for seed in range(games):
        judge = ExpertBot(seed=99)
        for g, seat, view in _self_play(rules, players, seed, seed * 8):
            callable_ = YANIV in view.legal_moves and view.hand_value <= rules.yaniv_threshold
            if g.phase != Phase.START or callable_:
                continue
            expert = g.clone()
            _expert_turn(expert, judge)
            if expert.phase < Phase.ROUND_OVER:
                turns += 1
                w = judge.weight(rules)
                for like in alike:
                    mine = g.clone()
                    rollout_turn(mine, seat, w, w, judged_calls=True, like_expert=like)
                    same = mine.hands[seat] == expert.hands[seat] and mine.pile == expert.pile
                    alike[like] += same
    return {like: count / turns for like, count in alike.items()}


@pytest.mark.parametrize(
    ("preset", "players"), [("standard", 2), ("standard", 4), ("draw_first", 4), ("slapdown", 2)]
)
def test_like_expert_turns_are_the_experts(preset: str, players: int) -> None:
    # Measured: 91 % of the expert's turns without the feed penalty and the bonus pull, 97-99 %
    # with them (the rest: the expert reads the unseen cards' values, the rollout a full deck).
    share = _agreement(RuleSet.preset(preset), players, games=2)
    assert share[True] >= 0.95
    assert share[True] >= share[False] + 0.04


@pytest.mark.parametrize("players", [2, 4])
def test_the_discard_after_a_draw_is_the_experts(players: int) -> None:
    """Draw first: ``discard_after_draw`` (the master's candidate turns and the rollouts) lays
    what the expert lays after its draw, with ``like_expert`` (the feed penalty and the bonus
    pull). On this game: 98 % of four players' discards (92 % without), 99 % of two players'
    (91 % without)."""
    rules = RuleSet.preset("draw_first")
    alike = {False: 0, True: 0}
    discards = 0
    judge = ExpertBot(seed=99)
    for g, seat, view in _self_play(rules, players, 1, 0):
        if g.phase == Phase.DISCARD:
            expert = g.clone()
            expert.apply(judge.choose(view))  # sets the expert's shed weight of this moment
            discards += 1
            for like in alike:
                mine = g.clone()
                discard_after_draw(mine, judge.w_now, like)
                alike[like] += mine.hands[seat] == expert.hands[seat]
    assert discards > 100
    assert alike[True] >= 0.96 * discards
    assert alike[True] > alike[False]
