"""What clients may send, checked with pydantic: HTTP bodies and websocket messages."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from .history import check_key

#: The largest websocket message the server reads (bytes of UTF-8).
MAX_MESSAGE = 16 * 1024
#: The most rule options one request may name.
MAX_OPTIONS = 40
#: The quick reactions a player may send (no free text: nothing to moderate).
REACTIONS = ("thumbs_up", "laugh", "wow", "angry", "nice", "yaniv_soon")
#: The turn timer's choices, in seconds a turn (0: off).
TURN_TIMERS = (0, 15, 30, 60)

Reaction = Literal["thumbs_up", "laugh", "wow", "angry", "nice", "yaniv_soon"]
TurnTimer = Literal[0, 15, 30, 60]


def _clean_name(value: str) -> str:
    """A name, stripped, 1 to 40 characters, without control characters (kept as plain text)."""
    value = value.strip()
    if not 1 <= len(value) <= 40:
        raise ValueError("a name is 1 to 40 characters")
    if any(unicodedata.category(ch).startswith("C") for ch in value):
        raise ValueError("a name may not hold control characters")
    return value


def _check_key(value: str | None) -> str | None:
    """A player key (history.KEY_RULE), or None."""
    return None if value is None else check_key(value)


def _check_rules(value: dict[str, Any]) -> dict[str, Any]:
    if len(value) > MAX_OPTIONS:
        raise ValueError(f"at most {MAX_OPTIONS} rule options")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_max_length=200)


Name = Annotated[str, Field(max_length=200)]
Token = Annotated[str, Field(min_length=1, max_length=100)]
Level = Annotated[str, Field(min_length=1, max_length=20)]


class _Person(_Strict):
    """What every request that seats a person carries: the name, and the player key if any."""

    name: Name
    player_key: str | None = None

    _name = field_validator("name")(_clean_name)
    _key = field_validator("player_key")(_check_key)


class Join(_Person):
    """``POST /api/rooms/{code}/join``."""


class NewRoom(_Person):
    """``POST /api/rooms``: a room for friends."""

    rules: dict[str, Any] = Field(default_factory=dict)
    turn_timer: TurnTimer = 0

    _rules = field_validator("rules")(_check_rules)


class NewGame(NewRoom):
    """``POST /api/games``: a game against the computer."""

    opponents: list[Level] = Field(min_length=1, max_length=7)


class BotSeat(_Strict):
    """A bot the host puts in a seat."""

    seat: int = Field(ge=0, le=7)
    level: Level


class Settings(_Strict):
    """``POST /api/rooms/{code}/settings``: the host's rules and bots."""

    token: Token
    rules: dict[str, Any] | None = None
    bots: list[BotSeat] | None = Field(default=None, max_length=8)
    turn_timer: TurnTimer | None = None

    @field_validator("rules")
    @classmethod
    def _rules(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _check_rules(value)


class Start(_Strict):
    """``POST /api/rooms/{code}/start``."""

    token: Token


class Rematch(_Strict):
    """``POST /api/rooms/{code}/rematch``: a player's token, and the game they saw end."""

    token: Token
    game: int | None = Field(default=None, ge=1, le=1_000_000)


class MoveMessage(_Strict):
    """A move for the sender's seat, with the client's move id."""

    type: Literal["move"]
    move: str = Field(min_length=1, max_length=100)
    id: str | None = Field(default=None, min_length=1, max_length=40)


class NextRoundMessage(_Strict):
    """Deal the next round."""

    type: Literal["next_round"]


class CoachMessage(_Strict):
    """Switch the coach's figures on or off."""

    type: Literal["coach"]
    on: bool


class PingMessage(_Strict):
    """Are you there?"""

    type: Literal["ping"]


class ReactMessage(_Strict):
    """A quick reaction, one of the fixed set, shown beside the sender's seat."""

    type: Literal["react"]
    reaction: Reaction


class BackMessage(_Strict):
    """A player marked away (two turns timed out) takes the seat back."""

    type: Literal["back"]


class ResyncMessage(_Strict):
    """A client with deltas asks for the whole state again (it missed one: deltas.py)."""

    type: Literal["resync"]


#: The client's message types.
MESSAGE_TYPES = ("move", "next_round", "coach", "ping", "react", "back", "resync")

ClientMessage = Annotated[
    MoveMessage
    | NextRoundMessage
    | CoachMessage
    | PingMessage
    | ReactMessage
    | BackMessage
    | ResyncMessage,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def describe(exc: ValidationError) -> str:
    """A validation error in a line of words."""
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "invalid message"
