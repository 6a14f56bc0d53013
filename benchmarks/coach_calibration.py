"""The coach's calibration against every built-in level: at every position where the mover may
call Yaniv (a hand at or under the threshold), the coach's success probability against the
call's real outcome, by decile.

    nice -n 15 .venv/bin/python benchmarks/coach_calibration.py [--levels random,easy,...]
        [--games N] [--players 2,4] [--rules standard] [--think-ms 20] [--save FILE] [--json]
    nice -n 15 .venv/bin/python benchmarks/coach_calibration.py --fit FILE [FILE...] [--write]
    nice -n 15 .venv/bin/python benchmarks/coach_calibration.py --evaluate FILE [FILE...]

Each level plays ``N`` games of ``players`` seats against itself (every seat that level, the
master with a small ``--think-ms``, the learned level only where numpy is installed). At every
turn where a Yaniv call under the threshold is legal, the coach's ``yaniv_success_probability``
of the mover's view is recorded with whether the call would succeed: the call is played out on
a clone of the game (a call's outcome is decided by the hands alone), and the game goes on with
the bot's own move. Positions where the coach's answer is exact (every opponent card known, or
a known card alone beats the caller) are counted apart: they are certain, and would only fill
the end deciles with sure answers.

The verdict of a decile: ``ok`` where the observed rate is within 3 points of the mean
prediction; ``noise`` where it is not, but the 95 % interval of the observed rate reaches
within 3 points of it (by rounds, ``rounds_interval``, for positions saved with their game
and round; Wilson's for older files, which is narrower than the truth); ``OFF`` otherwise;
``few`` under ``--min-count`` positions.

``--against`` tells the coach the opponents' level (``yaniv_success_probability(view,
against=LEVEL)``: that level's own correction where one is shipped), as a table of bots does.

``--save`` writes every uncertain position (raw frequency, calibration features, outcome,
level, players) as JSON lines; ``--fit`` refits the coach's logistic correction to saved
positions by maximum likelihood, each level weighted alike (so no level's calibration is
sacrificed to the level that happens to make the most positions), prints the parameters and,
with ``--write``, writes them to ``yaniv/bots/data/coach_calibration.json``, which the coach
loads in place of its built-in ones (``yaniv.bots.coach.CAL_FILE``). It fits one correction
for any opponents and, for each level and table size (2 players, or more) with enough
positions (``MIN_FIT``), one of its own, with the hinge that bends its low tail
(``yaniv.bots.coach.HINGE_AT``).
``--keep-general`` keeps the shipped general correction (the bots read it: their play, and
the figures measured with it, stay as they are) and fits the levels' alone.
``--evaluate`` shows saved positions (another seed's, for an out-of-sample check) under the
shipped corrections, general and per level, without fitting.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yaniv import Game
from yaniv.arena import wilson
from yaniv.bots import bot_names, get_bot
from yaniv.bots import coach as C
from yaniv.game import Phase
from yaniv.moves import YANIV
from yaniv.rules import RuleSet
from yaniv.state import ResultKind

LEVELS = ("random", "easy", "medium", "expert", "master", "learned")
TOLERANCE = 0.03
#: Positions of a round where every opponent has discarded more than this many times are
#: stalled (a bot trading cards through the pile for ever) and left out: one such round gives
#: thousands of alike positions. The cap check counts those rounds (benchmarks/bots.py).
STALLED = 40


def positions(
    level: str,
    players: int,
    games: int,
    rules: RuleSet,
    seed: int,
    think_ms: float,
    against: bool = False,
) -> tuple[list[dict[str, Any]], int, int, int]:
    """Play ``games`` self-play games of ``level``; the uncertain positions where the mover
    may call (each with the coach's answer, told the opponents' level where ``against``, and
    the call's outcome), the number of exact ones and how many of those the coach got wrong,
    and the positions of stalled rounds left out."""
    out: list[dict[str, Any]] = []
    exact = wrong = stalled = 0
    for g in range(games):
        deal_seed = seed * 1_000_003 + g
        bots = [get_bot(level, deal_seed * 16 + s, think_ms=think_ms) for s in range(players)]
        game = Game.new(rules, players=players, seed=deal_seed)
        moves = 0
        while game.phase != Phase.GAME_OVER and moves < 5_000:
            if game.phase == Phase.ROUND_OVER:
                game.next_round()
                continue
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            can_call = YANIV in view.legal_moves and view.hand_value <= rules.yaniv_threshold
            if can_call and min(o.turns for o in C.opponents(view)) > STALLED:
                stalled += 1
            elif can_call:
                p = C.yaniv_success_probability(view, level if against else None)
                raw, is_exact = C.raw_success(view)
                trial = game.clone()
                result = trial.apply(YANIV)
                assert result is not None
                ok = result.kind is ResultKind.YANIV
                if is_exact:
                    exact += 1
                    wrong += (p >= 0.5) != ok
                else:
                    out.append(
                        {
                            "level": level,
                            "players": players,
                            "p": p,
                            "raw": raw,
                            "features": list(C.calibration_features(view)),
                            "ok": ok,
                            "seed": seed,
                            "game": g,
                            "round": game.round_no,
                        }
                    )
            game.apply(bots[seat].choose(view))
            moves += 1
    return out, exact, wrong, stalled


def rounds_interval(rows: Sequence[dict[str, Any]], z: float = 1.959964) -> tuple[float, float]:
    """The 95 % interval of the observed rate with the positions of one round as one cluster
    (a player's turns on one low hand are not independent calls): the ratio estimator's
    variance summed over rounds, a normal interval. Positions saved with their game and round."""
    clusters: dict[tuple[Any, ...], list[int]] = {}
    for r in rows:
        key = (r["level"], r["players"], r.get("seed"), r["game"], r["round"])
        c = clusters.setdefault(key, [0, 0])
        c[0] += 1
        c[1] += bool(r["ok"])
    n, k = len(rows), len(clusters)
    rate = sum(c[1] for c in clusters.values()) / n
    if k < 2:
        return (0.0, 1.0)
    spread = sum((y - rate * m) ** 2 for m, y in clusters.values()) * k / (k - 1)
    half = z * math.sqrt(spread) / n
    return (max(0.0, rate - half), min(1.0, rate + half))


def table(rows: Sequence[dict[str, Any]], min_count: int) -> list[dict[str, Any]]:
    """Per decile of the prediction: count, mean prediction, observed rate, interval, verdict."""
    out = []
    for d in range(10):
        sel = [r for r in rows if min(9, int(r["p"] * 10)) == d]
        n = len(sel)
        if not n:
            out.append({"decile": d, "n": 0, "verdict": "few"})
            continue
        pred = sum(r["p"] for r in sel) / n
        wins = sum(r["ok"] for r in sel)
        obs = wins / n
        lo, hi = rounds_interval(sel) if all("game" in r for r in sel) else wilson(wins, n)
        if n < min_count:
            verdict = "few"
        elif abs(obs - pred) <= TOLERANCE:
            verdict = "ok"
        elif lo - TOLERANCE <= pred <= hi + TOLERANCE:
            verdict = "noise"
        else:
            verdict = "OFF"
        out.append(
            {
                "decile": d,
                "n": n,
                "predicted": round(pred, 4),
                "observed": round(obs, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "verdict": verdict,
            }
        )
    return out


def show(label: str, rows: list[dict[str, Any]], exact: int, wrong: int, stalled: int = 0) -> None:
    """Print one level's table."""
    print(f"\n{label}: exact positions {exact} (wrong {wrong}), stalled left out {stalled}")
    print("  decile      n  predicted  observed   95% interval     verdict")
    for r in rows:
        d = r["decile"]
        if not r["n"]:
            print(f"  {d / 10:.1f}-{(d + 1) / 10:.1f}      0")
            continue
        lo, hi = r["ci95"]
        print(
            f"  {d / 10:.1f}-{(d + 1) / 10:.1f} {r['n']:6d}   {r['predicted']:7.1%}  "
            f"{r['observed']:7.1%}   {lo:6.1%}-{hi:6.1%}   {r['verdict']}"
        )
    worst = max(
        (abs(r["observed"] - r["predicted"]) for r in rows if r["verdict"] != "few"), default=0.0
    )
    offs = sum(r["verdict"] == "OFF" for r in rows)
    print(f"  largest gap in deciles with enough positions: {worst:.1%}; OFF deciles: {offs}")


# ----------------------------------------------------------------- refitting the correction


def _fit(
    rows: Sequence[dict[str, Any]], steps: int = 50, hinge: bool = False
) -> tuple[float, float, list[float]]:
    """Maximum-likelihood logistic fit of ``ok`` on ``logit(raw)`` and the features, and with
    ``hinge`` the coach's hinge of the logit (``C.hinge``; its weight comes last) (Newton's
    method, each level's positions weighted to the same total). Needs numpy."""
    import numpy as np

    per_level: dict[str, int] = {}
    for r in rows:
        per_level[r["level"]] = per_level.get(r["level"], 0) + 1
    q = np.clip(np.array([r["raw"] for r in rows]), 0.002, 0.998)
    logit = np.log(q / (1 - q))
    columns = [logit, np.ones(len(rows)), np.array([r["features"] for r in rows])]
    if hinge:
        columns.append(np.array([C.hinge(float(v)) for v in logit]))
    x = np.column_stack(columns)
    y = np.array([1.0 if r["ok"] else 0.0 for r in rows])
    w = np.array([len(rows) / (len(per_level) * per_level[r["level"]]) for r in rows])
    ridge = 1e-3 * len(rows)  # a mild pull to 0, against separated corners of the data

    def loss(b: Any) -> float:
        z = np.clip(x @ b, -30, 30)
        return float(np.sum(w * (np.logaddexp(0, z) - y * z)) + 0.5 * ridge * (b[2:] @ b[2:]))

    beta = np.zeros(x.shape[1])
    beta[0] = 1.0
    pen = np.eye(x.shape[1]) * ridge
    pen[0, 0] = pen[1, 1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(x @ beta, -30, 30)))
        grad = x.T @ (w * (y - p)) - pen @ beta
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + pen + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        t, before = 1.0, loss(beta)
        while t > 1e-4 and loss(beta + t * step) > before:  # Newton, with a backtracking line
            t /= 2
        beta = beta + t * step
        if np.max(np.abs(t * step)) < 1e-9:
            break
    return float(beta[0]), float(beta[1]), [float(b) for b in beta[2:]]


def load_rows(files: Sequence[str]) -> list[dict[str, Any]]:
    """Saved positions (``--save``), stalled ones left out, their features as the coach's now."""
    rows = [json.loads(line) for f in files for line in Path(f).read_text().splitlines() if line]
    rows = [r for r in rows if r["features"][0] <= STALLED]
    for r in rows:  # positions saved by an earlier version: the features as the coach's now
        f = r["features"] + r.pop("extras", [])
        for i in (0, 7, 9):
            f[i] = min(f[i], C.TURNS_CAP)
        r["features"] = f
    return rows


def evaluate(
    rows: list[dict[str, Any]],
    general: C.Params,
    own: dict[tuple[str, str], C.Params],
    min_count: int,
    label: str,
) -> dict[str, Any]:
    """Each (level, players) table under the general correction and under the level's own for
    that table size (where it has one); prints them and returns the largest gaps."""
    gaps: dict[str, Any] = {}
    for key in sorted({(r["level"], r["players"]) for r in rows}):
        sel = [r for r in rows if (r["level"], r["players"]) == key]
        mine = own.get((key[0], C.table_size(key[1])))
        for which, params in (("general", general), ("own", mine)):
            if params is None:
                continue
            for r in sel:
                r["p"] = C.calibrate(r["raw"], tuple(r["features"]), params)
            deciles = table(sel, min_count)
            show(f"{key[0]}, {key[1]} players ({label}, {which} correction)", deciles, 0, 0)
            judged = [r for r in deciles if r["verdict"] != "few"]
            gaps[f"{key[0]}_{key[1]}p_{which}"] = {
                "positions": len(sel),
                "largest_gap": max(
                    (abs(r["observed"] - r["predicted"]) for r in judged), default=None
                ),
                "off": sum(r["verdict"] == "OFF" for r in judged),
            }
    return gaps


#: Fewest positions of a level and table size for a correction of their own (12 parameters):
#: with fewer (the master's), the general correction did better on another seed's positions.
MIN_FIT = 4_000


def _rounded(params: tuple[float, float, Sequence[float]]) -> dict[str, Any]:
    a, b, w = params
    return {"a": round(a, 4), "b": round(b, 4), "w": [round(x, 4) for x in w]}


def fit_command(files: Sequence[str], write: bool, min_count: int, keep_general: bool) -> None:
    """Refit the general correction and one per level and table size to saved positions, show
    each level's tables under them (in sample), and write the data file where asked. With
    ``keep_general`` the shipped general correction is kept as it is (the bots' own odds, and
    so their play, do not change) and only the levels' are fitted."""
    rows = load_rows(files)
    shipped: dict[str, Any] = {}
    if keep_general:
        general = C.cal_params()
        shipped = json.loads((Path(C.__file__).parent / "data" / C.CAL_FILE).read_text("utf-8"))
        print(f"the general correction kept: {general}")
    else:
        a, b, w = _fit(rows)
        print(f"fitted on {len(rows)} positions: CAL_A={a:.4f} CAL_B={b:.4f} CAL_W={w}")
        general = (a, b, tuple(w))
    own: dict[tuple[str, str], C.Params] = {}
    for key in sorted({(r["level"], C.table_size(r["players"])) for r in rows}):
        sel = [r for r in rows if (r["level"], C.table_size(r["players"])) == key]
        if len(sel) >= MIN_FIT:
            la, lb, lw = _fit(sel, hinge=True)
            own[key] = (la, lb, tuple(lw))
            print(f"{key[0]}, {key[1]} players: fitted on {len(sel)} positions")
        else:
            print(f"{key[0]}, {key[1]} players: {len(sel)} positions: the general correction")
    evaluate(rows, general, own, min_count, "refitted, in sample")
    if write:
        by_level: dict[str, dict[str, Any]] = {}
        for (level, size), params in sorted(own.items()):
            by_level.setdefault(level, {})[size] = _rounded(params)
        command = (
            "nice -n 15 .venv/bin/python benchmarks/coach_calibration.py --fit "
            + " ".join(Path(f).name for f in files)
            + (" --keep-general" if keep_general else "")
            + " --write"
        )
        data = {
            "what": "the coach's logistic correction (yaniv.bots.coach.calibrate): the general "
            "one, and under by_level one per level and table size for opponents all of it",
            **_rounded(general),
            "by_level": by_level,
            "by_level_positions": len(rows),
            "by_level_command": command,
        }
        if keep_general:  # the general one's own record, as it was written
            data |= {k: shipped[k] for k in ("positions", "levels", "command") if k in shipped}
        else:
            data |= {
                "positions": len(rows),
                "levels": sorted({r["level"] for r in rows}),
                "command": command,
            }
        path = Path(C.__file__).parent / "data" / C.CAL_FILE
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")


def main() -> None:
    """Measure the coach's calibration per level (or refit it, with ``--fit``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--games", type=int, default=100, help="games per level and size")
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--rules", default="standard", help="a preset name")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think-ms", type=float, default=20.0, help="the master's budget")
    parser.add_argument("--min-count", type=int, default=200, help="positions for a verdict")
    parser.add_argument(
        "--against", action="store_true", help="the coach told the opponents' level"
    )
    parser.add_argument("--save", help="write the uncertain positions here (JSON lines)")
    parser.add_argument("--fit", nargs="+", help="refit the correction to saved positions")
    parser.add_argument("--write", action="store_true", help="with --fit: write the data file")
    parser.add_argument(
        "--keep-general", action="store_true", help="with --fit: fit the levels' only"
    )
    parser.add_argument(
        "--evaluate", nargs="+", help="saved positions under the shipped corrections (no fit)"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    if args.fit:
        fit_command(args.fit, args.write, args.min_count, args.keep_general)
        return
    if args.evaluate:
        own = {k: C.cal_params(k[0], 2 if k[1] == "2" else 3) for k in C.calibrated_levels()}
        gaps = evaluate(load_rows(args.evaluate), C.cal_params(), own, args.min_count, "shipped")
        if args.json:
            print(json.dumps(gaps))
        return
    rules = RuleSet.preset(args.rules)
    available = set(bot_names())
    report: dict[str, Any] = {"rules": args.rules, "games": args.games, "levels": {}}
    save = open(args.save, "a", encoding="utf-8") if args.save else None  # noqa: SIM115
    try:
        for level in args.levels.split(","):
            if level not in available:
                print(f"\n{level}: not available here (skipped)")
                continue
            for players in (int(x) for x in args.players.split(",")):
                t0 = time.process_time()
                rows, exact, wrong, stalled = positions(
                    level, players, args.games, rules, args.seed, args.think_ms, args.against
                )
                cpu = time.process_time() - t0
                label = f"{level}, {players} players, {args.games} games"
                deciles = table(rows, args.min_count)
                show(
                    f"{label} ({cpu:.0f} CPU s, load {os.getloadavg()[0]:.2f})",
                    deciles,
                    exact,
                    wrong,
                )
                report["levels"][f"{level}_{players}p"] = {
                    "positions": len(rows),
                    "exact": exact,
                    "exact_wrong": wrong,
                    "stalled": stalled,
                    "cpu_s": round(cpu, 1),
                    "deciles": deciles,
                }
                if save is not None:
                    for r in rows:
                        save.write(json.dumps(r) + "\n")
                    save.flush()
                sys.stdout.flush()
    finally:
        if save is not None:
            save.close()
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()
