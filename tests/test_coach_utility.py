"""The coach's Yaniv advice weighs the change in the chance of winning the game (the game-level
utility), not points; it stays legal under any rule set and never reads a hidden card."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import hidden_permuted, rule_sets

from yaniv import Game, Phase, RuleSet
from yaniv.bots import coach, get_bot
from yaniv.bots import utility as U
from yaniv.bots.coach import (
    advise,
    cal_params,
    calibrate,
    call_expectation,
    call_value,
    opponents,
    should_call,
    yaniv_success_probability,
)
from yaniv.cards import VALUE, parse_card, parse_cards
from yaniv.moves import YANIV
from yaniv.view import PlayerView


def _position(rules: RuleSet, mine: str, theirs: str, scores: list[int], known: bool) -> Game:
    """Two players, seat 0 to move; the opponent's hand known to seat 0 or not."""
    hands = [parse_cards(mine), parse_cards(theirs)]
    used = set(hands[0] + hands[1] + [parse_card("QH")])
    stock = [c for c in range(54) if c not in used]
    return Game.from_position(
        rules, hands, stock, [[parse_card("QH")]], 0, scores=scores,
        known=[[], hands[1] if known else []],
    )  # fmt: skip


def _points_rule(view: PlayerView, p: float) -> bool:
    """The coach's former rule, in points (for contrast): a sure call always; else the
    expected points of the call (the others' mean hand on success, my hand and the penalty
    on an Assaf, my bonus and going out counted) against -(hand / 2 + 2) for playing on."""
    if p >= 0.995:
        return True
    rules = view.rules
    mine = view.hand_value
    fail = mine + rules.assaf_penalty
    new = view.scores[view.seat] + fail
    if rules.bonus == "halve" and new in rules.bonus_targets:
        fail -= new - new // 2
    if new > rules.score_limit:
        fail += 60
    opps = opponents(view)
    hand = sum(sum(VALUE[c] for c in o.known) + 4.0 * o.unknown for o in opps) / len(opps)
    return p * hand - (1 - p) * fail > -0.5 * mine - 2


def test_a_sure_call_that_lands_the_opponent_on_a_bonus_is_declined() -> None:
    # The opponent's hand (10) is known: a sure success, which takes it from 90 to exactly 100,
    # halved to 50. Points say call (a sure call); the chance of winning says play on.
    game = _position(RuleSet(), "AS 2C", "5D 5H", [0, 90], known=True)
    view = game.view(0)
    p = yaniv_success_probability(view)
    assert p == 1.0 and _points_rule(view, p)
    value = call_value(view)
    assert value.success < value.play_on
    assert not should_call(view, p)
    tips = advise(view)
    assert tips[0].move != YANIV
    assert any(t.move == YANIV and t.reason.endswith("; risky") for t in tips)
    assert get_bot("medium", seed=1).choose(view) != YANIV
    # Without the bonus, or from 80 (landing on 90), the same sure call is made.
    for rules, scores in ((RuleSet(bonus="none"), [0, 90]), (RuleSet(), [0, 80])):
        other = _position(rules, "AS 2C", "5D 5H", scores, known=True).view(0)
        assert should_call(other, 1.0)
        assert advise(other)[0].move == YANIV


def test_the_subtract_bonus_is_priced_at_its_step() -> None:
    # From 40, a known hand of 10 lands on 50: the Racheli takes it to 0.
    subtract = RuleSet(bonus="subtract", bonus_step=50, bonus_amount=50)
    view = _position(subtract, "AS 2C", "5D 5H", [0, 40], known=True).view(0)
    assert _points_rule(view, 1.0) and not should_call(view, 1.0)
    assert call_value(view).success == U.win_chances(subtract, [0, 0])[0]
    # Under halve at 100/200, 50 is nothing special: call.
    assert should_call(_position(RuleSet(), "AS 2C", "5D 5H", [0, 40], known=True).view(0), 1.0)


def test_a_call_that_can_put_the_opponent_out_is_worth_a_risk() -> None:
    # The opponent at 195 of 200 goes out on any success (its hand is over my 6). At even odds
    # points say no (an Assaf costs 36); the chance of winning says call.
    view = _position(RuleSet(), "4S 2C", "3D 4H 9C", [100, 195], known=False).view(0)
    assert not _points_rule(view, 0.5)
    value = call_value(view)
    assert value.success == 1.0  # a success ends the game: I am the last one in
    assert should_call(view, 0.5) and call_expectation(view, 0.5) > 0
    # With a limit of 300 nobody goes out: the same odds are not worth the Assaf.
    far = _position(RuleSet(score_limit=300), "4S 2C", "3D 4H 9C", [100, 195], known=False)
    assert not should_call(far.view(0), 0.5)


def test_caller_only_assaf_and_going_out_are_priced() -> None:
    # At 165 with 6 in hand, an Assaf puts me out (201) under standard scoring; under
    # caller-only scoring it costs the penalty alone (195), and I stay in.
    standard = _position(RuleSet(), "4S 2C", "3D 4H 9C", [165, 100], known=False).view(0)
    caller_only = RuleSet(assaf_scoring="caller_only")
    mild = _position(caller_only, "4S 2C", "3D 4H 9C", [165, 100], known=False).view(0)
    assert call_value(standard).failure == 0.0
    assert call_value(mild).failure == U.win_chances(caller_only, [195, 100])[0] > 0.0
    assert call_expectation(mild, 0.4) > call_expectation(standard, 0.4)


