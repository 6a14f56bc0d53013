"""Every word of the page from the catalogues (issue 14, fault 6): in Hebrew, no English word
on the home page, at the table with the coach on, or at the round's end, whether shown or
said to a screen reader; the bot levels, the presets, the seats' labels and the coach's
reasons in Hebrew. On a desktop and a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from browser.browser_support import Server, no_page_errors
from browser.screens import QUICK_ROUND, context_for, new_page, start_game
from browser.table_driver import click_turn, reach_turn, room_code, wait_turn_or_end

HEBREW = re.compile("[\u0590-\u05ff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# words that are not English but names: of keys, and of the languages in the language menu
ALLOWED = {"English", "Enter", "Home", "End"}

WORDS = """() => {
  const shown = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    // (a <code> is a command-line name: an identifier, the same in every language)
    if (!el || el.closest('[aria-hidden="true"], script, style, noscript, select, code')) continue;
    if (!el.closest('.visually-hidden') && !el.checkVisibility({ visibilityProperty: true })) {
      continue;
    }
    const text = n.textContent.trim();
    if (text) shown.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title]')) {
    if (el.closest('[aria-hidden="true"]')) continue;
    for (const a of ['aria-label', 'title']) if (el.getAttribute(a)) shown.push(el.getAttribute(a));
  }
  for (const label of document.querySelectorAll('label')) {  // a label's name, but its code
    const copy = label.cloneNode(true);
    copy.querySelectorAll('code').forEach((c) => c.remove());
    if (label.checkVisibility()) shown.push(copy.textContent);
  }
  for (const select of document.querySelectorAll('select')) {
    if (!select.checkVisibility({ visibilityProperty: true })) continue;
    for (const option of select.options) shown.push(option.textContent);
  }
  return shown;
}"""


def english_words(page: Page, names: list[str]) -> list[str]:
    """The words of two or more Latin letters the page shows or says, other than names."""
    found = []
    for text in page.evaluate(WORDS):
        for name in sorted(names, key=len, reverse=True):
            text = text.replace(name, "")
        found += [w for w in LATIN_WORD.findall(text) if w not in ALLOWED]
    return found


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_word_is_hebrew(browser: Browser, server: Server, size: str) -> None:
    context = context_for(browser, "he", size, coach=True)
    page = new_page(context)
    page.goto(server.url)
    expect(page.locator("html")).to_have_attribute("lang", "he")
    # the levels and the rule sets by their Hebrew names
    hebrew_levels = ["אקראי", "קל", "בינוני", "מומחה", "אמן", "מאומן"]
    options = page.locator("#level-0 option")
    expect(options).to_have_count(len(hebrew_levels))  # filled from the server's list
    levels = options.all_inner_texts()
    assert levels == hebrew_levels, levels
    presets = page.locator("#preset option").all_inner_texts()
    assert len(presets) == 5 and all(HEBREW.search(p) for p in presets), presets
    assert english_words(page, ["Yaniv"]) == [], "the home page"
    page.locator("fieldset.rules summary").click()  # the rule options, open
    expect(page.locator("#opt-end_mode")).to_be_visible()
    choices = page.locator("#opt-end_mode option").all_inner_texts()
    assert choices == ["השחקן יוצא מהמשחק", "המשחק נגמר"], choices
    assert english_words(page, ["Yaniv"]) == [], "the rule options"

    start_game(page, server.url, "Shira", opponents=2)
    reach_turn(page)
    expect(page.locator(".coach .advice li").first).to_be_visible()
    names = [*page.locator(".seat-name").all_inner_texts(), room_code(page)]
    # a computer's seat says so in Hebrew, its level too ("מחשב (medium)" before)
    expect(page.locator(".seat .seat-status").first).to_contain_text("מחשב (בינוני)")
    # the coach's reasons, in Hebrew with the cards as faces (they came as "keeps 2C 5D")
    reason = page.locator(".coach .advice .reason").first
    expect(reason).to_have_text(HEBREW)
    expect(reason).not_to_have_attribute("lang", "en")
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b", reason.inner_text())
    assert english_words(page, names) == [], "the table"

    # the round's end (a round that ends at the first call)
    page.goto(server.url)
    start_game(page, server.url, "Shira", opponents=1, options=QUICK_ROUND)
    first = names
    names = [*page.locator(".seat-name").all_inner_texts(), room_code(page)]
    stats: dict[str, int] = {}
    for turn in range(20):
        if wait_turn_or_end(page) == "end":
            break
        if page.locator('[data-key="yaniv"]').count():
            page.locator('[data-key="yaniv"]').click()
            page.wait_for_function("() => document.querySelector('.round-end')")
            break
        click_turn(page, turn, stats)
    expect(page.locator(".round-end")).to_be_visible()
    assert english_words(page, names) == [], "the round's end"

    # the history page: the games (in play) with their rule sets by their Hebrew names
    page.goto(f"{server.url}#/history")
    expect(page.locator("table.history tbody tr")).to_have_count(2)
    codes = page.locator("table.history .code-cell").all_inner_texts()
    assert english_words(page, [*first, *names, *codes]) == [], "the history page"
    no_page_errors(page)
    context.close()
