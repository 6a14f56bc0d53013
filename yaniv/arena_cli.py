"""The arena and bot commands as people see them: Typer options, Rich tables, the plot.

The tournament itself is :mod:`yaniv.arena`, the bot protocol :mod:`yaniv.protocol`; this module
only reads options, prints, and draws (matplotlib, from the ``plot`` extra, only for ``--plot``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import TaskID

from .arena import (
    MAX_MOVES,
    NAME_WIDTH,
    check_max_moves,
    check_spec,
    run_arena,
    short_name,
)
from .bots.base import check_think_ms
from .errors import YanivError
from .protocol import STARTUP_LIMIT, check_time_limit, serve
from .rules import RuleSet

#: Where ``--plot`` sends a person who lacks matplotlib.
PLOT_EXTRA_HINT = "pip install 'yaniv[plot]'"

#: The widest a bot's name is shown in the report's table (the JSON keeps it whole).


def ray_argv(argv: list[str]) -> list[str]:
    """``yaniv arena --ray ADDRESS`` as ``--ray-address ADDRESS``: the issue's spelling.

    Click has no option with an optional value; ``arena`` takes no positional arguments, so a
    word after ``--ray`` that is not an option can only be the cluster's address.

    >>> ray_argv(["arena", "--ray", "10.0.0.5:6379", "--games", "9"])
    ['arena', '--ray-address', '10.0.0.5:6379', '--games', '9']
    >>> ray_argv(["arena", "--ray", "--games", "9"])
    ['arena', '--ray', '--games', '9']
    >>> ray_argv(["play", "--ray", "x"])
    ['play', '--ray', 'x']
    """
    if not argv or argv[0] != "arena":
        return list(argv)
    out: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":
            out.append(word)
            out.extend(words)
            break
        if word == "--ray":
            following = next(words, None)
            if following is not None and not following.startswith("-"):
                out += ["--ray-address", following]
                continue
            out.append(word)
            if following is not None:
                out.append(following)
            continue
        out.append(word)
    return out


def _rules_from(preset: str, options: list[str] | None) -> RuleSet:
    """A rule set from a preset and ``KEY=VALUE`` texts; a bad one is a usage error."""
    try:
        return RuleSet.from_preset_and_options(preset, options or [])
    except YanivError as exc:
        raise typer.BadParameter(str(exc), param_hint="--rules/--option") from None


# ----------------------------------------------------------------- names and specs


def entrant_label(name: str, spec: str, width: int = NAME_WIDTH) -> str:
    """An entrant's name for the table: its spec shortened, its ``#k`` number kept whole."""
    number = name[len(spec) :] if name.startswith(spec) else ""
    return short_name(spec, max(width - len(number), 1)) + number


def bot_specs(bots: str | None, bot: list[str] | None) -> list[str]:
    """The lineup's specs: ``--bots`` split at commas, then each ``--bot`` as it is."""
    specs = [b.strip() for b in (bots or "").split(",") if b.strip()]
    specs += [b.strip() for b in bot or [] if b.strip()]
    return specs or ["medium", "easy"]


# ----------------------------------------------------------------- output


