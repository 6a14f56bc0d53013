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
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


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


def test_catalogues_have_the_same_keys() -> None:
    en, he = _catalogue("en"), _catalogue("he")
    assert set(en) == set(he), set(en) ^ set(he)
    for lang in LANGUAGES:
        for key, text in _catalogue(lang).items():
            assert isinstance(text, str) and text.strip(), (lang, key)


def test_placeholders_match_between_languages() -> None:
    en, he = _catalogue("en"), _catalogue("he")
    for key, text in en.items():
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", he[key])), key


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
        missing = sorted(used - set(cat))
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
