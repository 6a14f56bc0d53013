"""Views show one seat's knowledge only; records replay exactly; the CLI prints them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from strategies import played
from typer.testing import CliRunner

from yaniv import Game, RecordError, RuleSet, record
from yaniv.cards import parse_card
from yaniv.cli import app
from yaniv.events import Dealt, Discarded, Drew, Event, Refilled
from yaniv.moves import YANIV, Discard, Draw

PRESET_NAMES = ["standard", "quick", "hebrew", "draw_first", "slapdown"]


def tokens(data: object) -> set[str]:
    if isinstance(data, str):
        return set(data.split())
    if isinstance(data, list):
        return set().union(*map(tokens, data)) if data else set()
    if isinstance(data, dict):
        return tokens(list(data.values()))
    return set()


def test_view_facts() -> None:
    game = Game.from_position(
        None,
        [["KS", "4C"], ["AH", "2H"], ["5C", "6D"]],
        ["3C", "8S"],
        [["9C"], ["7H", "8H", "9H"]],
        to_move=0,
    )
    game.play("discard KS")
    game.play("draw 9H")
    view = game.view(2)
    assert view.known[0] == (parse_card("9H"),)
    assert view.hand_sizes == (2, 2, 2)
    assert view.to_move == 1 and not view.my_turn and view.legal_moves == ()
    assert view.events == (Discarded(0, (parse_card("KS"),)), Drew(0, "pile", parse_card("9H")))
    assert parse_card("KS") not in view.unseen() and parse_card("9H") not in view.unseen()
    assert parse_card("AH") in view.unseen() and parse_card("3C") in view.unseen()
    mover = game.view(1)
    assert mover.my_turn and {str(m) for m in mover.legal_moves} == {
        "yaniv",
        "discard AH",
        "discard 2H",
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_records_replay_every_position(preset: str, tmp_path: Path) -> None:
    game = played(3, preset, players=4)
    path = record.save(game, tmp_path / "game.json")
    data = record.load(path)
    assert data["format"] == "yaniv-record" and data["version"] == 2
    replayed = record.replay(data)
    assert replayed.fingerprint() == game.fingerprint()
    assert record.dumps(replayed) == path.read_text()


def test_an_unfinished_game_records_its_current_round() -> None:
    game = played(5, moves=7)
    assert not game.is_over
    replayed = record.replay(json.loads(record.dumps(game)))
    assert replayed.fingerprint() == game.fingerprint()


def test_bad_records_say_what_is_wrong(tmp_path: Path) -> None:
    game = played(8, moves=30)
    good = record.to_record(game)
    cases = {
        "not json": ("{", "is not JSON"),
        "other": (json.dumps({"format": "chess"}), "is not a yaniv record"),
        "version": (json.dumps({**good, "version": 99}), "record version 99"),
    }
    tampered = json.loads(json.dumps(good))
    tampered["rounds"][0]["moves"][0][1] = "discard AH 2H 3H 4H"
    cases["move"] = (json.dumps(tampered), "does not replay")
    turn = json.loads(json.dumps(good))
    turn["rounds"][0]["moves"][0][0] = 0
    cases["seat"] = (json.dumps(turn), "but seat 1 is to move")
    for name, (text, fragment) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        with pytest.raises(RecordError) as info:
            record.replay(record.load(path))
        assert fragment in str(info.value), name


def test_replay_and_rules_commands(tmp_path: Path) -> None:
    game = played(2, players=2)
    path = record.save(game, tmp_path / "g.json")
    runner = CliRunner()
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "Round 1" in result.output and "Game over." in result.output
    assert result.output.count(": yaniv with ") == len(game.history)
    # A replay names every card drawn from the stock.
    assert "from the stock." in result.output and "draws from the stock" not in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 1 and "not a yaniv record" in result.output
    result = runner.invoke(app, ["rules", "hebrew", "--json"])
    assert json.loads(result.output) == RuleSet.preset("hebrew").to_dict()
    result = runner.invoke(app, ["rules", "quick", "-o", "bogus=1"])
    assert result.exit_code != 0 and "unknown option 'bogus'" in result.output


def test_the_events_name_every_move_and_refill() -> None:
    # Two players who never call: rounds run long enough for the stock to be refilled.
    game = Game.new(RuleSet(yaniv_threshold=0), 2, seed=6)
    rng = random.Random(6)
    seen = []
    while not game.refills or len(game.moves) < game.refills[0][0] + 3:
        legal = [m for m in game.legal_moves() if m != YANIV]
        game.play(rng.choice(legal))
        if rng.random() < 0.3:
            seen.append(game.view(0).events)  # built step by step, as during a game
    deal = game.deal
    assert deal is not None
    expected: list[Event] = [Dealt(1, 1, deal.up, (None, None), (5, 5), (0, 0))]
    for i, (seat, move) in enumerate(game.moves):
        if isinstance(move, Discard):
            expected.append(Discarded(seat, move.cards))
        elif isinstance(move, Draw):
            expected.append(Drew(seat, "stock" if move.card is None else "pile", move.card))
        expected += [Refilled(len(stock)) for at, stock in game.refills if at == i + 1]
    # A spectator sees no card drawn from the stock; seat 0 sees its own, seat 1's not.
    assert game.events_since(0, None) == expected
    mine = game.events_since(0, 0)
    own = [
        i for i, e in enumerate(mine) if isinstance(e, Drew) and e.seat == 0 and e.source == "stock"
    ]
    assert own and all(mine[i].card is not None for i in own)  # type: ignore[union-attr]
    assert [e.seen_by(None) for e in mine] == expected
    assert game.view(0).events == tuple(mine)
    assert game.events_since(5, 0) == mine[5:]
    assert game.clone().view(0).events == game.view(0).events
    assert all(game.view(0).events[: len(log)] == log for log in seen)
    assert Refilled(len(game.refills[0][1])) in mine
