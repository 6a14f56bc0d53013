"""Environment throughput: steps per second with observations and masks, random legal actions.

    python benchmarks/envs.py                 # a table
    python benchmarks/envs.py --json          # ... and one JSON object as the last line
    python benchmarks/envs.py --core 0        # pinned to one core (Linux)
    python benchmarks/envs.py --path pure     # one path only: compiled, pure (default both)

Both paths: the compiled core and the pure-Python engine (``YANIV_PURE=1``), each in a process
of its own (the environments make their games themselves), the keys of each ending in
``_compiled`` or ``_pure``; the compiled one only where the core is built.

Each AEC step is what a learner's loop does: ``env.last()`` (the acting agent's observation
and action mask, written afresh), a uniformly random action among the mask's legal ones, and
``env.step(action)``, over whole standard games (dead agents' ``None`` steps are not counted).
The legal ones are the mask's nonzero entries read through its bool view (``legal_of``);
``int8_nonzero`` reads them with the int8 array's own ``nonzero()``, which alone costs numpy
about 12 us a step.
``raw`` is ``yaniv.envs.raw_env``; ``wrapped`` is ``yaniv.envs.env`` (PettingZoo's
order-enforcing wrapper around it). ``batched`` is ``yaniv.envs.vector.BatchedYanivEnv``: that
many games of the Gymnasium environment stepped at once, observations and masks written in
place into one array each, a step of every game counted as one step each. ``OpenSpiel`` is
the ``python_yaniv`` game through pyspiel (where the extra is installed): random decisions,
each with its information state tensor, chance nodes played but not counted. The engine's own
random play (no observations, no masks) is measured in the same run for comparison. Each
figure follows a warm-up run (the tables of legal discards per rank and suit fill during the
first seconds); figures are per wall-clock second and per CPU second of this process (the
second is steadier on a shared machine), the best of ``--repeat`` rounds over all of them.
``the loop alone`` is the same learner's loop over an environment that only plays back a
recorded game's observations and masks (``ReplayAEC``): the most any AEC environment could
give this loop, so that the gap to ``raw_env`` is the environment's own cost.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from engine import random_moves  # benchmarks/ is on the path when run as a script
from pettingzoo import AECEnv

from yaniv import compiled
from yaniv.envs import YanivEnv, action_table, env, raw_env
from yaniv.envs.observation import Observer
from yaniv.envs.vector import BatchedYanivEnv
from yaniv.game import Game, Phase
from yaniv.rules import RuleSet

STANDARD = RuleSet()


def _timed(run: Callable[[float], int], seconds: float, warmup: float = 0.0) -> tuple[float, float]:
    """(units per wall second, units per CPU second) of ``run`` for about ``seconds``."""
    if warmup > 0:
        run(warmup)
    wall, cpu = time.perf_counter(), time.process_time()
    units = run(seconds)
    return units / (time.perf_counter() - wall), units / (time.process_time() - cpu)


def legal_of(mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The legal actions of a 0/1 int8 mask: its nonzero entries, read as booleans (numpy's
    ``nonzero`` of an int8 array of 3,000 entries costs about 12 us, of its bool view 2 us)."""
    return mask.view(np.bool_).nonzero()[0]


