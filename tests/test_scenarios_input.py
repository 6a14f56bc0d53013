"""The scenario runner never crashes: bad files and badly shaped scenarios are FAIL lines."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import yaniv.scenarios as runner
from yaniv.game import Game
from yaniv.scenarios import main, run_files, run_scenario

GOOD: dict[str, Any] = {
    "name": "good",
    "setup": {
        "hands": [["AH", "2C"], ["5H", "9S"]],
        "stock": ["4C"],
        "discards": [["9C"]],
        "to_move": 0,
    },
    "steps": [{"expect": {"phase": "start", "to_move": 0}}, {"play": "discard AH"}],
}


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """GOOD with the value at ``path`` replaced (or removed when ``value`` is ...)."""
    scenario = copy.deepcopy(GOOD)
    node: Any = scenario
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return scenario


def test_the_good_scenario_passes() -> None:
    assert run_scenario(GOOD).line() == "ok good"


BAD_SHAPES = [
    pytest.param(
        ("steps", 0, "expect"),
        ["phase", "start"],
        'step 1: expect must be an object such as {"phase": "start"}, got a list',
        id="expect-is-a-list",
    ),
    pytest.param(
        ("setup", "hands"),
        "AH 2C",
        "setup.hands must be a list of card lists (one per seat)",
        id="hands-is-a-string",
    ),
    pytest.param(
        ("setup", "hands"),
        ["AH", "2C"],
        'setup.hands[0] must be a list of cards such as ["7H", "8H"], got the string \'AH\'',
        id="hands-is-a-flat-list",
    ),
    pytest.param(
        ("setup", "hands", 0, 1),
        5,
        'setup.hands[0][1] must be a card such as "7H", got the number 5',
        id="card-is-an-int",
    ),
    pytest.param(
        ("setup", "stock", 0),
        None,
        'setup.stock[0] must be a card such as "7H", got null',
        id="card-is-null",
    ),
    pytest.param(
        ("setup", "discards", 0, 0),
        True,
        'setup.discards[0][0] must be a card such as "7H", got true',
        id="card-is-true",
    ),
    pytest.param(
        ("setup", "discards"),
        [],
        "setup refused: the pile needs at least one discard group",
        id="no-discard-group",
    ),
    pytest.param(
        ("steps", 1, "play"),
        5,
        'step 2: play must be a move such as "draw stock", got the number 5',
        id="move-is-an-int",
    ),
    pytest.param(
        ("steps", 1, "play"),
        None,
        'step 2: play must be a move such as "draw stock", got null',
        id="move-is-null",
    ),
    pytest.param(
        ("steps", 1, "play"),
        ["discard", "AH"],
        'step 2: play must be a move such as "draw stock", got a list',
        id="move-is-a-list",
    ),
    pytest.param(
        ("steps",),
        {"play": "yaniv"},
        "steps must be a list of step objects, got an object",
        id="steps-is-an-object",
    ),
    pytest.param(
        ("steps", 0),
        "yaniv",
        'step 1 must be an object such as {"play": "draw stock"} or '
        '{"expect": {"phase": "start"}}, got the string \'yaniv\'',
        id="step-is-a-string",
    ),
    pytest.param(
        ("steps", 0),
        {"play": "yaniv", "expect": {}},
        "step 1: needs exactly one of 'play' and 'expect'",
        id="step-with-both",
    ),
    pytest.param(
        ("steps", 0),
        {"illegal": True},
        "step 1: needs exactly one of 'play' and 'expect'",
        id="step-with-neither",
    ),
    pytest.param(
        ("steps", 1, "illegal"),
        "yes",
        "step 2: illegal must be true or false, got the string 'yes'",
        id="illegal-is-text",
    ),
    pytest.param(
        ("steps", 0, "expec"),
        {},
        "step 1 has an unknown key 'expec'; known keys: play, illegal, expect",
        id="step-key-misspelt",
    ),
    pytest.param(
        ("rules",),
        "standard",
        'rules must be an object such as {"preset": "standard"}, got the string \'standard\'',
        id="rules-is-a-string",
    ),
    pytest.param(
        ("rules",),
        None,
        'rules must be an object such as {"preset": "standard"}, got null',
        id="rules-is-null",
    ),
    pytest.param(
        ("rules_error",),
        "yes",
        "rules_error must be true or false, got the string 'yes'",
        id="rules-error-is-text",
    ),
    pytest.param(
        ("setup",),
        ...,
        "no setup: a scenario needs a position (hands, discards, to_move)",
        id="setup-missing",
    ),
    pytest.param(
        ("setup",), [["AH"], ["2C"]], "setup must be an object such as", id="setup-is-a-list"
    ),
    pytest.param(("setup", "to_move"), ..., "setup has no 'to_move'", id="to-move-missing"),
    pytest.param(
        ("setup", "to_move"),
        1.0,
        "setup.to_move must be a seat number (an integer), got the number 1.0",
        id="to-move-is-a-float",
    ),
    pytest.param(
        ("setup", "to_move"),
        "1",
        "setup.to_move must be a seat number (an integer), got the string '1'",
        id="to-move-is-text",
    ),
    pytest.param(
        ("setup", "to_move"),
        True,
        "setup.to_move must be a seat number (an integer), got true",
        id="to-move-is-true",
    ),
    pytest.param(
        ("setup", "scores"),
        [0, False],
        "setup.scores[1] must be an integer, got false",
        id="score-is-false",
    ),
    pytest.param(
        ("setup", "out"),
        "1",
        "setup.out must be a list of seat numbers, got the string '1'",
        id="out-is-text",
    ),
    pytest.param(
        ("setup", "stok"),
        ["4C"],
        "setup has an unknown key 'stok'; known keys: hands, stock, discards, scores, out, to_move",
        id="setup-key-misspelt",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"to_move": True},
        "step 1: expect.to_move must be a seat number or null, got true",
        id="expected-seat-is-true",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"can_yaniv": 1},
        "step 1: expect.can_yaniv must be true or false, got the number 1",
        id="expected-flag-is-a-number",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"hands": {"7": ["AH"]}},
        "step 1: expect.hands names seat '7', but the seats are 0 to 1",
        id="no-such-seat",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"hands": [["AH", "2C"]]},
        'step 1: expect.hands must be an object such as {"0": ["7H", "8H"]}, got a list',
        id="expected-hands-is-a-list",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"pile_top": ["1H"]},
        "step 1: expect.pile_top: unknown card '1H'",
        id="expected-card-unknown",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"legal_draws": ["stock", 9]},
        'step 1: expect.legal_draws[1] must be a card such as "7H", got the number 9',
        id="expected-draw-is-a-number",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"legal_discards": "AH"},
        "step 1: expect.legal_discards must be a list of card lists, got the string 'AH'",
        id="expected-discards-is-text",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"game_winners": [0, "1"]},
        "step 1: expect.game_winners[1] must be an integer, got the string '1'",
        id="expected-winner-is-text",
    ),
    pytest.param(
        ("steps", 0, "expect"),
        {"phase": "start", "colour": "red"},
        "step 1: unknown expectation 'colour'",
        id="unknown-expectation",
    ),
]


@pytest.mark.parametrize(("path", "value", "words"), BAD_SHAPES)
def test_bad_shape_is_named_in_words(path: tuple[Any, ...], value: Any, words: str) -> None:
    outcome = run_scenario(_with(path, value))
    assert not outcome.passed
    assert outcome.line().startswith(f"FAIL good: {words}"), outcome.line()
    assert "unexpected" not in outcome.line()


def test_shape_is_checked_before_the_engine_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[str] = []
    monkeypatch.setattr(Game, "play", lambda self, move: played.append(move))
    scenario = _with(("steps",), [{"play": "discard AH"}, {"play": 5}])
    assert run_scenario(scenario).reason == (
        'step 2: play must be a move such as "draw stock", got the number 5'
    )
    assert played == []


@pytest.mark.parametrize(
    ("scenario", "line"),
    [
        (["not", "an", "object"], "FAIL <unnamed>: a scenario must be an object, got a list"),
        (None, "FAIL <unnamed>: a scenario must be an object, got null"),
        ({"name": ["x"], "setup": None}, "FAIL ['x']: setup must be an object such as"),
        ({"name": "two\nlines", "setup": None}, "FAIL 'two\\nlines': setup must be an object"),
    ],
)
def test_a_scenario_that_is_not_an_object_or_badly_named(scenario: Any, line: str) -> None:
    assert run_scenario(scenario).line().startswith(line)


def test_pile_top_of_an_empty_pile_is_an_empty_list() -> None:
    # A draw-first player takes the only card of the pile: the pile is empty until the discard.
    scenario: dict[str, Any] = {
        "name": "empty-pile",
        "rules": {"preset": "draw_first"},
        "setup": {
            "hands": [["AH", "2C"], ["5H", "9S"]],
            "stock": ["4C"],
            "discards": [["9C"]],
            "to_move": 0,
        },
        "steps": [
            {"play": "draw 9C"},
            {"expect": {"phase": "discard", "pile_top": [], "stock_size": 1}},
            {"play": "discard AH"},
            {"expect": {"pile_top": ["AH"]}},
        ],
    }
    assert run_scenario(scenario).line() == "ok empty-pile"
    scenario["steps"][1] = {"expect": {"pile_top": ["9C"]}}
    assert run_scenario(scenario).reason == "step 2: pile_top is [], expected ['9C']"


def test_game_winners_is_empty_while_the_game_goes_on() -> None:
    scenario = _with(
        ("steps",),
        [
            {"expect": {"game_winners": []}},
            {"play": "yaniv"},
            {"expect": {"phase": "round_over", "game_winners": []}},
        ],
    )
    assert run_scenario(scenario).line() == "ok good"
    scenario["steps"][0] = {"expect": {"game_winners": [0]}}
    assert run_scenario(scenario).reason == "step 1: game_winners is [], expected [0]"


def test_an_expectation_before_any_round_ended_names_the_step() -> None:
    outcome = run_scenario(_with(("steps",), [{"expect": {"winner": 0}}]))
    assert outcome.reason == "step 1: winner: no round has ended"


def test_cards_of_expectations_may_use_any_notation() -> None:
    scenario = _with(
        ("steps",),
        [
            {
                "expect": {
                    "hands": {"0": ["2c", "A♥"]},
                    "pile_top": ["9c"],
                    "legal_draws": ["STOCK", "9♣"],
                }
            }
        ],
    )
    assert run_scenario(scenario).line() == "ok good"


def test_an_unexpected_error_is_one_fail_line_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(game: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setitem(runner.CHECKS, "stock_size", boom)
    path = tmp_path / "two.json"
    first = _with(("steps",), [{"expect": {"stock_size": 1}}])
    first["name"] = "first"
    path.write_text(json.dumps([first, GOOD]))
    lines: list[str] = []
    assert run_files([path], lines.append) == (1, 1)
    assert lines == ["FAIL first: unexpected RuntimeError: boom", "ok good", "1 passed, 1 failed"]


def test_unreadable_files_are_named_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    folder = tmp_path / "folder.json"
    folder.mkdir()
    not_json = tmp_path / "not.json"
    not_json.write_text("[{")
    not_utf8 = tmp_path / "latin1.json"
    not_utf8.write_bytes(b'["\xe9"]')
    not_a_list = tmp_path / "object.json"
    not_a_list.write_text(json.dumps(GOOD))
    too_deep = tmp_path / "deep.json"
    too_deep.write_text("[" * 100_000 + "]" * 100_000)
    good = tmp_path / "good.json"
    good.write_text(json.dumps([GOOD]))
    files = [missing, folder, not_json, not_utf8, not_a_list, too_deep, good]
    assert main([str(p) for p in files]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(files) + 1
    for path, line in zip(files[:-1], lines, strict=False):
        assert line.startswith(f"FAIL {path}: cannot read scenarios: "), line
    assert "No such file" in lines[0]
    assert "Expecting" in lines[2]
    assert "codec can't decode" in lines[3]
    assert lines[4].endswith("expected a JSON list of scenario objects, got an object")
    assert "recursion" in lines[5]
    assert lines[-2:] == ["ok good", "1 passed, 6 failed"]


def test_an_entry_that_is_not_an_object_fails_alone(tmp_path: Path) -> None:
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([5, GOOD, {"setup": "x"}]))
    lines: list[str] = []
    assert run_files([path], lines.append) == (1, 2)
    assert lines == [
        f"FAIL {path}#1: a scenario must be an object, got the number 5",
        "ok good",
        f'FAIL {path}#3: setup must be an object such as {{"hands": [...], "discards": [...], '
        "\"to_move\": 0}, got the string 'x'",
        "1 passed, 2 failed",
    ]


def test_lines_print_on_a_terminal_that_cannot_show_them(tmp_path: Path) -> None:
    named = dict(GOOD, name="T♥")
    unprintable = dict(GOOD, name="T♥-and-\udc80")
    path = tmp_path / "odd.json"
    path.write_text(json.dumps([named, unprintable]))
    env = dict(os.environ, PYTHONIOENCODING="ascii", PYTHONUTF8="0")
    done = subprocess.run(
        [sys.executable, "-m", "yaniv.scenarios", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "ok T\\u2665",
        "ok 'T\\u2665-and-\\udc80'",
        "2 passed, 0 failed",
    ]
