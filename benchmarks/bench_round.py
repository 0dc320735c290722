"""Stepping a round from Python: the time per call of `Round`'s methods, and
of the kernel calls alone, so that the Python overhead per call can be read off.

    .venv/bin/python benchmarks/bench_round.py [--rounds N] [--rules NAME] [--seed S]

Plays `--rounds` fresh rounds (random deck orders, the deal passing seat to
seat) move by move: at every turn `legal_moves()`, `suggest("random")` and
`suggest("greedy")`, then `play()` of the random strategy's move. Then the
same rounds through the kernel calls alone, from Python with arrays made
once: `legal_moves`; `position.play_move`; for a suggestion the move list,
the random stream and `strategies.decide` called as `Round` calls it
(through `batch.call` where the kernels take a users context). Then the
rounds replayed from their move lists with `play()` only (as `trace_round`
and a recorded game do: no `legal_moves()` call before each move).
`Round(deck=...)` is timed too (its kernel: `position.start_round`).

After a warm-up round (which compiles what needs it) prints, per call, the
mean time in ms over every call of every round, the kernels' time, and the
difference: the Python overhead of `Round` per call (the target is under
0.05 ms). Last, for scale: `strategies.decide` called alone (see
`choosers`), and the time per play of `simulate()`, where no Python runs
between plays. Wall time of one thread: run it on a quiet machine, or
several times.
"""
import argparse
import random
import time

import numpy as np

from scopa_sim import Round, Rules, kernels, parse_strategy
# the kernel modules read below as attributes (kernels.<module>.<name>)
import scopa_sim.kernels.batch
import scopa_sim.kernels.moves
import scopa_sim.kernels.rng
import scopa_sim.kernels.strategies
from scopa_sim.kernels import position as P

STRATEGIES = ("random", "greedy")


