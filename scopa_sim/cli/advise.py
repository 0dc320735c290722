"""`scopa-sim advise`: every legal move of a position, best first, with
intervals. Thin: the work is in `scopa_sim.study.advise`."""
from __future__ import annotations

import click

from ..defaults import DEEP_SAMPLES, DEEP_STRATEGY, DEFAULT_ROLLOUTS, DEFAULT_STRATEGY
from .options import (FORMAT, QUIET, cluster_options, emit, parse_rules, parse_seed, progress,
                      rules_options, seed_option, where, workers_option)



def _cell(rec: dict, name: str, fmt: str, exact: bool) -> str:
    """An estimate with its 95% interval, or an exact value alone."""
    est, low, high = rec[name], rec[f"{name}_low"], rec[f"{name}_high"]
    return format(est, fmt) if exact else f"{est:{fmt}} [{low:{fmt}}, {high:{fmt}}]"


def _part(est: float, low: float, high: float) -> str:
    """A part of a difference as mean ± half its interval ('0' when none;
    never '-0.00')."""
    # imported when the command runs: help and listings stay light
    from ..analysis.output import signed
    text = signed(est, 2)
    if est == low == high:
        return text if est else "0"
    return f"{text}±{(high - low) / 2:.2f}"


def why_view(r: dict):
    """Each move's difference from the best (the best's from the next) by
    part, and its largest part in words."""
    from ..analysis.output import Section
    names = list(r["moves"][0]["parts"]) if r["moves"] and r["moves"][0]["parts"] else []
    s = Section("why: each move minus the best (the best: minus the next), round points "
                "by part, ± half the 95% interval", ["move", *names, "in words"])
    for m in r["moves"]:
        s.add(m["move"], *(_part(*m["parts"][k]) for k in names), m["why"])
    return s


def advise_view(r: dict, why: bool = False):
    """The result as one table (best move first), with --why the table of
    parts, and flat records."""
    # imported when the command runs: help and listings stay light
    from ..analysis.output import Section
    game = r["score"] is not None
    cols = ["move", "margin" if r["exact"] else "margin (95% CI)", "vs best", "P(win round)",
            *(["P(win game)"] if game else [])]
    where = f"score {r['score'][0]}-{r['score'][1]}, " if game else ""
    other = "theirs" if r["sides"] == 2 else "the best other side's"
    s = Section(f"advise: hand {r['hand']}, table {r['table'] or '(empty)'} ({r['rules']}; "
                f"{where}margin: round points, mine minus {other})", cols)
    x = r["exact"]
    for i, m in enumerate(r["moves"]):
        cells = [m["move"], _cell(m, "margin", "+.2f", x),
                 "best" if i == 0 else _cell(m, "vs_best", "+.2f", x),
                 _cell(m, "win_round", ".3f", x)]
        s.add(*cells, *([_cell(m, "win_game", ".3f", x)] if game else []))
    if r["exact"]:
        s.caption = f"exact values: {r['stopped'].removeprefix('exact: ')}"
    else:
        s.caption = (f"{r['rollouts']:,} rollouts (every move played on the same deals of the "
                     f"unseen cards, then by {r['strategy']} for every seat), seed {r['seed']}; "
                     f"stopped: {r['stopped']}")
    return ([s, why_view(r)] if why and len(r["moves"]) > 1 else [s]), r["moves"]


@click.command()
@click.option("--hand", required=True, metavar="CARDS",
              help="The cards of the seat to play, e.g. \"7d 7h As\".")
@click.option("--table", default="", metavar="CARDS", help="The cards on the table.")
@click.option("--seen", default="", metavar="CARDS",
              help="Cards out of play this round whose pile does not matter (they score "
                   "for nobody).")
@click.option("--mine", default="", metavar="CARDS", help="Cards in my side's pile.")
@click.option("--theirs", default="", metavar="CARDS",
              help="Cards in the other side's pile (two sides; with more, use --seen).")
@click.option("--scopas", metavar="MINE-THEIRS", help="Scopas so far this round, e.g. 1-0.")
@click.option("--last", type=click.Choice(["mine", "theirs"]),
              help="The side that captured last (default: the only side with a pile).")
