"""The reinforcement-learning front end: action table, observations, PettingZoo and Gymnasium."""

from __future__ import annotations

import random
import subprocess
import sys
from math import comb

import numpy as np
import pytest

from yaniv import compiled
from yaniv import discards as D
from yaniv.envs import action_table
from yaniv.envs.observation import Observer
from yaniv.errors import InvalidMoveError, SetupError
from yaniv.game import Game, Phase
from yaniv.moves import DRAW_STOCK, PASS, YANIV, Discard, parse_move
from yaniv.rules import RuleSet

pettingzoo = pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from yaniv.envs import GYM_ID, IllegalActionError, env, raw_env  # noqa: E402

PRESETS = ("standard", "quick", "hebrew", "draw_first", "slapdown")
#: Warnings PettingZoo's api_test gives any environment whose observations are dicts.
_DICT_OBS = "ignore:(Observation is not a NumPy array|Observation space for each agent)"


def _variants() -> list[RuleSet]:
    return [RuleSet.preset(p) for p in PRESETS] + [
        RuleSet(jokers_in_sets=True, slapdown="rank_or_run", pickup="any"),
        RuleSet(joker_in_run="gaps_only", jokers=1, hand_size=7),
        RuleSet.preset("draw_first", jokers_in_sets=True, joker_in_run="never", jokers=0),
        # The house rules of other apps (R8, R14, R22).
        RuleSet(joker_pair=True, run_naturals=2, slapdown="rank", slap_empty_hand="yaniv_next"),
        RuleSet(jokers_in_sets=True, max_set=3, slapdown="rank", slap_empty_hand="yaniv_now"),
        RuleSet.preset("hebrew", joker_pair=True, assaf_ties="counterclockwise", max_set=2),
    ]


# ----------------------------------------------------------------- the action table


def _runs(length: int, jokers: int = 2) -> int:
    """Runs of ``length`` cards per suit: each start, each placement of distinct jokers."""
    placements = 1 + jokers * length + (length * (length - 1) if jokers == 2 else 0)
    return (14 - length) * placements


def _sets(most: int, jokers_in_sets: bool) -> int:
    """Sets of one rank of at most ``most`` cards, one per pair of ends (pickup ends)."""
    total = 0
    for naturals in range(1, 5):
        for jokers in range(3 if jokers_in_sets else 1):
            size = naturals + jokers
            if 2 <= size <= most:
                orders = 1 if size == 2 else comb(size, 2)
                total += comb(4, naturals) * comb(2, jokers) * orders
    return total


def test_action_table_counts_standard() -> None:
    table = action_table(RuleSet())
    discards = table.discard_stop - table.discard_start
    assert discards == 54 + 13 * _sets(5, False) + 4 * sum(_runs(n) for n in (3, 4, 5))
    assert discards == 2894
    assert len(table) == 1 + discards + 1 + 54  # yaniv, discards, stock, a draw per card
    assert table.pass_ == -1 and (table.slap < 0).all()


def test_action_table_counts_of_six_card_discards() -> None:
    """The review's figures: about 4,300 discards of up to 6 cards, 6,800 with jokers in sets."""
    six = action_table(RuleSet(hand_size=6))
    assert six.discard_stop - six.discard_start == 4270
    assert 54 + 13 * _sets(6, False) + 4 * sum(_runs(n) for n in range(3, 7)) == 4270
    jis = action_table(RuleSet(hand_size=6, jokers_in_sets=True))
    # One natural card and jokers read as a set: those runs of three become sets.
    runs3 = _runs(3) - 11 * 3 * 2
    assert jis.discard_stop - jis.discard_start == 6801
    assert 54 + 13 * _sets(6, True) + 4 * (runs3 + sum(_runs(n) for n in range(4, 7))) == 6801


