"""The rule set: every option of RULES.md, the presets, and validation.

>>> RuleSet.preset("hebrew", yaniv_threshold=5).yaniv_threshold
5
>>> RuleSet.preset("standard", jokers=3)
Traceback (most recent call last):
...
yaniv.errors.RuleError: bad value for option 'jokers': 3; allowed: an integer 0 to 2
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RuleError, is_whole, quoted

#: The allowed values of each option whose value is a word.
CHOICES: dict[str, tuple[str, ...]] = {
    "next_starter": ("winner", "caller"),
    "joker_in_run": ("anywhere", "gaps_only", "never"),
    "pickup": ("ends", "run_top_set_any", "run_ends_set_any", "any"),
    "assaf_scoring": ("standard", "caller_only"),
    "bonus": ("halve", "subtract", "none"),
    "end_mode": ("elimination", "first_over"),
    "slapdown": ("off", "rank", "rank_or_run"),
    "assaf_ties": ("all", "clockwise", "counterclockwise"),
    "slap_empty_hand": ("never", "yaniv_now", "yaniv_next"),
}

#: Inclusive bounds of each integer option.
BOUNDS: dict[str, tuple[int, int]] = {
    "jokers": (0, 2),
    "hand_size": (1, 10),
    "yaniv_threshold": (0, 500),
    "assaf_penalty": (0, 1000),
    "score_limit": (1, 100_000),
    "bonus_step": (1, 100_000),
    "bonus_amount": (1, 100_000),
    "run_naturals": (1, 2),
    "max_set": (0, 6),
}

#: Integer values inside an option's bounds that are still refused, with the reason: a set
#: has two cards at least, so a limit of one would forbid every set (say "0" for no limit).
HOLES: dict[str, tuple[int, ...]] = {"max_set": (1,)}

#: Bounds of each bonus target (the scores score_limit allows), and the most targets a rule
#: set may list.
TARGET_BOUNDS = (1, 100_000)
MAX_TARGETS = 100

#: An integer as option text: ASCII digits with an optional sign (no ``1_000``, no ``５``).
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: More digits than this is refused unread (every bound above has at most six).
_MAX_DIGITS = 12

#: One line per option, for help texts and `yaniv rules`.
DESCRIPTIONS: dict[str, str] = {
    "jokers": "jokers in the deck (R1)",
    "hand_size": "cards dealt to each player (R4)",
    "next_starter": "who starts the next round: the round's winner or the Yaniv caller (R6)",
    "draw_first": "draw before discarding; the drawn card may join the discard (R21)",
    "jokers_in_sets": "jokers may join a set of equal ranks (R8)",
    "joker_in_run": "where a joker may stand in a run (R8)",
    "pickup": "which cards of the previous discard may be drawn (R10)",
    "yaniv_threshold": "highest hand value at which Yaniv may be called (R13)",
    "assaf_penalty": "points added to the caller's hand value in an Assaf (R14)",
    "assaf_scoring": "in an Assaf, everyone scores (standard) or only the caller (R14)",
    "yaniv_above_threshold": "Yaniv may be called above the threshold: a deliberate Assaf (R15)",
    "bonus": "what landing on a bonus score does: halve, subtract or none (R18)",
    "bonus_targets": "scores that are halved when landed on exactly (bonus=halve)",
    "bonus_step": "multiples of this score earn the bonus (bonus=subtract)",
    "bonus_amount": "points subtracted at a multiple of bonus_step (bonus=subtract)",
    "end_mode": "over score_limit a player is out (elimination) or the game ends (first_over)",
    "score_limit": "the score a player must pass to be out or to end the game (R19, R20)",
    "slapdown": "slap down a matching card drawn from the stock (R22)",
    "joker_pair": "two jokers alone are a set (R8)",
    "run_naturals": "the natural cards a run needs at least: 1 or 2 (R8)",
    "max_set": "the most cards a set may hold, jokers included; 0 for no limit (R8)",
    "assaf_ties": "of several tied lowest in an Assaf: all score 0, or only the first "
    "clockwise or counter-clockwise from the caller (R14, R15)",
    "slap_empty_hand": "a slap that empties the hand: never, ends the round as a Yaniv with 0 "
    "(yaniv_now), or leaves only a Yaniv call next turn (yaniv_next) (R22)",
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule option of RULES.md; the defaults are the standard game."""

    jokers: int = 2
    hand_size: int = 5
    next_starter: str = "winner"
    draw_first: bool = False
    jokers_in_sets: bool = False
    joker_in_run: str = "anywhere"
    pickup: str = "ends"
    yaniv_threshold: int = 7
    assaf_penalty: int = 30
    assaf_scoring: str = "standard"
    yaniv_above_threshold: bool = False
    bonus: str = "halve"
    bonus_targets: tuple[int, ...] = field(default=(100, 200))
    bonus_step: int = 50
    bonus_amount: int = 50
    end_mode: str = "elimination"
    score_limit: int = 200
    slapdown: str = "off"
    joker_pair: bool = False
    run_naturals: int = 1
    max_set: int = 0
    assaf_ties: str = "all"
    slap_empty_hand: str = "never"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check(f.name, getattr(self, f.name))
        if self.bonus == "subtract" and self.bonus_amount > self.bonus_step:
            raise RuleError(
                f"bad value for option 'bonus_amount': {self.bonus_amount} is more than "
                f"bonus_step {self.bonus_step}, so a bonus could make a score negative"
            )

    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> RuleSet:
        """The named preset with ``overrides`` set on top of it."""
        if not isinstance(name, str) or name not in PRESETS:
            raise RuleError(f"unknown preset {_shown(name)}; presets: {', '.join(PRESETS)}")
        return PRESETS[name].replace(**overrides)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """A rule set from ``{"preset": NAME, OPTION: VALUE, ...}`` (preset default standard)."""
        if not isinstance(data, Mapping):
            raise RuleError(f"rule options must be an object of OPTION: VALUE, not {_shown(data)}")
        options = dict(data)
        name = options.pop("preset", "standard")
        if not isinstance(name, str):
            raise RuleError(f"bad preset {_shown(name)}: expected a preset name")
        _check_names(options)
        return cls.preset(name, **options)

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy with ``overrides`` set; unknown options raise RuleError."""
        _check_names(overrides)
        if "bonus_targets" in overrides and isinstance(overrides["bonus_targets"], list):
            overrides["bonus_targets"] = tuple(overrides["bonus_targets"])
        return dataclasses.replace(self, **overrides)

    @classmethod
    def from_preset_and_options(
        cls, preset: str = "standard", options: Iterable[str] = ()
    ) -> RuleSet:
        """A preset with ``KEY=VALUE`` texts over it, as a command line or a form gives them.

        >>> RuleSet.from_preset_and_options("hebrew", ["yaniv_threshold=5"]).yaniv_threshold
        5
        """
        pairs: dict[str, str] = {}
        for item in options:
            key, sep, value = str(item).partition("=")
            if not sep or not key.strip():
                raise RuleError(f"{_shown(item)}: expected KEY=VALUE, e.g. yaniv_threshold=5")
            pairs[key.strip()] = value.strip()
        return cls.preset(preset).with_options(pairs)

    def with_options(self, options: Mapping[str, str]) -> RuleSet:
        """A copy with options given as text, as on a command line: ``{"jokers": "1"}``."""
        return self.replace(**{k: parse_option(k, v) for k, v in options.items()})

    def to_dict(self) -> dict[str, Any]:
        """Every option as a JSON-ready dict (a new one each call, so a caller may change it)."""
        out = _options(self).copy()  # every value is a scalar but the list, copied here
        out["bonus_targets"] = list(self.bonus_targets)
        return out

    def differences(self, other: RuleSet | None = None) -> dict[str, Any]:
        """The options that differ from ``other`` (default: the standard rules)."""
        base = (other or STANDARD).to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}

    def preset_name(self) -> str | None:
        """The name of the preset this rule set equals, if any."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None


