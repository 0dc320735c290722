"""Review a played game: every decision of the seats asked for, valued by
`advise` from what that seat knew then, with the move played, the best
move and what the play cost, labelled like a chess or backgammon analysis.

    df = review("game.scopa", seats=["You"])       # a record's path, or a Game
    df.attrs["summary"]                            # per seat: mean cost, labels, luck

A decision is valued from the seat's own view: its hand, the table, the
piles and every play before it (the kernel's position from that seat's
side; `advise` deals the cards it has not seen afresh in every rollout), so
the review knows no more than the player did. Values are exact when nothing
is hidden; otherwise rollouts by `strategy`, as `advise` runs them.

A decision's rollouts stop once the played move's verdict is decided, or
once its edge over the move it is compared with is known to +-`precision`
(a quarter of the smallest threshold: 0.025 round points), whichever
comes first; a move outrun at a look (below both the played move and the
best) is rolled out no more. Decisions run side by side, one to a worker,
each its rollouts batch after batch: none is played past its verdict.

The cost of a play is the best move's expected round margin minus the
played move's (paired on the same deals), in round points with its 95%
interval, and, with two sides, in P(win the game) from the score before
the round. A play is labelled by the largest threshold (`THRESHOLDS`,
round points: inaccuracy, mistake, blunder) that the lower end of its
cost's interval reaches (exact: its cost): a label says it cost at least
that much.

Checked verdicts. A fast rollout strategy has a bias no number of rollouts
removes, so every play the quick pass labels is valued again by the deep
evaluator (`advise`'s rollouts played by `DEEP_STRATEGY` for every seat,
on `DEEP_SAMPLES` deals) before it is labelled; its values give the label,
cost and best move, and the row's level is "deep".

Luck. For each round and side, luck is what remains of the side's round
margin (its points minus the best other side's) when play is taken out:

    luck = margin - expected margin at the deal - (the other sides' costs - own costs)

The expected margin at the deal is the reviewing strategy's in self-play
from that seat relative to the dealer (`DEFAULT_STRATEGY`'s when that is a
search, whose 20,000 rounds would take minutes). Costs are those of the reviewed
seats only, so when one seat is reviewed its opponents' mistakes count as
its luck. A seat's luck in the summary is its side's mean over the rounds.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..defaults import (DEEP_BATCH, DEEP_SAMPLES, DEEP_STRATEGY, REVIEW_ROLLOUTS,
                        REVIEW_STRATEGY, THRESHOLDS)
from ..stats import mean_t_interval, nonnegative_mean_interval
from .advise import MAX_ROLLOUTS, evaluate, rollout_strategy, self_play
from ..engine.cards import move_text, names
from ..engine.checks import seed_or_fresh, whole
from ..runs.executors import Inline, executor, stream
from ..runs.runner import simulate
from ..engine.game import Game, Round
from ..engine.record_format import RecordNotes, seat_named
from ..engine.records import read_record
from ..engine.rules import Rules
from ..engine.strategies import Strategy

CHECKED = tuple(THRESHOLDS)          # quick labels the deep evaluator checks: all
RATED = ("exact", "rollouts", "deep")   # the levels of a decision valued
BASELINE_ROUNDS = 20_000             # self-play rounds for the expected margin at the deal


@dataclass(frozen=True)
class Settings:
    """How a review values decisions (`review`'s arguments, checked)."""
    strategy: Strategy
    rollouts: int
    seed: int
    marks: dict
    precision: float
    check: bool
    deep_strategy: Strategy
    deep_samples: int


def review(record: str | Path | Game, seats: Sequence[str | int] | None = None,
           strategy=REVIEW_STRATEGY, rollouts: int = REVIEW_ROLLOUTS, seed: int | None = 0,
           thresholds: dict[str, float] | None = None, check: bool = False,
           deep_strategy=DEEP_STRATEGY, deep_samples: int = DEEP_SAMPLES,
           workers: int | None = None, scheduler=None,
           progress: Callable[[int], None] | None = None,
           precision: float | None = None) -> pd.DataFrame:
    """One row per play of the game (`COLUMNS`; docs/RECORDS.md): the
    decisions of `seats` (names or seat numbers; default every seat whose
    hands the record knows) valued and labelled, the other plays listed.
    With `check` (the default), a play the quick pass would label is valued
    again by the deep evaluator (`deep_strategy`, `deep_samples` deals),
    whose values give its cost and label.
    `df.attrs`: "summary" (per seat), "rounds", "headers", and how it was
    made. A decision's rollouts stop once its verdict is decided, or its
    edge is known to +-`precision` round points (default a quarter of the
    smallest threshold; 0: only once decided), or at `rollouts`.
    `progress(1)` after each play."""
    game = record if isinstance(record, Game) else read_record(record)
    rules = game.rules
    notes = game.notes or RecordNotes([f"seat{s}" for s in range(rules.players)], {})
    chosen = _seats(seats, notes, game)
    marks = _thresholds(thresholds)
    how = Settings(rollout_strategy(strategy), whole(rollouts, "rollouts", 2, MAX_ROLLOUTS),
                   seed_or_fresh(seed), marks, _precision(precision, marks), bool(check),
                   rollout_strategy(deep_strategy),
                   whole(deep_samples, "deep samples", 2, MAX_ROLLOUTS))
    if workers is not None:
        whole(workers, "workers", 1, 1024)
    with executor(workers, scheduler) as ex:            # one pool or cluster for every decision
        rows = _rows(game, notes, chosen, how, ex, progress)
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df.attrs.update(headers=_headers(game, notes), sides=rules.n_sides, seats=sorted(chosen),
                    rounds=_rounds(game, notes, df, how.strategy), strategy=str(how.strategy),
                    rollouts=how.rollouts, seed=how.seed, thresholds=how.marks,
                    precision=how.precision,
                    checked=how.check, deep_strategy=str(how.deep_strategy),
                    deep_samples=how.deep_samples)
    df.attrs["summary"] = _summary(df, chosen, notes, df.attrs["rounds"], rules)
    return df


def _rows(game: Game, notes, chosen: set[int], how: Settings, ex, progress) -> list[dict]:
    """A row per play of the game, replayed; the chosen seats' decisions
    valued on executor `ex`, each decision a task of its own (its rollouts
    batch after batch in that task: none run past its verdict)."""
    rows, asks, scores = [], [], list(game.start)
    for k, played in enumerate(game.rounds):
        rnd = Round(game.rules, deck=played.deck_order, dealer=played.dealer)
        for p, (seat, card, take) in enumerate(played.moves):
            rows.append(_row(rnd, k, p, seat, card, take, notes))
            if seat in chosen:
                asks.append(_ask(rnd, (card, take), scores, _seed(how.seed, k, p), len(rows) - 1))
            elif progress:
                progress(1)
            rnd.play(card, take)
            rows[-1]["scopa"] = rnd.scopa_plays[-1]
        scores = [a + b for a, b in zip(scores, _points(game, k) or [0] * game.rules.n_sides)]
    for i, verdict in decisions(how, asks, ex):
        rows[asks[i].row].update(verdict)
        if progress:
            progress(1)
    return rows


COLUMNS = {
    "round": "the round, from 1", "play": "the play within the round, from 1",
    "seat": "the seat that played", "name": "its name", "side": "its side",
    "hand": "its hand before the play", "table": "the table before the play",
    "played": "the move played", "scopa": "whether it swept the table",
    "level": "the verdict's level: exact, rollouts (the quick pass), deep (checked), "
             "forced (one legal move) or not reviewed",
    "best": "the best move", "moves": "the legal moves",
    "cost": "round points the play lost against the best move (0: the best)",
    "cost_low": "95% interval", "cost_high": "",
    "win_cost": "P(win the game) lost against the best move (two sides)",
    "win_cost_low": "95% interval", "win_cost_high": "",
    "value": "expected round margin after the play, from the seat's view",
    "value_low": "95% interval", "value_high": "",
    "win_game": "P(the seat's side wins the game) after the play (two sides)",
    "label": "inaccuracy, mistake, blunder, or '' (none): only a move the evaluation "
             "separates below the best, by the lower end of its cost's interval",
    "verdict": "best (separated above every other move), worse (separated below the best), "
               "level (not separated from versus at the review's budget), forced, or ''",
    "versus": "the move the verdict compares: the best, or when the played move is the "
              "estimated best, its closest rival",
    "edge": "the played move minus versus, round points (paired)",
    "edge_low": "interval: 95% split over the sequential looks", "edge_high": "",
    "why": "the largest part of the edge in words",
    "parts": "the edge split by what round points are made of: {part: (mean, low, high)}",
    "rollouts": "rollouts (deals) run for the verdict (0: exact or not valued)",
    "quick_cost": "the quick pass's cost (equal to cost unless checked)",
    "quick_label": "the quick pass's label",
    "alternatives": "every legal move with its values, best first",
    "comment": "the record's comment beside the play ('' for none)",
}


def _seats(seats, notes, game: Game) -> set[int]:
    """The seats to review: those asked for, each of whose hands the record
    knows at every decision (refused otherwise), or by default every such seat."""
    names = notes.names
    unknown = {}                                         # seat -> (round, play) not known
    for k, rnd in enumerate(game.rounds):
        for p, (seat, _, _) in enumerate(rnd.moves):
            if not notes.known(k, p):
                unknown.setdefault(seat, (k, p))
    if seats is None:
        chosen = {s for s in range(game.rules.players) if s not in unknown}
        if not chosen:
            raise ValueError("the record knows no seat's hands at every decision: nothing to "
                             "review")
        return chosen
    if isinstance(seats, (str, int)):
        seats = [seats]
    chosen = set()
    for x in seats:
        seat = seat_named(names, x) if isinstance(x, str) else None
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x < len(names):
            seat = int(x)
        if seat is None:
            raise ValueError(f"no seat is named {x!r}: the seats are {', '.join(names)}")
        if seat in unknown:
            k, p = unknown[seat]
            raise ValueError(f"the record does not know {names[seat]}'s hand at round {k + 1}, "
                             f"play {p + 1}: only a seat whose hands it shows can be reviewed")
        chosen.add(seat)
    return chosen


def _thresholds(given) -> dict[str, float]:
    marks = dict(THRESHOLDS)
    for key, value in (given or {}).items():
        if key not in marks:
            raise ValueError(f"unknown label {key!r}: the labels are {', '.join(marks)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0 < value < 100:
            raise ValueError(f"a threshold is a number of round points above 0, not {value!r}")
        marks[key] = float(value)
    if not marks["inaccuracy"] <= marks["mistake"] <= marks["blunder"]:
        raise ValueError("thresholds must rise: inaccuracy <= mistake <= blunder "
                         f"(got {marks['inaccuracy']:g}, {marks['mistake']:g}, "
                         f"{marks['blunder']:g})")
    return marks


def _precision(given, marks: dict[str, float]) -> float:
    """How well a decision's edge must be known for its rollouts to stop:
    `given`, or by default a quarter of the smallest threshold (0.025 round
    points: as stable under reseeding as rolling out to the budget, with a
    third fewer rollouts; half of it changed 8% of verdicts, against 3%:
    docs/STRENGTH.md)."""
    if given is None:
        return marks["inaccuracy"] / 4
    if isinstance(given, bool) or not isinstance(given, (int, float)) or not 0 <= given < 100:
        raise ValueError(f"precision is a number of round points, 0 or more, not {given!r}")
    return float(given)


def _seed(seed: int, k: int, p: int) -> int:
    """The seed of round k, play p's rollouts: one stream per decision."""
    return int(np.random.SeedSequence([seed, k, p]).generate_state(1, np.uint64)[0] >> 1)


def _row(rnd: Round, k, p, seat, card, take, notes) -> dict:
    nan = float("nan")
    return {"round": k + 1, "play": p + 1, "seat": seat, "name": notes.names[seat],
            "side": rnd.rules.teams[seat],
            "hand": names(rnd.hands[seat]) if notes.known(k, p) else "?",
            "table": names(rnd.table), "played": move_text(card, take),
            "scopa": False, "level": "not reviewed", "best": "", "moves": len(rnd.legal_moves()),
            "cost": nan, "cost_low": nan, "cost_high": nan, "win_cost": nan,
            "win_cost_low": nan, "win_cost_high": nan, "value": nan, "value_low": nan,
            "value_high": nan, "win_game": nan, "label": "", "verdict": "", "versus": "",
            "edge": nan, "edge_low": nan, "edge_high": nan, "why": "", "parts": {},
            "rollouts": 0, "alternatives": [], "quick_cost": nan, "quick_label": "",
            "comment": notes.comment(k, p)}


class Ask(NamedTuple):
    """One decision to value, as a task may carry it: the position from the
    seat's view, the move played, the score before the round (two sides)."""
    rules: Rules
    pos: np.ndarray
    deck: np.ndarray
    seat: int
    score: tuple | None
    move: tuple
    forced: bool
    seed: int
    row: int


def _ask(rnd: Round, move, scores, seed: int, row: int) -> Ask:
    rules, seat = rnd.rules, rnd.turn
    side = rules.teams[seat]
    score = (scores[side], scores[1 - side]) if rules.n_sides == 2 else None
    pos, deck = rnd.kernel_position()
    return Ask(rules, pos, deck, seat, score, move, len(rnd.legal_moves()) == 1, seed, row)


def decisions(how: Settings, asks, ex):
    """(i, the review of decision asks[i]) as each is decided, on executor
    `ex`: every decision submitted at once, so a long one holds no worker idle."""
    return stream(_decision, (how, tuple(asks)), range(len(asks)), ex, ahead=len(asks))


def _decision(how: Settings, asks: tuple, i: int) -> dict:
    """The review of decision `asks[i]` (a task): the seat's moves valued by
    `evaluate` until the played move's verdict is decided, then again by
    the deep evaluator where that is a label and `how.check` asks."""
    a = asks[i]
    if a.forced:
        zero = 0.0 if a.score is not None else float("nan")
        return {"level": "forced", "verdict": "forced", "best": move_text(*a.move), "cost": 0.0,
                "cost_low": 0.0, "cost_high": 0.0, "win_cost": zero, "win_cost_low": zero,
                "win_cost_high": zero, "quick_cost": 0.0, "quick_label": ""}
    marks = tuple(how.marks.values())

    def verdict(strategy, rollouts, **batch):
        return _verdict(evaluate(a.rules, a.pos, a.deck, a.seat, a.score, strategy, rollouts,
                                 seed=a.seed, workers=1, scheduler=Inline(),
                                 paired_win=True, played=a.move, marks=marks,
                                 precision=how.precision, **batch), a.move, how.marks)
    quick = verdict(how.strategy, how.rollouts)
    quick.update(quick_cost=quick["cost"], quick_label=quick["label"])
    if not how.check or quick["label"] not in CHECKED:
        return quick
    deep = verdict(how.deep_strategy, how.deep_samples, batch=DEEP_BATCH)
    return {**deep, "level": "deep", "quick_cost": quick["cost"], "quick_label": quick["label"]}


def _verdict(result: dict, move, marks: dict) -> dict:
    """A decision's row fields from an `evaluate` result: the played move's
    verdict, its cost against the best, its value, its label."""
    moves, v = result["moves"], result["verdict"]
    mine = next(m for m in moves if m["move"] == move_text(*move))
    top = v["edge"] >= 0                             # the played move is the estimated best
    cost = (0.0, 0.0, 0.0) if top else (-v["edge"], -v["edge_high"], -v["edge_low"])
    out = {"level": "exact" if result["exact"] else "rollouts", "best": moves[0]["move"],
           "verdict": v["verdict"], "versus": v["versus"], "edge": v["edge"],
           "edge_low": v["edge_low"], "edge_high": v["edge_high"], "why": v["why"],
           "parts": v["parts"], "cost": cost[0], "cost_low": cost[1], "cost_high": cost[2],
           "value": mine["margin"], "value_low": mine["margin_low"],
           "value_high": mine["margin_high"], "rollouts": result["rollouts"],
           "alternatives": moves}
    if "win_game" in mine:
        out.update(win_game=mine["win_game"], win_cost=0.0 - mine["win_vs_best"],
                   win_cost_low=0.0 - mine["win_vs_best_high"],
                   win_cost_high=0.0 - mine["win_vs_best_low"])
    out["label"] = label(out["cost"], out["cost_low"], out["cost_high"], marks) \
        if v["verdict"] == "worse" else ""
    return out


def label(cost: float, low: float, high: float, marks: dict[str, float]) -> str:
    """The label of a play's cost: the largest threshold that its whole
    interval lies above (exact: the cost itself), so that a label says the
    play cost at least that much; where a threshold lies inside the interval
    (the sampling's budget ended first), the largest that its mean reaches;
    '' below every threshold."""
    straddled = any(low < at < high for at in marks.values())
    sure = cost if straddled else low
    reached = [name for name, at in marks.items() if sure >= at]
    return reached[-1] if reached else ""


def _points(game: Game, k: int) -> list[int] | None:
    """Round k's points per side: played out, or as the record wrote them."""
    rnd = game.rounds[k]
    if rnd.done:
        res = rnd.result()
        return [res[f"points_{t}"] for t in range(game.rules.n_sides)]
    return game.unplayed.get(k)


def _headers(game: Game, notes) -> dict:
    return {"rules": game.rules.name, "seats": list(notes.names),
            "first_dealer": notes.names[game.rounds[0].dealer], "score": list(game.start),
            **notes.headers}


@functools.lru_cache(maxsize=16)
def _baseline(rules: Rules, strategy) -> np.ndarray:
    """base[d]: the expected round margin over the best other side (as
    `advise`'s) of the side d sides after the dealer's, in `BASELINE_ROUNDS`
    rounds of the strategy's self-play."""
    n = rules.n_sides
    df = simulate(rounds=BASELINE_ROUNDS, strategies=(strategy,) * n, rules=rules, seed=0)
    points = np.stack([df[f"points_{t}"].to_numpy() for t in range(n)], axis=1).astype(float)
    dealer_side = np.array(rules.teams)[df["dealer"].to_numpy()]
    base = np.zeros(n)
    for d in range(n):
        side = (dealer_side + d) % n
        others = points.copy()
        others[np.arange(len(df)), side] = -np.inf
        base[d] = float((points[np.arange(len(df)), side] - others.max(1)).mean())
    return base


def _rounds(game: Game, notes, df: pd.DataFrame, strategy) -> list[dict]:
    """Per round: the dealer, the deals as the record knows them, the points,
    the score after it, and each side's luck (where its seats were reviewed)."""
    r = game.rules
    base = _baseline(r, self_play(strategy))
    out, scores = [], list(game.start)
    for k, rnd in enumerate(game.rounds):
        rows = df[df["round"] == k + 1]
        points, luck = _points(game, k), [float("nan")] * r.n_sides
        if points is not None:
            scores = [a + b for a, b in zip(scores, points)]
            dealer_side = r.teams[rnd.dealer]
            for t in set(rows.loc[rows["level"] != "not reviewed", "side"]):
                over_best = points[t] - max(p for u, p in enumerate(points) if u != t)
                own = rows.loc[rows["side"] == t, "cost"].sum()
                theirs = rows.loc[rows["side"] != t, "cost"].sum()
                luck[t] = over_best - base[(t - dealer_side) % r.n_sides] - (theirs - own)
        out.append({"round": k + 1, "dealer": notes.names[rnd.dealer],
                    "deals": _deals(rnd, k, notes, rows), "points": points,
                    "score": list(scores) if points is not None else None, "luck": luck,
                    "complete": rnd.done})
    return out


def _deals(rnd: Round, k: int, notes, rows: pd.DataFrame) -> list[dict]:
    """Each deal of a round that was played into: the play it came before,
    every seat's hand (or '?' where the record does not know it), the table."""
    n = rnd.rules.players
    per_deal, leader = n * rnd.rules.hand_size, (rnd.dealer + 1) % n
    out = []
    for p0 in range(0, max(len(rnd.moves), 1), per_deal):
        hands = rnd.dealt_hands[p0]
        first = {s: p0 + (s - leader) % n for s in range(n)}      # the seat's first play in it
        out.append({"play": p0 + 1, "table": names(rnd.dealt_table) if p0 == 0 else
                    rows.loc[rows["play"] == p0 + 1, "table"].iloc[0],
                    "hands": {notes.names[s]: names(hands[s]) if first[s] < len(rnd.moves)
                              and notes.known(k, first[s]) else "?" for s in range(n)}})
    return out


def _summary(df: pd.DataFrame, chosen: set[int], notes, rounds: list[dict],
             rules: Rules) -> list[dict]:
    """Per reviewed seat: its decisions (not forced), their mean cost, its
    labels, and its side's luck a round."""
    out = []
    for seat in sorted(chosen):
        mine = df[df["seat"] == seat]
        rated = mine[mine["level"].isin(RATED)]
        lucks = np.array([r_["luck"][rules.teams[seat]] for r_ in rounds])
        lucks = lucks[~np.isnan(lucks)]
        mean, low, high = nonnegative_mean_interval(rated["cost"].to_numpy())
        luck, luck_low, luck_high = mean_t_interval(lucks)
        out.append({"name": notes.names[seat], "seat": seat, "decisions": len(rated),
                    "forced": int(mine["level"].eq("forced").sum()),
                    "mean_cost": mean, "mean_cost_low": low, "mean_cost_high": high,
                    "labels": {name: int(rated["label"].eq(name).sum()) for name in THRESHOLDS},
                    "luck": luck, "luck_low": luck_low, "luck_high": luck_high,
                    "rounds": len(lucks)})
    return out
