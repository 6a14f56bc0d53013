"""Train the master's belief network (yaniv/bots/belief.py) and write its shipped weights.

    nice -n 10 .venv/bin/python scripts/train_belief.py                 # the shipped files
    .venv/bin/python scripts/train_belief.py --games 200 --epochs 2 --out /tmp/belief  # a try

1. **Data.** The expert plays itself from seeded deals under each rule set and player count of
   ``--combos``. At the start of every turn, for every opponent of the seat to move with
   hidden cards, the example is ``belief.features`` of that seat's view and, as the label,
   the opponent's real hidden cards (its hand less the cards seen taken into it).
2. **Training.** PyTorch (``pip install -e '.[train]'``): the network of ``belief.BeliefNet``,
   binary cross-entropy over the cards the viewer cannot place, Adam, the learning rate halved
   each third of the epochs.
3. **Figures.** On held-out games (other seeds), the Brier score of the hidden cards (the sum
   over the unseen cards of the squared error of each card's chance, the mean over examples)
   of the network and of the uniform guess, per rule set and player count; written to the
   ``.json`` beside the weights with the CPU time it took.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np
import torch
from build_utility_table import RULE_SETS  # the presets and the house rule set, by name
from expert_selfplay import turn_starts

from yaniv.bots import belief
from yaniv.cards import NUM_CARDS, mask_of

#: Rule set and players, with the share of the games played under it.
COMBOS = (
    "standard:2:4,standard:3:1,standard:4:1,quick:2:1,hebrew:2:1,draw_first:2:1,"
    "slapdown:2:1,house:2:1,house:4:1"
)
TEST_SEED = 10**6  # the held-out games' seeds start here


Example = tuple[list[int], list[float], int]  # active inputs, scalars, the hidden cards' mask


def play(task: tuple[str, int, int, int]) -> list[Example]:
    """The examples of ``games`` expert self-play games from seed ``first``."""
    name, players, first, games = task
    rules = RULE_SETS[name]
    out: list[Example] = []
    for seed in range(first, first + games):
        for game, view in turn_starts(rules, players, seed):
            for other in view.active_seats():
                if other == view.seat or view.hand_sizes[other] <= len(view.known[other]):
                    continue
                active, scalars = belief.features(view, other)
                hidden = mask_of(game.hand(other)) & ~mask_of(view.known[other])
                out.append((active, scalars, hidden))
    return out


Arrays = tuple[np.ndarray, np.ndarray, np.ndarray]  # the planes, the scalars, the labels


def arrays(examples: list[Example]) -> Arrays:
    """The 0/1 planes and labels as bytes (a quarter of the memory of floats) and the scalars."""
    n = len(examples)
    planes = np.zeros((n, belief.PLANES * NUM_CARDS), dtype=np.uint8)
    scalars = np.zeros((n, belief.SCALARS), dtype=np.float32)
    y = np.zeros((n, NUM_CARDS), dtype=np.uint8)
    bits = np.arange(NUM_CARDS, dtype=np.uint64)
    for i, (active, values, label) in enumerate(examples):
        planes[i, active] = 1
        scalars[i] = values
        y[i] = (np.uint64(label) >> bits) & np.uint64(1)
    return planes, scalars, y


def play_arrays(task: tuple[str, int, int, int]) -> Arrays:
    """``play``'s examples as arrays, made in the worker (the lists would not fit in memory)."""
    return arrays(play(task))


def tensors(data: Arrays) -> tuple[torch.Tensor, ...]:
    """The planes, scalars and labels (sharing the arrays' memory), and the mask of unseen
    cards (the candidates plane)."""
    planes, scalars, y = data
    return (
        torch.from_numpy(planes),
        torch.from_numpy(scalars),
        torch.from_numpy(y),
        torch.from_numpy(planes[:, :NUM_CARDS].copy()),
    )


