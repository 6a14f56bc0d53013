"""Fuzzing the scenario runner: whatever a file holds, it answers with an Outcome, never a crash."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from yaniv.scenarios import Outcome, load, main, run_scenario

HERE = Path(__file__).parent
REAL = [s for path in sorted((HERE / "conformance").glob("*.json")) for s in load(path)]
LAST_LINE = re.compile(r"(\d+) passed, (\d+) failed")

#: Values that sit close to the format: the wrong kind of card, seat, list or flag.
NEAR_MISSES: st.SearchStrategy[Any] = st.sampled_from(
    [
        None,
        True,
        False,
        0,
        1,
        -1,
        1.0,
        "1",
        5,
        10**30,
        float("nan"),
        "",
        "AH",
        "1H",
        "10h",
        "stock",
        "draw stock",
        "discard AH",
        "yaniv",
        "x" * 500,
        [],
        {},
        [[]],
        [""],
        ["AH"],
        [["AH"]],
        {"0": ["AH"]},
        {"preset": "nope"},
        {"phase": "start"},
    ]
).map(copy.deepcopy)  # a fresh copy each time: mutations must not reach the list above

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)

JSON = st.recursive(
    SCALARS | NEAR_MISSES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=16,
)


def _slots(node: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of a JSON structure, containers first."""
    slots: list[tuple[Any, Any]] = []
    keys = list(node) if isinstance(node, dict) else range(len(node))
    for key in keys:
        slots.append((node, key))
        if isinstance(node[key], dict | list):
            slots.extend(_slots(node[key]))
    return slots


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A real scenario with a few keys or elements removed or replaced by odd values."""
    scenario: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(REAL)))
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(scenario)
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        if draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(JSON)
    return scenario


ANYTHING = JSON | mutated()


@given(ANYTHING)
def test_run_scenario_always_returns_an_outcome(scenario: Any) -> None:
    outcome = run_scenario(scenario)
    assert isinstance(outcome, Outcome)
    assert outcome.passed or outcome.line().startswith(f"FAIL {outcome.name}: ")
    assert "\n" not in outcome.line()


@given(mutated())
def test_mutated_scenarios_fail_in_words_not_surprises(scenario: dict[str, Any]) -> None:
    outcome = run_scenario(scenario)
    assert not (outcome.reason or "").startswith("unexpected"), outcome.line()


def _main_over(content: bytes) -> tuple[int, list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "garbage.json"
        path.write_bytes(content)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            status = main([str(path)])
    return status, printed.getvalue().splitlines()


@given(st.lists(ANYTHING, max_size=5))
def test_command_line_over_a_file_of_garbage(scenarios: list[Any]) -> None:
    status, lines = _main_over(json.dumps(scenarios).encode())
    last = LAST_LINE.fullmatch(lines[-1])
    assert last is not None, lines[-1]
    passed, failed = int(last[1]), int(last[2])
    assert passed + failed == len(scenarios) == len(lines) - 1
    assert status == (1 if failed else 0)


@given(SCALARS | st.dictionaries(st.text(max_size=10), JSON, max_size=4) | st.binary(max_size=40))
def test_command_line_over_a_file_that_is_not_a_list(content: Any) -> None:
    raw = content if isinstance(content, bytes) else json.dumps(content).encode()
    status, lines = _main_over(raw)
    assert status in (0, 1)
    assert LAST_LINE.fullmatch(lines[-1]), lines[-1]
    assert status == 1 or lines == ["0 passed, 0 failed"]  # b"[]" is an empty, passing file
