"""Random legal play under random rule sets: invariants of the engine (R4-R22)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import rule_sets

from yaniv import Game, IllegalMoveError, MoveError, Phase, ResultKind, RuleSet, SetupError, record
from yaniv import discards as D
from yaniv.cards import VALUE, deck
from yaniv.moves import DRAW_STOCK, DRAWS, PASS, SLAPS, YANIV, Discard, Move, Slap
from yaniv.rules import CHOICES


def check_cards(game: Game) -> None:
    """Cards are conserved; hands are consistent; no active hand is empty."""
    cards: list[int] = []
    for seat in range(game.n):
        hand = game.hand(seat)
        assert game.counts[seat] == len(hand)
        assert game.values[seat] == sum(VALUE[c] for c in hand)
        if game.phase is Phase.START:
            # Mid-turn, a discard-first player may have shed the whole hand before drawing;
            # after a showdown, a player just out still shows the hand; a slap may empty a
            # hand where slap_empty_hand allows it (R22), which then may only call Yaniv.
            if game.out[seat]:
                assert not hand
            elif not hand:
                assert game.rules.slap_empty_hand == "yaniv_next"
                if seat == game.to_move:
                    assert list(game.legal_moves()) == [YANIV]
        cards += hand
    cards += game.stock
    for group in game.pile:
        assert group, "an empty group stays on the pile"
        cards += group
    assert sorted(cards) == deck(game.rules.jokers)


def candidates(game: Game, rng: random.Random) -> list[Move]:
    """Moves to try: yaniv, pass, draws and slaps, and random discards of held cards."""
    out: list[Move] = [YANIV, PASS, DRAW_STOCK, *rng.sample(DRAWS, 6), *rng.sample(SLAPS, 3)]
    out += [DRAWS[c] for c in game.pickable] + [SLAPS[c] for c in game.pickable]
    if game.drawn >= 0:
        out.append(SLAPS[game.drawn])
    p = game.to_move
    hand = game.hand(p) if p is not None else []
    for _ in range(6):
        if hand:
            k = rng.randint(1, len(hand))
            out.append(Discard(tuple(rng.sample(hand, k))))
    out.append(Discard((deck(2)[rng.randrange(54)],)))
    return out


def canonical(game: Game, move: Move) -> Move:
    move = D.as_laid(move, game.rules)  # a run given out of order, where one order lies (R9)
    if isinstance(move, Discard):
        kind = D.classify(move.cards, game.rules)
        if kind != D.BROKEN:
            return Discard(D.canonical(move.cards, kind, game.rules))
    return move


def expected_points(game: Game, caller: int, v: list[int]) -> tuple[ResultKind, list[int]]:
    """R14, R15 from the hand values ``v``, written independently of the engine's showdown."""
    rules = game.rules
    others = [s for s in game.active_seats() if s != caller]
    points = [0] * game.n
    if v[caller] > rules.yaniv_threshold:
        kind = ResultKind.DELIBERATE
        under = [s for s in others if v[s] <= rules.yaniv_threshold]
    else:
        under = [s for s in others if v[s] <= v[caller]]
        kind = ResultKind.ASSAF if under else ResultKind.YANIV
    lowest = [s for s in under if v[s] == min(v[u] for u in under)]
    # assaf_ties: of the tied lowest, the nearest on the caller's left or right alone.
    distance = {s: (s - caller) % game.n for s in lowest}
    if rules.assaf_ties == "clockwise" and lowest:
        lowest = [min(lowest, key=distance.__getitem__)]
    elif rules.assaf_ties == "counterclockwise" and lowest:
        lowest = [max(lowest, key=distance.__getitem__)]
    if kind is ResultKind.YANIV:
        for s in others:
            points[s] = v[s]
    elif kind is ResultKind.ASSAF and rules.assaf_scoring == "caller_only":
        points[caller] = rules.assaf_penalty
    else:
        points[caller] = v[caller] + rules.assaf_penalty
        for s in others:
            points[s] = 0 if s in lowest else v[s]
    return kind, points


