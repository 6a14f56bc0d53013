"""The PettingZoo AEC environment: every seat an agent, a whole game (or one round) an episode.

>>> from yaniv.envs import env
>>> e = env(rules="standard", players=3)
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs), e.agent_selection
(['action_mask', 'observation'], 'player_1')
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable, Mapping
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from ..cards import NAMES
from ..errors import IllegalMoveError, SetupError
from ..game import Game, Phase
from ..rules import RuleSet
from .actions import action_table, as_rules
from .observation import Observer
from .seat_buffers import seat_buffers

_ROUND_OVER, _GAME_OVER = Phase.ROUND_OVER, Phase.GAME_OVER
ROUNDS = ("game", "one")
REWARDS = ("win_loss", "points")
RENDER_MODES = ("human", "ansi")


class IllegalActionError(IllegalMoveError):
    """An action that is not legal now (its mask entry is 0); the game is unchanged."""


def action_index(action: Any, where: object = None) -> int:
    """``action`` as an action's index: an int as it is (the common case, without
    operator.index's call), else through ``operator.index``; IllegalActionError in words
    (``where`` before them, formatted only then: which agent, which game) for anything else."""
    if type(action) is int:
        return action
    try:
        return operator.index(action)
    except TypeError:
        before = "" if where is None else f"{where}: "
        raise IllegalActionError(
            f"{before}action {action!r:.30}: expected the index of an action (an integer)"
        ) from None


def check_options(players: int, rounds: str, rewards: str) -> None:
    """Refuse a player count, round mode or reward mode the environments do not have."""
    if not isinstance(players, int) or not 2 <= players <= 8:
        raise SetupError(f"players={players!r:.20}: Yaniv is played by 2 to 8 (R5)")
    if rounds not in ROUNDS:
        raise SetupError(f"rounds={rounds!r:.30}: expected one of {', '.join(ROUNDS)}")
    if rewards not in REWARDS:
        raise SetupError(f"rewards={rewards!r:.30}: expected one of {', '.join(REWARDS)}")


def observation_space(observer: Observer, actions: int) -> spaces.Dict:
    """The space of ``{"observation": ..., "action_mask": ...}``."""
    return spaces.Dict(
        {
            "observation": spaces.Box(observer.low, observer.high, (observer.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }
    )


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's name for the unwrapped env
    """Yaniv as a PettingZoo AEC environment; ``env()`` wraps it with PettingZoo's checks.

    Agents ``player_0`` .. ``player_{n-1}`` are the seats. Actions index the rule set's
    action table (``self.table``); an illegal action raises IllegalActionError. Rewards, by
    ``rewards``: ``win_loss`` gives +1 to each winner and ``loss_reward`` (default -1) to
    every other seat, when the game ends or when a seat is eliminated (R19); ``points`` gives
    each seat minus the points it scored (after the bonus) at the end of every round. With
    ``rounds="one"`` an episode is one round and its winner (R17) is the winner.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "yaniv_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: RuleSet | str | Mapping[str, Any] | None = None,
        players: int = 2,
        *,
        rounds: str = "game",
        rewards: str = "win_loss",
        loss_reward: float = -1.0,
        max_steps: int | None = None,
        max_cycles: int | None = None,
        copy: bool = True,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_options(players, rounds, rewards)
        for name, value in (("max_steps", max_steps), ("max_cycles", max_cycles)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise SetupError(f"{name}={value!r:.20}: expected a whole number from 1, or None")
        if max_cycles is not None:
            if max_steps is not None:
                raise SetupError("give max_steps or max_cycles, not both")
            max_steps = max_cycles * players  # PettingZoo's sense: a step for each agent
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise SetupError(f"render_mode={render_mode!r:.30}: expected human or ansi")
        self.rules = as_rules(rules)
        self.n = players
        self.rounds = rounds
        self.reward_mode = rewards
        self.loss_reward = float(loss_reward)
        self.max_steps = max_steps
        self.copy = copy
        self.render_mode = render_mode
        self.table = action_table(self.rules)
        self.observer = Observer(self.rules, players)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: observation_space(self.observer, self.table.size) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in self.possible_agents}
        # The global state for centralized critics: every seat's observation, seat 0 first.
        self.state_space = spaces.Box(
            np.tile(self.observer.low, players),
            np.tile(self.observer.high, players),
            (self.observer.size * players,),
            np.float32,
        )
        self._rng = random.Random()
        # Per seat, its observation and mask, written together once a position.
        self._buffers = [seat_buffers(self.observer, self.table, s) for s in range(players)]
        self._buffers_of = dict(zip(self.possible_agents, self._buffers, strict=True))
        self._rewarded = False
        self.game: Game | None = None
        # Until reset(): no agents, so step() says what to do.
        self.agents: list[str] = []
        self.agent_selection = ""
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------- spaces

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: the action table's indices."""
        return self.action_spaces[agent]

    def state(self) -> NDArray[np.float32]:
        """The whole game as one array, for centralized critics (never for a seat's policy: it
        holds every hand): each seat's observation in seat order, in ``state_space``."""
        game = self.game
        if game is None:
            raise SetupError("state() before reset()")
        return np.concatenate([self.observer.write(game, s) for s in range(self.n)])

    # ------------------------------------------------------------- episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game; its seed is drawn from the environment's generator (seeded here)."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game.new(self.rules, self.n, seed=self._rng.getrandbits(63))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._steps = 0
        self._rewarded = False
        self.agent_selection = self.possible_agents[self.game.to_move or 0]

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        """``agent``'s observation and action mask (copies unless ``copy=False``)."""
        buffers = self._buffers_of[agent]
        game = self.game
        if game is None:
            raise SetupError("observe() before reset()")
        buffers.update(game)
        if self.copy:
            return {"observation": buffers.observation.copy(), "action_mask": buffers.mask.copy()}
        return {"observation": buffers.observation, "action_mask": buffers.mask}

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (None for an agent that is done)."""
        agent = self.agent_selection
        terminated = self.terminations.get(agent)
        if terminated is None:
            raise SetupError(
                "step() with no agent left: the episode is over, call reset()"
                if self.game is not None
                else "step() before reset()"
            )
        if terminated or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None  # agents exist only after reset()
        table = self.table
        index = action if type(action) is int else action_index(action, agent)
        if not self._buffers_of[agent].allows(game, index):
            what = table.moves[index] if 0 <= index < table.size else "out of range"
            raise IllegalActionError(
                f"illegal action {index} ({what}) for {agent}; legal: {table.legal_actions(game)}"
            )
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
            for a in self.agents:  # a round's result is told once, at its end
                self.infos[a] = {}
        self._cumulative_rewards[agent] = 0.0
        game.apply(table.moves[index])
        self._steps += 1
        if game.phase >= _ROUND_OVER:
            self._end_round(game)
        elif self.max_steps is not None and self._steps >= self.max_steps:
            for a in self.agents:
                self.truncations[a] = True
            self._deads_step_first()
        else:  # a seat is to move: game._to_move is to_move, without the property's call
            self.agent_selection = self.possible_agents[game._to_move]
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_round(self, game: Game) -> None:
        """Rewards, eliminations and the next deal after a showdown."""
        result = game.result
        assert result is not None
        agents = self.possible_agents
        live = [self._seat[a] for a in self.agents]
        told = {
            "round": game.round_no,
            "result": result.kind.value,
            "caller": agents[result.caller],
            "round_winner": agents[result.winner],
            "points": {agents[s]: result.points[s] for s in live},
            "scores": {agents[s]: game.scores[s] for s in range(self.n)},
            "out": [agents[s] for s in range(self.n) if game.out[s]],
        }
        if game.phase is _GAME_OVER or self.rounds == "one":  # the episode's end
            winners = (result.winner,) if self.rounds == "one" else result.game_winners
            told["winners"] = [agents[s] for s in winners]
        for s in live:
            self.infos[agents[s]] = dict(told)
        if self.reward_mode == "points":
            for s in live:
                self.rewards[agents[s]] = float(result.bonuses[s] - result.points[s])
        if game.phase is _GAME_OVER or self.rounds == "one":
            winners = (result.winner,) if self.rounds == "one" else result.game_winners
            for s in live:
                a = agents[s]
                self.terminations[a] = True
                if self.reward_mode == "win_loss":
                    self.rewards[a] = 1.0 if s in winners else self.loss_reward
        else:
            for s in result.newly_out:
                a = agents[s]
                self.terminations[a] = True
                if self.reward_mode == "win_loss":
                    self.rewards[a] = self.loss_reward
            game.next_round()
            self.agent_selection = agents[cast(int, game.to_move)]
        self._rewarded = True
        self._deads_step_first()

    # ------------------------------------------------------------- text

    def render(self) -> str | None:
        """The table as text (every hand shown: for a person watching, not for an agent)."""
        if self.render_mode is None or self.game is None:
            return None
        game = self.game
        lines = [
            f"round {game.round_no}, {game.phase.label}, to move: "
            f"{'-' if game.to_move is None else agent_name(game.to_move)}"
        ]
        for s in range(self.n):
            mark = " (out)" if game.out[s] else ""
            lines.append(
                f"  {agent_name(s)}: {' '.join(_names(game.hand(s)))} score {game.scores[s]}{mark}"
            )
        if game.pile:
            lines.append(
                f"  top of the pile: {' '.join(_names(game.pile[-1]))}; stock {len(game.stock)}"
            )
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def agent_name(seat: int) -> str:
    """The agent of ``seat``: ``player_<seat>``."""
    return f"player_{seat}"


def _names(cards: Iterable[int]) -> list[str]:
    return [NAMES[c] for c in cards]


class OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper, with direct paths to what a loop reads at every
    step (``last()``, ``agent_selection``, ``agents``, ...). PettingZoo's own reaches them
    through ``__getattr__``, which cost a third of the raw environment's speed."""

    def _reset_first(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        self._reset_first("agent_selection")
        return cast(str, self.env.agent_selection)

    @property
    def agents(self) -> list[str]:
        self._reset_first("agents")
        return cast("list[str]", self.env.agents)

    @property
    def num_agents(self) -> int:
        self._reset_first("num_agents")
        return len(self.env.agents)

    @property
    def rewards(self) -> dict[str, float]:
        self._reset_first("rewards")
        return cast("dict[str, float]", self.env.rewards)

    @property
    def terminations(self) -> dict[str, bool]:
        self._reset_first("terminations")
        return cast("dict[str, bool]", self.env.terminations)

    @property
    def truncations(self) -> dict[str, bool]:
        self._reset_first("truncations")
        return cast("dict[str, bool]", self.env.truncations)

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        self._reset_first("infos")
        return cast("dict[str, dict[str, Any]]", self.env.infos)

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return cast("dict[str, float]", self.env._cumulative_rewards)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As ``AECEnv.last``, read from the wrapped environment at once."""
        if not self._has_reset:  # (_reset_first's test inline: this runs at every step)
            self._reset_first("agent_selection")
        return cast("tuple[Any, float, bool, bool, dict[str, Any]]", self.env.last(observe))

    # PettingZoo's step, observe and agent iterator, each with the same checks and warnings
    # but calling the wrapped environment at once (theirs go through super() and properties:
    # together half of a step's time over the raw environment).

    def step(self, action: Any) -> None:
        """As PettingZoo's: refused before reset, a warning once no agent is left."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def observe(self, agent: str) -> Any:
        """As PettingZoo's: refused before reset."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def agent_iter(self, max_iter: int = 2**63) -> _OrderedAgents:
        """As PettingZoo's: refused before reset; each agent only after a step or a reset."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderedAgents(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _OrderedAgents(AECOrderEnforcingIterable):  # type: ignore[misc]
    """PettingZoo's iterable of the agent to act, its iterator reading the wrapped env."""

    def __iter__(self) -> _OrderedAgentIterator:
        return _OrderedAgentIterator(self.env, self.max_iter)


class _OrderedAgentIterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """PettingZoo's AECOrderEnforcingIterator: the same ends and the same assertion."""

    def __next__(self) -> str:
        wrapper = self.env
        if not wrapper._has_reset:
            wrapper._reset_first("agents")
        inner = wrapper.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        agent: str = inner.agent_selection
        return agent


def env(
    rules: RuleSet | str | Mapping[str, Any] | None = None, players: int = 2, **options: Any
) -> AECEnv:
    """The AEC environment inside PettingZoo's order-enforcing wrapper (see ``raw_env``)."""
    return OrderEnforcing(raw_env(rules, players, **options))


__all__ = ["IllegalActionError", "agent_name", "env", "raw_env"]
