"""Tournaments between bots: duplicate deals, rotated seats, statistics.

Each deal is played once per seat rotation (``players`` games per deal), with the same cards
dealt to each seat in every round of every rotation, so the luck of the deal cancels. Each
place in the lineup is an entrant of its own (a spec given twice, or filling several seats,
is ``spec#1``, ``spec#2``, ...) and moves round the table with the rotations. Game wins are
counted per entrant: a game with shared winners counts as a win for each of them. A bot that
fails (an exception, an illegal move, garbage, no answer in time) loses the game at once, the
other seats share the win, and the failure is listed in the report. A game still running after
``max_moves`` moves (``MAX_MOVES`` by default) is stopped and reported as capped: it is a win for
no one and does not move the ratings.

A seat is a built-in level (``medium``), an external program (``cmd:COMMAND``, seated through
:mod:`yaniv.protocol`), or a policy in this process (``module:Name``: a class with
``choose(view) -> move``, built with no arguments or with ``seed=``, or a function of a view),
imported once, so that a model is loaded once and not once per game. ``evaluate`` measures a
policy object directly; ``compare`` measures two on the same games (an A/B test). Printing the
report and the command line are in :mod:`yaniv.arena_cli`.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import random
import re
import shlex
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .arena_journal import Journal
from .cards import deck
from .discards import as_laid
from .errors import YanivError
from .game import Deal, Game, Phase, ResultKind
from .moves import YANIV, Move, parse_move
from .protocol import QUIT_GRACE, STARTUP_LIMIT, BotFailure, CmdBot, check_time_limit, close_all
from .rules import RuleSet

__all__ = [
    "MAX_MOVES",
    "BotFailure",
    "BotStats",
    "Evaluation",
    "GameTask",
    "Runner",
    "Comparison",
    "calibration_table",
    "check_max_moves",
    "check_spec",
    "check_time_limit",
    "compare",
    "deal_for",
    "deal_interval",
    "entrant_names",
    "evaluate",
    "lineup_for",
    "load_policy",
    "make_bot",
    "percentile",
    "Programs",
    "play_game",
    "play_games",
    "run_arena",
    "run_local",
    "short_name",
    "wilson",
]

#: A game still running after this many moves is stopped and reported as capped (no winner).
#: Bots can cycle forever (two bots passing the same cards back and forth). The package's
#: bots finish a game well inside it: easy to expert in under 1,000 moves, random in under
#: 3,000 (8 players, standard rules; measured over a few hundred games).
MAX_MOVES = 5_000


def check_max_moves(max_moves: int) -> None:
    """Raise YanivError unless ``max_moves`` is a positive whole number."""
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise YanivError(f"--max-moves {max_moves!r}: expected a whole number of moves, at least 1")


#: ``module.path:Name``, a policy found on the Python path.
_POLICY_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
#: Policy objects given to ``evaluate``, by the spec that seats them (a forked worker has them
#: too; they never travel to another machine).
_OBJECTS: dict[str, Any] = {}
#: A name given to a policy object (``evaluate``'s ``name``): a word, with ``=,.+-`` for its
#: options, e.g. ``master-z=1.5``.
_POLICY_NAME = re.compile(r"[A-Za-z_][\w=,.+-]{0,99}")


def load_policy(spec: str) -> Any:
    """The class or function that ``module:Name`` names; YanivError in words otherwise."""
    if not _POLICY_SPEC.fullmatch(spec):
        raise YanivError(f"bot {spec!r}: a policy is module:Name, e.g. mybots.greedy:Greedy")
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any failure of someone else's module, in words
        raise YanivError(f"bot {spec!r}: cannot import {module_name}: {exc}") from None
    found = getattr(module, attr, None)
    if found is None:
        raise YanivError(f"bot {spec!r}: {module_name} has no {attr}")
    # a class of objects with choose(view), or a function of a view
    chooses = getattr(found, "choose", None) if isinstance(found, type) else found
    if not callable(chooses):
        raise YanivError(
            f"bot {spec!r}: {attr} is neither a class with choose(view) nor a function of a view"
        )
    return found


class _FunctionPolicy:
    """A function of a view, seated as a bot."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.choose = function