def print_report(report: dict[str, Any], console: Any) -> None:
    """The report as Rich tables."""
    from rich.table import Table

    capped = report.get("capped", 0)
    table = Table(
        title=f"Arena: {report['games']} games, {report['players']} players",
        caption=f"capped (stopped after {report.get('max_moves', MAX_MOVES)} moves, "
        f"a win for no one): {capped} game{'' if capped == 1 else 's'}",
    )
    programs = any(b.get("startup_ms") for b in report["bots"])
    cols = [
        "bot",
        "games",
        "wins",
        "win rate",
        "95% CI",
        "95% CI deals",
        "rating",
        "pts/round",
        "calls",
        "Assaf",
        "ms median",
        "ms p99",
    ]
    cols += ["ms start-up"] if programs else []  # only programs start
    cols += ["capped"] if capped else []  # the caption says how many
    cols += ["errors"]
    rows = []
    for b in report["bots"]:
        lo, hi = b["ci95"]
        by_deals = b.get("ci95_deals")  # null from one deal, or deals that went alike
        row = [
            str(b["games"]),
            str(b["wins"]),
            f"{b['win_rate']:.1%}",
            f"{lo:.0%}-{hi:.0%}",
            f"{by_deals[0]:.0%}-{by_deals[1]:.0%}" if by_deals else "-",
            f"{b['rating']['ordinal']:.1f}",
            f"{b['mean_round_points']:.2f}",
            str(b["yaniv_calls"]),
            f"{b['assaf_rate']:.0%}",
            f"{b['decision_ms']['median']:.2f}",
            f"{b['decision_ms']['p99']:.2f}",
        ]
        if programs:
            st = b.get("startup_ms")
            row.append(f"{st['median']:.0f}" if st else "-")
        if capped:
            row.append(str(b.get("capped", 0)))
        row.append(str(b["errors"]))
        rows.append(row)
    # The figures are never cut: the bots' names get the room they leave (at least 16
    # characters, on up to two lines), and the headings are on one line where that leaves
    # the names their room.
    names = [entrant_label(b["name"], b["spec"]) for b in report["bots"]]
    wanted = max(len(n) for n in names)
    for split in (False, True):
        figures = [
            max([max(map(len, col.split())) if split else len(col)] + [len(r[i]) for r in rows])
            for i, col in enumerate(cols[1:])
        ]
        room = console.size.width - sum(figures) - 3 * len(cols) - 1
        if room >= min(wanted, NAME_WIDTH):
            break
    width = max(16, min(NAME_WIDTH, wanted, room))
    labels = [
        entrant_label(b["name"], b["spec"], NAME_WIDTH if width >= NAME_WIDTH else 2 * width - 4)
        for b in report["bots"]
    ]
    table.add_column("bot", justify="left", overflow="fold", width=width)
    for col, w in zip(cols[1:], figures, strict=True):
        table.add_column(col, justify="right", width=w)
    for label, row in zip(labels, rows, strict=True):
        table.add_row(label, *row)
    console.print(table)
    if report.get("calibration") is not None:
        ct = Table(title=f"Coach calibration over {report['calibration_calls']} Yaniv calls")
        for col in ("predicted", "calls", "mean predicted", "observed", "gap", "observed 95% CI"):
            ct.add_column(col, justify="right")
        for row_ in report["calibration"]:
            if not row_["calls"]:
                ct.add_row(row_["decile"], "0", "-", "-", "-", "-")
                continue
            gap = row_["observed"] - row_["predicted"]
            ct.add_row(
                row_["decile"],
                str(row_["calls"]),
                f"{row_['predicted']:.1%}",
                f"{row_['observed']:.1%}",
                f"{gap:+.1%}",
                f"{row_['ci95'][0]:.1%}-{row_['ci95'][1]:.1%}",
            )
        console.print(ct)
    from rich.markup import escape

    specs = {b["name"]: b["spec"] for b in report["bots"]}
    for e in report["errors"][:10]:
        label = entrant_label(e["bot"], specs.get(e["bot"], e["bot"]))
        console.print(
            f"[red]error[/] game {e['game']} seat {e['seat']} "
            f"({escape(label)}): {escape(e['error'])}"
        )
    if len(report["errors"]) > 10:
        console.print(f"[red]... {len(report['errors']) - 10} more errors[/]")


