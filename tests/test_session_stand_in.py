"""The table remembers which moves a stand-in (the computer) made for a person, marks the
events that tell of them for every viewer, and keeps them in the record over a resume."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from yaniv import Phase, RuleSet, SetupError
from yaniv.events import Passed, Showdown
from yaniv.moves import YANIV
from yaniv.session import Seat, Table


def played(table: Table, rng: random.Random, limit: int = 400) -> list[tuple[int, int, bool]]:
    """Random legal moves (a Yaniv late) until the round is over, every third move of seat 0
    made 'by the stand-in'; (round, index, stand_in) of each."""
    out: list[tuple[int, int, bool]] = []
    for n in range(limit):
        if table.phase is Phase.ROUND_OVER or table.phase is Phase.GAME_OVER:
            break
        seat = table.to_move
        assert seat is not None
        moves = list(table.view(seat).legal_moves)
        calls = [m for m in moves if m == YANIV]
        move = calls[0] if calls and n > 30 else rng.choice([m for m in moves if m != YANIV])
        stand_in = seat == 0 and n % 3 == 0
        out.append((table.game.round_no, len(table.game.moves), stand_in))
        table.play(seat, move, stand_in=stand_in)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_viewer_sees_the_same_moves_marked(seed: int, tmp_path: Path) -> None:
    rules = RuleSet.preset("standard", slapdown="rank")
    path = tmp_path / "game.json"
    table = Table(rules, [Seat("A", "remote"), Seat("B", "remote")], seed=seed, record_path=path)
    moves = played(table, random.Random(seed))
    marked = {(r, i) for r, i, s in moves if s}
    assert marked and table.stand_in_moves == marked
    by_move = [s for _, _, s in moves]
    for viewer in (None, 0, 1):
        events = table.view(viewer).events
        flags = table.stand_in_flags(events)
        assert len(flags) == len(events)
        # each move event in order is one move; a pass is seen by its player alone
        move_events = [
            (e, f)
            for e, f in zip(events, flags, strict=True)
            if type(e).__name__ in ("Discarded", "Drew", "Slapped", "Passed", "Showdown")
        ]
        expected = [
            s
            for (seat, move), s in zip(table.game.moves, by_move, strict=True)
            if not (str(move) == "pass" and viewer != seat)
        ]
        assert [f for _, f in move_events] == expected, viewer
        for event, flag in move_events:
            if flag:
                seat = event.result.caller if isinstance(event, Showdown) else event.seat
                assert seat == 0 and (viewer == 0 or not isinstance(event, Passed))
    # the record keeps them; a resumed table knows them
    again = Table.resume(path)
    assert again.stand_in_moves == marked
    assert again.record_extra()["table"]["stand_in"] == [list(x) for x in sorted(marked)]


def test_a_bad_stand_in_entry_is_refused_in_words() -> None:
    for bad in ([1], [0, 1], ["1", 2], [1, -1], [True, 0], "x"):
        with pytest.raises(SetupError, match="a stand-in move is"):
            Table(RuleSet(), [Seat("A"), Seat("B")], seed=1, stand_in_moves=[bad])  # type: ignore[list-item]
