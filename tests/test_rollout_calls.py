"""benchmarks/rollout_calls.py: the rollouts' call rules set beside the expert's own calls."""

from __future__ import annotations

import sys
from pathlib import Path

# Appended, not prepended: their modules (engine, bots, load...) must not shadow a package.
ROOT = Path(__file__).resolve().parents[1]
sys.path += [str(ROOT / "benchmarks"), str(ROOT / "scripts")]

import rollout_calls as rc  # noqa: E402

from yaniv.rules import RuleSet  # noqa: E402


def test_each_callable_turn_sets_the_experts_choice_beside_the_rules() -> None:
    rows = rc.collect(RuleSet.preset("quick"), 3, 2)
    assert set(rows) <= {2, 3} and 3 in rows
    names = list(rc.RULES)
    flat, per_opponent = names.index("flat") + 1, names.index("per opponent") + 1
    for active, found in rows.items():
        assert all(len(r) == 1 + len(names) for r in found)
        if active == 2:  # one opponent: CALL_CHANCE to the power 1
            assert all(r[flat] == r[per_opponent] for r in found)
        else:  # two: a lower bar, so it calls wherever flat does, and somewhere flat does not
            assert all(r[per_opponent] for r in found if r[flat])
    assert any(r[per_opponent] and not r[flat] for r in rows[3])
    # The expert called at some of them and declined at others.
    choices = {r[0] for found in rows.values() for r in found}
    assert choices == {True, False}
