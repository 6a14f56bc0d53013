"""A round's scoring (R14-R20) from the caller and the hands' values: the one home of it.

The engine's showdown scores through ``score_round``, and so does anything that keeps score
of a game played elsewhere (the web app's score keeper for real cards): a round is known by
who called Yaniv and the value of each hand still in the game, nothing more.

>>> from yaniv.rules import RuleSet
>>> r = score_round(RuleSet(), scores=[65, 40, 0], out=[False] * 3, values=[5, 3, 12], caller=0)
>>> r.kind.value, r.points, r.scores, r.winner
('assaf', (35, 0, 12), (50, 40, 12), 1)
>>> check_round(RuleSet(), [False] * 3, [9, 3, 12], caller=0)
Traceback (most recent call last):
...
yaniv.errors.SetupError: a Yaniv is called at 7 or less: the caller's hand is 9
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .cards import NAMES, VALUE, Card, deck, parse_cards
from .errors import CardError, SetupError, is_whole
from .rules import RuleSet
from .state import ResultKind


@dataclass(frozen=True, slots=True)
class RoundScore:
    """What a round's showdown makes of the scores: the fields of a RoundResult but the hands,
    and who is out after it."""

    kind: ResultKind
    caller: int
    hand_values: tuple[int, ...]
    assafers: tuple[int, ...]  # the seats that scored 0 beside or instead of the caller
    points: tuple[int, ...]  # round points before the bonus
    bonuses: tuple[int, ...]  # points taken off by the bonus (R18)
    scores: tuple[int, ...]  # after the bonus
    newly_out: tuple[int, ...]
    out: tuple[bool, ...]  # every seat out after the round (R19)
    winner: int
    next_starter: int | None  # None when the game is over
    game_winners: tuple[int, ...]  # empty unless the game is over


def bonus(score: int, rules: RuleSet) -> int:
    """Points the bonus (R18) takes off a score that changed this round and landed on ``score``."""
    if score == 0 or rules.bonus == "none":
        return 0
    if rules.bonus == "halve":
        return score - score // 2 if score in rules.bonus_targets else 0
    return rules.bonus_amount if score % rules.bonus_step == 0 else 0


def _remaining_from(seat: int, out: Sequence[bool]) -> int:
    """``seat`` if it is still in the game, else the next one clockwise that is."""
    n = len(out)
    for k in range(n):
        s = (seat + k) % n
        if not out[s]:
            return s
    return seat  # everyone is out: the game is over and no one starts


def score_round(
    rules: RuleSet,
    scores: Sequence[int],
    out: Sequence[bool],
    values: Sequence[int],
    caller: int,
) -> RoundScore:
    """Score a showdown (R14-R20): ``values`` are the hands' values (those of seats out are
    ignored), ``scores`` and ``out`` the game before the round. Unchecked: ``check_round``
    says what cannot be."""
    n = len(values)
    c = values[caller]
    active = [s for s in range(n) if not out[s]]
    # Others in clockwise order from the caller, so ties resolve to the first of them (R17).
    others = [s for s in ((caller + k) % n for k in range(1, n)) if not out[s]]
    points = [0] * n
    if c > rules.yaniv_threshold:  # R15: a deliberate Assaf
        kind = ResultKind.DELIBERATE
        low = [s for s in others if values[s] <= rules.yaniv_threshold]
    else:
        low = [s for s in others if values[s] <= c]
        kind = ResultKind.ASSAF if low else ResultKind.YANIV
    best = min((values[s] for s in low), default=0)
    zero = tuple(s for s in low if values[s] == best)
    # Of several tied, one alone where assaf_ties says so: the first clockwise from the
    # caller, or the first counter-clockwise (the last clockwise) (R14, R15).
    if rules.assaf_ties == "clockwise":
        zero = zero[:1]
    elif rules.assaf_ties == "counterclockwise":
        zero = zero[-1:]
    if kind is ResultKind.YANIV:
        for s in others:
            points[s] = values[s]
    elif kind is ResultKind.ASSAF and rules.assaf_scoring == "caller_only":
        points[caller] = rules.assaf_penalty  # R14's option; a deliberate call is always R15
    else:
        points[caller] = c + rules.assaf_penalty
        for s in others:
            if s not in zero:
                points[s] = values[s]

    new_scores = list(scores)
    bonuses = [0] * n
    for s in active:
        if points[s]:
            score = new_scores[s] + points[s]
            bonuses[s] = bonus(score, rules)
            new_scores[s] = score - bonuses[s]

    new_out = list(out)
    newly_out: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    if rules.end_mode == "elimination":
        newly_out = tuple(s for s in active if new_scores[s] > rules.score_limit)
        for s in newly_out:
            new_out[s] = True
        remaining = [s for s in active if not new_out[s]]
        if len(remaining) == 1:
            winners = (remaining[0],)
        elif not remaining:
            lowest = min(new_scores[s] for s in newly_out)
            winners = tuple(s for s in newly_out if new_scores[s] == lowest)
    elif any(new_scores[s] > rules.score_limit for s in active):
        lowest = min(new_scores[s] for s in active)
        winners = tuple(s for s in active if new_scores[s] == lowest)

    if kind is ResultKind.YANIV:
        winner = caller
    elif zero:
        winner = zero[0]
    else:
        winner = others[0]
    winner = _remaining_from(winner, new_out)
    next_starter: int | None = None
    if not winners:
        base = winner if rules.next_starter == "winner" else caller
        next_starter = _remaining_from(base, new_out)
    return RoundScore(
        kind=kind,
        caller=caller,
        hand_values=tuple(values),
        assafers=zero,
        points=tuple(points),
        bonuses=tuple(bonuses),
        scores=tuple(new_scores),
        newly_out=newly_out,
        out=tuple(new_out),
        winner=winner,
        next_starter=next_starter,
        game_winners=winners,
    )


# ------------------------------------------------------------------ what a round may be


def value_bounds(rules: RuleSet) -> tuple[int, int]:
    """The lowest and highest value a hand may have at a showdown under ``rules``.

    A hand holds 1 to ``hand_size`` cards (R12), none only after a slap that emptied it
    (R22's ``slap_empty_hand``); every value between the bounds can be held.
    """
    low = 0 if rules.jokers or rules.slap_empty_hand != "never" else 1
    return low, 10 * rules.hand_size


def hand_of(rules: RuleSet, text: str | Iterable[str]) -> list[Card]:
    """The cards of a hand given as notation (``"7H 3C RJ"``), checked against the rules'
    deck and hand size; SetupError in words otherwise."""
    try:
        cards = parse_cards(text)
    except CardError as exc:
        raise SetupError(str(exc)) from None
    allowed = set(deck(rules.jokers))
    for c in cards:
        if c not in allowed:
            raise SetupError(
                f"{NAMES[c]} is not in the deck of these rules ({rules.jokers} jokers)"
            )
    if len(set(cards)) != len(cards):
        twice = next(NAMES[c] for c in cards if cards.count(c) > 1)
        raise SetupError(f"{twice} is twice in the hand")
    if len(cards) > rules.hand_size:
        raise SetupError(
            f"a hand holds {rules.hand_size} cards at most under these rules, not {len(cards)}"
        )
    if not cards and rules.slap_empty_hand == "never":
        raise SetupError("a hand holds at least one card")
    return cards


def _namer(names: Sequence[str] | None) -> Callable[[int], str]:
    """How a message names seat ``s``: by its name, else as "player s + 1"."""
    if names is None:
        return lambda s: f"player {s + 1}"
    return lambda s: names[s] if 0 <= s < len(names) else f"player {s + 1}"


def check_round(
    rules: RuleSet,
    out: Sequence[bool],
    values: Sequence[int | None],
    caller: int,
    names: Sequence[str] | None = None,
) -> list[int]:
    """The hands' values of a round to score, checked: one per seat, None for a seat out and
    a whole number within ``value_bounds`` for each other, a caller in the game whose call the
    rules allow (R13, R15). Returns the values with 0 for seats out; SetupError in words,
    naming a seat by ``names`` where they are given ("player 2" otherwise)."""
    n = len(out)
    who = _namer(names)
    if len(values) != n:
        raise SetupError(f"a round gives a hand value for each of the {n} players")
    if not is_whole(caller) or not 0 <= caller < n:
        raise SetupError(f"the caller {caller!r:.20} is not one of the {n} players")
    if out[caller]:
        raise SetupError(f"{who(caller)} is out of the game and cannot call Yaniv")
    low, high = value_bounds(rules)
    checked: list[int] = []
    for s, v in enumerate(values):
        if out[s]:
            if v is not None:
                raise SetupError(f"{who(s)} is out of the game: no hand value for them")
            checked.append(0)
            continue
        if v is None:
            raise SetupError(f"{who(s)} is in the game: their hand value is missing")
        if not is_whole(v):
            raise SetupError(f"{who(s)}'s hand value {v!r:.20} is not a whole number")
        if not low <= v <= high:
            raise SetupError(
                f"{who(s)}'s hand value {v} cannot be a hand: with up to "
                f"{rules.hand_size} cards a hand is worth {low} to {high}"
            )
        checked.append(v)
    c = checked[caller]
    if c > rules.yaniv_threshold and not rules.yaniv_above_threshold:
        raise SetupError(
            f"a Yaniv is called at {rules.yaniv_threshold} or less: the caller's hand is {c}"
        )
    return checked


def round_values(
    rules: RuleSet,
    hands: Sequence[int | str | Sequence[str] | None],
    names: Sequence[str] | None = None,
) -> tuple[list[int | None], list[list[Card] | None]]:
    """A round's hands as a score keeper gives them, each a value, the cards (notation: a
    text or a list of cards) or None for a seat out: the values and, where given, the cards.
    A card may be in one hand only; SetupError in words."""
    who = _namer(names)
    values: list[int | None] = []
    cards: list[list[Card] | None] = []
    seen: dict[Card, int] = {}
    for s, hand in enumerate(hands):
        if hand is None or is_whole(hand):
            values.append(hand)
            cards.append(None)
            continue
        if isinstance(hand, bool | int | float):
            raise SetupError(f"{who(s)}'s hand {hand!r:.20} is not a whole number")
        if not isinstance(hand, str) and not (
            isinstance(hand, Sequence) and all(isinstance(c, str) for c in hand)
        ):
            raise SetupError(f"{who(s)}'s hand must be a value, cards such as '7H 3C', or nothing")
        try:
            held = hand_of(rules, hand)
        except SetupError as exc:
            raise SetupError(f"{who(s)}'s hand: {exc}") from None
        for c in held:
            if c in seen:
                raise SetupError(
                    f"{NAMES[c]} cannot be in the hands of {who(seen[c])} and {who(s)}"
                )
            seen[c] = s
        values.append(sum(VALUE[c] for c in held))
        cards.append(held)
    return values, cards


def score_rounds(
    rules: RuleSet,
    players: int,
    rounds: Iterable[tuple[int, Sequence[int | None]]],
    names: Sequence[str] | None = None,
) -> list[RoundScore]:
    """A whole game's scoring from its rounds, each (caller, hand values with None for a seat
    out), from scores of 0: each round checked (``check_round``) and scored (``score_round``)
    on the last one's scores. SetupError names the round that cannot be."""
    if not is_whole(players) or not 2 <= players <= 8:
        raise SetupError(f"{players!r:.20} players: Yaniv is played by 2 to 8 (R5)")
    scores: tuple[int, ...] = (0,) * players
    out: tuple[bool, ...] = (False,) * players
    results: list[RoundScore] = []
    for i, (caller, values) in enumerate(rounds, 1):
        if results and results[-1].game_winners:
            raise SetupError(f"round {i}: the game was over after round {i - 1}")
        try:
            checked = check_round(rules, out, values, caller, names)
        except SetupError as exc:
            raise SetupError(f"round {i}: {exc}") from None
        result = score_round(rules, scores, out, checked, caller)
        scores, out = result.scores, result.out
        results.append(result)
    return results


__all__ = [
    "RoundScore",
    "bonus",
    "check_round",
    "hand_of",
    "round_values",
    "score_round",
    "score_rounds",
    "value_bounds",
]
