"""The batched environment: the same games as each single environment, written in place."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from yaniv.envs import YanivEnv  # noqa: E402
from yaniv.envs.aec import IllegalActionError  # noqa: E402
from yaniv.envs.vector import BatchedYanivEnv  # noqa: E402
from yaniv.errors import SetupError  # noqa: E402


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize(
    ("players", "opponents", "options"),
    [(2, "random", {"rounds": "one"}), (3, "easy", {"rewards": "points", "rounds": "one"})],
)
def test_the_batch_steps_the_single_envs_with_the_same_seeds(
    players: int, opponents: str, options: dict[str, str]
) -> None:
    n = 4
    batch = BatchedYanivEnv(n, players=players, opponents=opponents, **options)
    singles = [YanivEnv(players=players, opponents=opponents, **options) for _ in range(n)]
    obs, _ = batch.reset(seed=10)
    single = [e.reset(seed=10 + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    episodes = 0
    for _step in range(150):
        for i in range(n):
            assert np.array_equal(obs["observation"][i], single[i]["observation"])
            assert np.array_equal(obs["action_mask"][i], single[i]["action_mask"])
        actions = [_pick(single[i]["action_mask"], rng) for i in range(n)]
        if _step == 7:
            actions[1] = int(np.flatnonzero(single[1]["action_mask"] == 0)[0])  # illegal
        obs, rewards, terms, truncs, infos = batch.step(np.array(actions))
        for i, e in enumerate(singles):
            o, r, done, trunc, info = e.step(actions[i])
            assert rewards[i] == r and terms[i] == done and not truncs[i]
            assert bool(info.get("illegal_action")) == bool(
                "illegal_action" in infos and infos["illegal_action"][i]
            )
            if done:
                episodes += 1
                assert infos["_final_obs"][i]
                assert np.array_equal(infos["final_obs"][i], o["observation"])
                o, _ = e.reset()  # same-step autoreset: the next episode, no new seed
            single[i] = o
    assert episodes >= n  # episodes ended and were reset inside the comparison


def test_the_arrays_are_rewritten_in_place_unless_copy() -> None:
    batch = BatchedYanivEnv(3, players=2)
    obs, _ = batch.reset(seed=1)
    assert obs["observation"] is batch.observations and obs["action_mask"] is batch.masks
    assert obs["observation"].shape == (3, batch.single_observation_space["observation"].shape[0])
    assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.float32
    again, *_ = batch.step([_pick(m, np.random.default_rng(1)) for m in obs["action_mask"]])
    assert again["observation"] is obs["observation"]
    copied = BatchedYanivEnv(2, players=2, copy=True)
    first, _ = copied.reset(seed=1)
    second, *_ = copied.step([_pick(m, np.random.default_rng(1)) for m in first["action_mask"]])
    assert first["observation"] is not second["observation"]
    assert not np.array_equal(first["action_mask"], second["action_mask"])


def test_bad_batches_and_actions_are_refused_in_words() -> None:
    with pytest.raises(SetupError, match="num_envs"):
        BatchedYanivEnv(0)
    batch = BatchedYanivEnv(2, illegal="raise")
    with pytest.raises(SetupError, match="before reset"):
        batch.step([0, 0])
    obs, _ = batch.reset(seed=3)
    with pytest.raises(IllegalActionError, match="one action per game"):
        batch.step([0])
    bad = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 0: illegal action"):
        batch.step([bad, _pick(obs["action_mask"][1], np.random.default_rng(0))])
