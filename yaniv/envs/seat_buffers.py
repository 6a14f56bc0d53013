"""A seat's observation and action mask, written together once per position.

The environments ask at every step for the acting seat's observation and mask, and whether an
action is legal; ``SeatBuffers`` answers all three from one place, rewriting both arrays only
when the position has changed (a move made, a new deal: the round's move list by identity,
and its length), so a move made on the game outside the environment is seen too.
``seat_buffers`` gives the compiled twin (``yaniv._core.SeatBuffers``, one C call a step)
where the core is built, this class otherwise; both write the same arrays and answer alike.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from .. import compiled as _compiled
from ..game import Game
from .actions import ActionTable, MaskBuffer
from .observation import Observer


class Buffers(Protocol):
    """What the environments use of a seat's buffers: SeatBuffers and its compiled twin."""

    seat: int
    observation: NDArray[np.float32]
    mask: NDArray[np.int8]

    def update(self, game: Game) -> None: ...
    def allows(self, game: Game, index: int) -> bool: ...


class SeatBuffers:
    """One seat's observation (``observation``, float32) and action mask (``mask``, 0/1
    int8), kept in place: ``update(game)`` writes both for the position, ``allows(game,
    index)`` says whether action ``index`` is legal there."""

    __slots__ = ("seat", "observation", "mask", "_obs", "_mask", "_legal")

    def __init__(
        self,
        observer: Observer,
        table: ActionTable,
        seat: int,
        observation: NDArray[np.float32] | None = None,
        mask: NDArray[np.int8] | None = None,
    ) -> None:
        self.seat = seat
        self._obs = observer.buffer(seat, observation)
        self._mask = MaskBuffer(table.size, mask, compiled=False)
        self._legal = table.legal_actions
        self.observation = self._obs.array
        self.mask = self._mask.array

    def update(self, game: Game) -> None:
        """Write the seat's observation and mask for ``game`` where it stands (the mask all
        zeros unless the seat is to move); nothing where they are of this position already."""
        mask = self._mask
        if mask.is_of(game):
            return
        self._obs.update(game)
        mask.update(self._legal(game) if game._to_move == self.seat else [], game)

    def allows(self, game: Game, index: int) -> bool:
        """Whether action ``index`` is legal in ``game`` now: read from the mask where it is
        of this position, else from the legal actions of the seat to move."""
        if not 0 <= index < len(self.mask):
            return False
        mask = self._mask
        if mask.is_of(game):
            return bool(mask[index])
        return index in self._legal(game)


def seat_buffers(
    observer: Observer,
    table: ActionTable,
    seat: int,
    observation: NDArray[np.float32] | None = None,
    mask: NDArray[np.int8] | None = None,
    *,
    compiled: bool | None = None,
) -> Buffers:
    """A SeatBuffers for ``seat``, writing into ``observation`` and ``mask`` where given (rows
    of a batch) or into arrays of its own: the compiled twin where the core is built (and
    ``compiled`` does not refuse it), else the Python class. Both have ``seat``,
    ``observation``, ``mask``, ``update`` and ``allows``."""
    core = _compiled.choose(compiled)
    if core is None:
        return SeatBuffers(observer, table, seat, observation, mask)
    obs = observer.buffer(seat, observation)
    if mask is None:
        mask = np.zeros(table.size, dtype=np.int8)
    elif mask.shape != (table.size,) or mask.dtype != np.int8:
        raise ValueError(f"mask: expected an int8 array of shape ({table.size},)")
    else:
        mask[:] = 0
    made: Buffers = core.SeatBuffers(
        seat, observer._writer, obs.rewrite, table._fast, table.legal_actions, obs.array, mask
    )
    return made


__all__ = ["Buffers", "SeatBuffers", "seat_buffers"]
