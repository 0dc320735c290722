"""Which move, with intervals: every legal move of the seat to play with its
expected round point margin over the best other side (the seat's side's
points minus the best other side's: "margin" in the results; with two
sides the plain difference), its probability of winning the round and,
given the score, of winning the game; best move first. (`compare`'s margin
differs with three sides: over the others' mean, `matches`.)

    advise(hand="7d 7h As", table="2c 4h 5s Qd")      # a position written out
    advise_round(game)                                # a Round or Game being stepped

How a move is valued. A rollout deals the cards the seat to play has not
seen at random to the other hands (their sizes are known) and the undealt
deck, plays the move, and plays the round out with one fast strategy, or a
jitted one of the user's, for every seat (`strategy`, default
`DEFAULT_STRATEGY`). Rollout r draws from stream (seed, r) only, and every
move is played on the same deals from the same random state (common random
numbers), so the differences between moves are paired: the interval of
"this move minus the best" is narrower than the two moves' own intervals
taken apart would make it. Rollouts run
in batches on threads (or a Dask cluster) in the kernel
(`kernels/advise.py`); the same seed gives the same numbers for any number
of workers and any batch size.

The default strategy, net: over 200 positions of strong self-play its best
move was one the deep evaluation could not tell from its own best at every
position, heuristic's at 191 (`benchmarks/bench_advise_rollouts.py`,
docs/STRENGTH.md), at 12 to 25 times heuristic's cost a rollout.

When to stop. Rollouts run in batches, checked when the total reaches
`batch` x 1, 2, 4, 8, ... below `rollouts` (`_looks` of them), and stop at
the first check where the best move's paired interval against every other
move excludes 0 (moves equal to it on every deal are its twins, not
rivals), or with `until_halfwidth` when every move's margin interval is
within +-H; at most `rollouts`. Each look's interval is at 95% split over
the looks (Bonferroni: 99% for 5), so two moves of equal worth are called
separated at most 5% of the time; at 95% a look, 5 looks did so 17% of
the time (a simulation of tied moves).

For one move (`evaluate(..., played=)`, review's decisions), the looks
stop instead once that move's verdict is decided: best, or worse with no
threshold inside its cost's interval, or its edge known to +-`precision`
(`verdicts.verdict`). A move outrun at a look (separated below both the
played move and the best) is rolled out no more: the verdict is judged on
the others, and its figures come from the rollouts before (its "rollouts").

Why. Each rollout keeps every side's round results, so a move's difference
from another splits, deal by deal, into scopas, settebello, cards, coins
and primiera, parts that add up to it (`verdicts.breakdown`; "parts" and
"why" of each move: against the best, the best against the next).

Exact values. When nothing relevant is hidden (the deck is out and at most
one other seat holds cards, at most `EXACT_CARDS` cards in hands) each
move's margin is exact (alpha-beta minimax, best play by every seat), and
its points those of a best line; no interval.

Winning the game. Given the score before this round (two sides), each
rollout's round points are added to it; a side that ends the round at or
above the target alone at the top has won; otherwise the chance from the
new score comes from the Markov chain of `analysis.markov` over the
per-round point distribution of the advising strategy playing itself
(`GAME_ROUNDS` simulated rounds, seed 0, computed once per rules and
strategy in a process and kept in memory; of `DEFAULT_STRATEGY` when the
rollouts are a search strategy's, whose self-play would take minutes).

The deep evaluation. Rollouts may be played by a search strategy too
(`deep_batch`): `advise(..., deep=True)` plays them by `DEEP_STRATEGY` for
every seat, on at most `DEEP_SAMPLES` deals, looking at every `DEEP_BATCH`;
slower by some thousand times a rollout, but without the bias of a fast
strategy's playing out (`review` checks its labels with it).
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..defaults import (DEEP_BATCH, DEEP_SAMPLES, DEEP_STRATEGY, DEFAULT_ROLLOUTS,
                        DEFAULT_STRATEGY, MAX as MAX_BATCH, ROLLOUTS)
from ..engine.cards import Card, card_name, cards_of, move_text, names
from ..engine.checks import below_target, pair, seed_or_fresh, whole
from ..engine.game import Game, Round
from ..engine.positions import build_position
from ..engine.rollouts import exact as exact_values, is_fast, root, rollouts as play_rollouts
from ..engine.rules import Rules
from ..engine.strategies import Strategy, parse_strategy
from ..analysis.markov import tied_chances, win_table
from ..kernels import registry
from ..runs.runner import run
from ..stats import column_chances, column_means
from . import verdicts
from .odds import simulated_counts

MAX_ROLLOUTS = 10_000_000
BATCH = ROLLOUTS                # rollouts per batch (defaults.py); the stop checks come at BATCH x 2^k
EXACT_CARDS = 10                # exact values with at most this many cards in hands
GAME_ROUNDS = 20_000            # self-play rounds for the game's Markov chain

COLUMNS = {
    "move": "the move, e.g. '7d takes 2c 5s' or 'As trails'",
    "card": "the card played",
    "takes": "the cards it captures ('' for a trail)",
    "margin": "expected round points of the adviser's side minus the best other side's",
    "margin_low": "95% interval of the margin (equal to it when exact)",
    "margin_high": "",
    "vs_best": "margin minus the best move's, paired on the same deals (0 for the best)",
    "vs_best_low": "95% interval of vs_best",
    "vs_best_high": "",
    "win_round": "P(the adviser's side scores the most round points, alone)",
    "win_round_low": "95% Wilson interval",
    "win_round_high": "",
    "win_game": "P(the adviser's side wins the game), given the score (only with a score)",
    "win_game_low": "95% interval",
    "win_game_high": "",
    "why": "the largest part of the difference from the best move (the best: from the next) "
           "in words, e.g. 'gives away a scopa 31% of the time (vs 4%)'",
    "parts": "that difference split by what the round's points are made of: {part: "
             "(mean, low, high)}, adding up to it (`verdicts`)",
    "rollouts": "the rollouts that valued the move (0 when exact; fewer than the others' for "
                "a move outrun while a played move was judged: `_outrun`)",
}


# ---- the score ------------------------------------------------------------------
def check_score(score, rules: Rules) -> tuple[int, int] | None:
    """The game score before the round, (mine, theirs) from "5-7" or a pair:
    two sides, both below the target (None stays None)."""
    if score is None:
        return None
    if rules.n_sides != 2:
        raise ValueError(f"the chance of winning the game needs rules with two sides; "
                         f"{rules.name} has {rules.n_sides}")
    return below_target(pair(score, "the score"), rules.target, "advise does not take")


# ---- rollouts ---------------------------------------------------------------------
@dataclass(frozen=True)
class _Job:
    """Everything a batch of rollouts needs (it may go to Dask: a user
    strategy is loaded there again from its file)."""
    seed: int
    total: int
    batch: int
    seat: int
    pos: np.ndarray
    deck: np.ndarray
    rules: Rules
    strategy: Strategy
    cards: np.ndarray
    takes: np.ndarray


def _batch(job: _Job, b: int):
    """Rollouts b*batch.. of every move: what each ends with, a
    `kernels.advise.Outcomes` (count rows; `engine.rollouts.rollouts`)."""
    first = b * job.batch
    return play_rollouts(job.rules, job.strategy, job.seed, first,
                         min(job.batch, job.total - first), job.seat, job.pos, job.deck, job.cards,
                         job.takes)


def rollout_strategy(strategy) -> Strategy:
    """A strategy that can play rollouts in the kernel: a built-in, or a
    jitted one of the user's (ValueError, one line, for a Python one)."""
    s = parse_strategy(strategy)
    if getattr(s.spec, "id", None) is None and not getattr(s.spec, "jitted", False):
        raise ValueError(f"advise plays its rollouts in the kernel, with a built-in strategy "
                         f"or a jitted one of yours, not {s.name}")
    return s


