"""The learned belief about hidden cards: read from the view only, over every rule set and
player count, computed as trained, and better than a uniform guess."""

from __future__ import annotations

import json
import math
import random
from array import array
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rule_sets
from test_bots import _twin, _with_events
from test_inference import _played

from yaniv import Game
from yaniv.bots import belief, get_bot
from yaniv.bots.belief import (
    BeliefError,
    BeliefNet,
    call_chance,
    chances,
    features,
    hand_odds,
)
from yaniv.bots.master_bot import MasterBot
from yaniv.cards import NUM_CARDS, deck, parse_card
from yaniv.game import Phase
from yaniv.rules import RuleSet
from yaniv.search import sample_worlds
from yaniv.view import PlayerView


def test_the_belief_never_reads_the_hidden_cards() -> None:
    checked = 0
    for seed in range(6):
        game = _played(RuleSet(), 3, seed, 7)
        if game is None:
            continue
        me = game.to_move
        assert me is not None
        other = _twin(game, seed)
        view = game.view(me)
        twin = _with_events(other.view(me), view)
        assert [game.hand(s) for s in range(3)] != [other.hand(s) for s in range(3)]
        for s in range(3):
            if s != me:
                assert features(view, s) == features(twin, s)
        assert hand_odds(view) == hand_odds(twin)
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        assert call_chance(view, rng_a, 50) == call_chance(twin, rng_b, 50)
        checked += 1
    assert checked >= 3


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=st.integers(2, 8), seed=st.integers(0, 10_000))
def test_every_rule_set_gives_a_belief_on_the_unseen_cards(
    rules: RuleSet, players: int, seed: int
) -> None:
    game = _played(rules, players, seed, 2 * players)
    if game is None:
        return
    me = game.to_move
    assert me is not None
    view = game.view(me)
    odds = hand_odds(view)
    hiding = {s for s in view.active_seats() if s != me and view.hand_sizes[s] > len(view.known[s])}
    assert set(odds) == hiding
    unseen = set(view.unseen())
    for row in odds.values():
        assert len(row) == NUM_CARDS
        assert all(math.isfinite(o) and (o > 0) == (c in unseen) for c, o in enumerate(row))
    for world in sample_worlds(view, 4, seed=seed, odds=odds):
        assert [len(h) for h in world.hands] == list(view.hand_sizes)


def _numpy_logits(net_file: Path, hidden: int, x: np.ndarray) -> np.ndarray:
    """The network as PyTorch computes it, from the same weight file."""
    flat = np.fromfile(net_file, dtype="<f4").astype(np.float64)
    h = x
    at = 0
    for n_in, n_out, relu in (
        (belief.INPUTS, hidden, True),
        (hidden, hidden, True),
        (hidden, NUM_CARDS, False),
    ):
        w = flat[at : at + n_in * n_out].reshape(n_out, n_in)
        at += n_in * n_out
        b = flat[at : at + n_out]
        at += n_out
        h = w @ h + b
        if relu:
            h = np.maximum(h, 0.0)
    return h


def test_the_plain_python_network_computes_what_was_trained() -> None:
    hidden = json.loads(belief.META.read_text())["hidden"]
    for seed in range(3):
        game = _played(RuleSet.preset("hebrew"), 2, seed, 5)
        if game is None:
            continue
        me = game.to_move
        assert me is not None
        view = game.view(me)
        active, scalars = features(view, 1 - me)
        x = np.zeros(belief.INPUTS)
        x[active] = 1.0
        x[belief.PLANES * NUM_CARDS :] = scalars
        want = _numpy_logits(belief.WEIGHTS, hidden, x)
        got = belief.shipped().logits(active, scalars)
        assert np.allclose(got, want, atol=1e-4)


def test_the_shipped_belief_beats_a_uniform_guess_on_the_experts_games() -> None:
    # Held-out games (seeds the training did not use): the Brier score of the hidden cards,
    # the network's against every unseen card equally likely; and the chances add up to
    # about the count of hidden cards.
    net_score = uniform_score = count_error = 0.0
    n = 0
    for seed in range(3):
        game = Game.new(RuleSet(), players=2, seed=7_000_000 + seed)
        bots = [get_bot("expert", seed=seed * 2 + s) for s in range(2)]
        while not game.is_over and n < 400:
            if game.phase >= Phase.ROUND_OVER:
                game.next_round()
                continue
            me = game.to_move
            assert me is not None
            view = game.view(me)
            other = 1 - me
            hidden = set(game.hand(other)) - set(view.known[other])
            if game.phase == Phase.START and hidden:
                unseen = view.unseen()
                p = chances(view, other)
                net_score += sum((p[c] - (c in hidden)) ** 2 for c in unseen)
                q = len(hidden) / len(unseen)
                uniform_score += sum((q - (c in hidden)) ** 2 for c in unseen)
                count_error += sum(p[c] for c in unseen) - len(hidden)
                n += 1
            game.apply(bots[me].choose(view))
    assert n >= 300
    assert net_score / n < uniform_score / n - 0.05
    assert abs(count_error / n) < 0.3


