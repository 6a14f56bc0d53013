"""Tournaments between bots: duplicate deals, rotated seats, statistics, external programs.

Each deal is played once per seat rotation (``players`` games per deal), with the same cards
dealt to each seat in every round of every rotation, so the luck of the deal cancels. Game wins
are counted per seat: a game with shared winners counts as a win for each of them. A bot that
fails (an exception, an illegal move, garbage, no answer in time) loses the game at once, the
other seats share the win, and the failure is listed in the report.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import random
import shlex
import signal
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from .cards import deck
from .errors import YanivError
from .game import Deal, Game, Phase, ResultKind
from .moves import YANIV, Move, parse_move
from .rules import RuleSet
from .view import PlayerView

#: Give up on a game after this many moves (no bot of this package gets near it).
MAX_MOVES = 20_000


class BotFailure(YanivError):
    """A bot answered garbage, an illegal move, nothing in time, or raised."""


# ----------------------------------------------------------------- external programs


class CmdBot:
    """An external program speaking the bot protocol (docs/bot-protocol.md) on stdin/stdout."""

    def __init__(self, command: str, time_limit: float = 10.0) -> None:
        self.name = "cmd:" + command
        self.command = command
        self.time_limit = time_limit
        self.lines: queue.Queue[str | None] = queue.Queue()
        try:
            self.proc = subprocess.Popen(
                shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1, start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            raise BotFailure(f"cannot start {command!r}: {exc}") from None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        try:
            for line in self.proc.stdout:
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.lines.put(None)

    def choose(self, view: PlayerView) -> Move:
        """Send the view, wait for one line, and check the move it names."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"view": view.to_dict()}) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise BotFailure(f"{self.command!r} is not reading its input (exited?)") from None
        try:
            line = self.lines.get(timeout=self.time_limit)
        except queue.Empty:
            raise BotFailure(f"{self.command!r} gave no answer within {self.time_limit:g} s"
                             ) from None
        if line is None:
            raise BotFailure(f"{self.command!r} exited without answering")
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
                             + ", ".join(str(m) for m in view.legal_moves[:8]))
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
    """Play one full game; a summary of it (never raises for a bot's failure)."""
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
    try:
        for s, spec in enumerate(seats):
            try:
                bots.append(make_bot(spec, deal_seed * 16 + s, task.time_limit))
            except YanivError as exc:
                errors.append((s, str(exc)))
                raise
        game = Game.new(task.rules, players=n, seed=deal_seed, names=list(seats),
                        deal=deal_for(task.rules, [False] * n, 1, deal_seed, 1))
        moves = 0
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
            if moves > MAX_MOVES:
                errors.append((-1, f"game {task.index} stopped after {MAX_MOVES} moves"))
                break
        winners = game.winners
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
        "scores": scores, "rounds": rounds, "points": points, "calls": calls,
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
            "yaniv_calls": self.calls, "assafs": self.assafs,
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
    on_game: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and return the report (see the module's docstring)."""
    from openskill.models import PlackettLuce

    for spec in bots:
        check_spec(spec)
    if games < 1:
        raise YanivError(f"--games {games}: at least one game")
    if jobs < 1:
        raise YanivError(f"--jobs {jobs}: at least one")
    lineup = lineup_for(bots, players)
    Game.new(rules, players=players)  # refuses an unplayable table with a clear error
    tasks = [GameTask(i, lineup, rules, seed, calibration, time_limit) for i in range(games)]
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
            st.times.extend(r["times"][s])
        for s, name, msg in r["errors"]:
            if s >= 0:
                stats[name].errors.append(msg)
            errors.append({"game": r["index"], "seat": s, "bot": name, "error": msg})
        calib.extend((p, ok) for p, ok in r["calib"])
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
        "wins_counting": "a shared win counts as a win for each winner",
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

    table = Table(title=f"Arena: {report['games']} games, {report['players']} players")
    for col in ("bot", "games", "wins", "win rate", "95% CI", "rating", "pts/round",
                "calls", "Assaf", "ms median", "ms p99", "errors"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in report["bots"]:
        lo, hi = b["ci95"]
        table.add_row(
            b["name"], str(b["games"]), str(b["wins"]), f"{b['win_rate']:.1%}",
            f"{lo:.1%}-{hi:.1%}", f"{b['rating']['ordinal']:.1f}",
            f"{b['mean_round_points']:.2f}", str(b["yaniv_calls"]), f"{b['assaf_rate']:.1%}",
            f"{b['decision_ms']['median']:.2f}", f"{b['decision_ms']['p99']:.2f}",
            str(b["errors"]),
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
) -> None:
    """Play bots against each other (duplicate deals, rotated seats) and report statistics."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from .cli import rules_from

    console = Console(highlight=False, width=max(Console().width, 132))
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
                               time_limit, on_game=lambda _r: progress.advance(bar))
    except YanivError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    print_report(report, console)
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=2))
        console.print(f"report written to {json_path}")
    if plot is not None:
        plot_report(report, plot)
        console.print(f"plot written to {plot}")


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
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if data.get("quit"):
                break
            view = PlayerView.from_dict(data["view"])
            answer: dict[str, Any] = {"move": str(bot.choose(view))}
        except Exception as exc:  # report and go on: the protocol never dies on bad input
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
