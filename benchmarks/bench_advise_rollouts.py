"""Which strategy should play `advise`'s rollouts: how often each one's best
move is one the deep evaluation cannot tell from its best.

    .venv/bin/python benchmarks/bench_advise_rollouts.py [--positions 60]
        [--strategies heuristic,net] [--rollouts 10000] [--seed 1] [--workers N]

The positions are bench_verdicts.py's: round i of a rounds run (seed
--seed) played by endgame for every seat, stopped before a random play from
the 3rd to the 30th where the seat has two or more moves and something is
hidden. At each, the deep evaluation (`DEEP_STRATEGY` for every seat, on at
most `DEEP_SAMPLES` deals, as `review --check` and `advise --deep` run it)
values every move; a move is *deep-best* when its paired 95% interval
against the deep evaluation's best reaches 0 (the best itself included).
Then `advise` as users run it (every move rolled out by each strategy, at
most --rollouts, stopping once the best move is separated) names its best
move. Prints, per strategy, the share of positions whose advised move is
deep-best, and the share where it is the deep evaluation's estimated best
(stricter, and noisier: the deep's best is itself a sample) (95% Wilson
intervals, n), and its seconds a position; and, for the first two
strategies, the positions where exactly one of them agrees with the deep
evaluation, with the exact two-sided binomial (McNemar) test of those
discordant positions.
"""
import argparse
import time

from scipy.stats import binomtest

from bench_verdicts import positions
from scopa_sim.defaults import DEEP_BATCH, DEEP_SAMPLES, DEEP_STRATEGY, DEFAULT_ROLLOUTS
from scopa_sim.runs.executors import default_workers
from scopa_sim.stats import wilson
from scopa_sim.study.advise import evaluate


def deep_best(rnd, seed: int, workers: int) -> tuple[str, set[str]]:
    """The deep evaluation's best move, and the moves it cannot tell from it."""
    pos, deck = rnd.kernel_position()
    result = evaluate(rnd.rules, pos, deck, rnd.turn, None, DEEP_STRATEGY, DEEP_SAMPLES,
                      seed=seed, workers=workers, batch=DEEP_BATCH)
    moves = result["moves"]
    return moves[0]["move"], {m["move"] for m in moves if m["vs_best_high"] >= 0}


def advised(rnd, strategy: str, rollouts: int, seed: int, workers: int) -> str:
    pos, deck = rnd.kernel_position()
    result = evaluate(rnd.rules, pos, deck, rnd.turn, None, strategy, rollouts, seed=seed,
                      workers=workers)
    return result["moves"][0]["move"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--strategies", default="heuristic,net")
    ap.add_argument("--rollouts", type=int, default=DEFAULT_ROLLOUTS)
    ap.add_argument("--rules", default="scopa")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    args = ap.parse_args()
    strategies = args.strategies.split(",")
    agree = {s: [] for s in strategies}            # advised move deep-best, per position
    top = {s: [] for s in strategies}              # advised move the deep evaluation's best
    seconds = dict.fromkeys(strategies, 0.0)
    for n, (i, ply, rnd, _) in enumerate(positions(args), 1):
        best, good = deep_best(rnd, args.seed + n, args.workers)
        for s in strategies:
            start = time.perf_counter()
            move = advised(rnd, s, args.rollouts, args.seed + n, args.workers)
            seconds[s] += time.perf_counter() - start
            agree[s].append(move in good)
            top[s].append(move == best)
        print(f"\r{n} positions: " + ", ".join(f"{s} {sum(a)}" for s, a in agree.items()),
              end="", flush=True)
        if n == args.positions:
            break
    print(f"\radvise's best move against the deep evaluation ({DEEP_STRATEGY}, at most "
          f"{DEEP_SAMPLES} deals) on {n} positions of {args.rules} (endgame self-play, seed "
          f"{args.seed}, plays 3..30); at most {args.rollouts:,} rollouts, {args.workers} "
          f"workers")
    for s in strategies:
        print(f"  {s:<12} " + ", ".join(f"{what} {rate_text(hits[s])}" for what, hits in
                                        (("deep-best", agree), ("the deep's best", top)))
              + f"; {seconds[s] / n:.2f} s a position")
    if len(strategies) >= 2:
        for what, hits in (("deep-best", agree), ("the deep's best", top)):
            a, b = (hits[s] for s in strategies[:2])
            only_a = sum(x and not y for x, y in zip(a, b))
            only_b = sum(y and not x for x, y in zip(a, b))
            p = binomtest(only_a, only_a + only_b).pvalue if only_a + only_b else 1.0
            print(f"  {what}: only {strategies[0]} {only_a}, only {strategies[1]} {only_b} "
                  f"(exact McNemar p = {p:.3f})")


def rate_text(hits: list[bool]) -> str:
    rate = wilson(sum(hits), len(hits))
    return f"{rate.value:.3f} [{rate.low:.3f}, {rate.high:.3f}] ({sum(hits)}/{len(hits)})"


if __name__ == "__main__":
    main()
