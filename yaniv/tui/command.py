"""``yaniv play``: the terminal game's command (Textual is imported only when it runs)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import YanivError
from ..rules import PRESETS


def play_command(
    opponents: Annotated[int, typer.Option("--opponents", "-n", min=1, max=7,
                                           help="computer opponents, 1 to 7")] = 3,
    level: Annotated[str, typer.Option("--level", "-l",
                                       help="opponents' level (random, easy, medium, expert); "
                                            "a comma list gives each its own")] = "medium",
    rules: Annotated[str, typer.Option("--rules", "-r",
                                       help="a preset: " + ", ".join(PRESETS))] = "standard",
    option: Annotated[list[str] | None, typer.Option("--option", "-o",
                                                     help="KEY=VALUE over the preset")] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the shuffles and bots")] = None,
    name: Annotated[str, typer.Option(help="your name at the table")] = "You",
    delay: Annotated[float, typer.Option(min=0.0, max=10.0,
                                         help="seconds each computer move takes")] = 0.6,
    four_color: Annotated[bool, typer.Option(
        "--four-color/--two-color", metavar="",
        help="a four-colour deck (spades black, hearts red, diamonds blue, clubs green) "
             "or the usual red and black")] = False,
    color: Annotated[bool, typer.Option(
        "--color/--no-color", metavar="", help="draw in colour, or without any")] = True,
    data_dir: Annotated[Path | None, typer.Option(
        help="where game records are saved (default: the user data directory)")] = None,
    start: Annotated[bool, typer.Option(
        "--start/--setup", metavar="",
        help="deal at once with these choices, or open the setup screen first")] = False,
) -> None:
    """Play Yaniv against the computer in the terminal."""
    no_color = not color
    from ..cli import rules_from
    from .controller import Options, default_level

    rule_set = rules_from(rules, option)
    picked = [lv.strip() for lv in level.split(",") if lv.strip()] or ["medium"]
    if picked == ["medium"]:
        picked = [default_level()]  # the strongest level installed, while medium is missing
    levels = tuple(picked[i] if i < len(picked) else picked[-1] for i in range(opponents))
    if data_dir is None:
        from platformdirs import user_data_dir

        data_dir = Path(user_data_dir("yaniv"))
    options = Options(rules=rule_set, preset=rules, levels=levels, name=name, seed=seed,
                      delay=delay, four_color=four_color, no_color=no_color, data_dir=data_dir)
    try:
        options.check()
    except YanivError as exc:
        raise typer.BadParameter(str(exc), param_hint="--opponents/--level/--name") from None

    if no_color:
        os.environ["NO_COLOR"] = "1"  # Textual then draws without colours
    from .app import YanivApp

    started = time.time()
    YanivApp(options, start=start).run()
    games = data_dir / "games"
    saved = [p for p in games.glob("*.json") if p.stat().st_mtime >= started - 1]
    if saved:
        newest = max(saved, key=lambda p: p.stat().st_mtime)
        typer.echo(f"The game is saved in {newest}\nReplay it with: yaniv replay '{newest}'")
