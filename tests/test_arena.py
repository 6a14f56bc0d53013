"""The arena: reports, statistics, duplicate deals, bad input."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from yaniv.arena import (
    MAX_MOVES,
    GameTask,
    calibration_table,
    deal_for,
    deal_interval,
    lineup_for,
    percentile,
    play_game,
    run_arena,
    wilson,
)
from yaniv.arena_cli import bot_specs, print_report, short_name
from yaniv.bots import BOTS
from yaniv.cli import app
from yaniv.errors import YanivError
from yaniv.moves import Discard, Draw, Move, Yaniv
from yaniv.rules import RuleSet
from yaniv.view import PlayerView


def test_wilson_interval_matches_the_formula() -> None:
    lo, hi = wilson(60, 100)
    z = 1.959964
    p, n = 0.6, 100
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert lo == pytest.approx(centre - half) and hi == pytest.approx(centre + half)
    assert (round(lo, 4), round(hi, 4)) == (0.5020, 0.6906)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile_and_calibration_table() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile([], 0.99) == 0.0
    rows = calibration_table([(0.95, True), (0.91, False), (0.15, False), (1.0, True)])
    assert rows[9]["calls"] == 3 and rows[9]["observed"] == pytest.approx(2 / 3)
    assert rows[1]["calls"] == 1 and rows[0]["calls"] == 0


def test_lineup_fills_with_the_last_bot() -> None:
    assert lineup_for(["expert", "medium"], 4) == ("expert", "medium", "medium", "medium")
    with pytest.raises(YanivError):
        lineup_for(["a", "b", "c"], 2)


def test_duplicate_deals_are_identical_across_rotations() -> None:
    a = deal_for(RuleSet(), [False, False], 3, 42, 1)
    b = deal_for(RuleSet(), [False, False], 3, 42, 1)
    c = deal_for(RuleSet(), [False, False], 4, 42, 1)
    assert a == b and a != c


def test_small_arena_report_has_the_required_keys() -> None:
    report = run_arena(["easy", "random"], 2, 6, RuleSet(), seed=3, calibration=True)
    assert report["games"] == 6
    names = [b["name"] for b in report["bots"]]
    assert names == ["easy", "random"]
    for b in report["bots"]:
        for key in (
            "name",
            "games",
            "wins",
            "win_rate",
            "ci95",
            "decision_ms",
            "rating",
            "mean_round_points",
            "assaf_rate",
        ):
            assert key in b
        assert b["games"] == 6
        assert set(b["decision_ms"]) >= {"median", "p99"}
        assert b["ci95"] == list(wilson(b["wins"], b["games"]))
    assert sum(b["wins"] for b in report["bots"]) >= 6  # every game has a winner
    assert len(report["calibration"]) == 10
    assert report["errors"] == []
    assert report["capped"] == 0 and report["capped_games"] == []
    assert report["max_moves"] == MAX_MOVES


def test_the_interval_over_deals_is_the_normal_interval_of_deal_totals() -> None:
    # deals of 2 games each, won 2, 0, 2, 0 of them: a rate of one half; the deals' totals
    # have mean 1 and variance 4/3
    lo, hi = deal_interval([2, 0, 2, 0], 8)
    half = 1.959964 * math.sqrt(4 / 3 * 4) / 8
    assert (lo, hi) == pytest.approx((0.5 - half, 0.5 + half))
    # the same wins spread over four games a deal instead of two: half the deals, wider
    assert deal_interval([4, 0], 8)[1] - deal_interval([4, 0], 8)[0] > hi - lo
    assert deal_interval([1], 2) == (-math.inf, math.inf)  # one deal: no spread to measure
    assert deal_interval([], 0) == (-math.inf, math.inf)


def test_the_report_keeps_every_game_and_each_entrants_interval_over_deals() -> None:
    players, games = 3, 20  # the last deal has two games, not three
    report = run_arena(["medium", "easy", "random"], players, games, RuleSet(), seed=4)
    results = report["game_results"]
    assert [r["game"] for r in results] == list(range(games))
    names = [b["name"] for b in report["bots"]]
    for r in results:
        assert r["deal"] == r["game"] // players
        assert sorted(r["seats"]) == sorted(names)  # every entrant seated once a game
        assert set(r["winners"]) <= set(names) and r["winners"]
        assert r["rounds"] >= 1 and r["moves"] >= r["rounds"] and not r["capped"]
        assert len(r["scores"]) == players
    for r in results[:players]:  # a deal's rotations move the entrants round the table
        assert r["seats"] == names[r["game"] :] + names[: r["game"]]
    for b in report["bots"]:
        assert b["wins"] == sum(b["name"] in r["winners"] for r in results)
        per_deal = [0] * 7
        for r in results:
            per_deal[r["deal"]] += b["name"] in r["winners"]
        assert b["deals"] == 7
        lo, hi = deal_interval(per_deal, games)
        if lo == hi:  # every deal went alike (random never wins): no interval
            assert b["ci95_deals"] is None
            continue
        assert b["ci95_deals"] == pytest.approx([max(0.0, lo), min(1.0, hi)])
        assert b["ci95_deals"][0] <= b["win_rate"] <= b["ci95_deals"][1]
    assert report["bots"][0]["ci95_deals"] is not None  # medium's deals differ
    json.dumps(report, allow_nan=False)  # standard JSON: no infinite bound


def test_no_interval_over_deals_from_one_deal_or_deals_that_went_alike() -> None:
    one = run_arena(["medium", "easy"], 2, 2, RuleSet(), seed=3)
    assert [b["deals"] for b in one["bots"]] == [1, 1]
    assert [b["ci95_deals"] for b in one["bots"]] == [None, None]
    report = run_arena(["medium", "random"], 2, 6, RuleSet(), seed=3)
    for b in report["bots"]:
        won = [
            sum(b["name"] in r["winners"] for r in report["game_results"] if r["deal"] == d)
            for d in range(3)
        ]
        assert (b["ci95_deals"] is None) == (len(set(won)) == 1)


def test_arena_is_deterministic_for_a_seed() -> None:
    def wins(seed: int) -> list[int]:
        r = run_arena(["medium", "easy"], 2, 4, RuleSet.preset("slapdown"), seed=seed)
        return [b["wins"] for b in r["bots"]]

    assert wins(8) == wins(8)


def test_parallel_jobs_give_the_same_report() -> None:
    one = run_arena(["easy", "random"], 3, 6, RuleSet(), seed=2, jobs=1)
    two = run_arena(["easy", "random"], 3, 6, RuleSet(), seed=2, jobs=2)
    assert [b["wins"] for b in one["bots"]] == [b["wins"] for b in two["bots"]]


def test_a_runner_playing_out_of_order_gives_the_same_report() -> None:
    def backwards(
        tasks: Sequence[GameTask], on_game: Callable[[dict[str, Any]], None] | None
    ) -> list[dict[str, Any]]:
        return [play_game(t) for t in reversed(tasks)]

    one = run_arena(["easy", "random"], 3, 6, RuleSet(), seed=2)
    two = run_arena(["easy", "random"], 3, 6, RuleSet(), seed=2, runner=backwards)
    for report in (one, two):
        for b in report["bots"]:
            del b["decision_ms"]
    assert one == two


def test_a_runner_that_loses_games_or_comes_with_jobs_is_refused() -> None:
    def lossy(
        tasks: Sequence[GameTask], on_game: Callable[[dict[str, Any]], None] | None
    ) -> list[dict[str, Any]]:
        return [play_game(t) for t in tasks[1:]]

    with pytest.raises(YanivError, match="5 games' results for 6 games"):
        run_arena(["easy", "random"], 2, 6, RuleSet(), runner=lossy)
    with pytest.raises(YanivError, match="choose one"):
        run_arena(["easy", "random"], 2, 6, RuleSet(), jobs=2, runner=lossy)


def test_cli_arena_writes_json_and_plot(tmp_path: Path) -> None:
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--bots",
            "easy,random",
            "--games",
            "4",
            "--rules",
            "quick",
            "-o",
            "draw_first=true",
            "--json",
            str(out),
            "--plot",
            str(png),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["rules"]["draw_first"] is True and report["rules"]["yaniv_threshold"] == 5
    assert png.stat().st_size > 1000
    assert "win rate" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "easy,wizard"], "unknown bot 'wizard'"),
        (["--bots", "easy", "-o", "pickup=sideways"], "pickup"),
        (["--bots", "easy", "-o", "nonsense"], "KEY=VALUE"),
        (["--bots", "easy", "--players", "9"], "9 players"),
    ],
)
def test_cli_arena_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["arena", "--games", "1", *args])
    assert result.exit_code != 0
    assert message in result.output


# ----------------------------------------------------------------- the move cap


class Cycler:
    """Never calls Yaniv; takes back the card just discarded before it whenever it may.

    Two of them pass the same cards to and fro for ever: no stock draw, no hand shrinks.
    """

    name = "cycler"

    def choose(self, view: PlayerView) -> Move:
        moves = [m for m in view.legal_moves if not isinstance(m, Yaniv)]
        for m in moves:
            if isinstance(m, Draw) and m.card is not None:
                return m
        singles = [m for m in moves if isinstance(m, Discard) and len(m.cards) == 1]
        return (singles or moves)[0]


@pytest.fixture
def cycler(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(BOTS, "cycler", lambda _seed: Cycler())
    return "cycler"


def test_max_moves_is_a_generous_named_cap() -> None:
    assert MAX_MOVES == 5_000
    assert GameTask(0, ("easy", "easy"), RuleSet(), 1).max_moves == MAX_MOVES


def test_a_game_that_cycles_forever_is_capped_at_max_moves(cycler: str) -> None:
    t0 = time.perf_counter()
    r = play_game(GameTask(0, (cycler, cycler), RuleSet(), 5))
    assert time.perf_counter() - t0 < 10
    assert r["capped"] is True and r["moves"] == MAX_MOVES
    assert r["winners"] == [] and r["errors"] == []
    assert r["rounds"] == 0  # the cycle never ended the first round


def test_capped_games_are_reported_and_won_by_no_one(cycler: str) -> None:
    report = run_arena([cycler], 2, 3, RuleSet(), seed=2, max_moves=300)
    assert report["capped"] == 3 and report["capped_games"] == [0, 1, 2]
    assert report["max_moves"] == 300
    assert "capped game is a win for no one" in report["wins_counting"]
    assert [b["name"] for b in report["bots"]] == [f"{cycler}#1", f"{cycler}#2"]
    for bot in report["bots"]:
        assert bot["games"] == 3 and bot["wins"] == 0 and bot["capped"] == 3
    assert report["errors"] == []


def test_a_cycling_bot_against_a_finisher_is_only_capped_when_unfinished(cycler: str) -> None:
    report = run_arena([cycler, "easy"], 2, 4, RuleSet(), seed=2, max_moves=2_000)
    assert report["capped"] == 0  # easy calls Yaniv: every game ends
    assert sum(b["wins"] for b in report["bots"]) >= 4


def _marker_bot(tmp_path: Path) -> tuple[str, Path]:
    """A program seat that leaves a file behind when started: proof that a game ran."""
    marker = tmp_path / "started"
    script = tmp_path / "marker.py"
    script.write_text(
        f"open({str(marker)!r}, 'w').close()\nimport sys\nfor _ in sys.stdin:\n"
        '    print(\'{"move": "yaniv"}\', flush=True)\n'
    )
    return f"cmd:{sys.executable} {script}", marker


def _flat(output: str) -> str:
    """CLI output with Rich's panel borders and line wrapping taken out."""
    return " ".join(output.replace("\u2502", " ").split())


