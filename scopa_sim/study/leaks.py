"""Where a strategy loses points, and in which situations: every decision
STRATEGY makes against an opponent is priced by a judge, and the costs are
grouped into situations a player recognises.

    leaks("counter")                       # against net, judged by net
    leaks("greedy", against="counter", judge="net", rounds=500, true_deal=True)

The play. Deal i (a round, or with `games` a game) of the seed is played
twice, STRATEGY at each side in turn (seats swapped, as `compare` deals
them), through the Python round loop (`engine.game.Player`): at each of
STRATEGY's decisions the judge's move is asked too. Every random number a
strategy draws at a decision comes from a stream keyed by the position
(deal, round, seating, play), so the same seed gives the same output for any
number of workers.

The cost of a decision is the judge's value of its own move minus the
judge's value of STRATEGY's move, in round points (margin: my side's points
minus the other side's). The screen: where STRATEGY plays the judge's move
the cost is exactly 0, with no rollouts. Elsewhere the two moves are played
on the same deals of the cards the seat has not seen, the judge playing
every seat on (`engine.rollouts`, advise's rollouts), in batches of `BATCH`,
looking at BATCH x 1, 2, 4, ... until the paired interval of the difference
(95% split over the looks) excludes 0, or `rollouts` ran.

With `true_deal` each move is instead played on the real deal, the judge
playing every seat to the end (its random numbers keyed as in the game).
When the opponent is the judge, the costs of a round's decisions then
telescope (the performance difference lemma): their sum is the judge's margin
in STRATEGY's seat on that deal minus STRATEGY's margin there; the result's
"true_deal" says how far any round is from it ("max_gap": 0 when it holds).

Situations (`SITUATIONS`: a name and a predicate over what the seat sees,
STRATEGY's move and the judge's) may overlap: a decision counts in every
situation it belongs to, so the rows do not add up to the total, which is
given apart. Per situation: how often it comes a round, how often STRATEGY's
move differs from the judge's there, its cost per round with a 95% interval
(paired over the seatings of a deal, `stats.PairedMoments`), that cost split
by what round points are made of (`verdicts.PARTS`), and the costliest
decisions as `scopa-sim advise` commands that set them up again.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..defaults import LEAKS_ROLLOUTS, LEAKS_ROUNDS
from ..engine.cards import Move, move_text, names
from ..engine.checks import seed_or_fresh, whole
from ..engine.deals import deck as dealt_deck
from ..engine.game import Game, Player, Round
from ..engine.rollouts import Roller
from ..engine.rules import Rules
from ..engine.strategies import parse_strategy
from ..kernels.layout import S_POINTS
from ..runs.runner import run
from ..stats import PairedMoments, column_means
from . import verdicts
from .advise import rollout_strategy
from .matches import compare

BATCH = 8                    # rollouts per look; the looks come at BATCH x 1, 2, 4, ...
UNITS = 20                   # deals (or games) per batch of work
EXAMPLES = 3                 # example positions per situation
KEEP = 4 * EXAMPLES          # the costliest decisions kept per situation, to pick examples from
PARTS = verdicts.ALWAYS      # the parts a cost is split into
MAX_UNITS = 10_000_000


# ---- what the seat sees ----------------------------------------------------------
@dataclass(frozen=True)
class Seen:
    """One of STRATEGY's decisions as its seat sees it (card sets as masks)."""
    hand: int
    table: int
    unseen: int                # the other hands and the deck
    deal: int                  # which hand of the round: 1..deals
    deals: int
    last_play: bool            # the round's last play
    mine: Move                 # STRATEGY's move
    judge: Move                # the judge's
    legal: tuple               # every legal move


def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def _rank(c: int) -> int:
    return c % 10 + 1


def _kind(d: Seen, m: Move) -> str:
    """trail, capture or sweep (a capture that clears the table for a scopa)."""
    if not m.captured:
        return "trail"
    return "sweep" if _mask(m.captured) == d.table and not d.last_play else "capture"


def _left(d: Seen, m: Move) -> int:
    """The table a move leaves."""
    return d.table & ~_mask(m.captured) if m.captured else d.table | 1 << m.card


def _sum(mask: int) -> int:
    return sum(_rank(c) for c in range(40) if mask >> c & 1)


