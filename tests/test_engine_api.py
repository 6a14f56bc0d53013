"""The engine's face for servers and learners: membership, seats, events, views, positions,
exact resume, and what no seat may learn."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import rule_sets

from yaniv import Game, IllegalMoveError, Phase, RuleSet, SetupError, YanivError, record
from yaniv.bots import get_bot
from yaniv.cards import NAMES, parse_card, parse_cards
from yaniv.errors import ViewError
from yaniv.events import (
    Dealt,
    Drew,
    Passed,
    Showdown,
    event_from_dict,
    event_to_dict,
)
from yaniv.moves import PASS, YANIV, Discard, Move, Slap, parse_move
from yaniv.view import SPECTATOR, PlayerView

PRESET_NAMES = ["standard", "quick", "hebrew", "draw_first", "slapdown"]


def fit(rules: RuleSet, players: int) -> int:
    """A player count the rules' deck serves."""
    return players if players * rules.hand_size + 1 <= 52 + rules.jokers else 2


def random_move(game: Game, rng: random.Random, call: float = 0.3) -> Move:
    legal = game.legal_moves()
    return YANIV if YANIV in legal and rng.random() < call else rng.choice(legal)


def step(game: Game, rng: random.Random, call: float = 0.3) -> None:
    """One move, or the next deal after a round."""
    if game.phase is Phase.ROUND_OVER:
        game.next_round()
    else:
        game.play(random_move(game, rng, call))


# ----------------------------------------------------------------- membership and seats


def test_a_set_in_any_order_is_in_the_legal_moves() -> None:
    game = Game.from_position(None, [["TS", "TC", "TH", "2D"], ["AH"]], ["4C"], [["9C"]], 0)
    moves = game.legal_moves()
    for text in ("discard TC TS", "discard TS TC", "discard TH TC TS", "discard TS TH TC"):
        move = parse_move(text)
        assert move in moves and game.is_legal(move)
        assert move in game.view(0).legal_moves
    assert parse_move("discard TS 2D") not in moves
    assert parse_move("discard TS TC") not in game.view(1).legal_moves  # not seat 1's turn


def test_a_run_keeps_its_laid_order() -> None:
    game = Game.from_position(None, [["5H", "6H", "RJ", "KC"], ["AH"]], ["4C"], [["9C"]], 0)
    moves = game.legal_moves()
    assert parse_move("discard 5H 6H RJ") in moves and parse_move("discard RJ 5H 6H") in moves
    assert parse_move("discard 6H 5H RJ") not in moves
    assert not game.is_legal(parse_move("discard 6H 5H RJ"))


def test_a_move_from_a_seat_not_to_act_is_refused_and_changes_nothing() -> None:
    game = Game.new(RuleSet(), 3, seed=1)
    before = game.fingerprint()
    with pytest.raises(IllegalMoveError, match="seat 2 is not to move; seat 1 is"):
        game.play(game.legal_moves()[0], seat=2)
    assert game.fingerprint() == before
    game.play(game.legal_moves()[0], seat=1)
    assert game.phase is Phase.DRAW


# ----------------------------------------------------------------- events and views


def test_events_follow_a_game_and_round_trip_as_json() -> None:
    game = Game.new(RuleSet.preset("slapdown"), 3, seed=12)
    rng = random.Random(12)
    while len(game.history) < 3 and not game.is_over:
        step(game, rng)
    for seat in (None, 0, 1, 2):
        events = game.events_since(0, seat)
        assert [e for e in events if isinstance(e, Dealt)][0].round == 1
        assert sum(isinstance(e, Showdown) for e in events) == len(game.history)
        for event in events:
            data = json.loads(json.dumps(event_to_dict(event)))
            assert event_from_dict(data) == event
        assert game.events_since(len(events) - 2, seat) == events[-2:]
    dealt = game.events_since(0, 1)[0]
    assert isinstance(dealt, Dealt)
    assert dealt.hands[1] == game.history[0].deal.hands[1] and dealt.hands[0] is None


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "must be an object"),
        ({"type": "teleport"}, "unknown event type 'teleport'"),
        ({"type": "draw", "seat": 1, "source": "sky", "card": None}, "'stock' or 'pile'"),
        ({"type": "discard", "seat": 1}, "lacks 'cards'"),
        ({"type": "discard", "seat": True, "cards": ["AH"]}, "expected a whole number"),
        ({"type": "slap", "seat": 0, "card": 5}, "bad slap event"),
    ],
)
def test_bad_events_say_what_is_wrong(data: Any, words: str) -> None:
    with pytest.raises(YanivError, match=words):
        event_from_dict(data)


