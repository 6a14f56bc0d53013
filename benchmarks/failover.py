"""Fail-over time: from a server process's SIGKILL to the first state a person whose room it
owned receives from the process that took the room over.

Starts Redis (a redis-server of its own on a free port) and ``--processes`` ``yaniv serve``
processes on one PostgreSQL database. Each of ``--kills`` rounds: a game against a bot is
created at one process (it owns the room), its person connects at another and plays a move,
the owner is killed, and the time until that person's next state is measured; the killed
process is started again. Prints the figures as JSON on its last line, with the load average.

    python benchmarks/failover.py --database postgresql://USER:PW@127.0.0.1/DB --kills 20
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster_support import Serve, redis_server  # noqa: E402
from load import scratch_database  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="postgresql://... (a new schema there)")
    parser.add_argument("--processes", type=int, default=3, help="server processes (2-8)")
    parser.add_argument("--kills", type=int, default=20, help="kills to time (1-200)")
    args = parser.parse_args()
    count = max(2, min(args.processes, 8))
    load_before = list(os.getloadavg())
    times: list[float] = []
    with (
        TemporaryDirectory() as tmp,
        redis_server() as redis,
        scratch_database(args.database, tmp, "failover") as url,  # no rooms of earlier runs
    ):
        servers = [Serve(url, redis.url, Path(tmp) / f"s{i}.log") for i in range(count)]
        for s in servers:
            s.start()
        try:
            for k in range(max(1, min(args.kills, 200))):
                owner, other = servers[k % count], servers[(k + 1) % count]
                game = owner.post("/api/games", {"name": "F", "opponents": ["easy"], "rules": {}})
                person = other.ws(game["room"], game["token"])
                try:
                    person.next_state()
                    while not person.my_turn():
                        person.next_state()
                    person.play()
                    person.catch_up(quiet=1.0)
                    killed = time.monotonic()
                    owner.kill()
                    person.next_state(timeout=30)
                    times.append(time.monotonic() - killed)
                finally:
                    person.close()
                owner.start()
                print(f"kill {k + 1}: {times[-1]:.2f} s", file=sys.stderr)
        finally:
            for s in servers:
                s.stop()
    figures = {
        "processes": count,
        "kills": len(times),
        "failover_s": {
            "median": round(statistics.median(times), 2),
            "max": round(max(times), 2),
            "min": round(min(times), 2),
        },
        "load_average": {"before": load_before, "after": list(os.getloadavg())},
    }
    print(
        f"{len(times)} kills: fail-over median {figures['failover_s']['median']} s, "
        f"max {figures['failover_s']['max']} s"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
