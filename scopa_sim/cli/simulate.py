"""`scopa-sim simulate`: batches to a Parquet run, a progress bar, a summary."""
from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

import click

from ..defaults import GAMES as DEFAULT_GAMES_BATCH, MAX as MAX_BATCH, ROUNDS as DEFAULT_BATCH
from ..engine.checks import plural
from .options import (check_writable, cluster_options, compile_note, Interrupted,
                      isolate_options, isolation, note, out, OutPath, outside_runs,
                      parse_rules, parse_seed, progress, results, rules_options, seed_option,
                      trusted_note, where, workers_option)

RUN_OPTIONS = ("strategies", "rules_name", "rule_options", "rounds", "games", "seed", "out_dir",
               "batch_size", "overwrite", "keep_taken", "isolate",
               "move_timeout", "strict_isolation")   # fixed by the run: not with --resume


def default_out(spec) -> Path:
    names = "-vs-".join(re.sub(r"[^A-Za-z0-9]+", "_", str(s)) for s in spec.strategies)
    kind = "g" if spec.games else "r"
    return Path("runs") / f"{names}-{spec.rules.name}-{kind}{spec.units}-s{spec.seed}"


@click.command()
@click.option("--strategies", "-s", default="random,greedy", show_default=True,
              help="One strategy per side (or per seat), comma-separated; parameters as "
                   "name:key=value,key=value.")
@rules_options
@click.option("--rounds", type=int, help="Number of rounds to simulate (at most 10**13).")
@click.option("--games", type=int,
              help="Number of games (to the target score) to simulate (at most 10**13).")
@seed_option
@click.option("--out", "out_dir", type=OutPath(folder=True),
              help="Output folder (default: runs/<strategies>-<rules>-<count>-s<seed>).")
@workers_option
@cluster_options
@click.option("--batch-size", type=int,
              help=f"Rounds (or games) per batch and part file, at most {MAX_BATCH:,} "
                   f"(default {DEFAULT_BATCH:,} rounds, {DEFAULT_GAMES_BATCH:,} games).")
@click.option("--resume", "resume_dir", type=OutPath(folder=True),
              help="Finish an interrupted run in this folder (other run options not allowed).")
@click.option("--strategy-file", "strategy_files", multiple=True, metavar="TEXT=PATH",
              help="With --resume: load the run's user strategy TEXT (as the run records it) "
                   "from the file PATH, checked against the run's sha256 before any of it "
                   "runs (repeatable). A run's own files are never loaded otherwise.")
@click.option("--overwrite", is_flag=True,
              help="Replace the run in --out (only a scopa-sim run is ever removed).")
@click.option("--keep-taken", is_flag=True,
              help="Store the cards each side captured (taken_0, taken_1, ...) in the run, "
                   "for `ask` and `values --by taken`; without it they are played again from "
                   "the seed when asked, which costs what simulating cost and needs built-in "
                   "strategies.")
