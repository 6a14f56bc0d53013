"""Game records: a versioned JSON format holding everything needed to replay a game exactly.

A record holds the rules, the seed, the seats' names, and for each round its deal (every hand,
the turned-up card, the stock in order), every move with its seat, every stock refill (R11)
with the new stock's order, and the result. Replaying lays out the recorded deals and refills
instead of shuffling, so a record replays to the same positions. A game's shuffles derive from
its seed, the round and the refill number (version 2), so ``resume`` continues a game exactly
as the original would have gone on.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .cards import NAMES, parse_card, parse_cards
from .errors import RecordError, YanivError, is_whole, quoted
from .game import MAX_PLAYERS, MIN_PLAYERS, Deal, Game, RoundLog, RoundResult
from .moves import Move, parse_move
from .rules import RuleSet

FORMAT = "yaniv-record"
VERSION = 2
#: Versions this module reads. Version 1 games shuffled from one generator: they replay
#: exactly, but a resumed version 1 game deals its later rounds afresh.
READS = (1, 2)
#: A record larger than this is refused unread (a long game is a few hundred kB).
MAX_BYTES = 50_000_000
#: Longest player name kept in a record.
MAX_NAME = 200


def _deal_dict(deal: Deal) -> dict[str, Any]:
    return {
        "hands": [[NAMES[c] for c in h] for h in deal.hands],
        "up": NAMES[deal.up],
        "stock": [NAMES[c] for c in deal.stock],
        "starter": deal.starter,
    }


def _round_dict(
    deal: Deal,
    moves: Any,
    refills: Any,
    result: RoundResult | None,
) -> dict[str, Any]:
    return {
        "deal": _deal_dict(deal),
        "moves": [[seat, str(move)] for seat, move in moves],
        "refills": [[at, [NAMES[c] for c in stock]] for at, stock in refills],
        "result": None if result is None else result.to_dict(),
    }


def to_record(game: Game) -> dict[str, Any]:
    """The record of ``game`` so far, as a JSON-ready dict (an unfinished round included)."""
    if game.deal is None:
        raise RecordError("a position built directly has no deal, so it cannot be recorded")
    rounds = [_round_dict(r.deal, r.moves, r.refills, r.result) for r in game.history]
    finished = bool(game.history) and game.history[-1].deal is game.deal
    if not finished:
        rounds.append(_round_dict(game.deal, game.moves, game.refills, None))
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "players": list(game.names),
        "rounds": rounds,
        "winners": list(game.winners),
    }


def dumps(game: Game, extra: dict[str, Any] | None = None) -> str:
    """The record of ``game`` as JSON text (deterministic: the same game, the same bytes).

    ``extra`` adds keys of the caller's (a table's seats, say) that replay ignores.
    """
    data = to_record(game)
    if extra:
        data.update({k: v for k, v in extra.items() if k not in data})
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def save(game: Game, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """Write the record of ``game`` to ``path`` atomically (a crash mid-write leaves the last
    whole record); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(dumps(game, extra))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load(path: str | Path) -> dict[str, Any]:
    """Read and check a record file; raises RecordError naming what is wrong."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            raise RecordError(f"record {path} is {size} bytes; the limit is {MAX_BYTES}")
        with open(path, "rb") as file:  # bounded: a device or a pipe may never end
            raw = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read record {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise RecordError(f"record {path} is longer than the limit of {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
            f"position {exc.start}): a record is JSON in UTF-8"
        ) from None
    return loads(text, str(path))


def loads(text: str, source: str = "record") -> dict[str, Any]:
    """Parse and check a record's JSON text; raises RecordError naming what is wrong."""
    if not isinstance(text, str):
        raise RecordError(f"{source}: a record is read from text, not {type(text).__name__}")
    if not text.strip():
        raise RecordError(f"{source} is empty: a record is a JSON object")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} is not JSON: {exc}") from None
    except RecursionError:
        raise RecordError(f"{source} is nested too deeply to be a record") from None
    except ValueError:  # an integer of more digits than Python converts
        raise RecordError(
            f"{source} holds a number of more than "
            f"{sys.get_int_max_str_digits()} digits: not a record"
        ) from None
    return check(data, source)