def test_a_spectator_sees_no_hand_and_every_public_fact() -> None:
    game = Game.new(RuleSet(), 4, seed=3)
    rng = random.Random(3)
    for _ in range(9):
        step(game, rng, call=0)
    view = game.view(None)
    assert view.is_spectator and view.seat == SPECTATOR
    assert view.hand == () and len(view.legal_moves) == 0 and view.drawn is None
    assert view.hand_sizes == tuple(game.counts) and view.pile == tuple(game.pile)
    assert all(
        not (isinstance(e, Drew) and e.source == "stock" and e.card is not None)
        for e in view.events
    )
    assert PlayerView.from_json(view.to_json()) == view
    assert json.loads(view.to_json())["seat"] is None


def test_views_carry_the_scores_of_every_round_played() -> None:
    game = Game.new(RuleSet.preset("quick"), 3, seed=4)
    rng = random.Random(4)
    while len(game.history) < 3 and not game.is_over:
        step(game, rng, call=0.9)
    history = game.view(2).score_history
    assert history == tuple(r.result.scores for r in game.history)
    assert len(history) == len(game.history) >= 2 and history[-1] == tuple(game.scores)
    assert PlayerView.from_json(game.view(0).to_json()).score_history == history


def test_legal_moves_of_a_view_from_json_know_set_orders() -> None:
    game = Game.from_position(None, [["TS", "TC"], ["AH"]], ["4C"], [["9C"]], 0)
    view = PlayerView.from_json(game.view(0).to_json())
    assert parse_move("discard TC TS") in view.legal_moves
    assert parse_move("discard TS TC") in view.legal_moves


# ----------------------------------------------------------------- what no seat may learn


