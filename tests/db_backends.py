"""The databases the server's storage tests run on: SQLite files, and PostgreSQL schemas."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

import pytest

#: The environment variable with the URL of a PostgreSQL database for the tests (CI sets it:
#: .ci/run, scripts/postgres).
POSTGRES = "YANIV_TEST_POSTGRES"


@contextlib.contextmanager
def fresh_schema(base: str, prefix: str) -> Iterator[str]:
    """The URL of a new, empty schema (``prefix`` and a random suffix) of the PostgreSQL
    database at ``base``, dropped with all it holds afterwards. The URL sets the connections'
    search_path, so whatever connects with it makes and sees its tables there alone (the
    storage tests; the benchmarks, whose servers would play on rooms earlier runs left)."""
    import psycopg
    from sqlalchemy.engine import make_url

    plain = make_url(base).set(drivername="postgresql")
    dsn = plain.render_as_string(hide_password=False)
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    options = plain.query.get("options")
    search = f"-csearch_path={schema}"
    url = plain.update_query_dict(
        {"options": f"{options} {search}" if isinstance(options, str) else search}
    )
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """The URL of a fresh, empty schema of the PostgreSQL test database, dropped afterwards.

    Each test gets its own schema (the URL sets the connections' search_path), so no test sees
    another's rows or tables. Skips without YANIV_TEST_POSTGRES, but fails under CI, where a
    skipped backend would go unnoticed.
    """
    pytest.importorskip("psycopg")
    base = os.environ.get(POSTGRES, "").strip()
    if not base:
        why = f"{POSTGRES} is not set: the PostgreSQL storage tests need a database's URL"
        if os.environ.get("CI"):
            pytest.fail(f"{why} (CI sets it from scripts/postgres)")
        pytest.skip(f"{why}, e.g. postgresql://yaniv_test:yaniv_test@127.0.0.1:5432/yaniv_test")
    with fresh_schema(base, "yaniv_test") as url:
        yield url
