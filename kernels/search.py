"""Search strategies: determinized Monte Carlo (pimc), single-observer ISMCTS
(ismcts), an exact endgame (endgame), and the net strategy's top level (net:
its network is `net`).

They see what their seat sees (`position.unseen`): a determinization deals
the unseen cards at random to the other hands (their sizes are public) and to
the undealt deck, less often giving a seat a card it has trailed beside
(`determinize_inferred`, weight `infer`); a rollout (`rollout`) plays the
round out (`play.play_out`) with a fast strategy, the net (`net.choose_rollout`)
or a user's (see `users`) at every seat, or, with `leaf=net`, plays `depth`
plays and takes the net's value of the position (`net.position_value`).
When no card is hidden any more (the deck is out and only one other
seat holds cards), `endgame` solves the rest of the round exactly by minimax
on the round point margin.

A search strategy is `f(p, seat, n, board, kit)`: its parameter row, the
seat to play, the number of root moves in board.cards/takes, the position
(`position.Board`) and the kit (`play.Kit`); all its scratch space is the
kit's `Search` record (`search_scratch()`), minimax's in its `Solver`
record; their tables are laid out by declared fields::

    nodes[node, T_*]   ISMCTS nodes, NODE_FIELDS: card, take, parent, child,
                       sibling, side (int64)
    stats[node, T_*]   their STAT_FIELDS: visits, availability, reward (float64)
    solver.plies[d, PLY_*]   minimax's ply d, PLY_FIELDS: where its moves start
                       in the rollout board's cards/takes, how many, the
                       next to try, whether it maximises
    solver.bounds[d, B_*]    its BOUND_FIELDS: alpha, beta, value (float64)

The outlined pieces (`minimax`, `solve`, `solve_sampled`, `rollout`) take
the few records they use, not the whole kit (`rollout`: a rollout's kit,
without the search scratch, `rollout_kit`): every array of a record passed
to a compiled function of its own is a handful of machine arguments, which
cost compile time at every call.
"""
from typing import NamedTuple

import numpy as np

from ._jit import kernel, outlined, spliced
from .bits import ONE, ZERO, lowest, popcount
from .heuristics import pick_fast
from .registry import (
    DEFAULTS, ID, LEAF_NET, P_DEAL_CARDS, P_DEALS, P_DEPTH, P_EXPLORATION, P_FALLBACK,
    P_ITERATIONS, P_INFER, P_LEAF, P_MAX_CARDS, P_NET_ENDGAME, P_ROLLOUT, P_SAMPLES,
    P_SEARCH_WEIGHTS, P_USE_ENDGAME, P_WEIGHTS, USER, Lineup, lineup)
from .layout import MAX_MOVES, MAX_PLAYERS, N_CARDS, N_PARAMS, N_SIDE, R_PLAYERS, R_SIDES, \
    R_TEAMS, S_POINTS
from .moves import best_total, legal_moves
from .net import choose_rollout, pick_net, position_value
from .play import CUT, NEVER, STOPPED, Kit, play_out
from .position import (
    DECK, HAND, PILE, PLAYS, POS_SIZE, SCOPAS, TABLE, TURN, VOID, Board, board, dealt_out,
    finish_round, hand_cards, is_over, play_move, unseen)
from .rng import below
from .scoring import score_round
from .users import checked, is_user, play_user

TREE = 1 << 15                      # ISMCTS nodes: iterations are capped below this
MAX_DEPTH = 48
MOST_CAPTURES = 1698                # the most sum captures one card can have
SOLVE_CARDS = 10                    # pimc and ismcts solve exactly from this many cards
NODE_FIELDS = ("card", "take", "parent", "child", "sibling", "side")
STAT_FIELDS = ("visits", "avail", "reward")
PLY_FIELDS = ("base", "count", "next", "max")
BOUND_FIELDS = ("alpha", "beta", "value")
T_CARD, T_TAKE, T_PARENT, T_CHILD, T_SIBLING, T_SIDE = (
    NODE_FIELDS.index(f) for f in ("card", "take", "parent", "child", "sibling", "side"))
