"""The terminal game, played the way a person plays it: key presses through Textual's pilot."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from yaniv.cards import RANK, VALUE, parse_cards, sort_key
from yaniv.cli import app as cli_app
from yaniv.game import Phase
from yaniv.moves import SLAPS, YANIV, Discard, Draw, Move, Pass
from yaniv.rules import RuleSet
from yaniv.tui.app import YanivApp
from yaniv.tui.controller import Options, describe_turn, selection_move
from yaniv.tui.screens import (
    PILE_KEYS,
    HelpScreen,
    QuitScreen,
    RoundEndScreen,
    SetupScreen,
    TableScreen,
)
from yaniv.tui.widgets import CardWidget

SIZE = (120, 40)


#: With two easy opponents and the greedy keys below, the person calls Yaniv in round 1 (and
#: wins it with 6, on the fifth turn). Found by trying seeds; the snapshots use it too.
PERSON_CALLS_YANIV = 16
#: With the slapdown preset and one random opponent, the person draws KH onto a discarded KD
#: on the first turn: a slap window opens.
SLAP_ON_FIRST_TURN = 43
#: As above, the person draws TS onto a discarded TC on the second turn.
SLAP_ON_SECOND_TURN = 26


def make_app(tmp_path: Path, seed: int = 1, levels: tuple[str, ...] = ("easy", "easy"),
             rules: RuleSet | None = None, start: bool = True, delay: float = 0.0) -> YanivApp:
    """A deterministic app: fixed seed and names, no bot delay, records in a tmp dir."""
    options = Options(rules=rules or RuleSet(), levels=levels, name="Tester", seed=seed,
                      delay=delay, data_dir=tmp_path)
    return YanivApp(options, start=start)


def table(app: YanivApp) -> TableScreen:
    """The table screen under whatever is on top of it."""
    return next(s for s in app.screen_stack if isinstance(s, TableScreen))


async def settle(pilot: Any, app: YanivApp) -> None:
    """Wait until the person must act or the round-end screen is up."""
    for _ in range(400):
        await pilot.pause()
        if isinstance(app.screen, RoundEndScreen):
            return
        controller = app.controller
        if controller is not None and controller.human_to_act and isinstance(
                app.screen, TableScreen):
            await pilot.pause()
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the computer players never handed the turn back")


def text_of(widget: Any) -> str:
    """The plain text a Static shows."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def greedy_keys(app: YanivApp) -> list[str]:
    """The keys a simple player presses now: Yaniv when allowed, else shed the most points."""
    screen = table(app)
    view = screen.view
    if YANIV in view.legal_moves:
        return ["y"]
    discards = [m for m in view.legal_moves if isinstance(m, Discard)]
    if view.phase == Phase.START and not view.rules.draw_first:
        best = max(discards, key=lambda d: (sum(VALUE[c] for c in d.cards), len(d.cards)))
        hand = sorted(view.hand, key=sort_key)
        return [str(hand.index(c) + 1) for c in best.cards] + ["s"]
    if view.phase in (Phase.START, Phase.DRAW):
        return ["s"]
    if view.phase == Phase.DISCARD:
        best = max(discards, key=lambda d: sum(VALUE[c] for c in d.cards))
        hand = sorted(view.hand, key=sort_key)
        return [str(hand.index(c) + 1) for c in best.cards] + ["enter"]
    return ["p"]


# ----------------------------------------------------------------- the controller


def test_selection_finds_the_laid_order_of_a_run() -> None:
    from yaniv.game import Game

    game = Game.from_position(RuleSet(), [parse_cards("9H 7H KC 8H 2S"), parse_cards("KS QS")],
                              stock=parse_cards("3C 4C 5C"), discards=[parse_cards("AD")],
                              to_move=0)
    view = game.view(0)
    nine, seven, king, eight, two = parse_cards("9H 7H KC 8H 2S")
    move, reason = selection_move([], view)
    assert move is None and reason == "select cards to discard"
    # Selected in any order, a run is laid ascending.
    for selected in ([nine, seven, eight], [eight, nine, seven], [seven, eight, nine]):
        move, reason = selection_move(selected, view)
        assert move is not None and reason == "", selected
        assert move.cards == (seven, eight, nine)
        assert move in view.legal_moves
    move, reason = selection_move([king], view)
    assert move == Discard((king,)) and reason == ""
    move, reason = selection_move([king, two], view)
    assert move is None and "ranks differ" in reason