def _seated(policy: Any, seed: int, think_ms: float | None = None) -> Any:
    """A bot from a policy: a class built (with ``seed=`` where it takes one, and the run's
    ``think_ms=`` where it takes one and the run gives one: a searching bot of one's own, say a
    master's variant, gets ``--think-ms`` as the levels do), a function wrapped, an object with
    ``choose`` as it is."""
    if isinstance(policy, type):
        try:
            params = set(inspect.signature(policy).parameters)
        except (TypeError, ValueError):
            params = set()
        kwargs: dict[str, Any] = {"seed": seed} if "seed" in params else {}
        if think_ms is not None and "think_ms" in params:
            kwargs["think_ms"] = think_ms
        try:
            return policy(**kwargs)
        except Exception as exc:  # someone else's constructor
            raise YanivError(f"building {policy.__name__} failed: {exc}") from None
    if callable(getattr(policy, "choose", None)):
        return policy
    return _FunctionPolicy(policy)


def make_bot(
    spec: str,
    seed: int,
    time_limit: float,
    startup_limit: float = STARTUP_LIMIT,
    think_ms: float | None = None,
) -> Any:
    """A bot from its spec: a level name or a ``module:Name`` class (a searching one given
    ``think_ms``), or ``cmd:COMMAND``."""
    if spec.startswith("cmd:"):
        return CmdBot(spec[4:], time_limit, startup_limit=startup_limit)
    if spec in _OBJECTS:
        return _seated(_OBJECTS[spec], seed, think_ms)
    if ":" in spec:
        return _seated(load_policy(spec), seed, think_ms)
    from .bots import get_bot

    return get_bot(spec, seed, think_ms=think_ms)


def _as_move(answer: Any, bot: str) -> Move:
    """A policy's answer as a move: a Move, or move text; BotFailure in words otherwise."""
    if isinstance(answer, Move):
        return answer
    if isinstance(answer, str):
        try:
            return parse_move(answer)
        except YanivError as exc:
            raise BotFailure(f"{bot} answered a bad move: {exc}") from None
    raise BotFailure(f"{bot} answered {answer!r:.60}, which is not a move")


def check_spec(spec: str) -> None:
    """Raise YanivError for an unknown level or policy (commands are checked when started)."""
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise YanivError("empty command in 'cmd:'")
        return
    if spec in _OBJECTS:
        return
    if ":" in spec:
        load_policy(spec)
        return
    from .bots.base import BOTS, bot_names, get_bot

    if spec not in bot_names():
        if spec in BOTS:  # a level that wants an optional dependency: it says which
            get_bot(spec)
        raise YanivError(
            f"unknown bot {spec!r}; bots: {', '.join(sorted(bot_names()))}, cmd:COMMAND, "
            "or module:Name (a policy on the Python path)"
        )


#: The widest a bot's name is shown (a table's column, a seat's name in the views of a game).
NAME_WIDTH = 40


def _middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters by an ellipsis in its middle."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "\u2026"[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "\u2026" + (text[-tail:] if tail else "")


