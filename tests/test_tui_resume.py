"""The terminal game on the table layer: resuming a saved game, and a person who is out."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_tui import SIZE, settle
from typer.testing import CliRunner

from yaniv import Game, RuleSet, YanivError
from yaniv.cli import app as cli_app
from yaniv.session import Seat, Table
from yaniv.tui import table_screen
from yaniv.tui.app import YanivApp
from yaniv.tui.controller import Controller, Options, latest_unfinished, resume_game
from yaniv.tui.dialogs import HelpScreen, RoundEndScreen


def saved_game(tmp_path: Path, moves: int) -> Controller:
    options = Options(levels=("easy", "medium"), name="Dana", seed=4, delay=0, data_dir=tmp_path)
    controller = Controller(options)
    table = controller.table
    for _ in range(moves):
        if table.waiting_for == 0:
            table.play(0, table.view(0).legal_moves[-1])
        elif table.automatic_to_act is not None:
            table.play_automatic(limit=1)
    return controller


def test_resume_goes_on_with_the_latest_unfinished_game(tmp_path: Path) -> None:
    first = saved_game(tmp_path, 9)
    assert first.record_path is not None and first.record_path.parent == tmp_path / "games"
    assert "seed" not in first.record_path.name or "-seed4" in first.record_path.name
    assert latest_unfinished(tmp_path / "games") == first.record_path
    resumed = resume_game(None, tmp_path / "games", Options(four_color=True))
    assert resumed.game.fingerprint() == first.game.fingerprint()
    assert resumed.record_path == first.record_path
    assert resumed.options.name == "Dana" and resumed.options.levels == ("easy", "medium")
    assert resumed.options.four_color  # display choices stay the person's


def test_resume_says_why_not(tmp_path: Path) -> None:
    with pytest.raises(YanivError, match="no unfinished game is saved in"):
        resume_game(None, tmp_path / "games", Options())
    table = Table(
        RuleSet.preset("quick"),
        [Seat("Dana"), Seat("Avi", "bot", level="easy")],
        seed=2,
        record_path=tmp_path / "games" / "done.json",
    )
    while not table.game.is_over:
        if table.waiting_for == 0:
            moves = table.view(0).legal_moves
            table.play(0, moves[0])
        else:
            table.play_automatic(deal=True)
    with pytest.raises(YanivError, match="is a finished game"):
        resume_game(tmp_path / "games" / "done.json", tmp_path, Options())
    with pytest.raises(YanivError, match="no unfinished game"):
        latest_unfinished(tmp_path / "games")


def test_the_play_command_names_the_resume_problems(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli_app, ["play", "--resume", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and "no unfinished game is saved in" in result.output
    result = runner.invoke(cli_app, ["play", str(tmp_path / "x.json"), "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and "--resume" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "yaniv-record"}))
    result = runner.invoke(cli_app, ["play", "--resume", str(bad)])
    assert result.exit_code == 2 and "record version" in result.output
    result = runner.invoke(cli_app, ["play", "--help"])
    assert "--resume" in result.output and "games/" in result.output


def out_after_the_first_round() -> Controller:
    """The person (seat 0, 190 points, a hand of 30) is out when Avi calls Yaniv at once; the
    others are near the limit too, so the game ends a few rounds later."""
    game = Game.from_position(
        RuleSet(),
        [["KS", "QS", "JS"], ["AH"], ["2C", "3C"]],
        ["4D", "5D", "6D"],
        [["9C"]],
        1,
        scores=[190, 120, 120],
        names=["Dana", "Avi", "Noa"],
        seed=7,
    )
    seats = [
        Seat("Dana"),
        Seat("Avi", "bot", level="easy", seed=1),
        Seat("Noa", "bot", level="easy", seed=2),
    ]
    options = Options(levels=("easy", "easy"), name="Dana", delay=0)
    return Controller(options, Table(RuleSet(), seats, game=game))


@pytest.mark.parametrize("key", ["r", "w"])
def test_a_person_who_is_out_skips_or_watches_to_the_result(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_screen, "WATCH_DELAY", 0.0)
    monkeypatch.setattr(table_screen, "WATCH_PAUSE", 0.0)

    async def main() -> None:
        controller = out_after_the_first_round()
        app = YanivApp(controller.options, controller=controller)
        rounds_shown = 0
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            assert isinstance(app.screen, RoundEndScreen) and app.screen.person_out
            keys = str(app.screen.query_one("#round-keys").render())
            assert "w: watch the rest at speed" in keys and "r: skip to the result" in keys
            await pilot.press(key)
            for _ in range(2000):  # no stop between rounds until the game is over
                await pilot.pause()
                if isinstance(app.screen, RoundEndScreen):
                    rounds_shown += 1
                    break
                await asyncio.sleep(0.01)
            assert controller.game.is_over, "the rest of the game was played"
            assert isinstance(app.screen, RoundEndScreen) and app.screen.over
            # Rounds after the first were played without a stop (history holds the dealt ones).
            assert len(controller.game.history) >= 2 and rounds_shown == 1

    asyncio.run(main())


def test_help_says_where_the_game_is_saved(tmp_path: Path) -> None:
    async def main() -> None:
        options = Options(levels=("easy",), name="Dana", seed=3, delay=0, data_dir=tmp_path)
        app = YanivApp(options, start=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            shown = " ".join(str(w.render()) for w in app.screen.query("Static"))
            controller = app.controller
            assert controller is not None and controller.record_path is not None
            assert str(controller.record_path.parent) in shown.replace("\n", "")

    asyncio.run(main())
