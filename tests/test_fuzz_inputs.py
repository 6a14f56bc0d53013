"""Fuzzing the inputs from outside: game records, rule options and bot protocol lines.

Whatever they hold, a record is refused with a RecordError, a rule option with a RuleError, and
a protocol line is answered with one JSON object (a move or an error in words): never another
exception. The profile is the project's (tests/conftest.py): ``HYPOTHESIS_PROFILE=dev`` runs more.
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import played

from yaniv import Game, Phase, RecordError, RuleSet, record
from yaniv.bots import get_bot
from yaniv.cards import NAMES
from yaniv.errors import RuleError
from yaniv.protocol import answer_request
from yaniv.rules import BOUNDS, CHOICES, OPTION_NAMES

#: Mutated inputs are built from real ones; the slow health checks only see that work.
FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


GAMES = [
    played(1, "quick", 2, 400, call=0.5),
    played(2, "standard", 3, 150, call=0.5),
    played(3, "slapdown", 4, 200, call=0.5),
    played(4, "hebrew", 2, 90, call=0.5),
    played(5, "draw_first", 3, 60, call=0.5),
]
RECORDS: list[dict[str, Any]] = [json.loads(record.dumps(g)) for g in GAMES]


def _requests() -> list[dict[str, Any]]:
    """Real protocol requests, as the arena sends them: the view of the seat to act, at many
    points of each game (turn starts, draws, draw-first discards, slap windows)."""
    out = []
    for seed, preset in enumerate(["standard", "draw_first", "slapdown", "hebrew"]):
        game = Game.new(RuleSet.preset(preset), 3, seed)
        rng = random.Random(seed)
        for step in range(120):
            if game.is_over:
                break
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            if step % 7 == 0 and game.to_move is not None:
                out.append({"view": game.view(game.to_move).to_dict()})
            game.play(rng.choice(game.legal_moves()))
    return out


REQUESTS = _requests()

#: Values that sit close to the formats: the wrong kind of card, seat, list or flag.
NEAR_MISSES: st.SearchStrategy[Any] = st.sampled_from(
    [
        None,
        True,
        False,
        0,
        1,
        -1,
        2,
        7,
        1.0,
        1.5,
        "1",
        10**30,
        -(10**30),
        float("nan"),
        float("inf"),
        "",
        "AH",
        "ZZ",
        "10h",
        "RJ",
        "stock",
        "draw stock",
        "discard AH",
        "yaniv",
        "x" * 300,
        "[/bold]",
        [],
        {},
        [[]],
        [""],
        ["AH"],
        ["AH", "AH"],
        [["AH"]],
        [0, "yaniv"],
        [0, "discard AH", 1],
        {"0": ["AH"]},
        {"preset": "nope"},
        {"jokers": 9},
        "yaniv-record",
        "winner",
        "halve",
        "slap",
        "start",
        [100, 200],
    ]
).map(copy.deepcopy)  # a fresh copy each time: mutations must not reach the list above

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(NAMES)
)
JSON = st.recursive(
    SCALARS | NEAR_MISSES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=16,
)


def _slots(node: Any, depth: int = 0) -> list[tuple[int, Any, Any]]:
    """Every (depth, container, key) of a JSON structure."""
    slots: list[tuple[int, Any, Any]] = []
    keys = list(node) if isinstance(node, dict) else range(len(node))
    for key in keys:
        slots.append((depth, node, key))
        if isinstance(node[key], dict | list):
            slots.extend(_slots(node[key], depth + 1))
    return slots


def _pick(draw: st.DrawFn, root: Any) -> tuple[Any, Any] | None:
    """A slot of ``root``: a depth first, then a slot at that depth (so the few top keys are
    hit as often as the many cards and moves)."""
    slots = _slots(root)
    if not slots:
        return None
    depth = draw(st.sampled_from(sorted({d for d, _, _ in slots})))
    _, container, key = draw(st.sampled_from([s for s in slots if s[0] == depth]))
    return container, key


def _card_slots(node: Any) -> list[tuple[Any, Any]]:
    return [(c, k) for _, c, k in _slots(node) if isinstance(c[k], str) and c[k] in NAMES]


@st.composite
def mutated(draw: st.DrawFn, originals: list[dict[str, Any]]) -> dict[str, Any]:
    """A real input with a few keys deleted, values replaced by random JSON, lists truncated,
    numbers nudged, or cards swapped or duplicated."""
    data: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(originals)))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["delete", "replace", "truncate", "nudge", "swap", "duplicate"]))
        if how in ("swap", "duplicate"):
            cards = _card_slots(data)
            if len(cards) < 2:
                continue
            (c1, k1), (c2, k2) = draw(st.lists(st.sampled_from(cards), min_size=2, max_size=2))
            if how == "swap":
                c1[k1], c2[k2] = c2[k2], c1[k1]
            else:
                c1[k1] = c2[k2]
            continue
        slot = _pick(draw, data)
        if slot is None:
            break
        container, key = slot
        value = container[key]
        if how == "delete":
            del container[key]
        elif how == "truncate" and isinstance(value, list | str) and value:
            container[key] = value[: draw(st.integers(0, len(value) - 1))]
        elif how == "nudge" and isinstance(value, int) and not isinstance(value, bool):
            container[key] = value + draw(st.sampled_from([-1, 1, 52, -(10**6), 10**20]))
        else:
            container[key] = draw(JSON)
    return data


# -- (a) records -------------------------------------------------------------------------------


def _replay_or_refuse(data: Any) -> str:
    """Load and replay ``data`` as JSON text; 'ok' or the RecordError's message. Any other
    exception escapes and fails the test."""
    try:
        record.replay(record.loads(json.dumps(data)))
    except RecordError as exc:
        event("refused: " + re.sub(r"\d+", "N", str(exc).replace("record, ", ""))[:36])
        return str(exc)
    event("replays")
    return "ok"


@FUZZ
@given(JSON)
def test_a_random_json_value_is_no_record_and_says_so(data: Any) -> None:
    message = _replay_or_refuse(data)
    assert message != "ok"
    assert message.strip() and "\n" not in message


@FUZZ
@given(mutated(RECORDS))
def test_a_mutated_record_replays_or_raises_only_a_record_error(data: dict[str, Any]) -> None:
    message = _replay_or_refuse(data)
    assert message == "ok" or (message.strip() and len(message) < 2000), message


@FUZZ
@given(st.sampled_from(RECORDS), st.data())
def test_a_record_with_two_cards_swapped_is_refused_or_replays_alike(
    original: dict[str, Any], data: st.DataObject
) -> None:
    """Swapping two cards of a deal or a refill (the same cards, in another order) must never
    replay to another game silently: it is refused, or it replays to the same record."""
    tampered = copy.deepcopy(original)
    cards = [
        (c, k)
        for c, k in _card_slots(tampered)
        if c is not tampered["rounds"] and not isinstance(k, str)
    ]
    (c1, k1), (c2, k2) = data.draw(
        st.lists(
            st.sampled_from(cards), min_size=2, max_size=2, unique_by=lambda s: (id(s[0]), s[1])
        )
    )
    c1[k1], c2[k2] = c2[k2], c1[k1]
    try:
        game = record.replay(record.loads(json.dumps(tampered)))
    except RecordError as exc:
        assert str(exc).strip()
        return
    assert json.loads(record.dumps(game)) == tampered


SNIPPETS = st.sampled_from(
    [
        "9" * 5000,
        "-" + "1" * 4400,
        "[" * 5000,
        '{"a":' * 3000,
        "\x00",
        "NaN",
        "Infinity",
        "1e999",
        '"',
        "}",
        "]",
        ",",
        "\\u0000",
        "\ud800",
        '"\\ud800"',
        "  ",
    ]
)


@FUZZ
@given(st.sampled_from(RECORDS), st.integers(0, 10**7), st.integers(0, 40), SNIPPETS)
def test_record_text_cut_or_spliced_replays_or_raises_only_a_record_error(
    original: dict[str, Any], at: int, cut: int, snippet: str
) -> None:
    """The text itself damaged: a snippet (a number too long to read, deep nesting, a stray
    quote or control character) spliced in where a few characters were cut out."""
    text = json.dumps(original, indent=1, ensure_ascii=False)
    at %= len(text) + 1
    try:
        record.replay(record.loads(text[:at] + snippet + text[at + cut :]))
    except RecordError as exc:
        assert str(exc).strip() and "\n" not in str(exc)


# -- (b) rule options --------------------------------------------------------------------------

OPTION_VALUES: st.SearchStrategy[Any] = (
    JSON
    | st.integers(-(10**6), 10**6)
    | st.integers(min_value=10**4300, max_value=10**4400)
    | st.sampled_from([c for choices in CHOICES.values() for c in choices])
    | st.lists(st.integers(-5, 200_000), max_size=120)
    | st.lists(JSON, max_size=3)
)
OPTION_KEYS = (
    st.sampled_from([*OPTION_NAMES, "preset"])
    | st.text(max_size=8)
    | st.sampled_from(["Jokers", " jokers", "bonus-targets"])
)
RULE_DICTS = st.dictionaries(OPTION_KEYS, OPTION_VALUES, max_size=5) | st.dictionaries(
    st.sampled_from(OPTION_NAMES), OPTION_VALUES, min_size=1, max_size=2
)


def _assert_kept_as_given(rules: RuleSet, options: dict[str, Any]) -> None:
    """An accepted option holds exactly the value given, of the option's own type."""
    for key, value in options.items():
        if key == "preset":
            continue
        got = getattr(rules, key)
        if key == "bonus_targets":
            assert isinstance(value, list | tuple) and got == tuple(value)
            assert all(type(v) is int and 1 <= v <= 100_000 for v in got)
        else:
            assert got == value and type(got) is type(value), (key, value)
            if key in BOUNDS:
                low, high = BOUNDS[key]
                assert type(got) is int and low <= got <= high
            elif key in CHOICES:
                assert got in CHOICES[key]
            else:
                assert type(got) is bool