def check(data: Any, source: str = "record") -> dict[str, Any]:
    """Check a record's shape, version and rules; returns it."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f'{source} is not a yaniv record (no "format": "{FORMAT}")')
    version = data.get("version")
    if not is_whole(version) or version not in READS:
        raise RecordError(
            f"{source} has record version {_shown(version, 20)}; "
            f"this yaniv reads versions {', '.join(map(str, READS))}"
        )
    for key in ("rules", "players", "rounds"):
        if key not in data:
            raise RecordError(f"{source} lacks {key!r}")
    if not isinstance(data["rules"], dict):
        raise RecordError(
            f'{source}: "rules" must be an object of rule options, not {_shown(data["rules"])}'
        )
    try:
        RuleSet.from_dict(data["rules"])
    except YanivError as exc:
        raise RecordError(f'{source}: "rules": {exc}') from None
    players = data["players"]
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        what = f"{len(players)} names" if isinstance(players, list) else _shown(players)
        raise RecordError(
            f'{source}: "players" must be a list of {MIN_PLAYERS} to '
            f"{MAX_PLAYERS} names, not {what}"
        )
    for seat, name in enumerate(players):
        if not isinstance(name, str):
            raise RecordError(f"{source}: player {seat}'s name must be text, not {_shown(name)}")
        if len(name) > MAX_NAME:
            raise RecordError(
                f"{source}: player {seat}'s name is {len(name)} characters "
                f"long; the limit is {MAX_NAME}"
            )
    seed = data.get("seed")
    if seed is not None and not is_whole(seed):
        raise RecordError(f'{source}: "seed" must be a whole number, not {_shown(seed)}')
    winners = data.get("winners", [])
    if not isinstance(winners, list) or not all(
        is_whole(w) and 0 <= w < len(players) for w in winners
    ):
        raise RecordError(
            f'{source}: "winners" must be a list of seat numbers, not {_shown(winners)}'
        )
    if not isinstance(data["rounds"], list) or not data["rounds"]:
        raise RecordError(f'{source} has no rounds ("rounds" must be a list of round objects)')
    for number, rnd in enumerate(data["rounds"], 1):
        _check_round(rnd, f"{source}, round {number}")
    return data


def _check_round(rnd: Any, where: str) -> None:
    """The shape of one round and its cards; the moves themselves are checked as they replay."""
    if not isinstance(rnd, dict):
        raise RecordError(f"{where}: a round must be an object, not {_shown(rnd)}")
    deal = rnd.get("deal")
    if not isinstance(deal, dict):
        raise RecordError(f'{where}: the round lacks its "deal" object')
    hands = deal.get("hands")
    if not isinstance(hands, list):
        raise RecordError(
            f'{where}: the deal\'s "hands" must be a list of hands (lists of '
            f"card names), not {_shown(hands)}"
        )
    for seat, hand in enumerate(hands):
        _check_cards(hand, where, f"the deal's hand {seat}")
    if "up" not in deal:
        raise RecordError(f'{where}: the deal lacks "up" (the turned-up card)')
    _check_card(deal["up"], where, 'the deal\'s "up"')
    _check_cards(deal.get("stock"), where, 'the deal\'s "stock"')
    if not is_whole(deal.get("starter")):
        raise RecordError(
            f'{where}: the deal\'s "starter" must be a seat number, not '
            f"{_shown(deal.get('starter'))}"
        )
    moves = rnd.get("moves")
    if not isinstance(moves, list):
        raise RecordError(
            f'{where}: "moves" must be a list of [seat, "move"] pairs, not {_shown(moves)}'
        )
    for number, m in enumerate(moves, 1):
        if not (isinstance(m, list) and len(m) == 2 and is_whole(m[0]) and isinstance(m[1], str)):
            raise RecordError(
                f'{where}: move {number} must be a [seat, "move"] pair, not {_shown(m)}'
            )
    refills = rnd.get("refills")
    if not isinstance(refills, list):
        raise RecordError(
            f'{where}: "refills" must be a list of [move count, [cards]] '
            f"pairs, not {_shown(refills)}"
        )
    for number, r in enumerate(refills, 1):
        if not (isinstance(r, list) and len(r) == 2 and is_whole(r[0])):
            raise RecordError(
                f"{where}: refill {number} must be a [move count, [cards]] pair, not {_shown(r)}"
            )
        _check_cards(r[1], where, f"the stock of refill {number}")
    if rnd.get("result") is not None and not isinstance(rnd["result"], dict):
        raise RecordError(
            f'{where}: "result" must be an object or null, not {_shown(rnd["result"])}'
        )


def _check_card(value: Any, where: str, what: str) -> int:
    """The card ``value`` names; RecordError naming ``what`` where it is not a card name."""
    if not isinstance(value, str):
        raise RecordError(f'{where}: {what} must be a card name such as "7H", not {_shown(value)}')
    try:
        return parse_card(value)
    except YanivError as exc:
        raise RecordError(f"{where}: {what}: {exc}") from None


def _check_cards(value: Any, where: str, what: str) -> None:
    """A list of card names, none twice."""
    if not isinstance(value, list):
        raise RecordError(f"{where}: {what} must be a list of card names, not {_shown(value)}")
    seen: set[int] = set()
    for number, item in enumerate(value, 1):
        card = _check_card(item, where, f"card {number} of {what}")
        if card in seen:
            raise RecordError(f"{where}: {what} holds {NAMES[card]} twice")
        seen.add(card)


def _shown(value: Any, limit: int = 40) -> str:
    """A value quoted briefly for a message, JSON's literals spelt as in JSON."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return quoted(value, limit)


