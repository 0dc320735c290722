"""Where a random round's time goes: the pieces of the kernel, each timed on
its own in a small compiled loop, against the whole batch kernel and
`simulate()`, on one core.

    .venv/bin/python benchmarks/profile_round.py [--rounds N] [--repeat K]

Per round (random against random, scopa), nanoseconds of CPU time, the
median of K passes taken in turn:

- `simulate()` with one worker (the batch kernel and the DataFrame);
- the batch kernel as the runner plays it (`Seats.play_rows`);
- the bare round: deal, then each play's legal moves, draw and move, no
  strategy dispatch, log, scoring or rows (the loop the C twin runs);
- the deal: the two SipHash stream starts and the shuffle's 39 draws;
- the two SipHash stream starts alone;
- the legal moves of the round's 36 plays, on positions recorded from real
  rounds;
- the scoring of a finished round into its rows (`round.end_round`).

The pieces overlap (the bare round holds the deal and the moves); what the
batch kernel adds to the bare round is the play-out loop's dispatch and
checks, the scoring and the rows.
"""
import argparse
import os
import statistics
import time

import numba
import numpy as np

import scopa_sim
from scopa_sim.engine.rules import Rules, kernel_rules
from scopa_sim.engine.seats import Seats, row_arrays
from scopa_sim.kernels import batch, layout as L, moves, position as P, rng, round as R
from scopa_sim.kernels.bits import ix


@numba.njit
def stream_starts(seed, n, state):
    acc = np.uint64(0)
    for u in range(n):
        rng.deal_stream(seed, u, 0, state)
        acc ^= state[0]
        rng.decide_stream(seed, u, 0, state)
        acc ^= state[0]
    return acc


@numba.njit
def deals(seed, n, deck, state):
    acc = 0
    for u in range(n):
        R.deal_round(seed, u, 0, deck, state)
        acc += deck[0]
    return acc


@numba.njit
def bare_rounds(seed, n, rules, deck, state, pos, cards, takes, work, hands, tables):
    """n random rounds played bare; each play's hand and table kept in
    hands/tables when they have room."""
    k = 0
    for u in range(n):
        R.deal_round(seed, u, 0, deck, state)
        P.start_round(pos, deck, u % 2, rules)
        while not P.is_over(pos):
            seat = np.int64(pos[P.TURN])
            hand = pos[ix(P.HAND + seat)]
            if k < hands.shape[0]:
                hands[k], tables[k] = hand, pos[P.TABLE]
                k += 1
            m = moves.legal_moves(hand, pos[P.TABLE], rules, cards, takes, work)
            i = rng.below(state, m)
            P.play_move(pos, deck, rules, cards[i], takes[i], None)
    return k


@numba.njit
def legal_moves(hands, tables, rules, cards, takes, work):
    acc = 0
    for k in range(hands.shape[0]):
        acc += moves.legal_moves(hands[k], tables[k], rules, cards, takes, work)
    return acc


@numba.njit
def scorings(n, rules, pos, sides, rounds):
    acc = 0
    for u in range(n):
        pos[P.PILE] = np.uint64(u * 0x9E3779B9) & L.ALL_CARDS
        pos[P.PILE + 1] = ~pos[P.PILE] & L.ALL_CARDS
        R.end_round(pos, rules, 0, sides[u], rounds[u])
        acc += sides[u, 0, L.S_POINTS]
    return acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    n = args.rounds
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    rules = kernel_rules(Rules())
    seats = Seats(Rules(), ("random", "random"))
    s = batch.scratch(search=False)
    seed = np.uint64(1)
    hands, tables = np.zeros(36 * n, np.uint64), np.zeros(36 * n, np.uint64)
    none = np.zeros(0, np.uint64)
    sides, rounds = row_arrays(2, n + 1)
    bare = (seed, n, rules, s.deck, s.rng, s.pos, s.cards, s.takes, s.work)
    bare_rounds(*bare, hands, tables)                            # the positions to list
    pieces = {
        "simulate() (kernel and DataFrame)":
            lambda: scopa_sim.simulate(rounds=n, strategies=("random", "random"), seed=1,
                                       workers=1, batch_size=n),
        "batch kernel (Seats.play_rows)": lambda: seats.play_rows(False, 1, 0, n),
        "bare round": lambda: bare_rounds(*bare, none, none),
        "deal: 2 stream starts + shuffle": lambda: deals(seed, n, s.deck, s.rng),
        "2 SipHash stream starts": lambda: stream_starts(seed, n, s.rng),
        "legal moves (36 plays)": lambda: legal_moves(hands, tables, rules, s.cards, s.takes,
                                                      s.work),
        "scoring into the rows": lambda: scorings(n, rules, s.pos, sides, rounds),
    }
    times = {name: [] for name in pieces}
    for f in pieces.values():
        f()                                                      # compiled, or loaded
    for _ in range(args.repeat):
        for name, f in pieces.items():
            t = time.process_time()
            f()
            times[name].append(time.process_time() - t)
    whole = statistics.median(times["batch kernel (Seats.play_rows)"])
    print(f"random rounds on CPU {cpu}, {n:,} a pass, medians of {args.repeat} passes in "
          f"turn, load average {os.getloadavg()[0]:.1f}")
    print(f"{'':36} {'ns/round':>9} {'of the kernel':>14}")
    for name, values in times.items():
        t = statistics.median(values)
        print(f"{name:36} {t / n * 1e9:9.0f} {t / whole:14.0%}")


if __name__ == "__main__":
    main()