def decks(rounds: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(rounds):
        deck = list(range(40))
        rng.shuffle(deck)
        out.append(deck)
    return out


def through_round(rules: Rules, orders) -> tuple[dict, list]:
    """Seconds and calls of each `Round` method over these rounds, and each
    round's moves (seat, card, captured)."""
    total = dict.fromkeys(["Round(deck=...)", "legal_moves()", "play()", *(
        f'suggest("{s}")' for s in STRATEGIES)], 0)
    calls = dict.fromkeys(total, 0)
    clock = time.perf_counter
    played, decision = [], 0
    for i, order in enumerate(orders):
        t = clock()
        game = Round(rules, deck=order, dealer=i % rules.players)
        total["Round(deck=...)"] += clock() - t
        moves = []
        while not game.done:
            t = clock()
            game.legal_moves()
            total["legal_moves()"] += clock() - t
            chosen = None
            for s in STRATEGIES:
                t = clock()
                move = game.suggest(s, seed=decision)
                total[f'suggest("{s}")'] += clock() - t
                chosen = chosen or move
            seat = game.turn
            t = clock()
            game.play(*chosen)
            total["play()"] += clock() - t
            moves.append((seat, *chosen))
            decision += 1
        for key in total:
            calls[key] += 1 if key == "Round(deck=...)" else len(moves)
        played.append(moves)
    return {k: (total[k], calls[k]) for k in total}, played


def replay(rules: Rules, orders, played) -> tuple[float, int]:
    """Seconds and calls of `play()` replaying recorded rounds."""
    total, calls = 0.0, 0
    clock = time.perf_counter
    for i, (order, moves) in enumerate(zip(orders, played)):
        game = Round(rules, deck=order, dealer=i % rules.players)
        for _, card, take in moves:
            t = clock()
            game.play(card, take)
            total += clock() - t
        calls += len(moves)
    return total, calls


def choosers(args) -> tuple:
    """`strategies.decide` called as `Round` calls it (through `batch.call`
    where the kernels have it), and alone: its compiled entry point where
    `batch.call` types the arguments itself (`batch._signature`), else its
    dispatcher."""
    choose, batch = kernels.strategies.decide, kernels.batch
    if not hasattr(batch, "call"):
        return choose, choose
    batch.call(choose, *args)                      # compile or load
    signature = getattr(batch, "_signature", None)
    entry = choose.overloads[signature(args)].entry_point if signature else choose
    return (lambda *a: batch.call(choose, *a)), entry


def through_kernels(rules: Rules, orders, played) -> tuple[dict, float]:
    """Seconds of the kernel calls alone for the same rounds (checking that
    they play the same moves), and of `choose` alone."""
    scratch = kernels.batch.scratch()
    rng, work, cards, takes = scratch.rng, scratch.work, scratch.cards, scratch.takes
    packed = rules.pack()
    strategies = [(s, parse_strategy(s).spec.id, parse_strategy(s).vector()) for s in STRATEGIES]
    pos = np.zeros(P.POS_SIZE, np.uint64)
    total = dict.fromkeys(["Round(deck=...)", "legal_moves()", "play()", *(
        f'suggest("{s}")' for s in STRATEGIES)], 0.0)
    entry_total = 0.0
    clock = time.perf_counter
    decision, choose, entry = 0, None, None
    for i, (order, moves) in enumerate(zip(orders, played)):
        deck = np.array(order, np.int64)
        t = clock()
        P.start_round(pos, deck, i % rules.players, packed)
        total["Round(deck=...)"] += clock() - t
        for seat, card, take in moves:
            t = clock()
            hand, table = pos[P.HAND + seat], pos[P.TABLE]
            kernels.moves.legal_moves(hand, table, packed, cards, takes, work)
            total["legal_moves()"] += clock() - t
            chosen = None
            for name, sid, vector in strategies:
                t = clock()
                n = kernels.moves.legal_moves(pos[P.HAND + seat], pos[P.TABLE], packed, cards,
                                              takes, work)
                kernels.rng.stream(np.uint64(decision), 0, rng)
                args = (sid, vector, seat, n, scratch.board(pos, deck), scratch.kit(packed))
                if choose is None:                 # (drawing from the stream)
                    choose, entry = choosers(args)
                    kernels.rng.stream(np.uint64(decision), 0, rng)
                    t = clock()
                k = choose(*args)
                total[f'suggest("{name}")'] += clock() - t
                kernels.rng.stream(np.uint64(decision), 0, rng)
                t = clock()
                entry(*args)
                entry_total += clock() - t
                if chosen is None:
                    chosen = int(cards[k]), takes[k]
            if chosen[0] != card or int(chosen[1]) != sum(1 << c for c in take):
                raise AssertionError(f"round {i}: the kernels chose {chosen}, Round {card, take}")
            t = clock()
            P.play_move(pos, deck, packed, chosen[0], chosen[1])
            total["play()"] += clock() - t
            decision += 1
        P.finish_round(pos, packed)
    return total, entry_total / len(STRATEGIES)


def in_kernel(rules: Rules, rounds: int) -> float:
    """Seconds per play of `simulate()` (one worker) of random against greedy:
    the batch kernel's moves, choices and plays, and a DataFrame."""
    import scopa_sim
    pair = STRATEGIES[:1] + STRATEGIES[1:] * (rules.n_sides - 1)
    scopa_sim.simulate(rounds=10, strategies=pair, rules=rules, workers=1)
    t = time.perf_counter()
    scopa_sim.simulate(rounds=rounds, strategies=pair, rules=rules, workers=1)
    return (time.perf_counter() - t) / (rounds * (40 - rules.table_size))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000, help="rounds to play (default 2000)")
    ap.add_argument("--rules", default="scopa", help="rules preset (default scopa)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deck orders")
    args = ap.parse_args()
    rules = Rules.resolve(args.rules)
    warm = decks(1, args.seed + 1)
    _, moves = through_round(rules, warm)                     # compile or load, then time
    through_kernels(rules, warm, moves)
    replay(rules, warm, moves)

    orders = decks(args.rounds, args.seed)
    python, played = through_round(rules, orders)
    alone, entry = through_kernels(rules, orders, played)
    replayed = replay(rules, orders, played)
    plays = sum(map(len, played))
    print(f"{args.rounds} rounds of {args.rules}; ms per call (mean)      "
          f"Round   kernels  overhead")
    rows = [*python.items()]
    rows.insert(2, ("play() replaying a round", replayed))
    for key, (seconds, calls) in rows:
        kernel = alone["play()" if key.startswith("play()") else key] / (
            len(orders) if key.startswith("Round") else plays)
        mean = seconds / calls
        print(f"  {key:<28} {calls:>8} calls  {mean * 1e3:8.4f}  {kernel * 1e3:8.4f}  "
              f"{(mean - kernel) * 1e3:8.4f}")
    print(f"  strategies.decide alone: {entry / plays * 1e3:.4f} ms per "
          f"call; simulate(), one worker: {in_kernel(rules, 20 * args.rounds) * 1e3:.5f} ms per "
          f"play ({' vs '.join(STRATEGIES)}: moves, choice and play in the kernel)")


if __name__ == "__main__":
    main()
