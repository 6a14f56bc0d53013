"""The arena's journal: a stopped run resumes, a longer run extends a shorter one, and a
journal that is not this run's is refused with words that say why."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from yaniv.arena import GameTask, play_game, run_arena
from yaniv.arena_journal import FORMAT
from yaniv.cli import app
from yaniv.errors import YanivError
from yaniv.rules import RuleSet

BOTS = ["easy", "random"]
RULES = RuleSet.preset("quick")


def _same_play(report: dict[str, Any]) -> dict[str, Any]:
    """The report less what a resumed run may measure differently (decision times) or says
    about its journal."""
    out = {k: v for k, v in report.items() if k != "journal_games"}
    out["bots"] = [{k: v for k, v in b.items() if k != "decision_ms"} for b in report["bots"]]
    return out


class Counting:
    """A runner that plays the games given in this process and remembers which they were;
    with ``stop_after``, it stops (as Ctrl-C would) after that many games."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.played: list[int] = []
        self.stop_after = stop_after

    def __call__(
        self, tasks: Sequence[GameTask], on_game: Callable[[dict[str, Any]], None] | None
    ) -> list[dict[str, Any]]:
        results = []
        for t in tasks:
            if self.stop_after is not None and len(self.played) == self.stop_after:
                raise KeyboardInterrupt
            r = play_game(t)
            self.played.append(t.index)
            results.append(r)
            if on_game:
                on_game(r)
        return results


def test_a_stopped_run_resumes_where_it_stopped_and_reports_as_if_never_stopped(
    tmp_path: Path,
) -> None:
    book = tmp_path / "games.jsonl"
    whole = run_arena(BOTS, 3, 9, RULES, seed=4)
    first = Counting(stop_after=4)
    with pytest.raises(KeyboardInterrupt):
        run_arena(BOTS, 3, 9, RULES, seed=4, runner=first, journal=book)
    lines = book.read_text().splitlines()
    assert json.loads(lines[0])["journal"] == FORMAT
    assert [json.loads(x)["index"] for x in lines[1:]] == [0, 1, 2, 3]

    second = Counting()
    seen: list[int] = []
    resumed = run_arena(
        BOTS, 3, 9, RULES, seed=4, runner=second, journal=book, on_game=lambda r: seen.append(1)
    )
    assert second.played == [4, 5, 6, 7, 8]  # only the games not in the journal
    assert len(seen) == 9  # the games read back are reported to on_game too
    assert resumed["journal_games"] == 4
    assert _same_play(resumed) == _same_play(whole)
    assert len(book.read_text().splitlines()) == 1 + 9


def test_a_longer_run_extends_a_shorter_ones_journal_and_a_shorter_run_reads_part_of_it(
    tmp_path: Path,
) -> None:
    book = tmp_path / "games.jsonl"
    run_arena(BOTS, 2, 4, RULES, seed=5, journal=book)
    longer = Counting()
    report = run_arena(BOTS, 2, 8, RULES, seed=5, runner=longer, journal=book)
    assert longer.played == [4, 5, 6, 7]
    assert _same_play(report) == _same_play(run_arena(BOTS, 2, 8, RULES, seed=5))

    shorter = Counting()
    report = run_arena(BOTS, 2, 6, RULES, seed=5, runner=shorter, journal=book)
    assert shorter.played == [] and report["journal_games"] == 6
    assert len(book.read_text().splitlines()) == 1 + 8  # the longer run's games stay


def test_a_last_line_cut_short_is_played_again(tmp_path: Path) -> None:
    book = tmp_path / "games.jsonl"
    run_arena(BOTS, 2, 4, RULES, seed=6, journal=book)
    text = book.read_text()
    book.write_text(text[: len(text) - 40])  # killed while writing game 3
    again = Counting()
    report = run_arena(BOTS, 2, 4, RULES, seed=6, runner=again, journal=book)
    assert again.played == [3]
    assert _same_play(report) == _same_play(run_arena(BOTS, 2, 4, RULES, seed=6))
    assert [json.loads(x).get("index") for x in book.read_text().splitlines()[1:]] == [0, 1, 2, 3]


