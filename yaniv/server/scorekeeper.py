"""The score keeper for a game played with real cards: ``/api/scores``.

A person names the players and the rules, then enters each round: who called Yaniv and each
hand, as a value or as the cards. The server keeps only what was entered; the scores are the
engine's (``yaniv.scoring.score_rounds``, the showdown's own scoring), made again from the
rounds at every read, so an edited round re-scores the rest. A sheet belongs to the player
key that made it (only it may change the sheet, and it lists the sheet in its history); its
code is a read-only link for anyone.

- ``POST /api/scores`` ``{"names": [...], "rules": {"preset": ..., OPTION: VALUE}}``: a new sheet
- ``GET /api/scores``: the key's sheets, newest first
- ``GET /api/scores/{code}``: a sheet, scored (``"mine"``: whether the key keeps it)
- ``POST /api/scores/{code}/rounds`` ``{"caller": SEAT, "hands": [VALUE | "CARDS" | null]}``
- ``PUT`` / ``DELETE /api/scores/{code}/rounds/{number}``: correct or remove a round
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import Annotated, Any, cast

from fastapi import APIRouter, Header, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select

from ..cards import NAMES
from ..errors import YanivError
from ..rules import RuleSet
from ..scoring import RoundScore, round_values, score_rounds, value_bounds
from .history import KEY_HEADER, _hashed
from .models import ScoreSheetRow
from .schemas import _check_rules, _clean_name
from .storage import Store

#: The most rounds one sheet holds (a long game has a few dozen).
MAX_ROUNDS = 400
#: Sheets listed per request at most.
MAX_LIST = 200
#: A sheet's code: 10 characters of base64url.
CODE = re.compile(r"[A-Za-z0-9_-]{10}")

Hand = int | Annotated[str, Field(max_length=100)] | Annotated[list[str], Field(max_length=11)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_max_length=200)


class NewSheet(_Strict):
    """``POST /api/scores``: the players, in seat order (clockwise), and the rules."""

    names: list[Annotated[str, Field(max_length=200)]] = Field(min_length=2, max_length=8)
    rules: dict[str, Any] = Field(default_factory=dict)

    _rules = field_validator("rules")(_check_rules)

    @field_validator("names")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        names = [_clean_name(v) for v in value]
        folded = [n.casefold() for n in names]
        for i, n in enumerate(folded):
            if n in folded[:i]:
                raise ValueError(f"two players are called {names[i]!r}: give each their own name")
        return names


class RoundEntry(_Strict):
    """A round: the seat that called Yaniv, and each seat's hand (null for a seat out)."""

    caller: int = Field(ge=0, le=7)
    hands: list[Hand | None] = Field(min_length=2, max_length=8)


def _rules_of(data: dict[str, Any]) -> RuleSet:
    try:
        return RuleSet.from_dict(data)
    except (YanivError, TypeError, ValueError) as exc:
        raise HTTPException(400, f"rules: {exc}") from None


def _entered(rules: RuleSet, entry: RoundEntry, names: list[str]) -> dict[str, Any]:
    """The round as it is stored: the caller, and each hand as a value or its cards' names."""
    try:
        _, cards = round_values(rules, entry.hands, names)
    except YanivError as exc:
        raise HTTPException(400, str(exc)) from None
    hands: list[Any] = []
    for given, held in zip(entry.hands, cards, strict=True):
        hands.append(given if held is None else [NAMES[c] for c in held])
    return {"caller": entry.caller, "hands": hands}


def _scored(rules: RuleSet, names: list[str], rounds: list[Any]) -> list[RoundScore]:
    """The engine's scores of the stored rounds; HTTPException 400 naming a round that cannot be."""
    try:
        entered = [(int(r["caller"]), round_values(rules, r["hands"], names)[0]) for r in rounds]
        return score_rounds(rules, len(names), entered, names)
    except YanivError as exc:
        raise HTTPException(400, str(exc)) from None


def _result(r: RoundScore) -> dict[str, Any]:
    return {
        "kind": r.kind.value,
        "caller": r.caller,
        "hand_values": list(r.hand_values),
        "assafers": list(r.assafers),
        "points": list(r.points),
        "bonuses": list(r.bonuses),
        "scores": list(r.scores),
        "newly_out": list(r.newly_out),
        "out": list(r.out),
        "winner": r.winner,
        "next_starter": r.next_starter,
        "game_winners": list(r.game_winners),
    }


def _iso(when: datetime) -> str:
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()


def sheet_of(row: ScoreSheetRow, mine: bool) -> dict[str, Any]:
    """A sheet as the API gives it: what was entered, each round's result as the engine
    scored it, the totals, who starts the next round and who won."""
    rules = RuleSet.from_dict(dict(row.rules))
    names = [str(x) for x in row.names]
    n = len(names)
    results = _scored(rules, names, list(row.rounds))
    starter = 1  # R6: seat 0 deals the first round, seat 1 starts it
    rounds = []
    for number, (entered, r) in enumerate(zip(row.rounds, results, strict=True), 1):
        rounds.append(
            {
                "number": number,
                "starter": starter,
                **cast(dict[str, Any], entered),
                "result": _result(r),
            }
        )
        starter = r.next_starter if r.next_starter is not None else starter
    last = results[-1] if results else None
    low, high = value_bounds(rules)
    return {
        "code": row.code,
        "mine": mine,
        "names": names,
        "rules": rules.to_dict(),
        "preset": rules.preset_name() or "custom",
        "differences": rules.differences(),
        "value_bounds": [low, high],
        "rounds": rounds,
        "scores": list(last.scores) if last else [0] * n,
        "out": list(last.out) if last else [False] * n,
        "next_starter": None if last and last.game_winners else starter,
        "winners": list(last.game_winners) if last else [],
        "over": bool(last and last.game_winners),
        "created": _iso(row.created),
        "updated": _iso(row.updated),
    }


