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

A rollout plays with the `rollout` strategy until the deck is out and at most
`tail` cards are left in hands; from there it is solved exactly inside the
deal (`search.minimax` on the round margin). In two-player scopa the last
deal is open to both players (every card is counted), so that is how it is
really played; 0 turns it off. The exact tail costs about three rollouts,
so it is used only in searches from at most `reach` cards (hands and
undealt deck) from the end of the round. With `endgame`, the root is solved exactly
once nothing is hidden (as pimc); deals are weighed by `infer` (as pimc).

Scratch: pimc's (`search.search_scratch`); the surviving move indices live in
the ISMCTS tree rows past the endgame's frames (idle here).
"""
import numpy as np

from ._jit import kernel, spliced
from .registry import P_INFER, P_REACH, P_ROLLOUT, P_SAMPLES, P_TAIL, P_USE_ENDGAME
from .layout import N_CARDS, R_SIDES, R_TEAM
from .moves import legal_moves
from .position import DECK, HAND, TABLE, TURN, is_over, play_move
from .search import (
    MAX_DEPTH,
    NO_ROOM,
    copy_into,
    dealt_out,
    determinize_inferred,
    hand_cards,
    margin,
    minimax,
    policy,
    score_into,
    solve_if_open,
)

ALIVE = MAX_DEPTH                 # tree_i[ALIVE + k, 0]: the k-th surviving root move


@kernel
def playout(strategy, tail, side, pos, deck, rules, rng, cards, takes, work, out, users,
            stack, frames, bounds):
    """Play the position out with `policy`, solving it exactly once the deck
    is out and at most `tail` cards are in hands; `side`'s round margin."""
    solving = tail > 0
    while not is_over(pos):
        if solving and dealt_out(pos, rules, tail):
            copy_into(stack[0], pos)
            v = minimax(stack, 0, deck, rules, side, -np.inf, np.inf, cards, takes, work,
                        out, frames, bounds)
            if v != NO_ROOM:
                return v
            solving = False                         # no room: play it out instead
        seat = np.int64(pos[TURN])
        m = legal_moves(pos[HAND + seat], pos[TABLE], rules, cards, takes, work)
        i = policy(strategy, seat, pos, rules, m, cards, takes, rng, users)
        play_move(pos, deck, rules, cards[i], takes[i])
    score_into(pos, rules, out)
    return float(margin(out, side, rules[R_SIDES]))


@spliced
def spimc(p, seat, pos, deck, rules, n, cards, takes, rng, work, search, users):
    """Sequential halving over the root moves on shared sampled deals, each
    rollout finished exactly (see the module docstring)."""
    exact = solve_if_open(p[P_USE_ENDGAME], seat, pos, deck, rules, n, cards, takes,
                          work, search)
    if exact >= 0:
        return exact
    spos, rpos, sdeck, rdeck, rcards, rtakes, totals, sout, tree_i, tree_f, stack = search
    frames, bounds = tree_i[:MAX_DEPTH], tree_f[:MAX_DEPTH]
    strategy = np.int64(p[P_ROLLOUT])
    tail = np.int64(p[P_TAIL])
    if hand_cards(pos, rules) + N_CARDS - np.int64(pos[DECK]) > p[P_REACH]:
        tail = 0                                    # too far from the end to pay for it
    budget = np.int64(p[P_SAMPLES]) * n
    side = rules[R_TEAM + seat]
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    alive = n
    for i in range(n):
        totals[i] = 0.0
        tree_i[ALIVE + i, 0] = i
    for r in range(rounds):
        samples = max(1, budget // (rounds * alive))
        for _ in range(samples):
            determinize_inferred(pos, deck, seat, rng, spos, sdeck, work, p[P_INFER])
            for k in range(alive):
                i = tree_i[ALIVE + k, 0]
                copy_into(rpos, spos)
                copy_into(rdeck, sdeck)
                play_move(rpos, rdeck, rules, cards[i], takes[i])
                totals[i] += playout(strategy, tail, side, rpos, rdeck, rules, rng, rcards,
                                     rtakes, work, sout, users, stack, frames, bounds)
        # order the survivors by total, best first (ties: lower index first)
        for k in range(1, alive):
            i = tree_i[ALIVE + k, 0]
            j = k
            while j > 0 and (totals[tree_i[ALIVE + j - 1, 0]] < totals[i] or (
                    totals[tree_i[ALIVE + j - 1, 0]] == totals[i]
                    and tree_i[ALIVE + j - 1, 0] > i)):
                tree_i[ALIVE + j, 0] = tree_i[ALIVE + j - 1, 0]
                j -= 1
            tree_i[ALIVE + j, 0] = i
        alive = (alive + 1) // 2
    return tree_i[ALIVE, 0]