def self_play(strategy: Strategy) -> Strategy:
    """The strategy whose self-play stands for `strategy`'s over many rounds
    (the game's chain, review's baseline): itself when fast or `net`, else
    `DEFAULT_STRATEGY` (20,000 rounds of a search take minutes)."""
    quick = is_fast(strategy) or getattr(strategy.spec, "id", None) == registry.ID.net
    return strategy if quick else parse_strategy(DEFAULT_STRATEGY)


# ---- statistics -------------------------------------------------------------------
def _looks(rollouts: int, batch: int) -> int:
    """How often the early stop looks: at batch x 1, 2, 4, ... below `rollouts`."""
    return max(1, (max(rollouts - 1, 1) // batch).bit_length())


def _separated(over_best: np.ndarray, looks: int) -> bool:
    """Whether the best move's paired interval against every other move (not
    equal to it on every deal), at 95% split over `looks`, lies above 0
    (`over_best[rollout, move]`: margins over the best other side): the
    best move's verdict is decided (`verdicts.verdict`)."""
    best = int(np.argmax(over_best.mean(0)))
    return verdicts.verdict(over_best, best, 0.05 / looks)["decided"]


@functools.lru_cache(maxsize=16)
def _game_chances(rules: Rules, strategy: Strategy):
    """(v[s0, s1, dealer], tied[dealer]): P(side 0 wins the game) from each
    score below the target, and from a tie at or above it, with the next
    round dealt by `dealer`, in self-play of `strategy`."""
    counts = simulated_counts((strategy, strategy), rules, 0, GAME_ROUNDS).astype(np.float64)
    dist = counts / counts.sum((1, 2), keepdims=True)
    return win_table(dist, rules.target), tied_chances(dist)


def _win_game(points, side, score, rules: Rules, next_dealer: int, strategy: Strategy):
    """P(side wins the game) after each rollout's round points (.., 2)."""
    v, tied = _game_chances(rules, self_play(strategy))
    start = np.zeros(2, np.int64)
    start[side], start[1 - side] = score
    s0 = start[0] + points[..., 0].astype(np.int64)
    s1 = start[1] + points[..., 1].astype(np.int64)
    cap = rules.target - 1
    p0 = v[np.minimum(s0, cap), np.minimum(s1, cap), next_dealer]
    over = (s0 >= rules.target) | (s1 >= rules.target)
    p0 = np.where(over, np.where(s0 > s1, 1.0, np.where(s0 < s1, 0.0, tied[next_dealer])), p0)
    return p0 if side == 0 else 1.0 - p0


# ---- the evaluation -------------------------------------------------------------------
def evaluate(rules: Rules, pos: np.ndarray, deck: np.ndarray, seat: int, score=None,
             strategy=DEFAULT_STRATEGY, rollouts: int = DEFAULT_ROLLOUTS,
             until_halfwidth: float | None = None, early_stop: bool = True,
             seed: int | None = None, workers: int | None = 1, scheduler=None, batch: int = BATCH,
             progress: Callable[[int], None] | None = None, paired_win: bool = False,
             played: tuple | None = None, marks: Sequence[float] = (),
             precision: float = 0.0) -> dict:
    """Every legal move of `seat` (to play) in a checked kernel position:
    the result as plain data ("moves": records best first, see COLUMNS,
    each with "parts" and "why": against the best move, the best against
    the next; "rollouts", "stopped", "exact", "looks", ...). With
    `paired_win` and a score, each move also has "win_vs_best" (and _low,
    _high): its P(win the game) minus the best move's, paired on the same
    deals. With `played` (card, take), the rollouts stop when that move's
    verdict is decided (`verdicts.verdict`, at 95% split over the looks,
    `marks` the thresholds its cost must not straddle, `precision` the
    half-width of its edge's interval that decides it too), and "verdict" holds
    it: the verdict, "versus" (a move, or ''), "edge" (_low, _high),
    "parts" and "why" of the move against versus."""
    s = rollout_strategy(strategy)
    seed = seed_or_fresh(seed)
    rollouts = whole(rollouts, "rollouts", 2, MAX_ROLLOUTS,
                     f"a whole number 2..{MAX_ROLLOUTS:,}")
    batch = whole(batch, "batch", 1, MAX_BATCH)
    if workers is not None:
        workers = whole(workers, "workers", 1, 1024)
    if until_halfwidth is not None and not (isinstance(until_halfwidth, (int, float))
                                            and not isinstance(until_halfwidth, bool)
                                            and 0 < until_halfwidth < 100):
        raise ValueError(f"until_halfwidth is a number of points above 0, e.g. 0.05, "
                         f"not {until_halfwidth!r}")
    side = rules.teams[seat]
    n_sides = rules.n_sides
    moves = root(pos, seat, rules, EXACT_CARDS)
    cards, takes, n = moves.cards, moves.takes, len(moves.cards)
    texts = [move_text(int(cards[j]), cards_of(int(takes[j]))) for j in range(n)]
    mine = None if played is None else texts.index(move_text(*played))
    next_dealer = (moves.dealer + 1) % rules.players
    looks = _looks(rollouts, batch)
    result = {"hand": names(cards_of(moves.hand)), "table": names(cards_of(moves.table)),
              "rules": rules.name, "strategy": str(s), "seed": seed, "seat": seat, "side": side,
              "sides": n_sides, "score": list(score) if score is not None else None,
              "looks": looks, "moves": []}

    exact = exact_values(rules, seat, pos, deck, cards, takes) if moves.open else None
    if exact is not None:
        values, ends = exact
        got = verdicts.samples(ends.scores, ends.swept, side, values)
        rows, kept = [1] * n, list(range(n))
        result.update(exact=True, rollouts=0,
                      stopped="exact: nothing is hidden (minimax, best play by every seat)")
    else:
        job = _Job(seed, rollouts, batch, seat, pos, deck, rules, s, cards, takes)
        got, rows, kept, stopped = _roll(job, side, looks, until_halfwidth, early_stop, mine,
                                         marks, precision, workers, scheduler, progress)
        result.update(exact=False, rollouts=len(got.margin), stopped=stopped)

    margin = np.array([got.margin[:rows[j], j].mean() for j in range(n)])
    best = kept[int(np.argmax(margin[kept]))]
    cols = _spread(n, kept, _columns(got.take(len(got.margin), kept), kept.index(best), score,
                                     paired_win, side, rules, next_dealer, s))
    for j in (j for j in range(n) if j not in kept):    # outrun: from the rollouts it had
        for name, c in _columns(got.take(rows[j], [j, best]), 1, score, paired_win, side,
                                rules, next_dealer, s).items():
            for k in range(3):
                cols[name][k][j] = c[k][0]
    order = sorted(range(n), key=lambda j: (j not in kept, -margin[j]))   # stable: canonical
    for j in order:
        take = cards_of(int(takes[j]))
        rec = {"move": texts[j], "card": card_name(int(cards[j])), "takes": names(take),
               "rollouts": int(rows[j]) if not got.exact else 0}
        for name, (est, lo, hi) in cols.items():
            chance = name in ("win_round", "win_game")
            rec[name] = float(est[j])
            rec[f"{name}_low"] = float(max(lo[j], 0.0) if chance else lo[j])
            rec[f"{name}_high"] = float(min(hi[j], 1.0) if chance else hi[j])
        versus = order[1] if j == best and n > 1 else best
        rec["parts"], rec["why"] = _breakdown(got, rows, j, versus) if n > 1 else ({}, "")
        result["moves"].append(rec)
    if mine is not None:
        result["verdict"] = _verdict(got.take(len(got.margin), kept), kept.index(mine),
                                     0.05 / looks, marks, [texts[j] for j in kept], precision)
    return result


def _roll(job: _Job, side: int, looks: int, until_halfwidth, early_stop: bool, mine, marks,
          precision: float, workers, scheduler, progress):
    """The rollouts of `job`, looked at as the module docstring says: (Samples
    of every move, the rollouts each move had, the moves rolled out to the
    end, why they stopped). With a played move (`mine`), a move separated
    below both it and the best at a look is rolled out no more (`_outrun`):
    its rows after that look are zeros."""
    n, total, batch = len(job.cards), job.total, job.batch
    parts, rows = [], np.zeros(n, np.int64)
    state = {"done": 0, "check": batch, "keep": list(range(n)), "over": False,
             "stopped": f"the most rollouts asked for ({total:,})"}

    def fold(_, part) -> bool:
        parts.append(_padded(part, state["keep"], n))
        rows[state["keep"]] += len(part.swept)
        state["done"] += len(part.swept)
        if progress:
            progress(len(part.swept))
        if state["done"] < state["check"] or state["done"] == total or not early_stop:
            return False
        state["check"] *= 2
        got = _samples(parts, side).take(state["done"], state["keep"])
        keep = state["keep"]
        reason = _stop(got, looks, until_halfwidth, None if mine is None else keep.index(mine),
                       marks, precision)
        if reason:
            state.update(stopped=reason, over=True)
            return True
        fewer = keep if mine is None else _outrun(got.margin, keep, mine, 0.05 / looks)
        state["keep"] = fewer
        return fewer != keep                        # a new stage, with fewer moves
    while not state["over"]:
        keep = state["keep"]
        stage = dataclasses.replace(job, cards=job.cards[keep], takes=job.takes[keep])
        batches = range(state["done"] // batch, -(-total // batch))
        state["over"] = not run(_batch, (stage,), batches, fold, workers, scheduler) \
            or state["over"]
    return _samples(parts, side), rows, state["keep"], state["stopped"]


def _outrun(m: np.ndarray, keep: list[int], mine: int, alpha: float) -> list[int]:
    """The moves `keep` (the columns of margins `m`) without those outrun:
    separated below both the played move `mine` and the best (paired, at
    1 - alpha). The played move's verdict is against the best, and every
    other move is already below it: they need no more rollouts."""
    best = int(np.argmax(m.mean(0)))
    _, _, over_mine = verdicts.interval(m - m[:, [keep.index(mine)]], alpha)
    _, _, over_best = verdicts.interval(m - m[:, [best]], alpha)
    return [k for i, k in enumerate(keep) if over_mine[i] >= 0 or over_best[i] >= 0]


def _padded(part, keep: list[int], n: int):
    """A batch's Outcomes of the moves `keep` as Outcomes of all n (zeros
    for the others)."""
    if len(keep) == n:
        return part
    scores = np.zeros(part.scores.shape[:1] + (n,) + part.scores.shape[2:], part.scores.dtype)
    swept = np.zeros((len(part.swept), n), bool)
    scores[:, keep], swept[:, keep] = part.scores, part.swept
    return part._replace(scores=scores, swept=swept)


def _columns(got: verdicts.Samples, best: int, score, paired_win: bool, side: int, rules: Rules,
             next_dealer: int, s: Strategy) -> dict:
    """Each move's figures (COLUMNS) as (means, lows, highs) over got's
    columns, `best` the column they are paired against."""
    m = got.margin
    cols = {"margin": verdicts.interval(m, 0.05, got.exact),
            "vs_best": verdicts.interval(m - m[:, [best]], 0.05, got.exact),
            "win_round": _chances(got, (m > 0) * 1.0)}
    if score is not None:
        g = _win_game(got.points, side, score, rules, next_dealer, s)
        cols["win_game"] = _chances(got, g)
        if paired_win:
            cols["win_vs_best"] = verdicts.interval(g - g[:, [best]], 0.05, got.exact)
    return cols


def _spread(n: int, kept: list[int], cols: dict) -> dict:
    """Columns over the moves `kept` as arrays over all n moves (nan elsewhere)."""
    out = {}
    for name, figures in cols.items():
        out[name] = tuple(np.full(n, np.nan) for _ in figures)
        for full, part in zip(out[name], figures):
            full[kept] = part
    return out


def _breakdown(got: verdicts.Samples, rows, a: int, b: int):
    """`verdicts.breakdown` of move a against b, over the rollouts both had."""
    return verdicts.breakdown(got.take(min(rows[a], rows[b]), [a, b]), 0, 1)


def _chances(got: verdicts.Samples, x: np.ndarray):
    """(means, lows, highs) of chances x[rollout, move]: `column_chances`,
    or the values themselves when exact."""
    return (x[0],) * 3 if got.exact else column_chances(x)


def _samples(parts: list, side: int) -> verdicts.Samples:
    """The rollouts so far (their `Outcomes`, batch by batch) as Samples."""
    return verdicts.samples(np.concatenate([p.scores for p in parts]),
                            np.concatenate([p.swept for p in parts]), side)


def _stop(got: verdicts.Samples, looks: int, until_halfwidth, mine, marks,
          precision: float = 0.0) -> str:
    """Why the rollouts may stop at this look ('' to go on): see the module
    docstring, and `evaluate`'s `played`."""
    m, n = got.margin, got.margin.shape[1]
    if until_halfwidth is not None:
        _, low, high = column_means(m)
        return f"every margin is within ±{until_halfwidth:g}" \
            if ((high - low) / 2 <= until_halfwidth).all() else ""
    if n == 1:
        return "there is one legal move"
    if mine is not None:
        alpha = 0.05 / looks
        if verdicts.verdict(m, mine, alpha, marks)["decided"]:
            return f"the move's verdict is decided (paired 95%, split over {looks} looks)"
        return (f"the move's edge is known to ±{precision:g} (paired 95%, split over {looks} "
                f"looks)" if verdicts.verdict(m, mine, alpha, marks, False, precision)["decided"]
                else "")
    return (f"the best move is separated from every other (paired 95%, split over {looks} "
            f"looks)" if _separated(m, looks) else "")


def _verdict(got: verdicts.Samples, mine: int, alpha: float, marks, texts,
             precision: float) -> dict:
    """`verdicts.verdict` of move `mine`, with its breakdown against versus."""
    v = verdicts.verdict(got.margin, mine, alpha, marks, got.exact, precision)
    k = v.pop("versus")
    parts, why = verdicts.breakdown(got, mine, k, alpha) if k is not None else ({}, "")
    return {**v, "versus": texts[k] if k is not None else "", "parts": parts, "why": why}


def _frame(result: dict) -> pd.DataFrame:
    df = pd.DataFrame(result["moves"], columns=[c for c in COLUMNS
                                                if not result["moves"] or c in result["moves"][0]])
    df.attrs.update({k: v for k, v in result.items() if k != "moves"})
    return df


def advise(hand: str | Iterable[Card], table: str | Iterable[Card] = (),
           seen: str | Iterable[Card] = (), mine: str | Iterable[Card] = (),
           theirs: str | Iterable[Card] = (), score: str | Sequence[int] | None = None,
           scopas: str | Sequence[int] | None = None, last: str | None = None,
           rules: str | Rules = "scopa", strategy=None, rollouts: int | None = None,
           until_halfwidth: float | None = None, early_stop: bool = True,
           seed: int | None = None, workers: int = 1, scheduler=None,
           progress: Callable[[int], None] | None = None, deep: bool = False) -> pd.DataFrame:
    """Every legal move of the seat to play, best first (one row each; the
    columns are `COLUMNS`, the win_game ones only with a `score`); `df.attrs`
    says how many rollouts ran and why they stopped ("rollouts", "stopped",
    "exact", "strategy", "seed").

    The position from the seat to play's view: its `hand`, the `table`,
    cards `seen` out of play, its side's pile `mine` and the other side's
    `theirs`, the round's `scopas` ("1-0") and which side captured `last`
    ("mine"/"theirs"; default: the only side with a pile); see
    `build_position`. `score` ("5-7", mine first) is the game score before
    this round. Rollouts: at most `rollouts` (default `DEFAULT_ROLLOUTS`) by
    `strategy` (default `DEFAULT_STRATEGY`), stopping early (module
    docstring) unless `early_stop` is false; with `deep`, the deep
    evaluation: by default `DEEP_STRATEGY`, at most `DEEP_SAMPLES`. `seed`
    fixes every number (without one a fresh seed is drawn:
    `df.attrs["seed"]`); `workers` threads, or `scheduler` (a Dask address,
    "local:N", a Client).
    """
    rules = Rules.resolve(rules)
    score = check_score(score, rules)
    pos, deck = build_position(rules, hand, table, seen, mine, theirs, scopas, last)
    return _frame(evaluate(rules, pos, deck, 0, score, *level(deep, strategy, rollouts),
                           until_halfwidth, early_stop, seed, workers, scheduler,
                           batch=DEEP_BATCH if deep else BATCH, progress=progress))


def level(deep: bool, strategy=None, rollouts: int | None = None) -> tuple:
    """(strategy, rollouts) of the quick evaluation, or with `deep` of the
    deep one, where not given."""
    default = (DEEP_STRATEGY, DEEP_SAMPLES) if deep else (DEFAULT_STRATEGY, DEFAULT_ROLLOUTS)
    return (default[0] if strategy is None else strategy,
            default[1] if rollouts is None else rollouts)


def advise_round(game, score: str | Sequence[int] | None = None, strategy=None,
                 rollouts: int | None = None, until_halfwidth: float | None = None,
                 early_stop: bool = True, seed: int | None = None, workers: int = 1,
                 scheduler=None, deep: bool = False) -> pd.DataFrame:
    """`advise` for the seat to play in a `Round` or `Game` being stepped,
    seeing what that seat sees (the other hands and the deck are dealt
    afresh in every rollout; `deep` as in `advise`). For a Game the score
    is the game's, unless `score` (the seat's side first) is given."""
    if isinstance(game, Game):
        rnd = game.round
        if score is None and not game.done:
            side = game.rules.teams[rnd.turn]
            score = (game.scores[side], game.scores[1 - side]) if game.rules.n_sides == 2 \
                else None
        elif score is not None:
            score = check_score(score, game.rules)
    elif isinstance(game, Round):
        rnd = game
        score = check_score(score, rnd.rules)
    else:
        raise ValueError(f"advise_round takes a Round or a Game, not {type(game).__name__}")
    if rnd.done:
        raise ValueError("the round is over")
    rnd._ready()                         # changes by hand checked, as for Round.suggest
    pos, deck = rnd.kernel_position()
    return _frame(evaluate(rnd.rules, pos, deck, rnd.turn, score, *level(deep, strategy, rollouts),
                           until_halfwidth, early_stop, seed, workers, scheduler,
                           batch=DEEP_BATCH if deep else BATCH))
