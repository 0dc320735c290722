"""How fast is `review`: whole 2-player games to 11, both seats, at the
default settings, warm.

    .venv/bin/python benchmarks/bench_review.py [--games 5] [--strategy heuristic]
        [--rollouts 10000] [--workers N] [--players endgame] [--quick]

The games are games of a run (`trace_game`, seed 1, games 0..N-1) played by
--players for both seats: typical games of strong, cheap play. Each is
reviewed as `scopa-sim review` does (every seat, rollouts stopping early,
every label checked by the deep evaluator; --quick: not), after
one warm-up review; prints per game the plays, the decisions rated (forced
plays excluded), those checked, the seconds and the seconds per decision,
against the targets on 2 cores: 30 s a game quick, 60 s checked.
"""
import argparse
import time

from scopa_sim import review, trace_game
from scopa_sim.runs.executors import default_workers
from scopa_sim.study.review import DEFAULT_ROLLOUTS, RATED

TARGET = 30.0           # seconds a game, both seats, quick (--quick), on 2 cores
CHECKED_TARGET = 60.0   # with every label checked by the deep evaluator


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--strategy", default="heuristic")
    ap.add_argument("--rollouts", type=int, default=DEFAULT_ROLLOUTS)
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--players", default="endgame")
    ap.add_argument("--quick", action="store_true", help="no deep check of the labels")
    args = ap.parse_args()
    games = [trace_game(1, g, (args.players, args.players)) for g in range(args.games)]
    review(games[0], strategy=args.strategy, rollouts=200, workers=args.workers)   # warm
    print(f"review, {args.strategy} rollouts (at most {args.rollouts:,} a decision), "
          f"{args.workers} workers; games of {args.players} vs {args.players} to 11")
    print(f"{'game':>4} {'rounds':>6} {'plays':>5} {'rated':>5} {'checked':>7} {'seconds':>8} "
          f"{'s/decision':>10}")
    total_s = total_d = 0
    for g, game in enumerate(games):
        t = time.perf_counter()
        df = review(game, strategy=args.strategy, rollouts=args.rollouts, seed=g,
                    check=not args.quick, workers=args.workers)
        s = time.perf_counter() - t
        rated = int(df.level.isin(RATED).sum())
        checked = int(df.level.eq("deep").sum())
        total_s, total_d = total_s + s, total_d + rated
        print(f"{g:>4} {len(game.rounds):>6} {len(df):>5} {rated:>5} {checked:>7} {s:>8.1f} "
              f"{s / rated:>10.3f}")
    mean = total_s / len(games)
    target = TARGET if args.quick else CHECKED_TARGET
    print(f"mean {mean:.1f} s a game, {total_s / total_d:.3f} s a decision; target "
          f"{target:.0f} s a game: {'met' if mean <= target else 'NOT met'}")


if __name__ == "__main__":
    main()
