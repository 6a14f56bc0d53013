"""Play-outs (yaniv/playout.py): the compiled play-out (yaniv/_playout.c) against the pure loop.

The pure loop plays each move through ``Game.apply``, so a compiled play-out that makes the
same moves, ending with the same scores, is a game the engine itself would have played.
"""

from __future__ import annotations

import dataclasses
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import rule_sets
from test_core import fits, random_rules

from yaniv import Game, Phase, RuleSet, compiled
from yaniv.errors import SetupError
from yaniv.game import shuffle_key
from yaniv.moves import YANIV
from yaniv.playout import POLICIES, Playout, SplitMix64, play_out

needs_core = pytest.mark.skipif(
    compiled.AVAILABLE is None and not os.environ.get("CI"), reason="the core is not built"
)


def position(rules: RuleSet, players: int, seed: int, compiled_path: bool | None) -> Game:
    """A seeded game some random moves in (a round may be over, or the game)."""
    game = Game.new(rules, players, seed, compiled=compiled_path)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 120)):
        if game.phase is Phase.GAME_OVER:
            break
        if game.phase is Phase.ROUND_OVER:
            if rng.random() < 0.5:
                break  # a play-out may start from a finished round too
            game.next_round()
            continue
        legal = game.legal_moves()
        game.apply(YANIV if YANIV in legal and rng.random() < 0.3 else rng.choice(legal))
    return game


def both(game: Game, policy: str, seed: int, limit: int) -> tuple[Playout, Playout]:
    fast = play_out(game, policy, seed=seed, max_moves=limit, record=True, compiled=True)  # type: ignore[arg-type]
    pure = play_out(game, policy, seed=seed, max_moves=limit, record=True, compiled=False)  # type: ignore[arg-type]
    return fast, pure


def replayed(game: Game, out: Playout) -> Game:
    """The play-out's record, played through the engine on a copy of the game."""
    g = game.clone()
    assert out.record is not None
    for seat, move in out.record:
        if g.phase is Phase.ROUND_OVER:
            g.next_round()
        assert g.to_move == seat
        g.apply(move)
    return g


@needs_core
def test_compiled_play_outs_make_the_pure_loop_s_moves_over_random_rules_and_2_to_8_players() -> (
    None
):
    rng = random.Random(20)
    played = in_c = 0
    while played < 160:
        rules, players = random_rules(rng), rng.randint(2, 8)
        if not fits(rules, players):
            continue
        played += 1
        if played % 2:  # half of them under rules the core plays (discard first, no slapdown)
            rules = dataclasses.replace(rules, draw_first=False, slapdown="off")
        seed = rng.randrange(2**64)
        game = position(rules, players, played, True)
        before = game.fingerprint()
        for policy in POLICIES:
            fast, pure = both(game, policy, seed, 3000)
            assert fast == pure, (rules, players, policy)
            end = replayed(game, fast)
            assert tuple(end.scores) == fast.scores and tuple(end.out) == fast.out
            assert fast.finished == (end.phase is Phase.GAME_OVER)
            if fast.finished:
                assert fast.winners == tuple(end.winners)
        assert game.fingerprint() == before  # the game itself is left as it was
        in_c += compiled.AVAILABLE is not None and (
            compiled.AVAILABLE.play_out(game, 0, 0, 0, None, game._scorer(), shuffle_key)
            is not None
        )
    assert in_c >= 80  # the half under rules the core plays, and some of the others


@needs_core
@settings(max_examples=40, deadline=None)
@given(rules=rule_sets(), players=st.integers(2, 8), seed=st.integers(0, 2**64 - 1))
def test_play_outs_agree_for_hypothesis_rule_sets(rules: RuleSet, players: int, seed: int) -> None:
    if not fits(rules, players):
        return
    game = Game.new(rules, players, seed % 1000, compiled=True)
    for policy in POLICIES:
        fast, pure = both(game, policy, seed, 1500)
        assert fast == pure