@FUZZ
@given(RULE_DICTS)
def test_rule_options_from_a_dict_are_accepted_as_given_or_refused_with_a_rule_error(
    options: dict[str, Any],
) -> None:
    try:
        rules = RuleSet.from_dict(options)
    except RuleError as exc:
        assert str(exc).strip() and len(str(exc)) < 1000
        return
    _assert_kept_as_given(rules, options)
    assert RuleSet.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


@pytest.mark.parametrize(
    "options",
    [
        {"jokers": 1.0},
        {"jokers": True},
        {"draw_first": 1},
        {"hand_size": 10**5000},
        {"score_limit": [200]},
        {"pickup": ["ends"]},
        {"bonus_targets": "100,200"},
        {"bonus_targets": [100.0]},
        {"bonus_targets": [True]},
        {"bonus_targets": [10**30]},
        {"bonus_targets": list(range(1, 200))},
        {"preset": ["standard"]},
        {7: 1},
        "jokers=1",
    ],
)
def test_rule_options_of_the_wrong_kind_are_refused(options: Any) -> None:
    with pytest.raises(RuleError):
        RuleSet.from_dict(options)


@pytest.mark.parametrize(
    "key,text",
    [
        ("yaniv_threshold", "1_0"),
        ("yaniv_threshold", "５"),
        ("yaniv_threshold", "٣"),
        ("yaniv_threshold", "5.0"),
        ("yaniv_threshold", "0x5"),
        ("score_limit", "9" * 5000),
        ("bonus_targets", "1_00"),
        ("bonus_targets", ",".join(["100"] * 200)),
        ("bonus_targets", "100," + "9" * 30),
        ("draw_first", "2"),
        ("pickup", "Ends"),
    ],
)
def test_option_texts_python_would_read_but_a_person_did_not_write_are_refused(
    key: str, text: str
) -> None:
    with pytest.raises(RuleError, match=key):
        RuleSet.preset("standard").with_options({key: text})