def _permuted(game: Game, seat: int | None, rng: random.Random) -> Game:
    """The same position with every card hidden from ``seat`` dealt anew among the places
    where hidden cards lie (other hands' unknown cards and the stock)."""
    pos = game.position()
    keep = {pos["drawn"]} if pos["phase"] == "slap" and pos["to_move"] != seat else set()
    places: list[tuple[str, int]] = []
    pool: list[str] = []
    for s, hand in enumerate(pos["hands"]):
        if s == seat:
            continue
        known = set(pos["known"][s]) | keep
        for i, card in enumerate(hand):
            if card not in known:
                places.append(("hand", s * 100 + i))
                pool.append(card)
    for i, card in enumerate(pos["stock"]):
        places.append(("stock", i))
        pool.append(card)
    rng.shuffle(pool)
    for (where, at), card in zip(places, pool, strict=True):
        if where == "hand":
            pos["hands"][at // 100][at % 100] = card
        else:
            pos["stock"][at] = card
    return Game.from_position(**pos)


_HISTORY = ("events", "starter", "result", "winners", "score_history")


def _position_facts(view: PlayerView) -> dict[str, Any]:
    data = view.to_dict()
    for key in _HISTORY:
        data.pop(key)
    return data


def check_secrets(game: Game, rng: random.Random) -> None:
    for seat in [None, *range(game.n)]:
        view = game.view(seat)
        # The view is a function of what the seat may know: dealing the hidden cards anew
        # changes nothing in it.
        other = _permuted(game, seat, rng)
        assert _position_facts(other.view(seat)) == _position_facts(view), seat
        for event in game.events_since(0, seat):
            if isinstance(event, Drew) and event.source == "stock" and event.seat != seat:
                assert event.card is None
            if isinstance(event, Dealt):
                assert all(h is None for s, h in enumerate(event.hands) if s != seat)
            if isinstance(event, Passed):
                assert event.seat == seat
        if seat != game.to_move:
            assert view.phase is not Phase.SLAP and not view.legal_moves and view.drawn is None
        if view.result is not None:
            assert game.history and view.result == game.history[-1].result


@given(rule_sets(), st.integers(2, 8), st.integers(0, 2**32))
def test_no_seat_learns_a_hidden_card_or_a_slap_window(
    rules: RuleSet, players: int, seed: int
) -> None:
    players = fit(rules, players)
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(120):
        if game.is_over:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        if game.phase is Phase.DRAW and rng.random() < 0.4:
            check_secrets(game, rng)
        move = random_move(game, rng, call=0.1)
        drawer = game.to_move
        before = {s: game.view(s) for s in [None, *range(game.n)] if s != drawer}
        game.play(move)
        if game.phase is Phase.SLAP:
            # A slap window opened: the others see exactly what they saw before the draw.
            assert all(game.view(s) == view for s, view in before.items())
            check_secrets(game, rng)
    if game.phase < Phase.ROUND_OVER:
        check_secrets(game, rng)


def test_a_declined_slap_is_seen_by_the_player_alone() -> None:
    game = Game.from_position(
        RuleSet.preset("slapdown"), [["5H", "KC", "QD"], ["AH", "2H"]], ["5S", "8C"], [["9C"]], 0
    )
    game.play("discard 5H")
    spectator_before = game.view(None)
    game.play("draw stock")
    assert game.phase is Phase.SLAP and game.view(0).drawn == parse_card("5S")
    assert game.view(None) == spectator_before and game.view(1).phase is Phase.DRAW
    game.play(PASS)
    for seat in (None, 1):
        kinds = [type(e).__name__ for e in game.events_since(0, seat)]
        assert kinds == ["Discarded", "Drew"]
    assert [type(e).__name__ for e in game.events_since(0, 0)] == ["Discarded", "Drew", "Passed"]


def test_a_slap_window_that_emptied_the_stock_stays_veiled() -> None:
    # The draw empties the stock, so the pile is refilled at once (R11); the others still see
    # the pile and stock as they were before the draw until the window closes.
    game = Game.from_position(
        RuleSet.preset("slapdown"), [["5H", "KC"], ["AH", "2H"]], ["5S"], [["9C"], ["7D"]], 0
    )
    game.play("discard 5H")
    before = game.view(1)
    game.play("draw stock")
    assert game.phase is Phase.SLAP and game.view(0).stock_size == 2
    assert game.view(1) == before and before.stock_size == 1
    game.play("slap 5S")
    view = game.view(1)
    assert view.pile == ((parse_card("5H"), parse_card("5S")),) and view.stock_size == 2
    assert [type(e).__name__ for e in view.events] == ["Discarded", "Drew", "Refilled", "Slapped"]


# ----------------------------------------------------------------- positions


@given(rule_sets(), st.integers(2, 8), st.integers(0, 2**32), st.integers(0, 150))
def test_a_position_round_trips_and_plays_on_alike(
    rules: RuleSet, players: int, seed: int, moves: int
) -> None:
    players = fit(rules, players)
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            return
        step(game, rng, call=0.05)
    if game.phase >= Phase.ROUND_OVER:
        with pytest.raises(IllegalMoveError, match="round is over"):
            game.position()
        return
    pos = game.position()
    rebuilt = Game.from_position(**json.loads(json.dumps(pos)))
    assert rebuilt.position() == pos
    for seat in range(players):
        assert _position_facts(rebuilt.view(seat)) == _position_facts(game.view(seat))
    # The same moves give the same positions, refills included (derived from the seed).
    for _ in range(40):
        if game.phase >= Phase.ROUND_OVER:
            break
        move = random_move(game, rng, call=0.05)
        game.play(move)
        rebuilt.play(move)
        if game.phase < Phase.ROUND_OVER:
            assert rebuilt.position() == game.position()
    assert rebuilt.scores == game.scores


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"to_move": 1.0}, "seat 1.0 cannot be to move"),
        ({"to_move": True}, "seat True cannot be to move"),
        ({"scores": [True, 0]}, "scores: True is not a whole number"),
        ({"scores": [10**30, 0]}, "expected 2 non-negative whole numbers"),
        ({"scores": [-1, 0]}, "expected 2 non-negative whole numbers"),
        ({"hands": [["AH", "2H", "3H", "4H", "5H", "6H"], ["KS"]]}, "seat 0 holds 6 cards"),
        ({"hands": "AH 2H"}, "hands must be a list of hands"),
        ({"hands": [["AH", 99], ["KS"]]}, "seat 0's hand: not a card: 99"),
        ({"hands": [["AH", None], ["KS"]]}, "seat 0's hand: not a card: None"),
        ({"stock": 7}, "the stock: expected a list of cards"),
        ({"phase": "draw"}, "needs at least two discard groups"),
        ({"phase": "nap"}, "phase 'nap': a position is one of start, draw, discard, slap"),
        ({"phase": "discard"}, "phase discard comes only with draw_first"),
        ({"drawn": "KS"}, "no card is drawn in phase start"),
        ({"seed": "abc"}, "seed 'abc': expected a whole number"),
        ({"names": ["A"]}, "names must be a list of 2 names"),
        ({"rules": {"jokers": 9}}, "rules: "),
    ],
)
def test_bad_positions_say_what_is_wrong(kwargs: dict[str, Any], words: str) -> None:
    args: dict[str, Any] = {
        "rules": None,
        "hands": [["AH"], ["KS"]],
        "stock": ["4C"],
        "discards": [["9C"]],
        "to_move": 0,
    }
    args.update(kwargs)
    with pytest.raises(SetupError) as info:
        Game.from_position(**args)
    assert words in str(info.value)