T_VISITS, T_AVAIL, T_REWARD = (STAT_FIELDS.index(f) for f in ("visits", "avail", "reward"))
PLY_BASE, PLY_COUNT, PLY_NEXT, PLY_MAX = (
    PLY_FIELDS.index(f) for f in ("base", "count", "next", "max"))
B_ALPHA, B_BETA, B_VALUE = (BOUND_FIELDS.index(f) for f in ("alpha", "beta", "value"))
TRIES = 32                          # determinize_inferred's deals at most
NO_ROOM = -1e9                      # what minimax returns when it runs out of scratch
REWARD_SCALE = 0.1                  # a point of margin, as an ISMCTS reward


class Deal(NamedTuple):
    """A sampled deal of the hidden cards: a position and its deck order."""
    pos: np.ndarray            # uint64[POS_SIZE]
    deck: np.ndarray           # int64[N_CARDS]


class Solver(NamedTuple):
    """minimax's scratch (a named tuple of arrays); its moves go in a
    board's move list (`moves`, the search's rollout board)."""
    stack: np.ndarray          # uint64[MAX_DEPTH, POS_SIZE]: the positions by depth
    plies: np.ndarray          # int64[MAX_DEPTH, len(PLY_FIELDS)]: the plies
    bounds: np.ndarray         # float64[MAX_DEPTH, len(BOUND_FIELDS)]: their windows
    out: np.ndarray            # int16[MAX_PLAYERS, N_SIDE]: a leaf's, or a rollout's, scores


class Search(NamedTuple):
    """The search strategies' scratch (see the module docstring). Few
    arrays: every batch kernel takes it, and each array costs code."""
    sample: Deal               # a determinized deal
    roll: Board                # a rollout; its move list is minimax's too
    lineup: Lineup             # the rollouts' strategy at every seat (`roll_with`)
    totals: np.ndarray         # float64[MAX_MOVES]: per root move sums; after pimc or
                               # spimc, each move's mean (its value, as a teacher reads it)
    nodes: np.ndarray          # int64[TREE, len(NODE_FIELDS)]: ISMCTS nodes
    stats: np.ndarray          # float64[TREE, len(STAT_FIELDS)]: their statistics
    solver: Solver             # minimax's scratch; solver.out a rollout's scores
    alive: np.ndarray          # int64[MAX_MOVES]: spimc's surviving root moves, best first


def search_scratch():
    """Fresh scratch arrays for the search strategies (a `Search`)."""
    solver = Solver(stack=np.zeros((MAX_DEPTH, POS_SIZE), np.uint64),
                    plies=np.zeros((MAX_DEPTH, len(PLY_FIELDS)), np.int64),
                    bounds=np.zeros((MAX_DEPTH, len(BOUND_FIELDS)), np.float64),
                    out=np.zeros((MAX_PLAYERS, N_SIDE), np.int16))
    return Search(sample=Deal(np.zeros(POS_SIZE, np.uint64), np.zeros(N_CARDS, np.int64)),
                  roll=board(), lineup=lineup(), totals=np.zeros(MAX_MOVES, np.float64),
                  nodes=np.zeros((TREE, len(NODE_FIELDS)), np.int64),
                  stats=np.zeros((TREE, len(STAT_FIELDS)), np.float64),
                  solver=solver, alive=np.zeros(MAX_MOVES, np.int64))