def inputs(planes: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
    """The network's float inputs of some rows."""
    return torch.cat((planes.float(), scalars), 1)


def network(hidden: int) -> torch.nn.Sequential:
    return torch.nn.Sequential(
        torch.nn.Linear(belief.INPUTS, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, NUM_CARDS),
    )


def brier(net: torch.nn.Module, data: tuple[torch.Tensor, ...]) -> float:
    planes, scalars, y, m = data
    with torch.no_grad():
        p = torch.sigmoid(net(inputs(planes, scalars))) * m
    return float((((p - y) ** 2) * m).sum(1).mean())


def uniform_brier(data: tuple[torch.Tensor, ...]) -> float:
    _, _, y, m = data
    p = m * y.sum(1, keepdim=True) / m.sum(1, keepdim=True)
    return float((((p - y) ** 2) * m).sum(1).mean())


def cached_play(
    path: str | None, tasks: list[tuple[str, int, int, int]], split: int, jobs: int
) -> list[Arrays]:
    """The arrays of every task (the first ``split`` are the training games), played, or read
    from ``path`` where it was saved for the same tasks (and saved there when it was not): a
    second network on the same games skips the self-play."""
    key = repr(tasks)
    if path is not None and Path(path).exists():
        with np.load(path, allow_pickle=False) as saved:
            if str(saved["key"]) != key:
                raise SystemExit(
                    f"--data {path}: saved for other games (other --combos, --games, "
                    "--test-games or --jobs); remove it or name another file"
                )
            count = 1 + len(tasks) - split
            return [(saved[f"{i}.0"], saved[f"{i}.1"], saved[f"{i}.2"]) for i in range(count)]
    with Pool(jobs) as pool:
        parts = pool.map(play_arrays, tasks)
    planes, scalars, y = (np.concatenate([part[k] for part in parts[:split]]) for k in range(3))
    parts = [(planes, scalars, y), *parts[split:]]
    if path is not None:
        named: dict[str, Any] = {f"{i}.{k}": p[k] for i, p in enumerate(parts) for k in range(3)}
        with open(path, "wb") as out:
            np.savez(out, key=np.array(key), **named)
    return parts


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the self-play workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--combos", default=COMBOS, help="RULES:PLAYERS:SHARE,...")
    parser.add_argument("--games", type=int, default=4000, help="training games in all")
    parser.add_argument("--test-games", type=int, default=40, help="held-out games per combo")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(belief.WEIGHTS.with_suffix("")))
    parser.add_argument("--data", help="an .npz to save the self-play's examples to, or reuse")
    args = parser.parse_args(argv)
    combos = []
    for item in args.combos.split(","):
        name, players, share = (item.split(":") + ["", ""])[:3]
        if (
            name not in RULE_SETS
            or not players.isdigit()
            or not 2 <= int(players) <= 8
            or not share.replace(".", "", 1).isdigit()
        ):
            parser.error(
                f"--combos: {item!r}: expected RULES:PLAYERS:SHARE (2 to 8 players), RULES one of "
                f"{', '.join(RULE_SETS)}"
            )
        combos.append((name, int(players), float(share)))
    total = sum(share for *_, share in combos)
    chunks = args.jobs * 4
    train_tasks, test_tasks = [], []
    for k, (name, players, share) in enumerate(combos):
        games = max(chunks, round(args.games * share / total))
        for j in range(chunks):
            first = (k * 1000 + j) * 10_000
            train_tasks.append((name, players, first, games // chunks))
        test_tasks.append((name, players, TEST_SEED + k * 10_000, args.test_games))
    train, *tests = cached_play(args.data, train_tasks + test_tasks, len(train_tasks), args.jobs)
    planes, scalars, y, m = tensors(train)
    print(f"{len(y)} training examples", flush=True)
    del train
    started = time.perf_counter()
    torch.manual_seed(0)
    net = network(args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    bce = torch.nn.BCEWithLogitsLoss(reduction="none")
    for epoch in range(args.epochs):
        for group in opt.param_groups:
            group["lr"] = 1e-3 * 0.5 ** (epoch // max(1, args.epochs // 3))
        order = torch.randperm(len(y))
        total_loss = 0.0
        for i in range(0, len(y), 512):
            batch = order[i : i + 512]
            logits = net(inputs(planes[batch], scalars[batch]))
            loss = (bce(logits, y[batch].float()) * m[batch]).sum() / len(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += float(loss.detach()) * len(batch)
        print(
            f"epoch {epoch}: loss {total_loss / len(y):.4f} "
            f"({time.perf_counter() - started:.0f} s of training)",
            flush=True,
        )
    figures = {}
    for (name, players, _), examples in zip(combos, tests, strict=True):
        data = tensors(examples)
        figures[f"{name}:{players}"] = {
            "examples": len(data[2]),
            "brier": round(brier(net, data), 4),
            "uniform": round(uniform_brier(data), 4),
        }
        print(name, players, figures[f"{name}:{players}"], flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    state = net.state_dict()
    keys = ("0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias")
    flat = np.concatenate([state[k].numpy().astype("<f4").ravel() for k in keys])
    out.with_suffix(".f32").write_bytes(flat.tobytes())
    meta = {
        "encoding": belief.ENCODING,
        "hidden": args.hidden,
        "combos": args.combos,
        "games": args.games,
        "examples": len(y),
        "epochs": args.epochs,
        "held_out": figures,
        "cpu_seconds": round(cpu_seconds(), 1),
        "command": " ".join(["scripts/train_belief.py", *(argv or sys.argv[1:])]),
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out.with_suffix('.f32')} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
