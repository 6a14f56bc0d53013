"""Playing the web table the way a person does: by clicking (or by keys), read from the page.

The table page carries its state in data attributes (``data-phase``, ``data-my-turn``,
``data-busy``, ``data-events``...) and every card control its card (``data-card``), so the
tests wait for conditions instead of sleeping.
"""

from __future__ import annotations

import json
import re
import time
from typing import Literal

from playwright.sync_api import Locator, Page, expect

from yaniv.cards import hand_value, parse_card
from yaniv.rules import RuleSet

STANDARD = RuleSet.preset("standard")
ROOM_URL = re.compile(r"#/room/[A-Z0-9]{6}$")
TURN_OR_END = """() => {
  const p = document.querySelector(".table-page[data-my-turn]");
  if (!p) return null;
  if (p.dataset.phase === "round_over" || p.dataset.phase === "game_over") return "end";
  if (p.dataset.myTurn === "true" && p.dataset.busy === "false") return "turn";
  return null;
}"""


def card_value(code: str) -> int:
    """The points of a card in notation (R2)."""
    return hand_value([parse_card(code)])


def table(page: Page) -> Locator:
    """The table page (present once a view arrived)."""
    return page.locator(".table-page[data-my-turn]")


def hand_cards(page: Page) -> list[str]:
    """The cards of the player's hand, in the page's order."""
    return [
        str(code)
        for code in page.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
    ]


def hand_card(page: Page, code: str) -> Locator:
    return page.locator(f'.hand .card[data-card="{code}"]')


def start_vs_computer(
    page: Page, url: str, name: str, opponents: int = 1, preset: str | None = None
) -> None:
    """From the home page: a game against ``opponents`` bots, until the table shows."""
    page.goto(url)
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Opponents").select_option(str(opponents))
    if preset is not None:
        page.get_by_label("Preset").select_option(preset)
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page).to_have_url(ROOM_URL)
    expect(table(page)).to_be_visible()


def room_code(page: Page) -> str:
    """The room code from the page's address."""
    return page.url.rsplit("/", 1)[-1]


def wait_turn_or_end(page: Page, timeout: float = 20_000) -> Literal["turn", "end"]:
    """Wait until it is this player's turn (and no move is in flight) or the round is over."""
    handle = page.wait_for_function(TURN_OR_END, timeout=timeout)
    value = handle.json_value()
    assert value in ("turn", "end")
    return "turn" if value == "turn" else "end"


def phase(page: Page) -> str:
    return str(table(page).get_attribute("data-phase"))


def events(page: Page) -> int:
    return int(table(page).get_attribute("data-events") or 0)


def highest_card(page: Page) -> str:
    """The card of the hand worth the most points (the first of them in the page)."""
    cards = hand_cards(page)
    assert cards, "an empty hand on the player's turn"
    return max(cards, key=card_value)


def best_discard(cards: list[str]) -> list[str]:
    """What to discard: the set of one rank (jokers aside) worth the most, else the highest
    card (a simple player's choice, always legal: R8)."""
    assert cards, "an empty hand on the player's turn"
    groups: dict[str, list[str]] = {}
    for code in cards:
        if code not in ("RJ", "BJ"):
            groups.setdefault(code[:-1], []).append(code)
    sets = [group for group in groups.values() if len(group) > 1]
    best_set = max(sets, key=lambda group: sum(map(card_value, group)), default=[])
    highest = max(cards, key=card_value)
    if sum(map(card_value, best_set)) > card_value(highest):
        return best_set
    return [highest]


def select_cards(page: Page, codes: list[str]) -> None:
    """Click each card (it shows as pressed)."""
    for code in codes:
        card = hand_card(page, code)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")


def can_call_yaniv(page: Page, limit: int = STANDARD.yaniv_threshold) -> bool:
    """The Yaniv button is offered and the hand is within the limit (no deliberate Assaf)."""
    button = page.locator('[data-key="yaniv"]')
    return button.count() == 1 and sum(map(card_value, hand_cards(page))) <= limit


