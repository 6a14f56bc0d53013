"""The engine: a whole game of Yaniv, round by round (R4-R22).

A ``Game`` is mutable. ``legal_moves()`` lists what the seat to move may do, ``play()`` checks
a move (or its text) and raises a ``MoveError`` that leaves the game unchanged, ``apply()`` is
the unchecked fast path, and ``clone()`` is cheap. Hands are bitmasks of card ints.

>>> game = Game.new(RuleSet(), players=2, seed=7)
>>> game.phase, game.to_move
(<Phase.START: 0>, 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Any

from . import discards as D
from .cards import NAMES, VALUE, Card, cards_of, cards_text, deck, mask_of, parse_cards
from .errors import CardError, IllegalMoveError, SetupError
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

if TYPE_CHECKING:
    from .view import PlayerView

MIN_PLAYERS, MAX_PLAYERS = 2, 8


class Phase(IntEnum):
    """Where a turn, round or game stands."""

    START = 0  # a turn begins: Yaniv, or the turn's first part
    DRAW = 1  # after a discard: must draw
    DISCARD = 2  # draw-first, after the draw: must discard
    SLAP = 3  # after a stock draw that matches: slap or pass
    ROUND_OVER = 4
    GAME_OVER = 5

    @property
    def label(self) -> str:
        """The phase's name in scenario files and views: ``start``, ``round_over``..."""
        return self.name.lower()


