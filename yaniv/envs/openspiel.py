"""Yaniv as an OpenSpiel game (``pip install 'yaniv[openspiel]'``): ``python_yaniv``.

One round is an episode, with explicit chance nodes: the deal, card by card (each seat's hand
in seat order, then the card turned up), and every stock draw (a player's ``draw stock`` is
followed by a chance node over the cards in the stock, so a search re-samples the stock and
never sees its order). The round's winner (R17) gets +1 and the others ``-1 / (players - 1)``:
zero-sum at every player count. A round still running after ``max_moves`` moves ends with 0
for everyone.

>>> import pyspiel
>>> import yaniv.envs.openspiel  # registers the game
>>> game = pyspiel.load_game("python_yaniv", {"players": 3, "preset": "quick"})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 54)

Parameters: ``players`` (2-8), ``preset`` (a rules preset), ``options`` (``KEY=VALUE`` pairs
separated by commas, over the preset: ``"slapdown=rank,joker_pair=true"``), ``max_moves``.
Actions are the rule set's action table (``yaniv.envs.action_table``); observation tensors are
the environments' (docs/envs.md), information state tensors add, per seat, the cards it has
discarded and taken from the pile this round; the information state string is the seat's whole
view with the round's events (perfect recall).
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from ..cards import NAMES, deck
from ..errors import SetupError
from ..events import Dealt, Discarded, Drew, Passed, Refilled, Slapped
from ..game import Game, Phase
from ..moves import DRAW_STOCK
from ..rules import RuleSet
from .actions import action_table
from .observation import Observer

SHORT_NAME = "python_yaniv"
#: A round stopped after this many moves ends with 0 for every seat (OpenSpiel needs a bound).
MAX_MOVES = 2_000

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Yaniv (one round)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={
        "players": 2,
        "preset": "standard",
        "options": "",
        "max_moves": MAX_MOVES,
        "history_tensor": False,
    },
)

#: The kinds of event in the ``history`` part of the information state tensor, one slot per
#: event the player saw, in order (``refill`` is a mark on the slot of the event before it).
HISTORY_KINDS = ("discard", "draw_stock", "draw_pile", "slap", "pass", "refill")


def rules_of(params: dict[str, Any]) -> RuleSet:
    """The rule set of the game's parameters (RuleError in words for a bad one)."""
    options = [o for o in str(params.get("options", "")).split(",") if o.strip()]
    return RuleSet.from_preset_and_options(str(params.get("preset", "standard")), options)


