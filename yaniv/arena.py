"""Tournaments between bots: duplicate deals, rotated seats, statistics, external programs.

Each deal is played once per seat rotation (``players`` games per deal), with the same cards
dealt to each seat in every round of every rotation, so the luck of the deal cancels. Game wins
are counted per seat: a game with shared winners counts as a win for each of them. A bot that
fails (an exception, an illegal move, garbage, no answer in time) loses the game at once, the
other seats share the win, and the failure is listed in the report. A game still running after
``max_moves`` moves (``MAX_MOVES`` by default) is stopped and reported as capped: it is a win for
no one and does not move the ratings.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import random
import selectors
import shlex
import signal
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from .cards import deck
from .errors import ViewError, YanivError
from .game import Deal, Game, Phase, ResultKind
from .moves import YANIV, Move, parse_move
from .rules import RuleSet
from .view import PlayerView

#: A game still running after this many moves is stopped and reported as capped (no winner).
#: Bots can cycle forever (two bots passing the same cards back and forth). The package's
#: bots finish a game well inside it: easy to expert in under 1,000 moves, random in under
#: 3,000 (8 players, standard rules; measured over a few hundred games).
MAX_MOVES = 5_000

#: The longest line an external program may answer (a view line is a few kB); longer fails it.
MAX_LINE_BYTES = 1 << 20

_CHUNK = 1 << 16  # bytes read from a program at a time
_MAX_WAIT = 60.0  # seconds of one wait on a pipe (a huge time limit is waited for in steps)


class BotFailure(YanivError):
    """A bot answered garbage, an illegal move, nothing in time, or raised."""


def check_time_limit(time_limit: float) -> None:
    """Raise YanivError unless ``time_limit`` is a positive, finite number of seconds."""
    if not (isinstance(time_limit, int | float) and math.isfinite(time_limit)
            and time_limit > 0):
        raise YanivError(f"--time-limit {time_limit!r}: expected a positive, finite number "
                         "of seconds")


def check_max_moves(max_moves: int) -> None:
    """Raise YanivError unless ``max_moves`` is a positive whole number."""
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise YanivError(f"--max-moves {max_moves!r}: expected a whole number of moves, "
                         "at least 1")


# ----------------------------------------------------------------- external programs


class CmdBot:
    """An external program speaking the bot protocol (docs/bot-protocol.md) on stdin/stdout.

    Its pipes are read and written without threads, by waiting on them until the move's
    deadline, so a program that stops reading, stops answering or floods its output costs
    at most ``time_limit`` seconds and ``max_line`` bytes.
    """

    def __init__(self, command: str, time_limit: float = 10.0,
                 max_line: int = MAX_LINE_BYTES) -> None:
        check_time_limit(time_limit)
        self.name = "cmd:" + command
        self.command = command
        self.time_limit = time_limit
        self.max_line = max_line
        self._buf = bytearray()  # what the program wrote and was not yet taken as an answer
        self._scanned = 0  # bytes of _buf known to hold no newline
        self._eof = False
        try:
            self.proc = subprocess.Popen(
                shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, bufsize=0, start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            raise BotFailure(f"cannot start {command!r}: {exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._wsel = selectors.DefaultSelector()
        self._wsel.register(self._in, selectors.EVENT_WRITE)
        self._rsel = selectors.DefaultSelector()
        self._rsel.register(self._out, selectors.EVENT_READ)

    def _send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the program's stdin, giving up at ``deadline``."""
        rest = memoryview(data)
        while rest:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure(f"{self.command!r} did not read its input within "
                                 f"{self.time_limit:g} s")
            if not self._wsel.select(min(left, _MAX_WAIT)):
                continue
            try:
                rest = rest[os.write(self._in, rest):]
            except BlockingIOError:
                continue
            except OSError:
                raise BotFailure(f"{self.command!r} is not reading its input (exited?)"
                                 ) from None

    def _too_long(self) -> BotFailure:
        return BotFailure(f"{self.command!r} sent a line longer than the limit of "
                          f"{self.max_line} bytes ({self.max_line / (1 << 20):g} MiB) "
                          "without a newline")

    def _readline(self, deadline: float) -> bytes | None:
        """The program's next line (without its newline), None at the end of its output."""
        while True:
            i = self._buf.find(b"\n", self._scanned)
            if i > self.max_line or (i < 0 and len(self._buf) > self.max_line):
                raise self._too_long()
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[:i + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buf)
            if self._eof:
                if not self._buf:
                    return None
                line = bytes(self._buf)  # a last line without its newline
                self._buf.clear()
                self._scanned = 0
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure(f"{self.command!r} gave no answer within "
                                 f"{self.time_limit:g} s")
            if not self._rsel.select(min(left, _MAX_WAIT)):
                continue
            try:
                chunk = os.read(self._out, _CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                self._buf += chunk
            else:
                self._eof = True

    def choose(self, view: PlayerView) -> Move:
        """Send the view, wait for one line, and check the move it names."""
        deadline = time.monotonic() + self.time_limit
        self._send((json.dumps({"view": view.to_dict()}) + "\n").encode(), deadline)
        raw = self._readline(deadline)
        if raw is None:
            raise BotFailure(f"{self.command!r} exited without answering")
        line = raw.decode("utf-8", errors="replace")
        try:
            data = json.loads(line)
            text = data["move"]
            if not isinstance(text, str):
                raise TypeError
        except (ValueError, TypeError, KeyError):
            raise BotFailure(f"{self.command!r} answered garbage: {line.strip()[:80]!r} "
                             '(expected {"move": "..."})') from None
        try:
            move = parse_move(text)
        except YanivError as exc:
            raise BotFailure(f"{self.command!r} answered a bad move: {exc}") from None
        if move not in view.legal_moves:
            raise BotFailure(f"{self.command!r} answered an illegal move {text!r}; legal: "
                             + ", ".join(str(m) for m in itertools.islice(view.legal_moves, 8)))
        return move

    def close(self) -> None:
        """Stop the program (and anything it started)."""
        with contextlib.suppress(OSError):
            if self.proc.stdin:
                self.proc.stdin.close()
        with contextlib.suppress(OSError, ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        with contextlib.suppress(OSError):
            if self.proc.stdout:
                self.proc.stdout.close()
        self._wsel.close()
        self._rsel.close()
        self._buf.clear()


def make_bot(spec: str, seed: int, time_limit: float) -> Any:
    """A bot from its spec: a level name, or ``cmd:COMMAND``."""
    if spec.startswith("cmd:"):
        return CmdBot(spec[4:], time_limit)
    from .bots import get_bot

    return get_bot(spec, seed)


def check_spec(spec: str) -> None:
    """Raise YanivError for an unknown level (commands are checked when started)."""
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise YanivError("empty command in 'cmd:'")
        return
    from .bots.base import bot_names

    if spec not in bot_names():
        raise YanivError(f"unknown bot {spec!r}; bots: {', '.join(sorted(bot_names()))}, "
                         "or cmd:COMMAND")


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


def deal_for(rules: RuleSet, out: Sequence[bool], round_no: int, deal_seed: int,
             starter: int) -> Deal:
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
            hands.append(tuple(cards[k:k + rules.hand_size]))
            k += rules.hand_size
    return Deal(tuple(hands), cards[k], tuple(cards[k + 1:]), starter)


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one full game; a summary of it (never raises for a bot's failure).

    A game not over after ``task.max_moves`` moves is stopped: ``capped`` is true and it has
    no winner.
    """
    n = len(task.lineup)
    deal_no, rot = divmod(task.index, n)
    seats = tuple(task.lineup[(s + rot) % n] for s in range(n))
    deal_seed = task.seed * 1_000_003 + deal_no
    points: list[list[int]] = [[] for _ in range(n)]
    calls = [0] * n
    assafs = [0] * n
    times: list[list[float]] = [[] for _ in range(n)]
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
                bots.append(make_bot(spec, deal_seed * 16 + s, task.time_limit))
            except YanivError as exc:
                errors.append((s, str(exc)))
                raise
        game = Game.new(task.rules, players=n, seed=deal_seed, names=list(seats),
                        deal=deal_for(task.rules, [False] * n, 1, deal_seed, 1))
        while True:
            phase = game.phase
            if phase == Phase.GAME_OVER:
                break
            if phase == Phase.ROUND_OVER:
                res = game.result
                assert res is not None and res.next_starter is not None
                game.next_round(deal_for(task.rules, game.out, game.round_no + 1, deal_seed,
                                         res.next_starter))
                continue
            if moves >= task.max_moves:
                capped = True
                break
            seat = game._to_move
            view = game.view(seat)
            t0 = time.perf_counter()
            try:
                move = bots[seat].choose(view)
            except BotFailure as exc:
                errors.append((seat, str(exc)))
                break
            except Exception as exc:  # a built-in bot's bug must not stop the arena
                errors.append((seat, f"{seats[seat]} raised {type(exc).__name__}: {exc}"))
                break
            times[seat].append((time.perf_counter() - t0) * 1000)
            why = game.why_illegal(move)
            if why is not None:
                errors.append((seat, f"{seats[seat]} played an illegal move '{move}': {why}"))
                break
            p = -1.0
            if (task.calibration and move == YANIV
                    and game.values[seat] <= task.rules.yaniv_threshold):
                from .bots.coach import yaniv_success_probability

                p = yaniv_success_probability(view)
            result = game.apply(move)
            moves += 1
            if result is not None:
                rounds += 1
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
        for b in bots:
            if isinstance(b, CmdBot):
                b.close()
    failed = {s for s, _ in errors if s >= 0}
    if failed:
        winners = tuple(s for s in range(n) if s not in failed)
    return {
        "index": task.index, "seats": list(seats), "winners": list(winners),
        "scores": scores, "rounds": rounds, "moves": moves, "capped": capped,
        "points": points, "calls": calls,
        "assafs": assafs, "times": times, "calib": calib,
        "errors": [[s, seats[s] if s >= 0 else "", msg] for s, msg in errors],
    }


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
            rows.append({"decile": f"{lo:.1f}-{hi:.1f}", "calls": 0, "predicted": None,
                         "observed": None, "ci95": None})
            continue
        wins = sum(ok for _, ok in sel)
        rows.append({
            "decile": f"{lo:.1f}-{hi:.1f}", "calls": len(sel),
            "predicted": sum(p for p, _ in sel) / len(sel), "observed": wins / len(sel),
            "ci95": list(wilson(wins, len(sel))),
        })
    return rows


@dataclass
class BotStats:
    """Everything counted for one bot (over all its seats)."""

    name: str
    games: int = 0
    wins: int = 0
    rounds: int = 0
    points: int = 0
    calls: int = 0
    assafs: int = 0
    capped: int = 0
    times: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_dict(self, rating: Any) -> dict[str, Any]:
        """The report's entry for this bot."""
        lo, hi = wilson(self.wins, self.games)
        return {
            "name": self.name, "games": self.games, "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else 0.0, "ci95": [lo, hi],
            "rating": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()},
            "rounds": self.rounds,
            "mean_round_points": self.points / self.rounds if self.rounds else 0.0,
            "capped": self.capped, "yaniv_calls": self.calls, "assafs": self.assafs,
            "assaf_rate": self.assafs / self.calls if self.calls else 0.0,
            "decisions": len(self.times),
            "decision_ms": {"median": percentile(self.times, 0.5),
                            "p99": percentile(self.times, 0.99),
                            "mean": statistics.fmean(self.times) if self.times else 0.0},
            "errors": len(self.errors), "error_messages": self.errors[:5],
        }


def lineup_for(bots: Sequence[str], players: int) -> tuple[str, ...]:
    """The seats' bots: the list as given, its last bot filling any remaining seats."""
    if not bots:
        raise YanivError("no bots given")
    if len(bots) > players:
        raise YanivError(f"{len(bots)} bots for {players} seats: use --players {len(bots)}")
    return tuple(bots) + (bots[-1],) * (players - len(bots))


def run_arena(
    bots: Sequence[str], players: int, games: int, rules: RuleSet, seed: int = 1,
    jobs: int = 1, calibration: bool = False, time_limit: float = 10.0,
    on_game: Callable[[dict[str, Any]], None] | None = None, max_moves: int = MAX_MOVES,
) -> dict[str, Any]:
    """Play ``games`` games and return the report (see the module's docstring)."""
    from openskill.models import PlackettLuce

    for spec in bots:
        check_spec(spec)
    if games < 1:
        raise YanivError(f"--games {games}: at least one game")
    if jobs < 1:
        raise YanivError(f"--jobs {jobs}: at least one")
    check_time_limit(time_limit)
    check_max_moves(max_moves)
    lineup = lineup_for(bots, players)
    Game.new(rules, players=players)  # refuses an unplayable table with a clear error
    tasks = [GameTask(i, lineup, rules, seed, calibration, time_limit, max_moves)
             for i in range(games)]
    results: list[dict[str, Any]] = []
    if jobs == 1:
        for t in tasks:
            r = play_game(t)
            results.append(r)
            if on_game:
                on_game(r)
    else:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            for r in pool.imap_unordered(play_game, tasks, chunksize=1):
                results.append(r)
                if on_game:
                    on_game(r)
    results.sort(key=lambda r: r["index"])

    stats = {name: BotStats(name) for name in dict.fromkeys(lineup)}
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in stats}
    calib: list[tuple[float, bool]] = []
    errors: list[dict[str, Any]] = []
    for r in results:
        seats = r["seats"]
        for s, name in enumerate(seats):
            st = stats[name]
            st.games += 1
            st.wins += s in r["winners"]
            st.rounds += len(r["points"][s])
            st.points += sum(r["points"][s])
            st.calls += r["calls"][s]
            st.assafs += r["assafs"][s]
            st.capped += r["capped"]
            st.times.extend(r["times"][s])
        for s, name, msg in r["errors"]:
            if s >= 0:
                stats[name].errors.append(msg)
            errors.append({"game": r["index"], "seat": s, "bot": name, "error": msg})
        calib.extend((p, ok) for p, ok in r["calib"])
        if r["capped"]:
            continue  # no result: the ratings learn nothing from it
        # Rating: winners first, then by final score (lower is better).
        order = sorted(set(r["scores"]))
        ranks = [0.0 if s in r["winners"] else 1.0 + order.index(r["scores"][s])
                 for s in range(len(seats))]
        teams = [[ratings[name]] for name in seats]
        new = model.rate(teams, ranks=ranks)
        updates: dict[str, list[Any]] = {}
        for name, team in zip(seats, new, strict=True):
            updates.setdefault(name, []).append(team[0])
        for name, rs in updates.items():
            ratings[name] = model.rating(mu=statistics.fmean(x.mu for x in rs),
                                         sigma=statistics.fmean(x.sigma for x in rs), name=name)
    report: dict[str, Any] = {
        "rules": rules.to_dict(), "players": players, "games": games, "seed": seed,
        "lineup": list(lineup), "duplicate_deals": True,
        "wins_counting": "a shared win counts as a win for each winner; a capped game is a "
                         "win for no one",
        "max_moves": max_moves,
        "capped": sum(1 for r in results if r["capped"]),
        "capped_games": [r["index"] for r in results if r["capped"]],
        "bots": [st.to_dict(ratings[name]) for name, st in stats.items()],
        "errors": errors,
    }
    if calibration:
        report["calibration"] = calibration_table(calib)
        report["calibration_calls"] = len(calib)
    return report


# ----------------------------------------------------------------- output


def print_report(report: dict[str, Any], console: Any) -> None:
    """The report as Rich tables."""
    from rich.table import Table

    capped = report.get("capped", 0)
    table = Table(title=f"Arena: {report['games']} games, {report['players']} players",
                  caption=f"capped (stopped after {report.get('max_moves', MAX_MOVES)} moves, "
                          f"a win for no one): {capped} game{'' if capped == 1 else 's'}")
    for col in ("bot", "games", "wins", "win rate", "95% CI", "rating", "pts/round",
                "calls", "Assaf", "ms median", "ms p99", "capped", "errors"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in report["bots"]:
        lo, hi = b["ci95"]
        table.add_row(
            b["name"], str(b["games"]), str(b["wins"]), f"{b['win_rate']:.1%}",
            f"{lo:.1%}-{hi:.1%}", f"{b['rating']['ordinal']:.1f}",
            f"{b['mean_round_points']:.2f}", str(b["yaniv_calls"]), f"{b['assaf_rate']:.1%}",
            f"{b['decision_ms']['median']:.2f}", f"{b['decision_ms']['p99']:.2f}",
            str(b.get("capped", 0)), str(b["errors"]),
        )
    console.print(table)
    if report.get("calibration") is not None:
        ct = Table(title=f"Coach calibration over {report['calibration_calls']} Yaniv calls")
        for col in ("predicted", "calls", "mean predicted", "observed", "gap", "observed 95% CI"):
            ct.add_column(col, justify="right")
        for row in report["calibration"]:
            if not row["calls"]:
                ct.add_row(row["decile"], "0", "-", "-", "-", "-")
                continue
            gap = row["observed"] - row["predicted"]
            ct.add_row(row["decile"], str(row["calls"]), f"{row['predicted']:.1%}",
                       f"{row['observed']:.1%}", f"{gap:+.1%}",
                       f"{row['ci95'][0]:.1%}-{row['ci95'][1]:.1%}")
        console.print(ct)
    for e in report["errors"][:10]:
        console.print(f"[red]error[/] game {e['game']} seat {e['seat']} ({e['bot']}): {e['error']}")
    if len(report["errors"]) > 10:
        console.print(f"[red]... {len(report['errors']) - 10} more errors[/]")


def plot_report(report: dict[str, Any], path: Path) -> None:
    """Win rates with their 95% intervals, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = report["bots"]
    names = [b["name"] for b in bots]
    rates = [b["win_rate"] for b in bots]
    low = [max(0.0, b["win_rate"] - b["ci95"][0]) for b in bots]
    high = [max(0.0, b["ci95"][1] - b["win_rate"]) for b in bots]
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(bots)), 4))
    ax.bar(names, rates, yerr=[low, high], capsize=8, color="#4c72b0")
    ax.axhline(1 / report["players"], color="grey", linestyle="--", label="even")
    ax.set_ylim(0, 1)
    ax.set_ylabel("game win rate (95% Wilson interval)")
    ax.set_title(f"{report['games']} games, {report['players']} players")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def check_output_path(path: Path, option: str) -> None:
    """Raise typer.BadParameter unless a file can be written at ``path`` (before any game)."""
    if path.is_dir():
        raise typer.BadParameter(f"{path} is a directory: give a file name",
                                 param_hint=option)
    parent = path.parent
    if not parent.exists():
        raise typer.BadParameter(f"cannot write {path}: the directory {parent} does not exist",
                                 param_hint=option)
    if not parent.is_dir():
        raise typer.BadParameter(f"cannot write {path}: {parent} is not a directory",
                                 param_hint=option)
    if path.exists():
        if not os.access(path, os.W_OK):
            raise typer.BadParameter(f"cannot write {path}: permission denied",
                                     param_hint=option)
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise typer.BadParameter(f"cannot write {path}: no permission to create files in "
                                 f"{parent}", param_hint=option)


def check_plot_path(path: Path) -> None:
    """Raise typer.BadParameter unless ``path`` is writable and names a format matplotlib draws."""
    check_output_path(path, "--plot")
    if path.suffix:
        from matplotlib.backend_bases import FigureCanvasBase

        formats = FigureCanvasBase.get_supported_filetypes()
        if path.suffix[1:].lower() not in formats:
            raise typer.BadParameter(f"cannot draw {path}: unknown image format "
                                     f"{path.suffix!r}; formats: {', '.join(sorted(formats))}",
                                     param_hint="--plot")


def arena_command(  # noqa: B008
    bots: Annotated[str, typer.Option("--bots", help="comma-separated levels or cmd:COMMAND; "
                                      "the last fills any remaining seats")] = "medium,easy",
    players: Annotated[int, typer.Option(help="players per game")] = 2,
    games: Annotated[int, typer.Option(help="games to play")] = 100,
    rules: Annotated[str, typer.Option("--rules", help="a rules preset")] = "standard",
    option: Annotated[list[str] | None, typer.Option("--option", "-o",
                                                     help="KEY=VALUE over the preset")] = None,
    seed: Annotated[int, typer.Option(help="seed of the deals and bots")] = 1,
    jobs: Annotated[int, typer.Option(help="worker processes")] = 1,
    json_path: Annotated[Path | None, typer.Option("--json", help="write the report here")
                         ] = None,
    plot: Annotated[Path | None, typer.Option(help="draw win rates to this PNG")] = None,
    calibration: Annotated[bool, typer.Option(help="record the coach's prediction at every "
                                              "Yaniv call and print the calibration")] = False,
    time_limit: Annotated[float, typer.Option(help="seconds an external program may take "
                                              "per move")] = 10.0,
    max_moves: Annotated[int, typer.Option(help="stop a game after this many moves and count "
                                           "it as capped: a win for no one")] = MAX_MOVES,
) -> None:
    """Play bots against each other (duplicate deals, rotated seats) and report statistics."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .cli import rules_from

    console = Console(highlight=False, width=max(Console().width, 132))
    try:
        check_time_limit(time_limit)
    except YanivError as exc:
        raise typer.BadParameter(str(exc).removeprefix("--time-limit "), param_hint="--time-limit"
                                 ) from None
    try:
        check_max_moves(max_moves)
    except YanivError as exc:
        raise typer.BadParameter(str(exc).removeprefix("--max-moves "), param_hint="--max-moves"
                                 ) from None
    if json_path is not None:
        check_output_path(json_path, "--json")
    if plot is not None:
        check_plot_path(plot)
    rule_set = rules_from(rules, option)
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        for spec in specs:
            check_spec(spec)
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=console,
                      transient=False) as progress:
            bar = progress.add_task("games", total=games)
            report = run_arena(specs, players, games, rule_set, seed, jobs, calibration,
                               time_limit, on_game=lambda _r: progress.advance(bar),
                               max_moves=max_moves)
    except YanivError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    print_report(report, console)
    failed = False
    if json_path is not None:
        try:
            json_path.write_text(json.dumps(report, indent=2))
            console.print(f"report written to {json_path}")
        except OSError as exc:
            console.print(f"[red]error:[/] cannot write the report to {json_path}: {exc}")
            failed = True
    if plot is not None:
        try:
            plot_report(report, plot)
            console.print(f"plot written to {plot}")
        except (OSError, ValueError) as exc:
            console.print(f"[red]error:[/] cannot draw the plot to {plot}: {exc}")
            failed = True
    if failed:
        raise typer.Exit(1)


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "null"


def answer_request(bot: Any, raw: bytes) -> dict[str, Any] | None:
    """The answer to one request line of the protocol; None for ``{"quit": true}``.

    Never raises for bad input: each problem is answered as ``{"error": "..."}`` in words.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {"error": f"the line is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at "
                         f"position {exc.start}): send one JSON object per line, in UTF-8"}
    try:
        data = json.loads(text)
    except ValueError as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        return {"error": f"the line is not JSON ({why}): expected "
                         '{"view": VIEW} or {"quit": true}'}
    if not isinstance(data, dict):
        return {"error": f"the line is a JSON {_json_type(data)}, not an object: expected "
                         '{"view": VIEW} or {"quit": true}'}
    if data.get("quit"):
        return None
    if "view" not in data:
        keys = ", ".join(repr(k) for k in list(data)[:5]) or "none"
        return {"error": 'the request has no "view" (its keys: ' + keys + "): expected "
                         '{"view": VIEW} or {"quit": true}'}
    if not isinstance(data["view"], dict):
        return {"error": f'"view" is a JSON {_json_type(data["view"])}, not an object: '
                         "expected a view as docs/bot-protocol.md describes"}
    try:
        view = PlayerView.from_dict(data["view"])
    except ViewError as exc:
        return {"error": f"{exc} (see docs/bot-protocol.md)"}
    if not view.legal_moves:
        return {"error": f"the view has no legal moves: seat {view.seat} is not to act"}
    try:
        return {"move": str(bot.choose(view))}
    except Exception as exc:  # the protocol never dies on a bad view
        return {"error": f"the bot could not choose a move from this view: {exc}"}


def bot_command(
    level: Annotated[str, typer.Argument(help="the bot level: random, easy, medium, expert")],
    seed: Annotated[int, typer.Option(help="the bot's seed")] = 0,
) -> None:
    """Speak the bot protocol on stdin/stdout: one JSON view in, one JSON move out, per line."""
    import sys

    from .bots import get_bot

    try:
        bot = get_bot(level, seed)
    except YanivError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    stdin = sys.stdin.buffer  # bytes: a bad byte is answered, whatever the locale's encoding
    while True:
        raw = stdin.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        answer: dict[str, Any] | None
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line, bounded
                raw = stdin.readline(MAX_LINE_BYTES)
            answer = {"error": f"the line is longer than {MAX_LINE_BYTES} bytes: ignored"}
        elif not raw.strip():
            continue
        else:
            answer = answer_request(bot, raw)
            if answer is None:
                break
        try:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader went away: stop quietly
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            break
