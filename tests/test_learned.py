"""The ``learned`` level: its shipped weights load, it plays only legal moves under every rule
set and for 2 to 8 players, it is a level everywhere, and it fails in words without numpy."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from typer.testing import CliRunner  # noqa: E402

from yaniv import Game  # noqa: E402
from yaniv.bots import get_bot  # noqa: E402
from yaniv.bots.base import bot_names  # noqa: E402
from yaniv.bots.learned_bot import LearnedBot  # noqa: E402
from yaniv.bots.learned_net import (  # noqa: E402
    META,
    MOVE_SIZE,
    STATE_SIZE,
    WEIGHTS,
    Network,
    encode,
)
from yaniv.cli import app  # noqa: E402
from yaniv.errors import YanivError  # noqa: E402
from yaniv.game import Phase  # noqa: E402
from yaniv.rules import PRESETS, RuleSet  # noqa: E402

#: Every preset and house rules of other apps (R8, R9, R14, R18, R22).
RULE_SETS = [
    *PRESETS.values(),
    RuleSet(joker_in_run="gaps_only", pickup="run_ends_set_any", assaf_scoring="caller_only"),
    RuleSet(joker_pair=True, run_naturals=2, max_set=3, assaf_ties="clockwise", jokers=1),
    RuleSet.preset("slapdown", slap_empty_hand="yaniv_now", jokers_in_sets=True, max_set=4),
    RuleSet.preset("draw_first", pickup="any", yaniv_above_threshold=True, jokers=0),
    RuleSet(bonus="subtract", hand_size=7, yaniv_threshold=5, end_mode="first_over"),
]


def test_the_shipped_weights_load_with_what_made_them() -> None:
    assert WEIGHTS.stat().st_size < 3_000_000  # a few MB at most
    net = Network.load(WEIGHTS)
    assert net.layers[0][0].shape == (STATE_SIZE + MOVE_SIZE, net.layers[1][0].shape[0])
    meta = json.loads(META.read_text())
    assert {"command", "seed", "cpu_seconds", "evaluation"} <= set(meta)
    assert meta["cpu_seconds"] > 0
    for bot in ("random", "easy", "medium"):
        figure = meta["evaluation"][bot]
        assert figure["games"] >= 1000 and figure["ci95"][0] <= figure["win_rate"]


def test_learned_is_a_registered_level() -> None:
    assert "learned" in bot_names()
    bot = get_bot("learned", seed=4)
    assert isinstance(bot, LearnedBot) and bot.name == "learned"


def test_legal_moves_over_thousands_of_random_positions() -> None:
    """Random play (one seat of each game the learned bot) to positions of every phase; at
    each, the learned bot's answer must be legal there, whoever is to move."""
    rng = random.Random(19)
    bot = get_bot("learned")
    checked = 0
    phases: set[Phase] = set()
    counts: set[int] = set()
    for k in range(60):
        rules = RULE_SETS[k % len(RULE_SETS)]
        players = (2, 3, 4, 5, 6, 8)[k % 6]
        while players * rules.hand_size + 1 > 52 + rules.jokers:  # a deck too small (R5)
            players -= 1
        game = Game.new(rules, players, seed=rng.randrange(1 << 30))
        for _ in range(120):
            if game.phase == Phase.ROUND_OVER:
                game.next_round()
            if game.phase == Phase.GAME_OVER:
                break
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            move = bot.choose(view)
            assert game.is_legal(move), (rules, players, str(move), view.to_json())
            checked += 1
            phases.add(view.phase)
            counts.add(players)
            # Mostly random play, so positions stray far from the bot's own games.
            game.apply(rng.choice(view.legal_moves) if rng.random() < 0.7 else move)
    assert checked >= 5000
    assert {Phase.START, Phase.DRAW, Phase.DISCARD, Phase.SLAP} <= phases
    assert {2, 3, 4, 5, 6, 8} <= counts


def test_whole_games_against_every_level_finish_legally() -> None:
    from yaniv.arena import run_arena

    for players, rules in ((2, RuleSet()), (4, RuleSet.preset("slapdown")), (7, RuleSet())):
        report = run_arena(["learned", "medium"], players, 2, rules, seed=5)
        assert report["errors"] == [] and report["capped"] == 0


def test_the_encoding_is_sized_alike_for_every_table() -> None:
    for players in (2, 8):
        game = Game.new(RuleSet.preset("hebrew"), players, seed=2)
        view = game.view(game.to_move)
        state, moves = encode(view)
        assert state.shape == (STATE_SIZE,) and moves.shape == (len(view.legal_moves), MOVE_SIZE)
        assert np.isfinite(state).all() and np.isfinite(moves).all()


def test_it_is_deterministic() -> None:
    game = Game.new(RuleSet(), 2, seed=8)
    a, b = get_bot("learned", 1), get_bot("learned", 2)
    for _ in range(80):
        if game.phase != Phase.START and game.phase != Phase.DRAW:
            break
        assert game.to_move is not None
        view = game.view(game.to_move)
        move = a.choose(view)
        assert move == b.choose(view)
        game.apply(move)


def test_the_arena_cli_accepts_the_level(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        app, ["arena", "--bots", "learned,easy", "--games", "4", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert [b["name"] for b in report["bots"]] == ["learned", "easy"]
    assert report["errors"] == []


def test_a_bad_weight_file_is_refused_in_words(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(YanivError, match="cannot read the learned weights"):
        Network.load(junk)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"layers": 1, "encoding": 99})), w0=np.zeros((2, 1)))
    with pytest.raises(YanivError, match="not a learned weight file|encoding 99"):
        Network.load(other)


def test_without_numpy_the_level_says_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now fails
    monkeypatch.delitem(sys.modules, "yaniv.bots.learned_net")
    with pytest.raises(YanivError, match=r"needs numpy.*pip install 'yaniv\[rl\]'"):
        get_bot("learned")
    names = bot_names()  # not offered where it cannot play; every other level still is
    assert "learned" not in names and {"random", "easy", "medium", "expert"} <= set(names)
    get_bot("easy")


def test_the_terminal_game_and_the_web_app_offer_the_level() -> None:
    from yaniv.tui.controller import Options, levels

    assert "learned" in levels()
    Options(levels=("learned",)).check()  # what `yaniv play --level learned` checks
    web = Path(__file__).resolve().parent.parent / "yaniv" / "web"
    assert 'learned: "level.learned"' in (web / "js" / "names.js").read_text()
    for lang in ("en", "he"):
        catalogue = json.loads((web / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        assert catalogue["level.learned"]


def test_without_numpy_the_arena_says_what_the_level_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.delitem(sys.modules, "yaniv.bots.learned_net")
    result = CliRunner().invoke(app, ["arena", "--bots", "learned,easy", "--games", "2"])
    assert result.exit_code != 0
    assert "needs numpy" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(("index", "players"), [(276, 2), (508, 4)])
def test_learned_players_break_a_stalled_round(index: int, players: int) -> None:
    # Arena self-play games (seed 1) that ran to the 5,000-move cap before the learned level
    # took the shared stall rule: from move 139 (2 players) and 59 (4 players) on, every hand
    # held two low cards and each player handed the same card round the pile, turn after turn.
    from yaniv.arena import GameTask, play_game

    summary = play_game(GameTask(index, ("learned",) * players, RuleSet(), 1))
    assert summary["errors"] == [] and not summary["capped"] and summary["winners"], summary
