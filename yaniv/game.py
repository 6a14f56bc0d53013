"""The engine: a whole game of Yaniv, round by round (R4-R22).

A ``Game`` is mutable. ``legal_moves()`` lists what the seat to move may do, ``play()`` checks
a move (or its text) and raises a ``MoveError`` that leaves the game unchanged, ``apply()`` is
the unchecked fast path, and ``clone()`` is cheap. Hands are bitmasks of card ints.

>>> game = Game.new(RuleSet(), players=2, seed=7)
>>> game.phase, game.to_move
(<Phase.START: 0>, 1)
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from hashlib import sha512
from typing import Any, cast

from . import compiled as _compiled
from . import discards as D
from .cards import NAMES, VALUE, Card, cards_of, cards_text, deck, mask_of, parse_cards
from .errors import CardError, IllegalMoveError, RuleError, SetupError, is_whole
from .events import Dealt, Discarded, Drew, Event, Passed, Refilled, Showdown, Slapped
from .moves import (
    DRAW_STOCK,
    DRAWS,
    PASS,
    SLAPS,
    YANIV,
    Discard,
    Draw,
    Move,
    Pass,
    Slap,
    Yaniv,
    parse_move,
)
from .rules import RuleSet
from .scoring import RoundScore, score_round
from .state import Deal, Phase, ResultKind, RoundLog, RoundResult
from .view import SPECTATOR, PlayerView

MIN_PLAYERS, MAX_PLAYERS = 2, 8
#: Scores a position may hold: far above any score limit, and small enough to stay exact.
MAX_SCORE = 10**6
_TURN_PHASES = ("start", "draw", "discard", "slap")
#: The Draw moves of each pickable tuple seen (a lookup at every draw costs less than making
#: them); few distinct tuples occur, and the limit keeps memory flat whatever the rules.
_DRAWS_OF: dict[tuple[Card, ...], tuple[Draw, ...]] = {}
_DRAWS_LIMIT = 1 << 12


@dataclass(frozen=True, slots=True)
class Veil:
    """What the other seats still see while a slap window is open (R22): the position before
    the stock draw, so that nobody learns that a window opened."""

    pile: tuple[tuple[Card, ...], ...]
    stock_size: int
    events: int  # how many of the round's events they see


_START, _DRAW, _DISCARD, _SLAP = Phase.START, Phase.DRAW, Phase.DISCARD, Phase.SLAP
_ROUND_OVER, _GAME_OVER = Phase.ROUND_OVER, Phase.GAME_OVER


class Game:
    """A game of Yaniv: the position of the current round, the scores, and the history."""

    __slots__ = (
        "rules",
        "n",
        "seed",
        "names",
        "scores",
        "out",
        "hands",
        "values",
        "counts",
        "known",
        "stock",
        "pile",
        "kinds",
        "pickable",
        "_to_move",
        "phase",
        "drawn",
        "round_no",
        "deal",
        "moves",
        "refills",
        "history",
        "result",
        "winners",
        "_script",
        "_refill_no",
        "_events",
        "_past_events",
        "_past_cache",
        "_veil",
        "_seen_cache",
        "_discards",
        "_fast",
    )

    rules: RuleSet
    n: int
    seed: int  # every shuffle is derived from it, the round and the refill number
    names: tuple[str, ...]
    scores: list[int]
    out: list[bool]
    hands: list[int]  # bitmask per seat
    values: list[int]  # hand value per seat
    counts: list[int]  # cards per seat
    known: list[int]  # per seat, the cards publicly known to be in that hand (taken from the pile)
    stock: list[Card]  # top card last
    pile: list[tuple[Card, ...]]  # discard groups, oldest first
    kinds: list[int]  # SINGLE / SET / RUN / BROKEN per pile group
    pickable: tuple[Card, ...]  # the cards of the previous discard that may be drawn this turn
    _to_move: int
    phase: Phase
    drawn: Card  # draw-first: the card just taken from the pile; slap: the stock card; else -1
    round_no: int
    deal: Deal | None  # None for a position built directly
    moves: list[tuple[int, Move]]  # this round's moves
    refills: list[tuple[int, tuple[Card, ...]]]
    history: list[RoundLog]  # finished rounds
    result: RoundResult | None  # the last finished round's
    winners: tuple[int, ...]
    _script: list[tuple[Card, ...]] | None  # replay: stock orders to use instead of shuffling
    _refill_no: int  # refills so far this round (a position may start with some)
    # Events are logged as (event class, *fields) tuples, made into Event values only when
    # read: simulations that never look pay for no objects.
    _events: list[Event | tuple[Any, ...]]  # this round's
    _past_events: tuple[Event | tuple[Any, ...], ...]  # the finished rounds' (shared by clones)
    _past_cache: list[Event]  # the finished rounds' events as values, made on demand
    _veil: Veil | None  # while a slap window is open: what the other seats see
    _seen_cache: dict[int | None, tuple[int, list[Event]]]  # per seat: this round's events
    # it may see, and how many of the round's events that covers (views ask at every turn)
    _discards: Callable[[int], D.MoveList[Discard]]  # the rules' legal discards of a hand
    _fast: bool  # whether the compiled core plays this game's hot paths

    # ----------------------------------------------------------------- construction

    @classmethod
    def new(
        cls,
        rules: RuleSet | None = None,
        players: int = 2,
        seed: int | None = None,
        *,
        rng: random.Random | None = None,
        names: Sequence[str] | None = None,
        deal: Deal | None = None,
        compiled: bool | None = None,
    ) -> Game:
        """A new game, its first round dealt: seat 0 deals and seat 1 starts (R4, R6).

        Every shuffle is derived from ``seed``, the round and the refill number, so a clone or
        a game resumed from its record deals exactly as the original. Without a seed, one is
        drawn from ``rng`` (or from the system's randomness) and kept in the record. A recorded
        ``deal`` replaces the first shuffle. ``compiled`` chooses the compiled core (True,
        where it is built) or the pure-Python engine (False) for this game; by default, as
        ``yaniv.compiled`` says. Both play exactly the same game.
        """
        rules = rules or RuleSet()
        _check_players(players, rules)
        game = cls._blank(rules, players, names, compiled)
        game.seed = _seed(seed, rng)
        game.round_no = 0
        if deal is not None:
            game._check_deal(deal)
        game._deal_round(1, deal)
        return game

    @classmethod
    def from_position(
        cls,
        rules: RuleSet | Mapping[str, Any] | None,
        hands: Sequence[Iterable[Card | str]],
        stock: Iterable[Card | str],
        discards: Sequence[Iterable[Card | str]],
        to_move: int,
        *,
        scores: Sequence[int] | None = None,
        out: Iterable[int] = (),
        known: Sequence[Iterable[Card | str]] | None = None,
        names: Sequence[str] | None = None,
        seed: int | None = None,
        phase: Phase | str = "start",
        drawn: Card | str | None = None,
        round_no: int = 1,
        refills: int = 0,
        veil: Mapping[str, Any] | None = None,
        compiled: bool | None = None,
    ) -> Game:
        """A position, like a FEN for a chess board; ``position()`` gives it back.

        ``stock`` lists the top card first; ``discards`` the pile's groups oldest first, each in
        laid order; at the start of a turn the last group is the previous player's discard.
        ``known`` gives, per seat, the cards of its hand that were seen taken from the pile.
        ``phase`` is ``start`` (default), ``draw`` (after a discard: the last group is that
        discard), ``discard`` (draw-first, after the draw: ``drawn`` is the card taken from the
        pile, or None after a stock draw) or ``slap`` (``drawn`` is the stock card that may be
        slapped; ``veil``, with ``pile`` and ``stock_size``, is what the others see: the
        position before that draw). Cards are ints or notation; ``compiled`` is as for
        ``new``. Raises SetupError naming what cannot be.
        """
        if not isinstance(rules, RuleSet):
            try:
                rules = RuleSet.from_dict(rules or {})
            except (RuleError, TypeError, AttributeError) as exc:
                raise SetupError(f"rules: {exc}") from None
        if isinstance(hands, str) or not isinstance(hands, Sequence):
            raise SetupError(f"hands must be a list of hands, one per seat, not {hands!r:.60}")
        n = len(hands)
        _check_players(n, rules)
        hand_cards = [_cards(h, f"seat {s}'s hand") for s, h in enumerate(hands)]
        stock_cards = _cards(stock, "the stock")
        if isinstance(discards, str) or not isinstance(discards, Sequence):
            raise SetupError(f"discards must be a list of groups, not {discards!r:.60}")
        groups = [tuple(_cards(g, "a discard group")) for g in discards]
        allowed = set(deck(rules.jokers))
        seen: set[Card] = set()
        every = [c for h in hand_cards for c in h] + stock_cards + [c for g in groups for c in g]
        for c in every:
            if c not in allowed:
                raise SetupError(
                    f"card {NAMES[c]} is not in the deck of these rules ({rules.jokers} jokers)"
                )
            if c in seen:
                raise SetupError(f"card {NAMES[c]} appears twice in the position")
            seen.add(c)
        out_set = set()
        for s in _ints(out, "out"):
            if not 0 <= s < n:
                raise SetupError(f"eliminated seat {s} does not exist ({n} players)")
            out_set.add(s)
        if len(out_set) >= n - 1:
            raise SetupError("at least two players must still be in the game")
        if not is_whole(to_move) or not 0 <= to_move < n or to_move in out_set:
            raise SetupError(f"seat {to_move!r:.20} cannot be to move: no such seat, or it is out")
        try:
            turn = phase if isinstance(phase, Phase) else Phase[str(phase).upper()]
        except KeyError:
            turn = Phase.GAME_OVER
        if turn.label not in _TURN_PHASES:
            raise SetupError(f"phase {phase!r}: a position is one of {', '.join(_TURN_PHASES)}")
        # A hand holds the rule set's size at most, one more between draw and discard (R21).
        most = rules.hand_size + (turn is Phase.DISCARD)
        # Only a slap leaves a hand empty, where the rules let it (R22's yaniv_next).
        may_be_empty = rules.slap_empty_hand == "yaniv_next"
        for s, h in enumerate(hand_cards):
            if s in out_set and h:
                raise SetupError(f"seat {s} is out but holds cards: {cards_text(h)}")
            if (
                s not in out_set
                and not h
                and not may_be_empty
                and not (turn is Phase.DRAW and s == to_move)
            ):
                raise SetupError(f"seat {s} is in the game but holds no card")
            if len(h) > most:
                raise SetupError(
                    f"seat {s} holds {len(h)} cards; these rules deal {rules.hand_size}"
                )
        score_list = _ints(scores if scores is not None else [0] * n, "scores")
        if len(score_list) != n or any(not 0 <= v <= MAX_SCORE for v in score_list):
            raise SetupError(
                f"scores {score_list!r:.80}: expected {n} non-negative whole "
                f"numbers up to {MAX_SCORE}"
            )
        if any(not g for g in groups):
            raise SetupError("a discard group is empty")
        kinds = [D.classify(g, rules) for g in groups]
        drawn_card = -1 if drawn is None else _cards([drawn], "drawn")[0]
        _check_turn(rules, turn, groups, kinds, hand_cards[to_move], drawn_card)
        if not is_whole(round_no) or not 1 <= round_no <= MAX_SCORE:
            raise SetupError(f"round_no {round_no!r}: expected a whole number from 1")
        if not is_whole(refills) or not 0 <= refills <= MAX_SCORE:
            raise SetupError(f"refills {refills!r}: expected a whole number from 0")

        game = cls._blank(rules, n, names, compiled)
        game.seed = _seed(seed, None)
        game.round_no = round_no
        game._refill_no = refills
        game.scores = score_list
        game.out = [s in out_set for s in range(n)]
        for s, h in enumerate(hand_cards):
            game._set_hand(s, h)
        if known is not None:
            if isinstance(known, str) or len(known) != n:
                raise SetupError(f"known cards must be given for each of the {n} seats")
            for s, cards in enumerate(known):
                mask = mask_of(_cards(cards, f"seat {s}'s known cards"))
                if mask & ~game.hands[s]:
                    raise SetupError(
                        f"seat {s} is said to hold cards it does not hold: "
                        f"{cards_text(cards_of(mask & ~game.hands[s]))}"
                    )
                game.known[s] = mask
        game.stock = stock_cards[::-1]
        game.pile = groups
        game.kinds = kinds
        game.deal = None
        game._to_move = to_move
        game.phase = turn
        game.drawn = drawn_card
        # The previous discard: the top group at the start of a turn, the one under this
        # turn's discard in phase draw and slap; in phase discard no draw is left to make.
        previous = {Phase.START: -1, Phase.DRAW: -2, Phase.SLAP: -2}.get(turn)
        if previous is not None:
            game.pickable = D.pickable(groups[previous], kinds[previous], rules.pickup)
        if veil is not None:
            game._veil = _veil(veil, turn)
        elif turn is Phase.SLAP:
            game._veil = Veil(tuple(groups), len(stock_cards) + 1, 0)
        return game

    def _with_hidden(
        self, hands: Sequence[Sequence[Card]], stock: Sequence[Card], seed: int
    ) -> Game:
        """This position, as ``from_position`` built it (before any move), with other hidden
        cards and seed: ``hands`` per seat, ``stock`` top first. The public facts and the known
        cards are kept, not checked again: ``World.game``'s, for the many worlds of one view."""
        g = self.clone()
        g.seed = seed
        for s, h in enumerate(hands):
            g._set_hand(s, h)
        g.known = self.known[:]
        g.stock = list(stock)[::-1]
        return g

    @classmethod
    def _blank(
        cls, rules: RuleSet, n: int, names: Sequence[str] | None, compiled: bool | None = None
    ) -> Game:
        game = cls.__new__(cls)
        game.rules = rules
        game.n = n
        if names is not None:
            if isinstance(names, str) or len(names) != n:
                raise SetupError(f"names must be a list of {n} names, one per seat")
            if not all(isinstance(name, str) for name in names):
                raise SetupError("every name must be text")
        game.names = tuple(names) if names is not None else tuple(f"Player {i}" for i in range(n))
        game.scores = [0] * n
        game.out = [False] * n
        game.hands = [0] * n
        game.values = [0] * n
        game.counts = [0] * n
        game.known = [0] * n
        game.stock = []
        game.pile = []
        game.kinds = []
        game.pickable = ()
        game._to_move = -1
        game.phase = _START
        game.drawn = -1
        game.deal = None
        game.moves = []
        game.refills = []
        game.history = []
        game.result = None
        game.winners = ()
        game._script = None
        game._refill_no = 0
        game._events = []
        game._past_events = ()
        game._past_cache = []
        game._veil = None
        game._seen_cache = {}
        game._fast = _compiled.choose(compiled) is not None
        game._discards = D.discards_of(rules, game._fast)
        return game

    def _set_hand(self, seat: int, cards: Sequence[Card]) -> None:
        self.hands[seat] = mask_of(cards)
        self.values[seat] = sum(VALUE[c] for c in cards)
        self.counts[seat] = len(cards)
        self.known[seat] = 0

    def _deal_round(self, starter: int, deal: Deal | None) -> None:
        """Deal a round (R4) from the game's seed, or lay out a recorded ``deal``."""
        self.round_no += 1
        self._refill_no = 0
        if deal is None:
            cards = deck(self.rules.jokers)
            self._shuffle(cards)
            h = self.rules.hand_size
            hands: list[tuple[Card, ...]] = []
            k = 0
            for s in range(self.n):
                if self.out[s]:
                    hands.append(())
                else:
                    hands.append(tuple(cards[k : k + h]))
                    k += h
            make = _make_deal if self._fast else Deal
            deal = make(tuple(hands), cards[k], tuple(cards[k + 1 :]), starter)
        self.deal = deal
        if not (self._fast and _core_lay_hands(self, deal.hands)):
            for s, hand in enumerate(deal.hands):
                self._set_hand(s, hand)
        self.stock = list(deal.stock[::-1])
        self.pile = [(deal.up,)]
        self.kinds = [D.SINGLE]
        self.moves = []
        self.refills = []
        self._past_events += tuple(self._events)
        self._seen_cache = {}
        self._events = [
            (
                Dealt,
                self.round_no,
                deal.starter,
                deal.up,
                deal.hands,
                tuple(self.counts),
                tuple(self.scores),
            )
        ]
        self._end_turn(deal.starter - 1)  # the starter is in the game: the turn passes to it

    def next_round(self, deal: Deal | None = None) -> None:
        """Deal the next round after a round is over; raises IllegalMoveError otherwise."""
        if self.phase != _ROUND_OVER or self.result is None or self.result.next_starter is None:
            raise IllegalMoveError(f"no next round: the game is in phase {self.phase.label}")
        if deal is not None:
            self._check_deal(deal)
        self._deal_round(self.result.next_starter, deal)

    def _check_deal(self, deal: Deal) -> None:
        cards = [c for h in deal.hands for c in h] + [deal.up, *deal.stock]
        if sorted(cards) != deck(self.rules.jokers) or len(deal.hands) != self.n:
            raise SetupError("the deal is not a shuffle of the rules' deck for these seats")
        starter = 1 if self.result is None else self.result.next_starter
        if deal.starter != starter:
            raise SetupError(f"the deal's starter {deal.starter} is not the starter {starter}")
        for s, h in enumerate(deal.hands):
            if len(h) != (0 if self.out[s] else self.rules.hand_size):
                raise SetupError(f"seat {s} is dealt {len(h)} cards")

    def _shuffle(self, cards: list[Card]) -> None:
        """Shuffle from the seed, the round and the refill number (0 for the deal) alone."""
        if self._fast and _core_seeded_shuffle is not None:
            # random.Random(text)'s own shuffle, without making the generator
            _core_seeded_shuffle(shuffle_key(self.seed, self.round_no, self._refill_no), cards)
            return
        text = f"yaniv:{self.seed}:{self.round_no}:{self._refill_no}"
        rng = random.Random(text)
        if self._fast and _core_shuffle is not None:
            _core_shuffle(rng.getrandbits, cards)
        else:
            rng.shuffle(cards)

    def clone(self) -> Game:
        """An independent copy (finished rounds are shared: they never change)."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g.n = self.n
        g.seed = self.seed
        g.names = self.names
        g.scores = self.scores[:]
        g.out = self.out[:]
        g.hands = self.hands[:]
        g.values = self.values[:]
        g.counts = self.counts[:]
        g.known = self.known[:]
        g.stock = self.stock[:]
        g.pile = self.pile[:]
        g.kinds = self.kinds[:]
        g.pickable = self.pickable
        g._to_move = self._to_move
        g.phase = self.phase
        g.drawn = self.drawn
        g.round_no = self.round_no
        g.deal = self.deal
        g.moves = self.moves[:]
        g.refills = self.refills[:]
        g.history = self.history[:]
        g.result = self.result
        g.winners = self.winners
        g._script = None if self._script is None else self._script[:]
        g._refill_no = self._refill_no
        g._events = self._events[:]
        g._past_events = self._past_events
        g._past_cache = []
        g._veil = self._veil
        g._seen_cache = {}
        g._discards = self._discards
        g._fast = self._fast
        return g

    # ----------------------------------------------------------------- queries

    @property
    def to_move(self) -> int | None:
        """The seat to act, or None when the round or game is over."""
        return self._to_move if self._to_move >= 0 else None

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == _GAME_OVER

    def hand(self, seat: int) -> list[Card]:
        """The cards of ``seat``'s hand, in card order."""
        return cards_of(self.hands[seat])

    def active_seats(self) -> list[int]:
        """The seats still in the game."""
        return [s for s in range(self.n) if not self.out[s]]

    def fingerprint(self) -> tuple[object, ...]:
        """The whole state as a comparable value: equal fingerprints, equal games."""
        return (
            self.rules,
            self.n,
            tuple(self.scores),
            tuple(self.out),
            tuple(self.hands),
            tuple(self.values),
            tuple(self.counts),
            tuple(self.known),
            tuple(self.stock),
            tuple(self.pile),
            tuple(self.kinds),
            self.pickable,
            self._to_move,
            self.phase,
            self.drawn,
            self.round_no,
            self.deal,
            tuple(self.moves),
            tuple(self.refills),
            tuple(self.history),
            self.result,
            self.winners,
            self.seed,
            self._refill_no,
            self._veil,
            tuple(self._past_typed()),
            tuple(self._typed()),
        )

    def events_since(self, n: int, seat: int | None = None) -> list[Event]:
        """The events that ``seat`` may see (``None``: a spectator), from its ``n``-th on.

        Each seat's events are numbered from 0 at the start of the game, densely: events it
        may not see take no number, so the numbering reveals nothing either.
        """
        past = [e for e in (x.seen_by(seat) for x in self._past_typed()) if e is not None]
        return (past + self._round_seen(seat))[n:]

    def _typed(self) -> list[Event]:
        """This round's events as values (made from their logged fields once)."""
        events = self._events
        for i in range(len(events) - 1, -1, -1):
            if not isinstance(events[i], tuple):
                break
        else:
            i = -1
        for k in range(i + 1, len(events)):
            events[k] = _made(events[k])
        return events  # type: ignore[return-value]  # every entry is a value now

    def _past_typed(self) -> list[Event]:
        cache = self._past_cache
        for entry in self._past_events[len(cache) :]:
            cache.append(_made(entry))
        return cache

    def all_events(self, n: int = 0) -> list[Event]:
        """Every event from the ``n``-th on, hidden cards included: the whole story, as a
        record holds it (for replays; a seat gets ``events_since``)."""
        return (self._past_typed() + self._typed())[n:]

    def round_events(self, seat: int | None = None) -> tuple[Event, ...]:
        """This round's events as ``seat`` (``None``: a spectator) may see them."""
        return tuple(self._round_seen(seat))

    def _round_seen(self, seat: int | None) -> list[Event]:
        """This round's events that ``seat`` sees, extended from a cache (no copy)."""
        events = self._typed()
        end = len(events)
        if self._veil is not None and seat != self._to_move:
            end = self._veil.events  # the draw that opened a slap window, and after it
        done, seen = self._seen_cache.get(seat, (0, []))
        for event in events[done:end]:
            shown = event.seen_by(seat)
            if shown is not None:
                seen.append(shown)
        self._seen_cache[seat] = (max(done, end), seen)
        return seen

    def stock_top(self) -> list[Card]:
        """The stock, top card first."""
        return self.stock[::-1]

    def can_yaniv(self) -> bool:
        """Whether the player to act may call Yaniv now (R13, R15)."""
        return self.phase == _START and (
            self.values[self._to_move] <= self.rules.yaniv_threshold
            or self.rules.yaniv_above_threshold
        )

    def draw_options(self) -> list[Draw]:
        """What may be drawn now or, at the start of a discard-first turn, after the discard."""
        phase = self.phase
        if phase is not _DRAW and (phase is not _START or not self.counts[self._to_move]):
            return []  # (at the start of a turn, an empty hand may only call Yaniv: R22)
        pickable = self.pickable
        draws = _DRAWS_OF.get(pickable)
        if draws is None:
            if len(_DRAWS_OF) >= _DRAWS_LIMIT:
                _DRAWS_OF.clear()
            draws = _DRAWS_OF[pickable] = tuple(DRAWS[c] for c in pickable)
        if self.stock:
            return [DRAW_STOCK, *draws]
        return list(draws)

    def discard_options(self) -> Sequence[Discard]:
        """The legal discards now, one per distinct outcome (empty when no discard is due)."""
        p = self._to_move
        if self.phase == _DISCARD:
            hand = self.hands[p]
            drawn = self.drawn
            every = self._discards(hand)
            return type(every)(d for d in every if d.mask != hand and d.cards != (drawn,))
        if self.phase == _START and not self.rules.draw_first:
            return self._discards(self.hands[p])
        return ()

    def legal_moves(self) -> Sequence[Move]:
        """Every legal move of the seat to act, one per distinct outcome.

        ``move in game.legal_moves()`` is True exactly when the move is legal: a set laid in
        another order than the one listed is found too (R9).
        """
        if self._fast:
            return _core_legal_moves(self)  # type: ignore[no-any-return]
        return self._legal_moves()

    def _legal_moves(self) -> Sequence[Move]:
        """``legal_moves`` in pure Python: the reference, and the compiled core's fallback."""
        phase = self.phase
        if phase == _START:
            rules = self.rules
            p = self._to_move
            # can_yaniv(), inlined: this runs at every turn.
            yaniv = self.values[p] <= rules.yaniv_threshold or rules.yaniv_above_threshold
            if rules.draw_first:
                draws = self.draw_options()
                return [YANIV, *draws] if yaniv else draws
            discards = self._discards(self.hands[p])
            if not yaniv:
                return discards
            return type(discards)((YANIV, *discards))  # type: ignore[arg-type]
        if phase == _DRAW:
            return self.draw_options()
        if phase == _DISCARD:
            return self.discard_options()
        if phase == _SLAP:
            return [SLAPS[self.drawn], PASS]
        return ()

    def why_illegal(self, move: Move) -> str | None:
        """Why ``move`` may not be played now, or None when it may."""
        phase = self.phase
        if phase >= _ROUND_OVER:
            return f"the {'game' if phase == _GAME_OVER else 'round'} is over"
        p = self._to_move
        rules = self.rules
        if isinstance(move, Yaniv):
            if phase != _START:
                return "Yaniv may be called only at the start of a turn, before any discard or draw"
            if not self.can_yaniv():
                return (
                    f"the hand is worth {self.values[p]}, over the Yaniv threshold "
                    f"{rules.yaniv_threshold}"
                )
            return None
        if isinstance(move, Discard):
            if not (phase == _DISCARD or (phase == _START and not rules.draw_first)):
                return "a discard is not due now: " + (
                    "draw first" if phase == _START else f"phase is {phase.label}"
                )
            if move.mask & self.hands[p] != move.mask or len(move.cards) != move.mask.bit_count():
                missing = [c for c in move.cards if not self.hands[p] >> c & 1]
                return f"seat {p} does not hold {cards_text(missing)}"
            if D.classify(move.cards, rules) == D.BROKEN:
                orders = D.laid_orders(move.cards, rules)
                if len(orders) > 1:
                    return f"the cards {D.orders_text(orders)}; give them in the order to lay (R9)"
                if not orders:
                    return "the cards are not a single card, a set or a run (R8)"
                move = Discard(orders[0])  # given out of order, laid in its one order (R9)
            if phase == _DISCARD:
                if move.mask == self.hands[p]:
                    return "at least one card must stay in the hand (R21)"
                if move.cards == (self.drawn,):
                    return f"{NAMES[self.drawn]} was just taken from the pile (R21)"
            return None
        if phase == _START and not self.counts[p]:
            return f"seat {p} holds no card: only a Yaniv call is left (R22)"
        if isinstance(move, Draw):
            if not (phase == _DRAW or (phase == _START and rules.draw_first)):
                return "a draw is not due now: " + (
                    "discard first" if phase == _START else f"phase is {phase.label}"
                )
            if move.card is None:
                return None if self.stock else "the stock is empty"
            if move.card not in self.pickable:
                allowed = ["stock"] * bool(self.stock) + [NAMES[c] for c in self.pickable]
                return f"{NAMES[move.card]} may not be drawn; allowed: {', '.join(allowed)}"
            return None
        if isinstance(move, Slap):
            if phase != _SLAP:
                return "no slap is possible now (R22)"
            if move.card != self.drawn:
                return f"only the card just drawn, {NAMES[self.drawn]}, may be slapped"
            return None
        if isinstance(move, Pass):
            return None if phase == _SLAP else "there is no slap to decline"
        return f"not a move: {move!r}"

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played now."""
        return self.why_illegal(move) is None

    # ----------------------------------------------------------------- playing

    def play(self, move: Move | str, seat: int | None = None) -> RoundResult | None:
        """Check and make a move (or its text); returns the round's result when it ends it.

        With ``seat``, the move is refused unless that seat is to act. Raises
        InvalidMoveError for text that is not a move, IllegalMoveError for a move the rules
        refuse; either way the game is unchanged.
        """
        parsed = D.as_laid(parse_move(move), self.rules)  # a run given out of order (R9)
        if seat is not None and seat != self._to_move:
            acting = "nobody is" if self._to_move < 0 else f"seat {self._to_move} is"
            raise IllegalMoveError(
                f"illegal move '{parsed}': seat {seat!r:.20} is not to move; {acting}"
            )
        reason = self.why_illegal(parsed)
        if reason is not None:
            by = "" if self._to_move < 0 else f" by seat {self._to_move}"
            raise IllegalMoveError(f"illegal move '{parsed}'{by}: {reason}")
        return self.apply(parsed)

    def apply(self, move: Move) -> RoundResult | None:
        """Make a legal move without checking it (the fast path for bots and simulations)."""
        if self._fast:
            return _core_apply(self, move)  # type: ignore[no-any-return]
        return self._apply(move)

    def _apply(self, move: Move) -> RoundResult | None:
        """``apply`` in pure Python: the reference, and the compiled core's fallback."""
        p = self._to_move
        self.moves.append((p, move))
        if isinstance(move, Discard):
            self._discard(p, move)
        elif isinstance(move, Draw):
            self._draw(p, move.card)
        elif isinstance(move, Yaniv):
            return self._showdown(p)
        elif isinstance(move, Slap):
            return self._slap(p, move.card)
        else:  # Pass
            self._events.append((Passed, p))
            self._end_turn(p)
        return None

    def _discard(self, p: int, move: Discard) -> None:
        cards = move.cards
        self.hands[p] ^= move.mask
        self.known[p] &= ~move.mask
        self.values[p] -= move.value
        self.counts[p] -= len(cards)
        self.pile.append(cards)
        self.kinds.append(D.SINGLE if len(cards) == 1 else D.classify(cards, self.rules))
        self._events.append((Discarded, p, cards))
        if self.rules.draw_first:
            self._end_turn(p)
        else:
            self.phase = _DRAW

    def _draw(self, p: int, card: Card | None) -> None:
        rules = self.rules
        from_stock = card is None
        window = False
        if card is None:
            card = self.stock.pop()
            if rules.slapdown != "off":
                window = bool(
                    not rules.draw_first
                    # a slap may empty the hand only where slap_empty_hand allows it (R22)
                    and (self.counts[p] or rules.slap_empty_hand != "never")
                    and D.slap_position(
                        self.pile[-1], self.kinds[-1], card, rules.slapdown, rules.max_set
                    )
                )
                if window:
                    # The others must not learn that a slap window opened: until it closes
                    # they see the position before this draw.
                    self._veil = Veil(tuple(self.pile), len(self.stock) + 1, len(self._events))
            self._events.append((Drew, p, "stock", card))
        else:
            # The previous discard lies under this turn's discard, or on top with draw-first.
            i = -1 if rules.draw_first else -2
            pile = self.pile
            group = pile[i]
            if len(group) == 1:
                del pile[i]
                del self.kinds[i]
            else:
                k = group.index(card)
                pile[i] = group[:k] + group[k + 1 :]
                self.kinds[i] = D.BROKEN
            self.known[p] |= 1 << card
            self._events.append((Drew, p, "pile", card))
        self.hands[p] |= 1 << card
        self.values[p] += VALUE[card]
        self.counts[p] += 1
        if not self.stock:
            self._refill()
        if rules.draw_first:
            self.phase = _DISCARD
            self.drawn = -1 if from_stock else card
            self.pickable = ()  # the turn's one draw is made
        elif window:
            self.phase = _SLAP
            self.drawn = card
        else:
            self._end_turn(p)

    def _slap(self, p: int, card: Card) -> RoundResult | None:
        rules = self.rules
        group = self.pile[-1]
        where = D.slap_position(group, self.kinds[-1], card, rules.slapdown, rules.max_set)
        self.pile[-1] = (card, *group) if where < 0 else (*group, card)
        if self.kinds[-1] == D.SINGLE:
            self.kinds[-1] = D.SET
        self.hands[p] ^= 1 << card
        self.values[p] -= VALUE[card]
        self.counts[p] -= 1
        self._events.append((Slapped, p, card))
        if not self.counts[p] and rules.slap_empty_hand == "yaniv_now":
            return self._showdown(p)  # the slap is that player's Yaniv with 0 (R22)
        self._end_turn(p)
        return None

    def _refill(self) -> None:
        """R11: the pile but its most recent group becomes the new, shuffled stock."""
        if len(self.pile) < 2:
            return
        cards = [c for g in self.pile[:-1] for c in g]
        self._refill_no += 1
        if self._script:
            scripted = self._script.pop(0)
            if sorted(scripted) != sorted(cards):
                raise SetupError("a recorded refill does not hold the cards of the pile")
            stock = list(scripted)
        else:
            self._shuffle(cards)
            stock = cards
        self.refills.append((len(self.moves), tuple(stock)))
        self._events.append((Refilled, len(stock)))
        self.stock = stock[::-1]
        self.pile = self.pile[-1:]
        self.kinds = self.kinds[-1:]

    def next_seat(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that is still in the game."""
        n = self.n
        nxt = (seat + 1) % n
        while self.out[nxt]:
            nxt = (nxt + 1) % n
        return nxt

    def _end_turn(self, p: int) -> None:
        """The turn passes to the next seat after ``p`` that is still in the game."""
        nxt = self.next_seat(p)
        group = self.pile[-1]
        # A single card is its own pickable (D.pickable's first case), without a call.
        self.pickable = (
            group if len(group) == 1 else D.pickable(group, self.kinds[-1], self.rules.pickup)
        )
        self._to_move = nxt
        self.phase = _START
        self.drawn = -1
        self._veil = None

    # ----------------------------------------------------------------- showdown and scores

    def _showdown(self, caller: int) -> RoundResult:
        # The scoring's one home (R14-R20): yaniv.scoring, also the score keeper's (the
        # compiled core's twin of it where this game runs on the core).
        fast = self._fast
        scored = self._scorer()(self.rules, self.scores, self.out, self.values, caller)
        self.scores[:] = scored.scores
        self.out[:] = scored.out
        winners = scored.game_winners
        result = (_make_result if fast else RoundResult)(
            scored.kind,
            caller,
            tuple(tuple(cards_of(h)) for h in self.hands),
            scored.hand_values,
            scored.assafers,
            scored.points,
            scored.bonuses,
            scored.scores,
            scored.newly_out,
            scored.winner,
            scored.next_starter,
            winners,
        )
        self.result = result
        self.winners = winners
        self._events.append((Showdown, result))
        self.phase = _GAME_OVER if winners else _ROUND_OVER
        self._to_move = -1
        self._veil = None  # a slap that ends the round (R22) closes its window for everyone
        if self.deal is not None:
            log = _make_log if fast else RoundLog
            self.history.append(log(self.deal, tuple(self.moves), tuple(self.refills), result))
        return result

    def _scorer(self) -> Callable[..., RoundScore]:
        """The showdown's scorer: scoring.score_round, or its compiled twin on the core."""
        scorer = score_round  # read at each call: whoever replaces it here is asked instead
        if self._fast and scorer is _SCORE_ROUND:
            return _core_score_round
        return scorer

    # ----------------------------------------------------------------- views and text

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may know: its own hand and every public fact (``None``: a spectator).

        While a slap window is open (R22) the other seats see the position before the stock
        draw that opened it, so they never learn that one opened or was declined.
        """
        if seat is not None and (not is_whole(seat) or not 0 <= seat < self.n):
            raise SetupError(f"no seat {seat!r:.20} in a game of {self.n} players")
        own_turn = seat is not None and self._to_move == seat
        phase, to_move = self.phase, self.to_move
        pile: tuple[tuple[Card, ...], ...] = tuple(self.pile)
        stock_size = len(self.stock)
        sizes = tuple(self.counts)
        veil = self._veil
        if veil is not None and not own_turn:
            phase = _DRAW
            pile, stock_size = veil.pile, veil.stock_size
            sizes = tuple(c - (s == self._to_move) for s, c in enumerate(self.counts))
        hand = () if seat is None else tuple(cards_of(self.hands[seat]))
        known = tuple(tuple(cards_of(k)) for k in self.known)
        drawn = self.drawn if own_turn and self.drawn >= 0 else None
        legal = D.move_list(self.legal_moves() if own_turn else (), self.rules)
        starter = None if self.deal is None else self.deal.starter
        history = tuple(r.result.scores for r in self.history)
        if self._fast:  # the same view, made without the dataclass's __init__ (in field order)
            return _make_view(
                SPECTATOR if seat is None else seat,
                self.rules,
                self.names,
                self.round_no,
                phase,
                to_move,
                hand,
                sizes,
                tuple(self.scores),
                tuple(self.out),
                pile,
                self.pickable,
                stock_size,
                known,
                drawn,
                legal,
                self.round_events(seat),
                starter,
                self.result,
                self.winners,
                history,
            )
        return PlayerView(  # by keyword: tests/test_core.py holds the two ways alike
            seat=SPECTATOR if seat is None else seat,
            rules=self.rules,
            names=self.names,
            round_no=self.round_no,
            phase=phase,
            to_move=to_move,
            hand=hand,
            hand_sizes=sizes,
            scores=tuple(self.scores),
            out=tuple(self.out),
            pile=pile,
            pickable=self.pickable,
            stock_size=stock_size,
            known=known,
            drawn=drawn,
            legal_moves=legal,
            events=self.round_events(seat),
            starter=starter,
            result=self.result,
            winners=self.winners,
            score_history=history,
        )

    def position(self) -> dict[str, Any]:
        """The position as JSON-ready keyword arguments of ``from_position``, in any turn phase.

        ``Game.from_position(**game.position())`` gives the same position, seed included, so
        it goes on to deal and refill alike. Raises IllegalMoveError once the round is over.
        """
        if self.phase >= _ROUND_OVER:
            raise IllegalMoveError("the round is over: a position is a turn in progress")
        veil = self._veil
        return {
            "rules": self.rules.to_dict(),
            "hands": [[NAMES[c] for c in cards_of(h)] for h in self.hands],
            "stock": [NAMES[c] for c in reversed(self.stock)],
            "discards": [[NAMES[c] for c in g] for g in self.pile],
            "to_move": self._to_move,
            "scores": list(self.scores),
            "out": [s for s in range(self.n) if self.out[s]],
            "known": [[NAMES[c] for c in cards_of(k)] for k in self.known],
            "names": list(self.names),
            "seed": self.seed,
            "phase": self.phase.label,
            "drawn": NAMES[self.drawn] if self.drawn >= 0 else None,
            "round_no": self.round_no,
            "refills": self._refill_no,
            "veil": None
            if veil is None
            else {
                "pile": [[NAMES[c] for c in g] for g in veil.pile],
                "stock_size": veil.stock_size,
            },
        }

    def __repr__(self) -> str:
        hands = " | ".join(cards_text(self.hand(s)) for s in range(self.n))
        return (
            f"<Game round {self.round_no} {self.phase.label} to_move={self.to_move} "
            f"hands=[{hands}] pile_top={cards_text(self.pile[-1]) if self.pile else '-'} "
            f"stock={len(self.stock)} scores={self.scores}>"
        )


#: The compiled core's apply and legal_moves, for the games where ``_fast`` is set (only
#: where the core is built; the pure methods stand in for them otherwise).
_core_apply: Callable[[Game, Move], Any] = Game._apply
_core_legal_moves: Callable[[Game], Any] = Game._legal_moves
#: The compiled shuffle, where it gives this Python's own shuffle's orders (checked here).
_core_shuffle: Callable[[Callable[[int], int], list[Card]], None] | None = None
#: The compiled twin of scoring.score_round, and the round's values made without their
#: dataclasses' __init__ (the same objects), for the games where ``_fast`` is set.
_core_score_round: Callable[..., RoundScore] = score_round
#: scoring.py's own score_round, which the compiled twin stands for (and only it).
_SCORE_ROUND = score_round
_make_result: Callable[..., RoundResult] = RoundResult
_make_log: Callable[..., RoundLog] = RoundLog
_make_deal: Callable[..., Deal] = Deal
_make_view: Callable[..., PlayerView] = PlayerView


def _no_lay_hands(game: Game, hands: tuple[tuple[Card, ...], ...]) -> bool:
    """Where the core is not built: the hands are set in Python."""
    return False


#: The compiled _set_hand of every seat of a deal (False: not done, set them in Python).
_core_lay_hands: Callable[[Game, tuple[tuple[Card, ...], ...]], bool] = _no_lay_hands


def _builder(cls: type[Any]) -> Callable[..., Any]:
    """The compiled core's ``cls(*values)`` for a frozen dataclass with slots."""
    assert _compiled.AVAILABLE is not None
    names = tuple(f.name for f in dataclasses.fields(cls))
    return cast("Callable[..., Any]", _compiled.AVAILABLE.Builder(cls, names))


#: The compiled random.Random(text).shuffle, where it gives this Python's orders (checked).
_core_seeded_shuffle: Callable[[int, list[Card]], None] | None = None


def shuffle_key(seed: int, round_no: int, refill_no: int) -> int:
    """The int that ``random.seed`` makes of a shuffle's text (its bytes, then their SHA-512
    digest): every deal and refill of a game is ``random.Random(text).shuffle``."""
    raw = f"yaniv:{seed}:{round_no}:{refill_no}".encode()
    return int.from_bytes(raw + sha512(raw).digest())


def _same_seeded_shuffle(shuffle: Callable[[int, list[Card]], None]) -> bool:
    """Whether ``shuffle`` orders as ``random.Random(text).shuffle``, seeded as game.py seeds."""
    for n in (0, 1, 2, 5, 33, 54):
        for text in ("a", "yaniv:1:2:3", "yaniv:-77:1:0", f"yaniv:{2**70}:9:4"):
            mine, theirs = list(range(n)), list(range(n))
            raw = text.encode()
            shuffle(int.from_bytes(raw + sha512(raw).digest()), mine)
            random.Random(text).shuffle(theirs)
            if mine != theirs:
                return False
    return True


def _same_shuffle(shuffle: Callable[[Callable[[int], int], list[Card]], None]) -> bool:
    """Whether ``shuffle`` orders as ``random.Random.shuffle`` does, on a few seeds and sizes."""
    for n in (0, 1, 2, 5, 33, 54):
        for seed in ("a", "yaniv:1:2:3"):
            mine, theirs = list(range(n)), list(range(n))
            shuffle(random.Random(seed).getrandbits, mine)
            random.Random(seed).shuffle(theirs)
            if mine != theirs:
                return False
    return True


if _compiled.AVAILABLE is not None:
    _core_apply, _core_legal_moves = _compiled.AVAILABLE.apply, _compiled.AVAILABLE.legal_moves
    if _same_shuffle(_compiled.AVAILABLE.shuffle):
        _core_shuffle = _compiled.AVAILABLE.shuffle
    if _same_seeded_shuffle(_compiled.AVAILABLE.seeded_shuffle):
        _core_seeded_shuffle = _compiled.AVAILABLE.seeded_shuffle
    # What the compiled apply and legal_moves need of this module: the Game's slots, the move
    # and event types, the tables, and the pure methods they leave the rarer turns to. It
    # gives back Game.apply and Game.legal_moves as compiled methods that do what the Python
    # ones above do (the core for the games where ``_fast`` is set, the pure methods for the
    # others), without a Python call on the way: they replace them on the class.
    _methods = _compiled.AVAILABLE.setup(
        Game,
        RuleSet,
        Discard,
        Draw,
        Yaniv,
        Discarded,
        Drew,
        _START,
        _DRAW,
        _DISCARD,
        VALUE,
        D.classify,
        D.pickable,
        YANIV,
        DRAW_STOCK,
        DRAWS,
        _DRAWS_OF,
        _DRAWS_LIMIT,
        Game._apply,
        Game._legal_moves,
        D.SINGLE,
        D.BROKEN,
        Game.apply.__doc__ or "",
        Game.legal_moves.__doc__ or "",
    )
    for _name, _method in zip(("apply", "legal_moves"), _methods, strict=True):
        setattr(Game, _name, _method)
    _make_result, _make_log, _make_deal = _builder(RoundResult), _builder(RoundLog), _builder(Deal)
    _make_view = _builder(PlayerView)
    _compiled.AVAILABLE.setup_scoring(
        score_round,
        _builder(RoundScore),
        ResultKind.YANIV,
        ResultKind.ASSAF,
        ResultKind.DELIBERATE,
        RuleSet,
    )
    _core_score_round = _compiled.AVAILABLE.score_round
    _core_lay_hands = _compiled.AVAILABLE.lay_hands
    _compiled.AVAILABLE.setup_playout(Game, _ROUND_OVER, _GAME_OVER)


def _check_players(n: int, rules: RuleSet) -> None:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise SetupError(
            f"{n} players: Yaniv is played by {MIN_PLAYERS} to {MAX_PLAYERS} with one deck (R5)"
        )
    needed = n * rules.hand_size + 1
    if needed > 52 + rules.jokers:
        raise SetupError(
            f"{n} players with {rules.hand_size} cards each need {needed} cards; "
            f"the deck has {52 + rules.jokers}"
        )


def _made(entry: Event | tuple[Any, ...]) -> Event:
    """An event value from its logged entry."""
    if isinstance(entry, tuple):
        made: Event = entry[0](*entry[1:])
        return made
    return entry


def _seed(seed: int | None, rng: random.Random | None) -> int:
    """The game's seed: the one given, else one drawn from ``rng`` or the system."""
    if seed is None:
        return (rng or random.SystemRandom()).getrandbits(63)
    if not is_whole(seed):
        raise SetupError(f"seed {seed!r:.40}: expected a whole number")
    return seed


def _ints(values: Any, what: str) -> list[int]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise SetupError(f"{what} must be a list of whole numbers, not {values!r:.60}")
    out = list(values)
    for v in out:
        if not is_whole(v):
            raise SetupError(f"{what}: {v!r:.40} is not a whole number")
    return out


def _check_turn(
    rules: RuleSet,
    turn: Phase,
    groups: list[tuple[Card, ...]],
    kinds: list[int],
    hand: list[Card],
    drawn: Card,
) -> None:
    """What a position in ``turn`` needs of its pile and of the card just drawn."""
    if turn is Phase.DISCARD:
        if not rules.draw_first:
            raise SetupError("phase discard comes only with draw_first (R21)")
        if drawn >= 0 and drawn not in hand:
            raise SetupError(f"the drawn card {NAMES[drawn]} is not in the hand to move")
        return
    if turn is Phase.START:
        needed, what = 1, "one discard group, the previous discard"
    elif rules.draw_first:
        raise SetupError(f"phase {turn.label} does not come with draw_first (R21)")
    else:
        needed, what = 2, "two discard groups, the previous discard and this turn's"
    if len(groups) < needed:
        raise SetupError(f"the pile needs at least {what}")
    for k in range(-needed, 0):
        if kinds[k] == D.BROKEN:
            raise SetupError(f"the discard {cards_text(groups[k])} is not a legal discard")
    if turn is Phase.SLAP:
        if (
            drawn not in hand
            or not (len(hand) > 1 or rules.slap_empty_hand != "never")
            or not D.slap_position(groups[-1], kinds[-1], drawn, rules.slapdown, rules.max_set)
        ):
            raise SetupError(
                "phase slap needs a drawn card, held, that may be slapped onto "
                "the top discard (R22)"
            )
    elif drawn >= 0:
        raise SetupError(f"no card is drawn in phase {turn.label}")


def _veil(data: Mapping[str, Any], turn: Phase) -> Veil:
    if turn is not Phase.SLAP:
        raise SetupError("a veil comes only with phase slap")
    try:
        pile = tuple(tuple(_cards(g, "the veil's pile")) for g in data["pile"])
        size = data["stock_size"]
    except (KeyError, TypeError) as exc:
        raise SetupError(f"the veil needs pile and stock_size: {exc}") from None
    if not (is_whole(size) and 0 <= size <= 54):
        raise SetupError("the veil's stock_size must be a whole number from 0 to 54")
    return Veil(pile, size, 0)  # a built position has no events of its own to veil


def _cards(items: Any, what: str = "cards") -> list[Card]:
    if isinstance(items, str):
        items = [items]
    if not isinstance(items, Iterable):
        raise SetupError(f"{what}: expected a list of cards, not {items!r:.40}")
    out: list[Card] = []
    for item in items:
        if isinstance(item, str):
            try:
                out.extend(parse_cards(item))
            except CardError as exc:
                raise SetupError(str(exc)) from None
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < 54:
            out.append(item)
        else:
            raise SetupError(f"{what}: not a card: {item!r:.40}")
    return out


__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Deal",
    "Game",
    "Phase",
    "ResultKind",
    "RoundLog",
    "RoundResult",
    "Veil",
]
