"""Learning environments' rounds, stepped many at once: arrays and ints in,
arrays out (the kernel of `scopa_sim.envs`, called through `engine.envs`).

Each of n rounds (row i of an `Envs` record) waits for an outside player,
the seat to play; the lineup's other seats (a built-in or jitted user
strategy, or PYTHON: outside too) play in the one play-out loop
(`play.play_out`), so an outside seat meets the simulator's own code.
Round `unit[i]` of run `seed` is dealt as the simulator deals that round of
a rounds run (its deal stream; dealer unit % players) and every kernel
strategy draws from its decide stream, in play order.

Actions (N_ACTIONS = 80; docs/ENVS.md), a move in one or more steps:

    a in 0..39    PLAY card a from the hand (stage 0). A card with one move
                  (a trail, or one capture) plays it at once; with several
                  captures the round waits for their choice (stage 1).
    40 + t        TAKE table card t (stage 1): the next card, in ascending
                  order, of the capture set being chosen. A choice shared by
                  every capture still open is made at once; the move is
                  played when one capture is left.

So every legal (card, capture set) is reached by exactly one sequence, and
a step offers at least two choices except a play with one card in hand.

The observation of the seat to play (int8[obs_size(players, sides)]):

    0    hand      40 bits      40   table    40    80  unseen (other hands, deck)
    120  card      the card being played (stage 1)  160 taking: its capture so far
    200  piles     40 per side, the observer's side first, then in seat order
    then position from the leader (players, one-hot), last capturer counted
    from the observer (players + 1, one-hot: its last slot, nobody), scopas per
    side (observer's first), hand sizes per seat (observer's first), plays
    made, cards left to deal, last play (0/1), stage (0/1).
"""
import sys
from typing import NamedTuple

import numpy as np

from ._jit import kernel, outlined, spliced
from .bits import ONE, ZERO, ix, popcount, store8
from .layout import MAX_PLAYERS, N_CARDS, N_ROUND, N_SIDE, R_PLAYERS, R_SIDES, R_TEAMS, S_POINTS
from .moves import captures_of
from .play import FAULT, OVER, Kit, play_at, play_out
from .position import (DEALER, DECK, HAND, LAST, PILE, PLAYS, SCOPAS, TABLE, TOTAL, TURN, Board,
                       start_round, unseen)
from .rng import below, stream
from .round import deal_round, end_round
from .strategies import choose, choose_fast, choose_simple
from .sync import load_acquire, store_release, wait_past

N_ACTIONS = 80
TAKE = 40                 # action TAKE + t: take table card t
PLANES = 5                # hand, table, unseen, card, taking; then a plane per side
# what `step` returns besides 0 (all stepped): -(i + 1) for row i's illegal action
BAD_STRATEGY = -(1 << 40)  # a kernel strategy chose a move that does not exist
# SPREAD[b]: byte b's 8 bits as 8 bytes of 0 or 1, bit k in byte k (stored lowest byte first)
SPREAD = np.array([sum(((b >> k) & 1) << (8 * k) for k in range(8)) for b in range(256)], np.uint64)
assert sys.byteorder == "little", "the observation's planes are stored as little-endian words"


def obs_size(players, sides):
    """The observation's length for these rules."""
    return N_CARDS * (PLANES + sides) + 3 * players + 1 + sides + 4


class Envs(NamedTuple):
    """n rounds being stepped, row i each (a named tuple of arrays)."""
    pos: np.ndarray        # uint64[n, POS_SIZE]: the positions (`position`)
    deck: np.ndarray       # int64[n, N_CARDS]: their deck orders
    rng: np.ndarray        # uint64[n, 1]: their decide streams
    log: np.ndarray        # int64[n, N_CARDS, 3]: seat, card, capture set of each play
    unit: np.ndarray       # int64[n]: the round of the run each plays
    pending: np.ndarray    # int64[n]: the card being played (stage 1), else -1
    chosen: np.ndarray     # uint64[n]: its capture's cards chosen so far
    options: np.ndarray    # uint64[n]: the table cards that can be taken next (stage 1)
    obs: np.ndarray        # int8[n, obs_size]: the seat to play's observation
    mask: np.ndarray       # int8[n, N_ACTIONS]: its legal actions
    seat: np.ndarray       # int64[n]: the seat to play
    rewards: np.ndarray    # float32[n, players]: each seat's reward of the last step
    done: np.ndarray       # bool[n]: whether the last step ended the round
    results: np.ndarray    # int16[n, MAX_PLAYERS, N_SIDE]: the last finished round's sides
    info: np.ndarray       # int64[n, N_ROUND]: and its fields


