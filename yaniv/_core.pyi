# The compiled core's types (yaniv/_core.c); each has a pure-Python twin, named in its docstring.
from collections.abc import Callable, Sequence
from typing import Any

ABI: int

class Lister:
    """discards.py's lister: a hand's legal discards, from a table per hand."""

    def __init__(
        self,
        table: dict[int, Any],
        sets: dict[int, Any],
        runs: dict[int, Any],
        make: Callable[[list[Any]], Any],
        singles: tuple[Any, ...],
        of_rank: Callable[[int], Sequence[Any]],
        of_suit: Callable[[int], Sequence[Any]],
        pair: Any,
        jokers_in_sets: bool,
        run_jokers: bool,
        run_naturals: int,
        limit: int,
        fallback: Callable[[int], Any],
        /,
    ) -> None: ...
    def __call__(self, hand: int, /) -> Any: ...
    def compose(self, hand: int, /) -> list[Any]: ...

def apply(game: Any, move: Any, /) -> Any:
    """game.py's Game.apply for the common turns; the rest goes to the pure method."""

def legal_moves(game: Any, /) -> Any:
    """game.py's Game.legal_moves for the common phases; the rest goes to the pure method."""

def setup(*parts: Any) -> tuple[Any, Any]:
    """What apply and legal_moves need of game.py (called once, at its import); returns the
    method descriptors of Game.apply and Game.legal_moves."""

def compose(
    hand: int,
    singles: tuple[Any, ...],
    sets: dict[int, Any],
    runs: dict[int, Any],
    of_rank: Callable[[int], Sequence[Any]],
    of_suit: Callable[[int], Sequence[Any]],
    pair: Any,
    jokers_in_sets: bool,
    run_jokers: bool,
    run_naturals: int,
    /,
) -> list[Any] | None:
    """discards.compose for any parts; None where the hand or the parts are not as expected."""

def write_planes(bits: int, out: Any, count: int, /) -> bool:
    """Observer._write_bits: bits into float32 entries; False where the inputs are not as
    expected (nothing written)."""

def shuffle(getrandbits: Callable[[int], int], x: list[Any], /) -> None:
    """random.Random.shuffle, step for step, drawing from the generator's getrandbits."""

def classify(cards: tuple[int, ...], rules: Any, /) -> int | None:
    """discards.classify of two cards or more; None where it would ask discards.classify."""

def cards_of(mask: int, /) -> list[int]:
    """The cards of a bitmask, in ascending card order."""

def set_cards_of_fallback(fallback: Callable[[int], list[int]], /) -> None:
    """cards.py's pure cards_of, for what is not a mask of cards 0..63."""

def card_bits(
    game: Any, seat: int, shifts: list[tuple[int, int]], pile_shift: int, /
) -> int | None:
    """Observer._card_bits; None where the game is not laid out as game.py lays it out."""

class Writer:
    """envs/observation.py's Observer.write: a seat's observation, every part but the rules."""

    def __init__(
        self,
        n: int,
        size: int,
        sizes_at: int,
        scores_at: int,
        out_at: int,
        turn_at: int,
        phase_at: int,
        stock_at: int,
        value_at: int,
        inv_hand: float,
        inv_limit: float,
        inv_stock: float,
        inv_value: float,
        cap: int,
        /,
    ) -> None: ...
    def __call__(self, game: Any, seat: int, out: Any, /) -> bool: ...

class Actions:
    """envs/actions.py's ActionTable.legal_actions at a turn's start and in phase draw."""

    def __init__(
        self,
        singles: tuple[Any, ...],
        sets: dict[int, Any],
        runs: dict[int, Any],
        of_rank: Callable[[int], Sequence[Any]],
        of_suit: Callable[[int], Sequence[Any]],
        pair: Any,
        jokers_in_sets: bool,
        run_jokers: bool,
        run_naturals: int,
        draw_of: tuple[int, ...],
        stock: int,
        yaniv: int,
        /,
    ) -> None: ...
    def __call__(self, game: Any, /) -> list[int] | None: ...

def write_mask(raw: Any, old: list[int], new: list[int], /) -> bool:
    """MaskBuffer.update: entries ``old`` of the bytes set to 0, then ``new`` to 1; False where
    an index or the buffer is not as expected (nothing written)."""

class Builder:
    """``cls(*values)`` for a frozen dataclass with slots and no __post_init__."""

    def __init__(self, cls: type[Any], names: tuple[str, ...], /) -> None: ...
    def __call__(self, *values: Any) -> Any: ...

def score_round(rules: Any, scores: Any, out: Any, values: Any, caller: int, /) -> Any:
    """scoring.py's score_round; what it does not read as expected goes to the pure one."""

def setup_scoring(
    pure: Callable[..., Any],
    builder: Builder,
    yaniv: Any,
    assaf: Any,
    deliberate: Any,
    rules_type: type[Any],
    /,
) -> None:
    """What score_round needs of scoring.py (called once, at game.py's import)."""

def seeded_shuffle(key: int, x: list[Any], /) -> None:
    """random.Random(text).shuffle(x), given the int random.seed makes of the text."""

def lay_hands(game: Any, hands: tuple[tuple[int, ...], ...], /) -> bool:
    """game.py's _set_hand for every seat of a deal; False where not as expected."""

def pickable(group: tuple[Any, ...], kind: Any, pickup: Any, /) -> tuple[Any, ...]:
    """discards.pickable (R10), as the compiled end of a turn reads it."""

class SeatBuffers:
    """envs/seat_buffers.py's SeatBuffers: a seat's observation and mask, once a position."""

    seat: int
    observation: Any
    mask: Any

    def __init__(
        self,
        seat: int,
        writer: Writer | None,
        rewrite: Callable[[Any], Any],
        actions: Actions | None,
        legal: Callable[[Any], list[int]],
        observation: Any,
        mask: Any,
        /,
    ) -> None: ...
    def update(self, game: Any, /) -> None: ...
    def allows(self, game: Any, index: int, /) -> bool: ...

def play_random(game: Any, learner: int, rngs: list[Any], /) -> int:
    """gym_env.py's random opponents moving until the learner's turn; how many moves made."""
