"""Strategies in the kernel: (strategy id, parameter vector) per seat.

A chooser returns the index of the chosen move in the canonical move list.
The fast strategies (`heuristics`) look at the position the seat can see;
the search strategies (`search`) sample or solve the rest of the round and
use the fast ones (or a user's) for their rollouts; user strategies
(`users`) get the seat's observation. Every strategy draws only from the
round's random stream, so a seed fixes every decision.

Dispatch is explicit, one branch per id of `registry.BUILTINS` and one for the
user ids; an unknown id chooses -1, which the play-out loop reports as an
error. Three choosers with one signature (`play`: `choose(strategy, p, seat,
n, board, kit)`), passed to the batch kernels as the strategy code
(`round.play_units`), so that a run compiles only the strategy code it names
(`registry.KINDS`): `choose_simple` (random, greedy) and `choose_fast` (and
heuristic, counter, reply, and the user strategies), both in `heuristics`,
and `choose` (every strategy).
"""
from ._jit import outlined, spliced
from .heuristics import choose_fast, choose_random, choose_simple
from .registry import ID
from .search import endgame, ismcts, net, pimc
from .spimc import spimc

__all__ = ["choose", "choose_fast", "choose_random", "choose_simple", "decide"]


@spliced
def choose(strategy, p, seat, n, board, kit):
    """The move of any strategy; -1 for an unknown id."""
    if strategy == ID.pimc:
        return pimc(p, seat, n, board, kit)
    if strategy == ID.ismcts:
        return ismcts(p, seat, n, board, kit)
    if strategy == ID.endgame:
        return endgame(p, seat, n, board, kit)
    if strategy == ID.spimc or strategy == ID.netsearch:
        return spimc(p, seat, n, board, kit)
    if strategy == ID.net:
        return net(p, seat, n, board, kit)
    return choose_fast(strategy, p, seat, n, board, kit)


@outlined
def decide(strategy, p, seat, n, board, kit):
    """`choose` compiled once as a function of its own, for the callers
    outside a batch kernel (`Round.suggest`, the deep evaluation's play-outs
    in `advise.deep_batch`): each would otherwise compile every search again."""
    return choose(strategy, p, seat, n, board, kit)