def envs(n, players, sides):
    """A fresh Envs record of n rows for these rules."""
    from .position import POS_SIZE
    return Envs(np.zeros((n, POS_SIZE), np.uint64), np.zeros((n, N_CARDS), np.int64),
                np.zeros((n, 1), np.uint64), np.zeros((n, N_CARDS, 3), np.int64),
                np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.uint64),
                np.zeros(n, np.uint64), np.zeros((n, obs_size(players, sides)), np.int8),
                np.zeros((n, N_ACTIONS), np.int8), np.zeros(n, np.int64),
                np.zeros((n, players), np.float32), np.zeros(n, np.bool_),
                np.zeros((n, MAX_PLAYERS, N_SIDE), np.int16), np.zeros((n, N_ROUND), np.int64))


@spliced
def open_captures(table, card, chosen, rules, takes, work):
    """The captures of `card` whose cards up to the highest chosen are exactly
    `chosen` (the ones still open): how many, the first, and the union of the
    next card of each (its lowest card not chosen)."""
    m = captures_of(table, card, rules, takes, work)
    below = ZERO
    if chosen:
        top = chosen
        while top & (top - ONE):
            top &= top - ONE
        below = top | (top - ONE)
    count = 0
    first = ZERO
    nexts = ZERO
    for k in range(m):
        take = takes[k]
        if take & below == chosen:
            if count == 0:
                first = take
            count += 1
            rest = take & ~chosen
            nexts |= rest & (ZERO - rest)
    return count, first, nexts


@spliced
def advance(envs, i, board, kit):
    """Make the forced choices of row i's capture being chosen; True if that
    ends in a move, played (`play_chosen`)."""
    pos = board.pos
    card = envs.pending[i]
    while True:
        count, first, nexts = open_captures(pos[TABLE], card, envs.chosen[i], kit.rules,
                                            board.takes, kit.work)
        if count == 1:
            play_chosen(board, kit, card, first)
            envs.pending[i] = -1
            envs.chosen[i] = ZERO
            envs.options[i] = ZERO
            return True
        if popcount(nexts) > 1:
            envs.options[i] = nexts
            return False
        envs.chosen[i] |= nexts


@spliced
def play_chosen(board, kit, card, take):
    """Play (card, take) for the seat to move, logged as `play.play_at` logs."""
    board.cards[0] = card
    board.takes[0] = take
    play_at(board, kit, np.int64(0))


@spliced
def act(envs, i, a, board, kit):
    """Row i's action a (legal); True if it played a move."""
    if a < TAKE:
        envs.pending[i] = a
        envs.chosen[i] = ZERO
        m = captures_of(board.pos[TABLE], a, kit.rules, board.takes, kit.work)
        if m <= 1:
            play_chosen(board, kit, a, board.takes[0] if m == 1 else ZERO)
            envs.pending[i] = -1
            return True
        return advance(envs, i, board, kit)
    envs.chosen[i] |= ONE << np.uint64(a - TAKE)
    return advance(envs, i, board, kit)


@spliced
def deal(envs, i, seed, rules):
    """Deal row i's round `unit[i]` of run `seed`, as the simulator does."""
    unit = envs.unit[i]
    deal_round(seed, unit, np.int64(0), envs.deck[i], envs.rng[i])
    start_round(envs.pos[i], envs.deck[i], unit % rules[R_PLAYERS], rules)
    envs.pending[i] = -1
    envs.chosen[i] = ZERO
    envs.options[i] = ZERO


@spliced
def finish(envs, i, rules):
    """Score row i's finished round into results/info, and each seat's reward:
    its side's points less the mean of the other sides'."""
    pos, out = envs.pos[i], envs.results[i]
    end_round(pos, rules, np.int64(pos[DEALER]), out, envs.info[i])
    sides = rules[R_SIDES]
    total = 0.0
    for t in range(sides):
        total += out[t, S_POINTS]
    for s in range(rules[R_PLAYERS]):
        own = np.float64(out[rules[R_TEAMS + s], S_POINTS])
        envs.rewards[i, s] = np.float32(own - (total - own) / (sides - 1))
    envs.done[i] = True


