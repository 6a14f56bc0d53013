"""Train the ``learned`` bot: behaviour cloning of the expert, then league self-play PPO.

Two stages, each resumable, both writing the numpy weight file the bot level loads
(``yaniv/bots/data/learned.npz``, read by ``yaniv.bots.learned_net``):

1. ``bc``: the expert plays games against ``easy``, ``medium`` and itself; every decision of an
   expert seat that has a choice is kept as (state features, features of each legal move, the
   expert's move). A masked-softmax MLP over the legal moves is fitted to the expert's choices.
   ``--dagger K`` then plays K more rounds of games with the network in the expert's seat (the
   expert still labels every position it meets) and refits on everything, so the network also
   learns what to do in the positions its own mistakes lead to.
2. ``league``: PPO from those weights. The learner plays one seat of two-player games; the
   opponent of each game is drawn by the league's rule: with probability ``--self-play`` (0.5)
   a frozen snapshot of the learner (uniformly among the last ``--snapshots`` kept, one taken
   every ``--snapshot-every`` iterations), otherwise a built-in bot among ``--bots``, weighted
   by ``(1 - w) ** 2 + 0.05`` where ``w`` is the learner's win rate against it over its recent
   games (the bots it loses to come up most; prioritized fictitious self-play in small).
   Reward: at each round's end the opponent's points minus the learner's, over 100, and +-1
   for the game. Checkpoints (``--out``/league.pt) every ``--checkpoint-every`` iterations hold
   everything needed to go on: ``--resume``.

Evaluation (``eval``, and at the end of each stage) plays duplicate deals against ``random``,
``easy`` and ``medium`` through ``yaniv.arena.evaluate`` and reports Wilson intervals.
TensorBoard logs go to ``OUT/tb`` when ``torch.utils.tensorboard`` imports, otherwise a line
says they are skipped. CPU by default (``--device auto`` takes a GPU when torch sees one).

    pip install 'yaniv[train]'
    nice -n 10 python examples/train_league.py bc --games 2000 --dagger 1 --out runs/bc
    nice -n 10 python examples/train_league.py league --init runs/bc/learned.npz --out runs/lg
    python examples/train_league.py eval runs/lg/learned.npz --games 1000

docs/training.md describes the shipped run; tests/test_examples.py runs each stage tiny.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from yaniv.arena import evaluate
from yaniv.bots import get_bot
from yaniv.bots.base import Bot
from yaniv.bots.learned_net import MOVE_SIZE, STATE_SIZE, Network, encode
from yaniv.game import Game, Phase
from yaniv.moves import Move
from yaniv.rules import RuleSet
from yaniv.view import PlayerView

Log = Callable[[str], None]

#: Rule sets of the behaviour-cloning games besides the standard two-player ones (a share
#: ``mixed`` of the games), so the network has seen other tables and house rules.
MIXED_PRESETS = ("standard", "quick", "hebrew", "draw_first", "slapdown")


# ----------------------------------------------------------------- the network in torch


class Policy(nn.Module):
    """The policy MLP of ``learned_net.Network`` (the same layers), and a value head."""

    def __init__(self, hidden: int = 256, depth: int = 2) -> None:
        super().__init__()
        sizes = [STATE_SIZE + MOVE_SIZE] + [hidden] * depth + [1]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))
        self.value = nn.Sequential(nn.Linear(STATE_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def logits(
        self, states: torch.Tensor, moves: torch.Tensor, group: torch.Tensor
    ) -> torch.Tensor:
        """One logit per move row; ``group[i]`` is the row of ``states`` move ``i`` belongs to.
        The first layer's state part is applied once per state."""
        first = self.layers[0]
        assert isinstance(first, nn.Linear)
        w_state = first.weight[:, :STATE_SIZE]
        w_move = first.weight[:, STATE_SIZE:]
        h = torch.relu((states @ w_state.T + first.bias)[group] + moves @ w_move.T)
        for i, layer in enumerate(self.layers[1:]):
            h = layer(h)
            if i < len(self.layers) - 2:
                h = torch.relu(h)
        return h[:, 0]

    def values(self, states: torch.Tensor) -> torch.Tensor:
        """The value head's estimate of each state."""
        out: torch.Tensor = self.value(states)[:, 0]
        return out

    def to_network(self, meta: dict[str, Any]) -> Network:
        """The numpy network the bot plays (weights as ``x @ w + b``)."""
        layers = tuple(
            (
                layer.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                layer.bias.detach().cpu().numpy().astype(np.float32).copy(),
            )
            for layer in self.layers
            if isinstance(layer, nn.Linear)
        )
        return Network(layers, meta)

    def load_network(self, net: Network) -> None:
        """Take the policy weights of a numpy network of the same shape."""
        if len(net.layers) != len(self.layers):
            raise ValueError(f"{len(net.layers)} layers in the file, {len(self.layers)} here")
        with torch.no_grad():
            for layer, (w, b) in zip(self.layers, net.layers, strict=True):
                assert isinstance(layer, nn.Linear)
                layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                layer.bias.copy_(torch.from_numpy(b))


