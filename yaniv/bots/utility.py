"""Game-level utility: the chance of winning the game from a score situation, for a rule set.

Bots and the coach weigh a decision by how it changes the chance of winning the game, not by
points alone, so elimination, bonuses and score pressure are priced the same way everywhere.

The model has two parts.

1. **A round's points.** ``round_points(rules, players)``: the distribution of the raw points
   (before any bonus) one player scores in a round of ``players`` active players, measured by
   self-play of the expert's fast rollout policy (the heuristic the expert's and the master's
   searches play out rounds with) for every seat. The rule options that shape a round (the
   threshold, the penalty, Assaf scoring, the deck, the turn variants...) are all in its key;
   the game-level options (bonus, limit, end mode, next starter) are not, since the rollout
   policy does not read the scores. Rule sets of the presets (and the issue's house rule set)
   ship in ``data/round_points.json`` for 2 to 8 players, built by
   ``scripts/build_utility_table.py``; any other is measured at first use (a smaller number of
   rounds, ``FIRST_USE_ROUNDS``) and kept in memory. Within ``using(path)`` another table file
   of the same format is read instead (to measure two tables against each other,
   ``benchmarks/master_ab.py --table``); each table keeps its own caches.
2. **The game from there.** Each active player's score is a Markov chain over the rounds: add
   a draw of the round's points, apply the bonus exactly as R18 does (``halve`` at its targets,
   ``subtract`` at multiples of its step, never to 0 or to an unchanged score), and go over the
   limit. A score within reach of a bonus score is pulled there, as the expert and the master
   aim their hands at it (``H.bonus_need``): it lands there with the chance measured by
   self-play of the rollout policy like the expert's, the scores drawn as in a game
   (``landing``; shipped in the same file, measured at first use for other rule sets), the
   rest of the round's points scaled to make room. Without it the chain landed a score on a
   bonus only as often as a round's points happen to hit it (1.9 % of rounds from 11-20 points
   under it, where the expert lands 13 %), and was too sure of the leader. ``survival`` gives,
   for every score 0..limit, the chance of still being at or under the limit after ``t`` more
   rounds. Players are taken as independent (a round's points are in truth correlated: one
   player scores 0), and the active count as fixed.
   ``win_chances`` then reads the end mode: under ``elimination`` a player wins by being the
   last at or under the limit (R19; the last ones out together share); under ``first_over``
   (R20) the game ends when the first goes over and the lowest wins, for which the model uses
   the same order (the player who would stay under the limit longest is the one lowest when
   the first goes over), a proxy that keeps the bonus and the limit priced.

Every number comes from the rule set: the limit, the bonus and its targets or step, the end
mode, and the points of a round under those rules. A limit above ``GRID`` points is modelled
on a coarser grid (scores in steps of ``ceil(limit / GRID)``).

>>> from yaniv import RuleSet
>>> rules = RuleSet()
>>> p = win_chances(rules, [0, 150])
>>> p[0] > 0.7 and abs(sum(p) - 1) < 1e-9
True
"""

from __future__ import annotations

import functools
import json
import math
import random
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import resources
from pathlib import Path
from typing import Any

from .. import compiled as _compiled
from ..cards import VALUE, deck
from ..game import Game, Phase
from ..moves import YANIV
from ..rules import RuleSet
from ..view import PlayerView
from . import heuristics as H
from .rollout import rollout_turn