@isolate_options
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="Summary format on stdout.")
@click.pass_context
def simulate(ctx, strategies, rules_name, rule_options, rounds, games, seed, out_dir, workers,
             scheduler, cluster, batch_size, resume_dir, strategy_files, overwrite, isolate,
             move_timeout, quiet, fmt, keep_taken=False, strict_isolation=False):
    """Simulate rounds or games into a Parquet dataset and print a summary.

    \b
    Examples:
      scopa-sim simulate --rounds 1000000 --strategies random,greedy --seed 1
      scopa-sim simulate --games 10000 --strategies greedy,greedy --rule target=21
      scopa-sim simulate --resume runs/random-vs-greedy-scopa-r1000000-s1
      scopa-sim simulate --resume runs/mine --strategy-file mine.py:f=mine.py
      scopa-sim simulate --rounds 100000 --strategies pimc,pimc --keep-taken
      scopa-sim simulate --rounds 20000 --strategies mine.py:f,greedy --isolate
    """
    # imported when the command runs: help and listings stay light
    from ..runs.executors import executor
    from ..runs.plan import RunSpec
    from ..runs.runner import warm_kernels
    from ..runs.sources import open_to_resume
    from ..runs.store import Run
    scheduler = where(scheduler, cluster)
    if resume_dir is not None:
        given = [p.opts[0] for p in ctx.command.params if p.name in RUN_OPTIONS
                 and ctx.get_parameter_source(p.name) == click.core.ParameterSource.COMMANDLINE]
        if given:
            raise click.UsageError(f"--resume takes the run's own settings; drop {', '.join(given)}")
        run = open_to_resume(resume_dir, strategy_files)
    else:
        if strategy_files:
            raise click.UsageError("--strategy-file goes with --resume")
        if rounds is None and games is None:
            raise click.UsageError("say how much to simulate: --rounds N or --games N")
        if rounds is not None and games is not None:
            raise click.UsageError("--rounds and --games exclude each other")
        given, seed = seed, parse_seed(seed, isolate)
        move_timeout = isolation(isolate, move_timeout, given, scheduler, strict_isolation)
        if isolate:
            rules = parse_rules(rules_name, rule_options)
            return simulate_isolated(rounds, games, strategies, rules, seed, out_dir, batch_size,
                                     overwrite, keep_taken, move_timeout, quiet, fmt)
        spec = RunSpec.make(rounds, games, strategies, parse_rules(rules_name, rule_options),
                            seed, batch_size,       # None: defaults.default
                            keep_taken=keep_taken)
        out_dir = out_dir or default_out(spec)
        check_out_dir(out_dir, overwrite)           # before the workers start
        run = None
    with executor(workers, scheduler, setup=warm_kernels) as ex:    # reached before any write
        run = run or Run.create(out_dir, spec, overwrite=overwrite)
        with run:
            if not quiet:
                on = scheduler or f"{ex.workers} worker thread(s)"
                note(f"run {run.root}  seed {run.spec.seed}  {run.spec.units:,} "
                     f"{'games' if run.spec.games else 'rounds'}  on {on}")
            result = execute(run, None, quiet, ex)
    print_summary(run, result, fmt)
    trusted_note(False, [str(s) for s in run.spec.strategies], quiet)


def simulate_isolated(rounds, games, strategies, rules, seed, out_dir, batch_size, overwrite,
                      keep_taken, move_timeout, quiet, fmt) -> None:
    """`simulate --isolate`: the run played with every user strategy in its
    own processes, held in memory, written when it is over
    (`resume.store_isolated`); the forfeits in its summary and manifest."""
    # imported when the command runs: help and listings stay light
    from ..engine.isolate import Entrants
    from ..runs.resume import store_isolated
    from ..runs.runner import isolated_spec
    with Entrants(rules, move_timeout) as pool:
        spec = isolated_spec(rounds, games, strategies, rules, seed, batch_size, keep_taken, pool)
        out_dir = out_dir or default_out(spec)
        check_out_dir(out_dir, overwrite)
        if not quiet:
            note(f"run {out_dir}  {spec.units:,} {'games' if spec.games else 'rounds'}, "
                 f"user strategies isolated; written when it is over")
        bar = progress(quiet, "simulate", False)
        try:
            with bar:
                task = bar.add_task("", total=spec.units, note="")

                def show(units, rate):
                    bar.update(task, advance=units, note=f"{plural(round(rate), 'round')}/s")
                run, result = store_isolated(out_dir, spec, overwrite, pool, show)
        except KeyboardInterrupt:
            raise Interrupted("interrupted: an isolated run is written only when it is over; "
                              "nothing was saved") from None
    print_summary(run, result, fmt)


def check_out_dir(out_dir: Path, overwrite: bool) -> None:
    """Refuse, before any work, a run folder that cannot be: inside another
    run, holding something (a run only with `overwrite`: `store.claimable`),
    or where no folder can be made."""
    # imported when the command runs: help and listings stay light
    from ..runs.store import claimable
    outside_runs(out_dir, itself=False)
    claimable(out_dir, overwrite)
    check_writable(out_dir, folder=True)


