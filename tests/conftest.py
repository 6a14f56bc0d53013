"""Shared test settings: a fast, derandomised Hypothesis profile for CI, and the databases
the storage tests run on."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from db_backends import postgres_schema
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=200, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of each backend the server runs on (PostgreSQL: a schema
    of the test's own)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'yaniv.sqlite3'}"
    else:
        with postgres_schema() as url:
            yield url