@needs_core
def test_the_core_plays_discard_first_games_and_leaves_the_others_to_the_pure_loop() -> None:
    core = compiled.AVAILABLE
    assert core is not None
    for rules, in_c in [
        (RuleSet(), True),
        (RuleSet.preset("hebrew"), True),
        (RuleSet(draw_first=True), False),
        (RuleSet(slapdown="rank"), False),
    ]:
        game = Game.new(rules, 3, 4, compiled=True)
        got = core.play_out(game, 0, 1, 100, None, game._scorer(), shuffle_key)
        assert (got is not None) == in_c, rules
    pure_game = Game.new(RuleSet(), 3, 4, compiled=False)
    assert play_out(pure_game, seed=1) == play_out(Game.new(RuleSet(), 3, 4), seed=1)


def test_a_draw_first_or_slapdown_game_plays_out_by_the_pure_loop() -> None:
    for rules in (RuleSet(draw_first=True), RuleSet(slapdown="rank")):
        game = Game.new(rules, 4, 9)
        for policy in POLICIES:
            out = play_out(game, policy, seed=3, record=True)  # type: ignore[arg-type]
            assert out.finished and out.winners and out.rounds >= 1
            end = replayed(game, out)
            assert end.phase is Phase.GAME_OVER and tuple(end.winners) == out.winners


def test_the_move_limit_stops_a_play_out_and_counts_its_moves() -> None:
    game = Game.new(RuleSet(), 2, 1)
    out = play_out(game, "random", seed=2, max_moves=7, record=True)
    assert out.moves == 7 and not out.finished and out.winners == ()
    assert out.record is not None and len(out.record) == 7
    assert play_out(game, max_moves=0) == Playout(0, 0, (0, 0), (False, False), (), False)


def test_a_finished_round_is_dealt_on_and_a_finished_game_plays_nothing() -> None:
    game = Game.new(RuleSet(yaniv_threshold=50), 2, 3)
    game.apply(YANIV)
    assert game.phase is Phase.ROUND_OVER
    out = play_out(game, "greedy", seed=0, record=True)
    assert out.record is not None and out.moves == len(out.record) > 0
    assert out.finished and out.rounds >= 1
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        else:
            game.apply(YANIV)
    done = play_out(game, seed=5)
    assert done.moves == 0 and done.finished and done.winners == tuple(game.winners)


def test_the_greedy_policy_calls_yaniv_when_it_may() -> None:
    game = Game.new(RuleSet(yaniv_threshold=50), 3, 8)
    out = play_out(game, "greedy", max_moves=1, record=True)
    assert out.record == ((game.to_move, YANIV),) and out.rounds == 1


def test_splitmix64_gives_its_published_first_draws() -> None:
    # The reference sequence of splitmix64 seeded with 1234567 (Vigna's splitmix64.c).
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]
    assert all(0 <= SplitMix64(s).below(7) < 7 for s in range(200))


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"policy": "smart"}, "no play-out policy 'smart'"),
        ({"seed": -1}, "a play-out seed is an int from 0 to 2**64 - 1"),
        ({"seed": 2**64}, "a play-out seed is an int"),
        ({"seed": "7"}, "a play-out seed is an int"),
        ({"max_moves": -3}, "max_moves is a whole number of moves"),
        ({"max_moves": 2.5}, "max_moves is a whole number of moves"),
    ],
)
def test_bad_arguments_are_refused_in_words(kwargs: dict[str, object], words: str) -> None:
    game = Game.new(RuleSet(), 2, 1)
    before = game.fingerprint()
    with pytest.raises(SetupError, match=words.replace("*", r"\*").replace("(", r"\(")):
        play_out(game, **kwargs)  # type: ignore[arg-type]
    assert game.fingerprint() == before


def test_only_a_game_plays_out() -> None:
    with pytest.raises(SetupError, match="play_out plays a Game, not dict"):
        play_out({}, seed=1)  # type: ignore[arg-type]