def test_cli_reports_capped_games_in_the_table_and_json(tmp_path: Path) -> None:
    script = tmp_path / "cycle.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    moves = [m for m in json.loads(line)['view']['legal_moves'] if m != 'yaniv']\n"
        "    draws = [m for m in moves if m.startswith('draw ') and m != 'draw stock']\n"
        "    singles = [m for m in moves if m.startswith('discard') and len(m.split()) == 2]\n"
        "    print(json.dumps({'move': (draws or singles or moves)[0]}), flush=True)\n"
    )
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--bots",
            f"cmd:{sys.executable} {script}",
            "--games",
            "2",
            "--max-moves",
            "120",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["capped"] == 2 and report["max_moves"] == 120
    assert len(report["bots"]) == 2  # the program fills both seats: two entrants
    assert all(b["wins"] == 0 and b["capped"] == 2 for b in report["bots"])
    assert "capped (stopped after 120 moves, a win for no one): 2 games" in _flat(result.output)


@pytest.mark.parametrize("value", ["0", "-3", "1.5"])
def test_cli_refuses_a_bad_max_moves(value: str) -> None:
    result = CliRunner().invoke(app, ["arena", "--games", "1", f"--max-moves={value}"])
    assert result.exit_code == 2
    assert "--max-moves" in _flat(result.output)


