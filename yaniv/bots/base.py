"""The bot interface and the registry of bots by name."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Protocol

from ..errors import YanivError
from ..moves import Move
from ..view import PlayerView


class Bot(Protocol):
    """A player that chooses a legal move from what its seat may know."""

    name: str

    def choose(self, view: PlayerView) -> Move:
        """One of ``view.legal_moves``."""
        ...


def legal_moves(view: PlayerView) -> tuple[Move, ...]:
    """The moves a bot may choose from; a view of a seat not to act is a caller's error."""
    if not view.legal_moves:
        raise YanivError(
            f"seat {view.seat} has no move to make (phase {view.phase.label}, "
            f"to move: {view.to_move})"
        )
    return view.legal_moves


BotFactory = Callable[[int | None], Bot]

#: Bot factories by name; each level's module registers itself on import.
BOTS: dict[str, BotFactory] = {}

#: The modules that define the built-in levels, imported on first use.
_BUILTIN = ("random", "easy", "medium", "expert", "master", "learned")


def register(name: str) -> Callable[[BotFactory], BotFactory]:
    """Class or function decorator: make a bot available to ``get_bot(name)``."""

    def deco(factory: BotFactory) -> BotFactory:
        BOTS[name] = factory
        return factory

    return deco


def _load_builtins() -> None:
    for level in _BUILTIN:
        try:
            importlib.import_module(f"yaniv.bots.{level}_bot")
        except ModuleNotFoundError as exc:
            if exc.name != f"yaniv.bots.{level}_bot":
                raise


#: The most milliseconds a searching level may be given per decision (an hour's game is long).
MAX_THINK_MS = 60_000.0


def check_think_ms(think_ms: float) -> None:
    """Raise YanivError, in words, for a decision budget that is not a number of ms in range."""
    if not 0 < think_ms <= MAX_THINK_MS:  # NaN fails both
        raise YanivError(
            f"--think-ms {think_ms}: expected milliseconds above 0, at most {MAX_THINK_MS:.0f}"
        )


def get_bot(name: str, seed: int | None = None, think_ms: float | None = None) -> Bot:
    """A new bot of level ``name``, deterministic for a given ``seed`` (and budget).

    ``think_ms`` is the decision budget of the levels that search (they take a ``think_ms``
    argument: ``master``); the others have none and ignore it. None: the level's default.
    """
    _load_builtins()
    factory = BOTS.get(name)
    if factory is None:
        raise YanivError(f"unknown bot {name!r}; bots: {', '.join(sorted(BOTS))}")
    if think_ms is not None and thinks(factory):
        check_think_ms(think_ms)
        return factory(seed, think_ms=think_ms)  # type: ignore[call-arg]
    return factory(seed)


def thinks(factory: BotFactory) -> bool:
    """Whether bots of ``factory`` take a decision budget (``think_ms``)."""
    try:
        return "think_ms" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def decides_instantly(name: str) -> bool:
    """Whether bots of level ``name`` answer in microseconds, as their class says
    (``instant = True``): a server asks them on its event loop, where a hop to a thread and
    back cost it some 180 microseconds of CPU a decision, a thousand times the decision."""
    _load_builtins()
    return getattr(BOTS.get(name), "instant", False) is True


def bot_names() -> list[str]:
    """The names of every registered bot that can play here (a level whose factory has an
    ``available()`` that says False, for want of an optional dependency, is left out; asking
    ``get_bot`` for it says what it needs)."""
    _load_builtins()
    return [name for name, f in BOTS.items() if getattr(f, "available", _always)()]


def _always() -> bool:
    return True