@functools.lru_cache(maxsize=256)
def _options(rules: RuleSet) -> dict[str, Any]:
    """``dataclasses.asdict`` of a rule set, made once: it deep-copies every field, and every
    view the web server sends holds the rules."""
    return dataclasses.asdict(rules)


def _shown(value: Any) -> str:
    """A value quoted briefly for a message (an option may hold anything a file holds)."""
    if is_whole(value) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    return quoted(value)


def _check_names(options: Mapping[Any, Any]) -> None:
    for key in options:
        if key not in OPTION_NAMES:
            raise RuleError(f"unknown option {_shown(key)}; options: {', '.join(OPTION_NAMES)}")


def _in_range(value: Any, low: int, high: int) -> bool:
    return is_whole(value) and low <= value <= high


def _check(name: str, value: Any) -> None:
    if name in CHOICES:
        if not isinstance(value, str) or value not in CHOICES[name]:
            allowed = ", ".join(repr(v) for v in CHOICES[name])
            raise RuleError(f"bad value for option {name!r}: {_shown(value)}; allowed: {allowed}")
    elif name in BOUNDS:
        if not _in_range(value, *BOUNDS[name]) or value in HOLES.get(name, ()):
            raise RuleError(
                f"bad value for option {name!r}: {_shown(value)}; allowed: {allowed_integers(name)}"
            )
    elif name == "bonus_targets":
        low, high = TARGET_BOUNDS
        if (
            not isinstance(value, tuple)
            or len(value) > MAX_TARGETS
            or not all(_in_range(v, low, high) for v in value)
        ):
            raise RuleError(
                f"bad value for option 'bonus_targets': {_shown(value)}; allowed: "
                f"a list of at most {MAX_TARGETS} integers {low} to {high}"
            )
    elif not isinstance(value, bool):
        raise RuleError(f"bad value for option {name!r}: {_shown(value)}; allowed: true, false")


