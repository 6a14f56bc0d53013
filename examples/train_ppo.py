"""Train a small PPO agent (PyTorch, CPU) on ``yaniv/Yaniv-v0`` against the package's bots.

A masked-action PPO: an MLP reads the observation, its policy head scores every entry of the
action table, and the illegal entries (mask 0) are set to a large negative logit before the
softmax, so the agent only ever samples legal moves. Several environments run side by side in
one process (one batched forward pass per step); each is a two-player standard game with the
learner in seat 0 or 1 and the opponent ``random`` or ``easy``. Every ``--eval-every`` seconds
the greedy policy plays fixed evaluation deals against ``random`` and ``easy``; at the end it
plays ``--final-games`` more against each, and the win rates over training are drawn to a PNG
and written to JSON with their 95% Wilson intervals.

    pip install 'yaniv[train]'
    python examples/train_ppo.py --minutes 15 --out examples/results

docs/training.md describes the run and its figures. The smoke test (tests/test_examples.py)
runs one tiny update so this file cannot rot.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from yaniv.arena import wilson
from yaniv.cards import VALUE
from yaniv.envs import ActionTable, YanivEnv
from yaniv.moves import Discard, Draw, Slap, Yaniv

#: The logit given to illegal actions: exp() of it is exactly 0 in float32.
MASKED = -1e9


@dataclass(frozen=True)
class Config:
    """Everything that defines a run (written with the results)."""

    rules: str = "standard"
    players: int = 2
    opponents: tuple[str, ...] = ("random", "easy", "easy", "easy")
    envs: int = 16
    steps: int = 128  # per environment per update
    epochs: int = 4
    minibatch: int = 512
    lr: float = 3e-4
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    reward: str = "points"  # "points" (minus own points each round) or "win_loss"
    reward_scale: float = 0.01
    max_episode_steps: int = 3000  # a learner's game longer than this is cut (truncated)
    seed: int = 0
    minutes: float = 15.0
    updates: int = 0  # stop after this many updates (0: only the time limit)
    eval_every: float = 60.0  # seconds of training between evaluations
    eval_games: int = 200  # per opponent, at each evaluation
    final_games: int = 1000  # per opponent, at the end
    eval_opponents: tuple[str, ...] = ("random", "easy")


def action_features(table: ActionTable) -> NDArray[np.float32]:
    """A fixed description of every action: its kind, the cards it lays, the card it takes.

    The policy scores an action as a learned function of the state dotted with these
    features (plus a bias of its own), so what it learns about one discard (shedding a high
    card, say) carries over to the discards that share its cards, instead of each of the
    thousands of entries being learned alone.
    """
    size = 6 + 54 + 54 + 6
    out = np.zeros((len(table), size), dtype=np.float32)
    for i, move in enumerate(table.moves):
        row = out[i]
        if isinstance(move, Yaniv):
            row[0] = 1
        elif isinstance(move, Discard):
            row[1] = 1
            for c in move.cards:
                row[6 + c] = 1
            naturals = {c % 13 for c in move.cards if c < 52}
            kind = 0 if len(move.cards) == 1 else 1 if len(naturals) <= 1 else 2
            row[114 + kind] = 1  # single, set, run
            row[117] = len(move.cards) / 5
            row[118] = move.value / 50
        elif isinstance(move, Draw):
            if move.card is None:
                row[2] = 1
            else:
                row[3] = 1
                row[60 + move.card] = 1
                row[119] = VALUE[move.card] / 10
        elif isinstance(move, Slap):
            row[4] = 1
            row[60 + move.card] = 1
        else:  # pass
            row[5] = 1
    return out


class Policy(nn.Module):
    """An MLP with a masked policy head over the action table and a value head.

    An action's logit is the state's embedding dotted with the action's features
    (:func:`action_features`), plus a learned bias per action.
    """

    def __init__(self, obs_size: int, features: NDArray[np.float32], hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.features: torch.Tensor
        self.register_buffer("features", torch.from_numpy(features.T.copy()))
        self.pi = nn.Linear(hidden, features.shape[1])
        self.bias = nn.Parameter(torch.zeros(features.shape[0]))
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities of the actions (illegal ones far below any legal one), and values."""
        h = self.body(obs)
        logits = (self.pi(h) @ self.features + self.bias).masked_fill(~mask, MASKED)
        return torch.log_softmax(logits, dim=-1), self.v(h).squeeze(-1)


def make_env(cfg: Config, opponent: str, seat: int, rewards: str) -> YanivEnv:
    """One two-player (or ``cfg.players``) environment, illegal actions raising."""
    return YanivEnv(cfg.rules, cfg.players, opponent, seat=seat, rewards=rewards, illegal="raise")