def test_selection_reasons_and_runs() -> None:
    from yaniv.game import Game

    game = Game.from_position(RuleSet(), [parse_cards("9H 7H RJ 8C 2S"), parse_cards("KS QS")],
                              stock=parse_cards("3C 4C 5C"), discards=[parse_cards("AD")],
                              to_move=0)
    view = game.view(0)
    nine, seven, joker, eight_c, two = parse_cards("9H 7H RJ 8C 2S")
    move, reason = selection_move([nine, seven, joker], view)
    assert move is not None and [RANK[c] for c in move.cards if c < 52] == [7, 9]
    assert move.cards[1] == joker  # the joker stands for 8H in the middle
    move, reason = selection_move([nine, eight_c], view)
    assert move is None and "suits differ" in reason
    move, reason = selection_move([nine, seven], view)
    assert move is None and "three cards" in reason


def test_describe_turn_in_plain_words() -> None:
    seven, eight, nine, four = parse_cards("7H 8H 9H 4C")
    moves: list[Move] = [Discard((seven, eight, nine)), Draw(four)]
    assert describe_turn("Dana", moves) == "Dana discards 7H 8H 9H and takes 4C from the pile"
    assert describe_turn("You", [Discard((seven,)), Draw(None)], you=True, drawn=four) == (
        "You discard 7H and draw 4C from the stock")


# ----------------------------------------------------------------- the pilot


def test_a_whole_round_by_key_presses(tmp_path: Path) -> None:
    """Play a seeded round by keys, checking the screen against the engine at each turn."""

    async def main() -> None:
        app = make_app(tmp_path, seed=PERSON_CALLS_YANIV)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            turns = 0
            while not isinstance(app.screen, RoundEndScreen):
                screen = table(app)
                controller = app.controller
                assert controller is not None
                view = controller.view()
                assert view.my_turn
                # What the screen shows is the engine's state.
                assert f"hand {view.hand_value}" in str(screen.query_one("#hand-box").border_title)
                assert "YOUR TURN" in text_of(screen.query_one("#status"))
                marked = list(screen.query(".card.-pickable").results(CardWidget))
                shown = [w.card for w in marked]
                assert sorted(c for c in shown if c is not None) == sorted(view.pickable)
                assert None not in shown
                assert [w.border_title for w in marked] == list(PILE_KEYS[:len(marked)])
                if view.can_yaniv:
                    assert "y: YANIV!" in text_of(screen.query_one("#status"))
                for key in greedy_keys(app):
                    await pilot.press(key)
                await settle(pilot, app)
                turns += 1
                assert turns < 60
            controller = app.controller
            assert controller is not None
            result = controller.game.result
            assert result is not None
            assert result.caller == 0, "this seed is chosen so that the person calls Yaniv"
            report = text_of(app.screen.query_one("#round-report"))
            assert "Yaniv!" in report and "Scores by round" in report
            for seat, name in enumerate(controller.names):
                assert name in report
                assert f"{result.scores[seat]} (+{result.points[seat]})" in report
            # The record is saved, in the engine's format.
            assert controller.record_path is not None
            saved = json.loads(controller.record_path.read_text())
            assert saved["format"] == "yaniv-record" and saved["rounds"][0]["result"]
            await pilot.press("enter")
            await settle(pilot, app)
            assert controller.game.round_no == 2
            assert "Round 2" in text_of(table(app).query_one("#log-text"))

    asyncio.run(main())


def test_illegal_selection_says_why(tmp_path: Path) -> None:
    async def main() -> None:
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            screen = table(app)
            hand = sorted(screen.view.hand, key=sort_key)
            # Two cards of different ranks are never a discard.
            pair = next(((i, j) for i in range(len(hand)) for j in range(i + 1, len(hand))
                         if RANK[hand[i]] != RANK[hand[j]] and hand[i] < 52 and hand[j] < 52),
                        None)
            assert pair is not None
            await pilot.press(str(pair[0] + 1), str(pair[1] + 1))
            assert "✗" in text_of(screen.query_one("#selection"))
            before = screen.controller.game.fingerprint()
            await pilot.press("s")
            assert screen.controller.game.fingerprint() == before
            assert "Discard first" in text_of(screen.query_one("#selection"))
            await pilot.press("escape", "1")
            assert "✓ a legal discard" in text_of(screen.query_one("#selection"))
            assert not screen.check_action("yaniv", ()) or screen.view.can_yaniv

    asyncio.run(main())


@pytest.mark.parametrize("preset, seed", [("draw_first", 11),
                                          ("slapdown", SLAP_ON_SECOND_TURN)])
