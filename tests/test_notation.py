"""Cards (R1-R3), rule sets and presets, and move notation."""

from __future__ import annotations

import doctest
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yaniv import CardError, InvalidMoveError, RuleError, RuleSet
from yaniv import cards as cards_module
from yaniv.cards import NAMES, RANK, SUIT, VALUE, card_name, deck, parse_card, parse_cards
from yaniv.moves import DRAW_STOCK, PASS, YANIV, Discard, Draw, Slap, parse_move
from yaniv.rules import OPTION_NAMES, PRESETS, parse_option


def test_every_card_round_trips() -> None:
    assert len(set(NAMES)) == 54
    for card in range(54):
        assert parse_card(card_name(card)) == card


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("10h", "TH"),
        ("th", "TH"),
        ("T♥", "TH"),
        ("q♠", "QS"),
        ("A♣", "AC"),
        ("7♦", "7D"),
        ("rj", "RJ"),
        (" BJ ", "BJ"),
        ("K♤", "KS"),
    ],
)
def test_accepted_input_forms(text: str, name: str) -> None:
    assert card_name(parse_card(text)) == name


@pytest.mark.parametrize("text", ["1H", "ZZ", "", "11H", "HT", "7X", "J", "RJJ"])
def test_bad_cards_are_named(text: str) -> None:
    with pytest.raises(CardError, match="unknown card"):
        parse_card(text)


def test_values_and_ranks() -> None:
    assert [VALUE[parse_card(c)] for c in ["RJ", "AS", "7H", "TD", "JC", "QS", "KH"]] == [
        0,
        1,
        7,
        10,
        10,
        10,
        10,
    ]
    assert RANK[parse_card("AS")] == 1 and RANK[parse_card("KS")] == 13
    assert SUIT[parse_card("RJ")] == -1
    assert len(deck(0)) == 52 and len(deck(1)) == 53 and len(deck(2)) == 54
    assert parse_cards("AS, 2C 10d") == [parse_card("AS"), parse_card("2C"), parse_card("TD")]


def test_presets_differ_as_documented() -> None:
    assert set(PRESETS) == {"standard", "quick", "hebrew", "draw_first", "slapdown"}
    assert RuleSet.preset("quick").differences() == {"yaniv_threshold": 5, "score_limit": 100}
    assert RuleSet.preset("hebrew").differences() == {
        "pickup": "run_top_set_any",
        "bonus": "subtract",
        "end_mode": "first_over",
        "yaniv_above_threshold": True,
    }
    assert RuleSet.preset("draw_first").differences() == {"draw_first": True}
    assert RuleSet.preset("slapdown").differences() == {"slapdown": "rank"}
    assert RuleSet.preset("hebrew", yaniv_threshold=5).yaniv_threshold == 5
    assert RuleSet.preset("hebrew").preset_name() == "hebrew"


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"yaniv_treshold": 5}, "unknown option 'yaniv_treshold'"),
        ({"pickup": "sideways"}, "'pickup': 'sideways'; allowed: 'ends'"),
        ({"yaniv_threshold": -1}, "'yaniv_threshold': -1; allowed: an integer 0 to"),
        ({"jokers": 3}, "'jokers': 3"),
        ({"draw_first": "yes"}, "'draw_first': 'yes'; allowed: true, false"),
        ({"hand_size": True}, "'hand_size': True"),
        ({"bonus_targets": [100, -5]}, "bonus_targets"),
        ({"bonus": "subtract", "bonus_step": 20, "bonus_amount": 50}, "bonus_amount"),
        ({"preset": "backpacker-deluxe"}, "unknown preset 'backpacker-deluxe'"),
    ],
)
def test_bad_rule_sets_name_the_option(options: dict[str, object], fragment: str) -> None:
    with pytest.raises(RuleError, match=None) as info:
        RuleSet.from_dict(options)
    assert fragment in str(info.value)