def stack(obs: Sequence[dict[str, NDArray[Any]]]) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of observations as tensors: float features, boolean masks."""
    x = torch.from_numpy(np.stack([o["observation"] for o in obs]))
    m = torch.from_numpy(np.stack([o["action_mask"] for o in obs]).astype(np.bool_))
    return x, m


# ----------------------------------------------------------------- evaluation


def evaluate(
    policy: Policy, cfg: Config, opponent: str, games: int, seed: int, parallel: int = 16
) -> dict[str, Any]:
    """The greedy policy's game wins against ``opponent`` over ``games`` fixed deals.

    Game ``g`` is dealt from seed ``seed + g`` with the learner in seat ``g % players``,
    whatever the batching, so the same policy always gets the same figure.
    """
    k = max(1, min(parallel, games))
    slots: list[tuple[YanivEnv, int, dict[str, NDArray[Any]], int]] = []  # env, game, obs, steps
    next_game = 0
    wins = 0
    played = 0
    pool: list[list[YanivEnv]] = [[] for _ in range(cfg.players)]

    def start(g: int) -> tuple[YanivEnv, int, dict[str, NDArray[Any]], int]:
        seat = g % cfg.players
        env = pool[seat].pop() if pool[seat] else make_env(cfg, opponent, seat, "win_loss")
        obs, _ = env.reset(seed=seed + g)
        return env, g, obs, 0

    while next_game < k:
        slots.append(start(next_game))
        next_game += 1
    with torch.no_grad():
        while slots:
            x, m = stack([s[2] for s in slots])
            logp, _ = policy(x, m)
            actions = logp.argmax(dim=-1).tolist()
            kept = []
            for (env, g, _obs, n), a in zip(slots, actions, strict=True):
                obs, reward, done, _, _ = env.step(int(a))
                n += 1
                if done or n >= cfg.max_episode_steps:
                    played += 1
                    wins += done and reward > 0
                    pool[env.seat].append(env)
                    if next_game < games:
                        kept.append(start(next_game))
                        next_game += 1
                else:
                    kept.append((env, g, obs, n))
            slots = kept
    lo, hi = wilson(wins, played)
    return {
        "opponent": opponent,
        "games": played,
        "wins": wins,
        "win_rate": wins / played,
        "ci95": [lo, hi],
    }


# ----------------------------------------------------------------- PPO


@dataclass
class Batch:
    """One rollout, flattened over time and environments."""

    obs: torch.Tensor
    mask: torch.Tensor
    actions: torch.Tensor
    logp: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor


class Rollouts:
    """``cfg.envs`` environments stepped together, the policy sampling their actions."""

    def __init__(self, cfg: Config, policy: Policy) -> None:
        self.cfg = cfg
        self.policy = policy
        self.rng = np.random.default_rng(cfg.seed)
        self.envs = [
            make_env(
                cfg,
                cfg.opponents[i % len(cfg.opponents)],
                (i // len(cfg.opponents)) % cfg.players,
                cfg.reward,
            )
            for i in range(cfg.envs)
        ]
        self.obs = [env.reset(seed=self._seed())[0] for env in self.envs]
        self.lengths = [0] * cfg.envs
        self.returns = [0.0] * cfg.envs
        self.finished: list[tuple[str, float, int]] = []  # opponent, return, length
        self.steps = 0

    def _seed(self) -> int:
        return int(self.rng.integers(2**31))

    def collect(self) -> Batch:
        """Play ``cfg.steps`` steps in every environment; advantages by GAE(lambda)."""
        cfg, n, t_max = self.cfg, self.cfg.envs, self.cfg.steps
        obs_size = self.obs[0]["observation"].shape[0]
        actions_n = self.obs[0]["action_mask"].shape[0]
        obs = torch.zeros((t_max, n, obs_size))
        mask = torch.zeros((t_max, n, actions_n), dtype=torch.bool)
        acts = torch.zeros((t_max, n), dtype=torch.long)
        logps = torch.zeros((t_max, n))
        values = torch.zeros((t_max + 1, n))
        rewards = torch.zeros((t_max, n))
        dones = torch.zeros((t_max, n))
        with torch.no_grad():
            for t in range(t_max):
                x, m = stack(self.obs)
                logp, v = self.policy(x, m)
                a = torch.multinomial(logp.exp(), 1).squeeze(-1)
                obs[t], mask[t], acts[t], values[t] = x, m, a, v
                logps[t] = logp.gather(1, a.unsqueeze(-1)).squeeze(-1)
                for i, env in enumerate(self.envs):
                    o, r, done, _, _ = env.step(int(a[i]))
                    self.lengths[i] += 1
                    self.returns[i] += r
                    rewards[t, i] = r * cfg.reward_scale
                    if done or self.lengths[i] >= cfg.max_episode_steps:
                        dones[t, i] = 1.0
                        self.finished.append(
                            (
                                cfg.opponents[i % len(cfg.opponents)],
                                self.returns[i],
                                self.lengths[i],
                            )
                        )
                        self.lengths[i], self.returns[i] = 0, 0.0
                        o, _ = env.reset(seed=self._seed())
                    self.obs[i] = o
            x, m = stack(self.obs)
            values[t_max] = self.policy(x, m)[1]
        self.steps += t_max * n
        advantages = torch.zeros((t_max, n))
        last = torch.zeros(n)
        for t in reversed(range(t_max)):
            live = 1.0 - dones[t]
            delta = rewards[t] + cfg.gamma * values[t + 1] * live - values[t]
            last = delta + cfg.gamma * cfg.lam * live * last
            advantages[t] = last
        returns = advantages + values[:t_max]
        return Batch(
            obs.flatten(0, 1),
            mask.flatten(0, 1),
            acts.flatten(),
            logps.flatten(),
            advantages.flatten(),
            returns.flatten(),
        )


def ppo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    cfg: Config,
    rng: torch.Generator,
) -> dict[str, float]:
    """``cfg.epochs`` passes of clipped PPO over the batch; the mean losses of the last."""
    size = batch.actions.shape[0]
    stats: dict[str, float] = {}
    for _ in range(cfg.epochs):
        order = torch.randperm(size, generator=rng)
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0}
        count = 0
        for start in range(0, size, cfg.minibatch):
            idx = order[start : start + cfg.minibatch]
            logp_all, value = policy(batch.obs[idx], batch.mask[idx])
            logp = logp_all.gather(1, batch.actions[idx].unsqueeze(-1)).squeeze(-1)
            adv = batch.advantages[idx]
            if adv.numel() > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            ratio = (logp - batch.logp[idx]).exp()
            policy_loss = -torch.min(
                ratio * adv, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * adv
            ).mean()
            value_loss = 0.5 * (value - batch.returns[idx]).pow(2).mean()
            entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
            loss = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = (batch.logp[idx] - logp).mean()
            sums["policy_loss"] += policy_loss.item()
            sums["value_loss"] += value_loss.item()
            sums["entropy"] += entropy.item()
            sums["approx_kl"] += kl.item()
            count += 1
        stats = {k: v / count for k, v in sums.items()}
    return stats


# ----------------------------------------------------------------- the run


def new_policy(cfg: Config) -> Policy:
    """A freshly initialised policy sized for the rule set and table size."""
    probe = make_env(cfg, "random", 0, cfg.reward)
    return Policy(int(probe.observer.size), action_features(probe.table), cfg.hidden)


def train(cfg: Config, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train for ``cfg.minutes`` (or ``cfg.updates`` updates); the history and final figures."""
    torch.manual_seed(cfg.seed)
    policy = new_policy(cfg)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr, eps=1e-5)
    rollouts = Rollouts(cfg, policy)
    rng = torch.Generator().manual_seed(cfg.seed)
    history: list[dict[str, Any]] = []
    losses: list[dict[str, float]] = []
    started = time.perf_counter()
    eval_time = 0.0

    def checkpoint(update: int) -> None:
        nonlocal eval_time
        t0 = time.perf_counter()
        entry: dict[str, Any] = {
            "update": update,
            "steps": rollouts.steps,
            "train_seconds": round(t0 - started - eval_time, 1),
        }
        for i, opp in enumerate(cfg.eval_opponents):
            entry[opp] = evaluate(policy, cfg, opp, cfg.eval_games, seed=10_000_000 * (i + 1))
        eval_time += time.perf_counter() - t0
        history.append(entry)
        log(
            f"update {update:5d} steps {rollouts.steps:9d} "
            f"train {entry['train_seconds']:7.1f}s "
            + " ".join(f"{o} {entry[o]['win_rate']:.3f}" for o in cfg.eval_opponents)
        )

    if cfg.eval_games:
        checkpoint(0)
    last_eval = time.perf_counter() - eval_time
    update = 0
    while True:
        update += 1
        batch = rollouts.collect()
        stats = ppo_update(policy, optimizer, batch, cfg, rng)
        losses.append(stats)
        recent = rollouts.finished[-200:]
        if update % 10 == 0 and recent:
            log(
                f"update {update:5d} policy {stats['policy_loss']:+.4f} value "
                f"{stats['value_loss']:.4f} entropy {stats['entropy']:.3f} kl "
                f"{stats['approx_kl']:+.4f} episodes {len(rollouts.finished)} mean length "
                f"{np.mean([e[2] for e in recent]):.0f}"
            )
        now = time.perf_counter()
        train_seconds = now - started - eval_time
        done = (cfg.updates and update >= cfg.updates) or train_seconds >= 60 * cfg.minutes
        if cfg.eval_games and (done or now - eval_time - last_eval >= cfg.eval_every):
            checkpoint(update)
            last_eval = time.perf_counter() - eval_time
        if done:
            break
    train_seconds = time.perf_counter() - started - eval_time
    final: dict[str, Any] = {}
    t0 = time.perf_counter()
    if cfg.final_games:
        for i, opp in enumerate(cfg.eval_opponents):
            final[opp] = evaluate(policy, cfg, opp, cfg.final_games, seed=20_000_000 * (i + 1))
            log(
                f"final against {opp}: {final[opp]['wins']}/{final[opp]['games']} = "
                f"{final[opp]['win_rate']:.3f} (95% CI {final[opp]['ci95'][0]:.3f}-"
                f"{final[opp]['ci95'][1]:.3f})"
            )
    return {
        "config": asdict(cfg),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "updates": update,
        "steps": rollouts.steps,
        "episodes": len(rollouts.finished),
        "train_seconds": round(train_seconds, 1),
        "eval_seconds": round(eval_time, 1),
        "final_eval_seconds": round(time.perf_counter() - t0, 1),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "last_losses": losses[-1] if losses else {},
        "history": history,
        "final": final,
        "policy": policy,
    }


