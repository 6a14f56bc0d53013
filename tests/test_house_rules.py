"""The house rules of other Yaniv apps (R8, R9, R14, R15, R22) beyond the engine's scenarios:
their options' words, old records, the story, the coach, the terminal game and the bot protocol.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from yaniv import Game, RuleSet, record
from yaniv.arena import run_arena
from yaniv.bots.coach import advise, yaniv_success_probability
from yaniv.cards import parse_cards
from yaniv.cli import app
from yaniv.errors import IllegalMoveError, RuleError
from yaniv.moves import YANIV, Discard, parse_move
from yaniv.narration import Narrator
from yaniv.rules import DESCRIPTIONS, OPTION_NAMES
from yaniv.tui.controller import selection_move

HERE = Path(__file__).parent
NEW_OPTIONS = {
    "joker_pair": False,
    "run_naturals": 1,
    "max_set": 0,
    "assaf_ties": "all",
    "slap_empty_hand": "never",
}


def test_the_options_and_their_words() -> None:
    assert set(NEW_OPTIONS) <= set(OPTION_NAMES) and set(NEW_OPTIONS) <= set(DESCRIPTIONS)
    assert {k: getattr(RuleSet(), k) for k in NEW_OPTIONS} == NEW_OPTIONS  # standard: off
    for options, words in [
        ({"max_set": 1}, "'max_set': 1; allowed: an integer 0 to 6, but not 1"),
        ({"max_set": 7}, "'max_set': 7; allowed: an integer 0 to 6, but not 1"),
        ({"run_naturals": 3}, "'run_naturals': 3; allowed: an integer 1 to 2"),
        ({"assaf_ties": "left"}, "allowed: 'all', 'clockwise', 'counterclockwise'"),
        ({"slap_empty_hand": True}, "allowed: 'never', 'yaniv_now', 'yaniv_next'"),
        ({"joker_pair": "yes"}, "'joker_pair': 'yes'; allowed: true, false"),
    ]:
        with pytest.raises(RuleError, match=words):
            RuleSet(**options)  # type: ignore[arg-type]
    assert RuleSet.from_preset_and_options("standard", ["max_set=4", "joker_pair=on"]).max_set == 4
    with pytest.raises(RuleError, match="expected an integer 0 to 6, but not 1"):
        RuleSet.from_preset_and_options("standard", ["max_set=four"])


def test_yaniv_rules_prints_the_new_options() -> None:
    result = CliRunner().invoke(app, ["rules", "-o", "assaf_ties=clockwise", "-o", "max_set=4"])
    assert result.exit_code == 0, result.output
    for name in NEW_OPTIONS:
        assert name in result.output
    bad = CliRunner().invoke(app, ["rules", "-o", "slap_empty_hand=sometimes"])
    assert bad.exit_code == 2 and "'never', 'yaniv_now', 'yaniv_next'" in bad.output


def test_records_made_before_the_options_replay_unchanged() -> None:
    # Games of four presets recorded by the engine before these options existed.
    old = json.loads((HERE / "data" / "records-before-house-rules.json").read_text())
    assert len(old) == 4
    for data in old:
        assert not set(NEW_OPTIONS) & set(data["rules"])
        game = record.replay(data)
        assert game.is_over
        again = json.loads(record.dumps(game))
        assert {k: again["rules"].pop(k) for k in NEW_OPTIONS} == NEW_OPTIONS
        assert again == data


def test_records_of_the_new_options_replay() -> None:
    rules = RuleSet.preset(
        "slapdown",
        slap_empty_hand="yaniv_now",
        joker_pair=True,
        max_set=3,
        assaf_ties="counterclockwise",
        score_limit=50,
    )
    for seed in range(6):
        game = Game.new(rules, 3, seed)
        rng = random.Random(seed)
        while not game.is_over:
            if game.to_move is None:
                game.next_round()
            else:
                legal = game.legal_moves()
                game.play(YANIV if YANIV in legal else rng.choice(legal))
        assert record.replay(json.loads(record.dumps(game))).fingerprint() == game.fingerprint()


def _slap_position(mode: str) -> Game:
    rules = RuleSet(slapdown="rank", slap_empty_hand=mode)
    return Game.from_position(
        rules, [["4C"], ["7C", "8C"], ["2H"]], ["4D", "9S", "KD", "QD"], [["AH"]], 0
    )


def test_the_story_tells_a_slap_that_empties_the_hand() -> None:
    game = _slap_position("yaniv_now")
    for move in ("discard 4C", "draw stock", "slap 4D"):
        game.play(move)
    story = Narrator(["Ann", "Ben", "Cy"], you=1)
    story.read(game.all_events())
    texts = story.texts()
    assert "Ann has no card left: a Yaniv with 0." in texts
    assert not any("calls Yaniv" in t or "called Yaniv" in t for t in texts)
    assert texts[-1].startswith("Yaniv! Ann wins the round with 0")


def test_an_empty_hand_may_only_call_and_the_coach_knows_it_is_0() -> None:
    game = _slap_position("yaniv_next")
    for move in ("discard 4C", "draw stock", "slap 4D"):
        game.play(move)
    assert game.counts[0] == 0 and game.to_move == 1
    game.play("discard 8C")
    game.play("draw stock")
    # Cy's 2 would be a sure Assaf: Ann holds no card, so 0, and the coach knows it.
    assert game.to_move == 2 and yaniv_success_probability(game.view(2)) == 0.0
    game.play("discard 2H")
    game.play("draw stock")
    assert game.to_move == 0 and list(game.legal_moves()) == [YANIV]
    assert game.draw_options() == [] and list(game.discard_options()) == []
    with pytest.raises(IllegalMoveError, match="holds no card: only a Yaniv call is left"):
        game.play("draw stock")
    result = game.play("yaniv")
    assert result is not None and result.kind.value == "yaniv" and result.points[0] == 0


def test_a_run_given_out_of_order_through_play_and_its_refusal() -> None:
    hands = [["5H", "6H", "RJ", "3C", "4C", "2C"], ["9D"]]
    game = Game.from_position(RuleSet(hand_size=6), hands, ["KS", "QS"], [["7C"]], 0)
    snapshot = game.fingerprint()
    with pytest.raises(
        IllegalMoveError, match=r"more than one order: RJ 5H 6H or 5H 6H RJ; give them in"
    ):
        game.play("discard 6H RJ 5H")
    assert game.fingerprint() == snapshot
    assert parse_move("discard 4C 2C 3C") in game.legal_moves()
    assert parse_move("discard 6H RJ 5H") not in game.legal_moves()
    game.play("discard 4C 2C 3C")
    assert game.pile[-1] == tuple(parse_cards("2C 3C 4C"))  # laid ascending


def test_the_terminal_game_selects_a_run_in_any_order() -> None:
    game = Game.from_position(
        RuleSet(hand_size=6), [["5H", "6H", "RJ", "3C", "4C", "2C"], ["9D"]], ["KS"], [["7C"]], 0
    )
    view = game.view(0)
    move, why = selection_move(parse_cards("4C 2C 3C"), view)
    assert move == Discard(tuple(parse_cards("2C 3C 4C"))) and why == ""
    move, why = selection_move(parse_cards("6H RJ 5H"), view)
    assert move is None and "RJ 5H 6H or 5H 6H RJ" in why
    move, _ = selection_move(parse_cards("5H 6H RJ"), view)  # the order selected decides
    assert move == Discard(tuple(parse_cards("5H 6H RJ")))
    strict = Game.from_position(
        RuleSet(run_naturals=2, max_set=2, hand_size=6),
        [["RJ", "BJ", "5H", "7S", "7D", "7H"], ["9D"]],
        ["KS"],
        [["7C"]],
        0,
    ).view(0)
    assert "2 natural cards" in selection_move(parse_cards("RJ BJ 5H"), strict)[1]
    assert "2 cards at most" in selection_move(parse_cards("7S 7D 7H"), strict)[1]
    assert "joker_pair=false" in selection_move(parse_cards("RJ BJ"), strict)[1]


def test_a_program_may_answer_a_run_out_of_order(tmp_path: Path) -> None:
    # A bot that plays the first listed run whenever it can, its cards given in reverse.
    script = tmp_path / "reversed_runs.py"
    log = tmp_path / "reversed.txt"
    script.write_text(
        "import json, sys\n"
        f"log = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if 'view' not in msg: break\n"
        "    legal = msg['view']['legal_moves']\n"
        "    runs = [m for m in legal if m.startswith('discard') and len(m.split()) >= 4\n"
        "            and len({c[-1] for c in m.split()[1:] if c[0] not in 'RB'}) == 1\n"
        "            and len({c[0] for c in m.split()[1:]}) > 2]\n"
        "    move = legal[-1]\n"
        "    if runs and 'RJ' not in runs[0] and 'BJ' not in runs[0]:\n"
        "        move = 'discard ' + ' '.join(reversed(runs[0].split()[1:]))\n"
        "        log.write(move + '\\n'); log.flush()\n"
        "    print(json.dumps({'move': move}), flush=True)\n"
    )
    report = run_arena(
        [f"cmd:{sys.executable} {script}", "easy"],
        players=2,
        games=6,
        rules=RuleSet(hand_size=7, jokers=0),
        seed=3,
    )
    assert report["errors"] == [] and report["capped"] == 0
    assert log.read_text().count("discard") >= 1  # runs were given out of order, and accepted


@pytest.mark.parametrize("mode", ["yaniv_now", "yaniv_next"])
def test_the_coach_says_a_slap_empties_the_hand(mode: str) -> None:
    game = _slap_position(mode)
    game.play("discard 4C")
    game.play("draw stock")
    advice = advise(game.view(0))
    assert str(advice[0].move) == "slap 4D"
    assert advice[0].reason.startswith("slapping empties your hand")
    assert ("at once" in advice[0].reason) == (mode == "yaniv_now")


def test_the_web_lobby_offers_the_new_options() -> None:
    from yaniv.server.app import options

    offered = options()
    assert offered["joker_pair"] == {"choices": [False, True]}
    assert offered["run_naturals"] == {"min": 1, "max": 2}
    assert offered["max_set"] == {"choices": [0, 2, 3, 4, 5, 6]}  # never 1: no set at all
    assert offered["assaf_ties"] == {"choices": ["all", "clockwise", "counterclockwise"]}
    assert offered["slap_empty_hand"] == {"choices": ["never", "yaniv_now", "yaniv_next"]}


def test_a_slap_that_ends_the_round_is_seen_by_everyone() -> None:
    game = _slap_position("yaniv_now")
    game.play("discard 4C")
    game.play("draw stock")
    others = [game.view(s) for s in (1, 2, None)]
    assert all(v.phase.label == "draw" and v.stock_size == 4 for v in others)  # veiled
    game.play("slap 4D")
    for seat in (0, 1, 2, None):
        view = game.view(seat)
        assert view.phase.label == "round_over" and view.result == game.result
        assert view.pile[-1] == tuple(parse_cards("4C 4D")) and view.stock_size == 3
        kinds = [type(e).__name__ for e in view.events]
        assert kinds[-2:] == ["Slapped", "Showdown"], (seat, kinds)
