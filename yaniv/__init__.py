"""Yaniv: the card game, with an exact rules engine, computer opponents and a terminal game."""

from .cards import Card, card_name, parse_card, parse_cards
from .errors import (
    CardError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    RecordError,
    RuleError,
    SetupError,
    YanivError,
)
from .game import Deal, Game, Phase, ResultKind, RoundResult
from .moves import Discard, Draw, Move, Pass, Slap, Yaniv, parse_move
from .rules import PRESETS, RuleSet

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Card",
    "CardError",
    "Deal",
    "Discard",
    "Draw",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "MoveError",
    "Pass",
    "Phase",
    "RecordError",
    "ResultKind",
    "RoundResult",
    "RuleError",
    "RuleSet",
    "SetupError",
    "Slap",
    "Yaniv",
    "YanivError",
    "card_name",
    "parse_card",
    "parse_cards",
    "parse_move",
]
