"""Policies in the arena's process: ``--bot module:Name``, ``arena.evaluate`` and
``arena.compare``."""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from yaniv import RuleSet, arena
from yaniv.arena import compare, evaluate, load_policy, make_bot
from yaniv.bots.easy_bot import EasyBot
from yaniv.bots.medium_bot import MediumBot
from yaniv.cli import app
from yaniv.errors import YanivError

POLICIES = '''
import random

from yaniv.moves import DRAW_STOCK, YANIV, Discard

LOADS = [0]
LOADS[0] += 1  # a "model" loaded at import: once per process, however many games


def shed(view):
    """Yaniv when it may, else the discard worth most, then the stock."""
    legal = list(view.legal_moves)
    if YANIV in legal and view.hand_value <= view.rules.yaniv_threshold:
        return YANIV
    discards = [m for m in legal if isinstance(m, Discard)]
    if discards:
        return max(discards, key=lambda d: d.value)
    return DRAW_STOCK if DRAW_STOCK in legal else legal[0]


class Greedy:
    """Sheds greedily; seeded."""

    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def choose(self, view):
        return shed(view)


class Unseeded:
    def choose(self, view):
        return str(shed(view))  # move text is accepted too


def last_move(view):
    return shed(view)


def garbage(view):
    return 42


NOT_A_POLICY = 7


class Searching:
    """A searching bot of one's own: the master's class, given the run's budget."""

    def __init__(self, seed=None, think_ms=250.0):
        from yaniv.bots.master_bot import MasterBot

        self.think_ms = think_ms
        self.bot = MasterBot(seed, think_ms=think_ms)

    def choose(self, view):
        return self.bot.choose(view)
'''


@pytest.fixture
def policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module of policies on the Python path; its name."""
    name = f"arena_policies_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(POLICIES)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_the_command_line_seats_classes_and_functions(policies: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--bot", f"{policies}:Greedy",
            "--bot", f"{policies}:Unseeded",
            "--bot", f"{policies}:last_move",
            "--players", "3", "--games", "6", "--json", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["errors"] == [] and report["capped"] == 0
    assert [b["spec"] for b in report["bots"]] == [
        f"{policies}:Greedy",
        f"{policies}:Unseeded",
        f"{policies}:last_move",
    ]
    assert sum(b["wins"] for b in report["bots"]) >= 6  # every game has a winner
    assert sys.modules[policies].LOADS == [1]  # imported once for the six games


def test_bad_policies_are_refused_in_words(policies: str) -> None:
    for spec, words in [
        ("no_such_module_here:Bot", "cannot import no_such_module_here"),
        (f"{policies}:Missing", f"{policies} has no Missing"),
        (f"{policies}:NOT_A_POLICY", "neither a class with choose(view) nor a function"),
        ("bad spec:x", "a policy is module:Name"),
    ]:
        with pytest.raises(YanivError, match=re.escape(words)):
            arena.check_spec(spec)
    result = CliRunner().invoke(app, ["arena", "--bot", f"{policies}:Missing", "--bot", "easy"])
    assert result.exit_code == 2 and "has no Missing" in result.output
    assert load_policy(f"{policies}:Greedy").__name__ == "Greedy"
    bot = make_bot(f"{policies}:Greedy", 5, 10.0)
    assert bot.rng.random() == make_bot(f"{policies}:Greedy", 5, 10.0).rng.random()  # seed=


def test_a_policy_that_answers_no_move_loses_the_game_in_words(policies: str) -> None:
    report = arena.run_arena([f"{policies}:garbage", "easy"], players=2, games=2, rules=RuleSet())
    assert len(report["errors"]) == 2
    assert all("answered 42, which is not a move" in e["error"] for e in report["errors"])
    assert report["bots"][0]["wins"] == 0 and report["bots"][1]["wins"] == 2


def test_evaluate_measures_an_object_loaded_once() -> None:
    bot = MediumBot(seed=3)
    calls = [0]
    choose = bot.choose

    def counting(view: object) -> object:
        calls[0] += 1
        return choose(view)  # type: ignore[arg-type]

    bot.choose = counting  # type: ignore[method-assign, assignment]
    result = evaluate(bot, against=["random"], games=20, players=2, seed=4)
    assert result.games == 20 and result.errors == [] and result.capped == 0
    assert result.ci95[0] <= result.win_rate <= result.ci95[1]
    assert result.win_rate > 0.5  # medium beats random
    assert result.points_per_round >= 0 and "ordinal" in result.rating
    assert calls[0] > 20  # the very object played every game
    assert not arena._OBJECTS  # and is let go afterwards
    with pytest.raises(YanivError, match="is not a policy"):
        evaluate(42, against=["random"], games=2)


def test_compare_of_a_policy_with_itself_is_the_same_games() -> None:
    c = compare(MediumBot, MediumBot, against=["easy"], games=12, players=3, seed=5)
    assert c.difference == 0.0 and c.changed == 0 and c.deals == 4
    played = ("wins", "rounds", "mean_round_points", "yaniv_calls", "assafs", "decisions")
    for bot_a, bot_b in zip(c.a.report["bots"], c.b.report["bots"], strict=True):
        assert [bot_a[k] for k in played] == [bot_b[k] for k in played]
    assert c.ci95 == (0.0, 0.0)  # every deal's difference is 0
    assert not arena._OBJECTS


def test_compare_finds_the_stronger_policy_on_the_same_deals() -> None:
    c = compare(EasyBot, "random", against=["random"], games=40, players=2, seed=3)
    assert c.difference == pytest.approx(c.a.win_rate - c.b.win_rate)
    assert c.a.win_rate > 0.9 and c.b.win_rate < 0.8  # easy beats random, random does not
    assert 0 < c.ci95[0] <= c.difference <= c.ci95[1]
    assert c.changed > 0 and c.deals == 20
    # the same games in two processes: a game's seeds are its own
    forked = compare(EasyBot, "random", against=["random"], games=40, seed=3, jobs=2)
    assert (forked.difference, forked.ci95, forked.changed) == (c.difference, c.ci95, c.changed)
    assert (forked.a.wins, forked.b.wins) == (c.a.wins, c.b.wins)


class _Refuses:
    """A policy that must not be asked: every game it would play is in the journal."""

    def choose(self, view: object) -> object:
        raise AssertionError("a game in the journal was played again")


def test_evaluate_journals_an_object_under_its_name(tmp_path: Path) -> None:
    journal = tmp_path / "medium.jsonl"
    against_easy = functools.partial(evaluate, against=["easy"], seed=2)
    first = against_easy(MediumBot, games=6, journal=journal, name="medium-copy")
    assert not arena._OBJECTS
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["lineup"] == ["medium-copy", "easy"]
    # run again: every game is read back, none played (the policy would fail if asked)
    again = against_easy(_Refuses(), games=6, journal=journal, name="medium-copy")
    assert again.errors == []  # the arena would count a raise as the policy's error
    assert (again.wins, again.games, again.report["journal_games"]) == (first.wins, 6, 6)
    played = ("wins", "rounds", "mean_round_points", "yaniv_calls")
    assert [first.report["bots"][0][k] for k in played] == [
        again.report["bots"][0][k] for k in played
    ]
    # a longer run plays the games past the journal's only, the same as an unbroken run
    longer = against_easy(MediumBot, games=8, journal=journal, name="medium-copy")
    unbroken = against_easy(MediumBot, games=8)
    assert longer.report["journal_games"] == 6 and longer.wins == unbroken.wins
    # another name is another policy: its games are not these
    with pytest.raises(YanivError, match="of another run"):
        against_easy(MediumBot, games=6, journal=journal, name="other")
    assert len(journal.read_text().splitlines()) == 9  # the header and 8 games, unchanged
    assert not arena._OBJECTS


def test_a_journal_of_an_object_needs_a_name_and_a_name_is_a_word_not_taken(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "j.jsonl"
    with pytest.raises(YanivError, match=r"needs its name \(name=...\)"):
        evaluate(MediumBot, against=["easy"], games=2, journal=journal)
    with pytest.raises(YanivError, match="'master' is taken"):
        evaluate(MediumBot, against=["easy"], games=2, name="master")
    with pytest.raises(YanivError, match="a word of up to 100"):
        evaluate(MediumBot, against=["easy"], games=2, name="two words")
    with pytest.raises(YanivError, match="names a policy object, not a spec"):
        evaluate("medium", against=["easy"], games=2, name="medium-copy")
    assert not journal.exists() and not arena._OBJECTS
    # a spec is its own name: it journals without one
    e = evaluate("medium", against=["easy"], games=2, seed=3, journal=journal)
    assert e.report["bots"][0]["name"] == "medium" and journal.exists()


def test_compare_with_journals_reads_both_policies_games_back(tmp_path: Path) -> None:
    journals = (tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    on_the_journals = functools.partial(
        compare, against=["random"], games=12, seed=3, journals=journals, names=("easy-copy", None)
    )
    c = on_the_journals(EasyBot, "random")
    again = on_the_journals(_Refuses(), "random")
    assert (again.difference, again.ci95, again.changed) == (c.difference, c.ci95, c.changed)
    assert again.a.errors == [] and again.a.report["journal_games"] == 12
    assert again.b.report["journal_games"] == 12
    with pytest.raises(YanivError, match="journals are one file"):
        compare(EasyBot, "random", journals=(journals[0], journals[0]), names=("e", None))


PROGRAM = """
import json, sys
sys.path.insert(0, {folder!r})
from yaniv.view import PlayerView
import {module} as policies