# ----------------------------------------------------------------- settings checked first


@pytest.mark.parametrize(
    ("option", "name", "message"),
    [
        ("--json", "missing/r.json", "does not exist"),
        ("--json", ".", "is a directory"),
        ("--journal", "missing/g.jsonl", "does not exist"),
        ("--journal", ".", "is a directory"),
        ("--plot", "missing/r.png", "does not exist"),
        ("--plot", ".", "is a directory"),
        ("--plot", "r.nosuchformat", "unknown image format"),
    ],
)
def test_cli_refuses_an_unwritable_output_before_any_game(
    tmp_path: Path, option: str, name: str, message: str
) -> None:
    spec, marker = _marker_bot(tmp_path)
    path = tmp_path / name
    result = CliRunner().invoke(app, ["arena", "--bots", spec, "--games", "2", option, str(path)])
    assert result.exit_code == 2, result.output
    text = _flat(result.output)
    assert option in text and message in text
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert not marker.exists()  # refused before a single game was played


def test_cli_marker_bot_does_start_when_the_outputs_are_fine(tmp_path: Path) -> None:
    spec, marker = _marker_bot(tmp_path)
    result = CliRunner().invoke(
        app, ["arena", "--bots", f"{spec},easy", "--games", "1", "--json", str(tmp_path / "r.json")]
    )
    assert result.exit_code == 0, result.output
    assert marker.exists() and (tmp_path / "r.json").exists()