# ---- shared pieces ------------------------------------------------------
@kernel
def copy_into(dst, src):
    """dst[:] = src, as a loop (a slice copy would need a temporary array)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel
def determinize(pos, deck, seat, rng, dpos, ddeck, work):
    """Copy the position, dealing `seat`'s unseen cards at random to the other
    hands (keeping their sizes) and to the undealt part of the deck."""
    copy_into(dpos, pos)
    copy_into(ddeck, deck)
    hidden = unseen(pos, seat)
    k = 0
    while hidden:
        work[k] = lowest(hidden)
        hidden &= hidden - ONE
        k += 1
    for i in range(k - 1, 0, -1):                 # shuffle the unseen cards
        j = below(rng, i + 1)
        work[i], work[j] = work[j], work[i]
    at = 0
    for s in range(MAX_PLAYERS):
        if s == seat or dpos[HAND + s] == ZERO:
            continue
        size = popcount(dpos[HAND + s])
        hand = ZERO
        for _ in range(size):
            hand |= ONE << np.uint64(work[at])
            at += 1
        dpos[HAND + s] = hand
    for d in range(np.int64(pos[DECK]), N_CARDS):
        ddeck[d] = work[at]
        at += 1


@kernel
def determinize_inferred(pos, deck, seat, rng, dpos, ddeck, work, trust):
    """`determinize`, weighing each deal by what trails tell: a deal that
    gives a seat a card it trailed beside this deal (`VOID`) counts 1 - `trust`
    times as likely as one that does not, per such seat. By rejection: such a
    deal is kept with probability 1 - `trust` (the TRIES-th deal whatever it is)."""
    for _ in range(TRIES):
        determinize(pos, deck, seat, rng, dpos, ddeck, work)
        keep = True
        for s in range(MAX_PLAYERS):
            if s != seat and trust > 0.0 and dpos[HAND + s] & pos[VOID + s]:
                if below(rng, 1 << 30) < trust * (1 << 30):
                    keep = False
                    break
        if keep:
            return


@kernel
def margin(out, side, n_sides):
    """Round points of `side` minus the best other side's."""
    other = -1000
    for t in range(n_sides):
        if t != side:
            other = max(other, np.int64(out[t, S_POINTS]))
    return np.int64(out[side, S_POINTS]) - other


@kernel
def score_into(pos, rules, out):
    """Finish a played-out position and score it into `out`."""
    finish_round(pos, rules)
    score_round(pos[PILE:PILE + MAX_PLAYERS], pos[SCOPAS:SCOPAS + MAX_PLAYERS], rules, out)


@kernel
def fill_seats(line, strategy, p):
    """Every seat of lineup `line` plays `strategy` with parameters `p`."""
    for s in range(MAX_PLAYERS):
        line.strategies[s] = strategy
        for j in range(N_PARAMS):
            line.params[s, j] = p[j]


@kernel
def roll_with(p, line, users):
    """Every seat of lineup `line` (the search's rollout lineup) plays the
    rollout strategy of search row `p`: a fast one at its defaults, net at
    its defaults with the search's network (its `weights`), a user one with
    its rollout row (`users.params`)."""
    strategy = np.int64(p[P_ROLLOUT])
    if is_user(strategy):
        fill_seats(line, strategy, users.params[strategy - USER])
    else:
        fill_seats(line, strategy, DEFAULTS[strategy])
        if strategy == ID.net:
            for s in range(MAX_PLAYERS):
                line.params[s, P_WEIGHTS] = p[P_SEARCH_WEIGHTS]


@kernel
def cut_after(p):
    """The plays a rollout of search row `p` makes before the net values its
    position (`leaf=net`: its `depth`), NEVER (to the end) without."""
    return np.int64(p[P_DEPTH]) if p[P_LEAF] == LEAF_NET else NEVER


@spliced
def policy(strategy, seat, n, board, kit):
    """The move a fallback strategy (fast or user, at its parameters in
    `roll_with`) plays; a bad choice is recorded in `users` and move 0 played."""
    users = kit.users
    if is_user(strategy):
        return play_user(strategy, users.params[strategy - USER], seat, board.pos, kit.rules, n,
                         board.cards, board.takes, kit.rng, users)
    i = pick_fast(strategy, DEFAULTS[strategy], seat, board.pos, kit.rules, n, board.cards,
                  board.takes, kit.rng)
    return checked(users, strategy, i, seat, board.pos[PLAYS], n)


