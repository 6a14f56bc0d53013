"""The story and the score sheet over rounds and a reload (issue 14): the sheet reads like the
paper one (each round's points as an equation over the running total, the totals), and after
a reload the story still tells the earlier rounds (fault 8); English and Hebrew, desktop and
phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import QUICK_ROUND, context_for, finish_quick_round, new_page, start_game
from browser.table_driver import log_lines, table

CALL = {
    "en": re.compile(r"^(Yaniv 0|Assaf \u2066\d+ \+ \d+\u2069|Deliberate .+)$"),
    "he": re.compile(r"^(יניב 0|אסף \u2066\d+ \+ \d+\u2069|מכוון .+)$"),
}
PLUS = re.compile(r"^(\u2066\+\d+\u2069|Assaf! \d+|אסף! \d+)$")
ROUND = {"en": "Round {n}: ", "he": "סיבוב {n}: "}


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("he", "phone")])
def test_the_sheet_and_the_story_over_a_reload(
    browser: Browser, server: Server, lang: str, size: str
) -> None:
    context = context_for(browser, lang, size)
    page = new_page(context)
    start_game(page, server.url, "Rina", opponents=2, options=QUICK_ROUND)
    finish_quick_round(page)

    # the round's end: a row of the sheet for round 1, one equation per player
    sheet = page.locator(".round-end table.sheet")
    row = sheet.locator('tbody tr[data-round="1"] td')
    expect(row).to_have_count(3)
    points = [str(x) for x in row.locator(".sheet-points").all_inner_texts()]
    totals = [str(x) for x in row.locator(".sheet-total").all_inner_texts()]
    callers = [p for p in points if CALL[lang].match(p)]
    assert len(callers) == 1, points  # the caller: "Yaniv 0", "Assaf 5 + 30"
    assert all(PLUS.match(p) for p in points if p not in callers), points
    foot = [str(x) for x in sheet.locator("tfoot td").all_inner_texts()]
    assert [re.sub(r"\D", "", x) for x in foot] == [re.sub(r"\D", "", x) for x in totals]
    # and the result table beside it says the same points
    said = [
        str(x) for x in page.locator(".round-end table.result td.result-points").all_inner_texts()
    ]
    assert sorted(said) == sorted(points), (said, points)

    page.locator('.round-end [data-key="next"]').click()
    expect(table(page)).to_have_attribute("data-round", "2")
    expect(page.locator(".log .story li").first).to_have_text(
        re.compile("^" + ROUND[lang].format(n=1))
    )

    # a reload: the story still has round 1 above round 2, the sheet its equations
    page.reload()
    expect(table(page)).to_have_attribute("data-round", "2")
    lines = log_lines(page)
    first = ROUND[lang].format(n=1)
    second = ROUND[lang].format(n=2)
    assert lines and lines[0].startswith(first), lines
    assert any(line.startswith(second) for line in lines), lines
    assert lines.index(next(x for x in lines if x.startswith(second))) > 1, lines
    side = page.locator(".side table.sheet")
    again = [
        str(x) for x in side.locator('tbody tr[data-round="1"] .sheet-points').all_inner_texts()
    ]
    assert again == points, (again, points)
    no_page_errors(page)
    context.close()
