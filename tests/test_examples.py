"""The training example (examples/train_ppo.py) still runs: one tiny PPO update, finite losses.

The real training is not part of the suite (docs/training.md); this only keeps the example from
rotting when the environments or the bots change.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_ppo.py"


@pytest.fixture(scope="module")
def train_ppo() -> ModuleType:
    """The example, imported from its file (examples/ is not a package)."""
    pytest.importorskip("torch")
    pytest.importorskip("gymnasium")
    spec = importlib.util.spec_from_file_location("train_ppo_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_one_tiny_update_gives_finite_losses_and_an_evaluation(train_ppo: ModuleType) -> None:
    import torch

    torch.set_num_threads(1)
    cfg = replace(
        train_ppo.Config(),
        envs=2,
        steps=8,
        epochs=1,
        minibatch=8,
        hidden=16,
        updates=1,
        eval_games=2,
        final_games=2,
    )
    lines: list[str] = []
    result = train_ppo.train(cfg, log=lines.append)
    assert result["updates"] == 1 and result["steps"] == 16
    losses = result["last_losses"]
    assert set(losses) == {"policy_loss", "value_loss", "entropy", "approx_kl"}
    assert all(math.isfinite(v) for v in losses.values())
    assert losses["entropy"] > 0  # sampling among several legal actions
    assert [h["update"] for h in result["history"]] == [0, 1]
    for opponent in ("random", "easy"):
        final = result["final"][opponent]
        assert final["games"] == 2 and 0 <= final["wins"] <= 2
    assert any(line.startswith("final against easy") for line in lines)


def test_masked_actions_are_never_chosen(train_ppo: ModuleType) -> None:
    import torch

    cfg = replace(train_ppo.Config(), hidden=16)
    policy = train_ppo.new_policy(cfg)
    env = train_ppo.make_env(cfg, "random", 0, "points")
    obs, _ = env.reset(seed=3)
    x, m = train_ppo.stack([obs])
    with torch.no_grad():
        logp, value = policy(x, m)
    probs = logp.exp()
    assert torch.all(probs[~m] == 0)
    assert float(probs[m].sum()) == pytest.approx(1.0, abs=1e-5)
    assert value.shape == (1,)


def test_the_plot_is_drawn(train_ppo: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    point = {"games": 10, "wins": 5, "win_rate": 0.5, "ci95": [0.2, 0.8]}
    result = {
        "config": {
            "eval_opponents": ["random", "easy"],
            "players": 2,
            "eval_games": 10,
            "rules": "standard",
        },
        "train_seconds": 60.0,
        "history": [{"steps": s, "random": point, "easy": point} for s in (0, 1000)],
    }
    train_ppo.plot(result, tmp_path / "w.png")
    assert (tmp_path / "w.png").stat().st_size > 1000


LEAGUE = EXAMPLE.with_name("train_league.py")


@pytest.fixture(scope="module")
def train_league() -> ModuleType:
    """examples/train_league.py, imported from its file."""
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("train_league_example", LEAGUE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_league_example_clones_trains_resumes_and_exports(
    train_league: ModuleType, tmp_path: Path
) -> None:
    """One tiny pass of each stage: cloning with a DAgger round, two league iterations with a
    checkpoint, a resumed third, and weight files the learned level plays legally with."""
    import torch

    from yaniv import Game
    from yaniv.bots.learned_net import Network

    torch.set_num_threads(1)
    lines: list[str] = []
    bc = train_league.BCConfig(
        games=2, dagger=1, dagger_games=1, epochs=1, batch=32, hidden=16, eval_games=2
    )
    meta = train_league.run_bc(bc, tmp_path / "bc", "test", log=lines.append)
    assert meta["fits"][-1]["decisions"] > meta["fits"][0]["decisions"] > 0
    assert set(meta["evaluation"]) == {"random", "easy", "medium"}
    assert meta["evaluation"]["easy"]["games"] == 2
    init = tmp_path / "bc" / "learned.npz"

    league = train_league.LeagueConfig(
        iterations=2,
        games=2,
        hidden=16,
        checkpoint_every=1,
        snapshot_every=1,
        eval_games=2,
        value_warmup=1,
        batch=64,
    )
    out = tmp_path / "league"
    train_league.run_league(league, out, "test", init=init, log=lines.append)
    ckpt = torch.load(out / "league.pt", weights_only=False)
    assert ckpt["iteration"] == 2 and len(ckpt["history"]) == 2
    assert any("TensorBoard" in line for line in lines) or (out / "tb").exists()
    more = train_league.LeagueConfig(**{**league.__dict__, "iterations": 3})
    result = train_league.run_league(more, out, "test", resume=out / "league.pt", log=lines.append)
    assert [h["iteration"] for h in result["history"]] == [1, 2, 3]
    assert any(line.startswith("resumed from") for line in lines)
    assert result["init_meta"]["stage"] == "bc"  # the cost of the start carried through
    for h in result["history"][1:]:
        assert all(math.isfinite(h[k]) for k in ("policy_loss", "value_loss", "entropy"))

    net = Network.load(out / "learned.npz")
    game = Game.new(players=3, seed=1)
    for _ in range(60):
        if game.phase.name in ("ROUND_OVER", "GAME_OVER"):
            break
        move = net.choose(game.view(game.to_move))
        assert game.is_legal(move)
        game.apply(move)


def test_league_export_matches_torch(train_league: ModuleType) -> None:
    """The numpy network scores moves as the torch policy does, and the league's opponent
    rule favours the bots the learner loses to."""
    import numpy as np
    import torch

    from yaniv import Game
    from yaniv.bots.learned_net import encode

    policy = train_league.Policy(hidden=16)
    net = policy.to_network({})
    game = Game.new(players=2, seed=4)
    state, rows = encode(game.view(game.to_move))
    g = torch.zeros(len(rows), dtype=torch.long)
    with torch.no_grad():
        want = policy.logits(torch.from_numpy(state[None]), torch.from_numpy(rows), g).numpy()
    assert np.allclose(net.logits(state, rows), want, atol=1e-5)

    league = train_league.League(train_league.LeagueConfig(bots=("easy", "medium")))
    league.record = {"easy": [1.0] * 50, "medium": [0.0] * 50}
    assert league.weight("medium") > 10 * league.weight("easy")