@outlined
def rollout(tail, depth, model, side, board, line, solver, kit):
    """`side`'s round margin at the end of a rollout: the board's position
    played on with lineup `line` (the rollout lineup, `roll_with`) and
    `kit` (a rollout's: without the search scratch), solved exactly once
    the deck is out and at most `tail` cards are in hands (0: never), or
    cut after `depth` plays (NEVER: never) and valued by network `model`
    (`net.position_value`: the margin of the seat to move's side over the
    best other, negated when that is the other side; with three sides or
    more, where no negation gives `side`'s, the cut waits for `side`'s
    turn). Played to the end, the scores are left in solver.out; cut,
    `board.pos` is not over."""
    pos, rules, out = board.pos, kit.rules, solver.out
    stop = tail if tail > 0 else NEVER
    until = np.int64(pos[PLAYS]) + depth if depth >= 0 else NEVER
    while True:
        status = play_out(choose_rollout, line, board, kit, stop, until)
        if status == STOPPED:
            copy_into(solver.stack[0], pos)
            v = minimax(0, board.deck, side, -np.inf, np.inf, rules, kit.work, solver, board)
            if v != NO_ROOM:
                return v
            stop = NEVER                            # no room: play it out instead
        elif status == CUT:
            mover = rules[R_TEAMS + np.int64(pos[TURN])]
            if mover == side or rules[R_SIDES] == 2:
                v = position_value(kit.net, model, pos, rules, board.cards, board.takes,
                                   kit.work)
                return v if mover == side else -v
            until = np.int64(pos[PLAYS]) + 1
        else:
            break
    score_into(pos, rules, out)
    return float(margin(out, side, rules[R_SIDES]))


@kernel
def rollout_kit(kit):
    """The kit a search's rollouts play with: `kit` without the search
    scratch (see `play.play_at`)."""
    return Kit(kit.rules, kit.rng, kit.work, None, kit.users, kit.net)


# ---- exact endgame ------------------------------------------------------
@kernel
def hidden_holder(pos, seat, rules):
    """The other seat that must hold every card `seat` has not seen: the deck
    is out and only that seat has cards left. -1 if there is no such seat."""
    if pos[DECK] < N_CARDS:
        return -1
    holder = -1
    for s in range(rules[R_PLAYERS]):
        if s != seat and pos[HAND + s]:
            if holder >= 0:
                return -1
            holder = s
    return holder


@outlined
def minimax(top, deck, side, alpha, beta, rules, work, solver, moves):
    """Exact value (side's round point margin) of solver.stack[top] with
    best play by everyone (sides other than `side` minimise it), alpha-beta
    pruned.

    Depth-first with an explicit stack (Numba cannot cache recursion): ply d
    works on the position stack[d], its moves at moves.cards/takes[plies[d,
    PLY_BASE]:], the next to try plies[d, PLY_NEXT] of plies[d, PLY_COUNT],
    and its value and window in bounds[d] (all of `solver`). Returns NO_ROOM
    when it runs out of scratch room.
    """
    stack, frames, bounds, out = solver.stack, solver.plies, solver.bounds, solver.out
    cards, takes = moves.cards, moves.takes
    d = top
    frames[d, PLY_BASE] = 0
    bounds[d, B_ALPHA] = alpha
    bounds[d, B_BETA] = beta
    entering = True
    while True:
        if entering:                                   # a new ply: leaf or moves
            pos = stack[d]
            if is_over(pos):
                score_into(pos, rules, out)
                v = float(margin(out, side, rules[R_SIDES]))
            else:
                seat = np.int64(pos[TURN])
                base = frames[d, PLY_BASE]
                room = popcount(pos[HAND + seat]) * (
                    min(1 << min(popcount(pos[TABLE]), 20), MOST_CAPTURES) + 1)
                if d + 1 >= MAX_DEPTH or base + room > MAX_MOVES:
                    return NO_ROOM
                m = legal_moves(pos[HAND + seat], pos[TABLE], rules, cards[base:],
                                takes[base:], work)
                frames[d, PLY_COUNT] = m
                frames[d, PLY_NEXT] = 0
                frames[d, PLY_MAX] = rules[R_TEAMS + seat] == side
                bounds[d, B_VALUE] = -np.inf if frames[d, PLY_MAX] else np.inf
                entering = False
                continue
        else:                                          # the ply's next move, if any
            i = frames[d, PLY_NEXT]
            if i < frames[d, PLY_COUNT] and bounds[d, B_ALPHA] < bounds[d, B_BETA]:
                base = frames[d, PLY_BASE]
                copy_into(stack[d + 1], stack[d])
                play_move(stack[d + 1], deck, rules, cards[base + i], takes[base + i])
                frames[d + 1, PLY_BASE] = base + frames[d, PLY_COUNT]
                bounds[d + 1, B_ALPHA] = bounds[d, B_ALPHA]
                bounds[d + 1, B_BETA] = bounds[d, B_BETA]
                d += 1
                entering = True
                continue
            v = bounds[d, B_VALUE]
        if d == top:                                   # hand v to the ply above
            return v
        d -= 1
        if frames[d, PLY_MAX]:
            bounds[d, B_VALUE] = max(bounds[d, B_VALUE], v)
            bounds[d, B_ALPHA] = max(bounds[d, B_ALPHA], v)
        else:
            bounds[d, B_VALUE] = min(bounds[d, B_VALUE], v)
            bounds[d, B_BETA] = min(bounds[d, B_BETA], v)
        frames[d, PLY_NEXT] += 1
        entering = False


