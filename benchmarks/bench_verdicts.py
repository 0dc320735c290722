"""How trustworthy are review's verdicts: the quick pass, the deep check, and
a check ten times deeper, on random positions from strong self-play.

    .venv/bin/python benchmarks/bench_verdicts.py [--positions 200]
        [--rules scopa] [--seed 1] [--workers N] [--players endgame] [--show 3]

A position: round i of a rounds run (seed --seed) played by --players for
every seat (`trace_round`), stopped before a random play from the 3rd to the
30th, where the seat to play has two or more moves and something is hidden.
Each is valued three ways, as `review` values a decision:

    quick    advise's rollouts (heuristic, at most 10,000, stopping early)
    deep     the deep evaluator (DEEP_STRATEGY for every seat, DEEP_SAMPLES
             deals, as review's check plays them: all)
    deeper   the same, 10 x DEEP_SAMPLES deals, all of them (no early stop),
             where the quick pass labels some move (elsewhere no label is checked)

and every legal move is taken as if played and labelled as review labels it
(the quick label, checked: the deep one). Prints, with
95% intervals (Wilson) and n:

- how often the quick best move is the deep best;
- how often the quick best is significantly worse by the deep values
  (its paired interval against the deep best below 0), and by how much;
- of the labelled moves, how often the deeper check overturns the label
  (finds the move no error: its cost interval covers 0, or its cost is
  below the mildest threshold) and how often it would give another label;
  the same for the quick pass's labels alone (--quick's);
- the seconds a position of each level;

and, with --show K, the first K positions where the quick pass labels a
move the checked review does not (`trace_round` seed, round, play), for
tests.
"""
import argparse
import random
import time

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from scopa_sim import trace_round
from scopa_sim.study.advise import (BATCH, DEEP_BATCH, DEEP_SAMPLES, DEEP_STRATEGY, DEFAULT_ROLLOUTS,
                              DEFAULT_STRATEGY, _open, evaluate)
from scopa_sim.runs.executors import default_workers
from scopa_sim.engine.game import Round
from scopa_sim.study.review import CHECKED, THRESHOLDS, label


def positions(args):
    """(round index, play, Round stepped to it) for --positions positions."""
    rng = random.Random(args.seed)
    i = 0
    while True:
        played = trace_round(args.seed, i, (args.players,) * 2, args.rules)
        ply = rng.randrange(2, 30)
        rnd = Round(played.rules, deck=played.deck_order, dealer=played.dealer)
        for seat, card, take in played.moves[:ply]:
            rnd.play(card, take)
        pos, _ = rnd.kernel_position()
        if len(rnd.legal_moves()) > 1 and not _open(pos, rnd.turn, rnd.rules):
            yield i, ply, rnd
        i += 1


def labels(result: dict) -> dict[str, str]:
    """Each move's label as review gives it from one evaluation."""
    return {m["move"]: label(-m["vs_best"], -m["vs_best_high"], False, THRESHOLDS)
            for m in result["moves"]}


def wrong(result: dict) -> dict[str, bool]:
    """Whether each move is no error by one evaluation: its cost interval
    covers 0, or its cost is below the mildest threshold."""
    mildest = min(THRESHOLDS.values())
    return {m["move"]: m["vs_best_high"] >= 0 or -m["vs_best"] < mildest
            for m in result["moves"]}


