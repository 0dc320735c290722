"""spimc: determinized Monte Carlo with sequential halving over the root moves
and exact play at the end of each rollout (issue 13 item 1).

Like `search.pimc` it deals the unseen cards at random and plays each root
move out on the same deals (common random numbers), with as many rollouts
as `pimc:samples=S` (S per legal move: a decision among more moves gets
more), but spread by sequential halving: ceil(log2 n) rounds, each with an
equal share of those rollouts, split evenly among the surviving moves on fresh
deals; after each round the worse half (by summed margin, all survivors
having been played on the same deals) is dropped. So the few good moves get
most of the rollouts.

A rollout (`search.rollout`) plays with the `rollout` strategy until the
deck is out and at most `tail` cards are left in hands; from there it is
solved exactly inside the deal (`search.minimax` on the round margin). In
two-player scopa the last deal is open to both players (every card is
counted), so that is how it is really played; 0 turns it off. The exact
tail costs about three rollouts, so it is used only in searches from at
most `reach` cards (hands and undealt deck) from the end of the round. With
`leaf=net` a rollout that has not reached the tail after `depth` plays
stops there and takes the net's value of the position (as pimc's and
ismcts's). With `endgame`, the root is solved exactly once nothing is
hidden (as pimc); deals are weighed by `infer` (as pimc).

netsearch is spimc over the `keep` root moves the net values best
(`net.move_values`), its budget `samples` times `keep`; spimc's rows hold 0
there, which keeps every move.

Scratch: pimc's (the kit's `search.Search`), and its `alive` list of the
surviving root moves. As pimc, it leaves each root move's mean margin (over
the rollouts it had before it was dropped) in `totals`: a teacher's values.
"""
import numpy as np

from ._jit import kernel, spliced
from .net import move_values
from .registry import P_INFER, P_KEEP, P_REACH, P_SAMPLES, P_SEARCH_WEIGHTS, P_TAIL, P_USE_ENDGAME
from .layout import N_CARDS, R_TEAMS
from .position import DECK, hand_cards, play_move
from .search import (
    copy_into, cut_after, determinize_inferred, roll_with, rollout, rollout_kit, solve_if_open)


@kernel
def best_of(values, n, keep, at):
    """The indices of the `keep` highest of values[:n] into at[:keep], in
    index order (a tie: the lower index first); `keep`."""
    for k in range(keep):                           # selection: keep is small
        best = -1
        for i in range(n):
            taken = False
            for j in range(k):
                if at[j] == i:
                    taken = True
            if not taken and (best < 0 or values[i] > values[best]):
                best = i
        at[k] = best
    for k in range(1, keep):                        # then by index
        i = at[k]
        j = k
        while j > 0 and at[j - 1] > i:
            at[j] = at[j - 1]
            j -= 1
        at[j] = i
    return keep


@spliced
def spimc(p, seat, n, board, kit):
    """Sequential halving over the root moves on shared sampled deals, each
    rollout finished exactly (see the module docstring)."""
    exact = solve_if_open(p[P_USE_ENDGAME], seat, n, board, kit)
    if exact >= 0:
        return exact
    search, rules = kit.search, kit.rules
    sample, roll, totals, alive_at = search.sample, search.roll, search.totals, search.alive
    roll_with(p, search.lineup, kit.users)
    depth, model, rolls = cut_after(p), np.int64(p[P_SEARCH_WEIGHTS]), rollout_kit(kit)
    pos = board.pos
    tail = np.int64(p[P_TAIL])
    if hand_cards(pos, rules) + N_CARDS - np.int64(pos[DECK]) > p[P_REACH]:
        tail = 0                                    # too far from the end to pay for it
    side = rules[R_TEAMS + seat]
    for i in range(n):
        totals[i] = 0.0
        alive_at[i] = i
    alive = n
    keep = np.int64(p[P_KEEP])
    if 0 < keep < n:                                # netsearch: the net's best `keep` only
        move_values(kit.net, model, pos, rules, seat, n, board.cards, board.takes)
        alive = best_of(kit.net.values, n, keep, alive_at)
    budget = np.int64(p[P_SAMPLES]) * alive
    rounds = 0
    while (1 << rounds) < alive:
        rounds += 1
    spent = 0                                       # rollouts of each survivor so far
    for r in range(rounds):
        samples = max(1, budget // (rounds * alive))
        spent += samples
        for _ in range(samples):
            determinize_inferred(pos, board.deck, seat, kit.rng, sample.pos, sample.deck,
                                 kit.work, p[P_INFER])
            for k in range(alive):
                i = alive_at[k]
                copy_into(roll.pos, sample.pos)
                copy_into(roll.deck, sample.deck)
                play_move(roll.pos, roll.deck, rules, board.cards[i], board.takes[i])
                totals[i] += rollout(tail, depth, model, side, roll, search.lineup,
                                     search.solver, rolls)
        # order the survivors by total, best first (ties: lower index first)
        for k in range(1, alive):
            i = alive_at[k]
            j = k
            while j > 0 and (totals[alive_at[j - 1]] < totals[i] or (
                    totals[alive_at[j - 1]] == totals[i] and alive_at[j - 1] > i)):
                alive_at[j] = alive_at[j - 1]
                j -= 1
            alive_at[j] = i
        half = (alive + 1) // 2
        for k in range(half, alive):                # dropped: their sums become means
            totals[alive_at[k]] /= spent
        alive = half
    for k in range(alive):
        totals[alive_at[k]] /= max(spent, 1)
    return alive_at[0]