@spliced
def value_after(pos, deck, side, card, take, alpha, rules, work, solver, moves):
    """The exact value (`minimax`, window alpha..inf) of `pos` after `card`
    takes `take`, played on solver.stack[1]."""
    stack = solver.stack
    copy_into(stack[1], pos)
    play_move(stack[1], deck, rules, card, take)
    return minimax(1, deck, side, alpha, np.inf, rules, work, solver, moves)


@outlined
def solve(seat, n, board, rules, work, solver, moves):
    """The best root move by exact search, or -1 if it cannot be solved here."""
    pos, deck, stack = board.pos, board.deck, solver.stack
    holder = hidden_holder(pos, seat, rules)
    copy_into(stack[0], pos)
    if holder >= 0:
        stack[0, HAND + holder] = unseen(pos, seat)
    side = rules[R_TEAMS + seat]
    best_i = -1
    best_v = -np.inf
    for i in range(n):
        v = value_after(stack[0], deck, side, board.cards[i], board.takes[i], best_v, rules,
                        work, solver, moves)
        if v == NO_ROOM:
            return -1
        if v > best_v:
            best_v = v
            best_i = i
    return best_i


@kernel
def hidden(pos, seat, rules):
    """Whether a card is hidden from `seat`: one it has not seen, in the deck
    or in one of two or more other hands (one hand alone holds all it has
    not seen once the deck is out: they are known)."""
    return unseen(pos, seat) != 0 and hidden_holder(pos, seat, rules) < 0


@kernel
def solvable(pos, seat, rules, max_cards):
    """Whether no card is hidden from `seat` and few enough remain to solve."""
    return not hidden(pos, seat, rules) and hand_cards(pos, rules) <= max_cards


@spliced
def solve_if_open(use, seat, n, board, kit):
    """The move a search need not sample for: the only one, or the exact one
    if `use` and nothing is hidden (at most SOLVE_CARDS in hands); else -1.
    How pimc, ismcts and spimc start (and hand over to the endgame)."""
    if n == 1:
        return 0
    if use and solvable(board.pos, seat, kit.rules, SOLVE_CARDS):
        return solve(seat, n, board, kit.rules, kit.work, kit.search.solver, kit.search.roll)
    return -1


@outlined
def solve_sampled(seat, n, board, deals, rules, rng, work, search):
    """The move of best mean exact margin over `deals` deals of the unseen
    cards among the seats that hold them (the deck is out): each deal solved
    by minimax, every move on the same deals. -1 if it cannot be solved here."""
    sample, totals = search.sample, search.totals
    side = rules[R_TEAMS + seat]
    for i in range(n):
        totals[i] = 0.0
    for _ in range(deals):
        determinize(board.pos, board.deck, seat, rng, sample.pos, sample.deck, work)
        for i in range(n):
            v = value_after(sample.pos, sample.deck, side, board.cards[i], board.takes[i],
                            -np.inf, rules, work, search.solver, search.roll)
            if v == NO_ROOM:
                return -1
            totals[i] += v
    return best_total(totals, n)