def test_weights_that_do_not_fit_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(BeliefError, match="numbers, .* expected"):
        BeliefNet(8, [0.0] * 10)
    meta = tmp_path / "belief.json"
    weights = tmp_path / "belief.f32"
    weights.write_bytes(array("f", [0.0] * 10).tobytes())
    meta.write_text(json.dumps({"encoding": belief.ENCODING + 1, "hidden": 8}))
    monkeypatch.setattr(belief, "META", meta)
    monkeypatch.setattr(belief, "WEIGHTS", weights)
    belief.shipped.cache_clear()
    belief._meta.cache_clear()
    try:
        with pytest.raises(BeliefError, match="encoding"):
            belief.shipped()
        meta.unlink()
        belief._meta.cache_clear()
        with pytest.raises(BeliefError, match="cannot read the belief network"):
            belief.shipped()
    finally:
        belief.shipped.cache_clear()
        belief._meta.cache_clear()


def test_a_trained_network_elsewhere_loads_as_written(tmp_path: Path) -> None:
    # What scripts/train_belief.py --out writes (weights and metadata side by side) loads to
    # the same network; a metadata file that is not an object, or lacks the hidden size, is
    # refused in words.
    weights = tmp_path / "other.f32"
    weights.write_bytes(belief.WEIGHTS.read_bytes())
    (tmp_path / "other.json").write_text(belief.META.read_text())
    game = _played(RuleSet.preset("standard"), 3, 2, 6)
    assert game is not None and game.to_move is not None
    view = game.view(game.to_move)
    seat = next(s for s in view.active_seats() if s != view.seat)
    active, scalars = features(view, seat)
    assert belief.load(weights).logits(active, scalars) == belief.shipped().logits(active, scalars)
    for meta, words in (([1, 2], "holds no JSON object"), ({"encoding": 1}, "hidden size")):
        (tmp_path / "other.json").write_text(json.dumps(meta))
        with pytest.raises(BeliefError, match=words):
            belief.load(weights)


def test_a_calls_chance_is_the_worlds_share_calibrated() -> None:
    view = _position(["7C"], ["KD", "2S"])
    raw = call_chance(view, random.Random(5), calibrated=False)
    a, b = belief.call_calibration()
    assert a > 0
    expected = 1 / (1 + math.exp(-(a * belief.logit(raw) + b)))
    assert call_chance(view, random.Random(5)) == pytest.approx(expected)
    # The shipped fit moves the middle up (the raw share is under-confident there)...
    middle = 1 / (1 + math.exp(-(a * belief.logit(0.55) + b)))
    assert 0.57 < middle < 0.75
    # ...and keeps the order of any two shares.
    shares = [i / 20 for i in range(21)]
    mapped = [a * belief.logit(p) + b for p in shares]
    assert mapped == sorted(mapped)


def test_a_missing_or_bad_call_calibration_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    meta = tmp_path / "belief.json"
    monkeypatch.setattr(belief, "META", meta)
    for fitted, words in (
        (None, "no usable call_calibration"),
        ({"a": "x", "b": 0}, "no usable call_calibration"),
        ({"a": -1.0, "b": 0.0}, "expected finite, a > 0"),
        ({"a": float("nan"), "b": 0.0}, "expected finite, a > 0"),
    ):
        content = {"encoding": belief.ENCODING, "hidden": 8}
        if fitted is not None:
            content["call_calibration"] = fitted
        meta.write_text(json.dumps(content))
        belief._meta.cache_clear()
        belief.call_calibration.cache_clear()
        try:
            with pytest.raises(BeliefError, match=words):
                belief.call_calibration()
        finally:
            belief._meta.cache_clear()
            belief.call_calibration.cache_clear()


def _position(mine: list[str], theirs: list[str]) -> PlayerView:
    """Seat 0's view: its hand, the other's hand (hidden), a stock of 10, the rest laid."""
    dealt = {parse_card(c) for c in [*mine, *theirs]}
    rest = [c for c in deck(2) if c not in dealt]
    stock, pile = rest[:10], [[c] for c in rest[10:]]
    return Game.from_position(RuleSet(), [mine, theirs], stock, pile, 0).view(0)


def test_a_calls_chance_follows_the_hands_it_is_compared_with() -> None:
    rng = random.Random(3)
    # Five cards are worth at least 3 (two jokers and three aces): an ace's call cannot fail.
    sure = _position(["AC"], ["2D", "3D", "4D", "5D", "6D"])
    assert call_chance(sure, rng, 100, calibrated=False) == 1.0
    assert call_chance(sure, rng, 100) > 0.99
    # Against one hidden card a 7 may meet a lower one: neither sure nor hopeless.
    assert 0.0 < call_chance(_position(["7C"], ["KD"]), rng, 100) < 1.0
    # Above the threshold a call is a deliberate Assaf.
    assert call_chance(_position(["9C"], ["KD", "QD"]), rng, 100) == 0.0
    with pytest.raises(ValueError, match="call_odds 'oracle'"):
        MasterBot(call_odds="oracle")
