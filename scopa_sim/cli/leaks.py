"""`scopa-sim leaks`: where a strategy loses points, by situation. Thin: the
work is `scopa_sim.study.leaks`; the answer goes to stdout, progress to stderr."""
from __future__ import annotations

from pathlib import Path

import click

from ..defaults import LEAKS_ROLLOUTS, LEAKS_ROUNDS
from .options import (QUIET, check_out, compile_note, emit, note, OutPath, parse_rules,
                      parse_seed, progress, rules_options, seed_option, text_or_json,
                      trusted_note, workers_option)

SHOWN = 3                # situations whose examples the text prints
OUT_FORMATS = (".html", ".png", ".svg", ".pdf")


@click.command()
@click.argument("strategy")
@click.option("--against", metavar="STRATEGY", default="net", show_default=True,
              help="The opponent STRATEGY plays.")
@click.option("--judge", metavar="STRATEGY",
              help="The strategy that prices every decision (default: the opponent): a "
                   "built-in, or a jitted one of yours.")
@click.option("--rounds", type=click.IntRange(min=1), metavar="N",
              help="Deals to play, each twice (STRATEGY at either side): 2N rounds "
                   f"[default: {LEAKS_ROUNDS} unless --games].")
@click.option("--games", type=click.IntRange(min=1), metavar="N",
              help="Game seeds to play instead, each twice (STRATEGY at either side).")
@click.option("--rollouts", type=click.IntRange(2, 1_000_000), metavar="N",
              help="The most rollouts per decision whose move differs from the judge's "
                   f"[default: {LEAKS_ROLLOUTS}].")
@click.option("--true-deal", is_flag=True,
              help="Check mode: value each move on the real deal, the judge playing every "
                   "seat to the end; with the opponent as judge a round's costs then add up "
                   "to the judge's margin in STRATEGY's seat minus STRATEGY's.")
@click.option("--out", type=OutPath(example="leaks.html"), metavar="FILE",
              help="Also write a bar chart of the top leaks: FILE.html (a page with the "
                   "table and examples), .png, .svg or .pdf.")
@click.option("--overwrite", is_flag=True, help="Replace an --out file that exists.")
@rules_options
@seed_option
@workers_option
@text_or_json()
@QUIET
def leaks(strategy, against, judge, rounds, games, rollouts, true_deal, out, overwrite,
          rules_name, rule_options, seed, workers, fmt, quiet):
    """Where STRATEGY loses points, and in which situations.

    STRATEGY plays --against on --rounds deals (or --games), each dealt
    twice with STRATEGY at either side. At each of its decisions the judge
    says which move it would play; where that is STRATEGY's move the cost is
    0, else both moves are played on the same deals of the cards the seat
    has not seen, the judge playing every seat on, and the cost is the
    judge's move's margin minus STRATEGY's. Decisions are grouped into
    situations (the phase, trail/capture/sweep against the judge's choice,
    what is at stake, what the move leaves); a decision may be in several,
    so the rows overlap and the total is printed apart, beside `compare
    STRATEGY JUDGE` on the same deals. Rows are ranked by cost per round,
    each with its 95% interval, its split by scoring part and examples to
    replay with `scopa-sim advise`.

    \b
    Examples:
      scopa-sim leaks counter --rounds 1000 --seed 1
      scopa-sim leaks greedy --against counter --judge net --out leaks.html
      scopa-sim leaks counter --rounds 200 --true-deal --format json
    """
    if rounds is not None and games is not None:
        raise click.UsageError("give --rounds or --games, not both")
    if out is not None:
        if Path(out).suffix.lower() not in OUT_FORMATS:
            raise click.BadParameter(f"{str(out)!r} must end in {', '.join(OUT_FORMATS)}",
                                     param_hint="--out")
        check_out([out], overwrite)
    # imported when the command runs: help and listings stay light
    from ..study.leaks import check, leaks as find_leaks
    rules = parse_rules(rules_name, rule_options)
    seed = parse_seed(seed)
    rounds = LEAKS_ROUNDS if rounds is None and games is None else rounds
    players = check(strategy, against, judge, rules)
    units = rounds if games is None else games
    with progress(quiet, "leaks") as bar:
        task = bar.add_task("", total=units, note=compile_note(players[:2], rules) or
                            ("games" if games else "deals"))
        result = find_leaks(strategy, against, judge, rules=rules, rounds=rounds, games=games,
                            seed=seed, rollouts=rollouts or LEAKS_ROLLOUTS,
                            true_deal=true_deal, workers=workers,
                            progress=lambda k: bar.advance(task, k))
    if out is not None:
        from ..analysis.leaks_page import write
        write(result, out)
        if not quiet:
            note(f"leaks: wrote {out}")
    emit(result, _view, "json" if fmt == "json" else "table")
    trusted_note(False, [strategy, against, judge or ""], quiet)


def _view(r: dict):
    """The leaks table, the totals, and the top situations' examples."""
    from ..analysis.leaks_page import table
    from ..analysis.output import Section, signed
    sections = [table(r)]
    ex = Section(f"examples of the top {SHOWN} leaks: advise commands that set each up again",
                 ["situation", "example"])
    for row in r["situations"][:SHOWN]:
        for e in row["examples"]:
            ex.add(row["situation"], e)
    sections.append(ex)
    if "true_deal" in r:
        t = r["true_deal"]
        sections.append(Section("true-deal check", ["rounds", "largest |sum of costs - margin "
                                                    "difference|"]).add(
            f"{t['deals']:,}", signed(t["max_gap"], 6)))
    return sections, r["situations"]


COMMANDS = (leaks,)