def test_the_expectation_is_the_utility_of_the_outcomes() -> None:
    view = _position(RuleSet(), "4S 2C", "3D 4H 9C", [40, 60], known=False).view(0)
    v = call_value(view)
    assert 0.0 <= v.failure <= v.success <= 1.0
    assert v.play_on == U.view_chances(view)[0]
    for p in (0.0, 0.3, 1.0):
        assert call_expectation(view, p) == p * v.success + (1 - p) * v.failure - v.play_on
        assert should_call(view, p) == (call_expectation(view, p) > 0)
        assert should_call(view, p, margin=1.0) is False  # no call gains more than certainty


def test_a_deliberate_call_is_judged_by_the_utility_too() -> None:
    # Hebrew rules: 61 + 9 + 30 = 100 less the 50 bonus: worth it; at 60 (99) it is not.
    rules = RuleSet.preset("hebrew")
    for score, worth in ((61, True), (60, False)):
        game = Game.from_position(
            rules, [["9D"], ["3C", "2C"], ["4H", "2D"], ["KS"]], ["4C", "8S"], [["9C"]],
            to_move=0, scores=[score, 10, 20, 30],
        )  # fmt: skip
        view = game.view(0)
        assert should_call(view, 0.0) is worth
        assert (call_value(view).failure > U.view_chances(view)[0]) is worth


def test_the_calibration_reads_its_parameters() -> None:
    a, b, w = cal_params()
    x = (5.0, 3.0, 1.0, 9.0, 0.3, 0.25, 4.5, 4.0, 9.0, 0.0)
    assert calibrate(0.7, x) == calibrate(0.7, x, (a, b, w))
    identity = (1.0, 0.0, (0.0,) * len(w))
    assert all(abs(calibrate(q / 10, x, identity) - q / 10) < 1e-12 for q in range(1, 10))


def test_the_hinge_bends_only_the_low_tail() -> None:
    x = (5.0, 3.0, 1.0, 9.0, 0.3, 0.25, 4.5, 4.0, 9.0, 0.0)
    line = (1.2, -0.3, (0.0,) * len(x))
    bent = (1.2, -0.3, (0.0,) * len(x) + (-0.8,))
    # above the knot the hinge is 0: the same chance with its weight or without
    for p in (coach.HINGE_AT, 0.3, 0.6, 0.95):
        assert calibrate(p, x, bent) == calibrate(p, x, line)
    # below it a negative weight lifts the tail toward the knot's chance, still increasing
    tail = (0.01, 0.05, 0.1, 0.15)
    low = [calibrate(p, x, bent) for p in tail]
    assert all(b > calibrate(p, x, line) for b, p in zip(low, tail, strict=True))
    assert low == sorted(low) and low[-1] < calibrate(coach.HINGE_AT, x, bent)


def test_a_correction_per_level_is_read_and_a_malformed_one_left_out() -> None:
    zeros = [0.0] * len(coach.CAL_W)
    own = {"a": 0.5, "b": 0.1, "w": zeros}
    data = {
        "a": 1.0,
        "b": 0.0,
        "w": zeros,
        "by_level": {
            "easy": {"2": own, "3+": {"a": 1.0, "w": [1.0]}, "9": own},
            "expert": "x",
            # with the hinge's weight after the features', and with one weight too many
            "medium": {"2": {**own, "w": [*zeros, -0.5]}, "3+": {**own, "w": [*zeros, 0, 0]}},
        },
    }
    general, by_level = coach.corrections(data)
    assert general == (1.0, 0.0, tuple(zeros))
    # the malformed entries and a table size that is not one are left out
    assert by_level == {
        ("easy", "2"): (0.5, 0.1, tuple(zeros)),
        ("medium", "2"): (0.5, 0.1, (*zeros, -0.5)),
    }
    builtin = (coach.CAL_A, coach.CAL_B, coach.CAL_W)
    assert coach.corrections({"by_level": {"easy": {"2": own}}}) == (builtin, {})  # no general
    assert coach.corrections([1, 2]) == (builtin, {})
    assert [coach.table_size(n) for n in (2, 3, 4, 8)] == ["2", "3+", "3+", "3+"]


@pytest.mark.parametrize("players", [2, 3])
def test_the_odds_against_a_level_use_its_own_correction(players: int) -> None:
    # An uncertain call: the opponents' cards unknown.
    hands = [["AS", "2C"], ["9D", "8S", "7C"], ["KD", "QS", "JC"]][:players]
    game = Game.from_position(RuleSet(), hands, ["5C", "6D"], [["3H"]], to_move=0)
    view = game.view(0)
    raw, exact = coach.raw_success(view)
    assert not exact
    features = coach.calibration_features(view)
    assert yaniv_success_probability(view, "nobody") == yaniv_success_probability(view)
    size = coach.table_size(players)
    levels = {level for level, s in coach.calibrated_levels() if s == size}
    # The levels with positions enough for a correction of their own have one (the data file).
    assert {"easy", "medium", "expert", "learned"} <= levels
    for level in levels:
        own = coach.cal_params(level, players)
        assert own != coach.cal_params()
        assert yaniv_success_probability(view, level) == calibrate(raw, features, own)
        assert yaniv_success_probability(view, level) != yaniv_success_probability(view)


