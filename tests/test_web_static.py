"""The static front end (yaniv/web/): files, modules, catalogues and safe DOM use; no browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parent.parent / "yaniv" / "web"
JS = sorted(WEB.rglob("*.js"))
LANGUAGES = ("en", "he")


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith(("#", "http", "data:")):
                self.refs.append(value)


def _catalogue(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def _imports(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return re.findall(r"""^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']""", text, re.M)


def test_files_referenced_from_index_exist() -> None:
    parser = _Refs()
    parser.feed((WEB / "index.html").read_text(encoding="utf-8"))
    assert parser.refs, "index.html references no file"
    for ref in parser.refs:
        assert (WEB / ref.lstrip("/")).is_file(), ref


def test_module_imports_exist() -> None:
    assert JS
    for path in JS:
        for spec in _imports(path):
            assert spec.startswith("."), f"{path.name} imports a bare module {spec!r}"
            assert (path.parent / spec).resolve().is_file(), f"{path.name}: {spec}"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
@pytest.mark.parametrize("path", JS, ids=lambda p: p.name)
def test_module_parses(path: Path) -> None:
    # --check reads .js as a script: a copy named .mjs is checked as an ES module
    mjs = path.with_suffix(".check.mjs")
    try:
        mjs.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        run = subprocess.run(
            ["node", "--check", str(mjs)], capture_output=True, text=True, timeout=30
        )
    finally:
        mjs.unlink(missing_ok=True)
    assert run.returncode == 0, run.stderr


# The plural categories of each language (Intl.PluralRules, CLDR): a message that depends on
# a count is written "KEY#one", "KEY#two", ..., and always "KEY#other" (i18n.js's tn).
PLURALS = {"en": {"one", "other"}, "he": {"one", "two", "other"}}


def _base(key: str) -> str:
    return key.split("#", 1)[0]


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_catalogues_have_the_same_keys() -> None:
    en, he = _catalogue("en"), _catalogue("he")
    assert {_base(k) for k in en} == {_base(k) for k in he}, {_base(k) for k in en} ^ {
        _base(k) for k in he
    }
    for lang in LANGUAGES:
        cat = _catalogue(lang)
        for key, text in cat.items():
            assert isinstance(text, str) and text.strip(), (lang, key)
            if "#" in key:
                category = key.split("#", 1)[1]
                assert category in PLURALS[lang], (lang, key)
                assert f"{_base(key)}#other" in cat, (lang, key)


def test_placeholders_match_between_languages() -> None:
    en, he = _catalogue("en"), _catalogue("he")
    for key, text in en.items():
        if "#" in key:  # a plural form may spell its count out ("one card", "קלף אחד")
            forms = [v for k, v in he.items() if _base(k) == _base(key)]
            want = _placeholders(text) - {"count"}
            assert all(_placeholders(f) - {"count"} == want for f in forms), key
            continue
        assert _placeholders(text) == _placeholders(he[key]), key


def test_plural_forms_say_the_count() -> None:
    # "1 cards" is wrong: the one-form of each plural message says one, the other-form the count
    for lang in LANGUAGES:
        cat = _catalogue(lang)
        for key, text in cat.items():
            if key.endswith("#other"):
                assert "{count}" in text, (lang, key)
    en = _catalogue("en")
    assert en["seat.cards#one"] == "1 card"
    assert "1 point," in en["coach.r.sheds_keeps#one"]


def test_every_key_used_exists() -> None:
    cats = [_catalogue(lang) for lang in LANGUAGES]
    prefixes = {key.split(".")[0] for key in cats[0]}
    used: set[str] = set()
    for path in JS:
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"""\bt\(\s*["']([^"']+)["']""", text))
        # keys chosen at run time are written out as literals ("rank.T", "table.pile_card")
        used |= {
            m
            for m in re.findall(r"""["']([a-z]+\.[A-Za-z0-9_]+)["']""", text)
            if m.split(".")[0] in prefixes
        }
    # t(`net.${status}`): the socket's statuses
    used |= {f"net.{s}" for s in ("connecting", "open", "reconnecting", "no_room", "forbidden")}
    assert any(key.startswith("turn.") for key in used)
    for cat, lang in zip(cats, LANGUAGES, strict=True):
        missing = sorted(k for k in used - set(cat) if f"{k}#other" not in cat)
        assert not missing, f"{lang}.json lacks {missing}"


