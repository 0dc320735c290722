"""How fast is `review`: whole 2-player games to 11, both seats, at the
default settings, warm.

    .venv/bin/python benchmarks/bench_review.py [--games 5] [--strategy net]
        [--rollouts 64000] [--precision P] [--workers N] [--players endgame] [--check]

The games are games of a run (`trace_game`, seed 1, games 0..N-1) played by
--players for both seats: typical games of strong, cheap play. Each is
reviewed as `scopa-sim review` does (every seat, rollouts until each
verdict is decided; --check: every label checked by the deep evaluator too),
after one warm-up review; prints per game the plays, the decisions rated
(forced plays excluded), those checked, the seconds and the seconds per
decision, against the target on 2 cores: 5 minutes a game.
"""
import argparse
import time

from scopa_sim import review, trace_game
from scopa_sim.runs.executors import default_workers
from scopa_sim.defaults import REVIEW_ROLLOUTS, REVIEW_STRATEGY
from scopa_sim.study.review import RATED

TARGET = 300.0          # seconds a game, both seats, on 2 cores


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--strategy", default=REVIEW_STRATEGY)
    ap.add_argument("--rollouts", type=int, default=REVIEW_ROLLOUTS)
    ap.add_argument("--precision", type=float, default=None,
                    help="stop once the edge is known to +- this (default: review's; 0: decided)")
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--players", default="endgame")
    ap.add_argument("--check", action="store_true", help="the deep check of the labels too")
    args = ap.parse_args()
    games = [trace_game(1, g, (args.players, args.players)) for g in range(args.games)]
    review(games[0], strategy=args.strategy, rollouts=200, workers=args.workers)   # warm
    known = "review's" if args.precision is None else f"{args.precision:g}"
    print(f"review, {args.strategy} rollouts (at most {args.rollouts:,} a decision, precision "
          f"{known}), {args.workers} workers; games of {args.players} vs {args.players} to 11")
    print(f"{'game':>4} {'rounds':>6} {'plays':>5} {'rated':>5} {'checked':>7} {'seconds':>8} "
          f"{'s/decision':>10}")
    total_s = total_d = 0
    for g, game in enumerate(games):
        t = time.perf_counter()
        df = review(game, strategy=args.strategy, rollouts=args.rollouts, seed=g,
                    check=args.check, workers=args.workers, precision=args.precision)
        s = time.perf_counter() - t
        rated = int(df.level.isin(RATED).sum())
        checked = int(df.level.eq("deep").sum())
        total_s, total_d = total_s + s, total_d + rated
        print(f"{g:>4} {len(game.rounds):>6} {len(df):>5} {rated:>5} {checked:>7} {s:>8.1f} "
              f"{s / rated:>10.3f}")
    mean = total_s / len(games)
    print(f"mean {mean:.1f} s a game, {total_s / total_d:.3f} s a decision; target "
          f"{TARGET:.0f} s a game: {'met' if mean <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
