"""`scopa-sim verify`: play a run's batches again and compare them with its
parts. Thin: the work is in `scopa_sim.runs.verify`."""
from __future__ import annotations

from pathlib import Path

import click

from ..engine.checks import plural
from .options import Answered, QUIET, progress, results, text_or_json, workers_option


@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--sample", type=click.IntRange(1), metavar="K",
              help="Replay K batches chosen at random (with a seed drawn now, printed), "
                   "not all of them.")
@text_or_json("The verdict on stdout: a line, or JSON.")
@workers_option
@QUIET
def verify(run_dir, sample, fmt, workers, quiet):
    """Verify run RUN by playing its batches again from its spec and seed.

    Reading a run already checks what its files can say of themselves
    (sha256, spec, columns, values, points that add up); a part changed
    consistently, its hashes written again, passes that. A run of built-in
    strategies is a pure function of its spec and seed, so verify plays its
    batches again and compares every column, row by row. Exit 0: every
    batch replayed is identical; 1: a part differs (the first row and
    column named); 2: RUN cannot be read or replayed (a run of user
    strategies is not: its code never runs when it is read).

    \b
    Examples:
      scopa-sim verify runs/demo                # every batch
      scopa-sim verify runs/big --sample 5      # 5 batches drawn at random
    """
    # imported when the command runs: help and listings stay light
    from ..runs.verify import NotVerified, verify as replay
    with progress(quiet, "verify") as bar:
        task = bar.add_task("", total=None, note="playing the batches again")
        try:
            result = replay(run_dir, sample, progress=lambda units: bar.advance(task, units),
                            workers=workers)
        except NotVerified as e:
            raise Answered(str(e)) from None
    if fmt == "json":
        from ..analysis.output import to_json
        click.echo(to_json(result), file=results())
        return
    k, n = len(result["checked"]), result["batches"]
    line = f"verified: {k} of {plural(n, 'batch', 'batches')} replayed, identical"
    if result["draw"] is not None:
        line += (f" (batches {', '.join(str(b) for b in result['checked'])}, drawn with "
                 f"seed {result['draw']})")
    if result["partial"]:
        line += f"; {result['partial']}: the missing ones are not verified"
    click.echo(line, file=results())


COMMANDS = (verify,)