class ResultKind(Enum):
    """How a round ended."""

    YANIV = "yaniv"
    ASSAF = "assaf"
    DELIBERATE = "deliberate"  # R15: a call above the threshold


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The showdown of a round and what it did to the scores."""

    kind: ResultKind
    caller: int
    hands: tuple[tuple[Card, ...], ...]  # every seat's hand at the showdown (empty when out)
    hand_values: tuple[int, ...]
    assafers: tuple[int, ...]  # the seats that scored 0 beside or instead of the caller
    points: tuple[int, ...]  # round points before the bonus
    bonuses: tuple[int, ...]  # points taken off by the bonus (R18)
    scores: tuple[int, ...]  # after the bonus
    newly_out: tuple[int, ...]
    winner: int
    next_starter: int | None  # None when the game is over
    game_winners: tuple[int, ...]  # empty unless the game is over

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, cards in notation."""
        return {
            "kind": self.kind.value,
            "caller": self.caller,
            "hands": [[NAMES[c] for c in h] for h in self.hands],
            "hand_values": list(self.hand_values),
            "assafers": list(self.assafers),
            "points": list(self.points),
            "bonuses": list(self.bonuses),
            "scores": list(self.scores),
            "newly_out": list(self.newly_out),
            "winner": self.winner,
            "next_starter": self.next_starter,
            "game_winners": list(self.game_winners),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoundResult:
        """The inverse of ``to_dict``."""
        return cls(
            kind=ResultKind(data["kind"]),
            caller=int(data["caller"]),
            hands=tuple(tuple(parse_cards(h)) for h in data["hands"]),
            hand_values=tuple(data["hand_values"]),
            assafers=tuple(data["assafers"]),
            points=tuple(data["points"]),
            bonuses=tuple(data["bonuses"]),
            scores=tuple(data["scores"]),
            newly_out=tuple(data["newly_out"]),
            winner=int(data["winner"]),
            next_starter=data["next_starter"],
            game_winners=tuple(data["game_winners"]),
        )


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's deal: each seat's hand, the turned-up card, the stock (top first), the starter."""

    hands: tuple[tuple[Card, ...], ...]
    up: Card
    stock: tuple[Card, ...]
    starter: int


@dataclass(frozen=True, slots=True)
class RoundLog:
    """One finished round: its deal, every move with its seat, every stock refill, the result."""

    deal: Deal
    moves: tuple[tuple[int, Move], ...]
    refills: tuple[tuple[int, tuple[Card, ...]], ...]  # (moves made before it, new stock top first)
    result: RoundResult


_START, _DRAW, _DISCARD, _SLAP = Phase.START, Phase.DRAW, Phase.DISCARD, Phase.SLAP
_ROUND_OVER, _GAME_OVER = Phase.ROUND_OVER, Phase.GAME_OVER


class Game:
    """A game of Yaniv: the position of the current round, the scores, and the history."""

    __slots__ = (
        "rules", "n", "rng", "seed", "names", "scores", "out", "hands", "values", "counts",
        "known", "stock", "pile", "kinds", "pickable", "_to_move", "phase", "drawn",
        "round_no", "deal", "moves", "refills", "history", "result", "winners", "_script",
        "_rng_shared", "_events", "_logged",
    )

    rules: RuleSet
    n: int
    rng: random.Random
    seed: int | None
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
    _rng_shared: bool  # rng is shared with a clone: copy it before the next shuffle
    _events: list[tuple[int, str]]  # this round's public log so far, built lazily for views
    _logged: int  # the moves that _events covers

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
    ) -> Game:
        """A new game, its first round dealt: seat 0 deals and seat 1 starts (R4, R6).

        Randomness comes only from ``rng``, or else from ``random.Random(seed)``; a recorded
        ``deal`` replaces the first shuffle.
        """
        rules = rules or RuleSet()
        _check_players(players, rules)
        game = cls._blank(rules, players, names)
        game.seed = seed
        game.rng = rng if rng is not None else random.Random(seed)
        game.round_no = 0
        if deal is not None:
            game._check_deal(deal)
        game._deal_round(1, deal)
        return game

    @classmethod
    def from_position(
        cls,
        rules: RuleSet | None,
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
    ) -> Game:
        """A position at the start of ``to_move``'s turn, like a FEN for a chess board.

        ``stock`` lists the top card first; ``discards`` the pile's groups oldest first, each in
        laid order, the last being the previous player's discard. ``known`` gives, per seat,
        the cards of its hand that were seen taken from the pile. Cards are ints or notation.
        Raises SetupError naming what cannot be.
        """
        rules = rules or RuleSet()
        n = len(hands)
        _check_players(n, rules)
        hand_cards = [_cards(h) for h in hands]
        stock_cards = _cards(stock)
        groups = [tuple(_cards(g)) for g in discards]
        allowed = set(deck(rules.jokers))
        seen: set[Card] = set()
        every = [c for h in hand_cards for c in h] + stock_cards + [c for g in groups for c in g]
        for c in every:
            if c not in allowed:
                raise SetupError(f"card {NAMES[c]} is not in the deck of these rules "
                                 f"({rules.jokers} jokers)")
            if c in seen:
                raise SetupError(f"card {NAMES[c]} appears twice in the position")
            seen.add(c)
        out_set = set(out)
        for s in out_set:
            if not 0 <= s < n:
                raise SetupError(f"eliminated seat {s} does not exist ({n} players)")
        for s, h in enumerate(hand_cards):
            if s in out_set and h:
                raise SetupError(f"seat {s} is out but holds cards: {cards_text(h)}")
            if s not in out_set and not h:
                raise SetupError(f"seat {s} is in the game but holds no card")
        if len(out_set) >= n - 1:
            raise SetupError("at least two players must still be in the game")
        if not groups or any(not g for g in groups):
            raise SetupError("the pile needs at least one discard group, and no group is empty")
        if not 0 <= to_move < n or to_move in out_set:
            raise SetupError(f"seat {to_move} cannot be to move: no such seat, or it is out")
        score_list = list(scores) if scores is not None else [0] * n
        if len(score_list) != n or any(not isinstance(v, int) or v < 0 for v in score_list):
            raise SetupError(f"scores {score_list!r}: expected {n} non-negative integers")
        kinds = [D.classify(g, rules) for g in groups]
        if kinds[-1] == D.BROKEN:
            raise SetupError(
                f"the previous discard {cards_text(groups[-1])} is not a legal discard"
            )

        game = cls._blank(rules, n, names)
        game.seed = seed
        game.rng = random.Random(seed)
        game.round_no = 1
        game.scores = score_list
        game.out = [s in out_set for s in range(n)]
        for s, h in enumerate(hand_cards):
            game._set_hand(s, h)
        if known is not None:
            if len(known) != n:
                raise SetupError(f"known cards for {len(known)} seats, but {n} players")
            for s, cards in enumerate(known):
                mask = mask_of(_cards(cards))
                if mask & ~game.hands[s]:
                    raise SetupError(f"seat {s} is said to hold cards it does not hold: "
                                     f"{cards_text(cards_of(mask & ~game.hands[s]))}")
                game.known[s] = mask
        game.stock = stock_cards[::-1]
        game.pile = groups
        game.kinds = kinds
        game.deal = None
        game._begin_turn(to_move)
        return game

    @classmethod
    def _blank(cls, rules: RuleSet, n: int, names: Sequence[str] | None) -> Game:
        game = cls.__new__(cls)
        game.rules = rules
        game.n = n
        if names is not None and len(names) != n:
            raise SetupError(f"{len(names)} names for {n} players")
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
        game._rng_shared = False
        game._events = []
        game._logged = 0
        return game

    def _set_hand(self, seat: int, cards: Sequence[Card]) -> None:
        self.hands[seat] = mask_of(cards)
        self.values[seat] = sum(VALUE[c] for c in cards)
        self.counts[seat] = len(cards)
        self.known[seat] = 0

    def _deal_round(self, starter: int, deal: Deal | None) -> None:
        """Deal a round (R4) with the game's rng, or lay out a recorded ``deal``."""
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
            deal = Deal(tuple(hands), cards[k], tuple(cards[k + 1 :]), starter)
        self.round_no += 1
        self.deal = deal
        for s, hand in enumerate(deal.hands):
            self._set_hand(s, hand)
        self.stock = list(deal.stock[::-1])
        self.pile = [(deal.up,)]
        self.kinds = [D.SINGLE]
        self.moves = []
        self.refills = []
        self._events = []
        self._logged = 0
        self._begin_turn(deal.starter)

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
        if self._rng_shared:
            # Copy on write: a clone and its original shuffle alike but independently.
            own = random.Random()
            own.setstate(self.rng.getstate())
            self.rng = own
            self._rng_shared = False
        self.rng.shuffle(cards)

    def clone(self) -> Game:
        """An independent copy (finished rounds are shared: they never change).

        The copy's random generator starts in the original's state, so both deal and refill
        alike, and neither advances the other's.
        """
        g = Game.__new__(Game)
        g.rules = self.rules
        g.n = self.n
        g.rng = self.rng
        g._rng_shared = self._rng_shared = True
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
        g._events = []
        g._logged = 0
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
            self.rules, self.n, tuple(self.scores), tuple(self.out), tuple(self.hands),
            tuple(self.values), tuple(self.counts), tuple(self.known), tuple(self.stock),
            tuple(self.pile), tuple(self.kinds), self.pickable, self._to_move, self.phase,
            self.drawn, self.round_no, self.deal, tuple(self.moves), tuple(self.refills),
            tuple(self.history), self.result, self.winners,
        )

    def public_events(self) -> tuple[tuple[int, str], ...]:
        """This round's moves in notation, and a ``(-1, "refill N")`` after each stock refill.

        Every move is public (a stock draw does not name its card), so this is the log any
        seat may see. Built incrementally: views ask for it at every decision.
        """
        events = self._events
        for i in range(self._logged, len(self.moves)):
            seat, move = self.moves[i]
            events.append((seat, str(move)))
            for at, stock in self.refills:
                if at == i + 1:
                    events.append((-1, f"refill {len(stock)}"))
        self._logged = len(self.moves)
        return tuple(events)

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
        out = [DRAWS[c] for c in self.pickable]
        if self.stock:
            out.insert(0, DRAW_STOCK)
        return out

    def discard_options(self) -> Sequence[Discard]:
        """The legal discards now, one per distinct outcome (empty when no discard is due)."""
        p = self._to_move
        if self.phase == _DISCARD:
            hand = self.hands[p]
            drawn = self.drawn
            return [
                d for d in D.legal_discards(hand, self.rules)
                if d.mask != hand and d.cards != (drawn,)
            ]
        if self.phase == _START and not self.rules.draw_first:
            return D.legal_discards(self.hands[p], self.rules)
        return ()

    def legal_moves(self) -> Sequence[Move]:
        """Every legal move of the seat to act, one per distinct outcome."""
        phase = self.phase
        if phase == _START:
            if self.rules.draw_first:
                first: Sequence[Move] = self.draw_options()
            else:
                first = D.legal_discards(self.hands[self._to_move], self.rules)
            return [YANIV, *first] if self.can_yaniv() else first
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
                return (f"the hand is worth {self.values[p]}, over the Yaniv threshold "
                        f"{rules.yaniv_threshold}")
            return None
        if isinstance(move, Discard):
            if not (phase == _DISCARD or (phase == _START and not rules.draw_first)):
                return ("a discard is not due now: "
                        + ("draw first" if phase == _START else f"phase is {phase.label}"))
            if move.mask & self.hands[p] != move.mask or len(move.cards) != move.mask.bit_count():
                missing = [c for c in move.cards if not self.hands[p] >> c & 1]
                return f"seat {p} does not hold {cards_text(missing)}"
            if D.classify(move.cards, rules) == D.BROKEN:
                return "the cards are not a single card, a set or a run in laid order (R8, R9)"
            if phase == _DISCARD:
                if move.mask == self.hands[p]:
                    return "at least one card must stay in the hand (R21)"
                if move.cards == (self.drawn,):
                    return f"{NAMES[self.drawn]} was just taken from the pile (R21)"
            return None
        if isinstance(move, Draw):
            if not (phase == _DRAW or (phase == _START and rules.draw_first)):
                return ("a draw is not due now: "
                        + ("discard first" if phase == _START else f"phase is {phase.label}"))
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

    def play(self, move: Move | str) -> RoundResult | None:
        """Check and make a move (or its text); returns the round's result when it ends it.

        Raises InvalidMoveError for text that is not a move, IllegalMoveError for a move the
        rules refuse; either way the game is unchanged.
        """
        parsed = parse_move(move)
        reason = self.why_illegal(parsed)
        if reason is not None:
            seat = "" if self._to_move < 0 else f" by seat {self._to_move}"
            raise IllegalMoveError(f"illegal move '{parsed}'{seat}: {reason}")
        return self.apply(parsed)

    def apply(self, move: Move) -> RoundResult | None:
        """Make a legal move without checking it (the fast path for bots and simulations)."""
        p = self._to_move
        self.moves.append((p, move))
        if isinstance(move, Discard):
            self._discard(p, move)
        elif isinstance(move, Draw):
            self._draw(p, move.card)
        elif isinstance(move, Yaniv):
            return self._showdown(p)
        elif isinstance(move, Slap):
            self._slap(p, move.card)
        else:  # Pass
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
        if self.rules.draw_first:
            self._end_turn(p)
        else:
            self.phase = _DRAW

    def _draw(self, p: int, card: Card | None) -> None:
        rules = self.rules
        from_stock = card is None
        if card is None:
            card = self.stock.pop()
        else:
            # The previous discard lies under this turn's discard, or on top with draw-first.
            i = -1 if rules.draw_first else -2
            group = tuple(c for c in self.pile[i] if c != card)
            if group:
                self.pile[i] = group
                self.kinds[i] = D.BROKEN
            else:
                del self.pile[i]
                del self.kinds[i]
            self.known[p] |= 1 << card
        self.hands[p] |= 1 << card
        self.values[p] += VALUE[card]
        self.counts[p] += 1
        if not self.stock:
            self._refill()
        if rules.draw_first:
            self.phase = _DISCARD
            self.drawn = -1 if from_stock else card
        elif (
            from_stock
            and rules.slapdown != "off"
            and self.counts[p] > 1
            and D.slap_position(self.pile[-1], self.kinds[-1], card, rules.slapdown)
        ):
            self.phase = _SLAP
            self.drawn = card
        else:
            self._end_turn(p)

    def _slap(self, p: int, card: Card) -> None:
        group = self.pile[-1]
        where = D.slap_position(group, self.kinds[-1], card, self.rules.slapdown)
        self.pile[-1] = (card, *group) if where < 0 else (*group, card)
        if self.kinds[-1] == D.SINGLE:
            self.kinds[-1] = D.SET
        self.hands[p] ^= 1 << card
        self.values[p] -= VALUE[card]
        self.counts[p] -= 1
        self._end_turn(p)

    def _refill(self) -> None:
        """R11: the pile but its most recent group becomes the new, shuffled stock."""
        if len(self.pile) < 2:
            return
        cards = [c for g in self.pile[:-1] for c in g]
        if self._script:
            scripted = self._script.pop(0)
            if sorted(scripted) != sorted(cards):
                raise SetupError("a recorded refill does not hold the cards of the pile")
            stock = list(scripted)
        else:
            self._shuffle(cards)
            stock = cards
        self.refills.append((len(self.moves), tuple(stock)))
        self.stock = stock[::-1]
        self.pile = self.pile[-1:]
        self.kinds = self.kinds[-1:]

    def _end_turn(self, p: int) -> None:
        n = self.n
        nxt = (p + 1) % n
        while self.out[nxt]:
            nxt = (nxt + 1) % n
        self._begin_turn(nxt)

    def _begin_turn(self, seat: int) -> None:
        self.pickable = D.pickable(self.pile[-1], self.kinds[-1], self.rules.pickup)
        self._to_move = seat
        self.phase = _START
        self.drawn = -1

    # ----------------------------------------------------------------- showdown and scores

    def _showdown(self, caller: int) -> RoundResult:
        rules = self.rules
        n = self.n
        values = self.values
        c = values[caller]
        active = [s for s in range(n) if not self.out[s]]
        # Others in clockwise order from the caller, so ties resolve to the first of them (R17).
        others = [s for s in ((caller + k) % n for k in range(1, n)) if not self.out[s]]
        points = [0] * n
        if c > rules.yaniv_threshold:  # R15: a deliberate Assaf
            kind = ResultKind.DELIBERATE
            low = [s for s in others if values[s] <= rules.yaniv_threshold]
        else:
            low = [s for s in others if values[s] <= c]
            kind = ResultKind.ASSAF if low else ResultKind.YANIV
        best = min((values[s] for s in low), default=0)
        zero = tuple(s for s in low if values[s] == best)
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

        bonuses = [0] * n
        for s in active:
            if points[s]:
                score = self.scores[s] + points[s]
                bonuses[s] = _bonus(score, rules)
                self.scores[s] = score - bonuses[s]

        newly_out: tuple[int, ...] = ()
        winners: tuple[int, ...] = ()
        if rules.end_mode == "elimination":
            newly_out = tuple(s for s in active if self.scores[s] > rules.score_limit)
            for s in newly_out:
                self.out[s] = True
            remaining = [s for s in active if not self.out[s]]
            if len(remaining) == 1:
                winners = (remaining[0],)
            elif not remaining:
                lowest = min(self.scores[s] for s in newly_out)
                winners = tuple(s for s in newly_out if self.scores[s] == lowest)
        elif any(self.scores[s] > rules.score_limit for s in active):
            lowest = min(self.scores[s] for s in active)
            winners = tuple(s for s in active if self.scores[s] == lowest)

        if kind is ResultKind.YANIV:
            winner = caller
        elif zero:
            winner = zero[0]
        else:
            winner = others[0]
        winner = self._remaining_from(winner)
        next_starter: int | None = None
        if not winners:
            base = winner if rules.next_starter == "winner" else caller
            next_starter = self._remaining_from(base)

        result = RoundResult(
            kind=kind,
            caller=caller,
            hands=tuple(tuple(cards_of(h)) for h in self.hands),
            hand_values=tuple(values),
            assafers=zero,
            points=tuple(points),
            bonuses=tuple(bonuses),
            scores=tuple(self.scores),
            newly_out=newly_out,
            winner=winner,
            next_starter=next_starter,
            game_winners=winners,
        )
        self.result = result
        self.winners = winners
        self.phase = _GAME_OVER if winners else _ROUND_OVER
        self._to_move = -1
        if self.deal is not None:
            self.history.append(
                RoundLog(self.deal, tuple(self.moves), tuple(self.refills), result)
            )
        return result

    def _remaining_from(self, seat: int) -> int:
        """``seat`` if it is still in the game, else the next one clockwise that is."""
        for k in range(self.n):
            s = (seat + k) % self.n
            if not self.out[s]:
                return s
        return seat  # everyone is out: the game is over and no one starts

    # ----------------------------------------------------------------- views and text

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know: its own hand and every public fact."""
        from .view import make_view

        return make_view(self, seat)

    def __repr__(self) -> str:
        hands = " | ".join(cards_text(self.hand(s)) for s in range(self.n))
        return (f"<Game round {self.round_no} {self.phase.label} to_move={self.to_move} "
                f"hands=[{hands}] pile_top={cards_text(self.pile[-1]) if self.pile else '-'} "
                f"stock={len(self.stock)} scores={self.scores}>")


def _bonus(score: int, rules: RuleSet) -> int:
    """Points the bonus (R18) takes off a score that changed this round and landed on ``score``."""
    if score == 0 or rules.bonus == "none":
        return 0
    if rules.bonus == "halve":
        return score - score // 2 if score in rules.bonus_targets else 0
    return rules.bonus_amount if score % rules.bonus_step == 0 else 0


def _check_players(n: int, rules: RuleSet) -> None:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise SetupError(f"{n} players: Yaniv is played by {MIN_PLAYERS} to {MAX_PLAYERS} "
                         "with one deck (R5)")
    needed = n * rules.hand_size + 1
    if needed > 52 + rules.jokers:
        raise SetupError(f"{n} players with {rules.hand_size} cards each need {needed} cards; "
                         f"the deck has {52 + rules.jokers}")


def _cards(items: Iterable[Card | str]) -> list[Card]:
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
            raise SetupError(f"not a card: {item!r}")
    return out
