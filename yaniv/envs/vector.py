"""A batched Gymnasium environment: many games of ``yaniv/Yaniv-v0`` stepped at once, their
observations and action masks written in place into preallocated numpy arrays.

Each game is a :class:`~yaniv.envs.YanivEnv` (one seat learns, the others are bots); game ``i``
is reset with seed ``seed + i`` and, when its episode ends, reset again at once (Gymnasium's
same-step autoreset): the row then holds the new episode's first observation, and the last
one is in ``infos["final_obs"]`` (rows where ``infos["_final_obs"]``). Stepping the batch is
stepping each game's own environment with the same seeds, action for action (the tests
check it), without a dict or a copy per game per step.

>>> from yaniv.envs.vector import BatchedYanivEnv
>>> envs = BatchedYanivEnv(8, players=2, opponents="random")
>>> obs, infos = envs.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((8, 375), (8, 2950))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from ..errors import SetupError
from ..game import Phase
from ..rules import RuleSet
from .aec import IllegalActionError, action_index
from .gym_env import Opponent, YanivEnv
from .seat_buffers import seat_buffers

_ROUND_OVER = Phase.ROUND_OVER


class BatchedYanivEnv(VectorEnv[dict[str, NDArray[Any]], NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` games of :class:`~yaniv.envs.YanivEnv`, stepped together.

    The arguments after ``num_envs`` are YanivEnv's (rules, players, opponents, seat, rounds,
    rewards, ...), the same for every game. ``reset`` and ``step`` return
    ``{"observation": (num_envs, obs_size) float32, "action_mask": (num_envs, actions) int8}``:
    the same two arrays every time, rewritten in place (``copy=True`` returns copies instead;
    keep a copy of what you store). ``step(actions)`` takes one action index per game.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet | str | Mapping[str, Any] | None = None,
        players: int = 2,
        opponents: Opponent | Sequence[Opponent] = "random",
        *,
        copy: bool = False,
        **options: Any,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise SetupError(f"num_envs={num_envs!r:.20}: expected a positive number of games")
        self.envs = [YanivEnv(rules, players, opponents, **options) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_envs = num_envs
        self.copy = copy
        self.table = first.table
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = cast(
            "spaces.Space[NDArray[np.int64]]",
            spaces.MultiDiscrete(np.full(num_envs, self.table.size)),
        )
        size = first.observer.size
        #: The batch's observations and masks, one row per game, written in place.
        self.observations = np.zeros((num_envs, size), dtype=np.float32)
        self.masks = np.zeros((num_envs, self.table.size), dtype=np.int8)
        self.rewards = np.zeros(num_envs, dtype=np.float64)
        self.terminations = np.zeros(num_envs, dtype=np.bool_)
        self.truncations = np.zeros(num_envs, dtype=np.bool_)
        self._final = np.zeros((num_envs, size), dtype=np.float32)
        for i, e in enumerate(self.envs):  # each game's buffers are its rows of the batch
            e._buffers = seat_buffers(
                e.observer, self.table, e.seat, self.observations[i], self.masks[i]
            )
        self._started = False

    def _out(self) -> dict[str, NDArray[Any]]:
        if self.copy:
            return {"observation": self.observations.copy(), "action_mask": self.masks.copy()}
        return {"observation": self.observations, "action_mask": self.masks}

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """Deal every game anew (game ``i`` from ``seed + i``, or from ``seed[i]``)."""
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [
                None if seed is None else seed + i for i in range(self.num_envs)
            ]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise SetupError(f"{len(seeds)} seeds for {self.num_envs} games")
        for e, s in zip(self.envs, seeds, strict=True):
            e.reset(seed=s)  # writes its row of observations and masks
        self._started = True
        return self._out(), {}

    def step(
        self, actions: Any
    ) -> tuple[
        dict[str, NDArray[Any]], NDArray[Any], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]
    ]:
        """Play each game's action (bots move in between), resetting the games that ended."""
        if not self._started:
            raise SetupError("step() before reset()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise IllegalActionError(
                f"actions of shape {acts.shape}: expected one action per game ({self.num_envs},)"
            )
        moves = self.table.moves
        size = self.table.size
        rewards = self.rewards
        terms = self.terminations
        final: list[int] = []
        illegal: list[int] = []
        # Integer actions as Python ints at once (reading a numpy array item by item costs
        # more); any other kind is read item by item, and refused in words below.
        listed: list[int] | None = acts.tolist() if acts.dtype.kind in "iu" else None
        for i, e in enumerate(self.envs):
            game = e.game
            assert game is not None
            index = listed[i] if listed is not None else action_index(acts[i], f"game {i}")
            buffers = e._buffers
            if not buffers.allows(game, index):
                if e.illegal == "raise":
                    what = moves[index] if 0 <= index < size else "none"
                    raise IllegalActionError(f"game {i}: illegal action {index} ({what})")
                rewards[i] = e.illegal_reward
                terms[i] = False
                illegal.append(i)
                continue
            game.apply(moves[index])
            reward, done = e._after_move(game)
            if not done:
                more, done = e._advance(game)
                reward += more
            rewards[i] = reward
            terms[i] = done
            buffers.update(game)
            if done:
                self._final[i] = buffers.observation  # the episode's last observation
                final.append(i)
                e.reset()  # same-step autoreset: its next episode, from its own generator
        infos: dict[str, Any] = {}
        if final:
            ended = np.zeros(self.num_envs, dtype=np.bool_)
            ended[final] = True
            infos["final_obs"] = self._final
            infos["_final_obs"] = ended
        if illegal:
            flags = np.zeros(self.num_envs, dtype=np.bool_)
            flags[illegal] = True
            infos["illegal_action"] = flags
            infos["_illegal_action"] = flags.copy()
        out = self._out()
        if self.copy:
            return out, rewards.copy(), terms.copy(), self.truncations.copy(), infos
        return out, rewards, terms, self.truncations, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to close: the games live in this process."""


__all__ = ["BatchedYanivEnv"]