def test_card_names_are_complete() -> None:
    for lang in LANGUAGES:
        cat = _catalogue(lang)
        for rank in "A23456789TJQK":
            assert f"rank.{rank}" in cat
        for suit in "CDHS":
            assert f"suit.{suit}" in cat
        assert "{rank}" in cat["card.name"] and "{suit}" in cat["card.name"]


UNSAFE = re.compile(
    r"\.(innerHTML|outerHTML)\s*[+]?=\s*(.*)|insertAdjacentHTML\s*\(|"
    r"document\.write(ln)?\s*\(|\beval\s*\(|new\s+Function\s*\("
)


def test_no_markup_from_data() -> None:
    for path in JS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = UNSAFE.search(line)
            if match is None:
                continue
            value = (match.group(2) or "").strip().rstrip(";")
            literal = re.fullmatch(r"""(["'])[^"'`${}]*\1""", value) is not None
            assert match.group(1) and literal, f"{path.name}:{number}: {line.strip()}"


def test_html_sets_language_and_viewport() -> None:
    html = (WEB / "index.html").read_text(encoding="utf-8")
    assert '<meta name="viewport"' in html
    assert 'type="module"' in html
    assert "aria-live" in html


def test_css_mirrors_with_logical_properties() -> None:
    css = "\n".join(p.read_text(encoding="utf-8") for p in WEB.rglob("*.css"))
    physical = re.findall(
        r"(?<![\w-])(margin|padding|border)-(left|right)\b|"
        r"(?<![\w-])(left|right)\s*:|text-align:\s*(left|right)",
        css,
    )
    assert not physical, physical
    assert "prefers-reduced-motion" in css


# ------------------------------------------------------------------ the move log (js/narrate.js)

