"""Legal discards (R8, R9) against a brute force over every ordered subset of a hand."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given
from hypothesis import strategies as st

from yaniv import discards as D
from yaniv.cards import NAMES, RANK, SUIT, cards_of, deck, make_card, mask_of, parse_cards
from yaniv.moves import Discard
from yaniv.rules import CHOICES, RuleSet

rule_sets = st.builds(
    RuleSet,
    jokers_in_sets=st.booleans(),
    joker_in_run=st.sampled_from(CHOICES["joker_in_run"]),
    pickup=st.sampled_from(CHOICES["pickup"]),
    slapdown=st.sampled_from(CHOICES["slapdown"]),
    joker_pair=st.booleans(),
    run_naturals=st.integers(1, 2),
    max_set=st.sampled_from([0, 2, 3, 4]),
)


@st.composite
def hands(draw: st.DrawFn) -> list[int]:
    """Hands rich in runs and sets: a few ranks and suits close together, often jokers."""
    suit = draw(st.integers(0, 3))
    low = draw(st.integers(1, 11))
    near = [
        make_card(r, s) for r in range(low, min(low + 4, 13) + 1) for s in (suit, (suit + 1) % 4)
    ]
    pool = sorted(set(near + draw(st.lists(st.sampled_from(deck(2)), max_size=3))))
    return draw(st.lists(st.sampled_from(pool + [52, 53]), min_size=1, max_size=6, unique=True))


def brute_force(hand: list[int], rules: RuleSet) -> set[tuple[int, ...]]:
    found = set()
    for k in range(1, len(hand) + 1):
        for laid in permutations(hand, k):
            kind = D.classify(laid, rules)
            if kind != D.BROKEN:
                found.add(D.canonical(laid, kind, rules))
    return found


@given(hands(), rule_sets)
def test_listing_is_exactly_every_legal_discard_once(hand: list[int], rules: RuleSet) -> None:
    listed = [d.cards for d in D.legal_discards(mask_of(hand), rules)]
    assert len(listed) == len(set(listed))
    assert set(listed) == brute_force(hand, rules)


def listed_in_order(hand: list[int], rules: RuleSet) -> list[tuple[int, ...]]:
    """The documented order: each natural in card order with its single, then (the first card
    of its rank) the rank's sets, then (the first card of its suit) the suit's runs; the jokers
    last. Sets and runs come in the order of their rank's or suit's own listing."""
    mask = mask_of(hand)
    set_jokers = [j for j in hand if j >= 52] if rules.jokers_in_sets else []
    run_jokers = [j for j in hand if j >= 52] if rules.joker_in_run != "never" else []
    out: list[tuple[int, ...]] = []
    ranks_seen: set[int] = set()
    suits_seen: set[int] = set()
    for c in sorted(c for c in hand if c < 52):
        out.append((c,))
        rank, suit = RANK[c], SUIT[c]
        if rank not in ranks_seen:
            ranks_seen.add(rank)
            part = [x for x in cards_of(mask) if x < 52 and RANK[x] == rank] + set_jokers
            if len(part) >= 2:
                every = D.legal_discards(mask_of(part), rules)
                out += [
                    d.cards
                    for d in every
                    if D.classify(d.cards, rules) == D.SET and min(d.cards) < 52  # not the pair
                ]
        if suit not in suits_seen:
            suits_seen.add(suit)
            part = [x for x in cards_of(mask) if x < 52 and SUIT[x] == suit] + run_jokers
            if len(part) >= 3:
                every = D.legal_discards(mask_of(part), rules)
                out += [d.cards for d in every if D.classify(d.cards, rules) == D.RUN]
    pair = [(52, 53)] if rules.joker_pair and {52, 53} <= set(hand) else []
    return out + [(j,) for j in sorted(hand) if j >= 52] + pair


@given(st.one_of(hands(), st.lists(st.sampled_from(deck(2)), max_size=8, unique=True)), rule_sets)
def test_listing_order_is_card_order_with_each_rank_and_suit_after_its_first_card(
    hand: list[int], rules: RuleSet
) -> None:
    # Sparse hands take compose's bit-trick path (no set, no run), rich ones its card walk:
    # both keep the order that random play, bots and recorded action indices rely on.
    listed = D.legal_discards(mask_of(hand), rules)
    assert [d.cards for d in listed] == listed_in_order(hand, rules)
    assert D.discards_of(rules)(mask_of(hand)) is listed  # one table per rule variant


def test_runs_are_laid_in_ascending_order_with_jokers_in_place() -> None:
    rules = RuleSet()
    assert D.classify(tuple(parse_cards("5H 6H RJ")), rules) == D.RUN
    assert D.run_low(tuple(parse_cards("RJ 5H 6H"))) == 4
    assert D.classify(tuple(parse_cards("6H 5H 7H")), rules) == D.BROKEN
    assert D.classify(tuple(parse_cards("RJ BJ 3C")), rules) == D.RUN
    assert D.classify(tuple(parse_cards("RJ BJ")), rules) == D.BROKEN
    assert D.classify(tuple(parse_cards("RJ BJ 2C")), RuleSet(joker_in_run="gaps_only")) == D.BROKEN
    assert D.classify(tuple(parse_cards("JD QD KD RJ")), rules) == D.BROKEN  # past the king


def test_pickable_cards_per_mode() -> None:
    run = tuple(parse_cards("RJ 5H 6H BJ"))
    a_set = tuple(parse_cards("QH QS QD"))
    assert D.pickable(run, D.RUN, "ends") == (run[0], run[-1])
    assert D.pickable(run, D.RUN, "run_top_set_any") == (run[-1],)
    assert D.pickable(a_set, D.SET, "run_top_set_any") == a_set
    assert D.pickable(run, D.RUN, "any") == run
    middle_joker = tuple(parse_cards("5S BJ 7S"))
    assert D.pickable(middle_joker, D.RUN, "any") == (middle_joker[0], middle_joker[-1])


def test_slap_positions() -> None:
    run = tuple(parse_cards("4H 5H 6H"))
    three_h, seven_h, seven_c = parse_cards("3H 7H 7C")
    assert D.slap_position(run, D.RUN, seven_h, "rank_or_run") == 1
    assert D.slap_position(run, D.RUN, three_h, "rank_or_run") == -1
    assert D.slap_position(run, D.RUN, seven_h, "rank") == 0
    assert D.slap_position(run, D.RUN, seven_c, "rank_or_run") == 0
    pair = tuple(parse_cards("7H 7S"))
    assert D.slap_position(pair, D.SET, seven_c, "rank") == 1
    assert D.slap_position(pair, D.SET, 52, "rank") == 0


def test_house_rule_options_of_what_is_a_discard() -> None:
    pair = tuple(parse_cards("RJ BJ"))
    assert D.classify(pair, RuleSet(joker_pair=True)) == D.SET
    assert D.classify(pair[::-1], RuleSet(joker_pair=True)) == D.SET
    assert D.canonical(pair[::-1], D.SET, RuleSet(joker_pair=True, slapdown="rank")) == pair
    assert D.classify(tuple(parse_cards("RJ BJ 3C")), RuleSet(run_naturals=2)) == D.BROKEN
    assert D.classify(tuple(parse_cards("RJ 2C 3C")), RuleSet(run_naturals=2)) == D.RUN
    four = tuple(parse_cards("7H 7S 7D 7C"))
    assert D.classify(four, RuleSet(max_set=3)) == D.BROKEN
    assert D.classify(four[:3], RuleSet(max_set=3)) == D.SET
    assert D.classify(four + (52,), RuleSet(jokers_in_sets=True, max_set=4)) == D.BROKEN
    # A slap never grows a set past max_set; a joker never matches (R8, R22).
    assert D.slap_position(four[:3], D.SET, four[3], "rank", max_set=3) == 0
    assert D.slap_position(four[:2], D.SET, four[3], "rank", max_set=3) == 1
    assert D.slap_position(pair, D.SET, four[0], "rank") == 0
    assert D.slap_position(four[:2], D.SET, 53, "rank_or_run") == 0


def test_a_run_given_out_of_order_lies_in_its_one_order() -> None:
    rules = RuleSet()

    def orders(text: str, rules: RuleSet = rules) -> list[str]:
        return [" ".join(NAMES[c] for c in o) for o in D.laid_orders(parse_cards(text), rules)]

    assert orders("5H 3H 4H") == ["3H 4H 5H"]
    assert orders("9H RJ 7H") == ["7H RJ 9H"]
    assert orders("KH QH RJ") == ["RJ QH KH"]  # nothing above the king
    assert orders("6H RJ 5H") == ["RJ 5H 6H", "5H 6H RJ"]  # the order decides
    assert orders("6H RJ 5H", RuleSet(joker_in_run="gaps_only")) == []
    assert orders("8H BJ 5H RJ") == ["5H BJ RJ 8H"]  # the jokers keep their given order
    assert orders("5H 5D 5S") == orders("3H 4D 5H") == orders("3H 5H") == []
    laid = D.as_laid(Discard(tuple(parse_cards("5H 3H 4H"))), rules)
    assert laid == Discard(tuple(parse_cards("3H 4H 5H")))
    ambiguous = Discard(tuple(parse_cards("6H RJ 5H")))
    assert D.as_laid(ambiguous, rules) is ambiguous
    listed = D.legal_discards(mask_of(parse_cards("3H 4H 5H 6H RJ")), rules)
    assert Discard(tuple(parse_cards("5H 3H 4H"))) in listed
    assert Discard(tuple(parse_cards("5H 3H 4H"))) not in list(listed)  # listed once, laid
    assert ambiguous not in listed
