"""What bounds checking costs a user strategy: rounds/s of a jitted user
strategy against greedy on one thread, compiled with bounds checks (the
default) and without (SCOPA_SIM_BOUNDSCHECK=0), best of 3, for the small
greedy example and the larger alpha-beta bot.

    .venv/bin/python benchmarks/bench_boundscheck.py [--rounds N] [--bot-rounds N]

Both modes play the same moves (checked here: identical rows).
"""
import argparse
import time
from pathlib import Path

import scopa_sim
from scopa_sim.engine.user import load

ROOT = Path(__file__).resolve().parent.parent
STRATEGIES = {"greedy example": f"{ROOT}/docs/examples/greedy_jit.py:greedy",
              "alpha-beta bot": f"{ROOT}/benchmarks/alphabeta_bot.py:alphabeta"}


def rate(strategy, rounds):
    """Rounds/s of `strategy` against greedy on one thread (best of 3), and the rows."""
    scopa_sim.simulate(rounds=200, strategies=(strategy, "greedy"), seed=1)   # compiled
    best, df = 0.0, None
    for _ in range(3):
        t = time.perf_counter()
        df = scopa_sim.simulate(rounds=rounds, strategies=(strategy, "greedy"), seed=1,
                                batch_size=rounds)
        best = max(best, rounds / (time.perf_counter() - t))
    return best, df


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300_000)
    ap.add_argument("--bot-rounds", type=int, default=3_000)
    args = ap.parse_args()
    print("a jitted user strategy against greedy, one thread, best of 3:")
    for label, text in STRATEGIES.items():
        rounds = args.bot_rounds if "bot" in label else args.rounds
        (checked, a), (unchecked, b) = (rate(load(text, mode), rounds)
                                        for mode in (True, False))
        print(f"  {label:15} checked {checked:10,.0f} rounds/s, unchecked {unchecked:10,.0f}"
              f" (checks cost {1 - checked / unchecked:.0%} of the time); identical rows: "
              f"{a.equals(b)}")


if __name__ == "__main__":
    main()