class Spec:
    """What a game's parameters make: the rules, the table, the observer (shared, never
    copied: a state's copy keeps the same)."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.rules = rules_of(params)
        self.players = int(params["players"])
        self.max_moves = int(params["max_moves"])
        self.history_tensor = bool(params.get("history_tensor", False))
        Game.new(self.rules, self.players, seed=0)  # SetupError for an unplayable table
        if self.max_moves < 1:
            raise SetupError(f"max_moves={self.max_moves}: expected at least 1")
        self.table = action_table(self.rules)
        self.observer = Observer(self.rules, self.players)

    def __deepcopy__(self, memo: dict[int, Any]) -> Spec:
        return self


_SPECS: dict[str, Spec] = {}


def spec_of(params: dict[str, Any]) -> Spec:
    """The Spec of these parameters, made once."""
    full = {**_GAME_TYPE.parameter_specification, **params}
    key = json.dumps(full, sort_keys=True)
    found = _SPECS.get(key)
    if found is None:
        found = _SPECS[key] = Spec(full)
    return found


class YanivGame(pyspiel.Game):  # type: ignore[misc]
    """One round of Yaniv for OpenSpiel."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = spec_of(params or {})
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.table.size,
            max_chance_outcomes=54,
            num_players=spec.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            # the deal, then every move and its stock draw's chance node
            max_game_length=spec.players * spec.rules.hand_size + 1 + 2 * spec.max_moves,
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> YanivState:
        """The round before its deal."""
        return YanivState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> YanivObserver:
        """The observation (``perfect_recall`` False) or information state observer."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return YanivObserver(spec_of(self.get_parameters()), recall)


#: How many random worlds ``resample_from_infostate`` tries before it gives up.
RESAMPLE_TRIES = 200


class YanivState(pyspiel.State):  # type: ignore[misc]
    """A round in progress: the deal's chance nodes, then the engine's game."""

    def __init__(self, game: YanivGame) -> None:
        super().__init__(game)
        self.yaniv = spec_of(game.get_parameters())
        self.dealt: list[int] = []
        self.game: Game | None = None
        self.pending_draw = False  # a player drew from the stock: chance picks the card
        self.moves = 0
        self.truncated = False

    # ------------------------------------------------------------- OpenSpiel's API

    def current_player(self) -> int:
        """The seat to act, CHANCE or TERMINAL."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.game is None or self.pending_draw:
            return int(pyspiel.PlayerId.CHANCE)
        to_move = self.game.to_move
        assert to_move is not None
        return to_move

    def _legal_actions(self, player: int) -> list[int]:
        assert self.game is not None and player == self.game.to_move
        return sorted(self.yaniv.table.legal_actions(self.game))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that may come now, each equally likely."""
        if self.game is None:
            taken = set(self.dealt)
            pool = [c for c in deck(self.yaniv.rules.jokers) if c not in taken]
        else:
            pool = sorted(self.game.stock)
        p = 1.0 / len(pool)
        return [(c, p) for c in pool]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            self.dealt.append(action)
            if len(self.dealt) == self.yaniv.players * self.yaniv.rules.hand_size + 1:
                self._start()
            return
        game = self.game
        if self.pending_draw:  # the chance outcome goes on top of the stock, then is drawn
            game.stock.remove(action)
            game.stock.append(action)
            self.pending_draw = False
            self._play(DRAW_STOCK)
            return
        move = self.yaniv.table.moves[action]
        if move == DRAW_STOCK:
            self.pending_draw = True
            return
        self._play(move)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {NAMES[action]}"
        return str(self.yaniv.table.moves[action])

    def is_terminal(self) -> bool:
        """Whether the round is over (or stopped at ``max_moves``)."""
        return self.truncated or (self.game is not None and self.game.phase >= Phase.ROUND_OVER)

    def returns(self) -> list[float]:
        """+1 for the round's winner, -1 / (players - 1) for each other seat; 0 until the end
        and for a stopped round."""
        n = self.yaniv.players
        if self.truncated or self.game is None or self.game.result is None:
            return [0.0] * n
        winner = self.game.result.winner
        return [1.0 if s == winner else -1.0 / (n - 1) for s in range(n)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> YanivState:
        """A state ``player_id`` cannot tell from this one (the same information state), its
        hidden chance outcomes dealt again uniformly: what ISMCTS samples its worlds with.

        The chance outcomes the player did not see (the others' dealt cards and stock draws)
        whose cards it never saw since (in a discard, a draw from the pile, a slap) are replaced
        by a random choice, without repeats, from those cards and the stock's unseen ones; the
        history is replayed with every action checked, and the result kept only where the
        player's information state string is unchanged (rejection). A card the player saw is
        left where it was dealt or drawn: after a refill of the stock from the pile (R11), an
        unseen draw of a card seen before keeps that card. ``probability_sampler()`` gives a
        float in [0, 1) that seeds the choice.
        """
        history = [int(a) for a in self.history()]
        n, h = self.yaniv.players, self.yaniv.rules.hand_size
        seen = self._seen_by(player_id)
        hidden: list[int] = []  # positions in the history of the outcomes the player never saw
        replay = YanivState(self.get_game())
        for i, action in enumerate(history):
            if action not in seen:
                if replay.game is None:
                    k = len(replay.dealt)
                    if k < n * h and k // h != player_id:
                        hidden.append(i)
                elif replay.pending_draw and replay.game.to_move != player_id:
                    hidden.append(i)
            replay._apply_action(action)
        pool = [history[i] for i in hidden] + sorted(self._chance_pool() - seen)
        target = self.information_state_string(player_id)
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        for _attempt in range(RESAMPLE_TRIES):
            rng.shuffle(pool)
            candidate = history[:]
            for i, card in zip(hidden, pool, strict=False):
                candidate[i] = card
            state = self._replayed(candidate)
            if state is not None and state.information_state_string(player_id) == target:
                return state
        raise SetupError(
            f"no world found for player {player_id} in {RESAMPLE_TRIES} tries "
            f"(history of {len(history)} actions)"
        )

    def _seen_by(self, player: int) -> set[int]:
        """Every card ``player`` has seen this round: its hand, the card turned up, every
        discard, every card drawn from the pile or slapped, its own stock draws."""
        if self.game is None:
            return set(
                self.dealt[player * self.yaniv.rules.hand_size :][: self.yaniv.rules.hand_size]
            )
        view = self.game.view(player)
        seen = set(view.hand)
        for event in view.events:
            if isinstance(event, Dealt):
                seen.add(event.up)
                for hand in event.hands:
                    seen.update(hand or ())
            elif isinstance(event, Discarded):
                seen.update(event.cards)
            elif isinstance(event, Drew | Slapped) and event.card is not None:
                seen.add(event.card)
        return seen

    def _replayed(self, history: list[int]) -> YanivState | None:
        """The state after ``history`` from the start, None where an action is not legal."""
        state = YanivState(self.get_game())
        for action in history:
            if state.is_terminal():
                return None
            if state.game is None or state.pending_draw:
                if action not in state._chance_pool():
                    return None
            elif action not in state.yaniv.table.legal_actions(state.game):
                return None
            state.apply_action(action)
        return state

    def _chance_pool(self) -> set[int]:
        """The cards the chance node now may give."""
        if self.game is None:
            return set(deck(self.yaniv.rules.jokers)) - set(self.dealt)
        return set(self.game.stock)

    def __str__(self) -> str:
        if self.game is None:
            return "dealt: " + " ".join(NAMES[c] for c in self.dealt)
        return repr(self.game) + (" (stock draw pending)" if self.pending_draw else "")

    # ------------------------------------------------------------- the round

    def _start(self) -> None:
        rules, n = self.yaniv.rules, self.yaniv.players
        h = rules.hand_size
        hands = [self.dealt[s * h : (s + 1) * h] for s in range(n)]
        up = self.dealt[-1]
        taken = set(self.dealt)
        stock = [c for c in deck(rules.jokers) if c not in taken]  # any order: draws are chance
        self.game = Game.from_position(rules, hands, stock, [[up]], 1 % n, seed=0)

    def _play(self, move: Any) -> None:
        assert self.game is not None
        self.game.apply(move)
        self.moves += 1
        if self.moves >= self.yaniv.max_moves and self.game.phase < Phase.ROUND_OVER:
            self.truncated = True


class YanivObserver:
    """OpenSpiel's observer interface: ``tensor``, ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, game: Spec, perfect_recall: bool) -> None:
        self.game = game
        self.perfect_recall = perfect_recall
        n = game.players
        pieces = [("observation", game.observer.size)]
        if perfect_recall:
            pieces += [("discarded", 54 * n), ("taken", 54 * n), ("draw_pending", 1)]
            if game.history_tensor:
                width = n + len(HISTORY_KINDS) + 54
                pieces += [("dealt", 54), ("up", 54), ("history", game.max_moves * width)]
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        start = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[start : start + size]
            start += size
        if perfect_recall:
            self.dict["discarded"] = self.dict["discarded"].reshape(n, 54)
            self.dict["taken"] = self.dict["taken"].reshape(n, 54)
            if game.history_tensor:
                self.dict["history"] = self.dict["history"].reshape(game.max_moves, -1)

    def set_from(self, state: YanivState, player: int) -> None:
        """Write ``player``'s observation (or information state) of ``state``."""
        self.tensor.fill(0)
        game = state.game
        if game is None:  # during the deal: the cards dealt to the player so far
            return
        self.dict["observation"][:] = self.game.observer.write(game, player)
        if self.perfect_recall:
            for event in game.view(player).events:
                if isinstance(event, Discarded):
                    for c in event.cards:
                        self.dict["discarded"][event.seat, c] = 1
                elif isinstance(event, Drew) and event.source == "pile" and event.card is not None:
                    self.dict["taken"][event.seat, event.card] = 1
            self.dict["draw_pending"][0] = float(state.pending_draw)
            if self.game.history_tensor:
                self._write_history(game, player)

    def _write_history(self, game: Game, player: int) -> None:
        """The player's dealt hand, the card turned up, and every event it saw, in order: a
        slot each (the seat relative to the player, the kind, the cards), so that the tensor
        tells apart every two histories the player can tell apart (perfect recall)."""
        n = self.game.players
        slots = self.dict["history"]
        kind_at = n
        card_at = n + len(HISTORY_KINDS)
        k = -1
        for event in game.view(player).events:
            if isinstance(event, Dealt):
                for c in event.hands[player] or ():
                    self.dict["dealt"][c] = 1
                self.dict["up"][event.up] = 1
                continue
            if isinstance(event, Refilled):
                if k >= 0:
                    slots[k, kind_at + 5] = 1
                continue
            if isinstance(event, Discarded):
                kind, cards = 0, event.cards
            elif isinstance(event, Drew):
                kind = 1 if event.source == "stock" else 2
                cards = () if event.card is None else (event.card,)
            elif isinstance(event, Slapped):
                kind, cards = 3, (event.card,)
            elif isinstance(event, Passed):
                kind, cards = 4, ()
            else:  # the showdown ends the round: nothing follows it
                continue
            k += 1
            slots[k, (event.seat - player) % n] = 1
            slots[k, kind_at + kind] = 1
            for c in cards:
                slots[k, card_at + c] = 1

    def string_from(self, state: YanivState, player: int) -> str:
        """``player``'s view as text: the whole view with the round's events (perfect recall),
        or without them."""
        game = state.game
        if game is None:
            h = self.game.rules.hand_size
            mine = state.dealt[player * h : (player + 1) * h]
            return f"p{player} dealt " + " ".join(NAMES[c] for c in mine)
        view = game.view(player).to_dict()
        if not self.perfect_recall:
            view.pop("events", None)
        view["draw_pending"] = state.pending_draw
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


pyspiel.register_game(_GAME_TYPE, YanivGame)

__all__ = [
    "HISTORY_KINDS",
    "MAX_MOVES",
    "SHORT_NAME",
    "YanivGame",
    "YanivObserver",
    "YanivState",
    "rules_of",
]