@pytest.mark.parametrize("value", ["-1", "0", "inf", "-inf", "nan"])
def test_cli_refuses_a_time_limit_that_is_not_positive_and_finite(
    tmp_path: Path, value: str
) -> None:
    spec, marker = _marker_bot(tmp_path)
    result = CliRunner().invoke(
        app, ["arena", "--bots", f"{spec},easy", "--games", "1", "--time-limit", value]
    )
    assert result.exit_code == 2, result.output
    text = _flat(result.output)
    assert "--time-limit" in text and "positive, finite number of seconds" in text
    assert "Traceback" not in result.output
    assert not marker.exists()


@pytest.mark.parametrize("value", [-1.0, 0.0, math.inf, math.nan])
def test_run_arena_refuses_a_time_limit_that_is_not_positive_and_finite(value: float) -> None:
    with pytest.raises(YanivError, match="--time-limit"):
        run_arena(["easy"], 2, 1, RuleSet(), time_limit=value)


# ----------------------------------------------------------------- entrants, names, --bot


def test_two_identical_specs_get_rows_of_their_own() -> None:
    report = run_arena(["easy", "easy"], 2, 4, RuleSet(), seed=3)
    rows = report["bots"]
    assert [b["name"] for b in rows] == ["easy#1", "easy#2"]
    assert [b["spec"] for b in rows] == ["easy", "easy"]
    assert all(b["games"] == 4 for b in rows)  # each entrant counted once per game
    assert sum(b["wins"] for b in rows) >= 4


def test_seats_filled_by_the_last_bot_are_entrants_of_their_own() -> None:
    report = run_arena(["easy", "random"], 3, 3, RuleSet(), seed=2)
    assert [b["name"] for b in report["bots"]] == ["easy", "random#1", "random#2"]
    assert [b["games"] for b in report["bots"]] == [3, 3, 3]


def test_cli_table_shows_identical_specs_on_separate_rows() -> None:
    result = CliRunner().invoke(app, ["arena", "--bots", "easy,easy", "--games", "2"])
    assert result.exit_code == 0, result.output
    text = _flat(result.output)
    assert "easy#1 2" in text and "easy#2 2" in text  # name, then games


