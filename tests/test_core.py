"""The compiled core (yaniv/_core.c) against the pure-Python engine, side by side in one process.

Both paths must give the same games: the same legal moves in the same order (the very same
move objects), the same results, the same records byte for byte and the same views, over
random rule sets and 2 to 8 players. Skipped where the core is not built (no C compiler).
"""

from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from yaniv import Game, Phase, RuleSet, compiled, record
from yaniv import discards as D
from yaniv.cards import cards_of_pure, parse_card
from yaniv.moves import DRAW_STOCK, YANIV, Discard, Draw, Move
from yaniv.rules import CHOICES

# Skipped where the core is not built (no C compiler or no Python headers), except under CI,
# where the machine has both: there a missing core fails (test_the_core_is_built).
pytestmark = pytest.mark.skipif(
    compiled.AVAILABLE is None and not os.environ.get("CI"), reason="the core is not built"
)


def test_the_core_is_built() -> None:
    assert compiled.AVAILABLE is not None, (
        "yaniv._core did not build: install a C compiler and Python's headers (python3-dev), "
        "then pip install -e . again"
    )


def random_rules(rng: random.Random) -> RuleSet:
    """A rule set with every option drawn at random (within what a deck deals)."""
    bonus = rng.choice(CHOICES["bonus"])
    step = rng.choice([25, 50])
    return RuleSet(
        jokers=rng.randint(0, 2),
        hand_size=rng.randint(1, 7),
        next_starter=rng.choice(CHOICES["next_starter"]),
        draw_first=rng.random() < 0.3,
        jokers_in_sets=rng.random() < 0.5,
        joker_in_run=rng.choice(CHOICES["joker_in_run"]),
        pickup=rng.choice(CHOICES["pickup"]),
        yaniv_threshold=rng.choice([0, 3, 5, 7, 10]),
        assaf_penalty=rng.choice([0, 30]),
        assaf_scoring=rng.choice(CHOICES["assaf_scoring"]),
        yaniv_above_threshold=rng.random() < 0.2,
        bonus=bonus,
        bonus_step=step,
        bonus_amount=rng.choice([step, step // 5]),
        end_mode=rng.choice(CHOICES["end_mode"]),
        score_limit=rng.choice([30, 60, 100]),
        slapdown=rng.choice(CHOICES["slapdown"]),
        joker_pair=rng.random() < 0.5,
        run_naturals=rng.randint(1, 2),
        max_set=rng.choice([0, 2, 3, 4]),
        assaf_ties=rng.choice(CHOICES["assaf_ties"]),
        slap_empty_hand=rng.choice(CHOICES["slap_empty_hand"]),
    )


def fits(rules: RuleSet, players: int) -> bool:
    return players * rules.hand_size + 1 <= 52 + rules.jokers


def play_both(rules: RuleSet, players: int, seed: int, moves: int = 1500) -> tuple[Game, Game]:
    """The same seeded game on both paths, the same random legal moves, compared at each step."""
    pure = Game.new(rules, players, seed, compiled=False)
    fast = Game.new(rules, players, seed, compiled=True)
    assert not pure._fast and fast._fast
    rng = random.Random(seed)
    for step in range(moves):
        if pure.is_over:
            break
        if pure.phase is Phase.ROUND_OVER:
            pure.next_round()
            fast.next_round()
            continue
        expected, got = pure.legal_moves(), fast.legal_moves()
        assert type(got) is type(expected)
        assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected, strict=True))
        move = expected[rng.randrange(len(expected))]
        if YANIV in expected and rng.random() < 0.5:
            move = YANIV
        assert fast.apply(move) == pure.apply(move)
        if step % 5 == 0:
            seat = rng.randrange(players)
            assert fast.view(seat) == pure.view(seat)
            assert fast.fingerprint() == pure.fingerprint()
    assert fast.fingerprint() == pure.fingerprint()
    assert record.dumps(fast) == record.dumps(pure)
    return pure, fast


def test_whole_games_are_the_same_over_random_rules_and_2_to_8_players() -> None:
    rng = random.Random(20)
    played = 0
    while played < 120:
        rules = random_rules(rng)
        players = rng.randint(2, 8)
        if not fits(rules, players):
            continue
        play_both(rules, players, seed=rng.getrandbits(32))
        played += 1