def rate(k: int, n: int) -> str:
    if n == 0:
        return "n/a (n = 0)"
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    return f"{k / n:.3f} [{low:.3f}, {high:.3f}] ({k}/{n})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--rules", default="scopa")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--players", default="endgame")
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    stats = {"same": 0, "worse": 0, "loss": [], "labelled": 0, "removed": 0, "changed": 0,
             "q_labelled": 0, "q_removed": 0, "q_changed": 0, "deeper": 0}
    seconds = {"quick": 0.0, "deep": 0.0, "deeper": 0.0}
    shown, n = [], 0
    for i, ply, rnd in positions(args):
        if n == args.positions:
            break
        n += 1
        pos, deck = rnd.kernel_position()
        runs = {}
        for level, strategy, rollouts, early in (
                ("quick", DEFAULT_STRATEGY, DEFAULT_ROLLOUTS, True),
                ("deep", DEEP_STRATEGY, DEEP_SAMPLES, False),
                ("deeper", DEEP_STRATEGY, 10 * DEEP_SAMPLES, False)):
            if level == "deeper" and not any(labels(runs["quick"]).values()):
                runs[level] = None                    # no label to check: not needed
                continue
            t = time.perf_counter()
            runs[level] = evaluate(rnd.rules, pos, deck, rnd.turn, None, strategy, rollouts,
                                   early_stop=early, seed=1000 * i + ply, workers=args.workers,
                                   batch=BATCH if level == "quick" else DEEP_BATCH)
            seconds[level] += time.perf_counter() - t
        quick, deep, deeper = runs["quick"], runs["deep"], runs["deeper"]
        q_best = quick["moves"][0]["move"]
        stats["same"] += q_best == deep["moves"][0]["move"]
        d = next(m for m in deep["moves"] if m["move"] == q_best)
        if d["vs_best_high"] < 0:
            stats["worse"] += 1
            stats["loss"].append(-d["vs_best"])
        q_labels, d_labels = labels(quick), labels(deep)
        if deeper is None:
            print(f"\r{n} positions", end="", flush=True)
            continue
        ref, fine = labels(deeper), wrong(deeper)
        stats["deeper"] += 1
        checked = {m: d_labels[m] if q in CHECKED else q for m, q in q_labels.items()}
        for move, given in checked.items():
            if given:
                stats["labelled"] += 1
                stats["removed"] += fine[move]
                stats["changed"] += ref[move] != given
        for move, given in q_labels.items():
            if given:
                stats["q_labelled"] += 1
                stats["q_removed"] += fine[move]
                stats["q_changed"] += ref[move] != given
                if checked[move] == "" and len(shown) < args.show:
                    shown.append((i, ply, move, given, q_labels, checked, ref))
        print(f"\r{n} positions", end="", flush=True)
    print(f"\rverdicts on {n} positions of {args.rules} ({args.players} self-play, seed "
          f"{args.seed}, plays 3..30); quick: {DEFAULT_STRATEGY} rollouts, at most "
          f"{DEFAULT_ROLLOUTS:,}; deep: {DEEP_STRATEGY}, at most {DEEP_SAMPLES}; deeper: "
          f"{10 * DEEP_SAMPLES} deals")
    print(f"  quick best = deep best:              {rate(stats['same'], n)}")
    loss = np.array(stats["loss"])
    size = f"; by {loss.mean():.3f} points on average" if len(loss) else ""
    print(f"  quick best significantly worse:      {rate(stats['worse'], n)}{size}")
    print(f"  checked labels overturned (deeper: no error):  "
          f"{rate(stats['removed'], stats['labelled'])}")
    print(f"  checked labels changed (any other label):      "
          f"{rate(stats['changed'], stats['labelled'])}")
    print(f"  quick labels overturned (deeper: no error):    "
          f"{rate(stats['q_removed'], stats['q_labelled'])}")
    print(f"  quick labels changed:                          "
          f"{rate(stats['q_changed'], stats['q_labelled'])}")
    print(f"  seconds a position: quick {seconds['quick'] / n:.2f}, deep {seconds['deep'] / n:.2f}"
          f", deeper {seconds['deeper'] / max(stats['deeper'], 1):.2f} (run on "
          f"{stats['deeper']} positions, those with a quick label)")
    for i, ply, move, given, q, c, ref in shown:
        print(f"  quick labels {move!r} {given}, the checked review does not: trace_round("
              f"{args.seed}, {i}, ({args.players!r},)*2, {args.rules!r}) before play {ply + 1}; "
              f"deeper: {ref[move] or 'no label'}")


if __name__ == "__main__":
    main()
