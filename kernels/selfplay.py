"""Self-play samples for training the net strategy (`scopa_sim.study.train`).

Rounds are dealt as a run's are (round u of run `seed` from its streams) and
played by a lineup, each decision replaced by a random legal move with
probability `explore`. At every decision the network would make (two moves or
more, a card hidden from the mover: `search.hidden`; in two-player scopa, the
deck not out), each legal move gives one sample: its afterstate
(`net.after`, what the mover sees) and its target, the mover's side's round
margin when the round is played on from it by the `rollout` lineup: in the
true deal (`worlds` 0: the target may see the hidden cards, the network
never does), or averaged over `worlds` deals of the hidden cards sampled as
the searches sample them (`search.determinize_inferred`), which is less
noisy. Every move of a decision is played on from the same deals and random
states (common random numbers), so their targets differ by the moves alone.
With a `teacher` (a pimc or spimc search, expert iteration), a move's target
is instead the teacher's value of it at that decision: its mean margin over
the teacher's own sampled deals (the search's `totals`; spimc's over the
rollouts a move had before sequential halving dropped it)::

    samples.after[row]     int64[A_SIZE]: the afterstate
    samples.target[row]    float32: its rollout margin
    samples.decision[row]  int64: the decision (unit << 6 | play), shared by its moves
"""
from typing import NamedTuple

import numpy as np

from ._jit import kernel, outlined
from .bits import ix
from .layout import MAX_PLAYERS, N_CARDS, N_PARAMS, N_SIDE, R_PLAYERS, R_SIDES, R_TEAMS
from .registry import PYTHON, Lineup
from .moves import legal_moves
from .net import after
from .play import ASKED, Kit, play_at, play_out
from .position import HAND, PLAYS, POS_SIZE, TABLE, TURN, Board, board, play_move, \
    start_round
from .rng import below, next_u64, stream
from .round import deal_round
from .search import Deal, copy_into, determinize_inferred, hidden, margin, score_into
from .strategies import choose


NO_TEACHER = -1                # Recipe.teacher's strategy where the rollouts make the targets


class Samples(NamedTuple):
    """Where the samples go (see the module docstring)."""
    after: np.ndarray          # int64[rows, A_SIZE]
    target: np.ndarray         # float32[rows]
    decision: np.ndarray       # int64[rows]


class Recipe(NamedTuple):
    """Who plays, and how targets are made (see the module docstring)."""
    lineup: tuple              # a registry.Lineup: who plays the rounds
    rollout: tuple             # a registry.Lineup: who plays each move on
    explore: float             # the chance of a random legal move instead of the lineup's
    worlds: int                # 0: the true deal; k: the mean over k sampled deals
    infer: float               # how far those deals believe trails (search.determinize_inferred)
    asked: tuple               # a registry.Lineup of PYTHON at every seat: `play.play_out`
                               # hands each decision back (`recipe`)
    teacher: tuple             # a registry.Lineup: the search (pimc, spimc) whose move values
                               # are the targets, or NO_TEACHER at every seat


class Rollout(NamedTuple):
    """The targets' own scratch: the deal every move is played on from, the
    board a move is played on, its random state and its scores (not the
    search scratch's: the rollout strategies use that)."""
    sample: Deal
    board: Board
    rng: np.ndarray            # uint64[1]
    out: np.ndarray            # int16[MAX_PLAYERS, N_SIDE]


def rollout_scratch():
    """Fresh rollout scratch."""
    return Rollout(Deal(np.zeros(POS_SIZE, np.uint64), np.zeros(N_CARDS, np.int64)), board(),
                   np.zeros(1, np.uint64), np.zeros((MAX_PLAYERS, N_SIDE), np.int16))


def recipe(lineup, rollout, explore, worlds, infer, teacher=None):
    """A Recipe of these (lineups: `registry.Lineup`s; no teacher: None)."""
    def everywhere(strategy):
        return Lineup(np.full(MAX_PLAYERS, strategy, np.int64),
                      np.zeros((MAX_PLAYERS, N_PARAMS), np.float64))
    return Recipe(lineup, rollout, float(explore), int(worlds), float(infer),
                  everywhere(PYTHON), everywhere(NO_TEACHER) if teacher is None else teacher)