@spliced
def observe(envs, i, rules):
    """Row i's observation and action mask for the seat to play."""
    seat = np.int64(envs.pos[i, TURN])
    envs.seat[i] = seat
    view(envs, i, seat, rules, envs.obs[i], envs.mask[i], True)


@spliced
def view(envs, i, seat, rules, obs, mask, to_play):
    """What `seat` sees of row i into obs; its legal actions into mask if
    `to_play` (it is the seat to play), else none."""
    pos = envs.pos[i]
    n, sides = rules[R_PLAYERS], rules[R_SIDES]
    side = rules[R_TEAMS + seat]
    stage = to_play and envs.pending[i] >= 0
    hand = pos[HAND + seat]
    plane(hand, obs, 0)
    plane(pos[TABLE], obs, N_CARDS)
    plane(unseen(pos, seat), obs, 2 * N_CARDS)
    plane(ONE << np.uint64(envs.pending[i]) if stage else ZERO, obs, 3 * N_CARDS)
    plane(envs.chosen[i] if stage else ZERO, obs, 4 * N_CARDS)
    plane(envs.options[i] if stage else ZERO, mask, TAKE)
    plane(hand if to_play and not stage else ZERO, mask, 0)
    for k in range(sides):
        plane(pos[PILE + cyclic(side, k, sides)], obs, (PLANES + k) * N_CARDS)
    at = (PLANES + sides) * N_CARDS
    one_hot(obs, at, n, cyclic(seat, n - 1 - np.int64(pos[DEALER]), n))
    at += n
    last = np.int64(pos[LAST]) - 1
    one_hot(obs, at, n + 1, cyclic(last, n - seat, n) if last >= 0 else n)
    at += n + 1
    for k in range(sides):
        obs[at + k] = np.int8(pos[SCOPAS + cyclic(side, k, sides)])
    at += sides
    for k in range(n):
        obs[at + k] = np.int8(popcount(pos[HAND + cyclic(seat, k, n)]))
    at += n
    obs[at] = np.int8(pos[PLAYS])
    obs[at + 1] = np.int8(N_CARDS - np.int64(pos[DECK]))
    obs[at + 2] = 1 if pos[PLAYS] + ONE == pos[TOTAL] else 0
    obs[at + 3] = 1 if stage else 0


@kernel
def one_hot(obs, at, width, k):
    """obs[at:at + width] = 1 at k, 0 elsewhere (selects, not a memset call)."""
    for x in range(width):
        obs[at + x] = 1 if x == k else 0


@spliced
def cyclic(a, k, n):
    """(a + k) % n for 0 <= a, k < n, without a division (a step's view
    counted eight, some tens of cycles each)."""
    x = a + k
    return x - n if x >= n else x