def test_options_from_text() -> None:
    rules = RuleSet().with_options(
        {"yaniv_threshold": "5", "draw_first": "true", "bonus_targets": "50,150", "pickup": "any"}
    )
    assert (rules.yaniv_threshold, rules.draw_first, rules.bonus_targets, rules.pickup) == (
        5,
        True,
        (50, 150),
        "any",
    )
    with pytest.raises(RuleError, match="expected an integer"):
        parse_option("score_limit", "lots")
    assert RuleSet.from_dict(RuleSet.preset("hebrew").to_dict()) == RuleSet.preset("hebrew")
    assert set(RuleSet().to_dict()) == set(OPTION_NAMES)


@pytest.mark.parametrize(
    ("text", "move", "canonical"),
    [
        ("yaniv", YANIV, "yaniv"),
        (" YANIV ", YANIV, "yaniv"),
        ("pass", PASS, "pass"),
        ("draw stock", DRAW_STOCK, "draw stock"),
        ("draw 9h", Draw(parse_card("9H")), "draw 9H"),
        ("slap 5D", Slap(parse_card("5D")), "slap 5D"),
        ("discard 10H jh Q♥", Discard(tuple(parse_cards("TH JH QH"))), "discard TH JH QH"),
    ],
)
def test_move_notation(text: str, move: object, canonical: str) -> None:
    assert parse_move(text) == move
    assert str(move) == canonical
    assert parse_move(canonical) == move


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty move"),
        ("fold", "unknown move 'fold'"),
        ("discard", "name the cards"),
        ("discard 1H", "unknown card '1H'"),
        ("discard AH AH", "named twice"),
        ("draw", "expected 'draw stock'"),
        ("yaniv now", "takes no cards"),
        ("slap", "expected 'slap CARD'"),
    ],
)
def test_bad_moves_say_why(text: str, fragment: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text)
    assert fragment in str(info.value)


@given(st.lists(st.integers(0, 53), min_size=1, max_size=6, unique=True))
def test_discard_text_round_trips(cards: list[int]) -> None:
    move = Discard(tuple(cards))
    assert parse_move(str(move)) == move
    assert move.mask.bit_count() == len(cards)
    assert move.value == sum(VALUE[c] for c in cards)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(5, "5"), (None, "None"), (True, "True"), (["AS"], "['AS']"), (2.5, "2.5"), (b"AS", "b'AS'")],
)
def test_a_value_that_is_not_text_is_not_a_card(value: object, shown: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(value)  # type: ignore[arg-type]
    assert str(info.value) == f"not a card: {shown} (expected text such as 7H)"


@pytest.mark.parametrize(
    ("value", "shown"),
    [(5, "5"), (None, "None"), (True, "True"), (b"AS", "b'AS'"), ({"AS": 1}, "{'AS': 1}")],
)
def test_parse_cards_refuses_what_is_neither_text_nor_a_list(value: object, shown: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(value)  # type: ignore[arg-type]
    assert str(info.value) == (
        f"not cards: {shown} (expected text such as '7H 8H' or a list of card texts)"
    )


def test_parse_cards_names_a_value_in_the_list_that_is_not_text() -> None:
    with pytest.raises(CardError, match=r"^not a card: None \(expected text such as 7H\)$"):
        parse_cards(["AS", None])  # type: ignore[list-item]


@pytest.mark.parametrize("value", ["AS", 54, -1, 2.0, None])
def test_card_name_of_a_value_that_is_not_a_card(value: object) -> None:
    with pytest.raises(CardError, match=r"^not a card: "):
        card_name(value)  # type: ignore[arg-type]


def test_long_text_is_refused_quickly_with_a_short_message() -> None:
    text = "Z" * 10_000_000
    start = time.perf_counter()
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert time.perf_counter() - start < 1.0  # linear work only; it takes milliseconds
    assert str(info.value).startswith(f"unknown card {'Z' * 40!r}... (10000000 characters): ")
    assert len(str(info.value)) < 200
    with pytest.raises(CardError) as info:
        parse_cards("7H " * 100_000 + "QQ")
    assert str(info.value).startswith("unknown card 'QQ': ")


def test_the_cards_module_doctests_pass() -> None:
    failures, tried = doctest.testmod(cards_module)
    assert tried >= 4 and failures == 0
