"""The OpenSpiel game: OpenSpiel's own checks, its chance nodes, and what each player sees."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

try:
    import pyspiel

    import yaniv.envs.openspiel as yos
except ImportError:  # the openspiel extra is not installed: under CI, that is an error
    if os.environ.get("CI"):
        raise
    pytest.skip(
        "open_spiel is not installed (pip install -e '.[openspiel]')", allow_module_level=True
    )

from yaniv.cards import cards_of
from yaniv.envs import action_table
from yaniv.envs.observation import Observer
from yaniv.errors import RuleError


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2},
        {"players": 3, "preset": "draw_first"},
        {
            "players": 4,
            "preset": "slapdown",
            "options": "slap_empty_hand=yaniv_now,joker_pair=true",
        },
        {"players": 5, "preset": "hebrew", "options": "assaf_ties=clockwise,max_set=3"},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_openspiels_random_simulation_checks_pass(params: dict[str, object]) -> None:
    game = pyspiel.load_game(yos.SHORT_NAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def _play_to_end(state: pyspiel.State, rng: random.Random) -> list[tuple[int, int]]:
    """Random play to the end; the (player, action) history, chance as -1."""
    history = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            action = rng.choice([a for a, _ in outcomes])
            history.append((-1, action))
        else:
            legal = state.legal_actions()
            yaniv = 0 if 0 in legal else None
            action = yaniv if yaniv is not None and rng.random() < 0.5 else rng.choice(legal)
            history.append((state.current_player(), action))
        state.apply_action(action)
    return history


def test_a_stock_draw_is_a_chance_node_over_the_stock() -> None:
    game = pyspiel.load_game(yos.SHORT_NAME, {"players": 2})
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(2 * 5 + 1):  # the deal: two hands of five, then the card turned up
        assert state.is_chance_node()
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    assert state.current_player() == 1  # seat 1 starts (R6)
    table = action_table(yos.rules_of({}))
    first = next(a for a in state.legal_actions() if a != table.yaniv)
    state.apply_action(first)  # a discard
    state.apply_action(table.stock)  # draw from the stock: chance picks the card
    assert state.is_chance_node()
    stock = sorted(state.game.stock)
    assert [a for a, _ in state.chance_outcomes()] == stock and len(stock) == 54 - 11
    card = stock[7]
    state.apply_action(card)
    assert card in state.game.hand(1) and state.current_player() == 0


def test_returns_are_zero_sum_and_the_winner_gets_one() -> None:
    rng = random.Random(5)
    for players in (2, 3, 6):
        game = pyspiel.load_game(yos.SHORT_NAME, {"players": players})
        for _ in range(3):
            state = game.new_initial_state()
            _play_to_end(state, rng)
            returns = state.returns()
            assert abs(sum(returns)) < 1e-9
            if not state.truncated:
                assert returns[state.game.result.winner] == 1.0


def test_what_a_player_sees_is_its_own() -> None:
    game = pyspiel.load_game(yos.SHORT_NAME, {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(9)
    steps = 0
    while not state.is_terminal() and steps < 30:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    assert state.game is not None
    observer = Observer(yos.rules_of({}), 3)
    for p in range(3):
        obs = np.array(state.observation_tensor(p), dtype=np.float32)
        assert np.array_equal(obs, observer.write(state.game, p))  # the environments' own
        info = state.information_state_tensor(p)
        assert len(info) == observer.size + 2 * 54 * 3 + 1
        assert f'"seat":{p}' in state.information_state_string(p)
    # A card another seat holds unseen (not taken from the pile) is in no string of p's.
    # (A short game: no refill has yet sent a card seen on the pile back into the stock.)
    for p in range(3):
        texts = state.information_state_string(p) + state.observation_string(p)
        for q in range(3):
            if q != p:
                for c in set(state.game.hand(q)) - set(cards_of(state.game.known[q])):
                    assert f'"{yos.NAMES[c]}"' not in texts, (p, q, yos.NAMES[c])


def test_bad_parameters_are_refused_in_words() -> None:
    with pytest.raises(RuleError, match="unknown option 'wildcards'"):
        pyspiel.load_game(yos.SHORT_NAME, {"players": 2, "options": "wildcards=3"})
    with pytest.raises(Exception, match="Yaniv is played by 2 to 8"):
        pyspiel.load_game(yos.SHORT_NAME, {"players": 9})


@pytest.mark.parametrize(
    "params",
    [
        {"players": 3},
        {"players": 2, "preset": "draw_first"},
        {"players": 3, "preset": "slapdown", "options": "hand_size=3"},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_resampled_states_keep_the_information_state_and_deal_the_hidden_cards_again(
    params: dict[str, object],
) -> None:
    game = pyspiel.load_game(yos.SHORT_NAME, params)
    rng = random.Random(4)
    state = game.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    decisions = moved = 0
    while not state.is_terminal() and decisions < 40:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        player = state.current_player()
        decisions += 1
        for _ in range(3):
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.legal_actions() == state.legal_actions()
            others = [s for s in range(game.num_players()) if s != player]
            assert world.game.hands[player] == state.game.hands[player]
            moved += any(world.game.hands[s] != state.game.hands[s] for s in others)
        legal = state.legal_actions()
        state.apply_action(rng.choice([a for a in legal if a != 0] or legal))
    assert moved >= decisions  # the others' hidden cards are dealt again, not copied


def test_the_ismcts_example_plays_rounds_against_random() -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "openspiel_ismcts.py"
    spec = importlib.util.spec_from_file_location("openspiel_ismcts_example", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.play(1, 4, params={"options": example.SMALL, "max_moves": 120})
    assert result["rounds"] == 1 and result["wins"] in (0, 1)
    low, high = result["ci95"]
    assert 0 <= low <= result["win_rate"] <= high <= 1


def test_the_history_tensor_has_perfect_recall() -> None:
    # With history_tensor, the information state tensor holds every event the player saw, in
    # order: two states share a tensor exactly when they share an information state string.
    from yaniv.events import Dealt, Discarded, Drew, Passed, Refilled, Showdown, Slapped

    params = {"players": 3, "preset": "slapdown", "options": "hand_size=3", "max_moves": 80}
    game = pyspiel.load_game(yos.SHORT_NAME, {**params, "history_tensor": True})
    plain = pyspiel.load_game(yos.SHORT_NAME, params)
    n = 3
    width = n + len(yos.HISTORY_KINDS) + 54
    assert game.information_state_tensor_size() == (
        plain.information_state_tensor_size() + 54 + 54 + 80 * width
    )
    by_string: dict[str, bytes] = {}
    by_tensor: dict[bytes, str] = {}
    rng = random.Random(6)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            for p in range(n):
                text = state.information_state_string(p)
                tensor = np.asarray(state.information_state_tensor(p), np.float32)
                key = tensor.tobytes()
                assert by_string.setdefault(text, key) == key
                assert by_tensor.setdefault(key, text) == text
            player = state.current_player()
            history = np.asarray(state.information_state_tensor(player), np.float32)[
                -80 * width :
            ].reshape(80, width)
            seen = []
            for event in state.game.view(player).events:
                if isinstance(event, Dealt | Showdown):
                    continue
                if isinstance(event, Refilled):
                    seen[-1] = (*seen[-1][:2], True, seen[-1][3])
                    continue
                kind = {Discarded: 0, Slapped: 3, Passed: 4}.get(type(event), 0)
                if isinstance(event, Drew):
                    kind = 1 if event.source == "stock" else 2
                cards = getattr(event, "cards", None) or (
                    () if getattr(event, "card", None) is None else (event.card,)
                )
                seen.append(((event.seat - player) % n, kind, False, sorted(cards)))
            decoded = []
            for row in history[: len(seen)]:
                kinds = np.flatnonzero(row[n : n + 6])
                decoded.append(
                    (
                        int(np.flatnonzero(row[:n])[0]),
                        int(kinds[0]),
                        bool(row[n + 5]),
                        [int(c) for c in np.flatnonzero(row[n + 6 :])],
                    )
                )
            assert decoded == seen and not history[len(seen) :].any()
            legal = state.legal_actions()
            state.apply_action(rng.choice([a for a in legal if a != 0] or legal))
    assert len(by_string) > 50
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
