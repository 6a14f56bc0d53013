"""The project's exceptions: one base, each naming the input and the reason."""

from __future__ import annotations


class YanivError(Exception):
    """Base of every error this package raises on purpose."""


class CardError(YanivError, ValueError):
    """A card text or value that is not a card of the game."""


class RuleError(YanivError, ValueError):
    """A rule set that cannot be played: an unknown option, a bad value, an unknown preset."""


class SetupError(YanivError, ValueError):
    """A position that cannot exist: a card twice, a card outside the deck, a bad player count."""


class MoveError(YanivError, ValueError):
    """A move that was refused; the game is unchanged."""


class InvalidMoveError(MoveError):
    """A move text that does not parse: an unknown verb or card, missing cards."""


class IllegalMoveError(MoveError):
    """A well-formed move that the rules do not allow in this position."""


class ViewError(YanivError, ValueError):
    """A view (JSON) that cannot be read back."""


class RecordError(YanivError, ValueError):
    """A game record that cannot be read or does not replay."""