def int8_legal_of(mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The legal actions as many learners find them: ``mask.nonzero()`` of the int8 array."""
    return mask.nonzero()[0]


def aec_steps(
    make: Callable[[], Any], legal_of: Callable[[Any], Any] = legal_of
) -> Callable[[float], int]:
    """Random legal actions in whole games of an AEC environment; counts live steps."""

    def run(seconds: float) -> int:
        e = make()
        draw = random.Random(0).random  # randrange costs half a microsecond more, in the loop
        steps = episodes = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            steps += aec_episode(e, episodes, draw, legal_of)
            episodes += 1
        return steps

    return run


def aec_episode(
    e: Any,
    seed: int,
    draw: Callable[[], float],
    legal_of: Callable[[Any], Any] = legal_of,
) -> int:
    """One game of an AEC environment, each live step a random legal action; its steps."""
    e.reset(seed=seed)
    steps = 0
    for _agent in e.agent_iter():
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = legal_of(obs["action_mask"])
        e.step(int(legal[int(draw() * len(legal))]))
        steps += 1
    return steps


def gym_episode(e: Any, seed: int, draw: Callable[[], float]) -> int:
    """One game of the Gymnasium environment, random legal actions; the learner's steps."""
    obs, _ = e.reset(seed=seed)
    steps = 0
    while True:
        legal = legal_of(obs["action_mask"])
        obs, _r, terminated, truncated, _ = e.step(int(legal[int(draw() * len(legal))]))
        steps += 1
        if terminated or truncated:
            return steps


class ReplayAEC(AECEnv):  # type: ignore[misc]
    """The learner's loop alone: an AEC environment that plays back the observations and masks
    of one recorded 4-player game (copies, as ``raw_env`` returns them) and whose ``step``
    only moves to the next; the loop's steps per second over it are the ceiling of any
    environment's, and the gap to ``raw_env``'s is the environment's own cost."""

    metadata = {"name": "replay_v0"}

    def __init__(self, players: int = 4) -> None:
        super().__init__()
        played = raw_env(players=players)
        played.reset(seed=0)
        rng = random.Random(0)
        self._frames: list[tuple[str, np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        for agent in played.agent_iter():
            obs, _reward, terminated, truncated, _info = played.last()
            if terminated or truncated:
                played.step(None)
                continue
            self._frames.append((agent, obs["observation"], obs["action_mask"]))
            legal = legal_of(obs["action_mask"])
            played.step(int(legal[rng.randrange(len(legal))]))
        self.possible_agents = played.possible_agents
        self._at = 0

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._at = 0
        self.agent_selection = self._frames[0][0]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        _agent, observation, mask = self._frames[self._at]
        return {"observation": observation.copy(), "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        self._at += 1
        if self._at == len(self._frames):
            self.agents = []
        else:
            self.agent_selection = self._frames[self._at][0]


def gym_steps(players: int, opponents: str) -> Callable[[float], int]:
    """Random legal actions of the learner in the Gymnasium environment (bots move inside)."""

    def run(seconds: float) -> int:
        e = YanivEnv(players=players, opponents=opponents)
        draw = random.Random(0).random
        steps = episodes = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            steps += gym_episode(e, episodes, draw)
            episodes += 1
        return steps

    return run


def batched_steps(num_envs: int, players: int, opponents: str) -> Callable[[float], int]:
    """Random legal actions in ``num_envs`` games of the batched environment at once (each
    game's action drawn uniformly among its mask's legal ones, for the whole batch in a few
    numpy calls); counts game steps."""

    def run(seconds: float) -> int:
        e = BatchedYanivEnv(num_envs, players=players, opponents=opponents)
        rng = np.random.default_rng(0)
        obs, _ = e.reset(seed=0)
        masks = obs["action_mask"]
        size = masks.shape[1]
        steps = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            # Row-major: each game's legal actions in a block (read as booleans, as legal_of),
            # found in the flat array (numpy's nonzero of a 2-D array costs several times more).
            flat = np.flatnonzero(masks.view(np.bool_))
            counts = np.bincount(flat // size, minlength=num_envs)
            starts = np.cumsum(counts) - counts
            chosen = flat[starts + (rng.random(num_envs) * counts).astype(np.int64)]
            e.step(chosen - np.arange(num_envs) * size)
            steps += num_envs
        return steps

    return run


def openspiel_steps(players: int) -> Callable[[float], int]:
    """Random play of the OpenSpiel game ``python_yaniv`` (one round an episode): a uniformly
    random legal action at each decision, a random outcome at each chance node, and each
    decision's information state tensor; counts decisions (chance nodes not counted)."""

    def run(seconds: float) -> int:
        import pyspiel

        import yaniv.envs.openspiel as yos

        game = pyspiel.load_game(yos.SHORT_NAME, {"players": players})
        rng = random.Random(0)
        steps = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                state.information_state_tensor()
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps

    return run


def engine_moves(players: int) -> Callable[[float], int]:
    """The engine alone: random legal moves from ``legal_moves()`` (benchmarks/engine.py)."""
    return lambda seconds: random_moves(seconds, players)


def positions(count: int, players: int = 4) -> list[Game]:
    """Positions of random standard games, to time one observation or one mask."""
    rng = random.Random(2)
    out: list[Game] = []
    game = Game.new(STANDARD, players, 0)
    while len(out) < count:
        if game.phase >= Phase.ROUND_OVER:
            game = Game.new(STANDARD, players, len(out))
        out.append(game.clone())
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])
    return out


def per_call_us(games: list[Game], call: Callable[[Game], object], reps: int = 5) -> float:
    """Best-of-``reps`` mean microseconds of ``call`` over the positions."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for game in games:
            call(game)
        best = min(best, (time.perf_counter() - t0) / len(games) * 1e6)
    return best


def main() -> None:
    """Run every figure and print it."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per throughput figure")
    parser.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per figure")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds over every figure; each shows its best"
    )
    parser.add_argument("--core", type=int, default=None, help="pin the process to this core")
    parser.add_argument("--path", choices=("both", "compiled", "pure"), default="both")
    args = parser.parse_args()
    if args.path == "both":
        both()
        return
    if (args.path == "compiled") != compiled.ENABLED:
        sys.exit(f"--path {args.path}: this process runs the other path (YANIV_PURE, the build)")
    if args.core is not None:
        os.sched_setaffinity(0, {args.core})

    figures: dict[str, Any] = {
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "seconds": args.seconds,
        "path": args.path,
    }
    runs: list[tuple[str, str, Callable[[float], int]]] = [
        ("aec_raw_4p", "AEC raw_env steps/s, 4 players", aec_steps(lambda: raw_env(players=4))),
        (
            "aec_raw_4p_int8_nonzero",
            "... legal actions by the int8 mask's nonzero()",
            aec_steps(lambda: raw_env(players=4), int8_legal_of),
        ),
        (
            "aec_loop_alone_4p",
            "... the loop alone, over a played-back game",
            aec_steps(ReplayAEC),
        ),
        ("aec_wrapped_4p", "AEC env() steps/s, 4 players", aec_steps(lambda: env(players=4))),
        ("aec_raw_2p", "AEC raw_env steps/s, 2 players", aec_steps(lambda: raw_env(players=2))),
        ("aec_raw_8p", "AEC raw_env steps/s, 8 players", aec_steps(lambda: raw_env(players=8))),
        (
            "aec_raw_4p_nocopy",
            "AEC raw_env(copy=False) steps/s, 4 players",
            aec_steps(lambda: raw_env(players=4, copy=False)),
        ),
        ("gym_random_3p", "Gymnasium steps/s, 3 players vs random", gym_steps(3, "random")),
        (
            "batched16_random_3p",
            "BatchedYanivEnv(16) steps/s, 3p vs random",
            batched_steps(16, 3, "random"),
        ),
        (
            "batched64_random_3p",
            "BatchedYanivEnv(64) steps/s, 3p vs random",
            batched_steps(64, 3, "random"),
        ),
        ("engine_random_4p", "engine random moves/s, 4 players (no obs)", engine_moves(4)),
    ]
    if importlib.util.find_spec("pyspiel") is not None:  # the openspiel extra
        runs.append(
            ("openspiel_random_2p", "OpenSpiel python_yaniv decisions/s, 2p", openspiel_steps(2))
        )
    # Round-robin, best of --repeat: a shared machine's speed drifts by tens of per cent over
    # a minute, and the figures are compared with each other (the loop alone, raw_env, env()).
    best: dict[str, tuple[float, float]] = {}
    for round_no in range(args.repeat):
        for key, _label, run in runs:
            wall, cpu = _timed(run, args.seconds, args.warmup if round_no == 0 else 0.0)
            if key not in best or cpu > best[key][1]:
                best[key] = (wall, cpu)
    for key, label, _run in runs:
        wall, cpu = best[key]
        figures[f"{key}_per_s"] = round(wall)
        figures[f"{key}_per_cpu_s"] = round(cpu)
        print(f"{label:<46} {wall:>10,.0f} /s   {cpu:>10,.0f} /CPU s")

    games = positions(3000)
    observer = Observer(STANDARD, 4)
    table = action_table(STANDARD)
    out = observer.new()
    mask = np.zeros(len(table), dtype=np.int8)
    figures["observation_us"] = round(
        per_call_us(
            games, lambda g: observer.write(g, g.to_move if g.to_move is not None else 0, out)
        ),
        2,
    )
    figures["mask_us"] = round(per_call_us(games, lambda g: table.mask(g, mask)), 2)
    figures["view_observation_us"] = round(
        per_call_us(games[:500], lambda g: observer.write_view(g.view(g.to_move or 0), out)), 2
    )
    print(f"{'Observer.write, 3,000 positions, us':<46} {figures['observation_us']:>10.2f}")
    print(f"{'ActionTable.mask, 3,000 positions, us':<46} {figures['mask_us']:>10.2f}")
    print(f"{'Observer.write_view(game.view()), us':<46} {figures['view_observation_us']:>10.2f}")
    print(f"{'load average (1 min) at the start':<46} {figures['load_average_1m']:>10.2f}")
    if args.json:
        print(json.dumps(figures))


def both() -> None:
    """Every figure on each path, each in a process of its own; one JSON object of both."""
    argv = [a for a in sys.argv[1:] if a != "--json"]
    merged: dict[str, Any] = {}
    for name in ("compiled", "pure"):
        if name == "compiled" and compiled.AVAILABLE is None:
            print("[compiled] not built: the pure path only")
            continue
        print(f"[{name}]", flush=True)
        child_env = {k: v for k, v in os.environ.items() if k != "YANIV_PURE"}
        if name == "pure":
            child_env["YANIV_PURE"] = "1"
        done = subprocess.run(
            [sys.executable, __file__, *argv, "--path", name, "--json"],
            env=child_env,
            capture_output=True,
            text=True,
            check=True,
        )
        lines = done.stdout.strip().splitlines()
        print("\n".join(lines[:-1]), flush=True)
        for key, value in json.loads(lines[-1]).items():
            merged[key if key in ("cpus", "seconds") else f"{key}_{name}"] = value
    merged.pop("path_compiled", None)
    merged.pop("path_pure", None)
    if "--json" in sys.argv:
        print(json.dumps(merged))


if __name__ == "__main__":
    main()