def test_a_journal_without_its_last_newline_is_continued_on_a_line_of_its_own(
    tmp_path: Path,
) -> None:
    book = tmp_path / "games.jsonl"
    run_arena(BOTS, 2, 2, RULES, seed=6, journal=book)
    book.write_text(book.read_text().rstrip("\n"))
    run_arena(BOTS, 2, 4, RULES, seed=6, journal=book)
    lines = book.read_text().splitlines()
    assert [json.loads(x).get("index") for x in lines[1:]] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": 8}, "(seed: 7 in the journal, 8 in this run)"),
        (
            {"bots": ["easy", "medium"]},
            '(lineup: ["easy", "random"] in the journal, ["easy", "medium"]',
        ),
        ({"rules": RuleSet.preset("standard")}, "(rules: {"),
        ({"think_ms": 5.0}, "(think_ms: null in the journal, 5.0 in this run)"),
        ({"max_moves": 900}, "(max_moves: 5000 in the journal, 900 in this run)"),
    ],
)
def test_the_journal_of_another_run_is_refused_and_left_as_it_was(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    book = tmp_path / "games.jsonl"
    run_arena(BOTS, 2, 2, RULES, seed=7, journal=book)
    before = book.read_bytes()
    args: dict[str, Any] = {"bots": BOTS, "rules": RULES, "seed": 7, **change}
    bots, rules = args.pop("bots"), args.pop("rules")
    never = Counting(stop_after=0)
    with pytest.raises(YanivError, match="of another run") as err:
        run_arena(bots, 2, 4, rules, runner=never, journal=book, **args)
    assert message in str(err.value)
    assert book.read_bytes() == before


def _broken(tmp_path: Path, edit: Callable[[list[str]], None]) -> Path:
    book = tmp_path / "games.jsonl"
    run_arena(BOTS, 2, 4, RULES, seed=9, journal=book)
    lines = book.read_text().splitlines()
    edit(lines)
    book.write_text("\n".join(lines) + "\n")
    return book


def _set(lines: list[str], no: int, key: str, value: Any) -> None:
    game = json.loads(lines[no])
    game[key] = value
    lines[no] = json.dumps(game)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: lines.__setitem__(2, "{not json"), "line 3: not JSON"),
        (lambda lines: lines.__setitem__(2, "[1, 2]"), "line 3: not a game"),
        (lambda lines: _set(lines, 2, "index", -1), "line 3: no game number"),
        (lambda lines: _set(lines, 2, "entrants", [0, 1]), "game 1 does not fit this run"),
        (lambda lines: _set(lines, 2, "winners", [5]), "(winners)"),
        (lambda lines: _set(lines, 2, "scores", [1]), "(scores)"),
        (lambda lines: _set(lines, 2, "times", [["x"], []]), "(times)"),
        (lambda lines: _set(lines, 2, "capped", 0), "(capped)"),
        (lambda lines: lines.__setitem__(3, lines[2]), "line 4: game 1 is in it twice"),
        (lambda lines: lines.__setitem__(2, ""), "line 3: a blank line"),
        (lambda lines: lines.insert(0, ""), "not an arena journal"),
        (lambda lines: lines.__setitem__(0, '{"journal": "other"}'), "not an arena journal"),
    ],
)
def test_a_damaged_journal_is_refused_with_the_line_and_the_fault(
    tmp_path: Path, edit: Callable[[list[str]], None], message: str
) -> None:
    book = _broken(tmp_path, edit)
    before = book.read_bytes()
    with pytest.raises(YanivError) as err:
        run_arena(BOTS, 2, 4, RULES, seed=9, runner=Counting(stop_after=0), journal=book)
    assert message in str(err.value)
    assert book.read_bytes() == before


def test_cli_journal_resumes_and_prints_progress_lines_off_a_terminal(tmp_path: Path) -> None:
    book, out = tmp_path / "games.jsonl", tmp_path / "r.json"
    args = ["arena", "--bots", "easy,random", "--rules", "quick", "--seed", "3"]
    first = CliRunner().invoke(app, [*args, "--games", "4", "--journal", str(book)])
    assert first.exit_code == 0, first.output
    assert "games 4/4:" in first.output  # not a terminal: plain progress lines
    second = CliRunner().invoke(
        app, [*args, "--games", "6", "--journal", str(book), "--json", str(out)]
    )
    assert second.exit_code == 0, second.output
    report = json.loads(out.read_text())
    assert report["journal_games"] == 4 and report["games"] == 6
    assert len(book.read_text().splitlines()) == 1 + 6

    other = CliRunner().invoke(app, [*args, "--seed", "4", "--games", "6", "--journal", str(book)])
    assert other.exit_code == 2
    assert "of another run" in other.output and "Traceback" not in other.output


def test_games_played_by_worker_processes_are_journaled_as_they_come(tmp_path: Path) -> None:
    book = tmp_path / "games.jsonl"
    report = run_arena(BOTS, 2, 6, RULES, seed=2, jobs=2, journal=book)
    indices = [json.loads(x)["index"] for x in book.read_text().splitlines()[1:]]
    assert sorted(indices) == list(range(6))
    assert report["journal_games"] == 0
    assert _same_play(report) == _same_play(run_arena(BOTS, 2, 6, RULES, seed=2))


@pytest.mark.parametrize(
    "text",
    ["notes on the run", '{\n  "rules": {}\n}\n', '{"journal": "yaniv arena journal 1"'],
)
def test_another_programs_file_is_refused_and_never_cut(tmp_path: Path, text: str) -> None:
    book = tmp_path / "notes.txt"
    book.write_text(text)
    with pytest.raises(YanivError, match="is not an arena journal"):
        run_arena(BOTS, 2, 2, RULES, seed=1, runner=Counting(stop_after=0), journal=book)
    assert book.read_text() == text


def test_a_file_of_blanks_is_taken_as_a_new_journal(tmp_path: Path) -> None:
    book = tmp_path / "games.jsonl"
    book.write_text("\n \n")
    run_arena(BOTS, 2, 2, RULES, seed=1, journal=book)
    lines = book.read_text().splitlines()
    assert json.loads(lines[0])["journal"] == FORMAT and len(lines) == 1 + 2


def test_a_header_cut_short_is_written_again(tmp_path: Path) -> None:
    book = tmp_path / "games.jsonl"
    run_arena(BOTS, 2, 2, RULES, seed=1, journal=book)
    header = book.read_text().splitlines()[0]
    book.write_text(header[:30])  # killed while writing its first line
    again = Counting()
    run_arena(BOTS, 2, 2, RULES, seed=1, runner=again, journal=book)
    assert again.played == [0, 1]
    assert book.read_text().splitlines()[0] == header


def test_cli_refuses_one_file_for_the_report_and_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    result = CliRunner().invoke(
        app, ["arena", "--games", "2", "--json", str(path), "--journal", str(path)]
    )
    assert result.exit_code == 2
    assert "a file of its own" in result.output and not path.exists()
