"""The bot interface and the registry of bots by name."""

from __future__ import annotations

import importlib
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
_BUILTIN = ("random", "easy", "medium", "expert", "master")


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


def get_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot of level ``name``, deterministic for a given ``seed``."""
    _load_builtins()
    factory = BOTS.get(name)
    if factory is None:
        raise YanivError(f"unknown bot {name!r}; bots: {', '.join(sorted(BOTS))}")
    return factory(seed)


def bot_names() -> list[str]:
    """The names of every registered bot."""
    _load_builtins()
    return list(BOTS)
