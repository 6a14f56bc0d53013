"""The databases the server's storage tests run on: SQLite files, and PostgreSQL schemas."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
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


class CuttableProxy:
    """A TCP relay on 127.0.0.1 to a database server, whose ``cut()`` is the server going down
    as a client sees it: every open connection is broken and each new one closed at once,
    until ``restore()``. The server itself goes on serving the other tests."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closed = False
        threading.Thread(target=self._accept, name="db-proxy", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # the listener closed: the proxy is done
                return
            with self._lock:
                down = self._cut or self._closed
            if down:
                client.close()
                continue
            try:
                server = socket.create_connection(self._target, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)  # an idle connection (the pool's) stays open
            with self._lock:
                self._open.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            self._drop(source, sink)

    def _drop(self, *sockets: socket.socket) -> None:
        with self._lock:
            for s in sockets:
                self._open.discard(s)
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def cut(self) -> None:
        """Break every connection and refuse new ones (closed as soon as accepted)."""
        with self._lock:
            self._cut = True
            broken = list(self._open)
        self._drop(*broken)

    def restore(self) -> None:
        """Relay new connections again."""
        with self._lock:
            self._cut = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            broken = list(self._open)
        self._drop(*broken)
        self._listener.close()


@contextlib.contextmanager
def postgres_through_proxy() -> Iterator[tuple[str, CuttableProxy]]:
    """A fresh schema of the PostgreSQL test database (as ``postgres_schema``), reached
    through a CuttableProxy: its URL and the proxy."""
    from sqlalchemy.engine import make_url

    with postgres_schema() as url:
        parsed = make_url(url)
        proxy = CuttableProxy(parsed.host or "127.0.0.1", parsed.port or 5432)
        try:
            yield (
                parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False),
                proxy,
            )
        finally:
            proxy.close()