def execute(run, workers: int | None, quiet: bool, scheduler=None) -> dict:
    """`resume.store_batches` of `run` (which holds its lock) with a progress
    bar, SIGTERM taken as Ctrl-C, and what to do next when interrupted."""
    # imported when the command runs: help and listings stay light
    from rich.progress import TextColumn, TimeRemainingColumn

    from ..runs.executors import ClusterError
    from ..runs.resume import store_batches
    spec = run.spec
    bar = progress(quiet, "simulate", False, TextColumn("eta"), TimeRemainingColumn())
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with bar:
            first = compile_note(spec.strategies, spec.rules)
            bar_task = bar.add_task("", total=spec.units, note=first)
            local = scheduler is None or type(scheduler).__name__ == "Threads"
            compiled = _compile(spec) if first and run.n_missing and local else None

            def show(units, rate):
                if rate is None:
                    bar.update(bar_task, completed=units)
                else:
                    bar.update(bar_task, advance=units, note=f"{plural(round(rate), 'round')}/s")
            result = store_batches(run, workers, scheduler, show)
            if compiled is not None:
                result["compile_seconds"] = compiled
            return result
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {_saved(spec, run)}") from None
    except ClusterError as e:                  # a cluster lost in the middle of the run
        raise ClusterError(f"{e}; {_saved(spec, run)}") from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def _compile(spec) -> float:
    """Compile (or load) the run's kernel on one unit of its own, before its
    batches start, so that the rate reported is the simulation's alone;
    the seconds it took (no part is written: a batch is a pure function)."""

    from ..runs.plan import RunSpec
    from ..runs.runner import batch_columns
    start = time.perf_counter()
    batch_columns(RunSpec(spec.rules, spec.strategies, spec.seed, 1, spec.games, 1,
                          spec.keep_taken), 0)
    return time.perf_counter() - start


def _saved(spec, run) -> str:
    # imported when the command runs: help and listings stay light
    from ..runs.store import resume_command
    return (f"{spec.n_batches - run.n_missing:,} of {spec.n_batches:,} batches are saved; "
            f"finish with: {resume_command(run.root, run.stored)}")


def _raise_interrupt(signum, frame):
    """SIGTERM while batches run (also in Python, outside the program)."""
    # imported when the command runs: help and listings stay light
    from ..runs.signals import TERMINATED
    TERMINATED.set()
    raise KeyboardInterrupt


def _ci(d: dict, digits: int = 3) -> str:
    return f"[{d['low']:.{digits}f}, {d['high']:.{digits}f}]"


def print_summary(run, s: dict, fmt: str) -> None:
    # imported when the command runs: help and listings stay light
    from rich.markup import escape
    from rich.table import Table

    from ..analysis.views import category_rows
    from ..runs.parts import side_strategy
    spec = run.spec
    labels = [side_strategy(spec, t) for t in range(spec.rules.n_sides)]
    if fmt == "table":
        labels = [escape(label) for label in labels]
    if fmt == "json":
        click.echo(json.dumps({"run": str(run.root), "seed": spec.seed,
                               **({"isolate": True} if spec.isolate else {}),
                               "strategies": labels, "rules": spec.rules.name, **s}, indent=2),
                   file=results())
        return
    head = (f"{s['rounds']:,} rounds" + (f" in {s['games']:,} games" if "games" in s else "")
            + ("; the run was already complete: nothing simulated, the summary is of its "
               "rounds on disk" if s.get("already_complete") else
               f"; {s['rounds_run']:,} simulated in {s['seconds']:.2f} s "
               f"({plural(round(s['rounds_per_second']), 'round')}/s)") + f"; seed {spec.seed}"
            + (f"; the kernels compiled first, in {s['compile_seconds']:.1f} s, apart from the "
               f"rate" if s.get("compile_seconds") is not None else ""))
    table = Table(title=f"{spec.rules.name}: " + " vs ".join(labels))
    table.add_column("")
    for t, label in enumerate(labels):
        table.add_column(f"side {t}: {label}", justify="right")
    rows = [("round win rate (95% CI)", "round_win")]
    if "games" in s:
        rows.insert(0, ("game win rate (95% CI)", "game_win"))
    for title, key in rows:
        table.add_row(title, *(f"{side[key]['rate']:.4f} {_ci(side[key])}" for side in s["sides"]))
    table.add_row("round tie rate", f"{s['round_tie']['rate']:.4f} {_ci(s['round_tie'])}",
                  *[""] * (len(labels) - 1))
    for key, title in category_rows(s):
        table.add_row(title, *(f"{side[key]['mean']:.4f} ±{side[key]['high'] - side[key]['mean']:.4f}"
                               for side in s["sides"]))
    if spec.isolate:
        from ..analysis.views import forfeits_text
        head += forfeits_text({"isolate": True, "forfeits": s.get("forfeits"),
                               "confinement": s.get("confinement")})
    console = out()
    console.print(table)
    console.print(head, soft_wrap=True, markup=False)


COMMANDS = (simulate,)