def group_log_softmax(logits: torch.Tensor, group: torch.Tensor, groups: int) -> torch.Tensor:
    """The log-softmax of each move's logit among the moves of its own decision."""
    top = torch.full((groups,), -1e30, dtype=logits.dtype, device=logits.device)
    top = top.scatter_reduce(0, group, logits, reduce="amax")
    shifted = logits - top[group]
    total = torch.zeros(groups, dtype=logits.dtype, device=logits.device)
    total = total.index_add(0, group, shifted.exp())
    return shifted - total.log()[group]


def pick_device(name: str) -> torch.device:
    """``auto``: a GPU when torch sees one, else the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


# ----------------------------------------------------------------- decisions as data


@dataclass
class Decisions:
    """Decisions with a choice: state rows, move rows (flat), and per decision its first move
    row, its count and the index of the move taken (among its own)."""

    states: list[NDArray[np.float32]] = field(default_factory=list)
    moves: list[NDArray[np.float32]] = field(default_factory=list)
    taken: list[int] = field(default_factory=list)

    def add(self, state: NDArray[np.float32], moves: NDArray[np.float32], taken: int) -> None:
        self.states.append(state.astype(np.float16))
        self.moves.append(moves.astype(np.float16))
        self.taken.append(taken)

    def __len__(self) -> int:
        return len(self.taken)

    def arrays(self) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
        """States (N, S), moves (M, F), offsets (N + 1) and taken (N)."""
        counts = np.array([len(m) for m in self.moves], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        return (
            np.stack(self.states),
            np.concatenate(self.moves),
            offsets,
            np.array(self.taken, dtype=np.int64),
        )


def batch_of(
    ids: NDArray[np.int64], offsets: NDArray[np.int64], taken: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The move rows of decisions ``ids``, the position of each row's decision in ``ids`` (its
    group), and where each decision's taken move is among the rows."""
    counts = offsets[ids + 1] - offsets[ids]
    first = np.cumsum(counts) - counts
    group = np.repeat(np.arange(len(ids)), counts)
    within = np.arange(int(counts.sum())) - np.repeat(first, counts)
    return np.repeat(offsets[ids], counts) + within, group, first + taken[ids]


def index_of(moves: Sequence[Move], move: Move) -> int:
    """Where ``move`` is among ``moves`` (a discard laid in another order counts as the same)."""
    for k, m in enumerate(moves):
        if m == move:
            return k
    mask = getattr(move, "mask", None)
    for k, m in enumerate(moves):
        if mask is not None and type(m) is type(move) and getattr(m, "mask", None) == mask:
            return k
    raise ValueError(f"'{move}' is not among the legal moves")