def test_a_pile_draw_from_an_empty_stock_refills_it() -> None:
    # R11: the stock is refilled whenever a draw leaves it empty, a pile draw included.
    game = Game.from_position(
        None, [["KC", "QD"], ["AH", "2H"]], [], [["9C"], ["3S"], ["5H", "6H", "7H"]], 0
    )
    assert game.legal_moves() and game.draw_options()[0].card is not None
    game.play("discard KC")
    game.play("draw 7H")
    assert sorted(game.stock) == sorted(parse_cards("9C 3S 5H 6H"))
    assert game.pile == [(parse_card("KC"),)]
    assert [type(e).__name__ for e in game.round_events(None)] == ["Discarded", "Drew", "Refilled"]


# ----------------------------------------------------------------- exact resume


def _finish(game: Game, bots: dict[int, Any], cap: int = 4000) -> None:
    for _ in range(cap):
        if game.is_over:
            return
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        else:
            seat = game.to_move
            assert seat is not None
            game.play(bots[seat].choose(game.view(seat)), seat=seat)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_resumed_game_finishes_exactly_as_the_original(preset: str) -> None:
    rng = random.Random(preset)
    players = rng.randint(2, 5)
    game = Game.new(RuleSet.preset(preset), players, seed=rng.randrange(10**6))
    levels = ["easy", "random", "medium"]
    bots = {s: get_bot(levels[s % 3], seed=s) for s in range(players)}
    stop = rng.randint(5, 400)
    _finish(game, bots, cap=stop)
    saved = record.dumps(game)
    twins = copy.deepcopy(bots)
    resumed = record.resume(record.loads(saved))
    assert resumed.fingerprint() == game.fingerprint()
    _finish(game, bots)
    _finish(resumed, twins)
    assert record.dumps(resumed) == record.dumps(game)
    assert resumed.round_no == game.round_no > 1


def test_a_game_on_system_randomness_resumes_exactly() -> None:
    game = Game.new(RuleSet(), 3, rng=random.SystemRandom())
    bots = {s: get_bot("easy", seed=s) for s in range(3)}
    _finish(game, bots, cap=37)
    resumed = record.resume(record.loads(record.dumps(game)))
    twins = copy.deepcopy(bots)
    _finish(game, bots)
    _finish(resumed, twins)
    assert record.dumps(resumed) == record.dumps(game)


def test_a_finished_round_resumes_to_the_same_next_deal() -> None:
    game = Game.new(RuleSet(), 2, seed=9)
    rng = random.Random(9)
    while game.phase is not Phase.ROUND_OVER:
        step(game, rng, call=0.8)
    resumed = record.resume(record.loads(record.dumps(game)))
    game.next_round()
    resumed.next_round()
    assert resumed.deal == game.deal


def test_a_slap_made_is_public() -> None:
    game = Game.from_position(
        RuleSet.preset("slapdown"), [["5H", "KC", "QD"], ["AH", "2H"]], ["5S", "8C"], [["9C"]], 0
    )
    game.play("discard 5H")
    game.play("draw stock")
    game.play(Slap(parse_card("5S")))
    assert game.view(1).pile[-1] == (parse_card("5H"), parse_card("5S"))
    assert [type(e).__name__ for e in game.events_since(0, 1)] == ["Discarded", "Drew", "Slapped"]
    assert NAMES[parse_card("5S")] == "5S" and isinstance(Discard((1,)), Discard)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"phase": "bogus"}, "phase 'bogus' is not one of start, draw"),
        ({"scores": [1]}, "scores must be a list of 2 whole numbers"),
        ({"seat": "0"}, "seat must be a whole number"),
        ({"events": [{"type": "draw", "seat": 0}]}, "a draw event lacks 'source'"),
        ({"hand": [5]}, "not a card: 5"),
    ],
)
def test_a_bad_view_says_what_is_wrong(change: dict[str, Any], words: str) -> None:
    data = Game.new(RuleSet(), 2, seed=1).view(1).to_dict()
    data.update(change)
    with pytest.raises(ViewError, match=words):
        PlayerView.from_dict(data)
    del data["names"]
    with pytest.raises(ViewError, match="the view lacks the key 'names'"):
        PlayerView.from_dict(data)