OPTION_TEXTS = (
    st.text(max_size=20)
    | st.integers(-(10**6), 10**6).map(str)
    | st.text(alphabet="0123456789", min_size=20, max_size=6000)
    | st.floats().map(str)
    | st.sampled_from(
        [
            "true",
            "yes",
            "on",
            "1",
            "false",
            "no",
            "off",
            "0",
            "TRUE",
            " 5 ",
            "+5",
            "-0",
            "1_0",
            "５",
            "٣",
            "0x10",
            "1e3",
            "100,200",
            "100 200",
            ",,",
            "",
            "winner",
            "Winner",
            "halve",
            "None",
            "null",
            "[1]",
        ]
    )
    | st.lists(st.integers(-5, 200_000).map(str), max_size=120).map(",".join)
)


@st.composite
def option_lines(draw: st.DrawFn) -> list[str]:
    keys = st.sampled_from(OPTION_NAMES) | st.text(max_size=8)
    return [
        f"{draw(keys)}{draw(st.sampled_from(['=', ' = ', '==', '']))}{draw(OPTION_TEXTS)}"
        for _ in range(draw(st.integers(1, 3)))
    ]


@FUZZ
@given(option_lines())
def test_key_value_texts_are_read_as_written_or_refused_with_a_rule_error(
    lines: list[str],
) -> None:
    pairs = {}
    for line in lines:
        key, _, value = line.partition("=")  # as the command line splits them
        pairs[key.strip()] = value
    try:
        rules = RuleSet.preset("standard").with_options(pairs)
    except RuleError as exc:
        assert str(exc).strip() and len(str(exc)) < 1000
        return
    for key, text in pairs.items():
        got, text = getattr(rules, key), text.strip()
        if key in BOUNDS:
            assert text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()
            assert got == int(text)
        elif key == "bonus_targets":
            assert got == tuple(int(t) for t in text.replace(",", " ").split())
        elif key in CHOICES:
            assert got == text
        else:
            assert got is (text.lower() in ("true", "yes", "on", "1"))