def test_draw_first_and_slapdown_turns(tmp_path: Path, preset: str, seed: int) -> None:
    """Each variant's turn prompts are shown, and its turns are played in its order."""
    rules = RuleSet.preset(preset)

    async def main() -> None:
        app = make_app(tmp_path, seed=seed, levels=("random",), rules=rules)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            prompts: set[Phase] = set()
            for _ in range(5):
                if isinstance(app.screen, RoundEndScreen):
                    break
                screen = table(app)
                view = screen.view
                status = text_of(screen.query_one("#status"))
                if view.phase == Phase.DISCARD:
                    assert "now select cards to discard" in status
                elif view.phase == Phase.SLAP:
                    assert "slap it down" in status
                    assert screen.check_action("slap", ()) and screen.check_action("pass_slap", ())
                else:
                    assert view.phase == Phase.START
                    assert ("draw first" in status) == rules.draw_first
                prompts.add(view.phase)
                for key in greedy_keys(app):
                    await pilot.press(key)
                await settle(pilot, app)
            controller = app.controller
            assert controller is not None
            mine = [line.moves for line in controller.log if line.seat == 0 and line.done]
            assert mine, "the person played no whole turn"
            if rules.draw_first:
                assert {Phase.START, Phase.DISCARD} <= prompts
                # Every turn of the person's: a draw, then a discard.
                assert all(isinstance(moves[0], Draw) and isinstance(moves[1], Discard)
                           for moves in mine if moves[0] != YANIV)
            else:
                assert Phase.SLAP in prompts, "no slap window opened for the person"
                # The greedy keys keep the card (p): a discard, a draw, then the pass.
                assert any(isinstance(moves[-1], Pass) and isinstance(moves[1], Draw)
                           for moves in mine)
                assert any("then keep it" in line for line in controller.log_lines())

    asyncio.run(main())


def test_slapdown_prompt(tmp_path: Path) -> None:
    """This seed gives the person a stock card matching their discard: slap it with l."""

    async def main() -> None:
        app = make_app(tmp_path, seed=SLAP_ON_FIRST_TURN, levels=("random",),
                       rules=RuleSet.preset("slapdown"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            for _ in range(5):
                if table(app).view.phase == Phase.SLAP:
                    break
                for key in greedy_keys(app):
                    await pilot.press(key)
                await settle(pilot, app)
            screen = table(app)
            assert screen.view.phase == Phase.SLAP
            assert "slap it down" in text_of(screen.query_one("#status"))
            assert screen.check_action("slap", ()) and not screen.check_action("yaniv", ())
            drawn = screen.view.drawn
            assert drawn is not None
            await pilot.press("l")
            await settle(pilot, app)
            controller = app.controller
            assert controller is not None
            assert (0, SLAPS[drawn]) in controller.game.moves
            assert drawn not in controller.view().hand
            assert "then slap down" in text_of(table(app).query_one("#log-text"))

    asyncio.run(main())


def test_mouse_selects_and_draws(tmp_path: Path) -> None:
    async def main() -> None:
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            screen = table(app)
            hand = screen.hand
            await pilot.click("#hand CardWidget")
            assert screen.selected == [hand[0]]
            assert screen.query_one("#hand CardWidget").has_class("-selected")
            before = len(screen.view.hand)
            await pilot.click("#stock")
            await settle(pilot, app)
            controller = app.controller
            assert controller is not None
            assert len(controller.view().hand) == before  # one card out, one card in
            assert any(line.seat == 0 for line in controller.log)

    asyncio.run(main())


def test_game_over_then_a_new_game(tmp_path: Path) -> None:
    """With a score limit of 1 the first round ends the game; Enter goes back to the setup."""

    async def main() -> None:
        app = make_app(tmp_path, levels=("easy",), rules=RuleSet(score_limit=1))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            while not isinstance(app.screen, RoundEndScreen):
                for key in greedy_keys(app):
                    await pilot.press(key)
                await settle(pilot, app)
            report = text_of(app.screen.query_one("#round-report"))
            assert "GAME OVER" in report
            assert "yaniv replay" in text_of(app.screen.query_one("#round-keys"))
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, SetupScreen)

    asyncio.run(main())


def test_the_table_waits_while_help_is_open(tmp_path: Path) -> None:
    async def main() -> None:
        app = make_app(tmp_path, delay=0.5)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            for key in greedy_keys(app):
                await pilot.press(key)
            await pilot.press("question_mark")
            controller = app.controller
            assert controller is not None and not controller.human_to_act
            moves = len(controller.game.moves)
            await pilot.pause(0.8)
            assert isinstance(app.screen, HelpScreen)
            assert len(controller.game.moves) == moves, "the computer waits behind the help"
            await pilot.press("escape")
            await settle(pilot, app)
            assert len(controller.game.moves) > moves

    asyncio.run(main())


def test_help_quit_and_too_small(tmp_path: Path) -> None:
    async def main() -> None:
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app)
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            assert isinstance(app.screen, TableScreen)
            await pilot.press("h")
            assert table(app).query_one("#coach").display
            await pilot.press("q")
            assert isinstance(app.screen, QuitScreen)
            await pilot.press("n")
            assert isinstance(app.screen, TableScreen)
            await pilot.resize_terminal(60, 20)
            await pilot.pause()
            assert table(app).has_class("-small")
            assert "too small" in text_of(table(app).query_one("#too-small"))
            await pilot.resize_terminal(*SIZE)
            await pilot.pause()
            assert not table(app).has_class("-small")
            await pilot.press("q", "y")
            await pilot.pause()
        assert list(tmp_path.glob("games/*.json")), "quitting saves the game so far"

    asyncio.run(main())