# ------------------------------------------------------------------ the database (its thread)


def _create(store: Store, hashed: str, names: list[str], rules: dict[str, Any]) -> dict[str, Any]:
    with store.session() as session, session.begin():
        row = ScoreSheetRow(
            code=secrets.token_urlsafe(8)[:10], key_hash=hashed, names=names, rules=rules, rounds=[]
        )
        session.add(row)
        session.flush()
        return sheet_of(row, True)


def _read(store: Store, code: str, hashed: str | None) -> dict[str, Any]:
    with store.session() as session:
        row = session.scalar(select(ScoreSheetRow).where(ScoreSheetRow.code == code))
        if row is None:
            raise HTTPException(404, f"there is no score sheet {code}")
        return sheet_of(row, row.key_hash == hashed)


def _change(
    store: Store, code: str, hashed: str, number: int | None, entry: RoundEntry | None, verb: str
) -> dict[str, Any]:
    """Add (``number`` None), replace or delete (``entry`` None) a round, if the whole sheet
    still scores; else the sheet is left as it was and the words say which round cannot be."""
    with store.session() as session, session.begin():
        row = session.scalar(
            select(ScoreSheetRow).where(ScoreSheetRow.code == code).with_for_update()
        )
        if row is None:
            raise HTTPException(404, f"there is no score sheet {code}")
        if row.key_hash != hashed:
            raise HTTPException(
                403, "only the player who keeps this sheet may change it: this link is read-only"
            )
        rules = RuleSet.from_dict(dict(row.rules))
        names = [str(x) for x in row.names]
        rounds = list(row.rounds)
        if number is not None and not 1 <= number <= len(rounds):
            raise HTTPException(
                404, f"the sheet has no round {number} ({len(rounds)} rounds so far)"
            )
        if entry is not None and len(entry.hands) != len(row.names):
            raise HTTPException(
                400, f"a round gives a hand for each of the {len(row.names)} players"
            )
        if entry is not None and entry.caller >= len(row.names):
            raise HTTPException(400, f"the caller {entry.caller} is not one of the players")
        if verb == "add":
            if len(rounds) >= MAX_ROUNDS:
                raise HTTPException(400, f"a sheet holds {MAX_ROUNDS} rounds at most")
            assert entry is not None
            rounds.append(_entered(rules, entry, names))
        elif entry is not None and number is not None:
            rounds[number - 1] = _entered(rules, entry, names)
        elif number is not None:
            del rounds[number - 1]
        _scored(rules, names, rounds)  # refuses a sheet that no longer scores
        row.rounds = rounds
        row.updated = datetime.now(UTC)
        session.flush()
        return sheet_of(row, True)


def _list(store: Store, hashed: str, limit: int) -> dict[str, Any]:
    with store.session() as session:
        rows = session.scalars(
            select(ScoreSheetRow)
            .where(ScoreSheetRow.key_hash == hashed)
            .order_by(ScoreSheetRow.updated.desc(), ScoreSheetRow.id.desc())
            .limit(limit)
        ).all()
        sheets = []
        for row in rows:
            sheet = sheet_of(row, True)
            sheets.append(
                {
                    k: sheet[k]
                    for k in ("code", "names", "preset", "scores", "winners", "over", "updated")
                }
                | {"rounds": len(sheet["rounds"])}
            )
        return {"sheets": sheets}


# ------------------------------------------------------------------ the HTTP API

router = APIRouter(prefix="/api/scores")


def _store(request: Request) -> Store:
    store: Store = request.app.state.hub.store
    return store


def _code(code: str) -> str:
    if CODE.fullmatch(code) is None:
        raise HTTPException(404, f"there is no score sheet {code[:20]}")
    return code


@router.post("")
async def new_sheet(
    body: NewSheet,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """A new sheet, kept by the sender's player key."""
    hashed = _hashed(x_player_key)
    rules = _rules_of(body.rules)
    store = _store(request)
    return await store.run(_create, store, hashed, body.names, rules.to_dict())


@router.get("")
async def my_sheets(
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
    limit: int = Query(default=50, ge=1, le=MAX_LIST),
) -> dict[str, Any]:
    """The sheets the player key keeps, the latest changed first."""
    hashed = _hashed(x_player_key)
    store = _store(request)
    return await store.run(_list, store, hashed, limit)


@router.get("/{code}")
async def sheet(
    code: str,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """A sheet, scored: anyone with its code may read it."""
    hashed = _hashed(x_player_key) if x_player_key else None
    store = _store(request)
    return await store.run(_read, store, _code(code), hashed)


@router.post("/{code}/rounds")
async def add_round(
    code: str,
    body: RoundEntry,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """Add the next round."""
    hashed = _hashed(x_player_key)
    store = _store(request)
    return await store.run(_change, store, _code(code), hashed, None, body, "add")


@router.put("/{code}/rounds/{number}")
async def edit_round(
    code: str,
    number: int,
    body: RoundEntry,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """Correct a round: the rounds after it are scored again."""
    hashed = _hashed(x_player_key)
    store = _store(request)
    return await store.run(_change, store, _code(code), hashed, number, body, "edit")


@router.delete("/{code}/rounds/{number}")
async def delete_round(
    code: str,
    number: int,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """Remove a round: the rounds after it are scored again."""
    hashed = _hashed(x_player_key)
    store = _store(request)
    return await store.run(_change, store, _code(code), hashed, number, None, "delete")
