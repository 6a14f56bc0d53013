"""``yaniv serve --workers N``: N server processes on one machine behind one listening socket.

The supervisor binds the address once and starts N copies of ``yaniv serve`` that accept
connections on that socket (the kernel hands each new connection to one of them). They share
the database and Redis, so any of them serves any room (docs/scaling.md). A worker that dies
is started again; its rooms are taken over by the others meanwhile. SIGINT or SIGTERM stops
them all.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

#: Seconds between a worker's death and its new start (a worker that cannot start is not
#: restarted in a tight loop).
RESTART_PAUSE = 1.0


def worker_arguments(argv: Sequence[str]) -> list[str]:
    """``yaniv serve``'s arguments without ``--workers`` (and its value) and the browser."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--workers":
            skip = True
            continue
        if arg.startswith("--workers=") or arg in ("--browser", "--no-browser"):
            continue
        out.append(arg)
    return [*out, "--no-browser"]


def bind(host: str, port: int) -> socket.socket:
    """The listening socket the workers share."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def supervise(workers: int, host: str, port: int, argv: Sequence[str]) -> int:
    """Run ``workers`` processes of ``yaniv serve argv`` on one socket until a signal."""
    sock = bind(host, port)
    command = [sys.executable, "-m", "yaniv.cli", "serve", *worker_arguments(argv)]
    command += ["--fd", str(sock.fileno())]
    stopping = False

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, pass_fds=(sock.fileno(),))

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    children = [start() for _ in range(workers)]
    try:
        while not stopping:
            time.sleep(0.2)
            for i, child in enumerate(children):
                code = child.poll()
                if code is not None and not stopping:
                    print(
                        f"yaniv serve: worker {child.pid} ended ({code}); starting another",
                        file=sys.stderr,
                    )
                    time.sleep(RESTART_PAUSE)
                    children[i] = start()
    finally:
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                print(
                    f"yaniv serve: worker {child.pid} did not stop in 15 s; killed", file=sys.stderr
                )
                child.kill()
                child.wait()  # reaped: nothing of this server outlives it
        sock.close()
    return 0
