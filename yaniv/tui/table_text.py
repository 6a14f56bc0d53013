"""The words of the table screen, made from a ``PlayerView``: no widgets, no engine calls.

The status line, the pile's note, the opponents' boxes, the selection line, the move log, the
reason a Yaniv is refused, the cost of a deliberate Assaf and the coach's report. Every card
named here goes through ``card_faces`` (``10♣``, ``★``), except in the move log and the
coach's advice, which keep the engine's notation.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ..cards import VALUE, Card
from ..events import Discarded, Slapped
from ..game import Phase
from ..moves import YANIV, Discard
from ..narration import Narrator, describe_turn
from ..rules import RuleSet
from ..view import PlayerView
from .card_faces import BACK, card_face, cards_line, ui_card_names

#: Keys that take a marked card of the previous discard, in order.
PILE_KEYS = "abcefgijkmnortuvwxz"


def pile_keys(count: int) -> str:
    """How the footer and the status name the keys of ``count`` takeable cards: ``a/b``."""
    if count <= 2:
        return "/".join(PILE_KEYS[:count])
    return f"{PILE_KEYS[0]}-{PILE_KEYS[count - 1]}"


# ----------------------------------------------------------------- the pile


def previous_discard(view: PlayerView) -> tuple[Card, ...]:
    """The group whose cards may be taken this turn (after a discard-first discard, the one
    under it)."""
    pile = view.pile
    if not pile:
        return ()
    if view.phase == Phase.DRAW and len(pile) > 1:
        return pile[-2]
    return pile[-1]


def takeable(view: PlayerView) -> list[Card]:
    """The cards the seat may take from the pile now, in the pile's order (none once the
    turn's one draw is made)."""
    if not view.my_turn or view.phase not in (Phase.START, Phase.DRAW):
        return []
    return [c for c in previous_discard(view) if c in view.pickable and c != view.drawn]


def pile_owner(view: PlayerView) -> int | None:
    """Who laid the previous discard (None for the turned-up card)."""
    in_group = set(previous_discard(view))
    for event in reversed(view.events):
        if isinstance(event, Discarded) and in_group & set(event.cards):
            return event.seat
        if isinstance(event, Slapped) and event.card in in_group:
            return event.seat
    return None


def pile_title(view: PlayerView, human: int) -> str:
    """The pile box's title: whose discard lies there."""
    owner = pile_owner(view)
    if not view.pile:
        return "Pile"
    if owner is None:
        return "Turned-up card"
    return "Your discard" if owner == human else f"{view.names[owner]}'s discard"


def pile_note(view: PlayerView, palette: str) -> Text:
    """Which marked cards may be taken, and a just-laid discard."""
    text = Text()
    cards = takeable(view)
    if cards:
        text.append(f"may take ({pile_keys(len(cards))}): ", style="dim")
        text.append_text(cards_line(cards, palette))
    group = previous_discard(view)
    if view.phase == Phase.DRAW and len(view.pile) > 1 and view.pile[-1] is not group:
        who = "you" if view.my_turn else view.names[view.to_move or 0]
        text.append(f"   just discarded by {who}: ", style="dim")
        text.append_text(cards_line(view.pile[-1], palette))
    return text


# ----------------------------------------------------------------- the opponents


def last_actions(view: PlayerView) -> dict[int, str]:
    """Each seat's last turn this round in a few words: ``discards 7♥ 8♥ 9♥ and takes 4♣ from
    the pile`` (the narration's words, with the screen's card faces)."""
    narrator = Narrator(view.names, None, view.rules.draw_first, card_face)
    narrator.read(view.events)
    return {
        line.seat: describe_turn("", line.moves, card=card_face).strip()
        for line in narrator.lines
        if line.seat >= 0
    }