@spliced
def solve_if_dealt_out(p, seat, n, board, kit):
    """endgame's and net's sampled endgame: once the deck is out and at most
    `deal_cards` are in hands, the move `solve_sampled` finds on `deals`
    deals (parameters `p`; 0 deals: never); else -1."""
    if n > 1 and p[P_DEALS] > 0 and dealt_out(board.pos, kit.rules, p[P_DEAL_CARDS]):
        return solve_sampled(seat, n, board, np.int64(p[P_DEALS]), kit.rules, kit.rng,
                             kit.work, kit.search)
    return -1


@spliced
def endgame(p, seat, n, board, kit):
    """Exact minimax once nothing is hidden; before that, once the deck is
    out and few cards are left (several seats hiding them), the best mean
    exact margin over sampled deals of them; the fallback strategy before."""
    if n > 1 and solvable(board.pos, seat, kit.rules, p[P_MAX_CARDS]):
        i = solve(seat, n, board, kit.rules, kit.work, kit.search.solver, kit.search.roll)
    else:
        i = solve_if_dealt_out(p, seat, n, board, kit)
    if i >= 0:
        return i
    return policy(np.int64(p[P_FALLBACK]), seat, n, board, kit)


# ---- determinized Monte Carlo -----------------------------------------
@spliced
def pimc(p, seat, n, board, kit):
    """Average each move's round margin over sampled deals of the unseen cards,
    each move played out by the rollout strategy on the same samples."""
    exact = solve_if_open(p[P_USE_ENDGAME], seat, n, board, kit)
    if exact >= 0:
        return exact
    search, rules = kit.search, kit.rules
    sample, roll, totals = search.sample, search.roll, search.totals
    roll_with(p, search.lineup, kit.users)
    depth, model, rolls = cut_after(p), np.int64(p[P_SEARCH_WEIGHTS]), rollout_kit(kit)
    side = rules[R_TEAMS + seat]
    for i in range(n):
        totals[i] = 0.0
    for _ in range(np.int64(p[P_SAMPLES])):
        determinize_inferred(board.pos, board.deck, seat, kit.rng, sample.pos, sample.deck,
                             kit.work, p[P_INFER])
        for i in range(n):
            copy_into(roll.pos, sample.pos)
            copy_into(roll.deck, sample.deck)
            play_move(roll.pos, roll.deck, rules, board.cards[i], board.takes[i])
            totals[i] += rollout(0, depth, model, side, roll, search.lineup, search.solver,
                                 rolls)
    best = best_total(totals, n)
    for i in range(n):
        totals[i] /= p[P_SAMPLES]                   # its values, as a teacher reads them
    return best


# ---- ISMCTS ---------------------------------------------------------------
@kernel
def child_for(tree_i, node, card, take):
    """The child of `node` reached by (card, take), or -1."""
    c = tree_i[node, T_CHILD]
    while c >= 0:
        if tree_i[c, T_CARD] == card and tree_i[c, T_TAKE] == np.int64(take):
            return c
        c = tree_i[c, T_SIBLING]
    return -1


@kernel
def add_child(tree_i, tree_f, size, node, card, take, side):
    tree_i[size, T_CARD] = card
    tree_i[size, T_TAKE] = np.int64(take)
    tree_i[size, T_PARENT] = node
    tree_i[size, T_CHILD] = -1
    tree_i[size, T_SIBLING] = tree_i[node, T_CHILD]
    tree_i[size, T_SIDE] = side
    tree_i[node, T_CHILD] = size
    tree_f[size, T_VISITS] = 0.0
    tree_f[size, T_AVAIL] = 0.0
    tree_f[size, T_REWARD] = 0.0
    return size


