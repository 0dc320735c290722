"""How often a review's verdict changes when only the seed changes.

    .venv/bin/python benchmarks/bench_verdicts.py [--positions 100] [--seeds 2]
        [--rollouts 64000] [--precision P] [--strategy net] [--rules scopa] [--seed 1]
        [--workers N]
    .venv/bin/python benchmarks/bench_verdicts.py --record docs/examples/seed-003.scopa
        [--seeds 5] [--rollouts N] [--precision P]

A position: round i of a rounds run (seed --seed) played by endgame for
every seat (`trace_round`), stopped before a random play from the 3rd to the
30th, where the seat to play has two or more moves and something is hidden
(exact positions never change). The move that endgame played there is
reviewed as `review` reviews a decision (`review.decisions`, side by side: rollouts by
--strategy until the played move's verdict is decided or its edge known to
+- --precision, review's by default, 0 for decided only; at most --rollouts),
once for each review seed 1..--seeds. Its verdict is the pair (best, worse
or level; the label): the position changes when two seeds give two verdicts.

Prints the share of positions that change, with its 95% Wilson interval and
n (the goal: under 5%), the verdicts given, the rollouts and seconds a
position, and the positions that changed (to look at).

With --record, reviews that game record once for each seed 1..--seeds (5)
and prints every decision's verdict under each; exits 1 if two of a
decision's contradict each other: two labels, or best beside worse (level,
between them by less than a label, contradicts neither; CI runs it: .ci/run).
"""
import argparse
import itertools
import random
import sys
import time
from collections import Counter

from scopa_sim import trace_round
from scopa_sim.stats import wilson
from scopa_sim.defaults import REVIEW_ROLLOUTS, REVIEW_STRATEGY, THRESHOLDS
from scopa_sim.engine.cards import move_text
from scopa_sim.engine.game import Round
from scopa_sim.runs.executors import default_workers, executor
from scopa_sim.engine.rollouts import root
from scopa_sim.study.advise import EXACT_CARDS, rollout_strategy
from scopa_sim.study.review import Settings, _ask, _precision, decisions, review


def positions(args):
    """(round index, play, Round stepped to it, the move played there)."""
    rng = random.Random(args.seed)
    i = 0
    while True:
        played = trace_round(args.seed, i, ("endgame",) * 2, args.rules)
        ply = rng.randrange(2, 30)
        rnd = Round(played.rules, deck=played.deck_order, dealer=played.dealer)
        for seat, card, take in played.moves[:ply]:
            rnd.play(card, take)
        pos, _ = rnd.kernel_position()
        if len(rnd.legal_moves()) > 1 and not root(pos, rnd.turn, rnd.rules, EXACT_CARDS).open:
            yield i, ply, rnd, tuple(played.moves[ply][1:])
        i += 1


def contradict(seen) -> bool:
    """Whether verdicts (verdict, label) of one decision contradict each
    other: two labels, or best beside worse. Level (not told apart at the
    precision) sits between best and worse by less than a label, so it
    contradicts neither."""
    verdicts = {v for v, _ in seen}
    return len({lab for _, lab in seen}) > 1 or {"best", "worse"} <= verdicts


def record(args) -> int:
    """Review --record under seeds 1..--seeds; 1 if two verdicts of a
    decision contradict each other (`contradict`)."""
    runs = [review(args.record, seed=seed, rollouts=args.rollouts, strategy=args.strategy,
                   precision=args.precision, workers=args.workers)
            for seed in range(1, args.seeds + 1)]
    first = runs[0]
    print(f"{args.record} reviewed with seeds 1..{args.seeds} (rollouts by {args.strategy}, "
          f"at most {args.rollouts:,}): verdict and label of each decision")
    changed = contradicted = 0
    for i in first.index[first.verdict.isin(["best", "worse", "level"])]:
        seen = [(df.verdict[i], df.label[i]) for df in runs]
        moved, bad = len(set(seen)) > 1, contradict(seen)
        changed, contradicted = changed + moved, contradicted + bad
        mark = "   CONTRADICTED" if bad else "   changed" if moved else ""
        print(f"  {first['round'][i]}.{first.play[i]:<3} {first.name[i]:>6} "
              f"{first.played[i]:<18} " + " | ".join(
                  f"{v}{' ' + lab if lab else ''}" for v, lab in seen) + mark)
    print(f"  {changed} decision{'s' * (changed != 1)} changed, {contradicted} contradicted")
    return 1 if contradicted else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", help="a game record to review under every seed")
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=None,
                    help="review seeds (default 2 a position, 5 for --record)")
    ap.add_argument("--rollouts", type=int, default=REVIEW_ROLLOUTS)
    ap.add_argument("--strategy", default=REVIEW_STRATEGY)
    ap.add_argument("--precision", type=float, default=None,
                    help="stop once the edge is known to +- this (default: review's)")
    ap.add_argument("--rules", default="scopa")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=default_workers())
    args = ap.parse_args()
    if args.record:
        args.seeds = args.seeds or 5
        sys.exit(record(args))
    args.seeds = args.seeds or 2
    marks = dict(THRESHOLDS)
    how = Settings(rollout_strategy(args.strategy), args.rollouts, 0, marks,
                   _precision(args.precision, marks), False, None, 0)
    found = list(itertools.islice(positions(args), args.positions))
    asks = tuple(_ask(rnd, move, (0, 0), seed, k) for k, (_, _, rnd, move) in enumerate(found)
                 for seed in range(1, args.seeds + 1))
    seen, given, rollouts = [[] for _ in found], Counter(), 0
    start = time.perf_counter()
    with executor(args.workers) as ex:               # the decisions side by side, as review's
        for j, row in decisions(how, asks, ex):
            seen[asks[j].row].append((row["verdict"], row["label"]))
            given[seen[asks[j].row][-1]] += 1
            rollouts += row["rollouts"]
            print(f"\r{j + 1} of {len(asks)} reviews", end="", flush=True)
    shown = [(*found[k][:4], v) for k, v in enumerate(seen) if len(set(v)) > 1]
    changed, n = len(shown), len(found)
    seconds = time.perf_counter() - start
    rate = wilson(changed, n)
    print(f"\rreview verdicts on {n} positions of {args.rules} (endgame self-play, seed "
          f"{args.seed}, plays 3..30), {args.seeds} review seeds each; rollouts by "
          f"{args.strategy}, at most {args.rollouts:,}"
          + (f", until the edge is known to ±{how.precision:g}" if how.precision else ""))
    print(f"  changed under reseeding: {rate.value:.3f} [{rate.low:.3f}, {rate.high:.3f}] "
          f"({changed}/{n}; goal: under 0.05)")
    print("  verdicts given: " + ", ".join(
        f"{v}{' ' + lab if lab else ''} {k}" for (v, lab), k in given.most_common()))
    reviews = n * args.seeds
    print(f"  a decision: {rollouts / reviews:,.0f} rollouts, {seconds / reviews:.1f} s "
          f"({args.workers} workers)")
    for i, ply, rnd, move, verdicts in shown:
        print(f"  changed: trace_round({args.seed}, {i}) before play {ply + 1}, seat "
              f"{rnd.turn} played {move_text(*move)}: {verdicts}")


if __name__ == "__main__":
    main()