for line in sys.stdin:
    message = json.loads(line)
    if "view" not in message:
        break
    view = PlayerView.from_dict(message["view"])
    print(json.dumps({{"move": str(policies.shed(view))}}), flush=True)
"""


def test_a_policy_in_process_plays_as_the_same_policy_through_a_program(
    policies: str, tmp_path: Path
) -> None:
    script = tmp_path / "program.py"
    script.write_text(PROGRAM.format(folder=str(tmp_path), module=policies))
    keys = ("games", "wins", "rounds", "mean_round_points", "yaniv_calls", "assafs")
    runs = []
    for spec in (f"{policies}:last_move", f"cmd:{sys.executable} {script}"):
        report = arena.run_arena([spec, "easy"], players=2, games=4, rules=RuleSet(), seed=8)
        assert report["errors"] == []
        runs.append([{k: b[k] for k in keys} for b in report["bots"]])
    assert runs[0] == runs[1]


def test_a_class_that_takes_a_budget_is_given_the_runs_think_ms(policies: str) -> None:
    spec = f"{policies}:Searching"
    assert make_bot(spec, 1, 10.0, think_ms=20.0).think_ms == 20.0
    assert make_bot(spec, 1, 10.0).think_ms == 250.0  # no budget given: its own
    mine = arena.run_arena([spec, "expert"], 2, 1, RuleSet(), seed=3, think_ms=20.0)
    level = arena.run_arena(["master", "expert"], 2, 1, RuleSet(), seed=3, think_ms=20.0)
    games = [
        [(g["scores"], g["moves"], g["rounds"]) for g in r["game_results"]] for r in (mine, level)
    ]
    assert games[0] == games[1]  # the master's very game: the same budget, the same seed