@settings(max_examples=40, deadline=None)
@given(rules=rule_sets(), players=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_games_are_the_same_for_hypothesis_rule_sets(
    rules: RuleSet, players: int, seed: int
) -> None:
    if fits(rules, players):
        play_both(rules, players, seed, moves=400)


def test_draw_first_moves_are_listed_and_made_by_the_core_not_handed_to_game_py() -> None:
    def pure_calls(compiled: bool) -> int:
        """Calls of game.py's ``_apply`` and ``_legal_moves`` in 200 random draw-first moves
        (no Yaniv calls)."""
        g = Game.new(RuleSet.preset("draw_first"), 3, seed=4, compiled=compiled)
        rng = random.Random(4)
        seen: list[object] = []
        pure = (Game._apply.__code__, Game._legal_moves.__code__)

        def watch(frame: Any, event: str, arg: object) -> None:
            if event == "call" and frame.f_code in pure:
                seen.append(frame)

        sys.setprofile(watch)
        try:
            for _ in range(200):
                legal = [m for m in g.legal_moves() if m != YANIV]
                g.apply(legal[rng.randrange(len(legal))])
        finally:
            sys.setprofile(None)
        return len(seen)

    assert pure_calls(compiled=False) == 400  # the watch sees game.py's listings and moves
    assert pure_calls(compiled=True) == 0


def test_a_record_replays_to_the_same_game_on_either_path() -> None:
    pure, fast = play_both(RuleSet.preset("standard"), 4, seed=7, moves=5000)
    assert pure.is_over
    replayed = record.replay(record.to_record(fast))
    assert record.dumps(replayed) == record.dumps(pure)


def test_the_listers_give_the_same_discard_objects_for_random_hands() -> None:
    rng = random.Random(3)
    for _ in range(150):
        rules = random_rules(rng)
        pure = D.discards_of(rules, compiled=False)
        fast = D.discards_of(rules, compiled=True)
        assert pure is not fast
        for _ in range(200):
            hand = sum(1 << c for c in rng.sample(range(54), rng.randint(0, 12)))
            expected, got = pure(hand), fast(hand)
            assert type(got) is type(expected)
            assert all(a is b for a, b in zip(got, expected, strict=True))
            assert len(got) == len(expected)


def outcome(call: Callable[[], object]) -> object:
    """What a call gives, or the type and text of what it raises."""
    try:
        return call()
    except Exception as exc:  # the outcomes compared include the errors
        return (type(exc), str(exc))


@pytest.mark.parametrize("hand", [-1, 1 << 54, 2**80, True, 1.5])
def test_what_is_not_a_hand_is_answered_by_the_pure_lister(hand: Any) -> None:
    rules = RuleSet()
    fast = D.discards_of(rules, compiled=True)
    pure = D.discards_of(rules, compiled=False)
    if hand == -1:  # the pure lister never ends on a negative hand: the table holds one
        D._TABLES[D.variant(rules)][-1] = D.move_list([], rules)
    assert outcome(lambda: fast(hand)) == outcome(lambda: pure(hand))


def test_odd_games_go_to_the_pure_methods_unchanged() -> None:
    """A game laid out otherwise than game.py lays it out is played by the pure methods."""

    class Other(Game):
        __slots__ = ()

    for clone in (False, True):
        pure = Game.new(RuleSet(), 3, 11, compiled=False)
        fast = Game.new(RuleSet(), 3, 11, compiled=True)
        if clone:
            fast = fast.clone()
        odd = Game.new(RuleSet(), 3, 11, compiled=True)
        odd.__class__ = Other  # a subclass may override what the core inlines
        for _ in range(30):
            move: Move = pure.legal_moves()[-1]
            for game in (fast, odd):
                assert list(game.legal_moves()) == list(pure.legal_moves())
                game.apply(move)
            pure.apply(move)
            if pure.phase is not Phase.START and pure.phase is not Phase.DRAW:
                break
        assert fast.fingerprint() == pure.fingerprint() == odd.fingerprint()


def test_unchecked_misuse_fails_alike() -> None:
    """``apply`` does not check a move: a card not in the previous discard fails alike."""
    games = [
        Game.from_position(
            RuleSet(),
            hands=[["KS", "QS"], ["2C", "9D"]],
            stock=["AC", "AD"],
            discards=[["3H", "4H", "5H"], ["7C"]],
            to_move=0,
            phase="draw",
            seed=1,
            compiled=path,
        )
        for path in (False, True)
    ]
    errors = []
    for game in games:
        with pytest.raises(ValueError) as caught:
            game.apply(Draw(53))
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert games[0].fingerprint() == games[1].fingerprint()
    for game in games:
        game.apply(Draw(parse_card("5H")))
    assert games[0].fingerprint() == games[1].fingerprint()


def test_a_discard_of_an_other_kind_is_played_by_the_pure_method() -> None:
    class Laid(Discard):
        __slots__ = ()

    pure = Game.new(RuleSet(), 2, 9, compiled=False)
    fast = Game.new(RuleSet(), 2, 9, compiled=True)
    first: Discard = pure.legal_moves()[0]  # type: ignore[assignment]
    for game in (pure, fast):
        game.apply(Laid(first.cards))
        game.apply(DRAW_STOCK)
    assert fast.fingerprint() == pure.fingerprint()


@pytest.mark.parametrize(("value", "enabled"), [("1", False), ("0", True), ("", True)])
def test_yaniv_pure_forces_the_pure_path(value: str, enabled: bool) -> None:
    code = "from yaniv import Game, compiled; print(compiled.ENABLED, not Game.new()._fast)"
    env = {**os.environ, "YANIV_PURE": value}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == [str(enabled), str(not enabled)]


def test_a_build_of_other_sources_is_not_used() -> None:
    code = (
        "import sys, types; stale = types.ModuleType('yaniv._core'); stale.ABI = 0; "
        "sys.modules['yaniv._core'] = stale; "
        "from yaniv import Game, compiled; print(compiled.AVAILABLE, Game.new()._fast)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "False"]
    assert "built from other sources" in out.stderr


def test_the_compiled_methods_stand_for_the_python_ones() -> None:
    """Game.apply and Game.legal_moves are the core's methods: the same docs and arguments."""
    assert "without checking it" in (Game.apply.__doc__ or "")
    assert "one per distinct outcome" in (Game.legal_moves.__doc__ or "")
    for path in (False, True):
        game = Game.new(RuleSet(), 2, 3, compiled=path)
        first = game.legal_moves()[0]
        game.apply(move=first)
        with pytest.raises(TypeError):
            game.apply()  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            game.apply(first, first)  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            game.legal_moves(1)  # type: ignore[call-arg]
        blank = Game.__new__(Game)
        with pytest.raises(AttributeError):
            blank.apply(first)


def test_the_choice_of_path() -> None:
    assert compiled.choose(False) is None
    assert compiled.choose(True) is compiled.AVAILABLE
    game = Game.new(RuleSet(), 2, 1)
    assert game._fast == compiled.ENABLED
    assert game.clone()._fast == game._fast
    assert copy.deepcopy(game).fingerprint() == game.fingerprint()


def test_the_action_tables_compose_the_same_actions() -> None:
    np = pytest.importorskip("numpy")
    del np
    from yaniv.envs.actions import ActionTable

    rng = random.Random(8)
    for _ in range(40):
        rules = random_rules(rng)
        table = ActionTable(rules)
        for _ in range(100):  # a hand holds hand_size + 1 cards at most (R21)
            size = rng.randint(0, rules.hand_size + 1)
            hand = sum(1 << c for c in rng.sample(range(52 + rules.jokers), size))
            assert table._discards(hand) == table._discards_pure(hand)


def test_the_card_planes_are_written_alike() -> None:
    np = pytest.importorskip("numpy")
    from yaniv.envs.observation import Observer

    rng = random.Random(9)
    for players in range(2, 9):
        observer = Observer(RuleSet(), players)
        for _ in range(50):
            bits = rng.getrandbits(observer._planes) & rng.getrandbits(observer._planes)
            fast, pure = observer.new(), observer.new()
            fast[:] = pure[:] = rng.random()  # whatever was there before
            observer._write_bits(bits, fast)
            observer._write_bits_pure(bits, pure)
            assert np.array_equal(fast, pure)
    # An array the core does not write (not contiguous) is written by numpy, alike.
    observer = Observer(RuleSet(), 2)
    wide = np.zeros(2 * observer.size, dtype=np.float32)
    observer._write_bits(12345, wide[::2])
    expected = observer.new() * 0
    observer._write_bits_pure(12345, expected)
    assert np.array_equal(wide[::2][: observer._planes], expected[: observer._planes])


def test_the_compiled_shuffle_orders_as_random_shuffle() -> None:
    from yaniv import game as game_module

    core = compiled.AVAILABLE
    assert core is not None
    for seed in range(3000):
        text = f"yaniv:{seed}:{seed % 7}:{seed % 3}"
        mine, theirs = list(range(seed % 60)), list(range(seed % 60))
        core.shuffle(random.Random(text).getrandbits, mine)
        random.Random(text).shuffle(theirs)
        assert mine == theirs
    assert game_module._core_shuffle is core.shuffle  # this Python's shuffle is the one mirrored


def test_the_compiled_classify_reads_groups_as_discards_classify() -> None:
    core = compiled.AVAILABLE
    assert core is not None
    rng = random.Random(12)
    for _ in range(200):
        rules = random_rules(rng)
        for _ in range(100):
            size = rng.randint(2, 6)
            if rng.random() < 0.5:  # near a run or a set: a suit's or a rank's cards, jokers
                suit, low = rng.randrange(4), rng.randint(1, 13)
                pool = [suit * 13 + r - 1 for r in range(low, min(low + size, 13) + 1)]
                pool += [r % 13 + 13 * s for s in range(4) for r in [low - 1]] + [52, 53]
                cards = tuple(rng.sample(pool, min(size, len(pool))))
                if rng.random() < 0.5:
                    cards = tuple(sorted(cards))
            else:
                cards = tuple(rng.sample(range(54), size))
            assert core.classify(cards, rules) == D.classify(cards, rules), (cards, rules)


@pytest.mark.parametrize("mask", [0, 1, (1 << 54) - 1, 1 << 63, (1 << 64) + 5, 2**70 + 3, True])
def test_the_compiled_cards_of_lists_the_bits_as_the_pure_one(mask: int) -> None:
    core = compiled.AVAILABLE
    assert core is not None
    assert core.cards_of(mask) == cards_of_pure(mask)
    rng = random.Random(mask)
    for _ in range(500):
        bits = rng.getrandbits(54) & rng.getrandbits(54)
        assert core.cards_of(bits) == cards_of_pure(bits)


def test_the_card_planes_of_a_game_are_read_alike() -> None:
    pytest.importorskip("numpy")
    from yaniv.envs.observation import Observer

    rng = random.Random(14)
    for _ in range(30):
        rules = random_rules(rng)
        players = rng.randint(2, 8)
        if not fits(rules, players):
            continue
        observer = Observer(rules, players)
        game = Game.new(rules, players, rng.getrandbits(32))
        for _ in range(300):
            if game.is_over:
                break
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            for seat in range(players):
                assert observer._card_bits(game, seat) == observer._card_bits_pure(game, seat)
            legal = game.legal_moves()
            game.apply(legal[rng.randrange(len(legal))])


def _env_parts(rules: RuleSet, players: int, path: bool) -> tuple[Any, Any, list[Any], list[Any]]:
    """An observer, an action table, and per seat an observation buffer and a mask buffer, all
    on one path."""
    from yaniv.envs.actions import ActionTable, MaskBuffer
    from yaniv.envs.observation import Observer

    observer = Observer(rules, players, compiled=path)
    table = ActionTable(rules, compiled=path)
    buffers = [observer.buffer(s) for s in range(players)]
    masks = [MaskBuffer(table.size, compiled=path) for _ in range(players)]
    return observer, table, buffers, masks


def test_observations_and_masks_are_written_alike_over_random_rules() -> None:
    """The compiled writer, legal actions and mask writing against the pure ones, for every
    seat of every position, over random rule sets (every option) and 2 to 8 players; the
    buffers are kept from step to step (the compiled and the pure updates interleave where a
    seat sees another's slap window, read from its view)."""
    np = pytest.importorskip("numpy")
    rng = random.Random(21)
    played = slap_windows = 0
    while played < 40:
        rules = random_rules(rng)
        players = rng.randint(2, 8)
        if not fits(rules, players):
            continue
        played += 1
        fast_obs, fast_table, fast_buffers, fast_masks = _env_parts(rules, players, True)
        pure_obs, pure_table, pure_buffers, pure_masks = _env_parts(rules, players, False)
        assert fast_obs._writer is not None and pure_obs._writer is None
        game = Game.new(rules, players, rng.getrandbits(32))
        for _ in range(250):
            if game.is_over:
                break
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
            slap_windows += game.phase is Phase.SLAP
            legal = pure_table.legal_actions(game)
            assert fast_table.legal_actions(game) == legal
            for seat in range(players):
                expected = pure_obs.write(game, seat)
                assert fast_obs.write(game, seat).tobytes() == expected.tobytes()
                assert fast_buffers[seat].update(game).tobytes() == expected.tobytes()
                assert pure_buffers[seat].update(game).tobytes() == expected.tobytes()
                on = legal if game.to_move == seat else []
                assert np.array_equal(fast_masks[seat].update(on), pure_masks[seat].update(on))
            game.apply(pure_table.moves[legal[rng.randrange(len(legal))]])
    assert slap_windows > 20  # the veiled positions were met


def test_the_compiled_env_writers_leave_odd_inputs_to_python() -> None:
    """What the compiled writers do not read (another layout, a wrong array, bad indices) is
    answered by the pure code: the same arrays, or the same errors in words."""
    np = pytest.importorskip("numpy")
    from yaniv.envs.actions import MaskBuffer

    rules = RuleSet.preset("slapdown")
    fast_obs, fast_table, _, _ = _env_parts(rules, 3, True)
    pure_obs, pure_table, _, _ = _env_parts(rules, 3, False)

    class Other(Game):
        __slots__ = ()

    game = Game.new(rules, 3, 5)
    odd = game.clone()
    odd.__class__ = Other
    assert fast_obs._writer(odd, 0, fast_obs.new()) is False
    assert fast_obs.write(odd, 0).tobytes() == pure_obs.write(game, 0).tobytes()
    assert fast_table._fast(odd) is None
    assert fast_table.legal_actions(odd) == pure_table.legal_actions(game)
    wrong = np.zeros(fast_obs.size, dtype=np.float64)  # not float32: numpy writes it
    assert fast_obs._writer(game, 0, wrong) is False
    assert np.array_equal(fast_obs.write(game, 0, wrong), pure_obs.write(game, 0, 0 * wrong))
    short = np.zeros(10, dtype=np.float32)
    assert outcome(lambda: fast_obs.write(game, 0, short)) == outcome(
        lambda: pure_obs.write(game, 0, short)
    )
    assert outcome(lambda: fast_obs.write(game, 7)) == outcome(lambda: pure_obs.write(game, 7))
    fast_mask, pure_mask = MaskBuffer(10, compiled=True), MaskBuffer(10, compiled=False)
    for legal in ([1, 2], [2, 3], [10], [-1]):
        assert outcome(lambda: fast_mask.update(legal).tolist()) == outcome(  # noqa: B023
            lambda: pure_mask.update(legal).tolist()  # noqa: B023
        )


def test_the_compiled_score_round_scores_as_scoring_py() -> None:
    """Random showdowns (callers under and over the threshold, ties, seats out, scores near
    the limit and the bonus targets) under random rule sets: the same RoundScore."""
    from yaniv.scoring import score_round

    core = compiled.AVAILABLE
    assert core is not None
    rng = random.Random(22)
    kinds: set[str] = set()
    for _ in range(3000):
        rules = random_rules(rng)
        if rng.random() < 0.3:
            rules = RuleSet.from_dict({**rules.to_dict(), "bonus_targets": [40, 80, 100]})
        n = rng.randint(2, 8)
        out = [False] * n
        for s in rng.sample(range(n), rng.randint(0, n - 2)):
            out[s] = True
        caller = rng.choice([s for s in range(n) if not out[s]])
        values = [0 if out[s] else rng.choice([0, 1, 3, 5, 7, 9, 12, 30]) for s in range(n)]
        limit = rules.score_limit
        scores = [rng.choice([0, 10, limit - 5, limit, limit - 50, 40, 75, 95]) for _ in range(n)]
        scores = [max(v, 0) for v in scores]
        args = (rules, scores, out, values, caller)
        expected = score_round(*args)
        got = core.score_round(*args)
        assert type(got) is type(expected) and got == expected, args
        assert hash(got) == hash(expected)
        kinds.add(expected.kind.value)
    assert kinds == {"yaniv", "assaf", "deliberate"}
    # What it does not read as expected (tuples here, not lists) is the pure function's answer.
    odd = (RuleSet(), (0, 0), (False, False), (3, 9), 0)
    assert core.score_round(*odd) == score_round(*odd)
    assert outcome(lambda: core.score_round(RuleSet(), [0], [True], [1], 0)) == outcome(
        lambda: score_round(RuleSet(), [0], [True], [1], 0)
    )


def test_the_builders_make_the_objects_the_dataclasses_make() -> None:
    from yaniv import game as game_module
    from yaniv.state import Deal, ResultKind, RoundResult

    values = (
        ResultKind.ASSAF,
        1,
        ((1, 2), (3,)),
        (3, 1),
        (1,),
        (33, 0),
        (0, 0),
        (33, 0),
        (),
        1,
        0,
        (),
    )
    made, expected = game_module._make_result(*values), RoundResult(*values)
    assert type(made) is RoundResult and made == expected and hash(made) == hash(expected)
    assert made.to_dict() == expected.to_dict()
    deal = game_module._make_deal(((1, 2), (3, 4)), 5, (6, 7), 1)
    assert deal == Deal(((1, 2), (3, 4)), 5, (6, 7), 1) and type(deal) is Deal
    with pytest.raises(TypeError):
        game_module._make_deal(1, 2)
    with pytest.raises(TypeError):
        game_module._make_deal(1, 2, 3, starter=4)


def test_the_compiled_seeded_shuffle_orders_as_a_random_random_of_the_text() -> None:
    from hashlib import sha512

    from yaniv import game as game_module

    core = compiled.AVAILABLE
    assert core is not None
    for seed in range(3000):
        text = f"yaniv:{seed * 7919 - 10**6}:{seed % 7}:{seed % 3}"
        mine, theirs = list(range(seed % 60)), list(range(seed % 60))
        raw = text.encode()
        core.seeded_shuffle(int.from_bytes(raw + sha512(raw).digest()), mine)
        random.Random(text).shuffle(theirs)
        assert mine == theirs
    assert game_module._core_seeded_shuffle is core.seeded_shuffle  # checked at import
    with pytest.raises(TypeError):
        core.seeded_shuffle("text", [])


def test_views_made_by_the_builder_serialise_as_the_dataclass_s() -> None:
    """Game.view on the core makes PlayerView without its __init__: the same views, the same
    JSON (the web server sends to_dict's), for every seat and a spectator."""
    import json

    from yaniv.view import PlayerView

    rng = random.Random(23)
    for preset in ("standard", "slapdown", "draw_first"):
        rules = RuleSet.preset(preset)
        pure = Game.new(rules, 3, 5, compiled=False)
        fast = Game.new(rules, 3, 5, compiled=True)
        for _ in range(120):
            if pure.phase >= Phase.ROUND_OVER:
                break
            for seat in (None, 0, 1, 2):
                made, expected = fast.view(seat), pure.view(seat)
                assert type(made) is PlayerView and made == expected
                assert json.dumps(made.to_dict()) == json.dumps(expected.to_dict())
                assert PlayerView.from_dict(made.to_dict()) == made
            move = rng.choice(list(pure.legal_moves()))
            pure.apply(move)
            fast.apply(move)


def test_the_compiled_pickable_cards_are_discards_pickable() -> None:
    core = compiled.AVAILABLE
    assert core is not None
    rng = random.Random(24)
    for _ in range(5000):
        group = tuple(rng.sample(range(54), rng.randint(1, 7)))
        kind = rng.choice([D.SINGLE, D.SET, D.RUN, D.BROKEN])
        pickup = rng.choice(CHOICES["pickup"])
        assert core.pickable(group, kind, pickup) == D.pickable(group, kind, pickup)
    for odd in ((("a", "b", "c"), D.RUN, "any"), ((1, 2), D.RUN, "nope"), ((1, 2), 7, "any")):
        assert outcome(lambda: core.pickable(*odd)) == outcome(  # noqa: B023
            lambda: D.pickable(*odd)  # type: ignore[arg-type]  # noqa: B023
        )