def _random_position(rules: RuleSet, players: int, seed: int) -> Game:
    """A game some random moves into a round (calls made now and then, rounds dealt on)."""
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 80)):
        if game.is_over:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        legal = list(game.legal_moves())
        calls = YANIV in legal and rng.random() < 0.2
        game.play(YANIV if calls else rng.choice([m for m in legal if m != YANIV] or legal))
    return game


@settings(max_examples=60, deadline=None)
@given(rule_sets(), st.integers(2, 8), st.integers(0, 2**32))
def test_advice_is_legal_under_any_rules_and_players(
    rules: RuleSet, players: int, seed: int
) -> None:
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = _random_position(rules, players, seed)
    if game.to_move is None:
        return
    view = game.view(game.to_move)
    tips = advise(view)
    assert tips and all(t.move in view.legal_moves and t.reason for t in tips)
    assert [t.score for t in tips] == sorted(t.score for t in tips)
    v = call_value(view)
    assert all(0.0 <= x <= 1.0 for x in (v.success, v.failure, v.play_on))
    if YANIV in view.legal_moves:
        p = yaniv_success_probability(view)
        assert 0.0 <= p <= 1.0
        assert should_call(view, p) in (True, False)
        yaniv = [t for t in tips if t.move == YANIV]
        if yaniv:  # the advice's verdict is the utility's
            assert (yaniv[0].score < 0) == should_call(view, p)


@settings(max_examples=40, deadline=None)
@given(rule_sets(), st.integers(2, 6), st.integers(0, 2**32))
def test_the_coach_never_reads_a_hidden_card(rules: RuleSet, players: int, seed: int) -> None:
    # Two games that differ only in the cards the mover cannot see (the others' unknown cards
    # and the stock, permuted): the same view, so the same odds, values and advice.
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = _random_position(rules, players, seed)
    if game.to_move is None:
        return
    seat = game.to_move
    a, b = hidden_permuted(game, seat, seed)
    if a.hands == b.hands and a.stock == b.stock:
        return  # nothing was hidden
    va, vb = a.view(seat), b.view(seat)
    assert va == vb
    assert call_value(va) == call_value(vb)
    assert advise(va) == advise(vb)
    if YANIV in va.legal_moves:
        assert yaniv_success_probability(va) == yaniv_success_probability(vb)


def _deliberate_views(games: int) -> list[PlayerView]:
    """Views of hebrew-preset medium self-play where a deliberate call (R15) is legal."""
    rules = RuleSet.preset("hebrew")
    out: list[PlayerView] = []
    for seed in range(games):
        game = Game.new(rules, 2, seed=seed)
        bots = [get_bot("medium", seed * 2 + s) for s in range(2)]
        while game.phase != Phase.GAME_OVER:
            if game.phase == Phase.ROUND_OVER:
                game.next_round()
                continue
            assert game.to_move is not None
            view = game.view(game.to_move)
            if YANIV in view.legal_moves and view.hand_value > rules.yaniv_threshold:
                out.append(view)
            game.apply(bots[game.to_move].choose(view))
    return out


def test_a_clear_deliberate_call_is_priced_on_fewer_deals_with_the_same_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Pricing a deliberate call stops after CLEAR_DEALS deals where the verdict is clear; over
    # the positions of a few games it draws well under half the deals, and every verdict is
    # the one all CALL_WORLDS deals give (some of them calls that pay).
    views = _deliberate_views(3)
    assert len(views) > 100
    drawn: list[int] = []
    real = coach._deal_values

    def counting(*args: Any) -> list[tuple[int, ...]]:
        drawn.append(args[3])
        return real(*args)

    monkeypatch.setattr(coach, "_deal_values", counting)
    quick = [call_expectation(v, 0.0) > 0 for v in views]
    quick_deals = sum(drawn)
    drawn.clear()
    monkeypatch.setattr(coach, "CLEAR_DEALS", coach.CALL_WORLDS)
    monkeypatch.setattr(coach, "_last", None)
    full = [call_expectation(v, 0.0) > 0 for v in views]
    assert sum(drawn) == coach.CALL_WORLDS * len(drawn)
    assert quick == full and any(full)
    assert quick_deals < 0.5 * sum(drawn)


def test_priced_deals_are_shared_across_positions_without_changing_a_value() -> None:
    # The table of priced showdowns is shared by every position of the same scores: a value
    # computed with it warm is the value computed from nothing.
    views = _deliberate_views(1)[:40]
    warm = [call_value(v) for v in views]
    for v, w in zip(views, warm, strict=True):
        coach._PRICED.clear()
        coach._last = None
        assert call_value(v) == w