def _low(d: Seen, m: Move) -> bool:
    """The move leaves 10 or less on a table that is not empty."""
    t = _left(d, m)
    return bool(t) and _sum(t) <= 10 and not d.last_play


def _sweepable(d: Seen, m: Move) -> bool:
    """The next player may sweep what the move leaves: 10 or less, a card of
    that rank unseen, and no single card of that rank on the table to take
    first (the priority rule), unless it is alone."""
    t = _left(d, m)
    if not _low(d, m):
        return False
    r = _sum(t)
    same = [c for c in range(40) if t >> c & 1 and _rank(c) == r]
    unseen = any(d.unseen >> c & 1 and _rank(c) == r for c in range(40))
    return unseen and (not same or t.bit_count() == 1)


def _at_stake(cards: Callable[[int], bool]) -> Callable[[Seen], bool]:
    return lambda d: any(cards(c) for c in range(40) if (d.hand | d.table) >> c & 1)


KINDS = ("trail", "capture", "sweep")
SITUATIONS: tuple[tuple[str, Callable[[Seen], bool]], ...] = (
    ("first hand", lambda d: d.deal == 1),
    ("middle hands", lambda d: 1 < d.deal < d.deals),
    ("last hand (deck out), before the last play", lambda d: d.deal == d.deals
     and not d.last_play),
    ("last play of the round", lambda d: d.last_play),
    *((f"{a}s where the judge would {b}", lambda d, a=a, b=b: _kind(d, d.mine) == a
       and _kind(d, d.judge) == b) for a in KINDS for b in KINDS if a != b),
    ("the wrong capture with the right card", lambda d: d.mine.card == d.judge.card
     and d.mine.captured != d.judge.captured),
    ("the wrong card to capture with", lambda d: d.mine.card != d.judge.card
     and bool(d.mine.captured) and bool(d.judge.captured)),
    ("the wrong card to trail", lambda d: d.mine.card != d.judge.card
     and not d.mine.captured and not d.judge.captured),
    ("settebello at stake (hand or table)", _at_stake(lambda c: c == 6)),
    ("sevens at stake (hand or table)", _at_stake(lambda c: _rank(c) == 7)),
    ("coins on the table", lambda d: bool(d.table & 0x3FF)),
    ("missed a scopa", lambda d: any(_kind(d, m) == "sweep" for m in d.legal)
     and _kind(d, d.mine) != "sweep"),
    ("left the table sweepable", lambda d: _sweepable(d, d.mine)),
    ("left the table sweepable where the judge would not", lambda d: _sweepable(d, d.mine)
     and not _sweepable(d, d.judge)),
    ("leaves 10 or less on the table", lambda d: _low(d, d.mine)),
)


# ---- the work ---------------------------------------------------------------------
@dataclass(frozen=True)
class _Job:
    """What a batch of deals needs."""
    rules: Rules
    strategy: object
    against: object
    judge: object
    seed: int
    units: int
    games: bool
    rollouts: int
    true_deal: bool


@dataclass
class _Tally:
    """A batch's counts: per situation (and the total, last), per unit and
    seating: decisions, differing ones, cost, cost by part; the rounds and
    STRATEGY's margins; examples; the true-deal gaps."""
    seen: np.ndarray           # [units, 2, S + 1]
    differs: np.ndarray
    cost: np.ndarray
    parts: np.ndarray          # [units, 2, S + 1, parts]
    rounds: np.ndarray         # [units, 2]
    margin: np.ndarray         # [units, 2]
    examples: list             # per situation: [(cost, order, text)]
    rollouts: int = 0
    gap: float = 0.0


def _stream_key(unit: int, number: int, seating: int, play: int) -> int:
    return ((unit * 1024 + number) * 2 + seating) * 64 + play


def _decision_seed(seed: int, *key: int) -> int:
    return int(np.random.SeedSequence([seed, *key]).generate_state(1, np.uint64)[0] >> 1)


