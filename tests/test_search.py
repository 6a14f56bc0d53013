"""The public search API: sampled worlds agree with the view and know nothing it hides."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import hidden_permuted, rule_sets

from yaniv import Game, Phase, RuleSet, compiled
from yaniv.cards import NUM_CARDS, deck, parse_card
from yaniv.moves import YANIV
from yaniv.search import (
    SearchError,
    _skewed_to_front,
    consistent,
    determinized,
    hidden_counts,
    sample_worlds,
)
from yaniv.view import PlayerView


def _random_position(rules: RuleSet, players: int, seed: int) -> Game:
    """A game some random moves into a round (a round over is dealt on)."""
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 60)):
        if game.is_over:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        legal = [m for m in game.legal_moves() if m != YANIV] or list(game.legal_moves())
        game.play(rng.choice(legal))
    return game


@settings(max_examples=40, deadline=None)
@given(rule_sets(), st.integers(2, 8), st.integers(0, 2**32))
def test_every_world_is_consistent_with_the_view(rules: RuleSet, players: int, seed: int) -> None:
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = _random_position(rules, players, seed)
    if game.phase >= Phase.ROUND_OVER:
        return
    for seat in [*range(players), None]:
        view = game.view(seat)
        for world in sample_worlds(view, 4, seed=seed):
            every = [c for h in world.hands for c in h] + list(world.stock)
            every += [c for g in view.pile for c in g]
            assert sorted(every) == deck(rules.jokers)  # a deal of the whole deck
            assert [len(h) for h in world.hands] == list(view.hand_sizes)
            if seat is not None:
                assert world.hands[seat] == view.hand
            for s in range(players):
                assert set(view.known[s]) <= set(world.hands[s])
            played = world.game(view, seed=seed)
            assert consistent(view, played), (seat, view.phase)
            # ... and it plays on: every listed move is accepted.
            if played.to_move is not None:
                for move in played.legal_moves():
                    played.clone().play(move)
        # Worlds drawn by a belief (odds per card) keep to the view just the same.
        for world in sample_worlds(view, 4, seed=seed, odds=_odds(view, seed)):
            assert [len(h) for h in world.hands] == list(view.hand_sizes)
            assert consistent(view, world.game(view, seed=seed)), (seat, view.phase)


@settings(max_examples=40, deadline=None)
@given(rule_sets(), st.integers(2, 8), st.integers(0, 2**32))
def test_a_world_built_like_another_is_the_game_its_position_gives(
    rules: RuleSet, players: int, seed: int
) -> None:
    # World.game(like=...) copies another world's game instead of checking the position again:
    # it must be the very game from_position builds, in every phase of a turn.
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = _random_position(rules, players, seed)
    if game.phase >= Phase.ROUND_OVER:
        return
    view = game.view(game.to_move)
    worlds = sample_worlds(view, 4, seed=seed)
    first = worlds[0].game(view, seed=1)
    for i, world in enumerate(worlds):
        built = world.game(view, seed=i + 7)
        like = world.game(view, seed=i + 7, like=first)
        assert like is not first and like.fingerprint() == built.fingerprint()
        assert like.position() == built.position()
    played = first.clone()
    played.play(played.legal_moves()[0])
    # a game moved on is not a world's position: built from the position instead
    assert worlds[1].game(view, seed=3, like=played).fingerprint() == (
        worlds[1].game(view, seed=3).fingerprint()
    )


def _odds(view: PlayerView, seed: int) -> dict[int, list[float]]:
    """Odds for every other seat from ``seed`` alone (nothing the view hides)."""
    rng = random.Random(seed)
    return {
        s: [rng.choice((0.1, 0.5, 1.0, 4.0)) for _ in range(NUM_CARDS)]
        for s in range(view.n)
        if s != view.seat
    }


@settings(max_examples=30, deadline=None)
@given(rule_sets(), st.integers(2, 6), st.integers(0, 2**32))
def test_worlds_never_read_the_hidden_cards(rules: RuleSet, players: int, seed: int) -> None:
    # Permute the cards this seat cannot see (other hands' unknown cards and the stock): the
    # view is the same, so the sampled worlds must be too, card for card.
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = _random_position(rules, players, seed)
    if game.phase >= Phase.ROUND_OVER or game.phase is Phase.SLAP:
        return
    seat = ((game.to_move or 0) + 1) % players  # a seat not to move: most is hidden
    view = game.view(seat)
    _, other = hidden_permuted(game, seat, seed)
    other_view = other.view(seat)
    if other.hands == game.hands and other.stock == game.stock:
        return  # the permutation changed nothing
    assert _public(other_view) == _public(view)
    a = sample_worlds(view, 8, seed=seed)
    b = sample_worlds(other_view, 8, seed=seed)
    assert a == b
    odds = _odds(view, seed)
    assert sample_worlds(view, 8, seed=seed, odds=odds) == sample_worlds(
        other_view, 8, seed=seed, odds=odds
    )


def _public(view: PlayerView) -> tuple[object, ...]:
    return (
        view.hand,
        view.hand_sizes,
        view.pile,
        view.known,
        view.stock_size,
        view.scores,
        view.phase,
        view.to_move,
        view.legal_moves,
    )


def test_worlds_are_uniform_over_the_unseen_cards() -> None:
    game = Game.new(RuleSet(), 2, seed=3)
    view = game.view(1)
    counts: dict[int, int] = {}
    n = 4000
    for world in sample_worlds(view, n, seed=5):
        for c in world.hands[0]:
            counts[c] = counts.get(c, 0) + 1
    unseen = view.unseen()
    expected = n * hidden_counts(view)[0] / len(unseen)  # 4000 * 5 / 43: about 465
    assert set(counts) == set(unseen)
    assert all(abs(k - expected) < 5 * expected**0.5 for k in counts.values())


def test_weights_and_refusals() -> None:
    game = Game.new(RuleSet(), 3, seed=8)
    view = game.view(0)
    low = sample_worlds(view, 50, seed=2, weigh=lambda v, s, cards: 2.0 ** -len(cards))
    assert all(w.weight == 2.0**-10 for w in low)  # two opponents of five unknown cards
    with pytest.raises(SearchError, match="expected a number >= 0"):
        sample_worlds(view, 1, seed=2, weigh=lambda v, s, cards: float("nan"))
    with pytest.raises(SearchError, match="expected a whole number 0 to"):
        sample_worlds(view, -1)
    game.play(game.legal_moves()[0])
    game.play("draw stock")
    assert len(determinized(game.view(2), 3, seed=1)) == 3
    over = Game.from_position(RuleSet(), [["AC"], ["KD"]], ["2C"], [["3C"]], 0)
    over.play("yaniv")
    with pytest.raises(SearchError, match="the round is over"):
        sample_worlds(over.view(0), 1)


def test_odds_draw_each_hand_in_proportion_to_the_product_of_its_odds() -> None:
    # Three hidden cards among seven unseen: 35 possible hands, each expected in proportion
    # to the product of its cards' odds; a card of odds 0 never.
    hands, stock = [["AC", "2C"], ["3D", "4D", "5D"]], ["6H", "7H", "8H", "9H"]
    dealt = {parse_card(c) for c in [*hands[0], *hands[1], *stock]}
    pile = [[c] for c in deck(2) if c not in dealt]  # the rest of the deck, laid one by one
    game = Game.from_position(RuleSet(), hands, stock, pile, 0)
    view = game.view(0)
    unseen = view.unseen()
    assert len(unseen) == 7
    odds = [0.0] * NUM_CARDS
    for card, o in zip(unseen, (0.2, 1.0, 3.0, 0.5, 2.0, 0.0, 4.0), strict=True):
        odds[card] = o
    n = 20_000
    counts = Counter(frozenset(w.hands[1]) for w in sample_worlds(view, n, seed=7, odds={1: odds}))
    exact = {frozenset(h): math.prod(odds[c] for c in h) for h in combinations(unseen, 3)}
    total = sum(exact.values())
    assert set(counts) == {h for h, p in exact.items() if p > 0}
    chi2 = sum((counts[h] - n * p / total) ** 2 / (n * p / total) for h, p in exact.items() if p)
    assert chi2 < 65.0  # 19 degrees of freedom: p < 0.0001 by chance


@pytest.mark.skipif(compiled.AVAILABLE is None, reason="the core is not built")
def test_the_compiled_draw_by_odds_is_the_python_one() -> None:
    # The same hands moved to the front and the same draws of the generator (its state after),
    # over random slices, hand sizes and odds (zeros, tiny and huge ones included).
    rng = random.Random(21)
    for _ in range(3000):
        cards = rng.sample(range(NUM_CARDS), rng.randint(0, NUM_CARDS))
        start = rng.randint(0, len(cards))
        k = rng.randint(0, len(cards) - start)
        scale = rng.choice([1.0, 1e-6, 1e6])
        odds = [rng.choice([0.0, rng.random() * scale, 1.0]) for _ in range(NUM_CARDS)]
        seed = rng.getrandbits(32)
        out = []
        for core in (True, False):
            mine, draws = cards[:], random.Random(seed)
            try:
                _skewed_to_front(mine, start, k, odds, draws, compiled=core)
                out.append((mine, draws.getstate()))
            except SearchError as e:
                out.append((str(e), draws.getstate()))
        assert out[0] == out[1]
    with pytest.raises(SearchError, match="fewer than 3 possible cards"):
        _skewed_to_front([1, 2], 0, 3, [1.0] * NUM_CARDS, random.Random(1), compiled=True)
    core = compiled.AVAILABLE
    assert core.skewed_front([1, 2], 0, 1, [1] * NUM_CARDS, random.random) is None  # int odds


def test_odds_that_are_not_a_belief_are_refused() -> None:
    view = Game.new(RuleSet(), 3, seed=8).view(0)
    good = [1.0] * NUM_CARDS
    bad: list[tuple[object, str]] = [
        ([], "expected a mapping"),
        ({5: good}, "expected a seat 0 to 2"),
        ({1: good[:10]}, f"expected {NUM_CARDS} numbers"),
        ({1: [-1.0] * NUM_CARDS}, "expected a number >= 0"),
        ({1: [float("inf")] * NUM_CARDS}, "expected finite numbers"),
        ({1: [0.0] * NUM_CARDS}, "fewer than 5 possible cards"),
    ]
    for odds, words in bad:
        with pytest.raises(SearchError, match=words):
            sample_worlds(view, 2, seed=1, odds=odds)  # type: ignore[arg-type]


def test_the_same_seed_gives_the_same_worlds() -> None:
    view = Game.new(RuleSet(), 4, seed=1).view(2)
    assert sample_worlds(view, 5, seed=3) == sample_worlds(view, 5, seed=3)
    assert sample_worlds(view, 5, seed=3) != sample_worlds(view, 5, seed=4)
