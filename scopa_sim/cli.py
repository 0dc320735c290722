"""The `scopa-sim` command line: a thin layer over the library.

Results go to stdout, progress and errors to stderr. Bad input is one line,
`error: ...`, and exit code 2; an interrupted run exits 130.
"""
from __future__ import annotations

import json
import re
import secrets
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table

from .analysis.summary import Tally
from .rules import PRESETS, Rules, parse_value
from .runner import DEFAULT_BATCH, RunSpec, columns, default_workers, run_batch
from .store import Run, StoreError, side_strategy
from .strategies import REGISTRY

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class Cli(click.Group):
    """A group whose errors are one line on stderr with exit code 2."""

    def main(self, args=None, prog_name=None, **extra):
        try:
            return super().main(args, prog_name or "scopa-sim", standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"error: {e.format_message()}", err=True)
            sys.exit(2)
        except (ValueError, StoreError) as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(2)
        except (click.exceptions.Abort, KeyboardInterrupt):
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="scopa-sim")
def main():
    """scopa-sim: fast Monte Carlo simulation and strategy analysis for Scopa.

    Start with `scopa-sim simulate --help`.
    """


# ---- shared option helpers -----------------------------------------------
def parse_rule_options(rules: str, options: tuple[str, ...]) -> Rules:
    """A preset with `NAME=VALUE` changes (ints, booleans, comma lists)."""
    base = Rules.resolve(rules)
    changes = {}
    for item in options:
        name, eq, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not eq:
            raise ValueError(f"--rule takes NAME=VALUE, e.g. target=21 (got {item!r})")
        changes[name] = parse_value(value.strip())
    return base.with_options(**changes) if changes else base


def default_out(spec: RunSpec) -> Path:
    names = "-vs-".join(re.sub(r"[^A-Za-z0-9]+", "_", str(s)) for s in spec.strategies)
    kind = "g" if spec.games else "r"
    return Path("runs") / f"{names}-{spec.rules.name}-{kind}{spec.units}-s{spec.seed}"


# ---- simulate ------------------------------------------------------------
RUN_OPTIONS = ("strategies", "rules_name", "rule_options", "rounds", "games", "seed", "out_dir",
               "batch_size", "overwrite")              # fixed by the run: not with --resume

@main.command()
@click.option("--strategies", "-s", default="random,greedy", show_default=True,
              help="One strategy per side (or per seat), comma-separated; parameters as "
                   "name:key=value,key=value.")
@click.option("--rules", "-r", "rules_name", default="scopa", show_default=True,
              help="Rules preset (see `scopa-sim rules`).")
@click.option("--rule", "rule_options", multiple=True, metavar="NAME=VALUE",
              help="Change one rule of the preset, e.g. --rule target=21 (repeatable).")
@click.option("--rounds", type=int, help="Number of rounds to simulate.")
@click.option("--games", type=int, help="Number of games (to the target score) to simulate.")
@click.option("--seed", type=str, help="Run seed, 0..2**64-1 (default: a fresh one, printed).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: runs/<strategies>-<rules>-<count>-s<seed>).")
@click.option("--workers", "-w", type=int, help="Worker threads (default: all cores).")
@click.option("--batch-size", type=int,
              help=f"Rounds (or games) per batch and part file (default {DEFAULT_BATCH:,} "
                   f"rounds, {DEFAULT_BATCH // 4:,} games).")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Finish an interrupted run in this folder (other run options not allowed).")