def _batch(job: _Job, b: int) -> _Tally:
    """Deals (games) b*UNITS.. played with STRATEGY at each side, its decisions priced."""
    first = b * UNITS
    count = min(UNITS, job.units - first)
    s_n = len(SITUATIONS) + 1
    t = _Tally(np.zeros((count, 2, s_n), np.int64), np.zeros((count, 2, s_n), np.int64),
               np.zeros((count, 2, s_n)), np.zeros((count, 2, s_n, len(PARTS))),
               np.zeros((count, 2), np.int64), np.zeros((count, 2)), [[] for _ in SITUATIONS])
    mine, theirs, judge = (Player(job.rules, s) for s in (job.strategy, job.against, job.judge))
    roll = Roller(job.rules, job.judge)
    for i in range(count):
        for seating in range(2):
            _play(job, first + i, seating, mine, theirs, judge, roll, t, i)
    return t


def _play(job: _Job, unit: int, seating: int, mine: Player, theirs: Player, judge: Player,
          roll: Roller, t: _Tally, i: int) -> None:
    """Deal `unit` (its rounds, with games) with STRATEGY at side `seating`."""
    rules = job.rules
    table = Game(rules, seed=job.seed, index=unit) if job.games else \
        Round(rules, deck=dealt_deck(job.seed, unit, 0), dealer=unit % rules.players)
    number = 0
    while not table.done:
        rnd = table.round if job.games else table
        start = rnd.copy()
        costs = 0.0
        while not rnd.done:
            seat, p = rnd.turn, len(rnd.moves)
            key = _stream_key(unit, number, seating, p)
            if rules.teams[seat] != seating:
                table.play(*theirs.move(rnd, job.seed, key))
                continue
            move = mine.move(rnd, job.seed ^ 1, key)
            best = judge.move(rnd, job.seed, key)
            costs += _decision(job, rnd, move, best, judge, roll, t, i, seating,
                               (unit, number, seating, p))
            table.play(*move)
        res = rnd.result()
        margin = res[f"points_{seating}"] - res[f"points_{1 - seating}"]
        t.rounds[i, seating] += 1
        t.margin[i, seating] += margin
        if job.true_deal:
            keys = lambda p, n=number: _stream_key(unit, n, seating, p)          # noqa: E731
            own = judge.play_out(start, job.seed, keys)
            base = float(own[seating, S_POINTS] - own[1 - seating, S_POINTS])
            t.gap = max(t.gap, abs(costs - (base - margin)))
        number += 1
        if not job.games:
            break


def _decision(job: _Job, rnd: Round, move: Move, best: Move, judge: Player, roll: Roller,
              t: _Tally, i: int, seating: int, key: tuple) -> float:
    """Price one decision and count it in its situations; its cost."""
    rules, seat = rnd.rules, rnd.turn
    played = _mask(c for pile in rnd.piles for c in pile)
    hand, table = _mask(rnd.hands[seat]), _mask(rnd.table)
    per_deal = rules.players * rules.hand_size
    d = Seen(hand, table, ((1 << 40) - 1) & ~(hand | table | played),
             len(rnd.moves) // per_deal + 1, -(-(40 - rules.table_size) // per_deal),
             len(rnd.moves) == rnd.total_plays - 1, move, best, tuple(rnd.legal_moves()))
    cost, parts = 0.0, np.zeros(len(PARTS))
    if move != best:
        cost, parts, n = _price(job, rnd, move, best, judge, roll, seating, key)
        t.rollouts += n
    hits = [k for k, (_, test) in enumerate(SITUATIONS) if test(d)] + [len(SITUATIONS)]
    t.seen[i, seating, hits] += 1
    if move != best:
        t.differs[i, seating, hits] += 1
        t.cost[i, seating, hits] += cost
        t.parts[i, seating, hits] += parts
        text = None
        for k in hits[:-1]:
            ex = t.examples[k]
            if len(ex) < KEEP or cost > ex[-1][0]:
                text = text or _example(rnd, move, best, cost, job)
                ex.append((cost, key, text))
                ex.sort(key=lambda e: (-e[0], e[1]))
                del ex[KEEP:]
    return cost