def allowed_integers(name: str) -> str:
    """The values an integer option allows, in words: "an integer 0 to 6, but not 1"."""
    low, high = BOUNDS[name]
    holes = HOLES.get(name, ())
    but = f", but not {', '.join(map(str, holes))}" if holes else ""
    return f"an integer {low} to {high}{but}"


def _parse_int(text: str) -> int | None:
    """The integer ``text`` spells in ASCII digits (sign allowed), or None."""
    if not _INTEGER.fullmatch(text) or len(text.lstrip("+-").lstrip("0")) > _MAX_DIGITS:
        return None
    return int(text)


def parse_option(name: str, text: str) -> Any:
    """Convert an option's text (``"5"``, ``"true"``, ``"100,200"``) to its typed value."""
    if name not in OPTION_NAMES:
        raise RuleError(f"unknown option {_shown(name)}; options: {', '.join(OPTION_NAMES)}")
    if not isinstance(text, str):
        raise RuleError(f"bad value for option {name!r}: {_shown(text)}; expected text")
    text = text.strip()
    if name in CHOICES:
        return text
    if name in BOUNDS:
        number = _parse_int(text)
        if number is None:
            raise RuleError(
                f"bad value for option {name!r}: {_shown(text)}; expected {allowed_integers(name)}"
            )
        return number
    if name == "bonus_targets":
        words = text.replace(",", " ").split(maxsplit=MAX_TARGETS)
        numbers = [_parse_int(w) for w in words]
        if len(words) > MAX_TARGETS or None in numbers:
            raise RuleError(
                f"bad value for option 'bonus_targets': {_shown(text)}; expected "
                f"at most {MAX_TARGETS} integers like 100,200"
            )
        return tuple(numbers)
    lowered = text.lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise RuleError(f"bad value for option {name!r}: {_shown(text)}; allowed: true, false")


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RuleSet))
STANDARD = RuleSet()
PRESETS: dict[str, RuleSet] = {
    "standard": STANDARD,
    "quick": RuleSet(yaniv_threshold=5, score_limit=100),
    "hebrew": RuleSet(
        pickup="run_top_set_any",
        bonus="subtract",
        bonus_step=50,
        bonus_amount=50,
        end_mode="first_over",
        yaniv_above_threshold=True,
    ),
    "draw_first": RuleSet(draw_first=True),
    "slapdown": RuleSet(slapdown="rank"),
}