@click.option("--overwrite", is_flag=True, help="Replace an existing run in --out.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="Summary format on stdout.")
@click.pass_context
def simulate(ctx, strategies, rules_name, rule_options, rounds, games, seed, out_dir, workers,
             batch_size, resume_dir, overwrite, quiet, fmt):
    """Simulate rounds or games into a Parquet dataset and print a summary.

    \b
    Examples:
      scopa-sim simulate --rounds 1000000 --strategies random,greedy --seed 1
      scopa-sim simulate --games 10000 --strategies greedy,greedy --rule target=21
      scopa-sim simulate --resume runs/random-vs-greedy-scopa-r1000000-s1
    """
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError("--workers must be at least 1")
    if resume_dir is not None:
        given = [p.opts[0] for p in ctx.command.params if p.name in RUN_OPTIONS
                 and ctx.get_parameter_source(p.name) == click.core.ParameterSource.COMMANDLINE]
        if given:
            raise click.UsageError(f"--resume takes the run's own settings; drop {', '.join(given)}")
        run = Run.open(resume_dir)
    else:
        if rounds is None and games is None:
            raise click.UsageError("say how much to simulate: --rounds N or --games N")
        if rounds is not None and games is not None:
            raise click.UsageError("--rounds and --games exclude each other")
        if seed is None:
            seed = secrets.randbits(63)
        elif not re.fullmatch(r"\d+", seed.strip()) or int(seed) >= 2**64:
            raise click.BadParameter(f"{seed!r} is not a whole number 0..2**64-1",
                                     param_hint="--seed")
        rules = parse_rule_options(rules_name, rule_options)
        size = (batch_size if batch_size is not None       # --batch-size 0 is an error
                else DEFAULT_BATCH if games is None else DEFAULT_BATCH // 4)
        spec = RunSpec.make(rounds, games, strategies, rules, int(seed), size)
        run = Run.create(out_dir or default_out(spec), spec, overwrite=overwrite)
    if not quiet:
        err.print(f"run {run.root}  seed {run.spec.seed}  {run.spec.units:,} "
                  f"{'games' if run.spec.games else 'rounds'}  {workers} worker(s)",
                  soft_wrap=True, markup=False)      # no wrapping, no markup: paths verbatim
    result = execute(run, workers, quiet)
    print_summary(run, result, fmt)


def execute(run: Run, workers: int, quiet: bool) -> dict:
    """Run the missing batches of `run`, tallying every batch; returns the summary."""
    spec = run.spec
    run.clean_temporaries()
    tally = Tally(spec.rules.n_sides)
    todo = run.missing_batches()
    done_units = 0
    for b, df in run.batches():                        # resumed: count what is on disk
        tally.add(df)
        done_units += spec.batch_range(b)[1]
    unit = "games" if spec.games else "rounds"
    progress = Progress(TextColumn("[bold]simulate"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                        TextColumn("eta"), TimeRemainingColumn(),
                        console=err, disable=quiet, transient=False)
    start = time.perf_counter()
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    rounds_run = 0

    def task(b):
        cols = columns(spec, *run_batch(spec, b))
        run.write_batch(b, cols)
        return b, cols

    with progress, ThreadPoolExecutor(max_workers=workers) as pool:
        bar = progress.add_task("", total=spec.units, completed=done_units, rate="")
        pending, queue = set(), list(reversed(todo))
        try:
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    pending.add(pool.submit(task, queue.pop()))
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    b, cols = f.result()
                    tally.add(cols)
                    rounds_run += len(cols["round"])
                    rate = rounds_run / (time.perf_counter() - start)
                    progress.update(bar, advance=spec.batch_range(b)[1],
                                    rate=f"{rate:,.0f} rounds/s")
        except KeyboardInterrupt:
            for f in pending:
                f.cancel()
            wait(pending)
            run.clean_temporaries()
            left = len(run.missing_batches())
            err.print(f"interrupted: {spec.n_batches - left} of {spec.n_batches} batches are "
                      f"saved; finish with: scopa-sim simulate --resume {run.root}",
                      soft_wrap=True, markup=False)
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)
    elapsed = time.perf_counter() - start
    run.finish(elapsed, workers)
    summary = tally.result()
    summary.update(unit=unit, seconds=elapsed, rounds_run=rounds_run,
                   rounds_per_second=rounds_run / elapsed if elapsed > 0 else float("nan"))
    return summary


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _ci(d: dict, digits: int = 3) -> str:
    return f"[{d['low']:.{digits}f}, {d['high']:.{digits}f}]"


def print_summary(run: Run, s: dict, fmt: str) -> None:
    spec = run.spec
    labels = [side_strategy(spec, t) for t in range(spec.rules.n_sides)]
    if fmt == "json":
        click.echo(json.dumps({"run": str(run.root), "seed": spec.seed,
                               "strategies": labels, "rules": spec.rules.name, **s}, indent=2))
        return
    head = (f"{s['rounds']:,} rounds" + (f" in {s['games']:,} games" if "games" in s else "")
            + f"; {s['rounds_run']:,} simulated in {s['seconds']:.2f} s "
            f"({s['rounds_per_second']:,.0f} rounds/s); seed {spec.seed}")
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
    for key, title in (("points", "points per round"), ("pt_cards", "  most cards"),
                       ("pt_coins", "  most coins"), ("pt_settebello", "  settebello"),
                       ("pt_primiera", "  primiera"), ("scopas", "  scopas")):
        table.add_row(title, *(f"{side[key]['mean']:.4f} ±{side[key]['high'] - side[key]['mean']:.4f}"
                               for side in s["sides"]))
    out.print(table)
    out.print(head, soft_wrap=True)


# ---- listings ------------------------------------------------------------
@main.command("rules")
def rules_cmd():
    """List the rules presets, their settings, and the rule options.

    \b
    Any option changes any preset: --rule NAME=VALUE (repeatable), e.g.
      scopa-sim simulate --rules scopa-3 --rule target=8 --rounds 10000
    Every preset and option, exactly: docs/VARIANTS.md.
    """
    from .rules import DESCRIPTIONS, FLAGS, SETTINGS

    table = Table(title="rules presets (--rules NAME)", show_lines=True)
    table.add_column("preset", no_wrap=True)
    table.add_column("settings; description")
    for name, r in PRESETS.items():
        table.add_row(name, f"{DESCRIPTIONS.get(name, '')}\n[dim]players={r.players} "
                            f"teams={','.join(map(str, r.teams))} hand_size={r.hand_size} "
                            f"table_size={r.table_size} refill={str(r.refill).lower()} "
                            f"target={r.target}[/dim]")
    out.print(table)
    options = Table(title="rule options (--rule NAME=VALUE, any preset; the rules are then "
                          "named e.g. scopa+fewest_cards)", show_lines=True)
    options.add_column("option", no_wrap=True)
    options.add_column("default", overflow="fold")
    options.add_column("meaning [dim]- source[/dim]")
    default = Rules()
    for name, (meaning, source) in FLAGS.items():
        value = getattr(default, name)
        shown = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value).lower()
        options.add_row(name, shown, f"{meaning} [dim]- {source}[/dim]")
    for name, meaning in SETTINGS.items():
        options.add_row(name, "preset", meaning)
    out.print(options)


@main.command("strategies")
def strategies_cmd():
    """List the strategies, their parameters and defaults."""
    table = Table(title="strategies (write name:key=value,key=value)")
    for col in ("strategy", "description", "parameters (defaults)"):
        table.add_column(col)
    for s in REGISTRY.values():
        table.add_row(s.name, s.description, s.defaults())
    out.print(table)


from .cli_analysis import register  # noqa: E402  (analysis commands live apart)

register(main)

if __name__ == "__main__":
    main()
