"""The learned player: its strength on duplicate deals and its speed
(issue 34; docs/STRENGTH.md's ladder comes from here).

    .venv/bin/python benchmarks/bench_net.py [--scale 1.0] [--seed 2026]
        [--weights PATH] [--workers N] [--only strength,speed,ladder,presets]

2-player scopa, 95% paired intervals (seats swapped on every deal):

- strength: net against endgame (20,000 deals), net against spimc (2,000),
  netsearch against spimc (4,000), net against counter and reply (4,000);
- speed: net's rounds per second on one core (net at both seats, 20,000
  rounds), and netsearch's and spimc's milliseconds a move (200 rounds);
- ladder: a tournament of every built-in strategy at its defaults (400 deals
  a pair) with Bradley-Terry ratings;
- presets: on scopa-3, scopa-4 and scopone scientifico, net against endgame
  (2,000 deals), with and without its sampled end (`deals=0`: the network
  alone), and each one's rounds per second on one core (4,000 rounds).

--scale multiplies every count (0.05 for a quick look).
"""
import argparse
import time

import numpy as np

import scopa_sim
from scopa_sim.kernels.registry import NAMES as LADDER          # every built-in
from scopa_sim.runs.executors import default_workers


def interval(m) -> str:
    return f"{m['estimate']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}]"


def strength(args, net, netsearch):
    pairs = ((net, "endgame", 20_000), (net, "spimc", 2_000), (netsearch, "spimc", 4_000),
             (net, "counter", 4_000), (net, "reply", 4_000))
    for a, b, deals in pairs:
        deals = max(10, int(deals * args.scale))
        started = time.perf_counter()
        r = scopa_sim.compare(a, b, seed=args.seed, deals=deals, workers=args.workers)
        print(f"{a} against {b}: {interval(r['margin'])} points a round "
              f"({deals:,} duplicate deals, seed {args.seed}, "
              f"{time.perf_counter() - started:.0f} s)", flush=True)


def speed(args, net, netsearch):
    rounds = max(100, int(20_000 * args.scale))
    scopa_sim.simulate(100, strategies=f"{net},{net}", seed=1, workers=1)       # warm
    started = time.perf_counter()
    scopa_sim.simulate(rounds, strategies=f"{net},{net}", seed=args.seed, workers=1)
    took = time.perf_counter() - started
    print(f"{net} at both seats: {rounds / took:,.0f} rounds/s on one core "
          f"({rounds:,} rounds, {took * 1e3 / rounds / 36:.3f} ms a move)", flush=True)
    for name in (netsearch, "spimc"):
        rounds = max(10, int(200 * args.scale))
        scopa_sim.simulate(2, strategies=f"{name},{name}", seed=1, workers=1)
        started = time.perf_counter()
        scopa_sim.simulate(rounds, strategies=f"{name},{name}", seed=args.seed, workers=1)
        took = time.perf_counter() - started
        print(f"{name} at both seats: {took * 1e3 / rounds / 36:.2f} ms a move "
              f"(one core, {rounds} rounds; moves of one legal choice count too)", flush=True)


def ladder(args, net, netsearch):
    deals = max(10, int(400 * args.scale))
    names = [net if s == "net" else netsearch if s == "netsearch" else s for s in LADDER]
    started = time.perf_counter()
    t = scopa_sim.tournament(names, seed=args.seed, deals=deals, workers=args.workers)
    print(f"\ntournament, {deals:,} duplicate deals a pair ({time.perf_counter() - started:.0f} s):")
    print("| rank | strategy | Bradley-Terry rating | Elo |")
    print("|---|---|---|---|")
    for r in sorted(t["ratings"], key=lambda r: r["rank"]):
        print(f"| {r['rank']} | {r['strategy']} | {r['theta']:+.2f} [{r['low']:+.2f}, "
              f"{r['high']:+.2f}] | {r['elo']:+.0f} |")
    print("\nmargin a round, row against column:")
    k = len(names)
    print("| | " + " | ".join(t["strategies"]) + " |")
    print("|---" * (k + 1) + "|")
    margin = np.array(t["margin"])
    for i in range(k):
        cells = ["" if i == j else f"{margin[i, j]:+.2f}" for j in range(k)]
        print(f"| {t['strategies'][i]} | " + " | ".join(cells) + " |")


def presets(args, net, netsearch):
    deals, rounds = max(10, int(2_000 * args.scale)), max(100, int(4_000 * args.scale))
    for rules in ("scopa-3", "scopa-4", "scopone-scientifico"):
        seats = scopa_sim.Rules.resolve(rules).players
        for spec in (net, f"{net}:deals=0" if net == "net" else f"{net},deals=0"):
            r = scopa_sim.compare(spec, "endgame", rules=rules, seed=args.seed, deals=deals,
                                  workers=args.workers)
            lineup = ",".join([spec] * seats)
            scopa_sim.simulate(10, strategies=lineup, rules=rules, seed=1, workers=1)  # warm
            started = time.perf_counter()
            scopa_sim.simulate(rounds, strategies=lineup, rules=rules, seed=args.seed, workers=1)
            took = time.perf_counter() - started
            print(f"{rules}: {spec} against endgame {interval(r['margin'])} points a round "
                  f"({deals:,} duplicate deals, seed {args.seed}); {rounds / took:,.0f} "
                  f"rounds/s on one core", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--weights", help="a weights file (default: the shipped network)")
    p.add_argument("--workers", type=int, default=default_workers())
    p.add_argument("--only", default="strength,speed,ladder,presets")
    args = p.parse_args()
    net = f"net:weights={args.weights}" if args.weights else "net"
    netsearch = f"netsearch:weights={args.weights}" if args.weights else "netsearch"
    for part in args.only.split(","):
        parts = {"strength": strength, "speed": speed, "ladder": ladder, "presets": presets}
        parts[part](args, net, netsearch)


if __name__ == "__main__":
    main()
