"""What following one maxim of the rule texts is worth.

Each maxim is one parameter of the strategy `docs/examples/maxims/base.py:maxims`
(1: follow it, 0: not); the two strategies differ in nothing else. `measure`
plays them against each other on duplicate deals (`matches.compare`) and
replays a sample of those rounds move by move (`Round`), asking both at each
decision, to say how often the maxim changes the move at all.

    >>> from scopa_sim.study.maxims import measure
    >>> r = measure("settebello", deals=100_000, workers=1)
    >>> r["margin"]["estimate"], r["differ"]["rate"]

The quotes, and where the rule texts say them:

1. settebello, "Secure the settebello": "The settebello is now in your pile,
   where nobody can take it from you." (the worked-game page's commentary); "Prioritize
   capturing the 7 of Coins" (the database summary's strategy notes).
2. above_ten, "Keep the table above ten": "Instead you lay down A♠. The table
   is 4, 9, 3 and 1, which adds up to 17, so no single card can clear it."
   (the worked-game page's commentary).
3. single, "Don't leave a single card on a bare table": "A single card left
   on a bare table is an open invitation." (the worked-game page's commentary).
4. primiera, "Collect sevens and sixes, and a card of every suit": "Collect
   Sevens and Sixes for Prime dominance" (the database summary's strategy notes).
5. coins, "Withhold coins": "consider withholding Coins cards from the table
   when possible" (the database summary's strategy notes).
6. cards, "Prefer captures that take more cards": "Prefer sum captures that
   take multiple cards over single-card captures" (the database summary's strategy notes).
7. no_seven, "Don't set up a sum of seven": "That is a mistake: a four and a
   three make seven, and there are four sevens in the pack." (the worked-game
   page's commentary).
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .. import data
from ..stats import rate_difference, wilson
from ..engine.game import Round
from ..engine.rules import Rules
from ..engine.strategies import parse_strategy
from ..runs.traces import trace_round
from .matches import compare

STRATEGY = data.path("maxims.py")   # package data; docs/examples/maxims/base.py is its copy
FUNCTION = "maxims"
DEFAULT_DEALS = 100_000
DEFAULT_SAMPLE = 500


class Maxim(NamedTuple):
    title: str
    quote: str
    source: str
    parameter: str


MAXIMS: dict[str, Maxim] = {
    "settebello": Maxim(
        "Secure the settebello",
        "The settebello is now in your pile, where nobody can take it from you.",
        "the worked-game page's commentary (and the database summary's strategy notes: "
        "\"Prioritize capturing the 7 of Coins\")", "settebello"),
    "above_ten": Maxim(
        "Keep the table above ten",
        "Instead you lay down A♠. The table is 4, 9, 3 and 1, which adds up to 17, "
        "so no single card can clear it.", "the worked-game page's commentary", "above_ten"),
    "single": Maxim(
        "Don't leave a single card on a bare table",
        "A single card left on a bare table is an open invitation.",
        "the worked-game page's commentary", "single"),
    "primiera": Maxim(
        "Collect sevens and sixes for the primiera, and keep a card of every suit",
        "Collect Sevens and Sixes for Prime dominance ... If you cannot win Prime "
        "outright, ensure you have at least one card per suit to avoid a 0 in any suit",
        "the database summary's strategy notes", "primiera"),
    "coins": Maxim(
        "Withhold coins",
        "Actively race for Coins cards and note when an opponent is close to majority "
        "— consider withholding Coins cards from the table when possible.",
        "the database summary's strategy notes", "coins"),
    "cards": Maxim(
        "Prefer captures that take more cards",
        "Prefer sum captures that take multiple cards over single-card captures when "
        "the capture_priority rule does not force your hand",
        "the database summary's strategy notes", "cards"),
    "no_seven": Maxim(
        "Don't set up a sum of seven for the next player",
        "That is a mistake: a four and a three make seven, and there are four sevens "
        "in the pack.", "the worked-game page's commentary", "no_seven"),
}


def strategies(maxim: str, strategy: str | Path | None = None) -> tuple[str, str]:
    """The two strategy texts that differ only in `maxim`: (on, off)."""
    if maxim not in MAXIMS:
        raise ValueError(f"unknown maxim {maxim!r}: choose from {', '.join(MAXIMS)}")
    path = Path(strategy) if strategy is not None else STRATEGY
    if not path.is_file():
        raise FileNotFoundError(f"the maxims strategy {path} is not there (a copy is in the "
                                f"source tree: docs/examples/maxims/base.py)")
    p = MAXIMS[maxim].parameter
    return f"{path}:{FUNCTION}:{p}=1", f"{path}:{FUNCTION}:{p}=0"


def _difference(win: dict, loss: dict) -> dict:
    """P(on wins a round) - P(off wins it), with a normal 95% interval that
    takes the rounds as independent (the two plays of a deal are not)."""
    return rate_difference(win["k"], loss["k"], win["n"])


def arises(maxim: str, rules: str | Rules = "scopa", seed: int = 0,
           sample: int = DEFAULT_SAMPLE, strategy: str | Path | None = None) -> dict:
    """How often the maxim changes the move: rounds 0..sample-1 of the
    comparison's run (seed), on and off taking the sides in turn, replayed
    move by move; at each decision with more than one legal move both
    strategies are asked (`Round.suggest`, the same random bits for both).
    Wilson intervals for the share of such decisions where they differ, and
    of rounds with at least one."""
    rules = Rules.resolve(rules)
    on, off = (parse_strategy(s) for s in strategies(maxim, strategy))
    sides = rules.n_sides
    decisions = choices = differ = rounds_hit = 0
    for i in range(sample):
        seats = tuple(on if (t + i) % sides == 0 else off for t in range(sides))
        played = trace_round(seed, i, seats, rules)
        rnd = Round(rules, deck=played.deck_order, dealer=played.dealer)
        hit = False
        for k, (_, card, take) in enumerate(played.moves):
            decisions += 1
            if len(rnd.legal_moves()) > 1:
                choices += 1
                s = i * 64 + k
                if rnd.suggest(on, seed=s) != rnd.suggest(off, seed=s):
                    differ += 1
                    hit = True
            rnd.play(card, take)
        rounds_hit += hit
    return {"decisions": decisions, "choices": choices,
            "differ": wilson(differ, choices).as_dict(),
            "rounds_affected": wilson(rounds_hit, sample).as_dict()}


def measure(maxim: str, rules: str | Rules = "scopa", deals: int = DEFAULT_DEALS,
            seed: int = 0, workers: int | None = None, sample: int = DEFAULT_SAMPLE,
            strategy: str | Path | None = None, scheduler=None) -> dict:
    """What following `maxim` (a key of MAXIMS) is worth, on `deals`
    duplicate deals (on `workers` threads, or a Dask cluster: `scheduler`,
    as for `compare`): on minus off.

    Keys: maxim, title, quote, source, parameter, on, off (the strategy
    texts), rules, seed (drawn afresh for None), deals; margin (points per round, on minus off, the
    paired 95% interval: estimate, n, low, high, halfwidth, ...);
    round_win_on, round_win_off (Wilson: rate, k, n, low, high) and
    round_win_difference (estimate, n, low, high); and from `arises`
    (a replay of `sample` of the rounds): decisions, choices (decisions with
    more than one legal move), differ (Wilson: the share of choices where on
    and off play differently) and rounds_affected."""
    on, off = strategies(maxim, strategy)
    m = MAXIMS[maxim]
    result = compare(on, off, rules=rules, seed=seed, deals=deals, workers=workers,
                     scheduler=scheduler)
    return {"maxim": maxim, "title": m.title, "quote": m.quote, "source": m.source,
            "parameter": m.parameter, "on": on, "off": off, "rules": result["rules"],
            "seed": result["seed"], "deals": result["pairs"], "margin": result["margin"],
            "round_win_on": result["round_win"], "round_win_off": result["round_loss"],
            "round_win_difference": _difference(result["round_win"], result["round_loss"]),
            **arises(maxim, rules, result["seed"], sample, strategy)}
