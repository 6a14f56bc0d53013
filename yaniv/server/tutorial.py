"""The interactive tutorial: ``POST /api/tutorial``.

A first round dealt from a fixed position (``Game.from_position``) in which the learner
(seat 0) plays a pair, takes a low card from the pile, lays a run, draws from the stock, sheds
the king and calls Yaniv; the two other seats' moves are written out. Each step's move is
checked by the engine (is it legal here?) and then against the step (is it the move this step
teaches?). The server keeps nothing: a request names the step it answers, and the position at
that step is the fixed deal with the steps before it played again, so any server process
answers any request. The words of each step are the front end's (js/tutorial.js).

Request ``{"step": K, "move": "discard 7H 7S" | null, "names": [you, left, right]}``: with no
move, the position at step K; with one, the position after it (and the others' turns). The
answer: ``step`` (the next step's number), ``expect`` (its name, ``done`` after the call),
``view`` (the learner's PlayerView), ``hand_value``. A refused move: 400 with ``error`` (the
engine's words) and ``code``: ``illegal`` (the rules forbid it) or ``not_the_step``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..cards import NAMES, deck, parse_card
from ..errors import MoveError
from ..game import Game
from ..moves import Discard, Draw, Move, parse_move
from ..rules import RuleSet
from .schemas import _clean_name

#: The deal: the learner's hand, then the two others' (seat 1 plays after the learner).
HANDS = (
    ("7H", "7S", "AD", "2D", "KC"),
    ("9C", "9H", "QH", "QD", "5S"),
    ("8S", "8D", "TC", "TH", "4C"),
)
#: The card turned up: the first previous discard.
UP = "3D"
#: The stock's first cards, in the order they are drawn; the rest of the deck follows.
STOCK_TOP = ("6S", "4H", "2H", "KD", "JS", "4S", "JH", "9D")
#: Each step: its name and the move it teaches.
STEPS: tuple[tuple[str, str], ...] = (
    ("pair", "discard 7H 7S"),
    ("take", "draw 3D"),
    ("run", "discard AD 2D 3D"),
    ("stock", "draw stock"),
    ("king", "discard KC"),
    ("stock_again", "draw stock"),
    ("yaniv", "yaniv"),
)
#: The other seats' turns, played after the learner's step of that index.
OTHERS: dict[int, tuple[str, ...]] = {
    1: ("discard QH QD", "draw stock", "discard TC TH", "draw stock"),
    3: ("discard 9C 9H", "draw stock", "discard 8S 8D", "draw stock"),
    5: ("discard KD", "draw stock", "discard JS", "draw stock"),
}
NAMES_DEFAULT = ("You", "Dana", "Avi")


def start(names: tuple[str, ...] = NAMES_DEFAULT) -> Game:
    """The tutorial's deal, the learner to move, under the standard rules."""
    used = {parse_card(c) for c in (*(c for h in HANDS for c in h), UP, *STOCK_TOP)}
    rest = [NAMES[c] for c in deck(2) if c not in used]
    return Game.from_position(
        RuleSet(), [list(h) for h in HANDS], [*STOCK_TOP, *rest], [[UP]], 0, names=list(names),
        seed=0,
    )  # fmt: skip


def position(step: int, names: tuple[str, ...] = NAMES_DEFAULT) -> Game:
    """The game at the start of ``step``: the deal, and the steps before it played."""
    game = start(names)
    for k in range(step):
        game.play(STEPS[k][1], seat=0)
        for move in OTHERS.get(k, ()):
            game.play(move)
    return game


def same_move(given: Move, taught: Move) -> bool:
    """Whether ``given`` is the move the step teaches (a discard's cards in any order)."""
    if isinstance(given, Discard) and isinstance(taught, Discard):
        return sorted(given.cards) == sorted(taught.cards)
    if isinstance(given, Draw) and isinstance(taught, Draw):
        return given.card == taught.card
    return given == taught


def answer(game: Game, step: int) -> dict[str, Any]:
    """What the learner sees at ``step``."""
    return {
        "step": step,
        "steps": len(STEPS),
        "expect": STEPS[step][0] if step < len(STEPS) else "done",
        "view": game.view(0).to_dict(),
        "hand_value": game.values[0],
    }


class TutorialMove(BaseModel):
    """``POST /api/tutorial``."""

    model_config = ConfigDict(extra="forbid", strict=True, str_max_length=200)

    step: int = Field(ge=0, le=len(STEPS))
    move: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    names: list[Annotated[str, Field(max_length=200)]] | None = Field(
        default=None, min_length=3, max_length=3
    )

    @field_validator("names")
    @classmethod
    def _names(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [_clean_name(v) for v in value]


router = APIRouter(prefix="/api/tutorial")


def _refused(code: str, words: str) -> JSONResponse:
    return JSONResponse({"error": words, "code": code}, status_code=400)


@router.post("", response_model=None)
async def tutorial(body: TutorialMove) -> dict[str, Any] | JSONResponse:
    """The tutorial's position at a step, or after the learner's move at it."""
    names = tuple(body.names) if body.names else NAMES_DEFAULT
    game = position(body.step, names)
    if body.move is None:
        return answer(game, body.step)
    if body.step >= len(STEPS):
        return _refused("done", "the tutorial's round is over: there is no move to make")
    try:
        move = parse_move(body.move)
    except MoveError as exc:
        return _refused("illegal", str(exc))
    why = game.why_illegal(move)
    if why is not None:
        return _refused("illegal", f"{body.move}: {why}")
    name, taught = STEPS[body.step]
    if not same_move(move, parse_move(taught)):
        return _refused("not_the_step", f"this step ({name}) asks for: {taught}")
    game.play(move, seat=0)
    for other in OTHERS.get(body.step, ()):
        game.play(other)
    return answer(game, body.step + 1)