def _price(job: _Job, rnd: Round, move: Move, best: Move, judge: Player, roll: Roller,
           seating: int, key: tuple):
    """(cost, cost by part, rollouts) of playing `move` where the judge plays `best`."""
    if job.true_deal:
        ends = []
        for m in (best, move):
            r = rnd.copy()
            r.play(*m)
            keys = lambda p: _stream_key(key[0], key[1], seating, p)             # noqa: E731
            ends.append(judge.play_out(r, job.seed, keys))
        scores = np.array(ends)[None]                     # [1, 2 moves, sides, fields]
        return (*_cost(verdicts.samples(scores, np.zeros((1, 2), bool), seating)), 0)
    pos, deck = rnd.kernel_position()
    cards = np.array([best.card, move.card], np.int64)
    takes = np.array([_mask(best.captured), _mask(move.captured)], np.uint64)
    seed = _decision_seed(job.seed, *key)
    looks = max(1, (max(job.rollouts - 1, 1) // BATCH).bit_length())
    parts, done, check = [], 0, BATCH
    while done < job.rollouts:
        count = min(BATCH, job.rollouts - done)
        parts.append(roll(seed, done, count, rnd.turn, pos, deck, cards, takes))
        done += count
        if done >= check:
            check *= 2
            got = verdicts.samples(np.concatenate([p.scores for p in parts]),
                                   np.concatenate([p.swept for p in parts]), seating)
            diff = got.margin[:, :1] - got.margin[:, 1:]
            if not diff.std():
                break
            _, low, high = column_means(diff, 0.05 / looks)
            if low[0] > 0 or high[0] < 0:
                break
    got = verdicts.samples(np.concatenate([p.scores for p in parts]),
                           np.concatenate([p.swept for p in parts]), seating)
    return (*_cost(got), done)


def _cost(got: verdicts.Samples) -> tuple[float, np.ndarray]:
    """The judge's move (column 0) minus STRATEGY's (column 1): mean, and by part."""
    cost = float((got.margin[:, 0] - got.margin[:, 1]).mean())
    d = (got.mine[:, 0] - got.theirs[:, 0]).astype(float) - (got.mine[:, 1] - got.theirs[:, 1])
    idx = [list(verdicts.PARTS).index(p) for p in PARTS]
    return cost, d.mean(0)[idx]


def _example(rnd: Round, move: Move, best: Move, cost: float, job: _Job) -> str:
    """An advise command that sets the decision up again, and what each played."""
    rules, seat = rnd.rules, rnd.turn
    side = rules.teams[seat]
    piles, scopas, last = rnd.piles, rnd.scopas, rnd.last_capturer
    args = [f'--hand "{names(rnd.hands[seat])}"']
    if rnd.table:
        args.append(f'--table "{names(rnd.table)}"')
    if piles[side]:
        args.append(f'--mine "{names(sorted(piles[side]))}"')
    if piles[1 - side]:
        args.append(f'--theirs "{names(sorted(piles[1 - side]))}"')
    if any(scopas):
        args.append(f"--scopas {scopas[side]}-{scopas[1 - side]}")
    if last >= 0 and piles[side] and piles[1 - side]:
        args.append(f"--last {'mine' if rules.teams[last] == side else 'theirs'}")
    if rules.name != "scopa":
        args.append(f"--rules {rules.name}")
    return (f"scopa-sim advise {' '.join(args)} --strategy {job.judge}  # "
            f"{job.strategy}: {move_text(*move)}; {job.judge}: {move_text(*best)}; "
            f"cost {cost:+.2f}")


# ---- the result ---------------------------------------------------------------------
def leaks(strategy, against="net", judge=None, rounds: int | None = None,
          games: int | None = None, seed: int | None = None, true_deal: bool = False,
          workers: int | None = 1, progress: Callable[[int], None] | None = None,
          rules="scopa", rollouts: int = LEAKS_ROLLOUTS, scheduler=None) -> dict:
    """STRATEGY's leaks against `against`, priced by `judge` (default: the
    opponent) on `rounds` deals (default `LEAKS_ROUNDS`; or `games` game
    seeds), each played with STRATEGY at either side: the result as plain
    data ("situations" by cost per round, "total", "compare", with
    `true_deal` "true_deal"; see the module docstring). At most `rollouts`
    per decision; batches on `workers` threads or a Dask `scheduler`;
    `progress(k)` after each batch of k deals."""
    rules = Rules.resolve(rules)
    if rounds is not None and games is not None:
        raise ValueError("give a number of rounds or of games, not both")
    rounds = LEAKS_ROUNDS if rounds is None and games is None else rounds
    units = whole(rounds if games is None else games, "rounds" if games is None else "games",
                  1, MAX_UNITS, f"a whole number 1..{MAX_UNITS:,}")
    s, a, j = check(strategy, against, judge, rules)
    seed = seed_or_fresh(seed)
    rollouts = whole(rollouts, "rollouts", 2, 1_000_000)
    job = _Job(rules, s, a, j, seed, units, games is not None, rollouts, bool(true_deal))
    tallies = []

    def fold(_, tally):
        tallies.append(tally)
        if progress:
            progress(len(tally.rounds))
    run(_batch, (job,), range(-(-units // UNITS)), fold, workers, scheduler)
    return _result(job, tallies, compare(s, j, rules, seed, deals=units, games=games is not None,
                                         workers=workers, scheduler=scheduler))


def check(strategy, against, judge, rules: Rules) -> tuple:
    """(STRATEGY, the opponent, the judge) parsed and checked: two sides, and a
    judge that can play rollouts in the kernel (ValueError, one line)."""
    if rules.n_sides != 2:
        raise ValueError(f"leaks plays two sides; {rules.name} has {rules.n_sides}")
    s, a = parse_strategy(strategy), parse_strategy(against)
    j = a if judge is None else parse_strategy(judge)
    try:
        j = rollout_strategy(j)
    except ValueError:
        raise ValueError(f"the judge plays rollouts in the kernel: a built-in strategy or a "
                         f"jitted one of yours, not {j}") from None
    return s, a, j


def _per_round(ys: np.ndarray, ws: np.ndarray) -> tuple[float, float, float]:
    """A per-round mean (units paired over the two seatings) with its 95% interval."""
    r = PairedMoments(2).add(ys.T, ws.T).result()
    return r.estimate, r.low, r.high


def _result(job: _Job, tallies: list, cmp: dict) -> dict:
    cat = {f: np.concatenate([getattr(t, f) for t in tallies])
           for f in ("seen", "differs", "cost", "parts", "rounds", "margin")}
    rounds = cat["rounds"]
    n_rounds = int(rounds.sum())
    kept = [sorted((e for t in tallies for e in t.examples[k]), key=lambda e: (-e[0], e[1]))
            for k in range(len(SITUATIONS))]

    def row(k: int) -> dict:
        seen, differs = int(cat["seen"][..., k].sum()), int(cat["differs"][..., k].sum())
        cost, low, high = _per_round(cat["cost"][..., k], rounds)
        return {"per_round": seen / n_rounds, "decisions": seen,
                "differs": differs / seen if seen else 0.0, "cost": cost, "cost_low": low,
                "cost_high": high,
                "parts": {p: float(cat["parts"][..., k, c].sum() / n_rounds)
                          for c, p in enumerate(PARTS)}}

    situations = [{"situation": name, **row(k), "kept": kept[k]}
                  for k, (name, _) in enumerate(SITUATIONS)]
    situations.sort(key=lambda r: -r["cost"])
    used = set()                  # each row's examples: its costliest not shown above it
    for r in situations:
        fresh = [e[2] for e in r.pop("kept") if e[2] not in used][:EXAMPLES]
        used.update(fresh)
        r["examples"] = fresh
    total = row(len(SITUATIONS))
    m = cmp["margin"]
    out = {"strategy": str(job.strategy), "against": str(job.against), "judge": str(job.judge),
           "rules": job.rules.name, "seed": job.seed, "unit": "games" if job.games else "deals",
           "units": job.units, "rounds": n_rounds, "rollouts": sum(t.rollouts for t in tallies),
           "most_rollouts": job.rollouts, "valued": "true deal" if job.true_deal else
           "rollouts over deals of the unseen cards",
           "situations": situations, "total": total,
           "compare": {"margin": m["estimate"], "low": m["low"], "high": m["high"],
                       "deals": cmp["pairs"]},
           "margin": _per_round(cat["margin"], rounds)[0]}
    out["gap"] = total["cost"] + out["compare"]["margin"]
    if job.true_deal:
        out["true_deal"] = {"deals": int(rounds.sum()),
                            "max_gap": max(t.gap for t in tallies)}
    return out