def check_round_end(game: Game, before: Game, caller: int, values: list[int]) -> None:
    """R16-R20: points, bonus, elimination or first-over, winners, from the hand ``values`` at
    the showdown."""
    result = game.result
    assert result is not None
    rules = game.rules
    kind, points = expected_points(before, caller, values)
    assert result.kind is kind
    assert list(result.points) == points
    for s in range(game.n):
        raw = before.scores[s] + points[s]
        if points[s] == 0:
            assert game.scores[s] == before.scores[s]
        elif rules.bonus == "halve" and raw in rules.bonus_targets:
            assert game.scores[s] == raw // 2
        elif rules.bonus == "subtract" and raw % rules.bonus_step == 0:
            assert game.scores[s] == raw - rules.bonus_amount
        else:
            assert game.scores[s] == raw
    active = before.active_seats()
    if rules.end_mode == "elimination":
        for s in active:
            assert game.out[s] == (game.scores[s] > rules.score_limit)
        remaining = game.active_seats()
        assert game.is_over == (len(remaining) <= 1)
        if len(remaining) == 1:
            assert game.winners == (remaining[0],)
    else:
        over = any(game.scores[s] > rules.score_limit for s in active)
        assert game.is_over == over
        if over:
            low = min(game.scores[s] for s in active)
            assert game.winners == tuple(s for s in active if game.scores[s] == low)
    winner, starter = r17_oracle(before, caller, values, game.out, game.is_over)
    assert result.winner == winner
    assert result.next_starter == starter


def r17_oracle(
    before: Game, caller: int, v: list[int], out_after: list[bool], over: bool
) -> tuple[int, int | None]:
    """R17 and R6 read from RULES.md: the round's winner and who starts the next round.

    The winner is the successful caller, else the lowest of the others at or under the
    caller's value (R14) or the threshold (R15), ties to the first clockwise from the caller;
    with nobody there, the caller's left neighbour among the remaining players; an eliminated
    winner hands over to the next remaining player clockwise.
    """
    n, rules = before.n, before.rules
    clockwise = [(caller + k) % n for k in range(1, n)]
    others = [s for s in clockwise if not before.out[s]]
    limit = rules.yaniv_threshold if v[caller] > rules.yaniv_threshold else v[caller]
    low = [s for s in others if v[s] <= limit]

    def remaining_from(seat: int) -> int:
        return next(s for s in ((seat + k) % n for k in range(n)) if not out_after[s])

    if v[caller] <= rules.yaniv_threshold and not low:
        winner = caller
    elif low:
        best = min(v[s] for s in low)
        tied = [s for s in low if v[s] == best]  # clockwise from the caller
        winner = tied[-1] if rules.assaf_ties == "counterclockwise" else tied[0]
    else:
        winner = (
            next(s for s in others if not out_after[s])
            if any(not out_after[s] for s in others)
            else others[0]
        )
    if out_after[winner] and not all(out_after):
        winner = remaining_from(winner)
    if over:
        return winner, None
    return winner, winner if rules.next_starter == "winner" else remaining_from(caller)


