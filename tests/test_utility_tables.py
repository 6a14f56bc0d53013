"""Another utility table file in use (``utility.using``): read in place of the shipped one in
this context only, with caches of its own, and refused in words where it is not a table."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from yaniv import Game, RuleSet
from yaniv.bots import coach
from yaniv.bots import utility as U
from yaniv.cards import parse_card, parse_cards

STANDARD = RuleSet.preset("standard")
SCORES = [40, 75]


def _shipped() -> dict[str, Any]:
    data = U._file(None)
    assert data["version"] == U.VERSION and data["entries"]
    return copy.deepcopy(data)


def _harsh(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every standard two-player round worth 0 or 40 points, half and half."""
    key = U.round_key(STANDARD)
    entry = next(e for e in data["entries"] if e["key"] == key and e["players"] == 2)
    entry["points"] = {"0": 500, "40": 500}
    return data


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_a_copy_of_the_shipped_table_prices_every_position_alike(tmp_path: Path) -> None:
    table = _write(tmp_path / "copy.json", _shipped())
    shipped = U.win_chances(STANDARD, SCORES)
    with U.using(table):
        assert U.table_source() == str(table.resolve())
        assert U.win_chances(STANDARD, SCORES) == shipped
    assert U.table_source() is None


def test_a_table_in_use_prices_by_its_own_rounds_and_leaves_the_shipped_alone(
    tmp_path: Path,
) -> None:
    table = _write(tmp_path / "harsh.json", _harsh(_shipped()))
    shipped = U.win_chances(STANDARD, SCORES)
    elsewhere: list[tuple[float, ...]] = []
    with U.using(table):
        assert U.round_points(STANDARD, 2) == ((0, 0.5), (40, 0.5))
        harsh = U.win_chances(STANDARD, SCORES)
        # A thread of its own keeps the shipped table.
        t = threading.Thread(target=lambda: elsewhere.append(U.win_chances(STANDARD, SCORES)))
        t.start()
        t.join()
    assert harsh != shipped and abs(sum(harsh) - 1) < 1e-9
    assert elsewhere == [shipped]
    # Out of it the shipped table again, its caches not touched by the other's values.
    assert U.win_chances(STANDARD, SCORES) == shipped
    assert U.round_points(STANDARD, 2) != ((0, 0.5), (40, 0.5))


def test_the_coach_prices_a_call_by_the_table_in_use(tmp_path: Path) -> None:
    table = _write(tmp_path / "harsh.json", _harsh(_shipped()))
    hands = [parse_cards("AS 2D"), parse_cards("5C 6C 9H")]
    pile = [parse_card("QH")]
    used = set(hands[0] + hands[1] + pile)
    stock = [c for c in range(54) if c not in used]
    game = Game.from_position(STANDARD, hands, stock, [pile], 0, scores=SCORES)
    view = game.view(0)
    shipped = coach.call_value(view)
    with U.using(table):
        harsh = coach.call_value(view)  # the same view, asked again: not the cached value
    # Every outcome priced anew by it, none read from the showdowns priced with the other.
    assert harsh.play_on != shipped.play_on
    assert harsh.success != shipped.success and harsh.failure != shipped.failure
    with U.using(table):
        assert harsh.play_on == U.win_chances(STANDARD, SCORES)[0]
    assert coach.call_value(view) == shipped


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "cannot be read"),
        ("{not json", "not JSON"),
        ({"version": 1, "entries": []}, "expected version 2, found 1"),
        ([1, 2], "expected version 2, found None"),
        ({"version": 2, "entries": [{"key": "k", "players": 2}]}, "an entry without 'points'"),
        ({"version": 2, "entries": [{"key": "k", "players": 2, "points": {"3": -1}}]}, "0 or more"),
        ({"version": 2, "entries": [{"key": "k", "players": 2, "points": {"x": 1}}]}, "malformed"),
        ({"version": 2, "landing": [{"key": "k", "players": 3, "counts": [[1, 2]]}]}, "tries"),
    ],
)
def test_a_file_that_is_not_a_table_is_refused_in_words(
    tmp_path: Path, content: Any, words: str
) -> None:
    path = tmp_path / "table.json"
    if isinstance(content, str):
        path.write_text(content)
    elif content is not None:
        _write(path, content)
    shipped = U.win_chances(STANDARD, SCORES)
    with pytest.raises(ValueError, match=words) as caught, U.using(path):
        pytest.fail("entered a context with a file that is not a table")
    assert str(path.resolve()) in str(caught.value)
    assert U.table_source() is None and U.win_chances(STANDARD, SCORES) == shipped