class Placeholder:
    """A seat whose moves ``play``'s ``on_decision`` makes (it offers the first legal move)."""

    name = "placeholder"

    def choose(self, view: PlayerView) -> Move:
        """The first legal move, for ``on_decision`` to replace."""
        return view.legal_moves[0]


class NetBot:
    """A numpy network as a bot (greedy), for the league's snapshots and the evaluations."""

    name = "learned"

    def __init__(self, net: Network) -> None:
        self.net = net

    def choose(self, view: PlayerView) -> Move:
        """The network's move."""
        return self.net.choose(view)


def play(
    game: Game,
    seats: Sequence[Bot],
    on_decision: Callable[[int, PlayerView, Move], Move] | None = None,
    max_moves: int = 5000,
) -> bool:
    """Play ``game`` to its end; ``on_decision(seat, view, move)`` may replace each move.
    Returns False for a game stopped at ``max_moves``."""
    moves = 0
    while True:
        phase = game.phase
        if phase == Phase.GAME_OVER:
            return True
        if phase == Phase.ROUND_OVER:
            game.next_round()
            continue
        if moves >= max_moves:
            return False
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        move = seats[seat].choose(view)
        if on_decision is not None:
            move = on_decision(seat, view, move)
        game.apply(move)
        moves += 1


# ----------------------------------------------------------------- stage 1: cloning


@dataclass(frozen=True)
class BCConfig:
    """A behaviour-cloning run (written with its results)."""

    games: int = 2000  # expert games per round of data
    dagger: int = 1  # more rounds with the network in the expert's seat
    dagger_games: int = 1000
    opponents: tuple[str, ...] = ("easy", "medium", "medium", "expert")
    mixed: float = 0.15  # share of games under another preset or with 3-4 players
    epochs: int = 8
    batch: int = 256  # decisions per minibatch
    lr: float = 1e-3
    hidden: int = 256
    depth: int = 2
    seed: int = 0
    device: str = "cpu"
    eval_games: int = 200


def _setup(rng: random.Random, mixed: float) -> tuple[RuleSet, int]:
    if rng.random() >= mixed:
        return RuleSet(), 2
    return RuleSet.preset(rng.choice(MIXED_PRESETS)), rng.choice((2, 3, 4))


def collect(
    cfg: BCConfig, games: int, seed: int, actor: Network | None, data: Decisions, log: Log
) -> None:
    """Play ``games`` games; the expert seat (or the ``actor`` network in it) is labelled by
    the expert at every decision with a choice."""
    rng = random.Random(seed)
    t0 = time.process_time()
    for g in range(games):
        rules, players = _setup(rng, cfg.mixed)
        me = g % players
        expert = get_bot("expert", seed=rng.randrange(1 << 30))
        seats: list[Bot] = [
            get_bot(rng.choice(cfg.opponents), seed=rng.randrange(1 << 30)) for _ in range(players)
        ]
        seats[me] = expert
        learner = NetBot(actor) if actor is not None else None

        def label(
            seat: int,
            view: PlayerView,
            move: Move,
            me: int = me,
            learner: NetBot | None = learner,
            expert: Bot = expert,
        ) -> Move:
            if seat != me or len(view.legal_moves) < 2:
                return move
            state, rows = encode(view)
            data.add(state, rows, index_of(view.legal_moves, move))
            if learner is None:
                return move
            mine = learner.choose(view)
            if mine != move:
                # The expert planned its draw with its own discard; after another, replan.
                expert._plan = None  # type: ignore[attr-defined]
            return mine

        play(Game.new(rules, players, seed=rng.randrange(1 << 30)), seats, label)
        if (g + 1) % 250 == 0:
            log(f"  {g + 1}/{games} games, {len(data)} decisions, {time.process_time() - t0:.0f} s")


