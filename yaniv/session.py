"""A table that any front end drives: seats, turns, narration, the record, resume, the coach.

A ``Table`` seats people (``human``: a local player, ``remote``: one over a network) and
computer players (``bot``: a built-in level, ``program``: an external program speaking the
bot protocol). Front ends send a seat's moves with ``play`` and ask for views, events and
the story in plain words; computer seats decide off the caller's thread with ``decide_async``
(or at once with ``decide``). The record is saved after every move and deal, with the seats,
so ``Table.resume`` carries a game on exactly where it stopped. No framework, no network, and
the only thread is the table's own decision worker, which ``close`` stops.

>>> table = Table(RuleSet(), [Seat("You"), Seat("Dana", "bot", level="easy", seed=1)], seed=3)
>>> table.waiting_for, table.automatic_to_act
(None, 1)
>>> table.play_automatic(until_human=True) > 0
True
>>> table.close()
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import record
from .bots.base import Bot, bot_names, decides_instantly, get_bot
from .discards import as_laid
from .errors import IllegalMoveError, RecordError, SetupError, YanivError
from .events import Discarded, Drew, Event, Passed, Showdown, Slapped
from .game import Game, Phase
from .moves import YANIV, Discard, Draw, Move, Pass, Slap, Yaniv, parse_move
from .narration import Line, Narrator
from .rules import RuleSet
from .state import RoundResult
from .view import PlayerView

#: The kinds of seat: a local person, a remote person, a built-in bot, an external program.
SEAT_KINDS = ("human", "remote", "bot", "program")
#: The longest name a seat may have.
MAX_NAME = 40
#: The kind of move each kind of move event tells of (a deal and a refill are nobody's move).
_EVENT_MOVES: dict[type, type] = {
    Discarded: Discard,
    Drew: Draw,
    Slapped: Slap,
    Passed: Pass,
    Showdown: Yaniv,
}


@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a name and a kind, with the bot's level or the program's command."""

    name: str
    kind: str = "human"
    level: str | None = None  # kind "bot"
    command: str | None = None  # kind "program"
    seed: int | None = None  # kind "bot": its own randomness

    @property
    def automatic(self) -> bool:
        """Whether the table itself plays this seat (a bot or a program)."""
        return self.kind in ("bot", "program")

    def check(self) -> None:
        """Raise SetupError naming what is wrong with this seat."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise SetupError("a seat needs a name")
        if len(self.name) > MAX_NAME:
            raise SetupError(f"a name may be {MAX_NAME} characters at most, not {len(self.name)}")
        if self.kind not in SEAT_KINDS:
            raise SetupError(f"seat kind {self.kind!r:.20}: one of {', '.join(SEAT_KINDS)}")
        if self.kind == "bot" and self.level not in bot_names():
            raise SetupError(
                f"unknown bot level {self.level!r:.30}; levels: " + ", ".join(bot_names())
            )
        if self.kind == "program" and not (self.command or "").strip():
            raise SetupError(f"seat {self.name!r}: a program seat needs a command")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what a record keeps of the seat)."""
        data: dict[str, Any] = {"name": self.name, "kind": self.kind}
        for key in ("level", "command", "seed"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Seat:
        """The inverse of ``to_dict``; raises SetupError."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise SetupError(f"a seat must be an object with a name, not {data!r:.60}")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise SetupError(f"a seat's seed must be a whole number, not {seed!r:.30}")
        seat = cls(
            data["name"],
            str(data.get("kind", "human")),
            _text(data.get("level")),
            _text(data.get("command")),
            seed,
        )
        seat.check()
        return seat


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class Table:
    """A game at a table: the one place a front end talks to the engine."""

    def __init__(
        self,
        rules: RuleSet,
        seats: Sequence[Seat],
        *,
        seed: int | None = None,
        record_path: str | Path | None = None,
        game: Game | None = None,
        time_limit: float = 10.0,
        stand_in_moves: Iterable[Sequence[int]] = (),
    ) -> None:
        if not seats:
            raise SetupError("a table needs seats")
        for seat in seats:
            seat.check()
        self.seats: tuple[Seat, ...] = tuple(seats)
        self.game = (
            game
            if game is not None
            else Game.new(rules, len(seats), seed, names=[s.name for s in seats])
        )
        if self.game.n != len(self.seats):
            raise SetupError(f"{len(self.seats)} seats for a game of {self.game.n} players")
        self.record_path = None if record_path is None else Path(record_path)
        self.time_limit = time_limit
        self.notes: list[str] = []  # what went wrong with a computer seat, in words
        self._players: dict[int, Bot] = {}
        self._stories: dict[int | None, tuple[Narrator, int]] = {}
        self._lock = threading.RLock()
        self._worker: ThreadPoolExecutor | None = None
        self._closed = False
        # The moves a stand-in (the computer) made for a person: (round, index in the round).
        self.stand_in_moves: set[tuple[int, int]] = set()
        for entry in stand_in_moves:
            if (
                not isinstance(entry, (list, tuple))
                or len(entry) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in entry)
                or entry[0] < 1
                or entry[1] < 0
            ):
                raise SetupError(f"a stand-in move is [round, index], not {entry!r:.40}")
            self.stand_in_moves.add((entry[0], entry[1]))

    @classmethod
    def resume(
        cls,
        path: str | Path,
        seats: Sequence[Seat] | None = None,
        *,
        record_path: str | Path | None = None,
        time_limit: float = 10.0,
    ) -> Table:
        """The table of a saved game, ready to go on where it stopped.

        The seats come from the record unless given (their names must then be the record's);
        the game goes on saving to ``record_path``, by default the same file.
        """
        data = record.load(path)
        game = record.resume(data)
        if seats is None:
            table = data.get("table")
            if not isinstance(table, dict) or not isinstance(table.get("seats"), list):
                raise RecordError(f"{path} does not say who sat at the table: give the seats")
            try:
                seats = [Seat.from_dict(s) for s in table["seats"]]
            except SetupError as exc:
                raise RecordError(f"{path}: {exc}") from None
        extra = data.get("table")
        stand_in = extra.get("stand_in", []) if isinstance(extra, dict) else []
        if tuple(s.name for s in seats) != game.names:
            raise RecordError(
                f"the seats {[s.name for s in seats]} are not the record's "
                f"players {list(game.names)}"
            )
        return cls(
            game.rules,
            seats,
            game=game,
            time_limit=time_limit,
            record_path=path if record_path is None else record_path,
            stand_in_moves=stand_in if isinstance(stand_in, list) else [],
        )

    # ------------------------------------------------------------- what front ends read

    @property
    def rules(self) -> RuleSet:
        """The game's rules."""
        return self.game.rules

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names."""
        return self.game.names

    @property
    def phase(self) -> Phase:
        """Where the turn, round or game stands."""
        return self.game.phase

    @property
    def to_move(self) -> int | None:
        """The seat to act, or None between rounds and after the game."""
        return self.game.to_move

    @property
    def automatic_to_act(self) -> int | None:
        """The computer seat (bot or program) to act now, if any."""
        seat = self.game.to_move
        return seat if seat is not None and self.seats[seat].automatic else None

    @property
    def waiting_for(self) -> int | None:
        """The person (local or remote) to act now, if any."""
        seat = self.game.to_move
        return seat if seat is not None and not self.seats[seat].automatic else None

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may know now (None: a spectator)."""
        with self._lock:
            return self.game.view(seat)

    def events_since(self, n: int, seat: int | None) -> list[Event]:
        """The events ``seat`` may see, from its ``n``-th on (see ``Game.events_since``)."""
        with self._lock:
            return self.game.events_since(n, seat)

    def story(self, seat: int | None) -> list[Line]:
        """The game so far in plain words, a line per turn, as ``seat`` saw it."""
        with self._lock:
            narrator, seen = self._stories.get(seat) or (
                Narrator(self.names, seat, self.rules.draw_first),
                0,
            )
            events = self.game.events_since(seen, seat)
            narrator.read(events)
            self._stories[seat] = (narrator, seen + len(events))
            return narrator.lines

    def coach(self, seat: int) -> dict[str, Any]:
        """The coach's figures for ``seat``: the chance that a Yaniv call succeeds now, and
        the advised moves with reasons (empty when the seat is not to act)."""
        from .bots import coach

        view = self.view(seat)
        if not view.legal_moves:
            return {"yaniv_probability": None, "advice": []}
        against = self.opponents_level(view)
        chance = coach.yaniv_success_probability(view, against) if view.can_yaniv else None
        advice = [a.to_dict() for a in coach.advise(view, against=against)]
        return {"yaniv_probability": chance, "advice": advice}

    def opponents_level(self, view: PlayerView) -> str | None:
        """The built-in level of every opponent still in ``view``'s round, where they are all
        bots of one level (the coach's odds are then that level's); None otherwise."""
        seats = [self.seats[s] for s in view.active_seats() if s != view.seat]
        levels = {s.level for s in seats if s.kind == "bot"}
        if len(levels) == 1 and all(s.kind == "bot" for s in seats):
            return levels.pop()
        return None

    # ------------------------------------------------------------- moves

    def why_not(self, seat: int, move: Move | str) -> str | None:
        """Why ``seat`` may not play ``move`` now, or None when it may."""
        with self._lock:
            try:
                parsed = parse_move(move)
            except YanivError as exc:
                return str(exc)
            if self.game.to_move != seat:
                acting = self.game.to_move
                return (
                    "the round is over"
                    if acting is None
                    else (f"it is {self.names[acting]}'s turn, not {self.names[seat]}'s")
                )
            return self.game.why_illegal(parsed)

    def play(self, seat: int, move: Move | str, *, stand_in: bool = False) -> RoundResult | None:
        """Play ``seat``'s move (checked: a MoveError leaves everything as it was) and save.

        ``stand_in``: the move is the computer's, made for a person who is away or out of
        time; it is remembered (``stand_in_moves``, kept in the record) so that the story and
        the replay do not credit the person with it.
        """
        with self._lock:
            where = (self.game.round_no, len(self.game.moves))
            result = self.game.play(move, seat=seat)
            if stand_in:
                self.stand_in_moves.add(where)
            self.save()
            return result

    def checkpoint(self) -> tuple[Game, frozenset[tuple[int, int]]]:
        """The table's game state now, for ``restore`` (a move whose storing failed is undone
        with it: nothing is shown that is not stored)."""
        with self._lock:
            return self.game.clone(), frozenset(self.stand_in_moves)

    def restore(self, checkpoint: tuple[Game, frozenset[tuple[int, int]]]) -> None:
        """Go back to a ``checkpoint``: the moves made since are undone, and the stories
        forget what they read of them."""
        with self._lock:
            game, stand_ins = checkpoint
            self.game = game.clone()
            self.stand_in_moves = set(stand_ins)
            self._stories.clear()

    def stand_in_flags(self, events: Sequence[Event], round_no: int | None = None) -> list[bool]:
        """For each of a round's events (as any seat sees them), whether a stand-in made the
        move it tells of (a deal or a refill: False).

        Each kind of move event matches one kind of move of the same seat, in order, and a
        seat sees either all or none of a kind (only the player sees a declined slap), so the
        k-th discard event of a seat is its k-th discard, whoever looks.
        """
        with self._lock:
            number = self.game.round_no if round_no is None else round_no
            if not any(r == number for r, _ in self.stand_in_moves):
                return [False] * len(events)
            moves = self.game.moves
            if number != self.game.round_no:
                past = self.game.history
                if not 1 <= number <= len(past):
                    return [False] * len(events)
                moves = list(past[number - 1].moves)
            indices: dict[tuple[int, type], list[int]] = {}
            for i, (seat, move) in enumerate(moves):
                indices.setdefault((seat, type(move)), []).append(i)
            seen: dict[tuple[int, type], int] = {}
            flags: list[bool] = []
            for event in events:
                kind = _EVENT_MOVES.get(type(event))
                if isinstance(event, Showdown):
                    seat = event.result.caller
                elif kind is not None and isinstance(event, (Discarded, Drew, Slapped, Passed)):
                    seat = event.seat
                else:
                    flags.append(False)
                    continue
                assert kind is not None
                k = seen.get((seat, kind), 0)
                seen[(seat, kind)] = k + 1
                mine = indices.get((seat, kind), [])
                flags.append(k < len(mine) and (number, mine[k]) in self.stand_in_moves)
            return flags

    def record_extra(self) -> dict[str, Any]:
        """What a record of this table keeps beside the game: the seats, and the moves a
        stand-in made (``[[round, index], ...]``)."""
        extra: dict[str, Any] = {"seats": [s.to_dict() for s in self.seats]}
        if self.stand_in_moves:
            extra["stand_in"] = [list(x) for x in sorted(self.stand_in_moves)]
        return {"table": extra}

    def next_round(self) -> None:
        """Deal the next round once a round is over, and save."""
        with self._lock:
            self.game.next_round()
            self.save()

    def decide(self, seat: int) -> Move:
        """The move a computer seat makes now (slow: a bot thinks, a program answers).

        A computer player that fails or answers an illegal move does not stop the game: the
        seat plays its first legal move other than a Yaniv call instead, and ``notes`` says what
        went wrong.
        """
        view = self.view(seat)
        if not self.seats[seat].automatic:
            raise IllegalMoveError(
                f"seat {seat} ({self.names[seat]}) is a person: the table does not decide for it"
            )
        if not view.legal_moves:
            raise IllegalMoveError(f"{self.names[seat]} has no move to make now")
        try:
            move = self._player(seat).choose(view)
            if move in view.legal_moves:
                return as_laid(move, view.rules)
            problem = f"answered {move}, which is not legal now"
        except YanivError as exc:
            problem = f"failed: {exc}"
        # Never a Yaniv call on a failing player's behalf.
        fallback = next((m for m in view.legal_moves if m != YANIV), view.legal_moves[0])
        self.notes.append(f"{self.names[seat]} {problem}; played {fallback} instead")
        return fallback

    def decides_instantly(self, seat: int) -> bool:
        """Whether seat ``seat`` is a built-in bot whose level answers in microseconds
        (``bots.base.decides_instantly``): its ``decide`` needs no thread of its own."""
        spec = self.seats[seat]
        return spec.kind == "bot" and decides_instantly(spec.level or "")

    def decide_async(self, seat: int) -> Future[Move]:
        """``decide`` on the table's worker thread; the caller plays the move when it comes."""
        if self._closed:
            raise YanivError("the table is closed")
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yaniv-table")
        return self._worker.submit(self.decide, seat)

    def play_automatic(
        self, until_human: bool = True, deal: bool = False, limit: int = 100_000
    ) -> int:
        """Play the computer seats' moves at once, until a person must act (``until_human``)
        or the round ends (the game, with ``deal``: the next rounds are dealt too). Returns
        the moves played. Used to skip ahead once the person is out."""
        played = 0
        while played < limit:
            if self.phase is Phase.ROUND_OVER and deal:
                self.next_round()
                continue
            seat = self.automatic_to_act
            if seat is None:
                if self.waiting_for is not None and not until_human:
                    raise IllegalMoveError(f"{self.names[self.waiting_for]} must play first")
                break
            self.play(seat, self.decide(seat))
            played += 1
        return played

    def _player(self, seat: int) -> Bot:
        player = self._players.get(seat)
        if player is None:
            spec = self.seats[seat]
            if spec.kind == "bot":
                player = get_bot(spec.level or "", spec.seed)
            else:
                from .protocol import CmdBot

                player = CmdBot(spec.command or "", time_limit=self.time_limit)
            self._players[seat] = player
        return player

    # ------------------------------------------------------------- the record

    def save(self) -> Path | None:
        """Write the record, with the seats, where this table saves (None: it does not)."""
        if self.record_path is None:
            return None
        with self._lock:
            try:
                return record.save(self.game, self.record_path, self.record_extra())
            except (OSError, RecordError) as exc:
                self.notes.append(f"the game could not be saved to {self.record_path}: {exc}")
                return None

    def close(self) -> None:
        """Stop the decision worker and any external program; the table plays no more."""
        self._closed = True
        if self._worker is not None:
            self._worker.shutdown(wait=True, cancel_futures=True)
            self._worker = None
        for player in self._players.values():
            closer = getattr(player, "close", None)
            if callable(closer):
                closer()
        self._players.clear()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