def opponent_text(view: PlayerView, seat: int, palette: str, last_action: str) -> Text:
    """The two lines of an opponent's box: cards and score, then the last action."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if view.out[seat]:
        text.append("out of the game", style="dim")
        return text
    count = view.hand_sizes[seat]
    text.append(BACK * count, style="blue" if palette != "mono" else "")
    text.append(f" {count}")
    if view.known[seat]:
        text.append("  has ")
        text.append_text(cards_line(view.known[seat], palette))
    text.append("\n")
    if view.to_move == seat:
        text.append("thinking…", style="italic")
    else:
        text.append(last_action, style="dim")
    return text


# ----------------------------------------------------------------- the status line


def status_text(view: PlayerView, palette: str) -> Text:
    """Whose turn it is and what the player may do."""
    rules = view.rules
    head = Text(f"Round {view.round_no} · ", style="bold")
    preset = rules.preset_name() or "custom"
    if view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
        return head + Text("The round is over.")
    if not view.my_turn:
        who = view.names[view.to_move] if view.to_move is not None else "?"
        return (
            head
            + Text(f"{who} is playing…", style="italic")
            + Text(f"   ({preset} rules, Yaniv at {rules.yaniv_threshold} or less)", style="dim")
        )
    cards = takeable(view)
    short = "s stock" + (f", {pile_keys(len(cards))} pile" if cards else "")
    if view.phase == Phase.SLAP:
        drawn = card_face(view.drawn) if view.drawn is not None else "?"
        text = f"You drew {drawn}: it matches your discard. l: slap it down, p: keep it"
    elif view.phase == Phase.START and rules.draw_first:
        text = f"YOUR TURN: draw first ({short}), then discard"
    elif view.phase == Phase.START:
        text = f"YOUR TURN: select cards (1-9), then draw: {short}"
    elif view.phase == Phase.DRAW:
        text = f"YOUR TURN: now draw: {short}"
    else:
        text = "YOUR TURN: now select cards to discard and press Enter"
    mono = palette == "mono"
    if view.can_yaniv and view.hand_value > rules.yaniv_threshold:
        head += Text(f"y: Yaniv at {view.hand_value}, a deliberate Assaf", style="bold") + Text(
            " · or "
        )
    elif view.can_yaniv:
        head += Text(
            f"y: YANIV! ({view.hand_value})", style="bold" if mono else "bold yellow"
        ) + Text(" · or ")
    return head + Text(text, style="bold reverse" if mono else "bold green")


# ----------------------------------------------------------------- the hand


def selection_text(
    view: PlayerView,
    selected: Sequence[Card],
    message: str,
    palette: str,
    move: Discard | None,
    reason: str,
) -> Text:
    """The selection and whether it is a legal discard (``move``, or why not), or the last
    message."""
    if message:
        return Text(ui_card_names(message), style="bold red")
    if not selected:
        if view.my_turn and any(isinstance(m, Discard) for m in view.legal_moves):
            return Text("Select the cards to discard: their numbers, or a click.", style="dim")
        return Text("")
    text = Text("Selected: ") + cards_line(selected, palette)
    if move is not None:
        points = sum(VALUE[c] for c in move.cards)
        count = len(move.cards)
        text.append(
            f"  ✓ a legal discard ({count} card{'s' * (count > 1)}, {points} points)",
            style="green" if palette != "mono" else "bold",
        )
    else:
        text.append(f"  ✗ {ui_card_names(reason)}", style="red" if palette != "mono" else "bold")
    return text


def yaniv_refusal(view: PlayerView) -> str:
    """Why the seat may not call Yaniv now, in words."""
    rules = view.rules
    if view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
        return "The round is over."
    if not view.my_turn:
        who = view.names[view.to_move] if view.to_move is not None else "someone else"
        return f"No Yaniv now: it is {who}'s turn."
    if view.phase != Phase.START:
        return "Yaniv only at the start of your turn, before you discard or draw."
    if view.hand_value > rules.yaniv_threshold:
        return (
            f"No Yaniv: your hand is {view.hand_value}, over the Yaniv threshold "
            f"{rules.yaniv_threshold}."
        )
    return "No Yaniv now."


# ----------------------------------------------------------------- a deliberate Assaf


@dataclass(frozen=True)
class DeliberateCost:
    """What a deliberate Assaf (R15) does to the caller's score."""

    hand: int
    penalty: int
    before: int
    landed: int  # before + hand + penalty
    after: int  # once the bonus (R18) is applied
    out: bool  # over the score limit: out of the game, or the game ends

    @property
    def points(self) -> int:
        """The round's points: hand + penalty."""
        return self.hand + self.penalty

    @property
    def change(self) -> int:
        """How much the score rises, after the bonus."""
        return self.after - self.before