@spliced
def ismcts(p, seat, n, board, kit):
    """Single-observer ISMCTS: each iteration samples a deal of the unseen
    cards, descends the tree through moves legal in that deal (UCB with
    availability counts) until it adds one node, rolls out, and backs up
    each side's margin to the nodes of that side's moves. Plays the most
    visited move."""
    exact = solve_if_open(p[P_USE_ENDGAME], seat, n, board, kit)
    if exact >= 0:
        return exact
    search, rules, rng = kit.search, kit.rules, kit.rng
    roll, tree_i, tree_f = search.roll, search.nodes, search.stats
    rpos, rdeck, rcards, rtakes = roll.pos, roll.deck, roll.cards, roll.takes
    roll_with(p, search.lineup, kit.users)
    depth, model, rolls = cut_after(p), np.int64(p[P_SEARCH_WEIGHTS]), rollout_kit(kit)
    side = rules[R_TEAMS + seat]
    explore = p[P_EXPLORATION]
    n_sides = rules[R_SIDES]
    tree_i[0, T_CHILD] = -1
    tree_i[0, T_PARENT] = -1
    size = 1
    iterations = min(np.int64(p[P_ITERATIONS]), TREE - 1)
    for _ in range(iterations):
        determinize_inferred(board.pos, board.deck, seat, rng, rpos, rdeck, kit.work,
                             p[P_INFER])
        node = 0
        expanded = False
        while not is_over(rpos) and not expanded:        # the tree's part: select, expand
            mover = np.int64(rpos[TURN])
            m = legal_moves(rpos[HAND + mover], rpos[TABLE], rules, rcards, rtakes, kit.work)
            untried = 0
            pick = -1
            pick_ucb = -np.inf
            for i in range(m):
                c = child_for(tree_i, node, rcards[i], rtakes[i])
                if c < 0:
                    untried += 1
                    continue
                tree_f[c, T_AVAIL] += 1.0
                ucb = tree_f[c, T_REWARD] / tree_f[c, T_VISITS] + explore * np.sqrt(
                    np.log(tree_f[c, T_AVAIL]) / tree_f[c, T_VISITS])
                if ucb > pick_ucb:
                    pick_ucb = ucb
                    pick = i
            if untried and size < TREE:
                k = below(rng, untried)
                for i in range(m):
                    if child_for(tree_i, node, rcards[i], rtakes[i]) < 0:
                        if k == 0:
                            pick = i
                            break
                        k -= 1
                node = add_child(tree_i, tree_f, size, node, rcards[pick], rtakes[pick],
                                 rules[R_TEAMS + mover])
                tree_f[node, T_AVAIL] = 1.0
                size += 1
                expanded = True
            else:
                node = child_for(tree_i, node, rcards[pick], rtakes[pick])
            play_move(rpos, rdeck, rules, rcards[pick], rtakes[pick])
        v = rollout(0, depth, model, side, roll, search.lineup, search.solver, rolls)
        cut = depth >= 0 and not is_over(rpos)           # valued by the net: side's value only
        out = search.solver.out
        while node > 0:
            s = tree_i[node, T_SIDE]
            got = margin(out, s, n_sides) if not cut else v if s == side else -v
            tree_f[node, T_VISITS] += 1.0
            tree_f[node, T_REWARD] += REWARD_SCALE * got
            node = tree_i[node, T_PARENT]
    best_i = 0
    best_visits = -1.0
    for i in range(n):
        c = child_for(tree_i, 0, board.cards[i], board.takes[i])
        if c >= 0 and tree_f[c, T_VISITS] > best_visits:
            best_visits = tree_f[c, T_VISITS]
            best_i = i
    return best_i


# ---- the learned player ---------------------------------------------------
@spliced
def net(p, seat, n, board, kit):
    """The net strategy (`net`'s module docstring): the exact endgame once
    nothing is hidden and endgame's sampled one once the deck is out and few
    cards are left (with `endgame`; `deals` of them), else the network's best move."""
    exact = solve_if_open(p[P_NET_ENDGAME], seat, n, board, kit)
    if exact < 0 and p[P_NET_ENDGAME]:
        exact = solve_if_dealt_out(p, seat, n, board, kit)
    if exact >= 0:
        return exact
    return pick_net(np.int64(p[P_WEIGHTS]), seat, n, board.pos, kit.rules, board.cards,
                    board.takes, kit.net)