def test_setup_screen_enter_starts_a_standard_game(tmp_path: Path) -> None:
    async def main() -> None:
        app = YanivApp(Options(levels=("medium",) * 3, data_dir=tmp_path, delay=0), start=False)
        async with app.run_test(size=SIZE) as pilot:
            assert isinstance(app.screen, SetupScreen)
            await pilot.press("enter")
            await pilot.pause()
            controller = app.controller
            assert controller is not None
            assert controller.game.n == 4 and controller.game.rules == RuleSet()
            assert set(controller.levels.values()) == {"medium"}

    asyncio.run(main())


def test_setup_screen_refuses_a_bad_option(tmp_path: Path) -> None:
    async def main() -> None:
        app = YanivApp(Options(levels=("easy",), data_dir=tmp_path, delay=0), start=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, SetupScreen)
            screen.query_one("#options").value = "yaniv_threshold=lots"  # type: ignore[attr-defined]
            await pilot.pause()
            screen.start()
            await pilot.pause()
            assert isinstance(app.screen, SetupScreen)
            assert "yaniv_threshold" in text_of(screen.query_one("#setup-error"))
            screen.query_one("#options").value = "yaniv_threshold=5"  # type: ignore[attr-defined]
            await pilot.pause()
            screen.start()
            await pilot.pause()
            controller = app.controller
            assert controller is not None and controller.game.rules.yaniv_threshold == 5

    asyncio.run(main())


@pytest.mark.parametrize("args, words", [
    (["--option", "bogus=1"], "bogus"),
    (["--option", "yaniv_threshold"], "KEY=VALUE"),
    (["--level", "grandmaster"], "grandmaster"),
    (["--rules", "nope"], "nope"),
    (["--opponents", "9"], "less than or equal to 7"),
])
def test_bad_flags_give_clear_errors(args: list[str], words: str) -> None:
    result = CliRunner().invoke(cli_app, ["play", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert words in result.output


def test_flags_make_the_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[Options] = []
    monkeypatch.setattr(YanivApp, "run", lambda self, *a, **k: seen.append(self.options))
    result = CliRunner().invoke(cli_app, [
        "play", "--opponents", "2", "--level", "easy", "--rules", "hebrew",
        "--option", "yaniv_threshold=5", "--seed", "5", "--name", "Dana",
        "--delay", "0", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (options,) = seen
    assert options.levels == ("easy", "easy") and options.seed == 5 and options.name == "Dana"
    assert options.rules == RuleSet.preset("hebrew", yaniv_threshold=5)
    assert options.data_dir == tmp_path and options.delay == 0


# ----------------------------------------------------------------- snapshots


def _snap_app(tmp_path: Path) -> YanivApp:
    return make_app(tmp_path, seed=PERSON_CALLS_YANIV, levels=("easy", "easy"))


def test_snapshot_table(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("1")

    assert snap_compare(_snap_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_snapshot_round_end(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await settle(pilot, app)
        while not isinstance(app.screen, RoundEndScreen):
            for key in greedy_keys(app):
                await pilot.press(key)
            await settle(pilot, app)

    assert snap_compare(_snap_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_snapshot_help(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("question_mark")

    assert snap_compare(_snap_app(tmp_path), terminal_size=SIZE, run_before=run_before)
