"""Every rule scenario: the project's own copy, and the shared suite beside the checkout, each
with its ``next/`` folder (the options added last)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yaniv.scenarios import load, run_files, run_scenario

HERE = Path(__file__).parent


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) + sorted(folder.glob("next/*.json"))


OWN = _files(HERE / "conformance")
SHARED_DIR = HERE.parent.parent / "shared" / "conformance"
SHARED = _files(SHARED_DIR) if SHARED_DIR.is_dir() else []


def _cases(files: list[Path]) -> list[Any]:
    return [
        pytest.param(scenario, id=f"{path.stem}:{scenario['name']}")
        for path in files
        for scenario in load(path)
    ]


@pytest.mark.parametrize("scenario", _cases(OWN))
def test_own_copy(scenario: dict[str, Any]) -> None:
    outcome = run_scenario(scenario)
    assert outcome.passed, outcome.line()


@pytest.mark.skipif(not SHARED, reason="no ../shared/conformance beside the checkout")
@pytest.mark.parametrize("scenario", _cases(SHARED))
def test_shared_suite(scenario: dict[str, Any]) -> None:
    outcome = run_scenario(scenario)
    assert outcome.passed, outcome.line()


def test_own_copy_is_complete() -> None:
    assert len(OWN) >= 7
    assert sum(len(load(p)) for p in OWN) >= 67 + 25
    if SHARED:  # the copy follows the shared suite, file by file
        assert [p.relative_to(HERE / "conformance") for p in OWN] == [
            p.relative_to(SHARED_DIR) for p in SHARED
        ]
        for own, shared in zip(OWN, SHARED, strict=True):
            assert load(own) == load(shared), f"{own} differs from {shared}"


BROKEN = [
    {
        "name": "wrong-expectation",
        "setup": {
            "hands": [["AH", "2C"], ["5H", "9S"]],
            "stock": ["4C"],
            "discards": [["9C"]],
            "to_move": 0,
        },
        "steps": [{"play": "yaniv"}, {"expect": {"result": "assaf"}}],
    },
    {
        "name": "legal-move-marked-illegal",
        "setup": {
            "hands": [["AH", "2C"], ["5H", "9S"]],
            "stock": ["4C"],
            "discards": [["9C"]],
            "to_move": 0,
        },
        "steps": [{"play": "discard AH", "illegal": True}],
    },
    {"name": "good-rules-marked-bad", "rules": {"yaniv_threshold": 5}, "rules_error": True},
]


def test_runner_reports_failures(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(BROKEN))
    lines: list[str] = []
    passed, failed = run_files([path], lines.append)
    assert (passed, failed) == (0, 3)
    assert lines[0].startswith("FAIL wrong-expectation: step 2: result is 'yaniv'")
    assert lines[1].startswith("FAIL legal-move-marked-illegal: step 1:")
    assert lines[2] == "FAIL good-rules-marked-bad: the rule set was accepted but should be refused"
    assert lines[-1] == "0 passed, 3 failed"


def test_command_line_exit_status(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(BROKEN[:1]))
    good = subprocess.run(
        [sys.executable, "-m", "yaniv.scenarios", *map(str, OWN)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert good.returncode == 0
    total = sum(len(load(p)) for p in OWN)
    assert good.stdout.splitlines()[-1] == f"{total} passed, 0 failed"
    bad = subprocess.run(
        [sys.executable, "-m", "yaniv.scenarios", str(broken)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    assert bad.stdout.splitlines()[-1] == "0 passed, 1 failed"


def test_unreadable_file_is_a_failure(tmp_path: Path) -> None:
    path = tmp_path / "notjson.json"
    path.write_text("{not json")
    lines: list[str] = []
    assert run_files([path], lines.append) == (0, 1)
    assert lines[0].startswith(f"FAIL {path}: cannot read scenarios")
