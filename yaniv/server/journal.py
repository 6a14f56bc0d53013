"""A game's record as JSON text, rebuilt cheaply after every move.

``record.dumps`` encodes the whole game, indented, on every call; the server stores the record
after every move, so here each finished round is encoded once and kept, and only the round in
play is encoded again. The text is compact JSON that ``record.loads`` reads to the same data
as ``record.dumps`` gives (the same keys in the same order, without the indentation).
"""

from __future__ import annotations

import json
from typing import Any

from ..game import Game
from ..record import FORMAT, VERSION, _round_dict
from ..state import RoundLog


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
        reserved = {"format", "version", "rules", "seed", "players", "rounds", "winners"}
        self._tail = "".join(
            f",{_compact(k)}:{_compact(v)}" for k, v in extra.items() if k not in reserved
        )
        self._done: list[tuple[RoundLog, str]] = []  # finished rounds, encoded once

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
            rounds.append(_compact(_round_dict(game.deal, game.moves, game.refills, None)))
        return (
            f"{self._head}{','.join(rounds)}],"
            f'"winners":{_compact(list(game.winners))}{self._tail}}}\n'
        )
