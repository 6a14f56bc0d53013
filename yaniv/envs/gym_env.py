"""The Gymnasium environment ``yaniv/Yaniv-v0``: one seat learns, the others are bots.

>>> import gymnasium
>>> import yaniv.envs
>>> env = gymnasium.make("yaniv/Yaniv-v0", players=3, opponents="easy")
>>> obs, info = env.reset(seed=1)
>>> sorted(obs)
['action_mask', 'observation']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from .. import compiled as _compiled
from ..bots import get_bot
from ..bots.random_bot import RandomBot
from ..cards import NAMES
from ..errors import SetupError
from ..game import Game, Phase
from ..moves import YANIV, Move
from ..rules import RuleSet
from ..view import PlayerView
from .actions import action_table, as_rules
from .aec import (
    RENDER_MODES,
    IllegalActionError,
    action_index,
    check_options,
    observation_space,
)
from .observation import Observer
from .seat_buffers import seat_buffers

_ROUND_OVER, _GAME_OVER = Phase.ROUND_OVER, Phase.GAME_OVER
ILLEGAL = ("penalize", "raise")

#: An opponent: a bot level name (``yaniv.bots.get_bot``), a Bot (anything with ``choose``),
#: or a callable from a PlayerView to a move.
Opponent = str | Callable[[PlayerView], Move] | Any


class YanivEnv(gymnasium.Env[dict[str, NDArray[Any]], int]):
    """One seat of a Yaniv game against bots, as a single-agent Gymnasium environment.

    ``opponents`` is one opponent for every other seat, or a sequence with one per other seat
    in clockwise order from the learner: a bot level (``"random"``, ``"easy"``, ...; seeded
    from the episode's seed), a Bot, or any callable taking a PlayerView and returning a move.
    Observations and actions are those of the AEC environment (``yaniv.envs.raw_env``).

    An illegal action (mask 0) with ``illegal="penalize"`` (the default) leaves the game as it
    was and returns reward ``illegal_reward`` (default -1) and ``info["illegal_action"] =
    True``; with ``illegal="raise"`` it raises IllegalActionError. Rewards are as in the AEC
    environment: ``win_loss`` (+1 win, ``loss_reward`` on a loss or an elimination) or
    ``points`` (minus the learner's points at the end of each round).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        rules: RuleSet | str | Mapping[str, Any] | None = None,
        players: int = 2,
        opponents: Opponent | Sequence[Opponent] = "random",
        *,
        seat: int = 0,
        rounds: str = "game",
        rewards: str = "win_loss",
        loss_reward: float = -1.0,
        illegal: str = "penalize",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        check_options(players, rounds, rewards)
        if illegal not in ILLEGAL:
            raise SetupError(f"illegal={illegal!r:.30}: expected one of {', '.join(ILLEGAL)}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise SetupError(f"seat={seat!r:.20}: expected a seat from 0 to {players - 1}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise SetupError(f"render_mode={render_mode!r:.30}: expected human or ansi")
        self.rules = as_rules(rules)
        self.n = players
        self.seat = seat
        self.rounds = rounds
        self.reward_mode = rewards
        self.loss_reward = float(loss_reward)
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        others = [(seat + k) % players for k in range(1, players)]
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            chosen = [opponents] * len(others)
        else:
            chosen = list(opponents)
            if len(chosen) != len(others):
                raise SetupError(f"{len(chosen)} opponents for {len(others)} other seats")
        self._specs: dict[int, Opponent] = dict(zip(others, chosen, strict=True))
        self._players: dict[int, Callable[[PlayerView], Move]] = {}
        # Per seat, the opponents that choose from the game itself (see _RandomFromGame);
        # False here makes every opponent choose from its view (the tests compare the two).
        self._from_game = True
        self._game_players: list[_RandomFromGame | None] = [None] * players
        # Their generators, for the compiled loop that plays them (None: a seat it leaves).
        self._rngs: list[random.Random | None] = [None] * players
        self._play_random = None if _compiled.core is None else _compiled.core.play_random
        self.table = action_table(self.rules)
        self.observer = Observer(self.rules, players)
        self.observation_space = cast(
            "spaces.Space[dict[str, NDArray[Any]]]",
            observation_space(self.observer, self.table.size),
        )
        self.action_space = cast("spaces.Space[int]", spaces.Discrete(self.table.size))
        self.game: Game | None = None
        self._buffers = seat_buffers(self.observer, self.table, seat)

    # ------------------------------------------------------------- episode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """Deal a new game and play the bots up to the learner's first turn."""
        super().reset(seed=seed)
        rng = self.np_random
        self.game = Game.new(self.rules, self.n, seed=int(rng.integers(2**63)))
        self._players = {
            s: _player(spec, int(rng.integers(2**63))) for s, spec in self._specs.items()
        }
        self._game_players = [
            _RandomFromGame.of(self._players.get(s)) if self._from_game else None
            for s in range(self.n)
        ]
        self._rngs = [None if c is None else c.compiled_rng() for c in self._game_players]
        reward, done = self._advance(self.game)
        if done:  # cannot happen: a game never ends before every seat has played
            raise SetupError("the game ended before the learner's first turn")
        return self._observe(), {}

    def step(
        self, action: int
    ) -> tuple[dict[str, NDArray[Any]], float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots until the learner's turn or the end."""
        game = self.game
        if game is None:
            raise SetupError("step() before reset()")
        if game.phase >= _ROUND_OVER or game._to_move != self.seat:
            raise SetupError("step() after the episode ended: call reset()")
        index = action if type(action) is int else action_index(action)
        table = self.table
        if not self._buffers.allows(game, index):  # (env.game is public: judged as it stands)
            if self.illegal == "raise":
                what = table.moves[index] if 0 <= index < table.size else "none"
                legal = table.legal_actions(game)
                raise IllegalActionError(f"illegal action {index} ({what}); legal: {legal}")
            return self._observe(), self.illegal_reward, False, False, {"illegal_action": True}
        game.apply(table.moves[index])
        # (the common case inline: no round over, the learner to move again or the bots)
        reward, done = self._after_move(game) if game.phase >= _ROUND_OVER else (0.0, False)
        if not done and game._to_move != self.seat:
            more, done = self._advance(game)
            reward += more
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, done, False, {}

    def _advance(self, game: Game) -> tuple[float, bool]:
        """Let the bots move until the learner is to act or the episode is over."""
        reward = 0.0
        from_game = self._game_players
        play_random = self._play_random
        while game._to_move != self.seat:  # (-1 once a round is over: _after_move ends it)
            seat = game._to_move
            chooser = from_game[seat]
            if chooser is not None:  # one of the moves game.legal_moves() lists: legal
                # The compiled loop plays the random seats up to the learner or the round's
                # end at once; it leaves the move to the chooser where it made none.
                if play_random is None or not play_random(game, self.seat, self._rngs):
                    game.apply(chooser(game, seat))
            else:
                game.play(self._players[seat](game.view(seat)), seat=seat)
            more, done = self._after_move(game)
            reward += more
            if done:
                return reward, True
        return reward, False

    def _after_move(self, game: Game) -> tuple[float, bool]:
        """The learner's reward for a move that may have ended a round; whether it is over."""
        if game.phase < _ROUND_OVER:
            return 0.0, False
        result = game.result
        assert result is not None  # a round over has a result
        me = self.seat
        reward = 0.0
        if self.reward_mode == "points":
            reward = float(result.bonuses[me] - result.points[me])
        if self.rounds == "one" or game.phase is _GAME_OVER:
            winners = (result.winner,) if self.rounds == "one" else result.game_winners
            if self.reward_mode == "win_loss":
                reward = 1.0 if me in winners else self.loss_reward
            return reward, True
        if me in result.newly_out:
            return (self.loss_reward if self.reward_mode == "win_loss" else reward), True
        game.next_round()
        return reward, False

    def _observe(self) -> dict[str, NDArray[Any]]:
        game = self.game
        assert game is not None
        buffers = self._buffers
        buffers.update(game)
        return {"observation": buffers.observation.copy(), "action_mask": buffers.mask.copy()}

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, as booleans (the name sb3-contrib's maskable agents call)."""
        game = self.game
        if game is None:
            raise SetupError("action_masks() before reset()")
        return self.table.mask(game, seat=self.seat).astype(bool)

    # ------------------------------------------------------------- text

    def render(self) -> str | None:
        """The learner's view as text."""
        if self.render_mode is None or self.game is None:
            return None
        view = self.game.view(self.seat)
        text = (
            f"round {view.round_no}, {view.phase.label}; hand "
            f"{' '.join(NAMES[c] for c in view.hand)} ({view.hand_value}); top "
            f"{' '.join(NAMES[c] for c in view.pile[-1]) if view.pile else '-'}; "
            f"scores {list(view.scores)}"
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text


class _RandomFromGame:
    """The level ``random`` (bots/random_bot.py) reading the game instead of a view, with the
    bot's own generator: the same moves, without a view's cost at every turn. The bot reads
    two facts of its view, both the game's own: the legal moves (a view's are the game's, in
    the same order) and the hand's value (the game keeps it per seat)."""

    __slots__ = ("rng",)

    def __init__(self, bot: RandomBot) -> None:
        self.rng = bot.rng

    @classmethod
    def of(cls, choose: Callable[[PlayerView], Move] | None) -> _RandomFromGame | None:
        """One for a random bot's ``choose`` (not for a subclass, which may choose otherwise)."""
        bot = getattr(choose, "__self__", None)
        return cls(bot) if type(bot) is RandomBot and choose == bot.choose else None

    def compiled_rng(self) -> random.Random | None:
        """The generator, for the compiled loop (``yaniv._core.play_random``), which draws as
        random.Random's own ``choice`` does: only an exact random.Random."""
        return self.rng if type(self.rng) is random.Random else None

    def __call__(self, game: Game, seat: int) -> Move:
        moves = game.legal_moves()
        # The bot's test, its two sides swapped (both read only): the value, the cheaper, first.
        if game.values[seat] <= game.rules.yaniv_threshold and YANIV in moves:
            return YANIV
        return self.rng.choice(moves)


def _player(spec: Opponent, seed: int) -> Callable[[PlayerView], Move]:
    """A function from a view to a move, for an opponent given by level, bot or callable."""
    if isinstance(spec, str):
        return get_bot(spec, seed).choose
    choose = getattr(spec, "choose", None)
    if callable(choose):
        return cast("Callable[[PlayerView], Move]", choose)
    if callable(spec):
        return cast("Callable[[PlayerView], Move]", spec)
    raise SetupError(f"opponent {spec!r:.40}: expected a bot level, a bot or a callable")


__all__ = ["YanivEnv"]
