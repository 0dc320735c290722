"""Strategies in the kernel: (strategy id, parameter vector) per seat.

`choose` returns the index of the chosen move in the canonical move list. The
fast strategies (`heuristics`) look at the position the seat can see; the
search strategies (`search`) sample or solve the rest of the round and use
the fast ones for their rollouts. Every strategy draws only from the round's
random stream, so a seed fixes every decision.

Three entry points with one signature, passed to the batch kernels as the
strategy code (`round.play_units`): `choose` knows every strategy,
`choose_fast` only the fast ones (ids below `PIMC`) and `choose_simple`
random and greedy (ids below `HEURISTIC`), so that a run compiles only the
strategy code it names (`KINDS`).
"""

from ._jit import spliced
from .heuristics import choose_fast as fast, choose_greedy as simple
from .ids import ISMCTS, PIMC
from .search import endgame, ismcts, pimc


@spliced
def choose(strategy, p, seat, pos, deck, rules, n, cards, takes, rng, work, search):
    """Index of the move `strategy` (with parameters `p`) plays for `seat`."""
    if strategy < PIMC:
        return fast(strategy, p, seat, pos, rules, n, cards, takes, rng)
    if strategy == PIMC:
        return pimc(p, seat, pos, deck, rules, n, cards, takes, rng, work, search)
    if strategy == ISMCTS:
        return ismcts(p, seat, pos, deck, rules, n, cards, takes, rng, work, search)
    return endgame(p, seat, pos, deck, rules, n, cards, takes, rng, work, search)


@spliced
def choose_fast(strategy, p, seat, pos, deck, rules, n, cards, takes, rng, work, search):
    """`choose` for the fast strategies only (random, greedy, heuristic, counter)."""
    return fast(strategy, p, seat, pos, rules, n, cards, takes, rng)


@spliced
def choose_simple(strategy, p, seat, pos, deck, rules, n, cards, takes, rng, work, search):
    """`choose` for random and greedy only."""
    return simple(strategy, p, seat, pos, rules, n, cards, takes, rng)
