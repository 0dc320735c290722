"""Does the dealer win more rounds than the leader? Random vs random, 2 players.

    .venv/bin/python benchmarks/dealer_advantage.py [--rounds N] [--seed S]

Prints, with n and 95% Wilson intervals, how often the dealer and the leader
win a round (more points), the tie rate, and the mean point margin
dealer - leader with a 95% interval.
"""
import argparse

import numpy as np

import scopa_sim
from scopa_sim.stats import wilson_ends


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    df = scopa_sim.simulate(rounds=args.rounds, strategies=("random", "random"),
                            seed=args.seed, workers=2)
    dealer = df["dealer"].to_numpy()
    pts = df[["points_0", "points_1"]].to_numpy().astype(np.int64)
    d_pts = pts[np.arange(len(df)), dealer]
    l_pts = pts[np.arange(len(df)), 1 - dealer]
    n = len(df)
    for label, k in (("dealer wins", (d_pts > l_pts).sum()), ("leader wins", (l_pts > d_pts).sum()),
                     ("tie", (d_pts == l_pts).sum())):
        lo, hi = map(float, wilson_ends(k, n))
        print(f"{label:12} {k / n:7.4f}  95% CI [{lo:.4f}, {hi:.4f}]  n={n:,}")
    margin = d_pts - l_pts
    half = 1.96 * margin.std(ddof=1) / np.sqrt(n)
    print(f"{'margin':12} {margin.mean():+7.4f}  95% CI [{margin.mean() - half:+.4f}, "
          f"{margin.mean() + half:+.4f}] points/round (dealer - leader)")


if __name__ == "__main__":
    main()
