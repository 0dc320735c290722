"""The strength/cost frontier: every strategy and setting as its margin against
one fixed reference on duplicate deals (95% interval) against its cost per move.

    .venv/bin/python benchmarks/frontier.py [--deals N] [--search-deals M]
        [--ref SPEC] [--rules PRESET] [--seed S] [--workers W] [--out frontier.png]
        [--json results.json] [STRATEGY ...]

For each strategy (the defaults below, or the ones named on the command line):

- cost: the strategy plays itself with `scopa_sim.simulate(..., workers=1)`
  for a growing number of rounds until at least --min-cpu seconds of CPU are
  spent; ms per move = CPU seconds / (rounds x plays per round) x 1000, where
  a round has 40 - table_size plays (36 in two-player scopa, 40 in scopone),
  so it is the mean over every play of the round, forced ones included.
  Rounds per second per core = 1000 / (ms per move x plays per round).
- strength: `scopa_sim.study.matches.compare(strategy, ref)`, the paired
  point margin per round (strategy minus reference) with its 95% interval, on
  --deals duplicate deals for the fast strategies and --search-deals for the
  search strategies (pimc, ismcts), all with the same seed (the same decks).

Prints a table (a `*` marks the points on the frontier: no other point is
both cheaper and stronger) and writes a chart (strength against ms per move,
log x axis, 95% intervals as error bars) to --out. The reference is spelled
out with all its parameters, so it stays the same when defaults change.
Uses only the public API (`scopa_sim.simulate`, `scopa_sim.Rules`,
`scopa_sim.parse_strategy`, `scopa_sim.study.matches.compare`). The
defaults take about 5 minutes on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

import scopa_sim
from scopa_sim.study.matches import compare

REFERENCE = "pimc:samples=24,rollout=heuristic,endgame=1,infer=0"  # the default pimc
STRATEGIES = (
    "greedy", "heuristic", "heuristic:primiera=2.5,coin_exposed=15", "counter", "reply",
    "endgame", "endgame:fallback=counter",
    "pimc:samples=8", "pimc:samples=24,rollout=heuristic", "pimc:samples=24,rollout=counter",
    "pimc:samples=64,rollout=heuristic", "pimc:samples=64,rollout=counter",
    "pimc:samples=200,rollout=heuristic", "pimc:samples=200,rollout=counter",
    "pimc:samples=400,rollout=heuristic,infer=0", "pimc:samples=400,rollout=heuristic",
    "pimc:samples=1000,rollout=heuristic",
    "ismcts:iterations=200", "ismcts:iterations=600,rollout=heuristic",
    "ismcts:iterations=600,rollout=counter", "spimc:samples=100", "spimc",
)
SEARCH = ("pimc", "ismcts", "spimc")
CARDS = 40


def plays_per_round(rules: str) -> int:
    return CARDS - scopa_sim.Rules.preset(rules).table_size


def cost(spec: str, rules: str, seed: int, min_cpu: float) -> tuple[float, int, float]:
    """(ms per move, rounds timed, CPU seconds) of `spec` playing itself on one core."""
    scopa_sim.simulate(rounds=2, strategies=(spec, spec), rules=rules, seed=seed + 1,
                       workers=1)                 # untimed: any compiling happens here
    rounds = 2
    while True:
        t = time.process_time()
        scopa_sim.simulate(rounds=rounds, strategies=(spec, spec), rules=rules, seed=seed,
                           workers=1)
        cpu = time.process_time() - t
        if cpu >= min_cpu or rounds >= 1_000_000:
            return 1000.0 * cpu / (rounds * plays_per_round(rules)), rounds, cpu
        rounds = min(1_000_000, max(2 * rounds, int(rounds * 1.2 * min_cpu / max(cpu, 1e-4))))


def frontier(points: list[dict]) -> None:
    """Mark the points no other point beats on both cost and strength."""
    for p in points:
        p["frontier"] = not any(q is not p and q["ms"] <= p["ms"] and q["margin"] > p["margin"]
                                for q in points)


def chart(points: list[dict], ref: str, rules: str, out: str, plays: int) -> None:
    import matplotlib.pyplot as plt

    from scopa_sim.analysis.charts import plain_log_x          # also selects the Agg backend

    fig, ax = plt.subplots(figsize=(9.0, 6.0), dpi=100, layout="constrained")
    colours = {"pimc": "#1f77b4", "ismcts": "#d62728", "reference": "#000000"}
    for p in points:
        family = "reference" if p["reference"] else p["spec"].split(":")[0]
        c = colours.get(family, "#2ca02c")
        ax.errorbar([p["ms"]], [p["margin"]],
                    yerr=[[p["margin"] - p["low"]], [p["high"] - p["margin"]]],
                    fmt="D" if p["frontier"] else "o", color=c, ecolor=c, capsize=3, ms=5)
        ax.annotate(p["spec"], (p["ms"], p["margin"]), textcoords="offset points",
                    xytext=(5, 3), fontsize=7)
    front = sorted((p for p in points if p["frontier"]), key=lambda p: p["ms"])
    ax.plot([p["ms"] for p in front], [p["margin"] for p in front], "--", color="grey",
            lw=1, label="frontier")
    ax.axhline(0.0, color="black", lw=0.6)
    ax.axvline(1000.0 / (20_000 * plays), color="#2ca02c", lw=0.8, ls=":",
               label="20,000 rounds/s per core")
    ax.axvline(2.0, color="#1f77b4", lw=0.8, ls=":", label="2 ms per move")
    plain_log_x(ax, "{x:g}")
    ax.set_xlabel("CPU milliseconds per move, one core (log scale)")
    ax.set_ylabel(f"points per round against {ref} (95% CI)")
    ax.set_title(f"Strength against cost, {rules}: duplicate deals")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right")
    fig.savefig(out)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strategies", nargs="*", help="strategies to place (default: a set of "
                    "every strategy and the main settings)")
    ap.add_argument("--ref", default=REFERENCE, help=f"the fixed reference (default {REFERENCE})")
    ap.add_argument("--rules", default="scopa", help="a preset with two sides")
    ap.add_argument("--deals", type=int, default=10_000, help="deals per fast strategy")
    ap.add_argument("--search-deals", type=int, default=1_000, help="deals per search strategy")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=None, help="threads for the compares "
                    "(default: all cores); the cost is always timed on one")
    ap.add_argument("--min-cpu", type=float, default=1.0, help="CPU seconds per timing")
    ap.add_argument("--out", default="frontier.png", help="the chart (png, svg or pdf)")
    ap.add_argument("--json", default=None, help="also write the table as JSON here")
    args = ap.parse_args(argv)
    names = args.strategies or list(STRATEGIES)
    try:
        ref = str(scopa_sim.parse_strategy(args.ref))
        specs = [str(scopa_sim.parse_strategy(s)) for s in names]
        plays = plays_per_round(args.rules)
    except (ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"frontier on {args.rules}: margin against {ref} on duplicate deals "
          f"(seed {args.seed}); cost on one core, {plays} plays a round", flush=True)
    scopa_sim.simulate(rounds=2, strategies=(ref, ref), rules=args.rules, seed=1, workers=1)
    points = []
    ms, rounds, cpu = cost(ref, args.rules, args.seed, args.min_cpu)
    points.append(dict(spec=ref, reference=True, ms=ms, timed_rounds=rounds, deals=0,
                       margin=0.0, low=0.0, high=0.0))
    for spec in specs:
        if spec == ref:
            continue
        t = time.perf_counter()
        ms, rounds, cpu = cost(spec, args.rules, args.seed, args.min_cpu)
        deals = args.search_deals if spec.split(":")[0] in SEARCH else args.deals
        r = compare(spec, ref, rules=args.rules, seed=args.seed, deals=deals,
                    workers=args.workers)
        m = r["margin"]
        points.append(dict(spec=spec, reference=False, ms=ms, timed_rounds=rounds, deals=deals,
                           margin=m["estimate"], low=m["low"], high=m["high"]))
        print(f"  {spec}: {ms:.3g} ms/move, {m['estimate']:+.3f} "
              f"[{m['low']:+.3f}, {m['high']:+.3f}] ({time.perf_counter() - t:.0f}s)",
              file=sys.stderr, flush=True)
    frontier(points)
    points.sort(key=lambda p: p["ms"])
    width = max(len(p["spec"]) for p in points)
    print(f"{'':1} {'strategy':<{width}} {'ms/move':>9} {'rounds/s':>10} {'deals':>7} "
          f"{'margin':>8}  {'95% CI':>17}")
    for p in points:
        rate = 1000.0 / (p["ms"] * plays) if p["ms"] > 0 else math.inf
        ci = "(reference)" if p["reference"] else f"[{p['low']:+.3f}, {p['high']:+.3f}]"
        print(f"{'*' if p['frontier'] else ' '} {p['spec']:<{width}} {p['ms']:>9.3g} "
              f"{rate:>10,.0f} {p['deals']:>7,} {p['margin']:>+8.3f}  {ci:>17}")
    chart(points, ref, args.rules, args.out, plays)
    print(f"chart: {args.out}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(ref=ref, rules=args.rules, seed=args.seed, plays_per_round=plays,
                           points=points), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
