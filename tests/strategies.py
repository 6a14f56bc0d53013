"""Hypothesis strategies and random games shared by the test modules."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from yaniv import Game, Phase, RuleSet
from yaniv.moves import YANIV
from yaniv.rules import CHOICES


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    bonus = draw(st.sampled_from(CHOICES["bonus"]))
    step = draw(st.sampled_from([25, 50]))
    return RuleSet(
        jokers=draw(st.integers(0, 2)),
        hand_size=draw(st.integers(2, 6)),
        next_starter=draw(st.sampled_from(CHOICES["next_starter"])),
        draw_first=draw(st.booleans()),
        jokers_in_sets=draw(st.booleans()),
        joker_in_run=draw(st.sampled_from(CHOICES["joker_in_run"])),
        pickup=draw(st.sampled_from(CHOICES["pickup"])),
        yaniv_threshold=draw(st.integers(0, 12)),
        assaf_penalty=draw(st.sampled_from([0, 25, 30])),
        assaf_scoring=draw(st.sampled_from(CHOICES["assaf_scoring"])),
        yaniv_above_threshold=draw(st.booleans()),
        bonus=bonus,
        bonus_targets=draw(st.sampled_from([(100, 200), (50,), (40, 80)])),
        bonus_step=step,
        bonus_amount=draw(st.sampled_from([step, step // 5])),
        end_mode=draw(st.sampled_from(CHOICES["end_mode"])),
        score_limit=draw(st.sampled_from([40, 100, 200])),
        slapdown=draw(st.sampled_from(CHOICES["slapdown"])),
        joker_pair=draw(st.booleans()),
        run_naturals=draw(st.integers(1, 2)),
        max_set=draw(st.sampled_from([0, 2, 3, 4])),
        assaf_ties=draw(st.sampled_from(CHOICES["assaf_ties"])),
        slap_empty_hand=draw(st.sampled_from(CHOICES["slap_empty_hand"])),
    )


def played(
    seed: int, preset: str = "standard", players: int = 3, moves: int = 10_000, call: float = 0.7
) -> Game:
    """A seeded game of random legal moves (Yaniv called with probability ``call`` when
    allowed), ``moves`` moves long or to its end."""
    game = Game.new(RuleSet.preset(preset), players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        legal = game.legal_moves()
        game.play(YANIV if YANIV in legal and rng.random() < call else rng.choice(legal))
    return game


def hidden_permuted(game: Game, seat: int, seed: int) -> tuple[Game, Game]:
    """``game`` rebuilt from its position, and a twin with the cards ``seat`` cannot see (the
    others' unknown cards and the stock) permuted by ``seed``: the same view of ``seat``."""
    position = game.position()
    hidden = [
        (s, c)
        for s, hand in enumerate(position["hands"])
        if s != seat
        for c in hand
        if c not in position["known"][s]
    ]
    cards = [c for _, c in hidden] + position["stock"]
    random.Random(seed).shuffle(cards)
    hands = [
        [c for c in hand if s == seat or c in position["known"][s]]
        for s, hand in enumerate(position["hands"])
    ]
    for (s, _), c in zip(hidden, cards, strict=False):
        hands[s].append(c)
    a = Game.from_position(**position)
    b = Game.from_position(**{**position, "hands": hands, "stock": cards[len(hidden) :]})
    return a, b
