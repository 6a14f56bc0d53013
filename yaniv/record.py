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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .cards import NAMES, parse_card, parse_cards
from .errors import RecordError, YanivError
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


def dumps(game: Game) -> str:
    """The record of ``game`` as JSON text (deterministic: the same game, the same bytes)."""
    return json.dumps(to_record(game), indent=1, ensure_ascii=False) + "\n"


def save(game: Game, path: str | Path) -> Path:
    """Write the record of ``game`` to ``path``; returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(game), encoding="utf-8")
    return target


def load(path: str | Path) -> dict[str, Any]:
    """Read and check a record file; raises RecordError naming what is wrong."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            raise RecordError(f"record {path} is {size} bytes; the limit is {MAX_BYTES}")
        return loads(Path(path).read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read record {path}: {exc}") from None


def loads(text: str, source: str = "record") -> dict[str, Any]:
    """Parse and check a record's JSON text; raises RecordError naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} is not JSON: {exc}") from None
    except RecursionError:
        raise RecordError(f"{source} is nested too deeply to be a record") from None
    return check(data, source)


def check(data: Any, source: str = "record") -> dict[str, Any]:
    """Check a record's shape and version; returns it."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f"{source} is not a yaniv record (no \"format\": \"{FORMAT}\")")
    if data.get("version") not in READS:
        raise RecordError(f"{source} has record version {data.get('version')!r:.20}; "
                          f"this yaniv reads versions {', '.join(map(str, READS))}")
    for key in ("rules", "players", "rounds"):
        if key not in data:
            raise RecordError(f"{source} lacks {key!r}")
    if not isinstance(data["rules"], dict):
        raise RecordError(f"{source}: \"rules\" must be an object of rule options")
    players = data["players"]
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"{source}: \"players\" must be a list of {MIN_PLAYERS} to "
                          f"{MAX_PLAYERS} names")
    for name in players:
        if not isinstance(name, str) or len(name) > MAX_NAME:
            raise RecordError(f"{source}: a player's name must be text of at most {MAX_NAME} "
                              f"characters, not {name!r:.40}")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"{source}: \"seed\" must be a whole number, not {seed!r:.40}")
    if not isinstance(data["rounds"], list) or not data["rounds"]:
        raise RecordError(f"{source} has no rounds")
    for number, rnd in enumerate(data["rounds"], 1):
        _check_round(rnd, f"{source}, round {number}")
    return data


def _check_round(rnd: Any, where: str) -> None:
    """The shape of one round; the cards and moves themselves are checked as they replay."""
    if not isinstance(rnd, dict):
        raise RecordError(f"{where}: a round must be an object")
    deal = rnd.get("deal")
    if not isinstance(deal, dict):
        raise RecordError(f"{where}: the round lacks its \"deal\" object")
    hands = deal.get("hands")
    if not isinstance(hands, list) or not all(_cards_list(h) for h in hands):
        raise RecordError(f"{where}: the deal's \"hands\" must be lists of card names")
    if not isinstance(deal.get("up"), str) or not _cards_list(deal.get("stock")):
        raise RecordError(f"{where}: the deal needs \"up\" (a card name) and \"stock\" "
                          "(a list of card names)")
    if not _is_int(deal.get("starter")):
        raise RecordError(f"{where}: the deal's \"starter\" must be a seat number")
    moves = rnd.get("moves")
    if not isinstance(moves, list) or not all(
        isinstance(m, list) and len(m) == 2 and _is_int(m[0]) and isinstance(m[1], str)
        for m in moves
    ):
        raise RecordError(f"{where}: \"moves\" must be a list of [seat, \"move\"] pairs")
    refills = rnd.get("refills")
    if not isinstance(refills, list) or not all(
        isinstance(r, list) and len(r) == 2 and _is_int(r[0]) and _cards_list(r[1])
        for r in refills
    ):
        raise RecordError(f"{where}: \"refills\" must be a list of [move count, [cards]] "
                          "pairs")
    if rnd.get("result") is not None and not isinstance(rnd["result"], dict):
        raise RecordError(f"{where}: \"result\" must be an object or null")


def _cards_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, str) for c in value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _deal(data: dict[str, Any]) -> Deal:
    return Deal(
        hands=tuple(tuple(parse_cards(h)) for h in data["hands"]),
        up=parse_card(data["up"]),
        stock=tuple(parse_cards(data["stock"])),
        starter=int(data["starter"]),
    )


def iter_replay(data: dict[str, Any]) -> Iterator[tuple[Game, int, Move | None]]:
    """Replay a record: yields (game, seat, move) after each move, and (game, -1, None) at
    the start of each round. Raises RecordError where the record does not replay."""
    data = check(data)
    try:
        rules = RuleSet.from_dict(data["rules"])
        names = [str(n) for n in data["players"]]
        game: Game | None = None
        for number, rnd in enumerate(data["rounds"], 1):
            deal = _deal(rnd["deal"])
            if game is None:
                game = Game.new(rules, len(names), data.get("seed"), names=names, deal=deal)
            else:
                game.next_round(deal)
            refills = [(int(at), tuple(parse_cards(stock))) for at, stock in rnd["refills"]]
            game._script = [stock for _, stock in refills]
            yield game, -1, None
            for seat, text in rnd["moves"]:
                if seat != game.to_move:
                    raise RecordError(f"round {number}: move {text!r} by seat {seat}, "
                                      f"but seat {game.to_move} is to move")
                move = parse_move(text)
                game.play(move)
                yield game, seat, move
            if [at for at, _ in game.refills] != [at for at, _ in refills]:
                raise RecordError(f"round {number}: the refills happened at other moves")
            want = rnd.get("result")
            if want is not None and (game.result is None
                                     or game.result.to_dict() != want):
                raise RecordError(f"round {number}: the replayed result differs from the record")
            game._script = None
    except RecordError:
        raise
    except (YanivError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordError(f"the record does not replay: {exc}") from None


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


__all__ = ["FORMAT", "VERSION", "RoundLog", "check", "dumps", "iter_replay", "load", "replay",
           "save", "to_record"]
