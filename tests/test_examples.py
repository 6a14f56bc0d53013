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