@spliced
def plane(cards, out, at):
    """out[at + c] = 1 if card c is in the set, else 0, for each of the 40
    cards: a byte of the set at a time, spread by a table into a word of 8
    bytes and stored at once (no loop over the cards, no branch; a plane
    written a card at a time after zeroing was a fifth of a step's time)."""
    for byte in range(N_CARDS // 8):
        store8(out, at + 8 * byte, SPREAD[ix((cards >> np.uint64(8 * byte)) & np.uint64(0xFF))])


@spliced
def run_on(choose, envs, i, lineup, rules, scratch):
    """Let the kernel's seats of row i play up to an outside seat or the end
    of the round; the status (`play.OVER`, `ASKED`, `FAULT`)."""
    board = Board(envs.pos[i], envs.deck[i], scratch.cards, scratch.takes, envs.log[i])
    kit = Kit(rules, envs.rng[i], scratch.work, scratch.search, scratch.users, scratch.net)
    return play_out(choose, lineup, board, kit, None, None)


@spliced
def begin(choose, envs, i, seed, lineup, rules, scratch):
    """Deal row i's round and play it up to an outside seat; False on a fault."""
    deal(envs, i, seed, rules)
    status = run_on(choose, envs, i, lineup, rules, scratch)
    if status == FAULT:
        return False
    observe(envs, i, rules)
    return True


@spliced
def reset(choose, envs, seed, lineup, rules, scratch):
    """Deal every row's round `unit[i]`; 0, or BAD_STRATEGY."""
    for i in range(envs.pos.shape[0]):
        envs.done[i] = False
        no_rewards(envs, i)
        if not begin(choose, envs, i, seed, lineup, rules, scratch):
            return BAD_STRATEGY
    return 0


@kernel
def first_illegal(mask, actions):
    """The first row i whose action is not one its mask allows (mask[i] of
    0..79), or -1."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or mask[i, a] == 0:
            return i
    return -1


@kernel
def no_rewards(envs, i):
    """Row i's rewards set to 0 (stores: a slice's assignment calls memset)."""
    for s in range(MAX_PLAYERS):
        if s < envs.rewards.shape[1]:
            envs.rewards[i, s] = 0


@spliced
def step(choose, envs, actions, seed, stride, lineup, rules, scratch):
    """Every row's action (checked against its mask first: -(i + 1) for the
    first illegal one, nothing changed); a finished round is scored, and with
    `stride` > 0 round unit + stride is dealt in its place. 0, or BAD_STRATEGY."""
    n = envs.pos.shape[0]
    bad = first_illegal(envs.mask, actions)
    if bad >= 0:
        return -(bad + 1)
    for i in range(n):
        envs.done[i] = False
        no_rewards(envs, i)
        board = Board(envs.pos[i], envs.deck[i], scratch.cards, scratch.takes, envs.log[i])
        kit = Kit(rules, envs.rng[i], scratch.work, scratch.search, scratch.users, scratch.net)
        if act(envs, i, actions[i], board, kit):
            status = play_out(choose, lineup, board, kit, None, None)
            if status == FAULT:
                return BAD_STRATEGY
            if status == OVER:
                finish(envs, i, rules)
                if stride > 0:
                    envs.unit[i] += stride
                    if not begin(choose, envs, i, seed, lineup, rules, scratch):
                        return BAD_STRATEGY
                    continue
                envs.mask[i, :] = 0
                continue
        observe(envs, i, rules)
    return 0


@outlined
def simple_reset(envs, seed, lineup, rules, scratch):
    """`reset` with random and greedy at the kernel's seats."""
    return reset(choose_simple, envs, seed, lineup, rules, scratch)


@outlined
def fast_reset(envs, seed, lineup, rules, scratch):
    """`reset` with the fast strategies and the jitted user ones."""
    return reset(choose_fast, envs, seed, lineup, rules, scratch)


@outlined
def search_reset(envs, seed, lineup, rules, scratch):
    """`reset` with every strategy."""
    return reset(choose, envs, seed, lineup, rules, scratch)


@outlined
def simple_step(envs, actions, seed, stride, lineup, rules, scratch):
    """`step` with random and greedy at the kernel's seats."""
    return step(choose_simple, envs, actions, seed, stride, lineup, rules, scratch)


@outlined
def fast_step(envs, actions, seed, stride, lineup, rules, scratch):
    """`step` with the fast strategies and the jitted user ones."""
    return step(choose_fast, envs, actions, seed, stride, lineup, rules, scratch)


@outlined
def search_step(envs, actions, seed, stride, lineup, rules, scratch):
    """`step` with every strategy."""
    return step(choose, envs, actions, seed, stride, lineup, rules, scratch)


@outlined
def seat_view(envs, i, seat, rules, obs, mask):
    """`view` of row i for any seat (its mask empty unless it is to play
    and the round goes on)."""
    to_play = seat == envs.seat[i] and envs.mask[i].any()
    view(envs, i, seat, rules, obs, mask, to_play)


RESETS = {"simple": simple_reset, "fast": fast_reset, "search": search_reset}
STEPS = {"simple": simple_step, "fast": fast_step, "search": search_step}


# mask bytes (0 or 1) as bits: a word of 8 times GATHER has byte k's bit at bit 56 + k
GATHER = np.uint64(0x0102040810204080)
WIDTHS = (32, 16, 8, 4, 2, 1)


@kernel
def mask_bits(row):
    """A mask row's 80 bytes (0 or 1; as 10 uint64 words) as the bits of
    two words: actions 0..63, and 64..79."""
    low = ZERO
    for w in range(8):
        low |= ((row[w] * GATHER) >> np.uint64(56)) << np.uint64(8 * w)
    high = ((row[8] * GATHER) >> np.uint64(56)) | (((row[9] * GATHER) >> np.uint64(56))
                                                   << np.uint64(8))
    return low, high