def short_name(spec: str, width: int = NAME_WIDTH) -> str:
    """A bot's spec for the table, at most ``width`` characters: a program as
    ``cmd:PROGRAM ARGS`` with the program and any path among the arguments by their base
    names, and the arguments cut in the middle if still too long, the first of them (the
    script, often) kept whole where it leaves room (the JSON report keeps the whole command).

    >>> short_name("cmd:/usr/local/bin/python3 /home/me/bots/mine.py --depth 3")
    'cmd:python3 mine.py --depth 3'
    >>> short_name("cmd:node /srv/bots/clever.js --depth 3 --explore 0.25 --verbose", 30)
    'cmd:node clever.js --dep…rbose'
    """
    if not spec.startswith("cmd:"):
        return _middle(spec, width)
    try:
        parts = shlex.split(spec[4:])
    except ValueError:
        parts = spec[4:].split()
    if not parts:
        return _middle(spec, width)
    names = [os.path.basename(p.rstrip("/")) or p if "/" in p else p for p in parts]
    words = [shlex.quote(a) if " " in a else a for a in names]
    program = "cmd:" + words[0]
    args = " ".join(words[1:])
    if not args:
        return _middle(program, width)
    program = _middle(program, max(width // 2, min(12, width)))
    room = width - len(program) - 1
    if room < 4:
        return _middle(f"{program} {args}", width)
    first, rest = words[1], " ".join(words[2:])
    if rest and len(first) + 5 <= room:  # the script, say, whole; the options cut
        return f"{program} {first} {_middle(rest, room - len(first) - 1)}"
    return f"{program} {_middle(args, room)}"


# ----------------------------------------------------------------- one game


@dataclass(frozen=True)
class GameTask:
    """One game to play: which deal, which rotation of the lineup."""

    index: int
    lineup: tuple[str, ...]
    rules: RuleSet
    seed: int
    calibration: bool = False
    time_limit: float = 10.0
    max_moves: int = MAX_MOVES
    startup_limit: float = STARTUP_LIMIT
    think_ms: float | None = None  # the searching levels' budget; None: their default


def deal_for(
    rules: RuleSet, out: Sequence[bool], round_no: int, deal_seed: int, starter: int
) -> Deal:
    """Round ``round_no``'s deal, from its own seed, so every rotation gets the same cards."""
    rng = random.Random(deal_seed * 1009 + round_no)
    cards = deck(rules.jokers)
    rng.shuffle(cards)
    hands: list[tuple[int, ...]] = []
    k = 0
    for s in range(len(out)):
        if out[s]:
            hands.append(())
        else:
            hands.append(tuple(cards[k : k + rules.hand_size]))
            k += rules.hand_size
    return Deal(tuple(hands), cards[k], tuple(cards[k + 1 :]), starter)


class Programs:
    """External programs kept up between games: a program that asked for ``new_game`` is
    given back after its game and handed to the next game that seats the same ``cmd:``, told
    ``{"new_game": true}``; the others are closed after each game as before. ``close()`` quits
    those kept (the end of the match)."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, float, float], list[CmdBot]] = {}
        self.started = 0  # programs started

    def take(self, spec: str, time_limit: float, startup_limit: float) -> CmdBot:
        """A program for ``cmd:COMMAND``: one kept up, told of the new game, or a new one."""
        idle = self._idle.get((spec, time_limit, startup_limit), [])
        while idle:
            bot = idle.pop()
            try:
                bot.new_game()
                return bot
            except BotFailure:
                bot.close()
        self.started += 1
        return CmdBot(spec[4:], time_limit, startup_limit=startup_limit)

    def give_back(self, bots: Sequence[CmdBot]) -> None:
        """Keep the programs that may play on; quit and close the others (one grace)."""
        done = []
        for bot in bots:
            if bot.reusable():
                key = ("cmd:" + bot.command, bot.time_limit, bot.startup_limit)
                self._idle.setdefault(key, []).append(bot)
            else:
                done.append(bot)
        close_all(done, QUIT_GRACE)

    def close(self) -> None:
        """Quit every program kept up and close it."""
        bots = [b for idle in self._idle.values() for b in idle]
        self._idle.clear()
        close_all(bots, QUIT_GRACE)


def play_game(task: GameTask, programs: Programs | None = None) -> dict[str, Any]:
    """Play one full game; a summary of it (never raises for a bot's failure).

    With ``programs``, external programs are taken from it and given back after the game
    (kept up where they asked for ``new_game``); without, each is started for this game only.

    Seat ``s`` holds entrant ``entrants[s]`` (an index into the lineup). A program's first
    answer goes to ``startup`` (milliseconds, start-up included), not to ``times``. A game not
    over after ``task.max_moves`` moves is stopped: ``capped`` is true and it has no winner.
    """
    n = len(task.lineup)
    deal_no, rot = divmod(task.index, n)
    entrants = [(s + rot) % n for s in range(n)]
    seats = tuple(task.lineup[e] for e in entrants)
    deal_seed = task.seed * 1_000_003 + deal_no
    points: list[list[int]] = [[] for _ in range(n)]
    calls = [0] * n
    assafs = [0] * n
    times: list[list[float]] = [[] for _ in range(n)]
    startup: list[float | None] = [None] * n
    calib: list[tuple[float, bool]] = []
    errors: list[tuple[int, str]] = []
    bots: list[Any] = []
    winners: tuple[int, ...] = ()
    scores: list[int] = [0] * n
    rounds = 0
    moves = 0
    capped = False
    try:
        for s, spec in enumerate(seats):
            try:
                if programs is not None and spec.startswith("cmd:"):
                    bots.append(programs.take(spec, task.time_limit, task.startup_limit))
                else:
                    seed = deal_seed * 16 + s
                    bots.append(
                        make_bot(spec, seed, task.time_limit, task.startup_limit, task.think_ms)
                    )
            except YanivError as exc:
                errors.append((s, str(exc)))
                raise
        program = [isinstance(b, CmdBot) for b in bots]
        # A program kept up from an earlier game has no start-up in this one.
        fresh = [isinstance(b, CmdBot) and b.startup_ms is None for b in bots]
        game = Game.new(
            task.rules,
            players=n,
            seed=deal_seed,
            names=[short_name(spec) for spec in seats],  # never a whole command line
            deal=deal_for(task.rules, [False] * n, 1, deal_seed, 1),
        )
        while True:
            phase = game.phase
            if phase == Phase.GAME_OVER:
                break
            if phase == Phase.ROUND_OVER:
                res = game.result
                assert res is not None and res.next_starter is not None
                game.next_round(
                    deal_for(task.rules, game.out, game.round_no + 1, deal_seed, res.next_starter)
                )
                continue
            if moves >= task.max_moves:
                capped = True
                break
            seat = game.to_move
            assert seat is not None  # a round in play always has a seat to act
            view = game.view(seat)
            t0 = time.perf_counter()
            try:
                move = _as_move(bots[seat].choose(view), seats[seat])
            except BotFailure as exc:
                errors.append((seat, str(exc)))
                break
            except Exception as exc:  # a built-in bot's bug must not stop the arena
                errors.append((seat, f"{seats[seat]} raised {type(exc).__name__}: {exc}"))
                break
            ms = (time.perf_counter() - t0) * 1000
            if fresh[seat] and startup[seat] is None:
                startup[seat] = ms  # a program's start-up is not a decision's time
            else:
                times[seat].append(ms)
            move = as_laid(move, task.rules)  # a run given out of order, laid (R9)
            why = game.why_illegal(move)
            if why is not None:
                errors.append((seat, f"{seats[seat]} played an illegal move '{move}': {why}"))
                break
            p = -1.0
            if (
                task.calibration
                and move == YANIV
                and game.values[seat] <= task.rules.yaniv_threshold
            ):
                from .bots.coach import yaniv_success_probability

                p = yaniv_success_probability(view)
            result = game.apply(move)
            moves += 1
            if result is not None:
                rounds += 1
                for s, bot in enumerate(bots):
                    if program[s]:  # what a player at the table sees, where it asked
                        bot.tell_round_over(game.view(s))
                calls[seat] += 1
                if result.kind is ResultKind.ASSAF:
                    assafs[seat] += 1
                if p >= 0:
                    calib.append((p, result.kind is ResultKind.YANIV))
                for s in range(n):
                    if result.hands[s]:
                        points[s].append(result.points[s])
        winners = () if capped else game.winners
        scores = list(game.scores)
    except YanivError:
        pass
    finally:
        cmd_bots = [b for b in bots if isinstance(b, CmdBot)]
        if programs is None:
            close_all(cmd_bots, QUIT_GRACE)
        else:
            programs.give_back(cmd_bots)
    failed = {s for s, _ in errors if s >= 0}
    if failed:
        winners = tuple(s for s in range(n) if s not in failed)
    return {
        "index": task.index,
        "seats": list(seats),
        "entrants": entrants,
        "winners": list(winners),
        "scores": scores,
        "rounds": rounds,
        "moves": moves,
        "capped": capped,
        "points": points,
        "calls": calls,
        "assafs": assafs,
        "times": times,
        "startup": startup,
        "calib": calib,
        "errors": [[s, seats[s] if s >= 0 else "", msg] for s, msg in errors],
    }


def play_games(tasks: Sequence[GameTask]) -> list[dict[str, Any]]:
    """Play a batch of games one after the other; their summaries in the tasks' order. A
    program that asked for ``new_game`` is started once for the batch."""
    programs = Programs()
    try:
        return [play_game(t, programs) for t in tasks]
    finally:
        programs.close()


_worker_programs: Programs | None = None  # a worker process's programs (run_local's jobs)


def _worker_start() -> None:
    """Give a worker process its programs, quit when the worker exits (the pool closed)."""
    from multiprocessing import util

    global _worker_programs
    _worker_programs = Programs()
    util.Finalize(None, _worker_programs.close, exitpriority=10)


def _worker_play(task: GameTask) -> dict[str, Any]:
    """Play one game in a worker process, with the worker's programs."""
    return play_game(task, _worker_programs)


#: Plays the games somewhere (processes, a Ray cluster...): the tasks in, every game's summary
#: out in any order, ``on_game`` called with each summary as it comes back. Each game is
#: seeded by its task alone, so where and in what order it is played changes nothing.
Runner = Callable[
    [Sequence[GameTask], Callable[[dict[str, Any]], None] | None], list[dict[str, Any]]
]


def run_local(
    tasks: Sequence[GameTask], on_game: Callable[[dict[str, Any]], None] | None, jobs: int = 1
) -> list[dict[str, Any]]:
    """Play the games in this process (``jobs`` 1) or in ``jobs`` forked worker processes."""
    results: list[dict[str, Any]] = []
    if jobs == 1:
        programs = Programs()  # a program that asks for new_game is started once
        try:
            for t in tasks:
                r = play_game(t, programs)
                results.append(r)
                if on_game:
                    on_game(r)
        finally:
            programs.close()
        return results
    import multiprocessing as mp

    pool = mp.get_context("fork").Pool(jobs, initializer=_worker_start)
    try:
        for r in pool.imap_unordered(_worker_play, tasks, chunksize=1):
            results.append(r)
            if on_game:
                on_game(r)
        pool.close()  # the workers exit by themselves: their programs are told to quit
        pool.join()
    finally:
        pool.terminate()
    return results


def _journal_header(task: GameTask) -> dict[str, Any]:
    """What names a run in its journal: every field of its games' tasks but their number."""
    header = {f.name: getattr(task, f.name) for f in fields(task) if f.name != "index"}
    header["rules"] = task.rules.to_dict()
    return header


# ----------------------------------------------------------------- statistics


def wilson(wins: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def deal_interval(
    per_deal: Sequence[float], games: int, z: float = 1.959964
) -> tuple[float, float]:
    """The 95 % interval of a rate ``sum(per_deal) / games`` measured on duplicate deals, from
    the spread of each deal's total over its games (``per_deal``): a deal's rotations are not
    independent of each other, so a deal is the unit. Deals of fewer games (the last one) weigh
    less. Unbounded, ``(-inf, inf)``, for fewer than two deals.

    >>> deal_interval([1, 1, 1, 1], 8)  # the same in every deal: no spread
    (0.5, 0.5)
    """
    n = len(per_deal)
    if n < 2 or games <= 0:
        return (-math.inf, math.inf)
    rate = math.fsum(per_deal) / games
    mean = math.fsum(per_deal) / n
    var = math.fsum((d - mean) ** 2 for d in per_deal) / (n - 1)
    half = z * math.sqrt(var * n) / games
    return (rate - half, rate + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def calibration_table(pairs: Sequence[tuple[float, bool]]) -> list[dict[str, Any]]:
    """Per decile of predicted probability: calls, mean prediction, observed success rate."""
    rows = []
    for d in range(10):
        lo, hi = d / 10, (d + 1) / 10
        sel = [(p, ok) for p, ok in pairs if lo <= p < hi or (d == 9 and p == 1.0)]
        if not sel:
            rows.append(
                {
                    "decile": f"{lo:.1f}-{hi:.1f}",
                    "calls": 0,
                    "predicted": None,
                    "observed": None,
                    "ci95": None,
                }
            )
            continue
        wins = sum(ok for _, ok in sel)
        rows.append(
            {
                "decile": f"{lo:.1f}-{hi:.1f}",
                "calls": len(sel),
                "predicted": sum(p for p, _ in sel) / len(sel),
                "observed": wins / len(sel),
                "ci95": list(wilson(wins, len(sel))),
            }
        )
    return rows


@dataclass
class BotStats:
    """Everything counted for one entrant (over all the seats it took)."""

    name: str
    spec: str = ""
    games: int = 0
    wins: int = 0
    rounds: int = 0
    points: int = 0
    calls: int = 0
    assafs: int = 0
    capped: int = 0
    deal_wins: dict[int, int] = field(default_factory=dict)  # per deal, its games won
    times: list[float] = field(default_factory=list)
    startup: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_dict(self, rating: Any) -> dict[str, Any]:
        """The report's entry for this entrant."""
        lo, hi = wilson(self.wins, self.games)
        by_deal = deal_interval(list(self.deal_wins.values()), self.games)
        return {
            "name": self.name,
            "spec": self.spec or self.name,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "ci95": [lo, hi],
            "deals": len(self.deal_wins),
            # the interval over deals (the unit of duplicate deals); none from one deal, or
            # from deals that all went alike (a normal interval would shrink to a point)
            "ci95_deals": (
                [max(0.0, by_deal[0]), min(1.0, by_deal[1])]
                if -math.inf < by_deal[0] < by_deal[1]
                else None
            ),
            "rating": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()},
            "rounds": self.rounds,
            "mean_round_points": self.points / self.rounds if self.rounds else 0.0,
            "capped": self.capped,
            "yaniv_calls": self.calls,
            "assafs": self.assafs,
            "assaf_rate": self.assafs / self.calls if self.calls else 0.0,
            "decisions": len(self.times),
            "decision_ms": {
                "median": percentile(self.times, 0.5),
                "p99": percentile(self.times, 0.99),
                "mean": statistics.fmean(self.times) if self.times else 0.0,
            },
            "startup_ms": (
                {
                    "median": percentile(self.startup, 0.5),
                    "max": max(self.startup),
                    "count": len(self.startup),
                }
                if self.startup
                else None
            ),
            "errors": len(self.errors),
            "error_messages": self.errors[:5],
        }


def lineup_for(bots: Sequence[str], players: int) -> tuple[str, ...]:
    """The seats' bots: the list as given, its last bot filling any remaining seats."""
    if not bots:
        raise YanivError("no bots given")
    if len(bots) > players:
        raise YanivError(f"{len(bots)} bots for {players} seats: use --players {len(bots)}")
    return tuple(bots) + (bots[-1],) * (players - len(bots))


def entrant_names(lineup: Sequence[str]) -> list[str]:
    """A name per place in the lineup: its spec, numbered ``#1``, ``#2``... where repeated.

    >>> entrant_names(["expert", "medium", "medium"])
    ['expert', 'medium#1', 'medium#2']
    """
    counts = Counter(lineup)
    seen: Counter[str] = Counter()
    names = []
    for spec in lineup:
        if counts[spec] == 1:
            names.append(spec)
        else:
            seen[spec] += 1
            names.append(f"{spec}#{seen[spec]}")
    return names


def run_arena(
    bots: Sequence[str],
    players: int,
    games: int,
    rules: RuleSet,
    seed: int = 1,
    jobs: int = 1,
    calibration: bool = False,
    time_limit: float = 10.0,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    max_moves: int = MAX_MOVES,
    startup_limit: float = STARTUP_LIMIT,
    runner: Runner | None = None,
    think_ms: float | None = None,
    journal: Path | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and return the report (see the module's docstring).

    ``think_ms`` is the decision budget of the levels that search (``master``); None: theirs.

    ``journal``: each game is written to this file as it finishes, and the games already in it
    (of a run of the same bots, rules, seed and limits, stopped or shorter) are read back
    instead of played (:mod:`yaniv.arena_journal`); ``on_game`` is called with those first.

    ``runner`` plays the games elsewhere (``yaniv.arena_ray.ray_runner``: on Ray); the report
    is the same as a local run's for the same seed, but for the measured decision times.
    """
    from openskill.models import PlackettLuce

    for spec in bots:
        check_spec(spec)
    if games < 1:
        raise YanivError(f"--games {games}: at least one game")
    if jobs < 1:
        raise YanivError(f"--jobs {jobs}: at least one")
    if runner is not None and jobs != 1:
        raise YanivError(f"--jobs {jobs} and another runner (Ray): choose one")
    check_time_limit(time_limit)
    check_time_limit(startup_limit, "--startup-limit")
    check_max_moves(max_moves)
    if think_ms is not None:
        from .bots.base import check_think_ms

        check_think_ms(think_ms)
    lineup = lineup_for(bots, players)
    Game.new(rules, players=players)  # refuses an unplayable table with a clear error
    tasks = [
        GameTask(
            i, lineup, rules, seed, calibration, time_limit, max_moves, startup_limit, think_ms
        )
        for i in range(games)
    ]
    results: list[dict[str, Any]] = []
    book: Journal | None = None
    if journal is not None:
        book = Journal(journal, _journal_header(tasks[0]), games)
        results = list(book.done.values())
        tasks = [t for t in tasks if t.index not in book.done]
        for r in results:
            if on_game:
                on_game(r)

    def finished(r: dict[str, Any]) -> None:
        if book is not None:
            book.write(r)
        if on_game:
            on_game(r)

    try:
        if tasks:
            play = runner or (lambda ts, cb: run_local(ts, cb, jobs))
            results += play(tasks, finished)
    finally:
        if book is not None:
            book.close()
    results.sort(key=lambda r: r["index"])
    if [r["index"] for r in results] != list(range(games)):
        raise YanivError(f"the runner returned {len(results)} games' results for {games} games")

    names = entrant_names(lineup)
    stats = [BotStats(name, spec) for name, spec in zip(names, lineup, strict=True)]
    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in names]
    calib: list[tuple[float, bool]] = []
    errors: list[dict[str, Any]] = []
    for r in results:
        entrants = r["entrants"]
        deal = r["index"] // players
        for s, e in enumerate(entrants):
            st = stats[e]
            st.games += 1
            st.wins += s in r["winners"]
            st.rounds += len(r["points"][s])
            st.points += sum(r["points"][s])
            st.calls += r["calls"][s]
            st.assafs += r["assafs"][s]
            st.capped += r["capped"]
            st.deal_wins[deal] = st.deal_wins.get(deal, 0) + (s in r["winners"])
            st.times.extend(r["times"][s])
            if r["startup"][s] is not None:
                st.startup.append(r["startup"][s])
        for s, _spec, msg in r["errors"]:
            if s >= 0:
                stats[entrants[s]].errors.append(msg)
            errors.append(
                {
                    "game": r["index"],
                    "seat": s,
                    "bot": names[entrants[s]] if s >= 0 else "",
                    "error": msg,
                }
            )
        calib.extend((p, ok) for p, ok in r["calib"])
        if r["capped"]:
            continue  # no result: the ratings learn nothing from it
        # Rating: winners first, then by final score (lower is better).
        order = sorted(set(r["scores"]))
        ranks = [
            0.0 if s in r["winners"] else 1.0 + order.index(r["scores"][s])
            for s in range(len(entrants))
        ]
        new = model.rate([[ratings[e]] for e in entrants], ranks=ranks)
        for e, team in zip(entrants, new, strict=True):
            ratings[e] = team[0]
    report: dict[str, Any] = {
        "rules": rules.to_dict(),
        "players": players,
        "games": games,
        "seed": seed,
        "lineup": list(lineup),
        "duplicate_deals": True,
        "wins_counting": "a shared win counts as a win for each winner; a capped game is a "
        "win for no one",
        "max_moves": max_moves,
        "time_limit": time_limit,
        "startup_limit": startup_limit,
        "think_ms": think_ms,
        "capped": sum(1 for r in results if r["capped"]),
        "capped_games": [r["index"] for r in results if r["capped"]],
        "bots": [st.to_dict(rating) for st, rating in zip(stats, ratings, strict=True)],
        "errors": errors,
        "game_results": [
            {
                "game": r["index"],
                "deal": r["index"] // players,
                "seats": [names[e] for e in r["entrants"]],
                "winners": [names[r["entrants"][s]] for s in r["winners"]],
                "scores": r["scores"],
                "rounds": r["rounds"],
                "moves": r["moves"],
                "capped": r["capped"],
            }
            for r in results
        ],
    }
    if book is not None:
        report["journal_games"] = len(book.done)  # read back, not played by this run
    if calibration:
        report["calibration"] = calibration_table(calib)
        report["calibration_calls"] = len(calib)
    return report


# ----------------------------------------------------------------- a policy, measured


@dataclass(frozen=True)
class Evaluation:
    """How a policy did in ``evaluate``: its games, wins (a shared win counts for each winner),
    win rate with its 95% Wilson interval, points per round, OpenSkill rating, capped games,
    and the arena's whole report."""

    games: int
    wins: float
    win_rate: float
    ci95: tuple[float, float]
    points_per_round: float
    rating: dict[str, float]
    capped: int
    errors: list[dict[str, Any]]
    report: dict[str, Any] = field(repr=False)


def evaluate(
    policy: Any,
    against: Sequence[str] = ("medium",),
    games: int = 100,
    players: int = 2,
    seed: int = 1,
    rules: RuleSet | None = None,
    jobs: int = 1,
    max_moves: int = MAX_MOVES,
    think_ms: float | None = None,
    journal: Path | None = None,
    name: str | None = None,
) -> Evaluation:
    """Play ``policy`` against bots (``against``: specs, the last filling the other seats) in
    ``games`` duplicate-deal games, and measure it.

    ``policy`` is an object with ``choose(view) -> move``, a class of such objects (built once
    per game, with ``seed=`` where it takes one), a function of a view, or a spec string. An
    object is used as it is, in this process (or forked workers with ``jobs`` > 1): a model is
    loaded once. A move may be a ``Move`` or its text. ``think_ms`` is the budget of the
    searching levels named in ``against``.

    ``name`` names an object in the report (else its class or function name and its address).
    ``journal`` keeps the games in a file as ``run_arena``'s does; an object needs a ``name``
    for it, which the journal's first line records: the games read back from a journal are
    taken to be this policy's, so give another version of the policy another name.

    >>> from yaniv.bots.random_bot import RandomBot
    >>> e = evaluate(RandomBot, against=["random"], games=4, seed=2)
    >>> e.games, 0.0 <= e.win_rate <= 1.0
    (4, True)
    """
    evaluation, _ = _measured(
        policy, against, games, players, seed, rules, jobs, max_moves, think_ms, journal, name
    )
    return evaluation


def _policy_spec(policy: Any, name: str | None = None) -> tuple[str, bool]:
    """A spec for ``policy`` (registered in ``_OBJECTS`` unless it is a spec already, as
    ``name`` where one is given), and whether it was registered."""
    if isinstance(policy, str):
        if name is not None:
            raise YanivError(f"evaluate: name={name!r} names a policy object, not a spec")
        return policy, False
    if not callable(getattr(policy, "choose", None)) and not callable(policy):
        raise YanivError(
            f"evaluate: {policy!r:.60} is not a policy (an object with choose(view), "
            "a class of them, or a function of a view)"
        )
    if name is None:
        spec = f"{getattr(policy, '__name__', None) or type(policy).__name__}@{id(policy):x}"
    else:
        from .bots.base import BOTS

        if not isinstance(name, str) or not _POLICY_NAME.fullmatch(name):
            raise YanivError(
                f"evaluate: name={name!r:.60}: a policy's name is a word of up to 100 letters, "
                "digits and _=,.+- (no spaces, not starting with a digit)"
            )
        if name in BOTS or name in _OBJECTS:
            raise YanivError(f"evaluate: name={name!r} is taken (a bot level, or in use)")
        spec = name
    _OBJECTS[spec] = policy
    return spec, True


def _measured(
    policy: Any,
    against: Sequence[str],
    games: int,
    players: int,
    seed: int,
    rules: RuleSet | None,
    jobs: int,
    max_moves: int,
    think_ms: float | None,
    journal: Path | None = None,
    name: str | None = None,
) -> tuple[Evaluation, list[dict[str, Any]]]:
    """``evaluate``'s measure, with every game's summary in the order of the games."""
    if not against:
        raise YanivError("evaluate: name at least one bot to play against")
    if journal is not None and name is None and not isinstance(policy, str):
        raise YanivError(
            "evaluate: a journal of a policy object needs its name (name=...), one that stays "
            "the same from run to run, so that a later run knows the games for its own"
        )
    spec, registered = _policy_spec(policy, name)
    results: list[dict[str, Any]] = []
    try:
        report = run_arena(
            [spec, *against],
            players=players,
            games=games,
            rules=rules or RuleSet(),
            seed=seed,
            jobs=jobs,
            max_moves=max_moves,
            on_game=results.append,
            think_ms=think_ms,
            journal=journal,
        )
    finally:
        if registered:
            _OBJECTS.pop(spec, None)
    results.sort(key=lambda r: r["index"])
    me = report["bots"][0]
    evaluation = Evaluation(
        games=me["games"],
        wins=me["wins"],
        win_rate=me["win_rate"],
        ci95=(me["ci95"][0], me["ci95"][1]),
        points_per_round=me["mean_round_points"],
        rating=me["rating"],
        capped=report["capped"],
        errors=report["errors"],
        report=report,
    )
    return evaluation, results


@dataclass(frozen=True)
class Comparison:
    """Two policies measured on the same games (``compare``): each one's ``Evaluation``, and
    the difference of their win rates (a's minus b's) with its 95 % interval, from the paired
    difference of each deal's games (a deal's rotations are not independent of each other, so
    a deal is the unit); ``changed``: the games whose winners differ between the two."""

    a: Evaluation
    b: Evaluation
    difference: float
    ci95: tuple[float, float]
    deals: int
    changed: int


def compare(
    a: Any,
    b: Any,
    against: Sequence[str] = ("medium",),
    games: int = 100,
    players: int = 2,
    seed: int = 1,
    rules: RuleSet | None = None,
    jobs: int = 1,
    max_moves: int = MAX_MOVES,
    think_ms: float | None = None,
    journals: tuple[Path | None, Path | None] | None = None,
    names: tuple[str | None, str | None] | None = None,
) -> Comparison:
    """Measure policies ``a`` and ``b`` (as ``evaluate`` takes them) in the same seat against
    the same bots on the same deals and bots' seeds, so that only the policy differs: an A/B
    test of two versions of a bot. Two identical policies give identical games, a difference
    of exactly 0. ``names`` and ``journals`` are ``evaluate``'s ``name`` and ``journal``, for
    ``a`` and ``b`` in that order (two files; None where one has none).

    >>> from yaniv.bots.random_bot import RandomBot
    >>> c = compare(RandomBot, RandomBot, against=["random"], games=4, seed=2)
    >>> c.difference, c.changed
    (0.0, 0)
    """
    ja, jb = journals if journals is not None else (None, None)
    na, nb = names if names is not None else (None, None)
    if ja is not None and jb is not None and Path(ja).resolve() == Path(jb).resolve():
        raise YanivError(f"compare: the two policies' journals are one file ({ja})")
    ea, ra = _measured(a, against, games, players, seed, rules, jobs, max_moves, think_ms, ja, na)
    eb, rb = _measured(b, against, games, players, seed, rules, jobs, max_moves, think_ms, jb, nb)
    per_deal: dict[int, float] = {}
    changed = 0
    for x, y in zip(ra, rb, strict=True):
        win_a = x["entrants"].index(0) in x["winners"]
        win_b = y["entrants"].index(0) in y["winners"]
        deal = x["index"] // players
        per_deal[deal] = per_deal.get(deal, 0.0) + (win_a - win_b)
        changed += sorted(x["winners"]) != sorted(y["winners"])
    diffs = list(per_deal.values())
    difference = math.fsum(diffs) / games
    return Comparison(ea, eb, difference, deal_interval(diffs, games), len(diffs), changed)
