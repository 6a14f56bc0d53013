"""The bot protocol's results: a program that asks for them is told every round's end."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from yaniv.arena import run_arena
from yaniv.protocol import answer_request, serve
from yaniv.rules import RuleSet

NODE = shutil.which("node")

# A bot in another language, from docs/bot-protocol.md alone: it asks for results in its
# first answer and writes down every round's end it is told.
NODE_BOT = r"""
const fs = require("fs");
const readline = require("readline");
const log = process.argv[2];
let first = true;
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.round_over) {
    const v = msg.round_over;
    fs.appendFileSync(log, JSON.stringify({ phase: v.phase, round: v.round, scores: v.scores,
      result: v.result, winners: v.winners, legal: v.legal_moves.length,
      names: v.names }) + "\n");
    return;
  }
  if (!msg.view) { process.exit(0); }
  const moves = msg.view.legal_moves;
  let move = moves.includes("yaniv") ? "yaniv" : null;
  if (!move) {
    const discards = moves.filter((m) => m.startsWith("discard "));
    discards.sort((a, b) => b.split(" ").length - a.split(" ").length);
    move = discards[0] || (moves.includes("draw stock") ? "draw stock" : moves[0]);
  }
  const answer = { move };
  if (first) { answer.features = ["results", "telepathy"]; first = false; }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


@pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="no node")
def test_a_program_that_asks_is_told_each_round_and_the_game(tmp_path: Path) -> None:
    assert NODE is not None, "CI needs Node.js"
    script = tmp_path / "bot.js"
    script.write_text(NODE_BOT)
    log = tmp_path / "told.jsonl"
    report = run_arena(
        [f"cmd:{NODE} {script} {log}", "easy"],
        players=2,
        games=2,
        rules=RuleSet(score_limit=40),
        seed=3,
    )
    assert report["errors"] == [] and report["capped"] == 0
    told = [json.loads(line) for line in log.read_text().splitlines()]
    ends = [t for t in told if t["phase"] == "game_over"]
    assert len(ends) == 2  # one game over per game played
    assert all(t["legal"] == 0 and t["result"] is not None for t in told)
    assert all(t["phase"] in ("round_over", "game_over") for t in told)
    assert all(t["winners"] for t in ends) and not any(
        t["winners"] for t in told if t["phase"] == "round_over"
    )
    # Seats are named by short names, not the whole command lines with their paths.
    assert all(not any("/" in name for name in t["names"]) for t in told)
    assert {n for t in told for n in t["names"]} == {f"cmd:node bot.js {log.name}", "easy"}
    rounds = sum(b["rounds"] for b in report["bots"][:1])
    assert len(told) == rounds  # every round of both games, once


def test_a_program_that_does_not_ask_is_not_told(tmp_path: Path) -> None:
    # The documented example bot stops at the first line that is not a view: it must only
    # ever see views and the final quit.
    script = tmp_path / "plain.py"
    script.write_text(
        "import json, sys\n"
        f"log = open({str(tmp_path / 'seen.txt')!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    log.write(','.join(sorted(request)) + '\\n'); log.flush()\n"
        "    if 'view' not in request: break\n"
        "    moves = request['view']['legal_moves']\n"
        "    move = 'yaniv' if 'yaniv' in moves else moves[-1]\n"
        "    print(json.dumps({'move': move}), flush=True)\n"
    )
    import sys

    report = run_arena(
        [f"cmd:{sys.executable} {script}", "easy"], players=2, games=1, rules=RuleSet(), seed=1
    )
    assert report["errors"] == []
    seen = (tmp_path / "seen.txt").read_text().splitlines()
    assert set(seen[:-1]) == {"view"} and seen[-1] == "quit"


def test_yaniv_bot_takes_a_round_over_without_answering() -> None:
    import io

    from yaniv.bots import get_bot
    from yaniv.game import Game

    game = Game.from_position(RuleSet(), [["AC"], ["KD"]], ["2C"], [["3C"]], 0)
    game.play("yaniv")
    told = json.dumps({"round_over": game.view(1).to_dict()}).encode()
    assert answer_request(get_bot("easy", 1), told) == {}
    asked = Game.new(RuleSet(), 2, seed=1)
    lines = told + b"\n" + json.dumps({"view": asked.view(1).to_dict()}).encode() + b"\n"
    out = io.StringIO()
    serve(get_bot("easy", 1), io.BytesIO(lines), out)
    answers = out.getvalue().splitlines()
    assert len(answers) == 1 and "move" in json.loads(answers[0])  # the view's answer alone
