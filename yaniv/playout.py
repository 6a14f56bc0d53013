"""Play-outs: a game played on from its position to the end by a fixed, seeded policy.

The rollout of a Monte Carlo search (OpenSpiel's MCTS evaluator plays random moves to the end
of the game) and the engine's own speed figure: on the compiled core the whole play-out runs in
C, moves, draws, refills and deals included, and gives exactly the moves of the pure loop here,
which plays them through ``Game.apply`` (``tests/test_playout.py`` holds the two together).

>>> from yaniv.game import Game
>>> game = Game.new(players=3, seed=5)
>>> out = play_out(game, "random", seed=1)
>>> out.finished, len(out.winners) >= 1, game.round_no   # the game itself is left as it was
(True, True, 1)
>>> play_out(game, "random", seed=1) == out               # the same seed, the same play-out
True

Policies:

- ``random``: each legal move equally likely (``legal_moves()`` in its order, indexed by a
  splitmix64 generator seeded with ``seed``).
- ``greedy``: call Yaniv whenever allowed, else discard the legal discard worth most (the first
  listed of equal value); then take the lowest-valued card the pile offers (the first of equal
  value) if it is worth under 5 or the stock is empty, else the stock. A slap is always made.
  It is issue 20's like-for-like policy, the one benchmarks/node_engine.mjs drives another
  engine with.

The core plays discard-first games without slapdown; a draw-first or slapdown game, or one
replaying a recorded stock order, is played by the pure loop (the same moves, slower).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from . import compiled as _compiled
from . import game as _game
from .cards import VALUE
from .errors import SetupError
from .game import Game, Phase
from .moves import DRAW_STOCK, DRAWS, YANIV, Discard, Draw, Move, Slap

Policy = Literal["random", "greedy"]
POLICIES: tuple[Policy, ...] = ("random", "greedy")
#: The greedy policy takes a pile card worth less than this (issue 20's benchmark policy).
GREEDY_TAKE_BELOW = 5
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class Playout:
    """How a play-out went: the moves made, the rounds ended, and the position it stopped at."""

    moves: int  #: engine moves made: a Yaniv call, a discard, a draw, a slap or a pass, one each
    rounds: int  #: rounds ended (showdowns) during the play-out
    scores: tuple[int, ...]  #: every seat's score at the end
    out: tuple[bool, ...]  #: which seats are out of the game at the end
    winners: tuple[int, ...]  #: the game's winners, where it ended (else empty)
    finished: bool  #: whether the game ended (else ``max_moves`` stopped it)
    record: tuple[tuple[int, Move], ...] | None = None  #: (seat, move) in order, where asked


class SplitMix64:
    """The play-outs' generator (splitmix64): the same draws in Python and in the core."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next(self) -> int:
        """The next 64-bit draw."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An index below ``n``: the draw's top 53 bits times n, over 2**53."""
        return ((self.next() >> 11) * n) >> 53


def greedy_move(game: Game, legal: Sequence[Move]) -> Move:
    """The greedy policy's move (see the module's docstring)."""
    first = legal[0]
    if first is YANIV or isinstance(first, Slap):
        return first
    if isinstance(first, Draw):  # a draw is due: the stock is listed first where it has cards
        best = min(game.pickable, key=VALUE.__getitem__)
        return DRAWS[best] if VALUE[best] < GREEDY_TAKE_BELOW or not game.stock else DRAW_STOCK
    best_move, best_value = first, -1
    for move in legal:
        if isinstance(move, Discard) and move.value > best_value:
            best_move, best_value = move, move.value
    return best_move


def _check(game: object, policy: object, seed: object, max_moves: object) -> int:
    if not isinstance(game, Game):
        raise SetupError(f"play_out plays a Game, not {type(game).__name__}")
    if policy not in POLICIES:
        raise SetupError(f"no play-out policy {policy!r:.40}: choose one of {', '.join(POLICIES)}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= _MASK64:
        raise SetupError(f"a play-out seed is an int from 0 to 2**64 - 1, not {seed!r:.40}")
    if max_moves is None:
        return 2**62
    if not isinstance(max_moves, int) or isinstance(max_moves, bool) or max_moves < 0:
        raise SetupError(f"max_moves is a whole number of moves (0 or more), not {max_moves!r:.40}")
    return max_moves


def play_out(
    game: Game,
    policy: Policy = "random",
    *,
    seed: int = 0,
    max_moves: int | None = None,
    record: bool = False,
    compiled: bool | None = None,
) -> Playout:
    """Play ``game`` on from its position by ``policy`` until it ends or ``max_moves`` moves
    are made, leaving ``game`` itself as it was. A round that is over is dealt on first, as
    ``next_round()`` deals it. ``record``: keep every (seat, move). ``compiled``: the core
    (True, where built), the pure loop (False), or the game's own path (None)."""
    limit = _check(game, policy, seed, max_moves)
    if game.phase is Phase.GAME_OVER:
        scores, out, winners = tuple(game.scores), tuple(game.out), tuple(game.winners)
        return Playout(0, 0, scores, out, winners, True, () if record else None)
    use_core = game._fast if compiled is None else compiled
    core = _compiled.AVAILABLE if use_core else None
    if core is not None and _game._core_seeded_shuffle is not None:
        moves: list[tuple[int, Move]] | None = [] if record else None
        done = core.play_out(
            game,
            POLICIES.index(policy),
            seed,
            min(limit, 2**62),
            moves,
            game._scorer(),
            _game.shuffle_key,
        )
        if done is not None:
            made, rounds, scores, out, winners, finished = done
            return Playout(
                made,
                rounds,
                scores,
                out,
                winners,
                finished,
                None if moves is None else tuple(moves),
            )
    return _pure_play_out(game, policy, seed, limit, record)


def _pure_play_out(game: Game, policy: Policy, seed: int, limit: int, record: bool) -> Playout:
    """The reference: the policy's moves, played through the engine on a copy of the game."""
    g = game.clone()
    rng = SplitMix64(seed)
    greedy = policy == "greedy"
    kept: list[tuple[int, Move]] = []
    made = rounds = 0
    while made < limit:
        phase = g.phase
        if phase is Phase.ROUND_OVER:
            g.next_round()
            continue
        if phase is Phase.GAME_OVER:
            break
        legal = g.legal_moves()
        move = greedy_move(g, legal) if greedy else legal[rng.below(len(legal))]
        if record:
            kept.append((g._to_move, move))
        g.apply(move)
        made += 1
        rounds += g.phase >= Phase.ROUND_OVER
    finished = g.phase is Phase.GAME_OVER
    return Playout(
        made,
        rounds,
        tuple(g.scores),
        tuple(g.out),
        tuple(g.winners) if finished else (),
        finished,
        tuple(kept) if record else None,
    )


__all__ = ["GREEDY_TAKE_BELOW", "POLICIES", "Playout", "SplitMix64", "greedy_move", "play_out"]