def cheap_pile_card(page: Page, than: int) -> Locator | None:
    """A takeable card of the previous discard worth less than ``than`` points, if any."""
    cards = page.locator('.pile .card[data-takeable="true"]:enabled')
    for i in range(cards.count()):
        card = cards.nth(i)
        code = card.get_attribute("data-card")
        if code and card_value(code) < than:
            return card
    return None


def after_move(page: Page, before: int) -> None:
    """Wait until the page shows at least one event more than ``before``."""
    page.wait_for_function(
        "n => { const p = document.querySelector('.table-page[data-events]');"
        " return p && Number(p.dataset.events) > n; }",
        arg=before,
    )


def _count(stats: dict[str, int], what: str) -> None:
    stats[what] = stats.get(what, 0) + 1


def click_turn(page: Page, turn: int, stats: dict[str, int]) -> None:
    """One turn by clicking: Yaniv when within the limit, else the highest card discarded and
    a cheap pile card taken (or the stock drawn). Odd turns use the Discard button, then the
    draw; even turns select and tap the draw (the discard goes first by itself). Under
    draw-first the draw comes first; a slap is taken when offered."""
    now = phase(page)
    before = events(page)
    draw_first = table(page).get_attribute("data-draw-first") == "true"
    if now == "slap":
        slap = page.locator('[data-key="slap"]')
        if slap.count():
            slap.click()
            _count(stats, "slap")
        else:
            page.locator('[data-key="pass"]').click()
            _count(stats, "pass")
    elif now == "start" and can_call_yaniv(page):
        page.locator('[data-key="yaniv"]').click()
        stats["yaniv"] = stats.get("yaniv", 0) + 1
    elif now == "discard" or (now == "start" and draw_first):
        if now == "start":  # draw-first: the draw, then the discard on the next call
            pile = cheap_pile_card(page, 4)
            target = pile if pile is not None else page.locator('[data-key="stock"]')
            expect(target).to_be_enabled()
            target.click()
            _count(stats, "take" if pile is not None else "stock")
            after_move(page, before)
            return
        select_cards(page, best_discard(hand_cards(page)))
        page.locator('[data-key="discard"]').click()
        _count(stats, "discard_button")
    elif now == "start":
        chosen = best_discard(hand_cards(page))
        select_cards(page, chosen)
        if turn % 2:
            discard = page.locator('[data-key="discard"]')
            expect(discard).to_be_enabled()
            discard.click()
            stats["discard_button"] = stats.get("discard_button", 0) + 1
            after_move(page, before)
            return  # the draw is the next call's (phase "draw")
        pile = cheap_pile_card(page, card_value(chosen[0]))
        target = pile if pile is not None else page.locator('[data-key="stock"]')
        expect(target).to_be_enabled()
        target.click()
        stats["take" if pile is not None else "stock"] = (
            stats.get("take" if pile is not None else "stock", 0) + 1
        )
    elif now == "draw":
        pile = cheap_pile_card(page, 4)
        target = pile if pile is not None else page.locator('[data-key="stock"]')
        expect(target).to_be_enabled()
        target.click()
        stats["take" if pile is not None else "stock"] = (
            stats.get("take" if pile is not None else "stock", 0) + 1
        )
    else:
        raise AssertionError(f"an unexpected phase on the player's turn: {now}")
    after_move(page, before)


def round_no(page: Page) -> int:
    return int(table(page).get_attribute("data-round") or 0)


def next_round(page: Page) -> None:
    """From the round-end screen, deal the next round (by clicking)."""
    before = round_no(page)
    page.locator('.round-end [data-key="next"]').click()
    expect(table(page)).to_have_attribute("data-round", str(before + 1))


