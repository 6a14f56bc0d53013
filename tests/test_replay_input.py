"""`yaniv replay` on bad files: each refusal is exit status 1 and one error line in words that
names what is wrong, never a traceback, a hang or Rich markup read from the record."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from strategies import played
from typer.testing import CliRunner

from yaniv import Game, RecordError, cli, record
from yaniv.cli import app

Tamper = Callable[[dict[str, Any]], None]


def a_game(seed: int) -> Game:
    """A short seeded game played to its end, with at least one stock refill."""
    return played(seed, "quick", players=2, moves=100_000)


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(record.dumps(a_game(2)))
    assert any(r["refills"] for r in data["rounds"]), "the game must refill the stock once"
    return data


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console wide enough that an error stays on one line (the tests read it whole)."""
    monkeypatch.setattr(cli, "console", Console(highlight=False, width=1000))


def replay(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["replay", str(path)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"replay raised {result.exception!r}:\n{result.output}")
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def refused(path: Path, *fragments: str) -> str:
    """Replay ``path``: exit status 1 and an error line holding every fragment."""
    code, output = replay(path)
    assert code == 1, output
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output
    for fragment in fragments:
        assert fragment in errors[0], (fragment, errors[0])
    return errors[0]


def write(tmp_path: Path, data: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def tampered(good: dict[str, Any], change: Tamper) -> dict[str, Any]:
    data = copy.deepcopy(good)
    change(data)
    return data


def _deal(data: dict[str, Any]) -> dict[str, Any]:
    deal: dict[str, Any] = data["rounds"][0]["deal"]
    return deal


def _first_refill(data: dict[str, Any]) -> tuple[int, list[str]]:
    number, rnd = next((n, r) for n, r in enumerate(data["rounds"], 1) if r["refills"])
    stock: list[str] = rnd["refills"][0][1]
    return number, stock


def test_the_untampered_record_replays(good: dict[str, Any], tmp_path: Path) -> None:
    code, output = replay(write(tmp_path, good))
    assert code == 0, output
    assert "Game over." in output and "error" not in output


CARDS_NOT_TEXT: dict[str, tuple[Tamper, tuple[str, ...]]] = {
    "up is 5": (
        lambda d: _deal(d).__setitem__("up", 5),
        ("round 1", 'the deal\'s "up" must be a card name', "not 5"),
    ),
    "up is null": (
        lambda d: _deal(d).__setitem__("up", None),
        ("round 1", 'the deal\'s "up" must be a card name', "not null"),
    ),
    "a stock entry is 7": (
        lambda d: _deal(d)["stock"].__setitem__(2, 7),
        ("round 1", 'card 3 of the deal\'s "stock"', "not 7"),
    ),
    "a hand entry is null": (
        lambda d: _deal(d)["hands"][1].__setitem__(0, None),
        ("round 1", "card 1 of the deal's hand 1", "not null"),
    ),
    "a refill entry is a list": (
        lambda d: _first_refill(d)[1].__setitem__(0, ["AH"]),
        ("the stock of refill 1", "not ['AH']"),
    ),
    "a card name that is no card": (
        lambda d: _deal(d).__setitem__("up", "ZZ"),
        ('the deal\'s "up"', "unknown card 'ZZ'"),
    ),
}


@pytest.mark.parametrize("case", list(CARDS_NOT_TEXT))
def test_a_card_that_is_not_a_card_name_is_refused_naming_where(
    case: str, good: dict[str, Any], tmp_path: Path
) -> None:
    change, fragments = CARDS_NOT_TEXT[case]
    refused(write(tmp_path, tampered(good, change)), *fragments)


@pytest.mark.parametrize("opener,closer", [("[", "]"), ('{"a":', "}")])
def test_a_deeply_nested_file_is_refused_as_nested_too_deeply(
    opener: str, closer: str, tmp_path: Path
) -> None:
    path = write(tmp_path, opener * 100_000 + "1" * (opener == '{"a":') + closer * 100_000)
    line = refused(path, "nested too deeply")
    assert "RecursionError" not in line


def test_players_as_a_string_is_refused_not_read_as_names(
    good: dict[str, Any], tmp_path: Path
) -> None:
    path = write(tmp_path, tampered(good, lambda d: d.__setitem__("players", "abc")))
    refused(path, '"players" must be a list of 2 to 8 names', "not 'abc'")
    with pytest.raises(RecordError, match="players"):
        record.check(tampered(good, lambda d: d.__setitem__("players", "abc")))


def test_a_player_name_that_is_not_text_is_refused(good: dict[str, Any], tmp_path: Path) -> None:
    path = write(tmp_path, tampered(good, lambda d: d["players"].__setitem__(1, ["x"])))
    refused(path, "player 1's name must be text", "not ['x']")


def test_a_400_kb_player_name_is_refused_quickly(good: dict[str, Any], tmp_path: Path) -> None:
    path = write(tmp_path, tampered(good, lambda d: d["players"].__setitem__(0, "x" * 400_000)))
    start = time.perf_counter()
    line = refused(path, "player 0's name is 400000 characters long", "the limit is 200")
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, f"refusing a long name took {elapsed:.3f}s"
    assert len(line) < 300  # the name is not echoed


def test_names_that_look_like_markup_print_literally(good: dict[str, Any], tmp_path: Path) -> None:
    data = tampered(good, lambda d: d.__setitem__("players", ["[/bold]", "[red]x[/red]"]))
    code, output = replay(write(tmp_path, data))
    assert code == 0, output
    assert "MarkupError" not in output
    lines = output.splitlines()
    # The deal lines, every turn, the showdown and the winner name both seats as written.
    assert sum("[/bold]: " in line for line in lines) > len(good["rounds"])
    assert sum("[red]x[/red]: " in line for line in lines) > len(good["rounds"])
    assert any(
        line.startswith("Game over. Winner: ") and ("[/bold]" in line or "[red]x[/red]" in line)
        for line in lines
    )
    assert "starts" in output and ("[red]x[/red] starts" in output or "[/bold] starts" in output)


def test_names_with_control_characters_print_as_escapes(
    good: dict[str, Any], tmp_path: Path
) -> None:
    names = ["\x1b]0;owned\x07\x1b[2J", "two\nlines\u202e"]
    code, output = replay(
        write(tmp_path, tampered(good, lambda d: d.__setitem__("players", names)))
    )
    assert code == 0, output
    assert "\x1b" not in output and "\u202e" not in output and "\x07" not in output
    assert "\\x1b]0;owned\\x07\\x1b[2J" in output and "two\\nlines\\u202e" in output


NOT_SHAPED: dict[str, tuple[Tamper, tuple[str, ...]]] = {
    "a round that is not an object": (
        lambda d: d["rounds"].__setitem__(1, ["deal"]),
        ("round 2: a round must be an object", "not ['deal']"),
    ),
    "a move that is a bare string": (
        lambda d: d["rounds"][0]["moves"].__setitem__(0, "yaniv"),
        ('round 1: move 1 must be a [seat, "move"] pair', "not 'yaniv'"),
    ),
    "a move of three items": (
        lambda d: d["rounds"][0]["moves"][1].append("extra"),
        ('round 1: move 2 must be a [seat, "move"] pair', "'extra'"),
    ),
    "a move whose seat is text": (
        lambda d: d["rounds"][0]["moves"][2].__setitem__(0, "0"),
        ('round 1: move 3 must be a [seat, "move"] pair',),
    ),
    "a move whose text is a number": (
        lambda d: d["rounds"][0]["moves"][0].__setitem__(1, 5),
        ('round 1: move 1 must be a [seat, "move"] pair',),
    ),
    "moves that are an object": (
        lambda d: d["rounds"][0].__setitem__("moves", {"0": "yaniv"}),
        ('round 1: "moves" must be a list of [seat, "move"] pairs',),
    ),
    "a refill with a card twice": (
        lambda d: _first_refill(d)[1].__setitem__(1, _first_refill(d)[1][0]),
        ("the stock of refill 1 holds", "twice"),
    ),
    "a rules object with an unknown option": (
        lambda d: d["rules"].__setitem__("bogus", 1),
        ('"rules"', "unknown option 'bogus'"),
    ),
    "a rules value of the wrong kind": (
        lambda d: d["rules"].__setitem__("jokers", 1.5),
        ('"rules"', "bad value for option 'jokers': 1.5"),
    ),
    "record version 99": (
        lambda d: d.__setitem__("version", 99),
        ("has record version 99", "reads versions 1, 2"),
    ),
    "winners that are not seats": (
        lambda d: d.__setitem__("winners", "0"),
        ('"winners" must be a list of seat numbers',),
    ),
    "no rounds": (lambda d: d.__setitem__("rounds", []), ("has no rounds",)),
}


@pytest.mark.parametrize("case", list(NOT_SHAPED))
def test_a_record_of_the_wrong_shape_is_refused_naming_what(
    case: str, good: dict[str, Any], tmp_path: Path
) -> None:
    change, fragments = NOT_SHAPED[case]
    refused(write(tmp_path, tampered(good, change)), *fragments)


def test_a_refill_with_a_card_twice_is_refused_before_any_turn_prints(
    good: dict[str, Any], tmp_path: Path
) -> None:
    def twice(d: dict[str, Any]) -> None:
        _, stock = _first_refill(d)
        stock[1] = stock[0]

    code, output = replay(write(tmp_path, tampered(good, twice)))
    assert code == 1 and "holds" in output and "twice" in output
    assert "Round 1" not in output  # the shape is checked before the replay prints


def test_a_move_that_does_not_replay_names_its_round_and_number(
    good: dict[str, Any], tmp_path: Path
) -> None:
    path = write(
        tmp_path,
        tampered(good, lambda d: d["rounds"][1]["moves"][3].__setitem__(1, "discard AH 2H 3H 4H")),
    )
    refused(path, "does not replay", "round 2, move 4 ('discard AH 2H 3H 4H' by seat")


def test_a_file_that_is_not_utf8_is_refused(good: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(
        json.dumps(
            tampered(good, lambda d: d["players"].__setitem__(0, "Zoë")), ensure_ascii=False
        ).encode("latin-1")
    )
    refused(path, "is not UTF-8 text", "byte 0xeb")


@pytest.mark.parametrize("text", ["", "  \n"])
def test_an_empty_file_is_refused_as_empty(text: str, tmp_path: Path) -> None:
    refused(write(tmp_path, text), "is empty")


def test_a_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    refused(write(tmp_path, '{"format": "yaniv-record",'), "is not JSON")


def test_a_number_too_long_to_read_is_refused(good: dict[str, Any], tmp_path: Path) -> None:
    text = json.dumps(good).replace('"seed": 2,', '"seed": ' + "9" * 5000 + ",", 1)
    assert "9" * 5000 in text
    refused(write(tmp_path, text), "holds a number of more than")


def test_a_pipe_longer_than_the_limit_is_refused_after_a_bounded_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pipe (or a device such as /dev/zero) has no size to check first: the read itself must
    stop at the limit. The feeder writes three times the limit, so an unbounded read gets all of
    it and fails otherwise (here without exhausting memory)."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    limit = 1_000_000
    monkeypatch.setattr(record, "MAX_BYTES", limit)
    fifo = tmp_path / "record.pipe"
    os.mkfifo(fifo)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as pipe:
            for _ in range(3):
                pipe.write(b" " * limit)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        refused(fifo, f"longer than the limit of {limit} bytes")
    finally:
        feeder.join(5)
        if feeder.is_alive():  # the replay never opened the pipe: let the feeder go
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