@click.option("--score", metavar="MINE-THEIRS",
              help="The game score before this round, e.g. 5-7: adds P(win game).")
@click.option("--strategy", "-s", default=None,
              help=f"The strategy that plays the rollouts out for every seat: a fast one, or "
                   f"a jitted one of yours (PATH.py:NAME)  [default: {DEFAULT_STRATEGY}; "
                   f"{DEEP_STRATEGY} with --deep]")
@click.option("--rollouts", type=click.IntRange(2, 10_000_000), default=None,
              help=f"The most rollouts (deals of the unseen cards) per move  [default: "
                   f"{DEFAULT_ROLLOUTS:,}; {DEEP_SAMPLES} with --deep]")
@click.option("--deep", is_flag=True,
              help="The deep evaluation: rollouts played by a strong search strategy for "
                   "every seat, a thousand times slower a rollout, without a fast strategy's "
                   "bias.")
@click.option("--until-halfwidth", type=click.FloatRange(0, 100, min_open=True), metavar="H",
              help="Stop when every move's margin interval is within ±H (instead of when the "
                   "best move is separated from the rest).")
@click.option("--no-early-stop", is_flag=True, help="Run all --rollouts.")
@click.option("--why", is_flag=True,
              help="Also say why: each move's difference from the best split by what the "
                   "round's points are made of (scopas, settebello, cards, coins, primiera), "
                   "and the largest part in words.")
@rules_options
@seed_option
@workers_option
@cluster_options
@FORMAT
@QUIET
def advise(hand, table, seen, mine, theirs, scopas, last, score, strategy, rollouts, deep,
           until_halfwidth, no_early_stop, why, rules_name, rule_options, seed, workers, scheduler,
           cluster, fmt, quiet):
    """Which move: every legal move of the seat to play, best first.

    For each move: the expected round point margin (my side minus the
    other), the chance of winning the round and, with --score, of winning
    the game, each with a 95% interval, and the margin against the best
    move paired on the same deals. Cards not given (--hand, --table, --seen,
    --mine, --theirs) are in the other hands and the deck; the counts say
    how many plays were made and so every hand's size. Each rollout deals
    them at random, plays every move on that same deal, and plays the round
    out with --strategy. Stops when the best move is separated from every
    other, or with --until-halfwidth; values are exact (no interval) when
    nothing is hidden (the deck is out and one other seat holds the rest).
    A fast rollout strategy has a bias no number of rollouts removes; --deep
    plays them by a strong search for every seat instead (seconds, not
    milliseconds, a move).

    \b
    Examples:
      scopa-sim advise --hand "7d 7h As" --table "2c 4h 5s Qd" --seed 1
      scopa-sim advise --hand "Kc 3d" --table "4h 6c" --mine "7d 2c 5s" --theirs "Qd As Kh" \\
          --last theirs --score 5-7
      scopa-sim advise --hand "7d 7h As" --table "2c 4h 5s Qd" --until-halfwidth 0.02
      scopa-sim advise --hand "3h Kc" --table "4c" --why --seed 1
    """
    # imported when the command runs: help and listings stay light
    from ..engine.positions import build_position
    from ..study.advise import BATCH, DEEP_BATCH, check_score, evaluate, level
    strategy, rollouts = level(deep, strategy, rollouts)
    rules = parse_rules(rules_name, rule_options)
    at = check_score(score, rules)
    pos, deck = build_position(rules, hand, table, seen, mine, theirs, scopas, last)
    seed = parse_seed(seed)
    with progress(quiet, "advise") as bar:
        task = bar.add_task("", total=rollouts, note="rollouts")
        result = evaluate(rules, pos, deck, 0, at, strategy, rollouts, until_halfwidth,
                          not no_early_stop, seed, workers, where(scheduler, cluster),
                          batch=DEEP_BATCH if deep else BATCH,
                          progress=lambda k: bar.advance(task, k))
    emit(result, lambda r: advise_view(r, why), fmt)


COMMANDS = (advise,)
