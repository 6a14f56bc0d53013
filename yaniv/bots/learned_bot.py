"""Level ``learned``: a neural policy trained by behaviour cloning of the expert, played in numpy.

The network (``learned_net``) scores each legal move of the view from features of the state and
of the move, and the bot plays the best (no search). The one chance it takes is the stall rule
of the levels that do not search (``heuristics.break_stall``, a coin of the seeded generator
once a round has gone on for more than ``STALL_MOVES`` events): without it two learned players
could hand the same low cards round the pile for ever (8 of 641 self-play games ran to the
arena's move cap). Its weights ship in ``yaniv/bots/data/learned.npz``, with what made them in
``learned.json``; docs/training.md says how to rebuild them. It needs numpy (the ``rl`` extra):
without it the level is left out of ``bot_names()`` (so the terminal game and the web app do
not offer it), and asking for it by name says what it needs.
"""

from __future__ import annotations

import functools
import importlib.util
import random
import sys
from typing import TYPE_CHECKING

from ..errors import YanivError
from ..moves import Move
from ..view import PlayerView
from .base import legal_moves, register
from .heuristics import break_stall

if TYPE_CHECKING:
    from .learned_net import Network


@functools.cache
def _numpy_found() -> bool:
    """Whether numpy can be imported: a search of the path, once (the server lists the levels
    at every game it creates)."""
    try:
        return importlib.util.find_spec("numpy") is not None
    except ValueError:  # a numpy module in sys.modules without a spec
        return False


def _network() -> Network:
    try:
        from .learned_net import shipped
    except ModuleNotFoundError as exc:
        if exc.name != "numpy":
            raise
        raise YanivError(
            "the bot level 'learned' needs numpy, which is not installed: pip install 'yaniv[rl]'"
        ) from None
    return shipped()


@register("learned")
class LearnedBot:
    """The shipped network's greedy move."""

    name = "learned"

    @staticmethod
    def available() -> bool:
        """Whether numpy is installed (else the level is not listed among ``bot_names()``)."""
        if "numpy" in sys.modules:  # imported, or marked missing (None)
            return sys.modules["numpy"] is not None
        return _numpy_found()

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)  # the stall rule's coin only
        self.net = _network()  # read once per process, shared by every bot

    def choose(self, view: PlayerView) -> Move:
        """The move the network scores highest (a stock draw where the round has stalled)."""
        legal_moves(view)
        stop = break_stall(view, self.rng)
        if stop is not None:
            return stop
        return self.net.choose(view)