def test_action_table_counts_of_the_house_rules() -> None:
    def discards(**options: object) -> int:
        table = action_table(RuleSet(**options))  # type: ignore[arg-type]
        return table.discard_stop - table.discard_start

    assert discards(joker_pair=True) == 2894 + 1  # discard RJ BJ
    # A run of three with one natural and both jokers: 11 starts x 3 places x 2 joker orders.
    assert discards(run_naturals=2) == 2894 - 4 * 11 * 3 * 2 == 2630
    assert discards(max_set=4) == 2894  # no set of naturals holds more
    assert discards(max_set=3) == 2894 - 13 * 6 == 2816  # no quadruple (6 pairs of ends)
    assert discards(max_set=2) == 2894 - 13 * (6 + 4 * 3) == 2660  # nor a triple
    table = action_table(RuleSet(joker_pair=True))
    assert table.index(parse_move("discard BJ RJ")) == table.index(parse_move("discard RJ BJ"))
    # A run given out of order maps to its laid entry where it lies in one order only (R9).
    standard = action_table(RuleSet())
    assert standard.index(parse_move("discard 5H 3H 4H")) == standard.index(
        parse_move("discard 3H 4H 5H")
    )
    with pytest.raises(InvalidMoveError):
        standard.index(parse_move("discard 6H RJ 5H"))  # RJ 5H 6H or 5H 6H RJ


def test_action_table_layout_and_round_trip() -> None:
    rules = RuleSet.preset("slapdown")
    table = action_table(rules)
    assert table is action_table("slapdown") is action_table({"preset": "slapdown"})
    assert table.move(0) == YANIV and table.move(table.stock) == DRAW_STOCK
    assert table.move(table.pass_) == PASS and table.pass_ == len(table) - 1
    assert len(set(table.moves)) == len(table)
    for i, move in enumerate(table.moves):
        assert table.index(move) == i
    keys = []
    for i in range(table.discard_start, table.discard_stop):
        move = table.move(i)
        assert isinstance(move, Discard) and len(move.cards) <= rules.hand_size
        kind = D.classify(move.cards, rules)
        assert kind != D.BROKEN and D.canonical(move.cards, kind, rules) == move.cards
        keys.append((len(move.cards), kind, move.cards))
    assert keys == sorted(keys)  # documented order: size, kind, cards
    # A set maps to its canonical entry: with slapdown only its first and last card matter
    # (what may be drawn, where a slap lands); under the standard rules only the pair of ends.
    a = table.index(parse_move("discard 7S 7H 7C 7D"))
    assert a == table.index(parse_move("discard 7S 7C 7H 7D"))
    assert table.move(a) == parse_move("discard 7S 7C 7H 7D")
    assert a != table.index(parse_move("discard 7D 7C 7H 7S"))
    standard = action_table(RuleSet())
    assert standard.index(parse_move("discard 7S 7H 7C")) == standard.index(
        parse_move("discard 7C 7H 7S")
    )
    assert standard.index(parse_move("discard 7S 7H 7C")) != standard.index(
        parse_move("discard 7H 7S 7C")
    )
    with pytest.raises(InvalidMoveError):
        table.index(parse_move("discard 7S 8H"))
    with pytest.raises(InvalidMoveError):
        table.move(len(table))
    assert len(action_table(RuleSet(jokers=0))) < len(action_table(RuleSet()))


