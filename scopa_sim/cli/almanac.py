"""`scopa-sim almanac`: the Scopa almanac (ALMANAC.md and its charts), built
from ordinary runs that resume. Thin: the work is in `scopa_sim.study.almanac`."""
from __future__ import annotations

import click

from ..defaults import ALMANAC_STRATEGY
from .options import (QUIET, check_out, cluster_options, note, OutPath, parse_seed, progress,
                      results, where, workers_option)

DEFAULT_SEED = 2026                 # = almanac.make's default (checked by a test)


@click.command()
@click.option("--out", "out_dir", type=OutPath(folder=True), required=True,
              help="Folder for ALMANAC.md, its charts, and its runs (runs/) and parts "
                   "(parts/); run again to resume.")
@click.option("--quick", is_flag=True,
              help="Every count 50 to 100 times smaller: the same sections, wider intervals, "
                   "under 3 minutes.")
@click.option("--seed", type=str,
              help=f"Seed, 0..2**64-1 (default {DEFAULT_SEED}: the same almanac each time).")
@click.option("--strategy", default=ALMANAC_STRATEGY, show_default=True,
              help="Every seat's strategy in the main runs (edge, points, cards, odds); "
                   "another than endgame is also measured against endgame on each preset, "
                   "and endgame's main runs are made too: its figures stand beside wherever "
                   "the two differ beyond their intervals (endgame: endgame's alone).")
@workers_option
@cluster_options
@QUIET
def almanac(out_dir, quick, seed, strategy, workers, scheduler, cluster, quiet):
    """Write the Scopa almanac: what strong play says about the game, and the
    strategy books' advice put to the test.

    Every seat plays `net`, the learned player (`endgame`'s figures beside
    where they differ), under scopa, scopa-3, scopa-4 and
    scopone-scientifico (the dealer's edge, round points, card values, the
    odds from every score); better play against worse on duplicate deals;
    each maxim of the rule texts measured; claims of the texts asked; the
    worked-game page's commented plays reviewed (docs/VARIANTS.md names the
    rule texts). Each number has its 95% interval and n.
    The runs are ordinary runs under OUT/runs/: an interrupted almanac
    resumes where it stopped when run again with the same options.

    \b
    Examples:
      scopa-sim almanac --out docs              # the default size (about 35 min on 2 cores)
      scopa-sim almanac --out /tmp/alm --quick  # about a minute
      scopa-sim almanac --out /tmp/eg --strategy endgame   # endgame's alone (about 25 min)
      scopa-sim almanac --out alm --cluster local:4
    """
    # imported when the command runs: help and listings stay light
    from ..study.almanac import make
    scheduler = where(scheduler, cluster)
    check_out([out_dir], folder=True)
    seed = DEFAULT_SEED if seed is None else parse_seed(seed)
    bar = progress(quiet, "almanac", False)
    tasks: dict[str, int] = {}

    def show(step: str, done: int, total: int) -> None:
        if step not in tasks:                       # a new step: the ones before are done
            for task in bar.tasks:
                bar.update(task.id, completed=task.total)
            tasks[step] = bar.add_task("", total=max(total, 1), note=step)
        bar.update(tasks[step], completed=done, total=max(total, 1))
    with bar:
        path = make(out_dir, quick=quick, seed=seed, workers=workers, scheduler=scheduler,
                    progress=show, strategy=strategy)
    for task in bar.tasks:                          # every step finished
        bar.update(task.id, completed=task.total)
    if not quiet:
        note(f"almanac: {path}")
    click.echo(str(path), file=results())


COMMANDS = (almanac,)