def _deal(data: dict[str, Any]) -> Deal:
    return Deal(
        hands=tuple(tuple(parse_cards(h)) for h in data["hands"]),
        up=parse_card(data["up"]),
        stock=tuple(parse_cards(data["stock"])),
        starter=int(data["starter"]),
    )


def iter_replay(data: dict[str, Any]) -> Iterator[tuple[Game, int, Move | None]]:
    """Replay a record: yields (game, seat, move) after each move, and (game, -1, None) at
    the start of each round. Raises RecordError where the record does not replay, naming the
    round and the move."""
    data = check(data)
    rules = RuleSet.from_dict(data["rules"])
    names = list(data["players"])
    game: Game | None = None
    where = "round 1"
    try:
        for number, rnd in enumerate(data["rounds"], 1):
            where = f"round {number}"
            deal = _deal(rnd["deal"])
            if game is None:
                game = Game.new(rules, len(names), data.get("seed"), names=names, deal=deal)
            else:
                game.next_round(deal)
            refills = [(int(at), tuple(parse_cards(stock))) for at, stock in rnd["refills"]]
            game._script = [stock for _, stock in refills]
            yield game, -1, None
            for count, (seat, text) in enumerate(rnd["moves"], 1):
                where = f"round {number}, move {count} ({_shown(text, 60)} by seat {seat})"
                if seat != game.to_move:
                    mover = (
                        "the round is over"
                        if game.to_move is None
                        else f"seat {game.to_move} is to move"
                    )
                    raise RecordError(
                        f"the record does not replay: {where}: seat {seat} played, but {mover}"
                    )
                move = parse_move(text)
                game.play(move)
                yield game, seat, move
            where = f"round {number}"
            done = [at for at, _ in game.refills]
            recorded = [at for at, _ in refills]
            if done != recorded:
                raise RecordError(
                    f"the record does not replay: {where}: the stock was "
                    f"refilled after moves {_shown(done)}, the record says "
                    f"{_shown(recorded)}"
                )
            want = rnd.get("result")
            if want is not None and (game.result is None or game.result.to_dict() != want):
                raise RecordError(
                    f"the record does not replay: {where}: the replayed result "
                    "differs from the record's"
                )
            game._script = None
        if game is not None and "winners" in data and list(game.winners) != data["winners"]:
            raise RecordError(
                f"the record does not replay: the game's winners are seats "
                f"{list(game.winners)}, the record says {data['winners']}"
            )
    except RecordError:
        raise
    except (YanivError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordError(f"the record does not replay: {where}: {exc}") from None


def resume(data: dict[str, Any]) -> Game:
    """The game a record describes, ready to go on: finished or not, mid-round too.

    Its later deals and refills are exactly those the original game would have had.
    """
    return replay(data)


def replay(data: dict[str, Any]) -> Game:
    """The game a record describes, replayed to its last move."""
    game: Game | None = None
    for replayed, _, _ in iter_replay(data):
        game = replayed
    if game is None:
        raise RecordError("the record has no rounds")
    return game


__all__ = [
    "FORMAT",
    "VERSION",
    "RoundLog",
    "check",
    "dumps",
    "iter_replay",
    "load",
    "replay",
    "save",
    "to_record",
]