def _play_checking(rules: RuleSet, players: int, steps: int, seed: int) -> int:
    """Random play, checking every mask against legal_moves(); returns the steps checked."""
    table = action_table(rules)
    observer = Observer(rules, players)
    rng = random.Random(seed)
    game = Game.new(rules, players, seed=seed)
    buffers = [observer.buffer(s) for s in range(players)]  # updated in place, incrementally
    checked = 0
    while checked < steps:
        if game.phase is Phase.GAME_OVER:
            game = Game.new(rules, players, seed=rng.getrandbits(32))
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        legal = game.legal_moves()
        mask = table.mask(game)
        masked = np.flatnonzero(mask).tolist()
        for i in masked:  # every masked action is legal
            assert table.move(i) in legal, (game, table.move(i))
        for move in legal:  # every legal move is masked
            assert mask[table.index(move)] == 1, (game, move)
        assert len(masked) == len(legal)
        seat = game.to_move
        assert seat is not None
        assert np.array_equal(mask, table.mask(game.view(seat)))
        expected = observer.write_view(game.view(seat))
        assert np.array_equal(buffers[seat].update(game), expected), (game, seat)
        assert np.array_equal(observer.write(game, seat), expected), (game, seat)
        if checked % 7 == 0:  # the fast observation equals the view's, for every seat
            for s in range(players):
                expected = observer.write_view(game.view(s))
                assert np.array_equal(observer.write(game, s), expected), (game, s)
                assert np.array_equal(buffers[s].update(game), expected), (game, s)
        game.play(table.move(masked[rng.randrange(len(masked))]), seat=seat)
        checked += 1
    return checked


@pytest.mark.parametrize("rules", _variants(), ids=lambda r: str(r.differences()))
def test_masks_are_exactly_the_legal_moves(rules: RuleSet) -> None:
    total = 0
    for players in range(2, 9):
        if players * rules.hand_size + 1 <= 52 + rules.jokers:
            total += _play_checking(rules, players, 600, seed=players)
    assert total >= 3000


# ----------------------------------------------------------------- observations


def test_observation_layout() -> None:
    observer = Observer(RuleSet(), players=4)
    parts = observer.describe()
    assert parts[0] == ("hand", 0, 54)
    assert [p[0] for p in parts] == [
        "hand",
        "known",
        "pile",
        "top",
        "takeable",
        "drawn",
        "hand_sizes",
        "scores",
        "out",
        "to_move",
        "phase",
        "stock",
        "hand_value",
        "rules",
    ]
    for (_, _, stop), (_, start, _) in zip(parts, parts[1:], strict=False):
        assert stop == start
    assert parts[-1][2] == observer.size
    assert observer.layout["known"].stop - observer.layout["known"].start == 3 * 54
    game = Game.new(RuleSet(), 4, seed=3)
    obs = observer.write(game, 2)
    lay = observer.layout
    assert np.flatnonzero(obs[lay["hand"]]).tolist() == game.hand(2)
    assert obs[lay["to_move"]].tolist() == [0, 0, 0, 1]  # seat 1 moves: 3 seats after seat 2
    assert obs[lay["phase"]][Phase.START] == 1
    assert np.all(obs >= observer.low) and np.all(obs <= observer.high)
    assert obs[lay["takeable"]].sum() == 1 and obs[lay["pile"]].sum() == 1


