"""Strategies in the kernel: (strategy id, parameter vector) per seat.

`choose` returns the index of the chosen move in the canonical move list. The
fast strategies (`heuristics`) look at the position the seat can see; the
search strategies (`search`) sample or solve the rest of the round and use
the fast ones for their rollouts. Every strategy draws only from the round's
random stream, so a seed fixes every decision.
"""

from ._jit import kernel
from .heuristics import choose_fast
from .ids import ISMCTS, PIMC
from .search import endgame, ismcts, pimc


@kernel
def choose(strategy, p, seat, pos, deck, rules, best, n, cards, takes, rng, work, search):
    """Index of the move `strategy` (with parameters `p`) plays for `seat`."""
    if strategy < PIMC:
        return choose_fast(strategy, p, seat, pos, rules, n, cards, takes, rng)
    if strategy == PIMC:
        return pimc(p, seat, pos, deck, rules, best, n, cards, takes, rng, work, search)
    if strategy == ISMCTS:
        return ismcts(p, seat, pos, deck, rules, best, n, cards, takes, rng, work, search)
    return endgame(p, seat, pos, deck, rules, best, n, cards, takes, rng, work, search)
