"""The bot protocol's ``new_game``: one process plays a whole match."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from yaniv.arena import GameTask, Programs, play_game, play_games, run_arena
from yaniv.protocol import CmdBot, answer_request, serve
from yaniv.rules import RuleSet

NODE = shutil.which("node")
YANIV_BOT = f"{sys.executable} -c 'from yaniv.cli import main; main()' bot"

# A bot in another language, from docs/bot-protocol.md alone: it asks for results and for
# new games in its first answer, and writes down its process id and every line's kind.
NODE_BOT = r"""
const fs = require("fs");
const readline = require("readline");
const log = process.argv[2];
let first = true;
let games = 1;
const note = (kind, extra) =>
  fs.appendFileSync(log, JSON.stringify({ pid: process.pid, kind, games, ...extra }) + "\n");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.new_game) { games += 1; note("new_game", {}); return; }
  if (msg.round_over) { note("round_over", { phase: msg.round_over.phase }); return; }
  if (!msg.view) { note("quit", {}); process.exit(0); }
  const moves = msg.view.legal_moves;
  let move = moves.includes("yaniv") ? "yaniv" : null;
  if (!move) {
    const discards = moves.filter((m) => m.startsWith("discard "));
    discards.sort((a, b) => b.split(" ").length - a.split(" ").length);
    move = discards[0] || (moves.includes("draw stock") ? "draw stock" : moves[0]);
  }
  const answer = { move, ignored: "extra keys are ignored" };
  if (first) { answer.features = ["results", "new_game"]; first = false; }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""

RULES = RuleSet(score_limit=40)  # short games


def _node_spec(tmp_path: Path) -> tuple[str, Path]:
    assert NODE is not None, "CI needs Node.js"
    script = tmp_path / "bot.js"
    script.write_text(NODE_BOT)
    log = tmp_path / "told.jsonl"
    return f"cmd:{NODE} {script} {log}", log


def _told(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="no node")
def test_a_node_program_that_asks_plays_the_whole_match_in_one_process(tmp_path: Path) -> None:
    spec, log = _node_spec(tmp_path)
    report = run_arena([spec, "easy"], players=2, games=3, rules=RULES, seed=3)
    assert report["errors"] == [] and report["capped"] == 0
    told = _told(log)
    assert len({t["pid"] for t in told}) == 1  # started once for the three games
    kinds = [t["kind"] for t in told]
    assert kinds.count("new_game") == 2 and kinds[-1] == "quit" and kinds.count("quit") == 1
    # Each new game comes after the last game's end, and before anything of the next.
    ends = [i for i, t in enumerate(told) if t.get("phase") == "game_over"]
    news = [i for i, k in enumerate(kinds) if k == "new_game"]
    assert len(ends) == 3 and news == [ends[0] + 1, ends[1] + 1] and ends[2] == len(told) - 2
    # One start-up for the match; every later game's first answer is a decision.
    assert report["bots"][0]["startup_ms"]["count"] == 1


@pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="no node")
def test_worker_processes_keep_their_programs_and_quit_them_at_the_end(tmp_path: Path) -> None:
    spec, log = _node_spec(tmp_path)
    report = run_arena([spec, "easy"], players=2, games=6, rules=RULES, seed=3, jobs=2)
    assert report["errors"] == []
    told = _told(log)
    pids = {t["pid"] for t in told}
    assert 1 <= len(pids) <= 2  # one per worker at most, not one per game
    quits = [t["pid"] for t in told if t["kind"] == "quit"]
    assert sorted(quits) == sorted(pids)  # each told to quit once, when its worker ended
    assert sum(t["kind"] == "new_game" for t in told) == 6 - len(pids)


def test_yaniv_bot_kept_up_plays_the_games_a_new_process_plays() -> None:
    # ``yaniv bot`` asks for new_game and starts each game from its seed again, so a match in
    # one process is the match of one process per game, move for move.
    lineup = (f"cmd:{YANIV_BOT} random --seed 5", "easy")
    tasks = [GameTask(i, lineup, RULES, 7) for i in range(3)]
    each = [play_game(t) for t in tasks]  # no pool: a process per game
    programs = Programs()
    try:
        kept = [play_game(t, programs) for t in tasks]
    finally:
        programs.close()
    assert programs.started == 1

    def game(r: dict[str, object]) -> tuple[object, ...]:
        return (r["winners"], r["scores"], r["rounds"], r["moves"], r["points"], r["errors"])

    assert [game(r) for r in kept] == [game(r) for r in each]
    assert len({r["moves"] for r in each}) > 1  # the games differ: a real comparison
    assert [r["startup"][r["entrants"].index(0)] is not None for r in kept] == [
        True,
        False,
        False,
    ]
    assert play_games(tasks[:1])[0]["scores"] == each[0]["scores"]


def test_a_program_that_does_not_ask_is_started_for_each_game(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text(
        "import json, os, sys\n"
        f"log = open({str(tmp_path / 'seen.txt')!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    log.write(f'{os.getpid()} ' + ','.join(sorted(request)) + '\\n'); log.flush()\n"
        "    if 'view' not in request: break\n"
        "    moves = request['view']['legal_moves']\n"
        "    move = 'yaniv' if 'yaniv' in moves else moves[-1]\n"
        "    print(json.dumps({'move': move}), flush=True)\n"
    )
    report = run_arena([f"cmd:{sys.executable} {script}", "easy"], 2, 2, RULES, seed=1)
    assert report["errors"] == []
    seen = [line.split() for line in (tmp_path / "seen.txt").read_text().splitlines()]
    assert len({pid for pid, _ in seen}) == 2  # one process per game, as before
    assert not any(kind == "new_game" for _, kind in seen)
    assert [kind for _, kind in seen].count("quit") == 2


def test_a_kept_program_that_died_is_replaced(tmp_path: Path) -> None:
    lineup = (f"cmd:{YANIV_BOT} easy", "easy")
    programs = Programs()
    try:
        first = play_game(GameTask(0, lineup, RULES, 1), programs)
        (bot,) = [b for idle in programs._idle.values() for b in idle]
        assert isinstance(bot, CmdBot) and bot.reusable()
        bot.proc.kill()
        bot.proc.wait()
        second = play_game(GameTask(1, lineup, RULES, 1), programs)
    finally:
        programs.close()
    assert first["errors"] == [] and second["errors"] == []
    assert programs.started == 2


def test_serve_asks_for_new_game_and_starts_each_game_afresh() -> None:
    from yaniv.bots import get_bot
    from yaniv.game import Game

    assert answer_request(get_bot("easy", 1), b'{"new_game": true}') == {}
    view = json.dumps({"view": Game.new(RULES, 2, seed=1).view(1).to_dict()}).encode()
    made: list[int] = []

    def fresh() -> object:
        made.append(1)
        return get_bot("random", 2)

    out = io.StringIO()
    lines = view + b"\n" + b'{"new_game": true}\n' + view + b"\n"
    serve(get_bot("random", 2), io.BytesIO(lines), out, fresh=fresh)
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert answers[0]["features"] == ["new_game"] and "features" not in answers[1]
    assert answers[0]["move"] == answers[1]["move"] and made == [1]
    plain = io.StringIO()
    serve(get_bot("random", 2), io.BytesIO(view + b"\n"), plain)  # no fresh: not asked
    assert "features" not in json.loads(plain.getvalue())