def bonus_off(score: int, rules: RuleSet) -> int:
    """Points the bonus (R18) takes off a score that changed this round and landed on
    ``score``."""
    if score == 0 or rules.bonus == "none":
        return 0
    if rules.bonus == "halve":
        return score - score // 2 if score in rules.bonus_targets else 0
    return rules.bonus_amount if score % rules.bonus_step == 0 else 0


def deliberate_cost(view: PlayerView) -> DeliberateCost:
    """The caller's score after a call above the threshold now (R15: hand + penalty, then
    R18's bonus)."""
    rules = view.rules
    before = view.scores[view.seat]
    landed = before + view.hand_value + rules.assaf_penalty
    after = landed - bonus_off(landed, rules)
    return DeliberateCost(
        view.hand_value, rules.assaf_penalty, before, landed, after, after > rules.score_limit
    )


def deliberate_question(view: PlayerView) -> str:
    """The question asked before a deliberate Assaf, with its cost."""
    rules = view.rules
    cost = deliberate_cost(view)
    text = (
        f"Call Yaniv with {cost.hand}? That is over the threshold "
        f"{rules.yaniv_threshold}: a deliberate Assaf.\n"
        f"You score {cost.hand} + {cost.penalty} = {cost.points}: "
        f"your score goes from {cost.before} to {cost.landed}"
    )
    if cost.after != cost.landed:
        text += (
            f", which the bonus halves to {cost.after}"
            if rules.bonus == "halve"
            else f", and the bonus takes {cost.landed - cost.after} off: {cost.after}"
        )
    text += f" ({cost.change:+d})."
    if cost.out:
        text += (
            f"\nOver {rules.score_limit}, you are out of the game."
            if rules.end_mode == "elimination"
            else f"\nOver {rules.score_limit}, the game ends."
        )
    return text


# ----------------------------------------------------------------- the move log


def log_text(lines: Sequence[Any], human: int) -> Text:
    """The move log (lines with ``seat`` and ``text``), the person's own lines in bold."""
    text = Text()
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        style = "bold" if line.seat == human else ("underline" if line.seat < 0 else "")
        text.append(line.text, style=style)
    return text


# ----------------------------------------------------------------- the coach


def load_coach() -> Any:
    """The coach module, or None while it is not installed."""
    try:
        return importlib.import_module("yaniv.bots.coach")
    except ImportError:
        return None


def coach_report(view: PlayerView, against: str | None = None) -> RenderableType:
    """The coach's report on a position: the chance a Yaniv call succeeds, and its advice
    (``against``: the opponents' level, where they are all bots of one)."""
    coach = load_coach()
    if coach is None:
        return Text("The coach is not installed yet.", style="dim")
    lines: list[RenderableType] = []
    try:
        deliberate = view.hand_value > view.rules.yaniv_threshold
        if view.phase == Phase.START:
            if view.can_yaniv and deliberate:
                lines.append(
                    Text(
                        f"A call now is a deliberate Assaf: your hand {view.hand_value} "
                        f"is over {view.rules.yaniv_threshold}.",
                        style="dim",
                    )
                )
            elif view.can_yaniv:
                p = float(coach.yaniv_success_probability(view, against))
                lines.append(
                    Text(f"A Yaniv call now succeeds with probability {p:.0%}.", style="bold")
                )
            else:
                lines.append(
                    Text(
                        f"Yaniv needs {view.rules.yaniv_threshold} or less; "
                        f"your hand is {view.hand_value}.",
                        style="dim",
                    )
                )
        advice_list = [
            a for a in coach.advise(view, against=against) if not (deliberate and a.move == YANIV)
        ]
        for i, advice in enumerate(advice_list[:3]):
            line = Text(f"{i + 1}. ", style="bold")
            line.append(str(advice.move), style="bold")
            line.append(f": {advice.reason}")
            lines.append(line)
    except Exception as exc:  # the coach must never take the game down
        lines.append(Text(f"The coach failed: {exc}", style="red"))
    if not lines:
        lines.append(Text("No advice.", style="dim"))
    return Group(*lines)