def test_cli_table_shows_a_long_command_by_its_program_and_script(tmp_path: Path) -> None:
    deep = tmp_path / "a-rather-long-directory-name" / "and-another-one-below-it"
    deep.mkdir(parents=True)
    script = deep / "long_named_bot.py"
    script.write_text(
        "import json, sys\nfor line in sys.stdin:\n"
        "    v = json.loads(line)['view']\n"
        "    print(json.dumps({'move': v['legal_moves'][-1]}), flush=True)\n"
    )
    # The program under a short name of its own, so the table's width depends on nothing of
    # this machine (a venv's python3.11, a long interpreter path): the script needs only the
    # standard library, which a link to the interpreter outside its venv still has.
    program = tmp_path / "py"
    program.symlink_to(sys.executable)
    spec = f"cmd:{program} {script} --depth 3"
    assert len(spec) > 100
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        app, ["arena", "--bot", spec, "--bot", "easy", "--games", "2", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    shown = "cmd:py long_named_bot.py --depth 3"
    assert short_name(spec) == shown
    table = result.output[result.output.index("Arena:") :]
    lines = [
        line.split("\u2502")[1].strip() for line in table.splitlines() if line.startswith("\u2502")
    ]  # the bot column, wrapped on up to two lines
    assert " ".join(lines[: lines.index("easy")]) == shown
    assert "a-rather-long-directory-name" not in result.output
    report = json.loads(out.read_text())
    assert report["bots"][0]["name"] == spec and report["lineup"][0] == spec  # whole in JSON


def test_short_name_cuts_long_arguments_in_the_middle() -> None:
    spec = "cmd:/usr/bin/node bot.js " + " ".join(f"--opt{i} {i}" for i in range(20))
    shown = short_name(spec, 40)
    assert len(shown) == 40
    assert shown.startswith("cmd:node bot.js --opt0 0") and shown.endswith("--opt19 19")
    assert "\u2026" in shown
    assert short_name("expert") == "expert"


def test_repeated_bot_option_takes_a_command_with_a_comma(tmp_path: Path) -> None:
    script = tmp_path / "my bot.py"
    argv_file = tmp_path / "argv.json"
    script.write_text(
        "import json, sys\n"
        f"json.dump(sys.argv[1:], open({str(argv_file)!r}, 'w'))\n"
        "for line in sys.stdin:\n"
        "    v = json.loads(line)['view']\n"
        "    print(json.dumps({'move': v['legal_moves'][-1]}), flush=True)\n"
    )
    spec = f'cmd:{sys.executable} "{script}" --x 1,2'
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        app, ["arena", "--bot", "easy", "--bot", spec, "--games", "2", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["lineup"] == ["easy", spec] and report["errors"] == []
    assert json.loads(argv_file.read_text()) == ["--x", "1,2"]  # one argument, comma kept


def test_bots_and_repeated_bot_combine_bots_first() -> None:
    assert bot_specs("expert, medium", ["cmd:x --y 1,2", "easy"]) == [
        "expert",
        "medium",
        "cmd:x --y 1,2",
        "easy",
    ]
    assert bot_specs(None, ["cmd:a,b"]) == ["cmd:a,b"]
    assert bot_specs("easy,random", None) == ["easy", "random"]
    assert bot_specs(None, None) == ["medium", "easy"]


def test_cli_bots_and_bot_given_together_make_one_lineup(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--bot",
            "random",
            "--bots",
            "easy",
            "--players",
            "2",
            "--games",
            "2",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["lineup"] == ["easy", "random"]


# ----------------------------------------------------------------- matplotlib is an extra


def test_arena_module_imports_no_presentation_library() -> None:
    code = (
        "import sys, yaniv.arena, yaniv.protocol\n"
        "bad = [m for m in ('rich', 'typer', 'matplotlib') if m in sys.modules]\n"
        "print(bad)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_plot_without_matplotlib_names_the_extra_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    spec, marker = _marker_bot(tmp_path)
    result = CliRunner().invoke(
        app, ["arena", "--bots", f"{spec},easy", "--games", "1", "--plot", str(tmp_path / "r.png")]
    )
    assert result.exit_code == 2, result.output
    assert "pip install 'yaniv[plot]'" in _flat(result.output)
    assert "Traceback" not in result.output
    assert not marker.exists()  # refused before a single game was played
    assert not (tmp_path / "r.png").exists()


def test_the_table_shows_each_entrants_interval_over_deals_beside_wilsons() -> None:
    report = run_arena(["medium", "easy"], 2, 16, RuleSet(), seed=3)
    report["bots"][1]["ci95_deals"] = None  # as from a single deal: shown as a dash
    console = Console(record=True, width=140)
    print_report(report, console)
    lines = console.export_text().splitlines()
    assert any("95% CI deals" in line for line in lines)
    medium = next(line for line in lines if "│ medium" in line)
    easy = next(line for line in lines if "│ easy" in line)
    lo, hi = report["bots"][0]["ci95_deals"]
    wilson_lo, wilson_hi = report["bots"][0]["ci95"]
    cells = [c.strip() for c in medium.split("│")]
    assert cells[5:7] == [f"{wilson_lo:.0%}-{wilson_hi:.0%}", f"{lo:.0%}-{hi:.0%}"]
    assert [c.strip() for c in easy.split("│")][6] == "-"