@given(rule_sets(), st.integers(2, 8), st.integers(0, 2**32))
def test_random_play_keeps_every_rule(rules: RuleSet, players: int, seed: int) -> None:
    if players * rules.hand_size + 1 > 52 + rules.jokers:
        players = 2
    game = Game.new(rules, players, seed)
    rng = random.Random(seed)
    turn_start_count: dict[int, int] = {}
    for _ in range(300):
        check_cards(game)
        if game.phase is Phase.GAME_OVER:
            break
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            turn_start_count.clear()
            continue
        p = game.to_move
        assert p is not None
        if game.phase is Phase.START:
            for seat, count in turn_start_count.items():
                assert game.counts[seat] <= count, "a hand grew over a turn"
            turn_start_count = {p: game.counts[p]}
        legal = list(game.legal_moves())
        assert legal, "the player to act always has a move"
        assert len(set(legal)) == len(legal)
        listed = set(legal)
        moves = game.legal_moves()
        for move in candidates(game, rng):
            # Every way of asking agrees, for any laid order R9 permits (a set's is free).
            assert (move in moves) == game.is_legal(move) == (canonical(game, move) in listed)
            if move in moves:
                continue
            snapshot = game.fingerprint()
            with pytest.raises(MoveError):
                game.play(move)
            assert game.fingerprint() == snapshot
        other = (p + 1) % players
        snapshot = game.fingerprint()
        with pytest.raises(IllegalMoveError, match=f"seat {other} is not to move; seat {p} is"):
            game.play(legal[0], seat=other)
        assert game.fingerprint() == snapshot
        move = rng.choice(legal)
        if YANIV in listed and rng.random() < 0.5:
            move = YANIV
        before = game.clone()
        game.play(move, seat=p)
        if move == YANIV:
            check_round_end(game, before, p, before.values)
        elif isinstance(move, Slap) and not before.counts[p] - 1:  # R22's slap_empty_hand
            assert rules.slap_empty_hand != "never"
            values = [*before.values[:p], 0, *before.values[p + 1 :]]
            if rules.slap_empty_hand == "yaniv_now":  # the slap is a Yaniv call with 0
                check_round_end(game, before, p, values)
            else:
                assert game.phase is Phase.START and game.counts[p] == 0
        else:
            assert game.phase < Phase.ROUND_OVER
    replayed = record.replay(json.loads(record.dumps(game)))
    assert replayed.fingerprint() == game.fingerprint()


def test_clone_is_independent() -> None:
    game = Game.new(RuleSet(), 3, seed=4)
    copy = game.clone()
    game.play(game.legal_moves()[0])
    game.play("draw stock")
    assert copy.fingerprint() != game.fingerprint()
    assert copy.phase is Phase.START and len(copy.stock) == len(game.stock) + 1
    copy.play(copy.legal_moves()[-1])
    assert game.phase is Phase.START


def test_same_seed_same_game() -> None:
    def play(seed: int) -> str:
        game = Game.new(RuleSet(), 4, seed)
        rng = random.Random(seed)
        while not game.is_over:
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
            else:
                legal = game.legal_moves()
                game.play(YANIV if YANIV in legal else rng.choice(legal))
        return record.dumps(game)

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_first_round_deal() -> None:
    game = Game.new(RuleSet(hand_size=4), 5, seed=9)
    assert game.to_move == 1 and game.phase is Phase.START
    assert all(game.counts[s] == 4 for s in range(5))
    assert len(game.pile) == 1 and len(game.pile[0]) == 1
    assert len(game.stock) == 54 - 5 * 4 - 1


def test_refused_move_names_move_and_reason() -> None:
    game = Game.from_position(
        None, [["AH", "2H", "3H", "KS", "9C"], ["RJ", "5D"]], ["4C", "8S"], [["9S"]], to_move=0
    )
    with pytest.raises(IllegalMoveError, match=r"'discard AH 2H' by seat 0: the cards are not"):
        game.play("discard AH 2H")
    with pytest.raises(IllegalMoveError, match="does not hold RJ"):
        game.play("discard RJ")
    with pytest.raises(IllegalMoveError, match="over the Yaniv threshold 7"):
        game.play("yaniv")
    game.play("discard KS")
    with pytest.raises(IllegalMoveError, match="allowed: stock, 9S"):
        game.play("draw 4C")


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"hands": [["AH"], ["AH"]]}, "AH appears twice"),
        ({"hands": [["AH"]]}, "1 players"),
        ({"hands": [["AH"], []]}, "seat 1 is in the game but holds no card"),
        ({"hands": [["AH"], ["2H"]], "to_move": 5}, "seat 5 cannot be to move"),
        ({"hands": [["AH"], ["2H"]], "discards": []}, "at least one discard group"),
        ({"hands": [["AH"], ["2H"]], "discards": [["5H", "9C"]]}, "not a legal discard"),
        ({"hands": [["AH"], ["XX"]]}, "unknown card 'XX'"),
        ({"hands": [["AH"], ["2H"]], "scores": [1]}, "expected 2 non-negative"),
    ],
)
def test_bad_positions_are_refused(kwargs: dict[str, object], fragment: str) -> None:
    args: dict[str, object] = {"hands": [], "stock": ["4C"], "discards": [["9C"]], "to_move": 0}
    args.update(kwargs)
    with pytest.raises(SetupError) as info:
        Game.from_position(None, **args)  # type: ignore[arg-type]
    assert fragment in str(info.value)


