"""The PettingZoo environment for RLlib's multi-agent algorithms (the ``rllib`` extra).

``pip install -e '.[rllib]'`` (RLlib pins its own Gymnasium, 1.2.2 for Ray 2.60: install it in
an environment of its own rather than beside the ``dev`` extra), then::

    from yaniv.envs.rllib import ppo_config

    algo = ppo_config({"players": 2, "rounds": "one"}).build_algo()
    algo.train()

RLlib's PettingZoo wrapper around ``yaniv.envs.raw_env``, with each observation in the shape
RLlib's action-masking module expects (``ray.rllib.examples.rl_modules.classes.
action_masking_rlm.ActionMaskingTorchRLModule``): ``{"observations": ..., "action_mask": ...}``,
the mask as float32. :func:`ppo_config` is multi-agent PPO with one policy shared by every seat
and that module, so no illegal action is ever sampled.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import gymnasium
import numpy as np

from .aec import raw_env

_MISSING: ImportError | None = None
_Base: Any = object
try:  # RLlib is untyped: reached through import_module, as Any
    _Base = import_module("ray.rllib.env.wrappers.pettingzoo_env").PettingZooEnv
except ImportError as exc:  # the rllib extra is not installed: the module imports all the same
    _MISSING = exc


def _space(inner: Any) -> gymnasium.spaces.Dict:
    """The masked observation space of one agent."""
    actions = inner["action_mask"].shape[0]
    return gymnasium.spaces.Dict(
        {
            "observations": inner["observation"],
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (actions,), np.float32),
        }
    )


def _masked(obs: dict[str, Any]) -> dict[str, Any]:
    return {
        "observations": obs["observation"],
        "action_mask": obs["action_mask"].astype(np.float32),
    }


class YanivMultiAgentEnv(_Base):  # type: ignore[misc]
    """``yaniv.envs.raw_env(**config)`` as an RLlib MultiAgentEnv (turn-based: each step
    returns the observation of the agent to act next)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        if _MISSING is not None:
            raise ModuleNotFoundError(
                f"yaniv.envs.rllib needs RLlib: pip install 'yaniv[rllib]' ({_MISSING})"
            ) from _MISSING
        super().__init__(raw_env(**dict(config or {})))
        inner: dict[str, Any] = dict(self.observation_spaces)  # type: ignore[has-type]
        spaces: dict[str, Any] = {a: _space(s) for a, s in inner.items()}
        self.observation_spaces = spaces
        self.observation_space = gymnasium.spaces.Dict(spaces)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = super().reset(seed=seed, options=options)
        return {a: _masked(o) for a, o in obs.items()}, infos

    def step(self, action: dict[str, Any]) -> tuple[Any, ...]:
        obs, rewards, terminated, truncated, infos = super().step(action)
        return {a: _masked(o) for a, o in obs.items()}, rewards, terminated, truncated, infos


def ppo_config(env_config: dict[str, Any] | None = None) -> Any:
    """RLlib multi-agent PPO on Yaniv: one policy (``shared``) for every seat, with action
    masking; tune it further with the config's own methods (``.training(...)``...)."""
    if _MISSING is not None:
        raise ModuleNotFoundError(
            f"yaniv.envs.rllib needs RLlib: pip install 'yaniv[rllib]' ({_MISSING})"
        ) from _MISSING
    ppo: Any = import_module("ray.rllib.algorithms.ppo")
    multi: Any = import_module("ray.rllib.core.rl_module.multi_rl_module")
    single: Any = import_module("ray.rllib.core.rl_module.rl_module")
    masking: Any = import_module("ray.rllib.examples.rl_modules.classes.action_masking_rlm")

    return (
        ppo.PPOConfig()
        .environment(
            YanivMultiAgentEnv,
            env_config=dict(env_config or {}),
            disable_env_checking=True,  # its check steps random actions, most illegal
        )
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared",
        )
        .rl_module(
            rl_module_spec=multi.MultiRLModuleSpec(
                rl_module_specs={
                    "shared": single.RLModuleSpec(module_class=masking.ActionMaskingTorchRLModule)
                }
            )
        )
    )


__all__ = ["YanivMultiAgentEnv", "ppo_config"]