def plot(result: dict[str, Any], path: Path) -> None:
    """Win rate over training against each evaluation opponent, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = result["history"]
    fig, ax = plt.subplots(figsize=(7, 4))
    steps = [h["steps"] / 1000 for h in history]
    for opp, colour in zip(
        result["config"]["eval_opponents"], ("#4c72b0", "#dd8452"), strict=False
    ):
        rate = [h[opp]["win_rate"] for h in history]
        lo = [h[opp]["ci95"][0] for h in history]
        hi = [h[opp]["ci95"][1] for h in history]
        ax.plot(steps, rate, marker="o", markersize=3, color=colour, label=f"vs {opp}")
        ax.fill_between(steps, lo, hi, color=colour, alpha=0.2)
    ax.axhline(1 / result["config"]["players"], color="grey", linestyle="--", label="even")
    games = result["config"]["eval_games"]
    ax.set_xlabel("learner steps (thousands)")
    ax.set_ylabel(f"game win rate ({games} games, 95% CI)")
    ax.set_ylim(0, 1)
    minutes = result["train_seconds"] / 60
    ax.set_title(
        f"PPO on yaniv/Yaniv-v0, {result['config']['rules']} rules, "
        f"{result['config']['players']} players ({minutes:.0f} min on one CPU thread)"
    )
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: train, then write the figures, the plot and the weights."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=Config.minutes)
    parser.add_argument("--updates", type=int, default=0, help="stop after this many updates")
    parser.add_argument("--seed", type=int, default=Config.seed)
    parser.add_argument("--envs", type=int, default=Config.envs)
    parser.add_argument("--reward", choices=("points", "win_loss"), default=Config.reward)
    parser.add_argument("--eval-every", type=float, default=Config.eval_every, help="seconds")
    parser.add_argument("--eval-games", type=int, default=Config.eval_games)
    parser.add_argument("--final-games", type=int, default=Config.final_games)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", type=Path, default=Path("examples/results"))
    parser.add_argument(
        "--plot", type=Path, default=None, help="the PNG (default: OUT/training-winrate.png)"
    )
    args = parser.parse_args(argv)
    for name in ("minutes", "eval_every"):
        if not getattr(args, name) > 0 or not math.isfinite(getattr(args, name)):
            parser.error(
                f"--{name.replace('_', '-')} must be a positive number of "
                f"{'minutes' if name == 'minutes' else 'seconds'}"
            )
    for name in ("envs", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    for name in ("updates", "eval_games", "final_games"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must not be negative")
    torch.set_num_threads(args.threads)
    cfg = replace(
        Config(),
        minutes=args.minutes,
        updates=args.updates,
        seed=args.seed,
        envs=args.envs,
        reward=args.reward,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        final_games=args.final_games,
    )
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out {args.out}: cannot make the directory: {exc.strerror or exc}")
    if args.plot is not None and not args.plot.parent.is_dir():
        parser.error(f"--plot {args.plot}: the directory {args.plot.parent} does not exist")
    result = train(cfg)
    policy = result.pop("policy")
    torch.save(policy.state_dict(), args.out / "ppo-policy.pt")
    (args.out / "ppo-run.json").write_text(json.dumps(result, indent=2) + "\n")
    if result["history"]:
        plot(result, args.plot or args.out / "training-winrate.png")
    print(f"trained {result['train_seconds']:.0f}s, {result['steps']} steps; figures in {args.out}")


if __name__ == "__main__":
    main()