def next_round_all(pages: list[Page]) -> None:
    """From the round-end screen of every person in a room, each says Ready (a round is
    dealt once every person is), and the next round shows on every page."""
    before = round_no(pages[0])
    for page in pages:
        button = page.locator('.round-end [data-key="next"]')
        if button.count() and button.is_enabled():
            button.click()
    for page in pages:
        expect(table(page)).to_have_attribute("data-round", str(before + 1))


def reach_turn(page: Page, limit: int = 5) -> None:
    """Wait for this seat's turn; a round that ends first (a bot's early Yaniv) is followed by
    the next."""
    for _ in range(limit):
        if wait_turn_or_end(page) == "turn":
            return
        next_round(page)
    raise AssertionError(f"no turn came in {limit} rounds")


def play_turns(page: Page, count: int) -> None:
    """Play ``count`` whole turns by clicking and stop on the next turn."""
    stats: dict[str, int] = {}
    for _ in range(count):
        reach_turn(page)
        click_turn(page, 0, stats)  # an even turn: a whole turn (or a Yaniv)
    reach_turn(page)


def play_round_by_clicking(page: Page, max_turns: int = 80) -> dict[str, int]:
    """Play this seat's turns by clicking until the round is over; what was done, counted.
    A round that ends before this seat moves (a bot's early Yaniv) is followed by the next,
    so that the player makes at least one move."""
    for _ in range(5):
        stats: dict[str, int] = {}
        for turn in range(max_turns):
            if wait_turn_or_end(page) == "end":
                break
            click_turn(page, turn, stats)
        else:
            raise AssertionError(f"the round did not end in {max_turns} turns: {stats}")
        if stats:
            return stats
        next_round(page)
    raise AssertionError("the player never had a turn in 5 rounds")


def turn_or_end_now(page: Page) -> str | None:
    """ "turn", "end" or None, as the page shows it now (no waiting)."""
    value = page.evaluate(TURN_OR_END)
    return value if value in ("turn", "end") else None


def log_lines(page: Page) -> list[str]:
    """The move log's lines as read (names come wrapped in Unicode isolates, dropped here)."""
    lines = page.locator(".log .story li").all_inner_texts()
    return [str(x).replace("\u2068", "").replace("\u2069", "") for x in lines]


def set_rule_options(page: Page, options: dict[str, str]) -> None:
    """On the home page: open the rules' Options and set each (a select gets the choice, a
    field the number), by the option's name (its command-line name, shown by its label)."""
    rules = page.locator("fieldset.rules")
    rules.locator("summary").click()
    for name, value in options.items():
        control = rules.get_by_label(re.compile(rf"\b{name}$"))
        expect(control).to_have_id(f"opt-{name}")
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(json.dumps(value))
            expect(control).to_have_value(json.dumps(value))
        else:
            control.fill(value)
            expect(control).to_have_value(value)


def play_to_game_over(pages: list[Page], limit: int, seconds: float = 45) -> dict[str, int]:
    """Play every page's turns by clicking until the game is over (the next round dealt from
    the first page if a round ends short of it): Yaniv as soon as the hand is within
    ``limit``, else ``click_turn``'s move. What was done, counted."""
    stats: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = [turn_or_end_now(page) for page in pages]
        if all(state == "end" for state in now):
            if all(phase(page) == "game_over" for page in pages):
                return stats
            if phase(pages[0]) == "round_over":
                next_round_all(pages)
                continue
        moved = False
        for page, state in zip(pages, now, strict=True):
            if state != "turn":
                continue
            moved = True
            if phase(page) == "start" and can_call_yaniv(page, limit):
                before = events(page)
                page.locator('[data-key="yaniv"]').click()
                _count(stats, "yaniv")
                after_move(page, before)
            else:
                click_turn(page, 0, stats)
        if not moved:
            pages[0].wait_for_timeout(50)  # polling the pages in turn; not an assertion
    raise AssertionError(f"the game did not end in {seconds} s: {stats}")