def _positions(rules: RuleSet, players: int, count: int, seed: int) -> list[Game]:
    rng = random.Random(seed)
    out: list[Game] = []
    game = Game.new(rules, players, seed=seed)
    while len(out) < count:
        if game.phase >= Phase.ROUND_OVER:
            game = Game.new(rules, players, seed=rng.getrandbits(32))
        if rng.random() < 0.3 or game.phase is Phase.SLAP:
            out.append(game.clone())
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("preset", ["standard", "slapdown", "draw_first", "hebrew"])
def test_observation_ignores_hidden_cards(preset: str) -> None:
    """Shuffling the cards a seat cannot see (others' unknown cards, the stock) changes
    nothing in its observation; its own hand does change it."""
    rules = RuleSet.preset(preset)
    observer = Observer(rules, 3)
    rng = random.Random(5)
    changed = 0
    for game in _positions(rules, 3, 120, seed=11):
        pos = game.position()
        for seat in range(3):
            hands = [list(h) for h in pos["hands"]]
            hidden = list(pos["stock"])
            keep = {pos["drawn"]} if pos["phase"] == "slap" and pos["to_move"] != seat else set()
            spots = []
            for s in range(3):
                if s != seat:
                    for i, card in enumerate(hands[s]):
                        if card not in pos["known"][s] and card not in keep:
                            spots.append((s, i))
                            hidden.append(card)
            shuffled = hidden[:]
            rng.shuffle(shuffled)
            stock = shuffled[: len(pos["stock"])]
            for (s, i), card in zip(spots, shuffled[len(pos["stock"]) :], strict=True):
                hands[s][i] = card
            other = Game.from_position(**{**pos, "hands": hands, "stock": stock})
            changed += other.hands != game.hands
            assert np.array_equal(observer.write(game, seat), observer.write(other, seat))
            assert np.array_equal(
                observer.write_view(game.view(seat)), observer.write_view(other.view(seat))
            )
    assert changed > 100  # the shuffles did move hidden cards
    game = Game.new(rules, 3, seed=1)
    pos = game.position()
    hands = [list(h) for h in pos["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    swapped = Game.from_position(**{**pos, "hands": hands})
    assert not np.array_equal(observer.write(game, 0), observer.write(swapped, 0))


# ----------------------------------------------------------------- PettingZoo


@pytest.mark.filterwarnings(_DICT_OBS)
@pytest.mark.parametrize(
    ("preset", "players", "rounds"),
    [
        ("standard", 2, "game"),
        ("slapdown", 4, "game"),
        ("draw_first", 3, "one"),
        ("hebrew", 8, "game"),
    ],
)
def test_pettingzoo_api(preset: str, players: int, rounds: str) -> None:
    api_test(env(rules=preset, players=players, rounds=rounds), num_cycles=400)
    seed_test(lambda: env(rules=preset, players=players, rounds=rounds), num_cycles=200)


def _random_game(e: object, rng: random.Random) -> dict[str, float]:
    """Play a whole episode of random legal actions; each agent's total reward."""
    totals: dict[str, float] = {}
    for agent in e.agent_iter():  # type: ignore[attr-defined]
        obs, reward, terminated, truncated, _ = e.last()  # type: ignore[attr-defined]
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            e.step(None)  # type: ignore[attr-defined]
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        e.step(int(legal[rng.randrange(len(legal))]))  # type: ignore[attr-defined]
    return totals


@pytest.mark.parametrize("players", [2, 4, 6])
def test_aec_win_loss_rewards(players: int) -> None:
    e = raw_env(players=players)
    rng = random.Random(players)
    for episode in range(3):
        e.reset(seed=episode)
        totals = _random_game(e, rng)
        winners = e.game.winners
        assert winners and e.game.is_over and e.agents == []
        assert set(totals) == set(e.possible_agents)
        for seat, agent in enumerate(e.possible_agents):
            assert totals[agent] == (1.0 if seat in winners else -1.0)
        assert sum(totals.values()) == 2 * len(winners) - players
        with pytest.raises(SetupError, match="episode is over"):
            e.step(0)


def test_aec_points_rewards_and_one_round() -> None:
    e = raw_env(rules="quick", players=3, rewards="points")
    e.reset(seed=4)
    totals = _random_game(e, random.Random(1))
    for seat, agent in enumerate(e.possible_agents):
        assert totals[agent] == -e.game.scores[seat]  # minus every round's points
    one = raw_env(players=4, rounds="one", loss_reward=0.0)
    one.reset(seed=2)
    totals = _random_game(one, random.Random(2))
    assert one.game.round_no == 1 and one.game.phase >= Phase.ROUND_OVER
    assert sorted(totals.values()) == [0.0, 0.0, 0.0, 1.0]
    assert totals[f"player_{one.game.result.winner}"] == 1.0


def test_aec_illegal_action_and_determinism() -> None:
    e = raw_env(players=2)
    with pytest.raises(SetupError, match="before reset"):
        e.step(0)
    e.reset(seed=9)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.game.fingerprint()
    with pytest.raises(IllegalActionError, match="illegal action"):
        e.step(illegal)
    with pytest.raises(IllegalActionError, match="an integer"):
        e.step(None)
    with pytest.raises(IllegalActionError, match="illegal action"):
        e.step(len(e.table))
    assert e.game.fingerprint() == before
    again = raw_env(players=2)
    again.reset(seed=9)
    assert again.game.fingerprint() == before
    truncated = raw_env(players=2, max_steps=5)
    truncated.reset(seed=1)
    for _ in range(5):
        mask = truncated.observe(truncated.agent_selection)["action_mask"]
        truncated.step(int(np.flatnonzero(mask)[0]))
    assert all(truncated.truncations.values())


def test_aec_buffers_follow_a_move_made_on_the_game_itself() -> None:
    """The cached observation and mask are of the position they were written at: a move made on
    ``env.game`` directly is observed, and the old mask's discards are refused."""
    e = raw_env(players=2)
    e.reset(seed=4)
    agent = e.agent_selection
    old = e.observe(agent)
    game = e.game
    discard = next(m for m in game.legal_moves() if str(m).startswith("discard"))
    game.play(discard)  # outside step(): the same agent now draws
    new = e.observe(agent)
    now = e.table.legal_actions(game)
    assert [int(i) for i in np.flatnonzero(new["action_mask"])] == sorted(now)
    assert not np.array_equal(old["observation"], new["observation"])
    stale = next(int(i) for i in np.flatnonzero(old["action_mask"]) if int(i) not in now)
    before = game.fingerprint()
    with pytest.raises(IllegalActionError, match="illegal action"):
        e.step(stale)
    assert game.fingerprint() == before


@pytest.mark.skipif(compiled.AVAILABLE is None, reason="the compiled core is not built")
@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_seat_buffers_compiled_write_and_judge_as_the_pure_ones(players: int) -> None:
    """The compiled SeatBuffers (one C call a step) and the Python class, over the rule
    variants: the same observation and mask at every position for every seat (another seat's
    slap window included, which the compiled one leaves to Python), the same answer to
    ``allows`` for legal, illegal and out-of-range actions, fresh or stale."""
    from yaniv.envs.seat_buffers import SeatBuffers, seat_buffers

    rng = random.Random(players)
    for rules in _variants():
        table, observer = action_table(rules), Observer(rules, players)
        fast = [seat_buffers(observer, table, s, compiled=True) for s in range(players)]
        pure = [seat_buffers(observer, table, s, compiled=False) for s in range(players)]
        assert not isinstance(fast[0], SeatBuffers) and isinstance(pure[0], SeatBuffers)
        try:
            game = Game.new(rules, players, seed=rng.randrange(2**32))
        except SetupError:  # a deck too small for this many hands of the variant
            continue
        for _ in range(400):
            if game.phase >= Phase.ROUND_OVER:
                game = Game.new(rules, players, seed=rng.randrange(2**32))
            legal = table.legal_actions(game)
            probes = [-1, table.size, rng.randrange(table.size), *rng.sample(legal, 1)]
            for f, p in zip(fast, pure, strict=True):
                for index in probes:  # stale: judged from the position, not the old mask
                    assert f.allows(game, index) == p.allows(game, index), (index, game)
                if rng.random() < 0.8:  # some seats skip positions: their buffers go stale
                    f.update(game)
                    p.update(game)
                    assert np.array_equal(f.observation, p.observation)
                    assert np.array_equal(f.mask, p.mask)
                    for index in probes:
                        assert f.allows(game, index) == p.allows(game, index), (index, game)
            moves = game.legal_moves()
            game.apply(moves[rng.randrange(len(moves))])


# ----------------------------------------------------------------- Gymnasium


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_check_env() -> None:
    assert GYM_ID in gymnasium.registry
    check_env(gymnasium.make(GYM_ID).unwrapped)
    check_env(gymnasium.make(GYM_ID, rules="slapdown", players=4, opponents="easy").unwrapped)


def test_gymnasium_episode_and_illegal_actions() -> None:
    from yaniv.envs import YanivEnv

    seen: list[int] = []

    def first_legal(view):  # an opponent given as a plain callable
        seen.append(view.seat)
        return view.legal_moves[0]

    e = YanivEnv(players=3, opponents=["random", first_legal], seat=1)
    obs, _ = e.reset(seed=3)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.game.fingerprint()
    obs2, reward, terminated, truncated, info = e.step(illegal)
    assert (reward, terminated, truncated, info) == (-1.0, False, False, {"illegal_action": True})
    assert e.game.fingerprint() == before and np.array_equal(
        obs["observation"], obs2["observation"]
    )
    rng = random.Random(0)
    total = 0.0
    for _ in range(5000):
        legal = np.flatnonzero(obs["action_mask"])
        assert np.array_equal(e.action_masks(), obs["action_mask"].astype(bool))
        obs, reward, terminated, truncated, _ = e.step(int(rng.choice(legal)))
        total += reward
        if terminated:
            break
    assert terminated and total in (1.0, -1.0) and set(seen) == {0}
    strict = YanivEnv(illegal="raise")
    obs, _ = strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


def test_gymnasium_step_judges_the_position_not_a_stale_mask() -> None:
    """step() reads legality from the last mask only while the game is where it was written:
    a move made on ``env.game`` directly leaves the old mask's discards illegal."""
    from yaniv.envs import YanivEnv

    e = YanivEnv(players=2, seat=0)
    obs, _ = e.reset(seed=4)
    old_legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
    game = e.game
    assert game is not None and game.to_move == 0
    discard = next(m for m in game.legal_moves() if str(m).startswith("discard"))
    game.play(discard)  # outside step(): the learner now draws
    now = e.table.legal_actions(game)
    stale = next(i for i in old_legal if i not in now)
    before = game.fingerprint()
    _obs, reward, _t, _tr, info = e.step(stale)
    assert (reward, info) == (-1.0, {"illegal_action": True})
    assert game.fingerprint() == before
    e.step(now[0])  # a draw, legal now though the old mask did not hold it
    assert game.fingerprint() != before


def test_gymnasium_points_one_round() -> None:
    e = gymnasium.make(GYM_ID, players=2, rounds="one", rewards="points", opponents="easy")
    obs, _ = e.reset(seed=2)
    rng = random.Random(3)
    while True:
        obs, reward, terminated, truncated, _ = e.step(
            int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
        if terminated:
            break
    game = e.unwrapped.game
    assert game.round_no == 1 and reward == -game.scores[0]


def test_table_and_observer_need_neither_gymnasium_nor_pettingzoo() -> None:
    """Without the ``rl`` extra, yaniv.envs still imports and gives tables and observations."""
    code = (
        "import sys; sys.modules['gymnasium'] = sys.modules['pettingzoo'] = None\n"
        "import yaniv.envs as e\n"
        "print(len(e.action_table()), e.Observer(e.as_rules('quick'), 3).size)\n"
        "try:\n    e.raw_env\nexcept ModuleNotFoundError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == f"{len(action_table())} {Observer(RuleSet.preset('quick'), 3).size}"
    assert "pip install 'yaniv[rl]'" in lines[1]


def test_envs_doctests() -> None:
    import doctest

    import yaniv.envs
    import yaniv.envs.actions
    import yaniv.envs.aec
    import yaniv.envs.gym_env
    import yaniv.envs.observation

    for module in (
        yaniv.envs,
        yaniv.envs.actions,
        yaniv.envs.observation,
        yaniv.envs.aec,
        yaniv.envs.gym_env,
    ):
        failures, tried = doctest.testmod(module)
        assert failures == 0 and tried > 0, module.__name__


def test_docs_list_every_observation_part_and_the_table_sizes() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "envs.md").read_text("utf-8")
    names = [name for name, _, _ in Observer(RuleSet(), 2).describe()]
    rows = [
        line.split("|")[1].strip().strip("`")
        for line in text.splitlines()
        if line.startswith("| `")
    ]
    assert [r for r in rows if r in names] == names
    sizes = [Observer(RuleSet(), players).size for players in (2, 4, 8)]
    assert f"{sizes[0]} for 2 players, {sizes[1]} for 4, {sizes[2]} for 8" in text
    for preset, actions in (("standard", "2,950"), ("hebrew", "2,781"), ("slapdown", "3,315")):
        assert f"{len(action_table(preset)):,}" == actions and actions in text


def test_state_result_infos_and_max_cycles() -> None:
    e = raw_env(RuleSet(score_limit=30), players=3)
    e.reset(seed=4)
    state = e.state()
    assert state.shape == e.state_space.shape and e.state_space.contains(state)
    hands = e.observer.layout["hand"]
    size = e.observer.size
    game = e.game
    assert game is not None
    for s in range(3):  # every hand is in the state, each in its seat's part
        part = state[s * size : (s + 1) * size][hands]
        assert sorted(np.flatnonzero(part)) == game.hand(s)
    rng = random.Random(4)
    ended: list[dict[str, object]] = []
    rounds_told = 0
    while e.agents:
        obs, _, terminated, truncated, info = e.last()
        if info:
            rounds_told += 1
            assert set(info) >= {"round", "result", "points", "scores", "round_winner"}
        if terminated or truncated:
            ended.append(info)
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        yaniv = e.table.yaniv
        e.step(yaniv if yaniv in legal else int(rng.choice(legal)))
    assert game.is_over and rounds_told > 0
    last = ended[-1]
    assert last["winners"] == [f"player_{s}" for s in game.winners]
    assert last["scores"] == {f"player_{s}": game.scores[s] for s in range(3)}
    capped = raw_env(players=2, max_cycles=3)
    capped.reset(seed=1)
    steps = 0
    while not any(capped.truncations.values()):
        legal = np.flatnonzero(capped.observe(capped.agent_selection)["action_mask"])
        capped.step(int(legal[-1]))  # never the Yaniv call (index 0): no round ends
        steps += 1
    assert steps == 6  # three cycles of two agents
    with pytest.raises(SetupError, match="not both"):
        raw_env(players=2, max_cycles=3, max_steps=4)
    with pytest.raises(SetupError, match="max_cycles=0"):
        raw_env(players=2, max_cycles=0)


@pytest.mark.parametrize(
    ("preset", "players"), [("standard", 2), ("slapdown", 3), ("draw_first", 5), ("hebrew", 8)]
)
def test_random_opponents_play_from_the_game_as_from_their_views(preset: str, players: int) -> None:
    """The level ``random`` chooses from the game itself in the Gymnasium env (no view at each
    turn): the very games it plays from its views, move for move and byte for byte."""
    from yaniv import record
    from yaniv.bots import get_bot
    from yaniv.envs import YanivEnv

    def opponents() -> list[object]:  # a level by name, and a bot given as an object
        return ["random", get_bot("random", seed=4), *["random"] * (players - 3)][: players - 1]

    fast = YanivEnv(preset, players, opponents(), seat=1)
    slow = YanivEnv(preset, players, opponents(), seat=1)
    slow._from_game = False
    # The compiled core plays the random seats in one call (yaniv._core.play_random).
    assert (fast._play_random is None) == (compiled.core is None)
    rng = random.Random(players)
    for episode in range(4):
        obs_f, _ = fast.reset(seed=episode)
        obs_s, _ = slow.reset(seed=episode)
        assert any(p is not None for p in fast._game_players)
        assert all(p is None for p in slow._game_players)
        for _ in range(3000):
            assert np.array_equal(obs_f["observation"], obs_s["observation"])
            assert np.array_equal(obs_f["action_mask"], obs_s["action_mask"])
            action = int(rng.choice(np.flatnonzero(obs_f["action_mask"])))
            obs_f, r_f, done_f, _, _ = fast.step(action)
            obs_s, r_s, done_s, _, _ = slow.step(action)
            assert (r_f, done_f) == (r_s, done_s)
            if done_f:
                break
        assert done_f
        assert record.dumps(fast.game) == record.dumps(slow.game)