# -- (c) bot protocol lines --------------------------------------------------------------------

BOT = get_bot("random", seed=1)


def _answer(raw: bytes) -> dict[str, Any] | None:
    answer = answer_request(BOT, raw)
    if answer is not None:
        assert isinstance(answer, dict) and len(answer) == 1, answer
        ((key, value),) = answer.items()
        assert key in ("move", "error") and isinstance(value, str) and value.strip(), answer
        assert json.loads(json.dumps(answer)) == answer  # it makes one answer line
        if key == "error":
            assert " " in value and len(value) < 5000  # words, and not an echo of the line
    return answer


def _is_quit(raw: bytes) -> bool:
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return isinstance(data, dict) and bool(data.get("quit"))


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=60).map(str.encode))
def test_random_bytes_are_answered_in_words(raw: bytes) -> None:
    answer = _answer(raw)
    assert (answer is None) == _is_quit(raw)


@FUZZ
@given(JSON | st.dictionaries(st.sampled_from(["view", "quit", "move"]), JSON, max_size=2))
def test_random_json_is_answered_in_words(data: Any) -> None:
    raw = json.dumps(data).encode()
    answer = _answer(raw)
    assert (answer is None) == _is_quit(raw)


@pytest.mark.parametrize("index", range(0, len(REQUESTS), max(1, len(REQUESTS) // 8)))
def test_a_real_request_is_answered_with_a_legal_move(index: int) -> None:
    request = REQUESTS[index]
    answer = _answer(json.dumps(request).encode())
    assert answer is not None and answer.get("move") in request["view"]["legal_moves"], answer


@pytest.mark.parametrize(
    "event", [[0, None], {"type": "deal"}, {"type": "draw", "seat": 0}, {"type": "nonsense"}]
)
def test_a_view_with_a_malformed_event_is_answered_in_words(event: Any) -> None:
    request = copy.deepcopy(REQUESTS[0])
    request["view"]["events"].append(event)
    answer = _answer(json.dumps(request).encode())
    assert answer is not None and "event" in answer.get("error", "")


@FUZZ
@given(mutated(REQUESTS))
def test_a_mutated_request_is_answered_in_words(request: dict[str, Any]) -> None:
    raw = json.dumps(request).encode()
    answer = _answer(raw)
    assert (answer is None) == _is_quit(raw)


@FUZZ
@given(
    mutated(REQUESTS),
    st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\n", b"}", b" "]),
    st.integers(0, 10**6),
)
def test_a_corrupted_request_line_is_answered_in_words(
    request: dict[str, Any], byte: bytes, at: int
) -> None:
    raw = json.dumps(request).encode()
    at %= len(raw) + 1
    _answer(raw[:at] + byte + raw[at + 1 :])
