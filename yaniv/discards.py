"""What may be discarded (R8, R9), what may be drawn from a discard (R10), and slaps (R22).

Discards are classified as a single card, a set or a run. The legal discards of a hand are
computed once per distinct hand and rule variant and then served from a table, so that listing
them in a game's hot loop is a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import combinations, permutations
from typing import Any, ClassVar, TypeVar, cast

from . import compiled as _compiled
from .cards import RANK, SUIT, Card, cards_of, cards_text
from .moves import Discard, Move
from .rules import RuleSet

SINGLE, SET, RUN = 0, 1, 2
#: Not a legal discard (or, for an old pile group, one that lost a card).
BROKEN = -1


def classify(cards: tuple[Card, ...], rules: RuleSet) -> int:
    """SINGLE, SET or RUN for a legal discard in this laid order; BROKEN otherwise.

    A group that reads both as a set and as a run (one natural card and jokers, with
    ``jokers_in_sets``) is a set. Two jokers alone are a set with ``joker_pair``.
    """
    n = len(cards)
    if n == 1:
        return SINGLE
    naturals = [c for c in cards if c < 52]
    if not naturals:
        return SET if n == 2 and rules.joker_pair else BROKEN
    rank = RANK[naturals[0]]
    if all(RANK[c] == rank for c in naturals) and (len(naturals) == n or rules.jokers_in_sets):
        return BROKEN if rules.max_set and n > rules.max_set else SET
    if n < 3 or len(naturals) < rules.run_naturals:
        return BROKEN
    if rules.joker_in_run == "never" and len(naturals) != n:
        return BROKEN
    suit = SUIT[naturals[0]]
    first = next(i for i, c in enumerate(cards) if c < 52)
    low = RANK[cards[first]] - first
    if low < 1 or low + n - 1 > 13:
        return BROKEN
    for i, c in enumerate(cards):
        if c < 52 and (SUIT[c] != suit or RANK[c] != low + i):
            return BROKEN
    if rules.joker_in_run == "gaps_only" and (cards[0] >= 52 or cards[-1] >= 52):
        return BROKEN
    return RUN


def laid_orders(cards: Sequence[Card], rules: RuleSet) -> list[tuple[Card, ...]]:
    """The orders in which ``cards`` lie as a run (R9's input convenience), whatever the order
    they are given in; the jokers keep the order they were given in among themselves.

    >>> from yaniv.cards import parse_cards, cards_text
    >>> [cards_text(o) for o in laid_orders(parse_cards("5H 3H 4H"), RuleSet())]
    ['3H 4H 5H']
    >>> [cards_text(o) for o in laid_orders(parse_cards("6H RJ 5H"), RuleSet())]
    ['RJ 5H 6H', '5H 6H RJ']
    """
    n = len(cards)
    if n < 3:
        return []
    jokers = [c for c in cards if c >= 52]
    naturals = sorted((c for c in cards if c < 52), key=RANK.__getitem__)
    if not naturals or len({RANK[c] for c in naturals}) != len(naturals):
        return []
    lo, hi = RANK[naturals[0]], RANK[naturals[-1]]
    extra = n - (hi - lo + 1)  # the jokers left over once the gaps are filled
    if extra < 0:
        return []
    by_rank = {RANK[c]: c for c in naturals}
    out = []
    for above in range(extra + 1):  # the leftover jokers above the naturals, the rest below
        start = lo - (extra - above)
        if start < 1 or start + n - 1 > 13:
            continue
        fill = iter(jokers)
        laid = tuple(by_rank[r] if r in by_rank else next(fill) for r in range(start, start + n))
        if classify(laid, rules) == RUN:
            out.append(laid)
    return out


def orders_text(orders: Sequence[tuple[Card, ...]]) -> str:
    """Why cards given out of order are refused where they lie as a run in several orders."""
    return "lie as a run in more than one order: " + " or ".join(cards_text(o) for o in orders)


def as_laid(move: Move, rules: RuleSet) -> Move:
    """``move``, or, for a discard given out of order whose cards lie as a run in exactly one
    order, that discard in its laid order (R9)."""
    if isinstance(move, Discard) and len(move.cards) > 2 and classify(move.cards, rules) == BROKEN:
        orders = laid_orders(move.cards, rules)
        if len(orders) == 1:
            return Discard(orders[0])
    return move


def run_low(cards: tuple[Card, ...]) -> int:
    """The rank of a run's first position (a joker there stands for this rank)."""
    for i, c in enumerate(cards):
        if c < 52:
            return RANK[c] - i
    raise ValueError("a run needs a natural card")


def pickable(group: tuple[Card, ...], kind: int, pickup: str) -> tuple[Card, ...]:
    """The cards of the previous discard that may be drawn under option ``pickup`` (R10)."""
    if len(group) == 1:
        return group
    if kind == BROKEN:
        return (group[0], group[-1])
    if pickup == "ends" or (pickup == "run_ends_set_any" and kind == RUN):
        return (group[0], group[-1])
    if kind == SET:
        return group
    if pickup == "run_top_set_any":
        return (group[-1],)
    # pickup == "any": a joker inside a run can never be taken.
    inner = tuple(c for c in group[1:-1] if c < 52)
    return (group[0], *inner, group[-1])


def slap_position(
    group: tuple[Card, ...], kind: int, card: Card, mode: str, max_set: int = 0
) -> int:
    """Where ``card`` may be slapped onto ``group``: 1 at the end, -1 at the start, 0 not at all.

    A joker is never slapped, and a set's jokers never make a card match (R22); a slap never
    makes a set larger than ``max_set`` (R8).
    """
    if mode == "off" or card >= 52 or kind == BROKEN:
        return 0
    if kind != RUN:
        if max_set and len(group) >= max_set:
            return 0
        natural = next((c for c in group if c < 52), None)
        return 1 if natural is not None and RANK[natural] == RANK[card] else 0
    if mode != "rank_or_run":
        return 0
    suit = next(SUIT[c] for c in group if c < 52)
    if SUIT[card] != suit:
        return 0
    low = run_low(group)
    if RANK[card] == low + len(group):
        return 1
    if RANK[card] == low - 1:
        return -1
    return 0


def canonical(cards: tuple[Card, ...], kind: int, rules: RuleSet) -> tuple[Card, ...]:
    """The one laid order that ``legal_discards`` lists for discards with the same outcome.

    Only a set's order is free, and it matters only through the cards at its ends, which
    pickup ``ends`` makes drawable, and through its last card, after which a slap is laid.
    """
    if kind != SET:
        return cards
    if rules.pickup != "ends" or min(cards) >= 52:  # no natural card: the joker pair
        return tuple(sorted(cards))
    first, last = cards[0], cards[-1]
    if rules.slapdown == "off" and first > last:
        first, last = last, first
    if len(cards) == 2:
        return (first, last)
    return (first, *sorted(cards[1:-1]), last)


_M = TypeVar("_M", bound=Move, covariant=True)


class MoveList(tuple[_M, ...]):
    """Legal moves, one per distinct outcome; ``in`` also finds a set laid in any other order.

    R9 leaves a set's order to the player, so ``discard TC TS`` is legal and ``in`` the list
    whenever ``discard TS TC`` is listed; a run given out of order is ``in`` it where its
    cards lie in one order only. Each rule variant has its own subclass (made by
    ``move_list``) that knows the rules, so an instance is exactly a tuple in memory.
    """

    __slots__ = ()
    rules: ClassVar[RuleSet] = RuleSet()

    def __contains__(self, move: object) -> bool:
        if tuple.__contains__(self, move):
            return True
        if isinstance(move, Discard) and len(move.cards) > 1:
            rules = self.rules
            kind = classify(move.cards, rules)
            if kind == SET:
                return tuple.__contains__(self, Discard(canonical(move.cards, SET, rules)))
            if kind == BROKEN:  # a run given out of order, where only one order lies (R9)
                laid = as_laid(move, rules)
                return laid is not move and tuple.__contains__(self, laid)
        return False


#: What legal discards and their canonical orders depend on: jokers_in_sets, joker_in_run,
#: the set order (0: sorted, 1: ends as a pair, 2: every first and last card), joker_pair,
#: run_naturals and max_set.
Variant = tuple[bool, str, int, bool, int, int]

_LIST_TYPES: dict[Variant, type[MoveList[Any]]] = {}


#: The last rule set asked about and its variant: the bots' rollouts ask a million times for
#: one rule set's. A RuleSet is immutable, and the pair is replaced whole (a thread reads a
#: matching one).
_LAST_VARIANT: tuple[RuleSet, Variant] | None = None


def variant(rules: RuleSet) -> Variant:
    """What legal discards and their canonical order depend on: one table per variant."""
    global _LAST_VARIANT
    last = _LAST_VARIANT
    if last is not None and last[0] is rules:
        return last[1]
    order = 0 if rules.pickup != "ends" else (2 if rules.slapdown != "off" else 1)
    v = (
        rules.jokers_in_sets,
        rules.joker_in_run,
        order,
        rules.joker_pair,
        rules.run_naturals,
        rules.max_set,
    )
    _LAST_VARIANT = (rules, v)
    return v


def move_list(moves: Iterable[_M], rules: RuleSet) -> MoveList[_M]:
    """``moves`` as a MoveList whose ``in`` knows the orders these rules permit."""
    return _list_type(variant(rules), rules)(moves)


def _list_type(key: Variant, rules: RuleSet) -> type[MoveList[Any]]:
    found = _LIST_TYPES.get(key)
    if found is None:
        found = _LIST_TYPES[key] = cast(
            "type[MoveList[Any]]",
            type("MoveList", (MoveList,), {"__slots__": (), "rules": rules}),
        )
    return found


#: Whole hands kept per rule variant. Hands rarely repeat across games, so a small table
#: serves nearly every hit (the same hand asked again within a turn or a search) and keeps
#: memory flat over any number of games; composing a new hand costs a few microseconds.
_TABLE_LIMIT = 1 << 15
#: Per rule variant: whole hand -> its discards; and the parts they are composed of.
_TABLES: dict[Variant, dict[int, MoveList[Discard]]] = {}
_SETS: dict[Variant, dict[int, tuple[Discard, ...]]] = {}
_RUNS: dict[Variant, dict[int, tuple[Discard, ...]]] = {}
#: Per rule variant and path (True: compiled): the function that serves a hand's discards
#: from those tables. The compiled lister keeps its own table of whole hands and shares the
#: per-rank and per-suit tables, which the same Python functions fill.
_LISTERS: dict[tuple[Variant, bool], Callable[[int], MoveList[Discard]]] = {}
#: Per rule variant: the compiled lister's whole hands -> their discards.
_CTABLES: dict[Variant, dict[int, MoveList[Discard]]] = {}
#: Per rule variant: the functions that make (and keep) a rank's sets and a suit's runs.
_PARTS: dict[Variant, tuple[Callable[[int], tuple[Discard, ...]], ...]] = {}
#: The joker pair (R8's ``joker_pair``), in its one laid order.
JOKER_PAIR = Discard((52, 53))

_SINGLES: tuple[Discard, ...] = tuple(Discard((c,)) for c in range(54))
_JOKER_BITS = (1 << 52) | (1 << 53)
_SUIT_MASK = (1 << 13) - 1
#: The four cards of each rank, by its bit in a suit's mask (0 for the ace).
_RANK_BITS = [sum(1 << (s * 13 + r) for s in range(4)) for r in range(13)]
#: The naturals that begin three ranks in a row of their suit (ranks A..J): ``h & h >> 1 &
#: h >> 2 & _RUN_STARTS`` is 0 exactly when no suit holds three cards in a row.
_RUN_STARTS = sum(1 << (s * 13 + r) for s in range(4) for r in range(11))


def legal_discards(hand: int, rules: RuleSet) -> MoveList[Discard]:
    """Every legal discard of the hand (a bitmask), one per distinct outcome, in canonical order.

    Served from a table per hand; a hand seen for the first time is composed from its singles,
    the sets of each of its ranks and the runs of each of its suits, which have tables of
    their own (few distinct ones exist, so they are nearly always found there).
    """
    return discards_of(rules)(hand)


def discards_of(rules: RuleSet, compiled: bool | None = None) -> Callable[[int], MoveList[Discard]]:
    """``legal_discards`` for these rules, as a function of the hand alone (a game keeps one:
    its hot loop then skips finding the rules' tables at every turn). ``compiled``: the
    compiled core's (True, where it is built) or the pure-Python one (False); by default, as
    ``yaniv.compiled`` chooses. Both give equal lists of the same Discard objects."""
    key = variant(rules)
    core = _compiled.choose(compiled)
    found = _LISTERS.get((key, core is not None))
    if found is None:
        pure = _LISTERS.get((key, False))
        if pure is None:
            pure = _LISTERS[key, False] = _lister(key, rules)
        found = pure
        if core is not None:
            found = _LISTERS[key, True] = core.Lister(
                _CTABLES.setdefault(key, {}),
                _SETS[key],
                _RUNS[key],
                _list_type(key, rules),
                _SINGLES,
                *_PARTS[key],
                JOKER_PAIR if rules.joker_pair else None,
                rules.jokers_in_sets,
                rules.joker_in_run != "never",
                rules.run_naturals,
                _TABLE_LIMIT,
                pure,
            )
    return found


def _lister(key: Variant, rules: RuleSet) -> Callable[[int], MoveList[Discard]]:
    jokers_in_sets, joker_in_run, order, joker_pair, run_naturals, max_set = key
    pair = JOKER_PAIR if joker_pair else None
    table: dict[int, MoveList[Discard]] = _TABLES.setdefault(key, {})
    sets = _SETS.setdefault(key, {})
    runs = _RUNS.setdefault(key, {})
    make = _list_type(key, rules)
    get = table.get

    def of_rank(part: int) -> tuple[Discard, ...]:
        found = sets.get(part)
        if found is None:
            found = sets[part] = tuple(Discard(cs) for cs in _rank_sets(part, order, max_set))
        return found

    def of_suit(part: int) -> tuple[Discard, ...]:
        found = runs.get(part)
        if found is None:
            found = runs[part] = tuple(
                Discard(cs) for cs in _suit_runs(part, joker_in_run, jokers_in_sets, run_naturals)
            )
        return found

    def lister(hand: int) -> MoveList[Discard]:
        found = get(hand)
        if found is None:
            if len(table) >= _TABLE_LIMIT:
                table.clear()
            found = table[hand] = make(
                compose(
                    hand,
                    jokers_in_sets,
                    joker_in_run,
                    _SINGLES,
                    of_rank,
                    of_suit,
                    pair=pair,
                    run_naturals=run_naturals,
                )
            )
        return found

    # The compiled lister composes from the same parts, made by these same functions.
    _PARTS[key] = (of_rank, of_suit)
    return lister


_T = TypeVar("_T")


def compose(
    hand: int,
    jokers_in_sets: bool,
    joker_in_run: str,
    singles: Sequence[_T],
    of_rank: Callable[[int], Sequence[_T]],
    of_suit: Callable[[int], Sequence[_T]],
    *,
    pair: _T | None = None,
    run_naturals: int = 1,
) -> list[_T]:
    """A hand's discards from its parts: ``singles[card]`` for each card, ``of_rank(part)`` for
    the cards of each rank held twice or more (with the jokers where they may join a set) and
    ``of_suit(part)`` for the cards of each suit held three times or more (with the jokers
    where they may join a run, ``run_naturals`` of them at least), and ``pair`` for both jokers
    where they are a set. The callers cache each part's discards, in their own form.

    The order: the naturals in card order, each card's single followed by its rank's sets if
    it is the rank's first card, then by its suit's runs if it is the suit's first card; the
    jokers' singles last, then their pair."""
    out: list[_T] = []
    append, extend = out.append, out.extend
    if hand < 1 << 52:  # no joker: most hands hold only single discards, found by bit tricks
        fold = hand | hand >> 26
        if ((fold | fold >> 13) & _SUIT_MASK).bit_count() == hand.bit_count() and not (
            hand & hand >> 1 & hand >> 2 & _RUN_STARTS
        ):  # no rank twice, no three in a row of a suit: no set, no run
            rest = hand
            while rest:
                low = rest & -rest
                rest ^= low
                append(singles[low.bit_length() - 1])
            return out
    jokers = hand & _JOKER_BITS
    set_jokers = jokers if jokers_in_sets else 0
    run_jokers = 0 if joker_in_run == "never" else jokers
    runs_from = max(3 - run_jokers.bit_count(), run_naturals)  # the naturals a suit needs
    naturals = hand ^ jokers
    # Suit by suit, each a 13-bit mask of ranks (bit 0 for the ace).
    s0, s1, s2 = naturals & _SUIT_MASK, naturals >> 13 & _SUIT_MASK, naturals >> 26 & _SUIT_MASK
    s3 = naturals >> 39
    # The ranks with sets: held twice or more, or held at all where jokers join sets.
    with_sets = _SUIT_MASK if set_jokers else s0 & (s1 | s2 | s3) | s1 & (s2 | s3) | s2 & s3
    seen = 0  # the ranks of the suits done: a rank's sets follow its first card
    for base, seg in ((0, s0), (13, s1), (26, s2), (39, s3)):
        if not seg:
            continue
        sets_here = seg & with_sets & ~seen
        seen |= seg
        runs_here = seg.bit_count() >= runs_from  # the suit's runs follow its first card
        while seg:  # the suit's cards in rank order
            low = seg & -seg
            seg ^= low
            r = low.bit_length() - 1
            append(singles[base + r])
            if sets_here & low:
                extend(of_rank(hand & _RANK_BITS[r] | set_jokers))
            if runs_here:
                runs_here = False
                extend(of_suit(naturals & _SUIT_MASK << base | run_jokers))
    if jokers:  # the jokers come last, as single cards, then as a pair
        for c in (52, 53):
            if jokers >> c & 1:
                append(singles[c])
        if pair is not None and jokers == _JOKER_BITS:
            append(pair)
    return out


def _suit_runs(
    part: int, joker_in_run: str, jokers_in_sets: bool, run_naturals: int
) -> Iterator[tuple[Card, ...]]:
    """The runs of one suit's naturals in ``part``, with its jokers if any."""
    cards = cards_of(part)
    # With jokers in sets, one natural card and jokers read as a set, never as a run.
    fewest = max(2 if jokers_in_sets else 1, run_naturals)
    yield from _runs(
        [c for c in cards if c < 52],
        [c for c in cards if c >= 52],
        joker_in_run == "anywhere",
        fewest,
    )


def _rank_sets(part: int, order: int, max_set: int) -> Iterator[tuple[Card, ...]]:
    """The sets of one rank's naturals in ``part``, with its jokers if any, of at most
    ``max_set`` cards (0: any number)."""
    pool = cards_of(part)  # naturals first: jokers are the highest cards
    for size in range(2, min(len(pool), max_set or len(pool)) + 1):
        for chosen in combinations(pool, size):
            if chosen[0] < 52:  # at least one natural
                yield from _set_orders(chosen, order)


def _set_orders(chosen: tuple[Card, ...], order: int) -> Iterator[tuple[Card, ...]]:
    if order == 0 or (order == 1 and len(chosen) == 2):
        yield chosen
        return
    for first, last in permutations(chosen, 2):
        if order == 1 and first > last:
            continue
        yield (first, *(c for c in chosen if c != first and c != last), last)


def _runs(
    suited: list[Card], jokers: list[Card], ends_allowed: bool, fewest: int
) -> Iterator[tuple[Card, ...]]:
    suited = sorted(suited, key=RANK.__getitem__)
    joker_sets = [js for k in range(len(jokers) + 1) for js in combinations(jokers, k)]
    for k in range(fewest, len(suited) + 1):
        for naturals in combinations(suited, k):
            lo, hi = RANK[naturals[0]], RANK[naturals[-1]]
            gaps = hi - lo + 1 - k
            for js in joker_sets:
                extra = len(js) - gaps
                if extra < 0 or (extra and not ends_allowed) or hi - lo + 1 + extra < 3:
                    continue
                for below in range(extra + 1):
                    start, end = lo - below, hi + extra - below
                    if start < 1 or end > 13:
                        continue
                    by_rank = {RANK[c]: c for c in naturals}
                    holes = [r for r in range(start, end + 1) if r not in by_rank]
                    for filling in permutations(js):
                        placed = dict(by_rank)
                        placed.update(zip(holes, filling, strict=True))
                        yield tuple(placed[r] for r in range(start, end + 1))
