"""Instructions per environment step, counted by valgrind's callgrind: a figure that does not
drift with a shared machine's speed (the time figures of benchmarks/envs.py do, by tens of
per cent within a minute).

    python benchmarks/env_instructions.py               # every loop, this checkout
    python benchmarks/env_instructions.py raw gym       # some of them
    python benchmarks/env_instructions.py --episodes 3 8 --warmup 15

Each loop is benchmarks/envs.py's learner loop (random legal actions from the mask), over
whole standard games with fixed seeds: ``raw`` (``raw_env``, 4 players), ``wrapped``
(``env()``, 4 players), ``gym`` (``YanivEnv``, 3 players against ``random``), ``alone`` (the
loop over ``ReplayAEC``, a played-back game: the loop's own cost). The process is counted
twice, after the same warm-up (which fills the tables of legal discards), playing the fewer
and the more episodes; the difference of the two counts over the difference of their steps
is the figure, so the interpreter's start and the imports cancel. Needs ``valgrind`` (Debian's
package); each loop takes a minute or two under it. The path is the process's own (the
compiled core where it is built, ``YANIV_PURE=1`` the pure one).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

LOOPS = ("raw", "wrapped", "gym", "alone")


def episodes_of(loop: str, episodes: int) -> int:
    """``episodes`` games of ``loop`` (benchmarks/envs.py's loops, fixed seeds); the steps."""
    from envs import ReplayAEC, aec_episode, gym_episode  # benchmarks/ is on the path

    from yaniv.envs import YanivEnv, env, raw_env

    draw = random.Random(0).random
    if loop == "gym":
        e: Any = YanivEnv(players=3, opponents="random")
        return sum(gym_episode(e, seed, draw) for seed in range(episodes))
    make: Callable[[], Any] = {
        "raw": lambda: raw_env(players=4),
        "wrapped": lambda: env(players=4),
        "alone": lambda: ReplayAEC(4),
    }[loop]
    e = make()
    return sum(aec_episode(e, seed, draw) for seed in range(episodes))


def counted(loop: str, warmup: int, episodes: int) -> tuple[int, int]:
    """(steps, instructions) of a process that warms up, then plays ``episodes`` games."""
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/callgrind.out",
                sys.executable,
                __file__,
                "--child",
                loop,
                str(warmup),
                str(episodes),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    steps = re.search(r"^steps (\d+)$", out.stdout, re.MULTILINE)
    total = re.search(r"Collected : (\d+)", out.stderr)
    if steps is None or total is None:
        sys.exit(f"{loop}: no count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(steps.group(1)), int(total.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("loops", nargs="*", metavar="LOOP", help=f"of {', '.join(LOOPS)}")
    parser.add_argument("--episodes", type=int, nargs=2, default=(3, 8), metavar=("FEW", "MORE"))
    parser.add_argument("--warmup", type=int, default=15, help="episodes before counting")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # one counted process: warm up, play, say how many steps
        loop, warmup, episodes = args.child[0], int(args.child[1]), int(args.child[2])
        episodes_of(loop, warmup)
        print(f"steps {episodes_of(loop, episodes)}")
        return
    unknown = [loop for loop in args.loops if loop not in LOOPS]
    if unknown:
        sys.exit(f"no loop {unknown[0]!r}: expected some of {', '.join(LOOPS)}")
    few, more = args.episodes
    if not 0 < few < more:
        sys.exit("--episodes FEW MORE: two numbers of games, the first the smaller")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    path = "pure" if os.environ.get("YANIV_PURE", "") not in ("", "0") else "as built"
    print(f"instructions per step (callgrind; path: {path}; warm-up {args.warmup} games)")
    for loop in args.loops or LOOPS:
        with ThreadPoolExecutor(2) as pool:  # the two counts at once, one core each
            runs = [pool.submit(counted, loop, args.warmup, n) for n in (few, more)]
            (s1, i1), (s2, i2) = (run.result() for run in runs)
        print(f"{loop:<8} {(i2 - i1) / (s2 - s1):>10,.0f}   ({s2 - s1:,} steps counted)")


if __name__ == "__main__":
    main()
