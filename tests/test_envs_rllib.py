"""RLlib's multi-agent PPO on the PettingZoo env (the ``rllib`` extra; skipped without it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("ray.rllib.algorithms.ppo")
pytest.importorskip("torch")

from yaniv.envs.rllib import YanivMultiAgentEnv, ppo_config  # noqa: E402


def test_the_env_gives_masked_observations_in_rllibs_shape() -> None:
    env = YanivMultiAgentEnv({"players": 3, "rounds": "one"})
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(60):
        (agent,) = obs
        assert env.observation_spaces[agent].contains(obs[agent])
        mask = obs[agent]["action_mask"]
        assert mask.dtype == np.float32 and mask.sum() >= 1
        obs, _rewards, terminated, _truncated, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(mask)))}
        )
        if terminated["__all__"]:
            obs, _ = env.reset()


def test_multi_agent_ppo_trains_one_iteration_with_legal_actions_only() -> None:
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        config = (
            ppo_config({"players": 2, "rounds": "one"})
            .env_runners(num_env_runners=0, rollout_fragment_length=64)
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
            .debugging(seed=1)
        )
        algo = config.build_algo()
        result = algo.train()  # an illegal action would raise IllegalActionError here
        algo.stop()
    finally:
        ray.shutdown()
    losses = result["learners"]["shared"]
    assert math.isfinite(float(losses["total_loss"]))
    assert result["env_runners"]["num_env_steps_sampled"] >= 128
