"""Views show one seat's knowledge only; records replay exactly; the CLI prints them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from yaniv import Game, Phase, RecordError, RuleSet, record
from yaniv.cards import NAMES, parse_card
from yaniv.cli import app
from yaniv.moves import YANIV
from yaniv.view import PlayerView

PRESET_NAMES = ["standard", "quick", "hebrew", "draw_first", "slapdown"]


def played(seed: int, preset: str = "standard", players: int = 3, moves: int = 10_000) -> Game:
    game = Game.new(RuleSet.preset(preset), players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        legal = game.legal_moves()
        game.play(YANIV if YANIV in legal and rng.random() < 0.7 else rng.choice(legal))
    return game


def tokens(data: object) -> set[str]:
    if isinstance(data, str):
        return set(data.split())
    if isinstance(data, list):
        return set().union(*map(tokens, data)) if data else set()
    if isinstance(data, dict):
        return tokens(list(data.values()))
    return set()


@given(st.integers(0, 10_000), st.sampled_from(PRESET_NAMES), st.integers(2, 5),
       st.integers(0, 120))
def test_a_view_never_shows_a_hidden_card(seed: int, preset: str, players: int,
                                          moves: int) -> None:
    game = played(seed, preset, players, moves)
    if game.phase >= Phase.ROUND_OVER:
        return
    for seat in range(players):
        view = game.view(seat)
        data = view.to_dict()
        data.pop("result")  # the last showdown, public to all, of cards since reshuffled
        shown = tokens(data)
        for other in range(players):
            hidden = {c for c in game.hand(other) if not game.known[other] >> c & 1}
            if other != seat:
                assert not {NAMES[c] for c in hidden} & shown, (seat, other)
        assert sorted(view.hand) == game.hand(seat)
        assert PlayerView.from_json(view.to_json()) == view


def test_view_facts() -> None:
    game = Game.from_position(None, [["KS", "4C"], ["AH", "2H"], ["5C", "6D"]],
                              ["3C", "8S"], [["9C"], ["7H", "8H", "9H"]], to_move=0)
    game.play("discard KS")
    game.play("draw 9H")
    view = game.view(2)
    assert view.known[0] == (parse_card("9H"),)
    assert view.hand_sizes == (2, 2, 2)
    assert view.to_move == 1 and not view.my_turn and view.legal_moves == ()
    assert view.events == ((0, "discard KS"), (0, "draw 9H"))
    assert parse_card("KS") not in view.unseen() and parse_card("9H") not in view.unseen()
    assert parse_card("AH") in view.unseen() and parse_card("3C") in view.unseen()
    mover = game.view(1)
    assert mover.my_turn and {str(m) for m in mover.legal_moves} == {"yaniv", "discard AH",
                                                                 "discard 2H"}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_records_replay_every_position(preset: str, tmp_path: Path) -> None:
    game = played(3, preset, players=4)
    path = record.save(game, tmp_path / "game.json")
    data = record.load(path)
    assert data["format"] == "yaniv-record" and data["version"] == 1
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
    assert "draw stock (" in result.output  # a replay names the card drawn from the stock
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 1 and "not a yaniv record" in result.output
    result = runner.invoke(app, ["rules", "hebrew", "--json"])
    assert json.loads(result.output) == RuleSet.preset("hebrew").to_dict()
    result = runner.invoke(app, ["rules", "quick", "-o", "bogus=1"])
    assert result.exit_code != 0 and "unknown option 'bogus'" in result.output


def test_the_public_log_names_every_move_and_refill() -> None:
    # Two players who never call: rounds run long enough for the stock to be refilled.
    game = Game.new(RuleSet(yaniv_threshold=0), 2, seed=6)
    rng = random.Random(6)
    seen = []
    while not game.refills or len(game.moves) < game.refills[0][0] + 3:
        legal = [m for m in game.legal_moves() if m != YANIV]
        game.play(rng.choice(legal))
        if rng.random() < 0.3:
            seen.append(game.view(0).events)  # built step by step, as during a game
    expected: list[tuple[int, str]] = []
    for i, (seat, move) in enumerate(game.moves):
        expected.append((seat, str(move)))
        expected += [(-1, f"refill {len(stock)}") for at, stock in game.refills if at == i + 1]
    assert game.view(1).events == tuple(expected)
    assert game.clone().view(0).events == tuple(expected)
    assert all(tuple(expected[: len(log)]) == log for log in seen)
    assert (-1, f"refill {len(game.refills[0][1])}") in expected
