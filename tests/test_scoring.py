"""The scoring's one home (yaniv/scoring.py): what the engine's showdown and the score keeper
share. For random rule sets and random games played by the engine, scoring the rounds from
their callers and hand values alone gives the engine's results exactly."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import rule_sets

from yaniv import Game, Phase, RuleSet
from yaniv.cards import NAMES
from yaniv.errors import SetupError
from yaniv.moves import YANIV
from yaniv.scoring import check_round, round_values, score_round, score_rounds, value_bounds
from yaniv.state import RoundLog, RoundResult


def random_game(rules: RuleSet, players: int, seed: int, moves: int = 3000) -> Game:
    """A game of random legal moves under ``rules``, Yaniv called often when allowed."""
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        legal = game.legal_moves()
        game.play(YANIV if YANIV in legal and rng.random() < 0.6 else rng.choice(legal))
    return game


def rounds_of(game: Game) -> list[tuple[int, list[int | None]]]:
    """Each finished round as a score keeper enters it: the caller, and each hand's value
    (None for a seat that was out before the round)."""
    out = [False] * game.n
    rounds: list[tuple[int, list[int | None]]] = []
    for log in game.history:
        r = log.result
        rounds.append((r.caller, [None if out[s] else v for s, v in enumerate(r.hand_values)]))
        for s in r.newly_out:
            out[s] = True
    return rounds


def same(kept: object, engine: RoundResult) -> None:
    for field in (
        "kind",
        "caller",
        "assafers",
        "points",
        "bonuses",
        "scores",
        "newly_out",
        "winner",
        "next_starter",
        "game_winners",
    ):
        assert getattr(kept, field) == getattr(engine, field), field


@given(rule_sets(), st.integers(2, 6), st.integers(0, 2**32))
def test_scoring_the_rounds_alone_gives_the_engines_results(
    rules: RuleSet, players: int, seed: int
) -> None:
    game = random_game(rules, players, seed)
    results = [log.result for log in game.history]
    assume(results)  # a threshold of 0 without jokers: nobody can ever call
    kept = score_rounds(rules, game.n, rounds_of(game))
    assert len(kept) == len(results)
    for k, r in zip(kept, results, strict=True):
        same(k, r)
    assert list(kept[-1].scores) == game.scores
    assert list(kept[-1].out) == game.out


@given(rule_sets(), st.integers(2, 6), st.integers(0, 2**32))
def test_the_cards_of_each_hand_give_the_same_values(
    rules: RuleSet, players: int, seed: int
) -> None:
    game = random_game(rules, players, seed, moves=400)
    for log in game.history:
        r = log.result
        # a seat out before the round was dealt nothing: no hand is entered for it
        entry: list[int | str | None] = [
            " ".join(NAMES[c] for c in hand) if log.deal.hands[s] else None
            for s, hand in enumerate(r.hands)
        ]
        values, cards = round_values(rules, entry)
        assert [0 if v is None else v for v in values] == list(r.hand_values)
        assert [tuple(c) if c is not None else () for c in cards] == [tuple(h) for h in r.hands]
        kept = score_round(
            rules, _before(game, log), _out_before(log), list(r.hand_values), r.caller
        )
        same(kept, r)


def _out_before(log: RoundLog) -> list[bool]:
    return [not h for h in log.deal.hands]


def _before(game: Game, log: RoundLog) -> list[int]:
    k = game.history.index(log)
    return [0] * game.n if k == 0 else list(game.history[k - 1].result.scores)


def test_the_showdown_scores_through_score_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """One home: the engine's showdown asks yaniv.scoring, so a change there is the engine's."""
    import yaniv.game

    calls: list[int] = []

    def spy(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return score_round(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(yaniv.game, "score_round", spy)
    game = Game.from_position(RuleSet(), [["AC", "2C"], ["KD", "QD"]], ["5S"], [["9H"]], to_move=0)
    result = game.play("yaniv")
    assert calls == [1]
    assert result is not None and result.points == (0, 20)


def test_value_bounds_follow_the_rules() -> None:
    assert value_bounds(RuleSet()) == (0, 50)
    assert value_bounds(RuleSet(jokers=0)) == (1, 50)
    assert value_bounds(RuleSet(jokers=0, slap_empty_hand="yaniv_now")) == (0, 50)
    assert value_bounds(RuleSet(hand_size=7)) == (0, 70)


@pytest.mark.parametrize(
    ("rules", "out", "values", "caller", "words"),
    [
        (RuleSet(), [False, False], [3, 51], 0, "player 2's hand value 51 cannot be a hand"),
        (RuleSet(jokers=0), [False, False], [0, 9], 1, "player 1's hand value 0 cannot be"),
        (RuleSet(), [False, False], [3, -1], 0, "cannot be a hand"),
        (RuleSet(), [False, True, False], [3, 8, 9], 0, "player 2 is out of the game"),
        (RuleSet(), [False, True, False], [3, None, 9], 1, "player 2 is out of the game"),
        (RuleSet(), [False, False], [3, None], 0, "player 2 is in the game"),
        (RuleSet(), [False, False], [8, 3], 0, "called at 7 or less: the caller's hand is 8"),
        (RuleSet(), [False, False], [3, 2], 5, "the caller 5 is not one of the 2 players"),
        (RuleSet(), [False, False], [3], 0, "a hand value for each of the 2 players"),
        (RuleSet(), [False, False], [3, 2.5], 0, "not a whole number"),
    ],
)
def test_a_round_that_cannot_be_is_refused_in_words(
    rules: RuleSet, out: list[bool], values: list[int | None], caller: int, words: str
) -> None:
    with pytest.raises(SetupError, match=words):
        check_round(rules, out, values, caller)


def test_a_deliberate_call_is_allowed_where_the_rules_allow_it() -> None:
    rules = RuleSet.preset("hebrew")
    assert check_round(rules, [False, False], [12, 3], 0) == [12, 3]


@pytest.mark.parametrize(
    ("hands", "words"),
    [
        (["7H 3C", "3C 2D"], "3C cannot be in the hands of player 1 and player 2"),
        (["7H 7H", 3], "7H is twice in the hand"),
        (["AC 2C 3C 4C 5C 6C", 3], "5 cards at most"),
        (["ZZ", 3], "player 1's hand"),
        (["", 3], "at least one card"),
        ([True, 3], "not a whole number"),
        ([{"x": 1}, 3], "must be a value, cards"),
    ],
)
def test_cards_that_cannot_be_a_round_are_refused(hands: list[object], words: str) -> None:
    with pytest.raises(SetupError, match=words):
        round_values(RuleSet(), hands)  # type: ignore[arg-type]


def test_jokers_outside_the_deck_are_refused() -> None:
    with pytest.raises(SetupError, match="RJ is not in the deck of these rules"):
        round_values(RuleSet(jokers=0), ["RJ AC", 3])


def test_no_round_after_the_game_is_over() -> None:
    rules = RuleSet(score_limit=40, end_mode="first_over")
    with pytest.raises(SetupError, match="round 2: the game was over after round 1"):
        score_rounds(rules, 2, [(0, [2, 45]), (0, [2, 3])])


def test_a_sheet_names_the_round_that_cannot_be() -> None:
    rules = RuleSet(score_limit=40)
    with pytest.raises(SetupError, match="round 2: player 2 is out of the game"):
        score_rounds(rules, 3, [(0, [2, 45, 9]), (0, [2, 3, 9])])


def test_a_message_names_the_players_where_their_names_are_given() -> None:
    with pytest.raises(SetupError, match="Avi's hand value 51 cannot be a hand"):
        check_round(RuleSet(), [False, False], [3, 51], 0, names=["Dana", "Avi"])
    with pytest.raises(SetupError, match="3C cannot be in the hands of Dana and Avi"):
        round_values(RuleSet(), ["3C", "3C 4D"], names=["Dana", "Avi"])
    with pytest.raises(SetupError, match="round 2: Noa is out of the game"):
        score_rounds(RuleSet(score_limit=40), 3, [(0, [2, 9, 45]), (0, [2, 3, 9])],
                     names=["Dana", "Avi", "Noa"])  # fmt: skip
