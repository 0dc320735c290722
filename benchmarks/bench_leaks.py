"""Leaks in figures: counter's against net (time, the top situation, the
information-set total beside compare's margin), the true-deal identity,
greedy's leaks, and net judged by itself (the control: 0 everywhere).

    .venv/bin/python benchmarks/bench_leaks.py [--rounds 2000] [--check-rounds 200]
        [--seed 1] [--workers N]

`--rounds` deals, each played twice (STRATEGY at either side). Not a test:
it prints what it finds, with the wall time of each run.
"""
import argparse
import time

from scopa_sim.runs.executors import default_workers
from scopa_sim.study.leaks import leaks


def _ci(d: dict, key: str = "cost") -> str:
    return f"{d[key]:+.3f} [{d[key + '_low']:+.3f}, {d[key + '_high']:+.3f}]"


def _report(name: str, r: dict, seconds: float, top: int = 5) -> None:
    c = r["compare"]
    print(f"\n{name}: {r['rounds']:,} rounds in {seconds:.0f} s "
          f"({r['rollouts']:,} rollouts, {r['total']['differs']:.0%} of decisions differ "
          f"from {r['judge']})")
    for s in r["situations"][:top]:
        print(f"  {s['situation']:<52} {s['per_round']:5.2f}/round  differs {s['differs']:4.0%}"
              f"  cost {_ci(s)}")
    print(f"  total cost per round {_ci(r['total'])}; compare {r['strategy']} {r['judge']}: "
          f"{c['margin']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}]; gap {r['gap']:+.3f}")
    if "true_deal" in r:
        print(f"  true deal: {r['true_deal']['deals']:,} rounds, largest |sum of costs - "
              f"margin difference| {r['true_deal']['max_gap']:g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--check-rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    args = ap.parse_args()
    runs = [("leaks of counter against net", dict(strategy="counter"), args.rounds, False),
            ("the same, on the true deal", dict(strategy="counter"), args.check_rounds, True),
            ("greedy on the true deal", dict(strategy="greedy"), args.check_rounds, True),
            ("leaks of greedy against net", dict(strategy="greedy"), args.rounds // 4, False),
            ("net against itself (control)", dict(strategy="net"), args.rounds, False)]
    print(f"seed {args.seed}, {args.workers} worker(s)", flush=True)
    for name, kw, rounds, true in runs:
        t = time.perf_counter()
        r = leaks(**kw, rounds=rounds, seed=args.seed, true_deal=true, workers=args.workers)
        _report(name, r, time.perf_counter() - t)


if __name__ == "__main__":
    main()
