"""Reinforcement-learning environments: PettingZoo (AEC) and Gymnasium, the action table, and
observations (a front end: nothing in the package imports it).

The action table and the observer need only numpy; the environments need the ``rl`` extra
(``pip install 'yaniv[rl]'``: PettingZoo and Gymnasium). Importing this package registers the
Gymnasium environment ``yaniv/Yaniv-v0`` when Gymnasium is installed.

>>> from yaniv.envs import action_table
>>> len(action_table("standard"))
2950
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import ActionTable, action_table, as_rules
from .observation import Observer

if TYPE_CHECKING:
    from .aec import IllegalActionError, env, raw_env
    from .gym_env import YanivEnv

GYM_ID = "yaniv/Yaniv-v0"

#: Names served from the modules that need the ``rl`` extra, imported on first use.
_LAZY = {"env": "aec", "raw_env": "aec", "IllegalActionError": "aec", "YanivEnv": "gym_env"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'yaniv.envs' has no attribute {name!r}")
    import importlib

    try:
        return getattr(importlib.import_module(f"yaniv.envs.{module}"), name)
    except ModuleNotFoundError as exc:
        if exc.name in ("pettingzoo", "gymnasium"):
            raise ModuleNotFoundError(
                f"yaniv.envs.{name} needs {exc.name}: pip install 'yaniv[rl]'", name=exc.name
            ) from exc
        raise


def _register() -> None:
    try:
        import gymnasium
    except ModuleNotFoundError:
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="yaniv.envs.gym_env:YanivEnv")


_register()

__all__ = [
    "GYM_ID",
    "ActionTable",
    "IllegalActionError",
    "Observer",
    "YanivEnv",
    "action_table",
    "as_rules",
    "env",
    "raw_env",
]