def plot_report(report: dict[str, Any], path: Path) -> None:
    """Win rates with their 95% intervals, as an image (needs matplotlib: the ``plot`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = report["bots"]
    names = [entrant_label(b["name"], b["spec"], 24) for b in bots]
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
        raise typer.BadParameter(f"{path} is a directory: give a file name", param_hint=option)
    parent = path.parent
    if not parent.exists():
        raise typer.BadParameter(
            f"cannot write {path}: the directory {parent} does not exist", param_hint=option
        )
    if not parent.is_dir():
        raise typer.BadParameter(
            f"cannot write {path}: {parent} is not a directory", param_hint=option
        )
    if path.exists():
        if not os.access(path, os.W_OK):
            raise typer.BadParameter(f"cannot write {path}: permission denied", param_hint=option)
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise typer.BadParameter(
            f"cannot write {path}: no permission to create files in {parent}", param_hint=option
        )


def check_plot_path(path: Path) -> None:
    """Raise typer.BadParameter unless ``path`` is writable and names a format matplotlib draws."""
    check_output_path(path, "--plot")
    if path.suffix:
        from matplotlib.backend_bases import FigureCanvasBase

        formats = FigureCanvasBase.get_supported_filetypes()
        if path.suffix[1:].lower() not in formats:
            raise typer.BadParameter(
                f"cannot draw {path}: unknown image format "
                f"{path.suffix!r}; formats: {', '.join(sorted(formats))}",
                param_hint="--plot",
            )


def have_matplotlib() -> bool:
    """Whether matplotlib can be imported (it comes with the ``plot`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


# ----------------------------------------------------------------- the commands


class ProgressLines:
    """The progress of a run whose output is not a terminal (a log file, a pipe), where Rich's
    bar shows nothing until the end: a line on stderr every twentieth of the games, with the
    time spent and the time left at the pace since the last line (games read back from a
    journal come at once). The part of Rich's ``Progress`` the arena uses."""

    def __init__(self) -> None:
        self.total = self.done = 0
        self.every = 1
        self.start = self.last_time = time.monotonic()
        self.last_done = 0

    def __enter__(self) -> ProgressLines:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def add_task(self, description: str, total: int) -> TaskID:
        self.total = total
        self.every = max(1, total // 20)
        return TaskID(0)

    def advance(self, _task: TaskID) -> None:
        self.done += 1
        if self.done % self.every and self.done != self.total:
            return
        now = time.monotonic()
        spent = now - self.start
        left = (now - self.last_time) / (self.done - self.last_done) * (self.total - self.done)
        self.last_time, self.last_done = now, self.done
        print(
            f"games {self.done}/{self.total}: {_clock(spent)} spent, about {_clock(left)} left",
            file=sys.stderr,
            flush=True,
        )


def _clock(seconds: float) -> str:
    """Seconds as H:MM:SS."""
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def _bad(exc: YanivError, option: str) -> typer.BadParameter:
    return typer.BadParameter(str(exc).removeprefix(option + " "), param_hint=option)


def arena_command(  # noqa: B008
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            help="comma-separated levels or cmd:COMMAND; the last fills any remaining "
            "seats (medium,easy when neither --bots nor --bot is given)",
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            help="one level or cmd:COMMAND (may hold commas); repeat it; comes after "
            "--bots' entries",
        ),
    ] = None,
    players: Annotated[int, typer.Option(help="players per game")] = 2,
    games: Annotated[int, typer.Option(help="games to play")] = 100,
    rules: Annotated[str, typer.Option("--rules", help="a rules preset")] = "standard",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="KEY=VALUE over the preset")
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the deals and bots")] = 1,
    jobs: Annotated[int, typer.Option(help="worker processes")] = 1,
    json_path: Annotated[Path | None, typer.Option("--json", help="write the report here")] = None,
    journal: Annotated[
        Path | None,
        typer.Option(
            help="write each game to this file as it finishes (JSON lines); the same command "
            "given the file again plays only the games not in it (a stopped run resumes, a "
            "longer run extends a shorter one)"
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="draw win rates to this PNG (needs matplotlib: pip install 'yaniv\\[plot]')"
        ),
    ] = None,
    calibration: Annotated[
        bool,
        typer.Option(
            help="record the coach's prediction at every Yaniv call and print the calibration"
        ),
    ] = False,
    time_limit: Annotated[
        float, typer.Option(help="seconds an external program may take per move")
    ] = 10.0,
    startup_limit: Annotated[
        float,
        typer.Option(
            help="seconds an external program may take "
            "to start, on top of its first move's time "
            "limit"
        ),
    ] = STARTUP_LIMIT,
    max_moves: Annotated[
        int,
        typer.Option(
            help="stop a game after this many moves and count it as capped: a win for no one"
        ),
    ] = MAX_MOVES,
    think_ms: Annotated[
        float | None,
        typer.Option(
            help="milliseconds a searching level (master) may think per decision, counted as "
            "simulated turns so a seed gives the same games on any machine (default: the "
            "level's own, 250)"
        ),
    ] = None,
    ray: Annotated[
        bool,
        typer.Option(
            "--ray",
            help="play the games as Ray tasks: on a new local Ray instance, or the cluster "
            "at --ray ADDRESS, --ray-address ADDRESS or RAY_ADDRESS; needs pip install "
            "'yaniv\\[ray]'",
        ),
    ] = False,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="the Ray cluster to play on (HOST:PORT, ray://HOST:PORT or auto); implies --ray",
        ),
    ] = None,
    ray_batch: Annotated[
        int | None,
        typer.Option(
            "--ray-batch",
            help="games per Ray task (default: about 4 tasks per CPU of the cluster, "
            "at most 50 games)",
        ),
    ] = None,
) -> None:
    """Play bots against each other (duplicate deals, rotated seats) and report statistics."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = Console(highlight=False, width=max(Console().width, 140))
    if plot is not None and not have_matplotlib():
        console.print(
            f"[red]error:[/] --plot needs matplotlib, which is not installed: "
            f"{escape(PLOT_EXTRA_HINT)}"
        )
        raise typer.Exit(2)
    try:
        check_time_limit(time_limit)
    except YanivError as exc:
        raise _bad(exc, "--time-limit") from None
    try:
        check_time_limit(startup_limit, "--startup-limit")
    except YanivError as exc:
        raise _bad(exc, "--startup-limit") from None
    try:
        check_max_moves(max_moves)
    except YanivError as exc:
        raise _bad(exc, "--max-moves") from None
    if think_ms is not None:
        try:
            check_think_ms(think_ms)
        except YanivError as exc:
            raise _bad(exc, "--think-ms") from None
    use_ray = ray or ray_address is not None or ray_batch is not None
    if use_ray and jobs != 1:
        raise typer.BadParameter(
            f"--jobs {jobs} with --ray: Ray places the games on its workers; drop --jobs",
            param_hint="--jobs",
        )
    if ray_address is not None and not ray_address.strip():
        raise typer.BadParameter("an empty address", param_hint="--ray-address")
    runner = None
    if use_ray:
        from .arena_ray import ray_runner

        try:
            runner = ray_runner(ray_address, ray_batch)
        except YanivError as exc:
            if ray_batch is not None and str(exc).startswith("--ray-batch"):
                raise _bad(exc, "--ray-batch") from None
            console.print(f"[red]error:[/] {escape(str(exc))}")
            raise typer.Exit(2) from None
    if json_path is not None:
        check_output_path(json_path, "--json")
    if journal is not None:
        check_output_path(journal, "--journal")
        if json_path is not None and json_path.resolve() == journal.resolve():
            raise typer.BadParameter(
                f"{journal} is also the --json report: give the journal a file of its own",
                param_hint="--journal",
            )
    if plot is not None:
        check_plot_path(plot)
    rule_set = _rules_from(rules, option)
    specs = bot_specs(bots, bot)
    try:
        for spec in specs:
            check_spec(spec)
        with (
            Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            if console.is_terminal
            else ProgressLines()
        ) as progress:
            bar = progress.add_task("games", total=games)
            report = run_arena(
                specs,
                players,
                games,
                rule_set,
                seed,
                jobs,
                calibration,
                time_limit,
                on_game=lambda _r: progress.advance(bar),
                max_moves=max_moves,
                startup_limit=startup_limit,
                runner=runner,
                think_ms=think_ms,
                journal=journal,
            )
    except YanivError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
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


def bot_command(
    level: Annotated[str, typer.Argument(help="the bot level: random, easy, medium, expert")],
    seed: Annotated[int, typer.Option(help="the bot's seed")] = 0,
) -> None:
    """Speak the bot protocol on stdin/stdout: one JSON view in, one JSON move out, per line."""
    from .bots import get_bot

    try:
        bot = get_bot(level, seed)
    except YanivError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    serve(bot, sys.stdin.buffer, sys.stdout, fresh=lambda: get_bot(level, seed))
