"""``yaniv play``: the terminal game's command (Textual is imported only when it runs)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import YanivError
from ..rules import PRESETS, RuleSet


def data_home() -> Path:
    """Where the terminal game keeps its records by default (the user data directory)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("yaniv"))


def play_command(
    file: Annotated[
        Path | None,
        typer.Argument(
            help="with --resume: the saved game to go on with (default: the latest unfinished one)",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", help="go on with a saved game: FILE, or the latest unfinished one"
        ),
    ] = False,
    opponents: Annotated[
        int, typer.Option("--opponents", "-n", min=1, max=7, help="computer opponents, 1 to 7")
    ] = 3,
    level: Annotated[
        str,
        typer.Option(
            "--level",
            "-l",
            help="opponents' level (random, easy, medium, expert); a comma list gives each its own",
        ),
    ] = "medium",
    rules: Annotated[
        str, typer.Option("--rules", "-r", help="a preset: " + ", ".join(PRESETS))
    ] = "standard",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="KEY=VALUE over the preset")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the shuffles and bots")] = None,
    name: Annotated[str, typer.Option(help="your name at the table")] = "You",
    delay: Annotated[
        float, typer.Option(min=0.0, max=10.0, help="seconds each computer move takes")
    ] = 0.6,
    four_color: Annotated[
        bool,
        typer.Option(
            "--four-color/--two-color",
            metavar="",
            help="a four-colour deck (spades black, hearts red, diamonds blue, clubs green) "
            "or the usual red and black",
        ),
    ] = False,
    color: Annotated[
        bool, typer.Option("--color/--no-color", metavar="", help="draw in colour, or without any")
    ] = True,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            help=f"where games are saved, in its games/ folder, after every move (default: "
            f"{data_home()})",
            show_default=False,
        ),
    ] = None,
    start: Annotated[
        bool,
        typer.Option(
            "--start/--setup",
            metavar="",
            help="deal at once with these choices, or open the setup screen first",
        ),
    ] = False,
) -> None:
    """Play Yaniv against the computer in the terminal."""
    no_color = not color
    from .controller import Options, default_level

    try:
        rule_set = RuleSet.from_preset_and_options(rules, option or [])
    except YanivError as exc:
        raise typer.BadParameter(str(exc), param_hint="--rules/--option") from None
    picked = [lv.strip() for lv in level.split(",") if lv.strip()] or ["medium"]
    if picked == ["medium"]:
        picked = [default_level()]  # the strongest level installed, while medium is missing
    levels = tuple(picked[i] if i < len(picked) else picked[-1] for i in range(opponents))
    if data_dir is None:
        data_dir = data_home()
    if file is not None and not resume:
        raise typer.BadParameter(
            f"{file}: to go on with a saved game, say --resume {file}", param_hint="FILE"
        )
    options = Options(
        rules=rule_set,
        preset=rules,
        levels=levels,
        name=name,
        seed=seed,
        delay=delay,
        four_color=four_color,
        no_color=no_color,
        data_dir=data_dir,
    )
    try:
        options.check()
    except YanivError as exc:
        raise typer.BadParameter(str(exc), param_hint="--opponents/--level/--name") from None

    if no_color:
        os.environ["NO_COLOR"] = "1"  # Textual then draws without colours
    from .app import YanivApp

    controller = None
    if resume:
        from .controller import resume_game

        try:
            controller = resume_game(file, data_dir / "games", options)
        except YanivError as exc:
            raise typer.BadParameter(str(exc), param_hint="--resume") from None
        typer.echo(f"Going on with {controller.record_path}")
    started = time.time()
    YanivApp(options, start=start, controller=controller).run()
    games = data_dir / "games"
    saved = [p for p in games.glob("*.json") if p.stat().st_mtime >= started - 1]
    if saved:
        newest = max(saved, key=lambda p: p.stat().st_mtime)
        typer.echo(f"The game is saved in {newest}\nReplay it with: yaniv replay '{newest}'")
