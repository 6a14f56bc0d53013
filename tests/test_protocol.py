"""The bot protocol: `yaniv bot LEVEL` over pipes, and external programs in the arena."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from yaniv import Game
from yaniv.arena import run_arena
from yaniv.moves import parse_move
from yaniv.rules import RuleSet

YANIV_BOT = [sys.executable, "-c", "from yaniv.cli import main; main()", "bot"]


def test_bot_command_answers_legal_moves() -> None:
    game = Game.new(RuleSet.preset("slapdown"), players=2, seed=4)
    lines = []
    views = []
    for _ in range(3):
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        views.append(view)
        lines.append(json.dumps({"view": view.to_dict()}))
        game.play(view.legal_moves[-1])
    proc = subprocess.run([*YANIV_BOT, "easy"], input="\n".join(lines) + "\nnot json\n",
                          capture_output=True, text=True, timeout=60)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == 4
    for view, answer in zip(views, answers, strict=False):
        assert parse_move(answer["move"]) in view.legal_moves
    assert "error" in answers[3]


def test_bot_command_refuses_an_unknown_level() -> None:
    proc = subprocess.run([*YANIV_BOT, "wizard"], input="", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0 and "unknown bot 'wizard'" in proc.stderr


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text("import sys, json, time\nfor line in sys.stdin:\n" + body)
    return f"cmd:{sys.executable} {path}"


def test_external_program_plays_through_the_protocol(tmp_path: Path) -> None:
    good = _script(tmp_path, "first", "    v = json.loads(line)['view']\n"
                   "    print(json.dumps({'move': v['legal_moves'][-1]}), flush=True)\n")
    report = run_arena([good, "easy"], 2, 2, RuleSet(), seed=1, time_limit=10)
    assert report["errors"] == []
    assert report["bots"][0]["games"] == 2 and report["bots"][0]["decisions"] > 0


def test_misbehaving_programs_lose_with_a_clear_error(tmp_path: Path) -> None:
    cases = {
        "garbage": ("    print('hello', flush=True)\n", "garbage"),
        "illegal": ("    print(json.dumps({'move': 'discard RJ BJ 5S'}), flush=True)\n",
                    "illegal move"),
        "sleeper": ("    time.sleep(30)\n", "no answer within"),
        "quitter": ("    sys.exit(0)\n", "exited"),
    }
    for name, (body, message) in cases.items():
        spec = _script(tmp_path, name, body)
        report = run_arena([spec, "easy"], 2, 2, RuleSet(), seed=1, time_limit=1.0)
        bad, easy = report["bots"]
        assert bad["wins"] == 0 and easy["wins"] == 2, name
        assert bad["errors"] == 2 and message in bad["error_messages"][0], (name, bad)
        assert all(e["bot"] == spec for e in report["errors"])


def test_a_program_that_cannot_start_is_reported(tmp_path: Path) -> None:
    report = run_arena([f"cmd:{tmp_path}/no-such-program", "easy"], 2, 2, RuleSet(), seed=1)
    assert report["bots"][0]["wins"] == 0 and "cannot start" in report["errors"][0]["error"]
