"""The project's exceptions: one base, each naming the input and the reason; and the two
helpers every input check uses to judge and quote what it was given."""

from __future__ import annotations

from typing import TypeGuard


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


def is_whole(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an int and not a bool (JSON's true is no seat number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def quoted(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut after ``limit`` characters of text (a file may hold anything)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    try:
        text = repr(value)
    except Exception:  # e.g. an int too long to print
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."