def samples(rows, size):
    """Room for `rows` samples (`size`: net.A_SIZE)."""
    return Samples(np.zeros((rows, size), np.int64), np.zeros(rows, np.float32),
                   np.zeros(rows, np.int64))


@outlined
def self_play(seed, first, count, rules, recipe, out, scratch, roll):
    """Play rounds first..first+count-1 of run `seed` (a `batch.Scratch`'s
    arrays) by `recipe` (a `Recipe`), writing each sampled decision's moves
    into `out` (a `Samples`; a decision that would not fit is skipped); the
    number of rows written, or -2 if a strategy failed."""
    pos, deck, rng = scratch.pos, scratch.deck, scratch.rng
    play = Board(pos, deck, scratch.cards, scratch.takes, scratch.log)
    kit = Kit(rules, rng, scratch.work, scratch.search, scratch.users, scratch.net)
    rows = out.target.shape[0]
    row = 0
    for k in range(count):
        u = first + k
        deal_round(seed, u, 0, deck, rng)
        start_round(pos, deck, u % rules[R_PLAYERS], rules)
        while play_out(choose, recipe.asked, play, kit, None, None) == ASKED:   # each decision
            seat = np.int64(pos[TURN])
            m = legal_moves(pos[ix(HAND + seat)], pos[TABLE], rules, play.cards, play.takes,
                            kit.work)
            if m > 1 and hidden(pos, seat, rules) and row + m <= rows:
                for i in range(m):
                    after(pos, rules, seat, play.cards[i], play.takes[i], out.after[row + i])
                    out.target[row + i] = 0.0
                    out.decision[row + i] = (u << 6) | np.int64(pos[PLAYS])
                targets(recipe, play, m, rules, kit, roll, out.target[row:row + m])
                row += m
            if recipe.explore > 0 and m > 1 and below(rng, 1 << 20) < recipe.explore * (1 << 20):
                i = below(rng, m)
            else:
                strategy = recipe.lineup.strategies[ix(seat)]
                i = choose(strategy, recipe.lineup.params[ix(seat)], seat, m, play, kit)
                if i < 0 or i >= m:
                    return -2
            play_at(play, kit, i)
    return row


@kernel
def targets(recipe, play, m, rules, kit, roll, target):
    """Each of the m moves' target into target[:m]: the teacher's value of
    it, or its margin played on by the rollout lineup, in the true deal or
    averaged over sampled ones; every move on the same deal from the same
    random state."""
    pos, deck = play.pos, play.deck
    seat = np.int64(pos[TURN])
    teacher = recipe.teacher.strategies[ix(seat)]
    if teacher != NO_TEACHER:
        p = recipe.teacher.params[ix(seat)]
        choose(teacher, p, seat, m, play, kit)          # pimc or spimc: its mean margins
        for i in range(m):
            target[i] = kit.search.totals[i]
        return
    side = rules[R_TEAMS + seat]
    sample = roll.sample
    worlds = max(recipe.worlds, 1)
    roll_kit = Kit(rules, roll.rng, kit.work, kit.search, kit.users, kit.net)
    for _ in range(worlds):
        if recipe.worlds > 0:
            determinize_inferred(pos, deck, seat, kit.rng, sample.pos, sample.deck, kit.work,
                                 recipe.infer)
        else:
            copy_into(sample.pos, pos)
            copy_into(sample.deck, deck)
        key = next_u64(kit.rng)
        for i in range(m):
            copy_into(roll.board.pos, sample.pos)
            copy_into(roll.board.deck, sample.deck)
            play_move(roll.board.pos, roll.board.deck, rules, play.cards[i], play.takes[i])
            stream(key, 0, roll.rng)
            play_out(choose, recipe.rollout, roll.board, roll_kit, None, None)
            score_into(roll.board.pos, rules, roll.out)
            target[i] += margin(roll.out, side, rules[R_SIDES]) / worlds
