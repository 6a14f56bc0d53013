"""What a seat may know of the cards, rebuilt from the events a message carries (for the tests
that check that no hidden card leaks from the server)."""

from __future__ import annotations

import re
from typing import Any

from yaniv.cards import NAMES

#: A card's name anywhere in a message's text.
CARD = re.compile(r"\b(?:" + "|".join(NAMES) + r")\b")


def knowledge(
    events: list[dict[str, Any]], seat: int | None
) -> tuple[set[str], dict[int, set[str]] | None]:
    """What this round's events tell ``seat``, each checked to be something it may see: the
    cards they name (the card turned up, discards, slaps, pile draws, the showdown, its own
    hand and stock draws), and per seat the cards it took from the pile and still holds
    (None once the showdown has shown every hand)."""
    told: set[str] = set()
    held: dict[int, set[str]] | None = {}
    for event in events:
        kind = event["type"]
        if kind == "deal":
            for s, hand in enumerate(event["hands"]):
                assert hand is None or s == seat, ("another's dealt hand", seat, event)
                told.update(hand or ())
            told.add(event["up"])
        elif kind == "draw":
            if event["source"] == "stock" and event["seat"] != seat:
                assert event["card"] is None, ("another's stock draw", seat, event)
            if event["card"] is not None:
                told.add(event["card"])
            if event["source"] == "pile" and held is not None:
                held.setdefault(event["seat"], set()).add(event["card"])
        elif kind == "discard":
            told.update(event["cards"])
            if held is not None:
                held.setdefault(event["seat"], set()).difference_update(event["cards"])
        elif kind == "slap":
            told.add(event["card"])
            if held is not None:
                held.setdefault(event["seat"], set()).discard(event["card"])
        elif kind == "pass":
            assert event["seat"] == seat, ("another's declined slap", seat, event)
        elif kind == "showdown":
            for hand in event["result"]["hands"]:
                told.update(hand)
            held = None
        else:
            assert kind == "refill", f"an event of an unknown type: {event}"
    return told, held


def this_round(story: list[str], round_no: int) -> list[str]:
    """The story's lines of round ``round_no`` (from its "Round N:" line on)."""
    starts = [i for i, line in enumerate(story) if line.startswith(f"Round {round_no}:")]
    return story[starts[-1] :] if starts else story