_NARRATE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { narrate } from "./narrate.mjs";
const [catalogueDir, casesFile] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesFile, "utf8"));
const out = {};
for (const lang of ["en", "he"]) {
  const messages = JSON.parse(readFileSync(`${catalogueDir}/${lang}.json`, "utf8"));
  const t = (key, params) => {
    if (!(key in messages)) throw new Error(`${lang}.json lacks ${key}`);
    return messages[key].replace(/\{(\w+)\}/g, (whole, name) =>
      params && name in params ? String(params[name]) : whole);
  };
  out[lang] = cases.map((view) => narrate(view, t, (card) => `[${card}]`));
}
console.log(JSON.stringify(out));
"""

_BOB = "\u2068Bob\u2069"
_EVIL = "<img src=x onerror=alert(1)>"


def _view(
    events: list[dict[str, object]], seat: int | None = 0, draw_first: bool = False
) -> dict[str, object]:
    return {
        "seat": seat,
        "names": ["Ann", "Bob", _EVIL],
        "rules": {"draw_first": draw_first},
        "events": events,
    }


def _result(kind: str, caller: int, **extra: object) -> dict[str, object]:
    result: dict[str, object] = {
        "kind": kind,
        "caller": caller,
        "hand_values": [3, 9, 12],
        "assafers": [],
        "game_winners": [],
    }
    result.update(extra)
    return result


_DEAL = {"type": "deal", "round": 2, "starter": 1, "up": "5C"}
_CASES = [
    # a discard-first round: Bob, then the reader (a pile card), Bob again (open), the call
    _view(
        [
            _DEAL,
            {"type": "discard", "seat": 1, "cards": ["KS", "QS"]},
            {"type": "draw", "seat": 1, "source": "stock", "card": None},
            {"type": "discard", "seat": 0, "cards": ["7H"]},
            {"type": "draw", "seat": 0, "source": "pile", "card": "QS"},
            {"type": "discard", "seat": 1, "cards": ["9D"]},
        ]
    ),
    # the reader's stock card named, a slap, a refill, a Yaniv that ends the game
    _view(
        [
            {"type": "deal", "round": 1, "starter": 0, "up": "2H"},
            {"type": "discard", "seat": 0, "cards": ["4H"]},
            {"type": "draw", "seat": 0, "source": "stock", "card": "4C"},
            {"type": "slap", "seat": 0, "card": "4C"},
            {"type": "refill", "count": 31},
            {"type": "showdown", "result": _result("yaniv", 0, game_winners=[0])},
        ]
    ),
    # draw first, a spectator: the turn ends with its discard; an Assaf by two
    _view(
        [
            _DEAL,
            {"type": "draw", "seat": 1, "source": "pile", "card": "5C"},
            {"type": "discard", "seat": 1, "cards": ["8S", "9S", "TS"]},
            {"type": "showdown", "result": _result("assaf", 2, assafers=[0, 1])},
        ],
        seat=None,
        draw_first=True,
    ),
    # a slap that empties the hand ends the round as that player's Yaniv (slap_empty_hand)
    _view(
        [
            _DEAL,
            {"type": "discard", "seat": 1, "cards": ["4C"]},
            {"type": "draw", "seat": 1, "source": "stock", "card": None},
            {"type": "slap", "seat": 1, "card": "4D"},
            {"type": "showdown", "result": _result("yaniv", 1, hand_values=[3, 0, 12])},
        ]
    ),
]
_EXPECTED_EN = [
    [
        f"Round 2: {_BOB} starts, [5C] turned up.",
        f"{_BOB} discarded [KS] [QS] and drew from the stock.",
        "You discarded [7H] and took [QS] from the pile.",
        f"{_BOB} discarded [9D]",
    ],
    [
        "Round 1: you start, [2H] turned up.",
        "You discarded [4H] and drew [4C] from the stock, then slapped down [4C].",
        "The stock is empty: 31 cards of the pile are shuffled into a new stock.",
        "You called Yaniv!",
        "Yaniv! You win the round with 3. Game over: \u2068Ann\u2069 won.",
    ],
    [
        f"Round 2: {_BOB} starts, [5C] turned up.",
        f"{_BOB} took [5C] from the pile and discarded [8S] [9S] [TS].",
        f"\u2068{_EVIL}\u2069 called Yaniv!",
        f"Assaf! \u2068Ann\u2069, {_BOB} caught \u2068{_EVIL}\u2069's Yaniv.",
    ],
    [
        f"Round 2: {_BOB} starts, [5C] turned up.",
        f"{_BOB} discarded [4C] and drew from the stock, then slapped down [4D].",
        f"{_BOB} has no card left: a Yaniv with 0.",
        f"Yaniv! {_BOB} wins the round with 0.",
    ],
]


@pytest.fixture(scope="module")
def narrated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[str]]]:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    folder = tmp_path_factory.mktemp("narrate")
    # a copy named .mjs is an ES module to Node, whatever the package's settings
    (folder / "narrate.mjs").write_text(
        (WEB / "js" / "narrate.js").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (folder / "run.mjs").write_text(_NARRATE_SCRIPT, encoding="utf-8")
    (folder / "cases.json").write_text(json.dumps(_CASES), encoding="utf-8")
    run = subprocess.run(
        ["node", str(folder / "run.mjs"), str(WEB / "i18n"), str(folder / "cases.json")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, list[list[str]]] = json.loads(run.stdout)
    return result


def test_narrate_tells_each_turn_in_english(narrated: dict[str, list[list[str]]]) -> None:
    assert narrated["en"] == _EXPECTED_EN


def test_narrate_tells_the_same_in_hebrew(narrated: dict[str, list[list[str]]]) -> None:
    he = narrated["he"]
    assert [len(lines) for lines in he] == [len(lines) for lines in _EXPECTED_EN]
    assert he[0][1] == f"{_BOB}: זריקת [KS] [QS] ומשיכה מהקופה."
    assert he[0][2] == "בתורך: זריקת [7H] ולקיחת [QS] מהערימה."
    assert he[1][1] == "בתורך: זריקת [4H] ומשיכת [4C] מהקופה, ואז הטחת [4C]."
    for lines in he:
        for line in lines:
            assert re.search("[\u0590-\u05ff]", line), line  # every line has Hebrew words
            assert not re.search(r"\b(discarded|drew|took|called|Round)\b", line), line


def test_narrate_keeps_names_as_given(narrated: dict[str, list[list[str]]]) -> None:
    # a name is user text: it comes through verbatim (the page shows the line as text)
    for lang in LANGUAGES:
        assert any(_EVIL in line for line in narrated[lang][2]), narrated[lang][2]


def test_narrate_keys_exist_in_both_catalogues() -> None:
    text = (WEB / "js" / "narrate.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"""["'](log\.[a-z_]+|list\.[a-z_]+)["']""", text))
    assert len(keys) >= 20, keys
    for lang in LANGUAGES:
        cat = _catalogue(lang)
        missing = sorted(k for k in keys - set(cat) if f"{k}#other" not in cat)
        assert not missing, f"{lang}.json lacks {missing}"


# ------------------------------------------------------------------ the coach's words, the sheet

_WORDS_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { coachReason } from "./coach.mjs";
import { roundPoints, roundScore } from "./sheet.mjs";
const [catalogueDir, casesFile] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesFile, "utf8"));
const out = {};
for (const lang of ["en", "he"]) {
  const messages = JSON.parse(readFileSync(`${catalogueDir}/${lang}.json`, "utf8"));
  const t = (key, params) => {
    if (!(key in messages)) throw new Error(`${lang}.json lacks ${key}`);
    return messages[key].replace(/\{(\w+)\}/g, (whole, name) =>
      params && name in params ? String(params[name]) : whole);
  };
  const rules = new Intl.PluralRules(lang);
  const num = (x, o) => new Intl.NumberFormat(lang, o).format(x);
  const tn = (key, count, params) => {
    const k = `${key}#${rules.select(count)}`;
    return t(k in messages ? k : `${key}#other`, { count: num(count), ...(params || {}) });
  };
  const x = { t, tn, num, card: (c) => `[${c}]`, percent: (p) => num(p, { style: "percent" }) };
  out[lang] = {
    coach: cases.reasons.map((r) => coachReason(r, x)),
    points: cases.results.map(([r, seat]) => roundPoints(r, seat, 30, t, num)),
    scores: cases.results.map(([r, seat]) => roundScore(r, seat, t, num)),
  };
}
console.log(JSON.stringify(out));
"""

# the coach's reasons as yaniv/bots/coach.py words them
_REASONS = [
    "sheds 1 points, keeps 2C 5D (7); then take 7D",
    "sheds 10 points, keeps 5C 9D TH BJ (24); then draw from the stock",
    "sheds 2 points",
    "24% chance that nobody is at or under 5; risky",
    "slapping sheds 4 points at once",
    "keeps the card",
    "7D leaves 12 in hand",
    "an unknown card, on average worth 5.4",
    "the stock: nothing on the pile helps",
    "QS is low or combines with the hand",
    "a deliberate Assaf (R15): it costs you 38 points after any bonus",
    "slapping empties your hand: a Yaniv with 0 at once",  # slap_empty_hand (R22)
    "slapping empties your hand: next turn, a Yaniv with 0",
    "something the page does not know",
]


def _round(kind: str, caller: int, **extra: object) -> dict[str, object]:
    result: dict[str, object] = {
        "kind": kind,
        "caller": caller,
        "hand_values": [5, 9, 3],
        "points": [0, 9, 3],
        "bonuses": [0, 0, 0],
        "scores": [20, 47, 60],
        "assafers": [],
        "newly_out": [],
    }
    result.update(extra)
    return result


_RESULTS = [
    [_round("yaniv", 0), 0],  # the caller who won
    [_round("yaniv", 0), 1],  # another seat
    [_round("assaf", 0, points=[35, 9, 0], assafers=[2]), 0],  # the caller caught: 5 + 30
    [_round("assaf", 0, points=[35, 9, 0], assafers=[2]), 2],  # who caught them
    [_round("yaniv", 0, bonuses=[0, 50, 0], scores=[20, 50, 60]), 1],  # 100 -> 50
    [_round("yaniv", 0, scores=[20, 47, 205], newly_out=[2]), 2],  # out
]


@pytest.fixture(scope="module")
def worded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[object]]]:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    folder = tmp_path_factory.mktemp("words")
    for name in ("coach", "sheet"):
        (folder / f"{name}.mjs").write_text(
            (WEB / "js" / f"{name}.js").read_text(encoding="utf-8"), encoding="utf-8"
        )
    (folder / "run.mjs").write_text(_WORDS_SCRIPT, encoding="utf-8")
    (folder / "cases.json").write_text(
        json.dumps({"reasons": _REASONS, "results": _RESULTS}), encoding="utf-8"
    )
    run = subprocess.run(
        ["node", str(folder / "run.mjs"), str(WEB / "i18n"), str(folder / "cases.json")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, dict[str, list[object]]] = json.loads(run.stdout)
    return result


def test_coach_words_in_english(worded: dict[str, dict[str, list[object]]]) -> None:
    texts = [r["text"] for r in worded["en"]["coach"]]  # type: ignore[index]
    assert texts[0] == "sheds 1 point, keeps [2C] [5D] (7); then take [7D]"
    assert texts[1] == "sheds 10 points, keeps [5C] [9D] [TH] [BJ] (24); then draw from the stock"
    assert texts[2] == "sheds 2 points"
    assert texts[3] == "24% chance that nobody is at or under 5; risky"
    assert texts[6] == "[7D] leaves 12 in hand"
    assert texts[10] == "a deliberate Assaf: it costs you 38 points after any bonus"
    assert texts[11:13] == [_REASONS[11], _REASONS[12]]
    translated = [r["translated"] for r in worded["en"]["coach"]]  # type: ignore[index]
    assert translated == [True] * (len(_REASONS) - 1) + [False]
    assert texts[-1] == _REASONS[-1]  # an unknown form is shown as sent


def test_coach_words_in_hebrew(worded: dict[str, dict[str, list[object]]]) -> None:
    texts = [str(r["text"]) for r in worded["he"]["coach"]]  # type: ignore[index]
    assert texts[0] == "מוריד נקודה אחת, נשארים [2C] [5D] (7); ואז לקיחת [7D]"
    assert texts[2] == "מוריד שתי נקודות"
    assert texts[4] == "הטחה מורידה מיד 4 נקודות"
    assert texts[11] == "ההטחה מרוקנת את היד: יניב עם 0 מיד"
    for text in texts[:-1]:
        assert re.search("[\u0590-\u05ff]", text), text
        assert not re.search(r"\b(sheds|keeps|points|chance|stock|hand)\b", text), text


def test_score_sheet_words(worded: dict[str, dict[str, list[object]]]) -> None:
    en, he = worded["en"], worded["he"]
    lri, pdi = "\u2066", "\u2069"
    nine, three = f"{lri}+9{pdi}", f"{lri}+3{pdi}"  # "+9" reads so in Hebrew too
    assert en["points"] == ["Yaniv 0", nine, f"Assaf {lri}5 + 30{pdi}", "Assaf! 0", nine, three]
    assert en["scores"][0] == "20" and en["scores"][5] == "205 out"
    assert en["scores"][4] == f"{lri}100 → 50{pdi}"
    assert he["points"][:3] == ["יניב 0", nine, f"אסף {lri}5 + 30{pdi}"]
    assert he["scores"][4] == f"{lri}100 → 50{pdi}" and he["scores"][5] == "205 בחוץ"
