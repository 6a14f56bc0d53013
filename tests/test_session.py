"""The table layer: seats, turns, the story in words, the record after every move, resume."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from yaniv import IllegalMoveError, Phase, RecordError, RuleSet, SetupError, record
from yaniv.bots.base import BOTS, register
from yaniv.cards import NAMES, parse_card
from yaniv.events import Drew
from yaniv.game import Game
from yaniv.moves import PASS, YANIV, Move, parse_move
from yaniv.narration import Narrator, describe_turn, result_headline
from yaniv.session import Seat, Table
from yaniv.view import PlayerView


def seats(levels: tuple[str, ...] = ("easy", "medium")) -> list[Seat]:
    return [Seat("You")] + [
        Seat(f"Bot{i}", "bot", level=lv, seed=i) for i, lv in enumerate(levels, 1)
    ]


def person_move(table: Table, rng: random.Random) -> Move:
    view = table.view(0)
    moves = [m for m in view.legal_moves if m != YANIV]
    return rng.choice(moves or list(view.legal_moves))


def test_a_table_runs_turns_for_people_and_bots(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    table = Table(RuleSet(), seats(), seed=5, record_path=path)
    rng = random.Random(5)
    people = 0
    while table.phase is not Phase.ROUND_OVER and people < 40:
        if table.waiting_for == 0:
            with pytest.raises(IllegalMoveError, match="seat 1 is not to move; seat 0 is"):
                table.play(1, table.view(0).legal_moves[0])
            table.play(0, person_move(table, rng))
            people += 1
        else:
            seat = table.automatic_to_act
            assert seat in (1, 2)
            table.play(seat, table.decide(seat))
        # The record on disk is the game as it stands, after every move.
        assert record.replay(record.load(path)).fingerprint() == table.game.fingerprint()
    assert people > 0
    assert json.loads(path.read_text())["table"]["seats"][1] == {
        "name": "Bot1",
        "kind": "bot",
        "level": "easy",
        "seed": 1,
    }
    table.close()


def test_a_saved_table_resumes_exactly(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    table = Table(
        RuleSet.preset("hebrew"),
        [Seat(f"B{i}", "bot", level="easy", seed=i) for i in range(3)],
        seed=8,
        record_path=path,
    )
    table.play_automatic(deal=True, limit=70)
    resumed = Table.resume(path, record_path=tmp_path / "copy.json")
    assert resumed.seats == table.seats
    assert resumed.game.fingerprint() == table.game.fingerprint()
    # Bots start afresh on resume, so the same moves are played into both: the deals and
    # refills that follow are the same.
    while not table.game.is_over:
        if table.phase is Phase.ROUND_OVER:
            table.next_round()
            resumed.next_round()
            continue
        seat = table.automatic_to_act
        assert seat is not None
        move = table.decide(seat)
        table.play(seat, move)
        resumed.play(seat, move)
    assert record.dumps(resumed.game) == record.dumps(table.game)


def test_resume_says_what_is_wrong(tmp_path: Path) -> None:
    game = Game.new(RuleSet(), 2, seed=1, names=["A", "B"])
    bare = record.save(game, tmp_path / "bare.json")
    with pytest.raises(RecordError, match="does not say who sat at the table"):
        Table.resume(bare)
    with pytest.raises(RecordError, match="are not the record's players"):
        Table.resume(bare, [Seat("A"), Seat("C")])
    table = Table.resume(bare, [Seat("A"), Seat("B", "bot", level="random")])
    assert table.automatic_to_act == 1


@pytest.mark.parametrize(
    ("seat", "words"),
    [
        (Seat(""), "a seat needs a name"),
        (Seat("x" * 41), "40 characters at most"),
        (Seat("A", "alien"), "seat kind 'alien'"),
        (Seat("A", "bot", level="godlike"), "unknown bot level 'godlike'"),
        (Seat("A", "program"), "a program seat needs a command"),
    ],
)
def test_bad_seats_are_refused(seat: Seat, words: str) -> None:
    with pytest.raises(SetupError, match=words):
        Table(RuleSet(), [Seat("You"), seat])


def test_a_failing_computer_player_does_not_stop_the_game() -> None:
    class Broken:
        name = "broken"

        def choose(self, view: PlayerView) -> Move:
            return parse_move("discard AS AH AD AC")  # never legal here

    register("broken-test")(lambda seed: Broken())
    try:
        table = Table(
            RuleSet(),
            [Seat("A", "bot", level="broken-test"), Seat("B", "bot", level="random", seed=1)],
            seed=2,
        )
        move = table.decide(1 if table.to_move == 1 else 0)
        assert move in table.view(table.to_move).legal_moves
        if table.to_move == 0:
            assert "answered discard AS AH AD AC, which is not legal now" in table.notes[0]
        table.play_automatic(limit=30)
        assert any(
            note.startswith("A answered discard AS AH AD AC, which is not legal now; played ")
            for note in table.notes
        )
    finally:
        del BOTS["broken-test"]


def test_decisions_run_on_the_tables_worker_and_close_stops_it() -> None:
    table = Table(RuleSet(), seats(("medium",)), seed=3)
    seat = table.automatic_to_act
    assert seat == 1
    future = table.decide_async(seat)
    move = future.result(timeout=30)
    assert move in table.view(1).legal_moves
    table.close()
    with pytest.raises(Exception, match="closed"):
        table.decide_async(1)


def test_play_automatic_finishes_a_game_of_bots_and_waits_for_people() -> None:
    table = Table(
        RuleSet.preset("quick"),
        [Seat(f"B{i}", "bot", level="easy", seed=i) for i in range(4)],
        seed=4,
    )
    played = table.play_automatic(deal=True)
    assert table.game.is_over and played > 10
    people = Table(RuleSet(), seats(), seed=6)
    people.play_automatic()
    assert people.waiting_for == 0
    with pytest.raises(IllegalMoveError, match="You must play first"):
        people.play_automatic(until_human=False)


def test_the_story_names_a_stock_card_to_its_drawer_only() -> None:
    table = Table(
        RuleSet(),
        [Seat("Avi", "bot", level="random", seed=2), Seat("Dana", "bot", level="random", seed=1)],
        seed=9,
    )
    table.play_automatic(limit=12)
    dana = table.story(1)
    spectator = table.story(None)
    assert dana[0].text.startswith("Round 1: You start, ") and dana[0].seat == -1
    assert spectator[0].text.startswith("Round 1: Dana starts, ")
    turns = [line for line in spectator if line.seat >= 0]
    assert len(turns) >= 5 and all(line.done == line.text.endswith(".") for line in turns)
    drawn = [
        e.card
        for e in table.events_since(0, 1)
        if isinstance(e, Drew) and e.source == "stock" and e.seat == 1
    ]
    assert drawn, "this seed has Dana draw from the stock"
    card = NAMES[drawn[0] or 0]
    assert any(f"and draw {card} from the stock" in line.text for line in dana)
    assert not any(f"{card} from the stock" in line.text for line in spectator)
    assert not any(f"{card} from the stock" in line.text for line in table.story(0))


def test_the_narrator_tells_turns_slaps_and_results() -> None:
    game = Game.from_position(
        RuleSet.preset("slapdown"),
        [["5H", "KC", "QD"], ["AH", "2H"]],
        ["5S", "8C"],
        [["9C"]],
        0,
        names=["Avi", "Noa"],
    )
    game.play("discard 5H")
    game.play("draw stock")
    game.play(PASS)
    game.play("yaniv")
    mine, spectator = Narrator(game.names, 0), Narrator(game.names, None)
    mine.read(game.events_since(0, 0))
    spectator.read(game.events_since(0, None))
    assert mine.texts()[0] == "You discard 5H and draw 5S from the stock, then keep it."
    assert spectator.texts()[0] == "Avi discards 5H and draws from the stock."
    assert spectator.texts()[1] == "Noa calls Yaniv!"
    assert game.result is not None
    assert spectator.texts()[2] == result_headline(game.result, game.names) + "."
    assert describe_turn("You", [parse_move("draw 9C")], you=True) == "You take 9C from the pile"
    assert parse_card("5S") not in game.view(1).hand


def test_the_coach_speaks_for_the_seat_to_act() -> None:
    table = Table(RuleSet(), [Seat("You"), Seat("Dana", "bot", level="easy", seed=1)], seed=9)
    table.play_automatic()
    figures: dict[str, Any] = table.coach(0)
    assert figures["advice"] and all(
        parse_move(a["move"]) in table.view(0).legal_moves for a in figures["advice"]
    )
    assert table.coach(1) == {"yaniv_probability": None, "advice": []}


def test_the_coach_is_told_the_opponents_level_where_they_are_all_bots_of_one() -> None:
    def level_seen(levels: tuple[str, ...], seat: int = 0) -> str | None:
        table = Table(RuleSet(), seats(levels), seed=2)
        return table.opponents_level(table.view(seat))

    assert level_seen(("easy",)) == "easy"
    assert level_seen(("expert", "expert", "expert")) == "expert"
    assert level_seen(("easy", "medium")) is None  # mixed levels: the general odds
    assert level_seen(("easy", "easy"), seat=1) is None  # a person among the opponents


def test_the_coachs_odds_at_a_table_of_bots_of_one_level_are_that_levels() -> None:
    from yaniv.bots.coach import yaniv_success_probability

    rules = RuleSet.preset("standard", yaniv_threshold=50)  # a call is open at once
    table = Table(rules, seats(("expert",)), seed=1)
    table.play_automatic()
    view = table.view(0)
    assert view.can_yaniv
    chance = table.coach(0)["yaniv_probability"]
    assert chance == yaniv_success_probability(view, "expert")
    assert chance != yaniv_success_probability(view)  # the general odds differ