#: The table's format version (a file of another version is ignored and rebuilt at first use).
VERSION = 2
#: The shipped table, in the package.
DATA_FILE = "round_points.json"
#: Options that shape the game, not a round: left out of a round's key.
GAME_OPTIONS = ("bonus", "bonus_targets", "bonus_step", "bonus_amount", "end_mode", "score_limit")
#: Options that shape neither a round nor the pull toward a bonus: left out of a landing's key.
LANDING_FREE = ("end_mode", "next_starter")
#: Rounds of self-play per entry of the shipped table, and for a rule set measured at first use.
TABLE_ROUNDS = 1000
FIRST_USE_ROUNDS = 160
#: ...and at most this many simulated turns at first use (about a second; rounds that stall
#: cost the most), so the first decision under new rules stays short.
FIRST_USE_TURNS = 16_000
#: Rounds of the landing's self-play per entry of the shipped table, and at first use (at most
#: half of ``FIRST_USE_TURNS`` turns).
LANDING_ROUNDS = 4000
FIRST_USE_LANDING_ROUNDS = 500
#: A landing rate pools the needs this many points either side, drawn toward the round points'
#: own chance of the need with the weight of this many tries (few tries give little).
LANDING_WINDOW = 2
LANDING_PRIOR = 20
#: Turns per player after which a self-play round is given up and left out (from
#: ``H.DESPERATE * H.STALL_TURNS`` on, its seats call whenever allowed: the rounds still going
#: are those that cannot get under the threshold).
CAP_TURNS = 40
#: The base seed of the self-play (each entry derives its own from its key).
SEED = 20261201
#: Most score states of the chain; a larger limit is modelled in coarser steps.
GRID = 600
#: Most rounds the chain looks ahead, and the survival below which it stops.
HORIZON = 400
TINY = 1e-6


def round_key(rules: RuleSet) -> str:
    """The options of ``rules`` that shape a round's points, as a stable text."""
    options = rules.to_dict()
    for name in GAME_OPTIONS:
        options.pop(name)
    options.pop("next_starter")  # who starts does not change a round's points on average
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def landing_key(rules: RuleSet) -> str:
    """The options of ``rules`` that shape a landing on a bonus score, as a stable text."""
    options = rules.to_dict()
    for name in LANDING_FREE:
        options.pop(name)
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


# ----------------------------------------------------------------- a round's points


def _self_play(
    rules: RuleSet,
    players: int,
    rounds: int,
    rng: random.Random,
    max_turns: int | None,
    like_expert: bool,
) -> Iterator[tuple[list[int], tuple[int, ...]]]:
    """Self-play rounds of the rollout policy, every seat alike (like the expert's, its calls by
    the quick chance, where ``like_expert``; then every seat's score is drawn evenly from 0 to
    the limit, as in a game, since its bonus pull reads it): each finished round's scores at
    its start and raw points. Stops after ``rounds`` rounds or ``max_turns`` turns. A round
    still running after ``H.DESPERATE * H.STALL_TURNS`` turns a player is stalled: as the
    expert does then, a seat calls whenever it may (the policy's own call bars, strict against
    few cards, can keep hands of one low card each going round the pile for ever); one still
    running after ``CAP_TURNS`` is left out."""
    race = H.DESPERATE * H.STALL_TURNS * players
    cap = CAP_TURNS * players
    threshold = rules.yaniv_threshold
    turns = 0
    for _ in range(rounds):
        if max_turns is not None and turns >= max_turns:
            break
        game = Game.new(rules, players=players, seed=rng.getrandbits(63))
        scores = [0] * players
        if like_expert:
            scores = [rng.randint(0, rules.score_limit) for _ in range(players)]
            game.scores = scores[:]  # the showdown changes the game's scores in place
        for turn in range(cap):
            if game.phase >= Phase.ROUND_OVER:
                break
            seat = game.to_move
            assert seat is not None  # the round is on
            if turn >= race and game.can_yaniv() and game.values[seat] <= threshold:
                game.apply(YANIV)
            else:
                rollout_turn(game, -1, 1.0, H.SHED_WEIGHT, like_expert, like_expert)
            turns += 1
        if game.result is not None:
            yield scores, game.result.points