@kernel
def nth_set(x, k):
    """The index of set bit k (from 0, lowest first) of x, which has more
    than k: halves counted and skipped without a branch."""
    at = np.int64(0)
    for width in WIDTHS:
        c = popcount(x & ((ONE << np.uint64(width)) - ONE))
        skip = k >= c
        k -= c if skip else 0
        x >>= np.uint64(width if skip else 0)
        at += width if skip else 0
    return at


@outlined
def random_actions(mask, seed, first, state, out):
    """out[i]: a legal action of row i drawn uniformly from its mask (C
    order, 0 or 1 a byte) by the plain stream (seed, first + i)
    (`rng.stream`, in `state`: uint64[1]); -1 where none is legal. The
    mask is read a word of 8 actions at a time, and the action found
    without a loop over them (whose branches the predictor missed)."""
    words = mask.view(np.uint64)
    for i in range(mask.shape[0]):
        low, high = mask_bits(words[i])
        in_low = popcount(low)
        count = in_low + popcount(high)
        if count == 0:
            out[i] = -1
            continue
        stream(seed, first + i, state)
        k = below(state, count)
        out[i] = nth_set(low, k) if k < in_low else 64 + nth_set(high, k - in_low)


# A helper thread's hand-over (`serve`, `engine.crew`): its flag's words, its job's
POSTED, DONE = 0, 1                    # the number of the last job posted, of the last done
J_TASK, J_SEED, J_STRIDE, J_FIRST, J_CODE = range(5)
STEP, SAMPLE, STOP = 1, 2, 3           # the tasks
IDLE, STOPPED = 0, 1                   # what `serve` returns


class Part(NamedTuple):
    """A helper thread's rows (`serve`): a named tuple of a record and arrays."""
    envs: Envs             # its rows of the state
    actions: np.ndarray    # int64[rows]: their actions (STEP)
    rng: np.ndarray        # uint64[1]: `random_actions`' stream (SAMPLE)
    out: np.ndarray        # int64[rows]: the actions drawn (SAMPLE)


@spliced
def serve(choose, flag, job, part, lineup, rules, scratch, spins):
    """A helper thread's loop over its part of the rows, without the GIL:
    it waits for a job's number in flag[POSTED], does job[J_TASK] (STEP:
    `step` of the part's actions by seed job[J_SEED] and stride
    job[J_STRIDE]; SAMPLE: `random_actions` of its masks, its rows counted
    from job[J_FIRST], by seed job[J_SEED]), puts the code in job[J_CODE]
    and publishes the number in flag[DONE]. IDLE when no job came in
    `spins` reads (the thread sleeps, then calls again), STOPPED on STOP."""
    seen = load_acquire(flag, DONE)
    while True:
        now = wait_past(flag, POSTED, seen, spins)
        if now == seen:
            return IDLE
        task, seed = job[J_TASK], np.uint64(job[J_SEED])
        if task == STOP:
            store_release(flag, DONE, now)
            return STOPPED
        if task == STEP:
            job[J_CODE] = step(choose, part.envs, part.actions, seed, job[J_STRIDE], lineup,
                               rules, scratch)
        else:
            random_actions(part.envs.mask, seed, job[J_FIRST], part.rng, part.out)
            job[J_CODE] = 0
        store_release(flag, DONE, now)
        seen = now


@outlined
def simple_serve(flag, job, part, lineup, rules, scratch, spins):
    """`serve` with random and greedy at the kernel's seats."""
    return serve(choose_simple, flag, job, part, lineup, rules, scratch, spins)


@outlined
def fast_serve(flag, job, part, lineup, rules, scratch, spins):
    """`serve` with the fast strategies and the jitted user ones."""
    return serve(choose_fast, flag, job, part, lineup, rules, scratch, spins)


@outlined
def search_serve(flag, job, part, lineup, rules, scratch, spins):
    """`serve` with every strategy."""
    return serve(choose, flag, job, part, lineup, rules, scratch, spins)


SERVES = {"simple": simple_serve, "fast": fast_serve, "search": search_serve}
