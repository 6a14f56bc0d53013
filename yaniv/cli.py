"""The ``yaniv`` command: play, replay, rules, arena, bot."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import record
from .cards import cards_text, sort_key
from .errors import YanivError
from .game import Game, ResultKind
from .moves import Yaniv
from .narration import Narrator
from .rules import DESCRIPTIONS, PRESETS, RuleSet

app = typer.Typer(
    name="yaniv",
    help="Yaniv, the card game: play against the computer, replay games, run bot arenas.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console(highlight=False)


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"yaniv {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            metavar="",
            help="print the version and exit",
        ),
    ] = False,
) -> None:
    """Yaniv, the card game: play against the computer, replay games, run bot arenas."""


def rules_from(preset: str, options: list[str] | None) -> RuleSet:
    """A rule set from a preset name and ``KEY=VALUE`` overrides; exits with a clear error."""
    try:
        return RuleSet.from_preset_and_options(preset, options or [])
    except YanivError as exc:
        raise typer.BadParameter(str(exc), param_hint="--rules/--option") from None


@app.command("rules")
def rules_command(
    preset: Annotated[str, typer.Argument(help="a preset: " + ", ".join(PRESETS))] = "standard",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="KEY=VALUE over the preset")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Print a preset's rule options."""
    rules = rules_from(preset, option)
    if as_json:
        print(json.dumps(rules.to_dict(), indent=2))
        return
    changed = rules.differences()
    table = Table(title=f"Rules: {preset}" + (" (with overrides)" if option else ""))
    table.add_column("option", style="bold")
    table.add_column("value")
    table.add_column("meaning", style="dim")
    for key, value in rules.to_dict().items():
        shown = ",".join(map(str, value)) if isinstance(value, list) else str(value).lower()
        table.add_row(key, f"[yellow]{shown}[/]" if key in changed else shown, DESCRIPTIONS[key])
    console.print(table)


def _hand_text(game: Game, seat: int) -> str:
    cards = sorted(game.hand(seat), key=sort_key)
    return f"{cards_text(cards)} ({game.values[seat]})"


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="a game record (JSON)", exists=True, dir_okay=False)],
) -> None:
    """Print a recorded game turn by turn, every hand shown."""
    try:
        data = record.load(file)
        narrator: Narrator | None = None
        told = 0
        for game, seat, move in record.iter_replay(data):
            if narrator is None:
                # A record holds every card, so the replay tells the whole story: the cards
                # drawn from the stock too.
                narrator = Narrator(game.names, None, game.rules.draw_first)
            events = game.all_events(told)
            told += len(events)
            narrator.read(events)
            if move is None:
                deal = game.deal
                assert deal is not None
                console.rule(f"Round {game.round_no}")
                for s in game.active_seats():
                    _say(f"  {game.names[s]:>12}: {_hand_text(game, s)}")
                _say(f"  turned up {cards_text([deal.up])}; {game.names[deal.starter]} starts")
            elif isinstance(move, Yaniv):
                _print_result(game)
            elif game.to_move != seat:
                _say(f"  {narrator.lines[-1].text} -> {_hand_text(game, seat)}")
    except YanivError as exc:
        _error(str(exc))
        raise typer.Exit(1) from None


def _say(line: str) -> None:
    """Print a line as plain text: names and other record text are never markup, and their
    control characters (escape sequences, newlines, bidi overrides) print as escapes."""
    console.print(Text(_printable(line)))


#: Characters a record's text may not send to the terminal as they are: C0 and C1 controls,
#: and the bidi embeddings, overrides and isolates that would reorder the line.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _printable(text: str) -> str:
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _error(message: str) -> None:
    console.print(Text.assemble(("error:", "red"), " ", _printable(message)))


def _print_result(game: Game) -> None:
    result = game.result
    assert result is not None
    kind = {
        ResultKind.YANIV: "Yaniv!",
        ResultKind.ASSAF: "Assaf!",
        ResultKind.DELIBERATE: "Deliberate Yaniv",
    }[result.kind]
    _say(
        f"{game.names[result.caller]:>12}: yaniv with {result.hand_values[result.caller]}: "
        f"{kind} {game.names[result.winner]} wins the round"
    )
    for s in range(game.n):
        if result.hands[s]:
            bonus = f" - {result.bonuses[s]} bonus" if result.bonuses[s] else ""
            _say(
                f"  {game.names[s]:>12}: {cards_text(result.hands[s]):<16} "
                f"+{result.points[s]}{bonus} = {result.scores[s]}"
                + ("  OUT" if s in result.newly_out else "")
            )
    if result.game_winners:
        console.print(
            Text.assemble(
                ("Game over.", "bold green"),
                " Winner: ",
                _printable(", ".join(game.names[s] for s in result.game_winners)),
            )
        )


# Commands defined in their own modules register here.
from .arena_cli import arena_command, bot_command, ray_argv  # noqa: E402

app.command("arena")(arena_command)
app.command("bot")(bot_command)
from .tui.command import play_command  # noqa: E402

app.command("play")(play_command)

from .server.command import serve_command  # noqa: E402

app.command("serve")(serve_command)


def main() -> None:
    """Entry point of the ``yaniv`` console script."""
    app(args=ray_argv(sys.argv[1:]))


if __name__ == "__main__":  # python -m yaniv.cli, as the console script
    main()