def test_no_next_round_before_the_round_ends() -> None:
    game = Game.new(RuleSet(), 2, seed=1)
    before = game.fingerprint()
    with pytest.raises(IllegalMoveError, match="no next round"):
        game.next_round()
    assert game.fingerprint() == before


@pytest.mark.parametrize("how", ["seed", "system"])
def test_a_clone_deals_and_refills_like_its_original(how: str) -> None:
    rules = RuleSet(yaniv_threshold=0)  # nobody calls early: the stock runs out and refills
    if how == "seed":
        game = Game.new(rules, 2, seed=3)
    else:
        game = Game.new(rules, 2, rng=random.SystemRandom())
    copy = game.clone()
    for g in (game, copy):  # the same moves until a refill, then to a new deal each
        rng = random.Random(1)
        while not g.refills:
            g.play(rng.choice([m for m in g.legal_moves() if m != YANIV]))
        while g.phase is not Phase.ROUND_OVER:
            g.play(YANIV if YANIV in g.legal_moves() else rng.choice(g.legal_moves()))
        g.next_round()
    assert game.history[0].refills == copy.history[0].refills
    assert game.deal == copy.deal
    assert game.fingerprint() == copy.fingerprint()


def test_known_cards_in_a_built_position() -> None:
    game = Game.from_position(
        None, [["AH", "2C"], ["5H", "9S"]], ["4C"], [["9C"]], to_move=0, known=[[], ["9S"]]
    )
    assert game.view(0).known == ((), (game.hand(1)[1],))
    with pytest.raises(SetupError, match="does not hold: KS"):
        Game.from_position(
            None, [["AH", "2C"], ["5H", "9S"]], ["4C"], [["9C"]], to_move=0, known=[["KS"], []]
        )


@pytest.mark.parametrize(
    ("pickup", "taken", "left"),
    [("any", "6H", ["5H", "7H"]), ("ends", "7H", ["5H", "6H"]), ("ends", "5H", ["6H", "7H"])],
)
def test_a_card_drawn_from_a_group_leaves_the_rest_in_laid_order(
    pickup: str, taken: str, left: list[str]
) -> None:
    game = Game.from_position(
        {"pickup": pickup}, [["AC", "2D"], ["9S", "KD"]], ["4C"], [["5H", "6H", "7H"]], to_move=0
    )
    game.play("discard AC")
    game.play(f"draw {taken}")
    assert game.position()["discards"] == [left, ["AC"]]
    assert game.kinds[0] == D.BROKEN  # a group that lost a card is no longer a legal discard
    assert game.pickable == (0,)  # the next seat may take the ace just discarded
    game.play("discard 9S")
    game.play("draw AC")  # a single card taken: its group leaves the pile
    assert game.position()["discards"] == [left, ["9S"]]


@given(
    st.integers(2, 8),
    st.integers(0, 2**32),
    st.sampled_from(CHOICES["assaf_ties"]),
    st.booleans(),
    st.sampled_from(CHOICES["assaf_scoring"]),
)
def test_showdowns_with_ties_follow_assaf_ties(
    players: int, seed: int, ties: str, deliberate: bool, scoring: str
) -> None:
    # Low hands from few values, so that ties for the lowest are the rule, not the exception.
    rng = random.Random(seed)
    rules = RuleSet(
        assaf_ties=ties, yaniv_above_threshold=deliberate, assaf_scoring=scoring, jokers=0
    )
    cards = [c for c in deck(0) if VALUE[c] <= 4]
    rng.shuffle(cards)
    hands = [[cards.pop()] for _ in range(players)]
    caller = rng.randrange(players)
    if deliberate and rng.random() < 0.5:
        hands[caller] = [c for c in deck(0) if VALUE[c] == 10][:2]  # 20: above the threshold
    rest = [c for c in deck(0) if c not in {x for h in hands for x in h}]
    game = Game.from_position(rules, hands, rest[:5], [rest[5:6]], caller)
    before = game.clone()
    game.play("yaniv")
    check_round_end(game, before, caller, before.values)