def fit(
    policy: Policy, data: Decisions, cfg: BCConfig, device: torch.device, log: Log
) -> dict[str, float]:
    """Fit the policy to the labelled moves (cross-entropy over each decision's moves)."""
    states, moves, offsets, taken = data.arrays()
    n = len(taken)
    order = np.random.default_rng(cfg.seed).permutation(n)
    held = order[: max(1, n // 20)]  # 5 % held out to watch for overfitting
    train = order[len(held) :]
    opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    steps = cfg.epochs * max(1, len(train) // cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=steps)
    rng = np.random.default_rng(cfg.seed + 1)

    def tensors(ids: NDArray[np.int64]) -> tuple[torch.Tensor, ...]:
        rows, group, target = batch_of(ids, offsets, taken)
        return (
            torch.from_numpy(states[ids].astype(np.float32)).to(device),
            torch.from_numpy(moves[rows].astype(np.float32)).to(device),
            torch.from_numpy(group).to(device),
            torch.from_numpy(target).to(device),
        )

    def accuracy(ids: NDArray[np.int64]) -> tuple[float, float]:
        policy.eval()
        loss = correct = 0.0
        with torch.no_grad():
            for k in range(0, len(ids), 4096):
                s, m, g, t = tensors(ids[k : k + 4096])
                lp = group_log_softmax(policy.logits(s, m, g), g, len(s))
                loss -= float(lp[t].sum())
                best = torch.full((len(s),), -1e30, device=device)
                best = best.scatter_reduce(0, g, lp, reduce="amax")
                correct += float((lp[t] >= best).sum())
        policy.train()
        return loss / len(ids), correct / len(ids)

    done = 0
    for epoch in range(cfg.epochs):
        rng.shuffle(train)
        for k in range(0, len(train) - cfg.batch + 1, cfg.batch):
            if done >= steps:
                break
            s, m, g, t = tensors(train[k : k + cfg.batch])
            lp = group_log_softmax(policy.logits(s, m, g), g, len(s))
            loss = -lp[t].mean()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            done += 1
        held_loss, held_acc = accuracy(held)
        log(f"  epoch {epoch + 1}: held-out loss {held_loss:.3f}, agreement {held_acc:.1%}")
    train_loss, train_acc = accuracy(train[:20000])
    return {
        "decisions": n,
        "held_loss": held_loss,
        "held_agreement": held_acc,
        "train_agreement": train_acc,
        "train_loss": train_loss,
    }


def run_bc(cfg: BCConfig, out: Path, command: str, log: Log = print) -> dict[str, Any]:
    """Stage 1: expert data, a fit, DAgger rounds, the export and an evaluation."""
    torch.manual_seed(cfg.seed)
    device = pick_device(cfg.device)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.process_time()
    data = Decisions()
    log(f"collecting {cfg.games} expert games")
    collect(cfg, cfg.games, cfg.seed, None, data, log)
    policy = Policy(cfg.hidden, cfg.depth).to(device)
    log(f"fitting on {len(data)} decisions")
    fits = [fit(policy, data, cfg, device, log)]
    for k in range(cfg.dagger):
        net = policy.to_network({})
        log(f"DAgger round {k + 1}: {cfg.dagger_games} games with the network playing")
        collect(cfg, cfg.dagger_games, cfg.seed + 1000 * (k + 1), net, data, log)
        policy = Policy(cfg.hidden, cfg.depth).to(device)
        torch.manual_seed(cfg.seed + k + 1)
        fits.append(fit(policy, data, cfg, device, log))
    cpu = time.process_time() - t0
    meta = {
        "stage": "bc",
        "command": command,
        "seed": cfg.seed,
        "config": asdict(cfg),
        "cpu_seconds": round(cpu, 1),
        "fits": fits,
    }
    net = policy.to_network(meta)
    path = out / "learned.npz"
    net.save(path)
    log(f"wrote {path} ({path.stat().st_size:,} bytes) after {cpu:.0f} CPU seconds")
    meta["evaluation"] = evaluation(Network.load(path), cfg.eval_games, cfg.seed + 77, log)
    (out / "learned.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


# ----------------------------------------------------------------- stage 2: the league


@dataclass(frozen=True)
class LeagueConfig:
    """A league run (written with its results and in every checkpoint)."""

    iterations: int = 50
    games: int = 32  # learner games per iteration
    bots: tuple[str, ...] = ("random", "easy", "medium", "expert")
    self_play: float = 0.5
    snapshots: int = 5
    snapshot_every: int = 5
    checkpoint_every: int = 5
    epochs: int = 3
    batch: int = 512
    lr: float = 1e-4
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.1
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    depth: int = 2
    seed: int = 0
    device: str = "cpu"
    eval_games: int = 200
    value_warmup: int = 2  # first iterations that fit only the value head


class League:
    """The opponents: built-in bots and frozen snapshots of the learner, drawn by the rule in
    the module's docstring."""

    def __init__(self, cfg: LeagueConfig) -> None:
        self.cfg = cfg
        self.snapshots: list[Network] = []
        self.record: dict[str, list[float]] = {b: [] for b in cfg.bots}

    def weight(self, bot: str) -> float:
        """``(1 - w) ** 2 + 0.05``, ``w`` the win rate over the last 50 games (0.5 unplayed)."""
        recent = self.record[bot][-50:]
        w = sum(recent) / len(recent) if recent else 0.5
        return (1 - w) ** 2 + 0.05

    def draw(self, rng: random.Random) -> tuple[str, Bot]:
        """An opponent's name and a fresh bot of it."""
        if self.snapshots and rng.random() < self.cfg.self_play:
            k = rng.randrange(len(self.snapshots))
            return f"snapshot{k}", NetBot(self.snapshots[k])
        bots = list(self.cfg.bots)
        name = rng.choices(bots, weights=[self.weight(b) for b in bots])[0]
        return name, get_bot(name, seed=rng.randrange(1 << 30))

    def add(self, net: Network) -> None:
        """Freeze a snapshot, keeping the last ``snapshots``."""
        self.snapshots = (self.snapshots + [net])[-self.cfg.snapshots :]


@dataclass
class Rollout:
    """The learner's decisions of one iteration, with what PPO needs."""

    data: Decisions = field(default_factory=Decisions)
    logp: list[float] = field(default_factory=list)
    value: list[float] = field(default_factory=list)
    reward: list[float] = field(default_factory=list)
    done: list[bool] = field(default_factory=list)


def rollout(
    policy: Policy, league: League, cfg: LeagueConfig, rng: random.Random, device: torch.device
) -> tuple[Rollout, dict[str, list[float]]]:
    """``cfg.games`` games of the learner (sampling its moves) against drawn opponents."""
    ro = Rollout()
    results: dict[str, list[float]] = {}
    policy.eval()
    for g in range(cfg.games):
        name, opponent = league.draw(rng)
        me = g % 2
        game = Game.new(RuleSet(), 2, seed=rng.randrange(1 << 30))
        seats: list[Bot] = [opponent, opponent]
        seats[me] = Placeholder()
        seen_scores = list(game.scores)
        first = len(ro.data)

        def act(
            seat: int,
            view: PlayerView,
            move: Move,
            me: int = me,
            game: Game = game,
            seen_scores: list[int] = seen_scores,
            first: int = first,
        ) -> Move:
            if seat != me:
                return move
            if len(ro.data) > first:
                # Points scored since my last decision (a round that ended) are its reward.
                scores = game.scores
                ro.reward[-1] += (
                    (scores[1 - me] - seen_scores[1 - me]) - (scores[me] - seen_scores[me])
                ) / 100
                seen_scores[:] = scores
            moves = view.legal_moves
            state, rows = encode(view)
            with torch.no_grad():
                s = torch.from_numpy(state[None]).to(device)
                m = torch.from_numpy(rows).to(device)
                g0 = torch.zeros(len(rows), dtype=torch.long, device=device)
                lp = group_log_softmax(policy.logits(s, m, g0), g0, 1)
                k = int(torch.multinomial(lp.exp(), 1)) if len(moves) > 1 else 0
                v = float(policy.values(s)[0])
            if len(moves) > 1:  # a forced move teaches nothing; its reward joins the last
                ro.data.add(state, rows, k)
                ro.logp.append(float(lp[k]))
                ro.value.append(v)
                ro.reward.append(0.0)
                ro.done.append(False)
            return moves[k]

        finished = play(game, seats, act)
        won = 1.0 if me in game.winners else 0.0
        if finished and len(ro.data) > first:
            scores = game.scores
            ro.reward[-1] += (
                (scores[1 - me] - seen_scores[1 - me]) - (scores[me] - seen_scores[me])
            ) / 100 + (2 * won - 1)
        if len(ro.data) > first:
            ro.done[-1] = True
        results.setdefault(name, []).append(won)
    policy.train()
    return ro, results


def ppo_update(
    policy: Policy,
    opt: torch.optim.Optimizer,
    ro: Rollout,
    cfg: LeagueConfig,
    device: torch.device,
    value_only: bool,
) -> dict[str, float]:
    """GAE over each game's decisions, then clipped PPO epochs over minibatches."""
    n = len(ro.data)
    rewards = np.array(ro.reward, dtype=np.float64)
    values = np.array(ro.value, dtype=np.float64)
    adv = np.zeros(n)
    last = 0.0
    for i in range(n - 1, -1, -1):
        nonterminal = 0.0 if ro.done[i] else 1.0
        next_v = values[i + 1] if i + 1 < n and not ro.done[i] else 0.0
        delta = rewards[i] + cfg.gamma * next_v * nonterminal - values[i]
        last = delta + cfg.gamma * cfg.lam * nonterminal * last
        adv[i] = last
    returns = adv + values
    states, moves, offsets, taken = ro.data.arrays()
    old = np.array(ro.logp)
    stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": [], "kl": []}
    rng = np.random.default_rng(len(ro.logp))
    for _ in range(cfg.epochs):
        order = rng.permutation(n)
        for k in range(0, n, cfg.batch):
            ids = order[k : k + cfg.batch]
            rows, group, target = batch_of(ids, offsets, taken)
            s = torch.from_numpy(states[ids].astype(np.float32)).to(device)
            m = torch.from_numpy(moves[rows].astype(np.float32)).to(device)
            g = torch.from_numpy(group).to(device)
            t = torch.from_numpy(target).to(device)
            lp_all = group_log_softmax(policy.logits(s, m, g), g, len(ids))
            lp = lp_all[t]
            a = torch.from_numpy(adv[ids]).float().to(device)
            a = (a - a.mean()) / (a.std() + 1e-8) if len(ids) > 1 else a
            ratio = (lp - torch.from_numpy(old[ids]).float().to(device)).exp()
            pl = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            vl = (
                (policy.values(s) - torch.from_numpy(returns[ids]).float().to(device)) ** 2
            ).mean()
            ent = (
                -torch.zeros(len(ids), device=device).index_add(0, g, lp_all.exp() * lp_all).mean()
            )
            loss = cfg.vf_coef * vl if value_only else pl + cfg.vf_coef * vl - cfg.ent_coef * ent
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            opt.step()
            stats["policy_loss"].append(float(pl.detach()))
            stats["value_loss"].append(float(vl.detach()))
            stats["entropy"].append(float(ent.detach()))
            stats["kl"].append(
                float((torch.from_numpy(old[ids]).float().to(device) - lp).detach().mean())
            )
    return {k: float(np.mean(v)) for k, v in stats.items()}


def tensorboard(path: Path, log: Log) -> Any:
    """A SummaryWriter when TensorBoard is installed, else None (said in one line)."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        log("TensorBoard is not installed: no TensorBoard logs (pip install tensorboard)")
        return None
    return SummaryWriter(str(path))


def run_league(
    cfg: LeagueConfig,
    out: Path,
    command: str,
    init: Path | None = None,
    resume: Path | None = None,
    log: Log = print,
) -> dict[str, Any]:
    """Stage 2: league PPO from ``init`` weights (or a checkpoint), checkpoints, the export."""
    device = pick_device(cfg.device)
    out.mkdir(parents=True, exist_ok=True)
    policy = Policy(cfg.hidden, cfg.depth).to(device)
    opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    league = League(cfg)
    rng = random.Random(cfg.seed)
    start = 0
    cpu_before = 0.0
    init_meta: dict[str, Any] | None = None
    history: list[dict[str, Any]] = []
    if resume is not None:
        ckpt = torch.load(resume, map_location=device, weights_only=False)
        policy.load_state_dict(ckpt["policy"])
        opt.load_state_dict(ckpt["optimizer"])
        league.snapshots = [Network(tuple(map(tuple, s)), {}) for s in ckpt["snapshots"]]
        league.record = ckpt["record"]
        rng.setstate(ckpt["rng"])
        start, cpu_before, history = ckpt["iteration"], ckpt["cpu_seconds"], ckpt["history"]
        init_meta = ckpt.get("init_meta")
        log(f"resumed from {resume} at iteration {start}")
    elif init is not None:
        first = Network.load(init)
        policy.load_network(first)
        init_meta = first.meta  # what made the starting weights (the cloning run's cost)
        log(f"starting from {init}")
    writer = tensorboard(out / "tb", log)
    t0 = time.process_time()

    def checkpoint(iteration: int) -> None:
        torch.save(
            {
                "policy": policy.state_dict(),
                "optimizer": opt.state_dict(),
                "snapshots": [[(w, b) for w, b in s.layers] for s in league.snapshots],
                "record": league.record,
                "rng": rng.getstate(),
                "iteration": iteration,
                "cpu_seconds": cpu_before + time.process_time() - t0,
                "history": history,
                "config": asdict(cfg),
                "init_meta": init_meta,
            },
            out / "league.pt",
        )

    if not league.snapshots:
        league.add(policy.to_network({}))
    for it in range(start, cfg.iterations):
        ro, results = rollout(policy, league, cfg, rng, device)
        for name, won in results.items():
            if name in league.record:
                league.record[name].extend(won)
        stats = ppo_update(policy, opt, ro, cfg, device, value_only=it < cfg.value_warmup)
        rates = {k: sum(v) / len(v) for k, v in results.items()}
        history.append({"iteration": it + 1, "decisions": len(ro.data), **stats, "wins": rates})
        log(
            f"iteration {it + 1}: {len(ro.data)} decisions, policy {stats['policy_loss']:.3f}, "
            f"value {stats['value_loss']:.3f}, entropy {stats['entropy']:.3f}, wins "
            + ", ".join(f"{k} {v:.2f}" for k, v in sorted(rates.items()))
        )
        if writer is not None:
            for k, v in stats.items():
                writer.add_scalar(f"loss/{k}", v, it + 1)
            for k, v in rates.items():
                writer.add_scalar(f"wins/{k}", v, it + 1)
        if (it + 1) % cfg.snapshot_every == 0:
            league.add(policy.to_network({}))
        if (it + 1) % cfg.checkpoint_every == 0 or it + 1 == cfg.iterations:
            checkpoint(it + 1)
    cpu = cpu_before + time.process_time() - t0
    meta: dict[str, Any] = {
        "stage": "league",
        "command": command,
        "seed": cfg.seed,
        "config": asdict(cfg),
        "init": None if init is None else str(init),
        "init_meta": init_meta,
        "cpu_seconds": round(cpu, 1),
        "iterations": cfg.iterations,
    }
    path = out / "learned.npz"
    policy.to_network(meta).save(path)
    log(f"wrote {path} ({path.stat().st_size:,} bytes) after {cpu:.0f} CPU seconds")
    meta["evaluation"] = evaluation(Network.load(path), cfg.eval_games, cfg.seed + 77, log)
    if writer is not None:
        for k, v in meta["evaluation"].items():
            writer.add_scalar(f"eval/{k}", v["win_rate"], cfg.iterations)
        writer.close()
    meta["history"] = history
    (out / "learned.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


# ----------------------------------------------------------------- evaluation


def evaluation(
    net: Network,
    games: int,
    seed: int,
    log: Log,
    against: Sequence[str] = ("random", "easy", "medium"),
) -> dict[str, dict[str, Any]]:
    """Duplicate-deal games of the greedy network against each bot, with Wilson intervals."""
    out: dict[str, dict[str, Any]] = {}
    for bot in against:
        t0 = time.perf_counter()
        e = evaluate(NetBot(net), against=[bot], games=games, players=2, seed=seed)
        out[bot] = {
            "games": e.games,
            "wins": e.wins,
            "win_rate": e.win_rate,
            "ci95": list(e.ci95),
            "points_per_round": e.points_per_round,
            "capped": e.capped,
            "errors": len(e.errors),
        }
        log(
            f"against {bot}: {e.wins:g}/{e.games} won, {e.win_rate:.1%} "
            f"(95% {e.ci95[0]:.1%}-{e.ci95[1]:.1%}), {time.perf_counter() - t0:.0f} s"
        )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: ``bc``, ``league`` or ``eval``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="stage", required=True)
    bc = sub.add_parser("bc", help="behaviour cloning of the expert (+ DAgger)")
    lg = sub.add_parser("league", help="league self-play PPO")
    ev = sub.add_parser("eval", help="evaluate a weight file against random, easy, medium")
    for sp, c in ((bc, BCConfig()), (lg, LeagueConfig())):
        for name, value in asdict(c).items():
            flag = "--" + name.replace("_", "-")
            if isinstance(value, tuple):
                sp.add_argument(flag, default=",".join(value), help=f"default {value}")
            else:
                sp.add_argument(flag, type=type(value), default=value, help=f"default {value}")
        sp.add_argument("--out", type=Path, required=True, help="folder of the results")
        sp.add_argument("--threads", type=int, default=1, help="torch CPU threads (1)")
    lg.add_argument("--init", type=Path, help="start from this weight file (a bc export)")
    lg.add_argument("--resume", type=Path, help="go on from this checkpoint (league.pt)")
    ev.add_argument("weights", type=Path)
    ev.add_argument("--games", type=int, default=1000)
    ev.add_argument("--seed", type=int, default=1)
    ev.add_argument("--against", default="random,easy,medium")
    ev.add_argument("--json", type=Path, help="write the figures here")
    args = p.parse_args(argv)
    command = "python examples/train_league.py " + " ".join(argv or sys.argv[1:])
    if args.stage == "eval":
        net = Network.load(args.weights)
        t0 = time.process_time()
        figures = evaluation(net, args.games, args.seed, print, args.against.split(","))
        if args.json:  # the weights' own record, and these figures with how they were made
            report = {
                **net.meta,
                "evaluation": figures,
                "evaluation_command": command,
                "evaluation_cpu_seconds": round(time.process_time() - t0, 1),
            }
            args.json.write_text(json.dumps(report, indent=1) + "\n")
        return
    torch.set_num_threads(args.threads)
    config_type: Any = BCConfig if args.stage == "bc" else LeagueConfig
    values: dict[str, Any] = {}
    for name, default in asdict(config_type()).items():
        v = getattr(args, name)
        values[name] = tuple(v.split(",")) if isinstance(default, tuple) else v
    if args.stage == "bc":
        run_bc(BCConfig(**values), args.out, command)
    else:
        run_league(LeagueConfig(**values), args.out, command, args.init, args.resume)


if __name__ == "__main__":
    main()
