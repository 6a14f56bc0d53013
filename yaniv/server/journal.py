"""A game's record as JSON text, rebuilt cheaply after every move.

``record.dumps`` encodes the whole game, indented, on every call; the server stores the record
after every move, so here each finished round is encoded once and kept, and of the round in
play only the moves made since the last call are encoded. The text is compact JSON that
``record.loads`` reads to the same data as ``record.dumps`` gives (the same keys in the same
order, without the indentation).
"""

from __future__ import annotations

import json
from typing import Any

from ..cards import NAMES
from ..events import Event, event_to_dict
from ..game import Game
from ..record import FORMAT, VERSION, _deal_dict, _round_dict
from ..state import RoundLog
from ..view import PlayerView


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class RecordText:
    """The record of one table's game, with the table's extra keys (its seats)."""

    def __init__(self, game: Game, extra: dict[str, Any]) -> None:
        self.game = game
        self._head = (
            f'{{"format":{_compact(FORMAT)},"version":{VERSION},'
            f'"rules":{_compact(game.rules.to_dict())},"seed":{_compact(game.seed)},'
            f'"players":{_compact(list(game.names))},"rounds":['
        )
        self._tail = ""
        self.set_extra(extra)
        self._done: list[tuple[RoundLog, str]] = []  # finished rounds, encoded once
        # The round in play: its deal encoded, its moves encoded so far (how many, the last).
        self._deal: tuple[Any, str] | None = None
        self._moves_text = ""
        self._known = 0
        self._last: Any = None
        self._refills: tuple[Any, int, str] = (None, 0, "")

    def set_extra(self, extra: dict[str, Any]) -> None:
        """The table's extra keys from now on (the moves a stand-in made grow in a game)."""
        reserved = {"format", "version", "rules", "seed", "players", "rounds", "winners"}
        self._tail = "".join(
            f",{_compact(k)}:{_compact(v)}" for k, v in extra.items() if k not in reserved
        )

    def _in_play(self) -> str:
        """The round in play as ``_round_dict`` gives it (no result yet), in compact JSON."""
        game = self.game
        assert game.deal is not None  # text() checked it
        moves = game.moves
        known = self._known
        # The game appends to its moves, keeping each tuple: when the last move encoded is
        # still in its place, only the moves after it are new; else all is encoded again.
        if (
            self._deal is None
            or self._deal[0] is not game.deal
            or len(moves) < known
            or (known and moves[known - 1] is not self._last)
        ):
            self._deal = (game.deal, _compact(_deal_dict(game.deal)))
            self._moves_text, known = "", 0
        if len(moves) > known:
            new = ",".join(_compact([seat, str(move)]) for seat, move in moves[known:])
            self._moves_text = f"{self._moves_text},{new}" if known else new
            self._known, self._last = len(moves), moves[-1]
        # The refills only grow within a round (a new list at each deal): encoded again only then.
        if self._refills[0] is not game.refills or self._refills[1] != len(game.refills):
            text = _compact([[at, [NAMES[c] for c in stock]] for at, stock in game.refills])
            self._refills = (game.refills, len(game.refills), text)
        refills = self._refills[2]
        return (
            f'{{"deal":{self._deal[1]},"moves":[{self._moves_text}],'
            f'"refills":{refills},"result":null}}'
        )

    def text(self) -> str:
        """The record now, as ``record.to_record`` would give it, in compact JSON."""
        game = self.game
        if game.deal is None:
            raise ValueError("a position built directly has no deal, so it cannot be recorded")
        history = game.history
        done = self._done
        del done[len(history) :]
        for i, log in enumerate(history):
            if i < len(done) and done[i][0] is log:
                continue
            del done[i:]
            done.append((log, _compact(_round_dict(log.deal, log.moves, log.refills, log.result))))
        rounds = [text for _, text in done]
        if not (history and history[-1].deal is game.deal):
            rounds.append(self._in_play())
        return (
            f"{self._head}{','.join(rounds)}],"
            f'"winners":{_compact(list(game.winners))}{self._tail}}}\n'
        )


def view_dict(view: PlayerView, seen: dict[int, tuple[int, Event, list[Any]]]) -> dict[str, Any]:
    """``view.to_dict()``, the round's events encoded only once for each seat.

    A view holds every event of the round, so encoding them all for every view of every move
    cost a busy server most of its time. ``seen`` is the caller's, for one game: per seat,
    the round, the last event encoded and the events encoded so far; a seat's events of a
    round only grow, so only those after the last one encoded are new.
    """
    data = view.to_dict(events=False)
    events = view.events
    entry = seen.get(view.seat)
    if entry is None or entry[0] != view.round_no:
        encoded: list[Any] = []
    else:
        encoded = entry[2]
        if len(events) < len(encoded) or (encoded and events[len(encoded) - 1] != entry[1]):
            encoded = []
    encoded.extend(event_to_dict(e) for e in events[len(encoded) :])
    if events:
        seen[view.seat] = (view.round_no, events[-1], encoded)
    data["events"] = list(encoded)  # a copy: the cached list grows
    return data
