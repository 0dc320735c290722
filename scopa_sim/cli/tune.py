"""`scopa-sim tune`: better parameters for a strategy. Thin: the search is
`scopa_sim.study.tune`; the answer goes to stdout, progress to stderr."""
from __future__ import annotations

from pathlib import Path

import click

from ..defaults import TUNE_CHECK_DEALS, TUNE_DEALS, TUNE_EVALUATIONS
from .options import (QUIET, check_out, compile_note, note, OutPath, parse_rules,
                      parse_seed, results, rules_options, seed_option, text_or_json,
                      trusted_note, workers_option)

HEARTBEAT = 60          # seconds between progress lines while the best stays


@click.command()
@click.argument("strategy")
@click.option("--against", metavar="STRATEGY",
              help="Play every candidate against this strategy (default: STRATEGY as given).")
@click.option("--params", metavar="A,B,...",
              help="The parameters to tune, by name (default: every numeric one of "
                   "STRATEGY; see `scopa-sim strategies`).")
@click.option("--deals", type=click.IntRange(min=2), default=TUNE_DEALS, show_default=True,
              help="Duplicate deals an evaluation plays (each twice, seats swapped); every "
                   "candidate meets the same ones.")
@click.option("--check-deals", type=click.IntRange(min=2), default=TUNE_CHECK_DEALS, show_default=True,
              help="Fresh duplicate deals the best change is checked on at the end.")
@click.option("--evaluations", type=click.IntRange(min=1),
              help=f"Stop after this many evaluations, the start's included (default "
                   f"{TUNE_EVALUATIONS} unless --budget is given).")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), metavar="MINUTES",
              help="Stop the search after this many minutes (then the check runs).")
@click.option("--trace", type=OutPath(example="trace.csv"), metavar="FILE",
              help="Write every evaluation (number, parameters, margin, 95% interval) to FILE: "
                   "CSV if it ends in .csv, else JSON lines.")
@click.option("--overwrite", is_flag=True,
              help="Replace a --trace file that exists (refused otherwise).")
@rules_options
@seed_option
@workers_option
@text_or_json()
@QUIET
def tune(strategy, against, params, deals, check_deals, evaluations, budget, trace, overwrite,
         rules_name, rule_options, seed, workers, fmt, quiet):
    """Tune STRATEGY's parameters with CMA-ES on duplicate deals.

    Every candidate plays --against on the same duplicate deals, seats
    swapped (common random numbers), and the search keeps the candidate
    with the largest margin per round. Positive weights are searched on a
    log scale (within a factor of 100 of the start), fractions on 0..1. The
    search stops at --evaluations, --budget, when CMA-ES has converged, or on
    Ctrl-C (the best so far is kept). The best change is then played on fresh
    deals it never saw: it is the answer only if its 95% interval there lies
    above 0; else the command says that no change beats the current weights.
    Prints the winner as a strategy to paste (values to 3 significant digits).

    \b
    Examples:
      scopa-sim tune counter --budget 20 --seed 1
      scopa-sim tune counter:sweep=1000 --params sweep,seven --evaluations 60
      scopa-sim tune greedy --against heuristic --deals 10000 --trace trace.csv
      scopa-sim tune mine.py:cautious --evaluations 100 --format json
    """
    if trace is not None:
        check_out([trace], overwrite, option="--trace")
    # imported when the command runs: help and listings stay light
    from ..engine.checks import plural
    from ..study.tune import plan, tune as run_tune
    rules = parse_rules(rules_name, rule_options)
    names = [p.strip() for p in params.split(",")] if params is not None else None
    if names is not None and not all(names):
        raise click.BadParameter(f"{params!r}: name parameters A,B,...", param_hint="--params")
    seed = parse_seed(seed)
    start, opponent, _ = plan(strategy, against, names)
    if not quiet and compile_note([start, opponent], rules):
        note("tune: compiling kernels, first run only")

    shown = {"best": None, "at": 0.0}

    def show(search):
        """A line when a generation ends with a new best, or a minute after the last."""
        if quiet or not search.generation_done:
            return
        if search.best is None:
            note(f"tune: the start, {search.start}, against {search.against}: "
                 f"{_margin(search.first.margin)}")
            return
        if search.best is shown["best"] and search.seconds() - shown["at"] < HEARTBEAT:
            return
        shown.update(best=search.best, at=search.seconds())
        note(f"tune: generation {search.generation}, {plural(search.evaluations, 'evaluation')}"
             f", {search.seconds() / 60:.1f} min: best {_margin(search.best.margin)} "
             f"{search.best.strategy}")

    def checking(winner):
        if not quiet:
            note(f"tune: checking {winner.strategy} against {opponent} on "
                 f"{check_deals:,} fresh deals")
    result = run_tune(start, against=opponent, params=names, rules=rules, deals=deals,
                      check_deals=check_deals, seed=seed, evaluations=evaluations,
                      budget=budget, workers=workers, progress=show, checking=checking,
                      trace=trace)
    if result["interrupted"] and not quiet:
        note(f"tune: interrupted after {plural(result['evaluations'], 'evaluation')}; the best "
             f"so far was checked")
    _print(result, fmt)
    if trace is not None and not quiet:
        note(f"tune: wrote {Path(trace)}")
    trusted_note(False, [strategy, against or ""], quiet)


def _margin(m: dict) -> str:
    """A margin with its interval, 3 decimals: +0.004 [-0.006, +0.014]."""
    # imported when the command runs: help and listings stay light
    from ..analysis.output import signed, signed_ci
    return f"{signed(m['estimate'], 3)} {signed_ci(m['low'], m['high'], 3)}"


def _print(result: dict, fmt: str) -> None:
    """The answer: JSON, or the winner to paste and its margin on fresh
    deals (one line when nothing beats the start)."""
    from ..analysis.output import to_json
    if fmt == "json":
        click.echo(to_json(result), file=results())
        return
    margin = _margin(result["margin"])
    whom = ("the current weights" if result["against"] == result["start"]
            else result["against"])
    interrupted = " (interrupted)" if result["interrupted"] else ""
    if not result["improved"]:
        click.echo(f"no change beats {whom} (best {margin}){interrupted}", file=results())
        return
    click.echo(result["spec"], file=results())
    click.echo(f"beats {whom} by {margin} points per round on {result['check_deals']:,} fresh "
               f"deals ({result['evaluations']} evaluations){interrupted}", file=results())


COMMANDS = (tune,)