def self_play_points(
    rules: RuleSet, players: int, rounds: int, seed: int, max_turns: int | None = None
) -> dict[int, int]:
    """Raw round points (before the bonus) per seat over ``rounds`` self-play rounds of the
    expert's rollout policy (fewer where ``max_turns`` turns are played first): a histogram
    ``{points: count}``. Stalled rounds are left out."""

    rng = random.Random(seed)
    hist: dict[int, int] = {}
    for _scores, points in _self_play(rules, players, rounds, rng, max_turns, like_expert=False):
        for pts in points:
            hist[pts] = hist.get(pts, 0) + 1
    if not hist:  # every round stalled: random hands, the lowest scoring 0
        cards = deck(rules.jokers)
        size = min(rules.hand_size, len(cards) // players)
        for _ in range(rounds):
            rng.shuffle(cards)
            values = [
                sum(VALUE[c] for c in cards[s * size : (s + 1) * size]) for s in range(players)
            ]
            low = min(values)
            for v in values:
                pts = 0 if v == low else v
                hist[pts] = hist.get(pts, 0) + 1
    return hist


def self_play_landing(
    rules: RuleSet, players: int, rounds: int, seed: int, max_turns: int | None = None
) -> list[list[int]]:
    """How often a seat ``need`` points under the bonus score it aims at (``H.bonus_need``)
    lands on it exactly: for each need 1..``H.PULL_REACH``, ``[tries, landed]`` over
    ``rounds`` self-play rounds of the rollout policy like the expert's (fewer where
    ``max_turns`` turns are played first), every seat's score drawn evenly from 0 to the limit
    as in a game (so some seats aim and others not). Stalled rounds are left out; a rule set
    without a bonus in reach gives no tries."""
    counts = [[0, 0] for _ in range(H.PULL_REACH)]
    limit = rules.score_limit
    aims = [H.bonus_need(rules, score) for score in range(limit + 1)]
    if not any(aims):
        return counts
    rng = random.Random(seed)
    for scores, points in _self_play(rules, players, rounds, rng, max_turns, like_expert=True):
        for score, pts in zip(scores, points, strict=True):
            aim = aims[score]
            if aim is not None:
                counts[aim[0] - 1][0] += 1
                counts[aim[0] - 1][1] += pts == aim[0]
    return counts


def entry_seed(key: str, players: int) -> int:
    """The self-play seed of one entry of the table: from ``SEED``, the key and the players."""
    return SEED ^ zlib.crc32(f"{key}|{players}".encode())


#: The table file in use in this context: None for the shipped one (``using``).
_SOURCE: ContextVar[str | None] = ContextVar("yaniv_utility_table", default=None)


def read_table(path: str | Path) -> dict[str, Any]:
    """A table file of this version (``scripts/build_utility_table.py --out``); ValueError
    naming the file and what is wrong with it otherwise."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise ValueError(f"utility table {path}: cannot be read ({exc.strerror})") from None
    except ValueError as exc:
        raise ValueError(f"utility table {path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        found = data.get("version") if isinstance(data, dict) else None
        raise ValueError(f"utility table {path}: expected version {VERSION}, found {found!r}")
    try:
        for entry in data.get("entries", ()):
            (_, players), hist = _hist(entry)
            if min(hist.values(), default=-1) < 0 or sum(hist.values()) <= 0:
                raise ValueError(f"{players} players: counts must be 0 or more, not all 0")
        for entry in data.get("landing", ()):
            (_, players), counts = _counts(entry)
            if len(counts) != H.PULL_REACH or any(not 0 <= n <= t for t, n in counts):
                raise ValueError(f"{players} players: {H.PULL_REACH} [tries, landed] expected")
    except KeyError as exc:
        raise ValueError(f"utility table {path}: an entry without {exc}") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"utility table {path}: a malformed entry ({exc!s:.80})") from None
    return data


@contextmanager
def using(path: str | Path) -> Iterator[None]:
    """Within: the utility read from the table file at ``path`` (of this format, built by
    ``scripts/build_utility_table.py --out``) instead of the shipped one, in this context
    only (another thread, even one started within, keeps the shipped one). ValueError in
    words where the file is not such a table."""
    source = str(Path(path).resolve())
    _file(source)  # read and checked now, not at the first decision
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def table_source() -> str | None:
    """The table file in use here (``using``), or None for the shipped one."""
    return _SOURCE.get()


@functools.cache
def _file(source: str | None) -> dict[str, Any]:
    """The table ``source`` (a path; None: the shipped file, empty if missing, unreadable or
    of another version, so that its rule sets are measured at first use)."""
    if source is not None:
        return read_table(source)
    try:
        text = resources.files("yaniv.bots").joinpath("data", DATA_FILE).read_text("utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return {}
    return data


def _hist(entry: dict[str, Any]) -> tuple[tuple[str, int], dict[int, int]]:
    return (entry["key"], int(entry["players"])), {
        int(k): int(v) for k, v in entry["points"].items()
    }


def _counts(entry: dict[str, Any]) -> tuple[tuple[str, int], list[list[int]]]:
    return (entry["key"], int(entry["players"])), [[int(t), int(n)] for t, n in entry["counts"]]


@functools.cache
def _shipped(source: str | None) -> dict[tuple[str, int], dict[int, int]]:
    """The table's round points, ``{(round key, players): histogram}``."""
    return dict(_hist(entry) for entry in _file(source).get("entries", ()))


@functools.cache
def _shipped_landing(source: str | None) -> dict[tuple[str, int], list[list[int]]]:
    """The table's landings, ``{(landing key, players): [[tries, landed] per need]}``."""
    return dict(_counts(entry) for entry in _file(source).get("landing", ()))


def is_shipped(rules: RuleSet, players: int) -> bool:
    """Whether the table in use holds this rule set's rounds and landings of ``players``."""
    source = _SOURCE.get()
    points = (round_key(rules), players) in _shipped(source)
    return points and (landing_key(rules), players) in _shipped_landing(source)


@functools.lru_cache(maxsize=256)
def _points(key: str, players: int, source: str | None) -> tuple[tuple[int, float], ...]:
    hist = _shipped(source).get((key, players))
    if hist is None:
        rules = RuleSet.from_dict(json.loads(key))
        hist = self_play_points(
            rules, players, FIRST_USE_ROUNDS, entry_seed(key, players), FIRST_USE_TURNS
        )
    total = sum(hist.values())
    return tuple((pts, count / total) for pts, count in sorted(hist.items()))


def round_points(rules: RuleSet, players: int) -> tuple[tuple[int, float], ...]:
    """The distribution of one player's raw points in a round of ``players`` active players
    under ``rules``: ``((points, probability), ...)``, points ascending."""
    return _points(round_key(rules), players, _SOURCE.get())


@functools.lru_cache(maxsize=256)
def _landing(key: str, players: int, source: str | None) -> tuple[float, ...]:
    rules = RuleSet.from_dict(json.loads(key))
    counts = _shipped_landing(source).get((key, players))
    if counts is None:
        counts = self_play_landing(
            rules,
            players,
            FIRST_USE_LANDING_ROUNDS,
            entry_seed(key, players),
            FIRST_USE_TURNS // 2,
        )
    base = dict(_points(round_key(rules), players, source))
    rates = [0.0]
    for need in range(1, H.PULL_REACH + 1):
        pooled = counts[max(0, need - 1 - LANDING_WINDOW) : need + LANDING_WINDOW]
        tries = sum(t for t, _ in pooled)
        landed = sum(n for _, n in pooled)
        rates.append((landed + LANDING_PRIOR * base.get(need, 0.0)) / (tries + LANDING_PRIOR))
    return tuple(rates)


def landing(rules: RuleSet, players: int) -> tuple[float, ...]:
    """``landing(...)[need]``: the chance that a player ``need`` points under the bonus score
    it aims at (``H.bonus_need``) lands on it exactly in a round of ``players`` active players
    (``self_play_landing``, pooled over ``LANDING_WINDOW`` needs either side)."""
    return _landing(landing_key(rules), players, _SOURCE.get())


# ----------------------------------------------------------------- the game from there


def _bonus(score: int, rules: RuleSet) -> int:
    """What R18 takes off a score that changed this round and landed on ``score``."""
    if score == 0 or rules.bonus == "none":
        return 0
    if rules.bonus == "halve":
        return score - score // 2 if score in rules.bonus_targets else 0
    return rules.bonus_amount if score % rules.bonus_step == 0 else 0


def grid_step(rules: RuleSet) -> int:
    """Points per state of the chain: 1 up to ``GRID`` points of limit, coarser above."""
    return max(1, math.ceil(rules.score_limit / GRID))


def _pulled(dist: Sequence[tuple[int, float]], need: int, rate: float) -> list[tuple[int, float]]:
    """A round's points ``dist`` with ``need`` points at chance ``rate``, the rest scaled."""
    rest = 1.0 - sum(p for x, p in dist if x == need)
    scale = (1.0 - rate) / rest if rest > 0 else 0.0
    return [(x, p * scale) for x, p in dist if x != need] + [(need, rate)]


def survival(rules: RuleSet, players: int) -> tuple[tuple[float, ...], ...]:
    """``survival(...)[s][t]``: the chance that a player at score ``s * grid_step(rules)``
    is still at or under the limit after ``t`` more rounds of ``players`` active players."""
    return _survival(rules, players, _SOURCE.get())


@functools.lru_cache(maxsize=64)
def _survival(rules: RuleSet, players: int, source: str | None) -> tuple[tuple[float, ...], ...]:
    # ``source``, the table in use (which round_points and landing below read), keys the cache.
    limit = rules.score_limit
    g = grid_step(rules)
    states = limit // g + 1
    base = [(x, p) for x, p in round_points(rules, players) if p > 0]
    rates = landing(rules, players)
    pulled: dict[int, list[tuple[int, float]]] = {}  # the round's points by the need aimed at
    # Each state's successors: (next state, probability); going over the limit drops out.
    trans: list[list[tuple[int, float]]] = []
    for s in range(states):
        aim = H.bonus_need(rules, s * g)
        dist = base
        if aim is not None:
            need = aim[0]
            if need not in pulled:
                pulled[need] = _pulled(base, need, rates[need])
            dist = pulled[need]
        row: dict[int, float] = {}
        for x, p in dist:
            v = s * g + x
            if x:
                v -= _bonus(v, rules)
            if v <= limit:
                nxt = min(states - 1, round(v / g))
                row[nxt] = row.get(nxt, 0.0) + p
        trans.append(list(row.items()))
    cols: list[list[float]] = [[1.0] * states]
    prev = cols[0]
    for _ in range(HORIZON):
        cur = [sum(p * prev[n] for n, p in row) for row in trans]
        cols.append(cur)
        prev = cur
        if max(cur) < TINY:
            break
    return tuple(tuple(col[s] for col in cols) for s in range(states))


@functools.lru_cache(maxsize=64)
def _fail_table(rules: RuleSet, players: int, source: str | None) -> tuple[tuple[float, ...], ...]:
    """``_fail_table(...)[s][t]``: the chance that a player at state ``s`` is over the limit
    after ``t`` more rounds (``1 - survival``) with the table ``source`` in use, every row as
    long as the longest."""
    table = survival(rules, players)
    horizon = max(len(r) for r in table)
    return tuple(tuple(1.0 - (r[t] if t < len(r) else 0.0) for t in range(horizon)) for r in table)


def _state(rules: RuleSet, score: int) -> int:
    g = grid_step(rules)
    return min(rules.score_limit // g, round(score / g))


def win_chances(
    rules: RuleSet, scores: Sequence[int], out: Sequence[bool] | None = None
) -> tuple[float, ...]:
    """Each seat's chance of winning the game from these scores (the out score 0), summing to
    1: the model of the module docstring."""
    n = len(scores)
    gone = [False] * n if out is None else [bool(o) for o in out]
    limit = rules.score_limit
    for s in range(n):
        if scores[s] > limit:
            gone[s] = True
    return _chances(rules, tuple(scores), tuple(gone), _SOURCE.get())


@functools.lru_cache(maxsize=65536)
def _chances(
    rules: RuleSet, scores: tuple[int, ...], gone: tuple[bool, ...], source: str | None
) -> tuple[float, ...]:
    n = len(scores)
    active = [s for s in range(n) if not gone[s]]
    if len(active) <= 1:
        if not active:
            low = min(scores)
            tied = [s for s in range(n) if scores[s] == low]
            return tuple(1 / len(tied) if s in tied else 0.0 for s in range(n))
        return tuple(1.0 if s == active[0] else 0.0 for s in range(n))
    table = _fail_table(rules, len(active), source)
    # F[i][t]: the chance that player i is over the limit after t rounds.
    fails = [table[_state(rules, scores[s])] for s in active]
    k = len(active)
    core = _compiled.choose(None)
    found = None if core is None else core.win_raw(fails)
    raw: Sequence[float] = _raw_chances(fails) if found is None else found
    whole = sum(raw)
    out_chances = [0.0] * n
    for i, s in enumerate(active):
        out_chances[s] = raw[i] / whole if whole > 0 else 1.0 / k
    return tuple(out_chances)


def _raw_chances(fails: list[tuple[float, ...]]) -> list[float]:
    """Per player still in (``fails[i][t]``: its chance of being over the limit after ``t``
    rounds), the chance of being the last one under it, a shared last round counted half;
    ``_chances`` scales them to sum to 1. On the compiled core, ``win_raw`` (C, the same
    floats)."""
    k = len(fails)
    raw = [0.0] * k
    for i in range(k):
        others = [fails[j] for j in range(k) if j != i]
        mine = fails[i]
        # prods[t]: the chance that every other player is out after t rounds, the product
        # taken in seat order (the same floats whatever the loop's shape)
        prods: Sequence[float] = others[0]
        for f in others[1:]:
            prods = [a * b for a, b in zip(prods, f, strict=True)]
        before = 0.0  # the chance that every other player is out after t - 1 rounds
        total = 0.0
        for now, m, m_before in zip(prods[1:], mine[1:], mine, strict=False):
            last = now - before  # the last of the others went out in round t
            if last > 0:
                # I am still in (I win), or went out in the same round (we share).
                total += last * ((1.0 - m) + 0.5 * (m - m_before))
            before = now
        raw[i] = total
    return raw


def win_probability(
    rules: RuleSet, scores: Sequence[int], seat: int, out: Sequence[bool] | None = None
) -> float:
    """The chance that ``seat`` wins the game from these scores (``win_chances``)."""
    return win_chances(rules, scores, out)[seat]


def view_chances(view: PlayerView) -> tuple[float, ...]:
    """Each seat's chance of winning the game from the scores ``view`` shows (for the coach
    and front ends)."""
    return win_chances(view.rules, view.scores, view.out)


def table_entry(rules: RuleSet, players: int, rounds: int = TABLE_ROUNDS) -> dict[str, Any]:
    """One entry of the shipped table, measured by self-play (``self_play_points``)."""
    key = round_key(rules)
    hist = self_play_points(rules, players, rounds, entry_seed(key, players))
    return {
        "key": key,
        "players": players,
        "rounds": rounds,
        "points": {str(k): v for k, v in sorted(hist.items())},
    }


def landing_entry(rules: RuleSet, players: int, rounds: int = LANDING_ROUNDS) -> dict[str, Any]:
    """One landing entry of the shipped table, measured by self-play (``self_play_landing``)."""
    key = landing_key(rules)
    return {
        "key": key,
        "players": players,
        "rounds": rounds,
        "counts": self_play_landing(rules, players, rounds, entry_seed(key, players)),
    }


__all__ = [
    "DATA_FILE",
    "FIRST_USE_ROUNDS",
    "TABLE_ROUNDS",
    "entry_seed",
    "grid_step",
    "is_shipped",
    "landing",
    "landing_entry",
    "landing_key",
    "read_table",
    "round_key",
    "round_points",
    "self_play_landing",
    "self_play_points",
    "survival",
    "table_entry",
    "table_source",
    "using",
    "view_chances",
    "win_chances",
    "win_probability",
]
