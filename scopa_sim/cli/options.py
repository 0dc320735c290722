"""What the commands share: options and their parsing (rules, seed, workers
and where the batches run, output format), the consoles, progress bars and
result output.

User text (paths, expressions, strategy names) is never read as rich markup.

Results go to `results()`, never to whatever `sys.stdout` is: the program
(`scopa-sim`) calls `guard_output` before a command runs, which keeps a copy
of file descriptor 1 for the results and points descriptor 1 at stderr, so
that anything user code prints (a strategy file at import, a plain-Python
strategy, Numba's `print` in jitted code, a process it starts) goes to
stderr, never into a JSON document or a table on stdout. A process forked by
user code gets the copy pointed at stderr too (`os.register_at_fork`).
"""
from __future__ import annotations

import os
import re
import secrets
import stat
import sys
import tempfile
from functools import cache
from pathlib import Path

import click

from ..defaults import DUPLICATE_DEALS, DUPLICATE_GAMES, MAX

WIDTH = 120              # table width when stdout is not a terminal
_RESULTS: list = []      # the results stream on the kept copy of stdout, once guarded


class Interrupted(Exception):
    """Ctrl-C (or SIGTERM) during a command, carried past click's own handler
    (which would print an extra blank line); its text, if any, is the line
    printed (what was saved and how to go on)."""


class Answered(Exception):
    """A command's negative answer, not an error (e.g. `verify`: a part
    differs): its text is the one line printed, `code` the exit status."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


def guard_output() -> None:
    """Keep file descriptor 1 for results (`results()`) and point it at
    stderr for everything else: Python's `sys.stdout`, C's stdout, the
    children this process starts. Once per process; nothing if either
    descriptor is closed."""
    if _RESULTS:
        return
    sys.stdout.flush()
    try:
        kept = os.dup(1)                       # not inherited across exec (PEP 446)
        os.dup2(2, 1)
    except OSError:
        return
    _RESULTS.append(os.fdopen(kept, "w", buffering=1, encoding=sys.stdout.encoding or "utf-8",
                              errors=sys.stdout.errors or "strict"))
    sys.stdout.reconfigure(line_buffering=True)        # user prints, in order with stderr
    os.register_at_fork(after_in_child=lambda: os.dup2(2, kept))


def results():
    """The stream for results: stdout as the command found it."""
    return _RESULTS[0] if _RESULTS else sys.stdout


def symbols() -> bool:
    """Whether results show cards with suit symbols (7♦): on a terminal that
    takes UTF-8; letters (7d) elsewhere, so piped text stays plain ASCII."""
    stream = results()
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return stream.isatty() and encoding == "utf8"


def flush_results() -> None:
    for stream in (*_RESULTS, sys.stdout):
        try:
            stream.flush()
        except (OSError, ValueError):             # a closed pipe: nothing more to say
            pass


def out():
    """A console on `results()` (tables, lines of results)."""
    # imported when the command runs: help and listings stay light
    from rich.console import Console
    return Console(file=results(), highlight=False)


@cache
def err():
    """The stderr console (progress, notes), made on first use."""
    # imported when the command runs: help and listings stay light
    from rich.console import Console
    return Console(stderr=True, highlight=False)


def note(text: str) -> None:
    """A line on stderr, printed verbatim (no markup, no wrapping)."""
    err().print(text, markup=False, soft_wrap=True)


def rules_options(f):
    f = click.option("--rule", "rule_options", multiple=True, metavar="NAME=VALUE",
                     help="Change one rule of the preset, e.g. --rule target=21 (repeatable).")(f)
    return click.option("--rules", "-r", "rules_name", default="scopa", show_default=True,
                        help="Rules preset (see `scopa-sim rules`).")(f)


def seed_option(f):
    return click.option("--seed", type=str,
                        help="Seed, 0..2**64-1 (default: a fresh one, shown in the result).")(f)


def workers_option(f):
    return click.option("--workers", "-w", type=click.IntRange(1, 1024),
                        help="Worker threads (default: all cores).")(f)


def cluster_options(f):
    """--scheduler ADDRESS (or SCOPA_SIM_SCHEDULER) and --cluster local:N;
    the command calls `where(scheduler, cluster)` for the one value."""
    f = click.option("--cluster", metavar="local:N",
                     help="Start a local Dask cluster of N worker processes for this "
                          "command.")(f)
    return click.option("--scheduler", metavar="tcp://HOST:PORT",
                        help="Run the batches on this Dask scheduler's cluster (or set "
                             "SCOPA_SIM_SCHEDULER); default: threads of this process.")(f)


def where(scheduler: str | None, cluster: str | None) -> str | None:
    """The scheduler of --scheduler / --cluster (None: the embedded threads)."""
    if scheduler and cluster:
        raise click.UsageError("--scheduler and --cluster exclude each other")
    if cluster is not None and not cluster.startswith("local:"):
        raise click.BadParameter(f"{cluster!r}: write local:N", param_hint="--cluster")
    return scheduler or cluster


def run_options(f):
    f = cluster_options(seed_option(workers_option(f)))
    return click.option("--batch-size", type=click.IntRange(1, MAX),
                        help=f"Deals (or games) per batch (default {DUPLICATE_DEALS:,} deals, "
                             f"{DUPLICATE_GAMES:,} games).")(f)


FORMAT = click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]),
                      default="table", show_default=True, help="Result format on stdout.")
QUIET = click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")


def text_or_json(help: str = "Result format on stdout."):
    """The --format option of a command that prints a text or one JSON object."""
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                        show_default=True, help=help)


def parse_seed(seed: str | None, isolate: bool = False) -> int:
    """A seed as written, in ASCII digits (a fresh random one if None: 63
    bits, or with `isolate` a secret of 128); up to 2**128-1 with
    `isolate`, whose runs alone deal such seeds."""
    bits = 128 if isolate else 64
    if seed is None:
        return secrets.randbits(128 if isolate else 63)
    if not re.fullmatch(r"\s*[0-9]{1,40}\s*", seed, re.ASCII) or int(seed) >= 2**bits:
        wide = "" if isolate or not _has_isolate() or not re.fullmatch(
            r"\s*[0-9]+\s*", seed, re.ASCII) else " (up to 2**128-1 with --isolate)"
        raise click.BadParameter(f"{seed!r} is not a whole number 0..2**{bits}-1{wide}",
                                 param_hint="--seed")
    return int(seed)


def _has_isolate() -> bool:
    """Whether the command running has --isolate (an error names only its own options)."""
    ctx = click.get_current_context(silent=True)
    return ctx is not None and any(p.name == "isolate" for p in ctx.command.params)


TRUSTED = ("note: user strategies run in this process as trusted code, able to read and change "
           "the game; use --isolate for entrants you do not trust")


def isolate_options(f):
    """--isolate, --strict-isolation and --move-timeout (see `engine.isolate`)."""
    f = click.option("--strict-isolation", is_flag=True,
                     help="With --isolate: refuse to run unless every layer of the kernel's "
                          "confinement holds (namespaces, Landlock with signal scoping, "
                          "rlimits, a runner that is not dumpable).")(f)
    f = click.option("--move-timeout", type=click.FloatRange(0, 3600, min_open=True),
                     metavar="SECONDS",
                     help="With --isolate: seconds an entrant has for a move (default 1); "
                          "one that takes longer forfeits the round.")(f)
    return click.option("--isolate", is_flag=True,
                        help="Play every user strategy in a process of its own, with a secret "
                             "128-bit seed unless --seed is given: a fair contest of entrants "
                             "nobody vouches for (docs/STRATEGIES.md), each confined by the "
                             "kernel before its code loads (a line names any layer missing). A "
                             "crash, a timeout or a bad answer forfeits the entrant's round.")(f)


def isolation(isolate: bool, move_timeout, seed: str | None, scheduler=None,
              strict: bool = False) -> float:
    """Check --isolate's company, name in one line any confinement missing
    (refused with `strict`), and warn of an isolated run with a known seed;
    the move timeout in seconds."""
    # imported when the command runs: help and listings stay light
    from ..engine.isolate import MOVE_TIMEOUT
    if not isolate:
        if move_timeout is not None or strict:
            which = "--move-timeout" if move_timeout is not None else "--strict-isolation"
            raise click.UsageError(f"{which} goes with --isolate")
        return MOVE_TIMEOUT
    if scheduler is not None:
        raise click.UsageError("--isolate runs on this machine: drop --scheduler/--cluster")
    from ..engine import confine
    gaps = confine.missing(confine.held(confine.available(), True))
    if gaps and strict:
        raise click.UsageError(f"--strict-isolation: this system lacks {gaps}")
    if gaps:
        note(f"warning: entrants run without {gaps}")
    if seed is not None:
        note("warning: with --seed the deal is no secret: an entrant who knows or guesses the "
             "seed can deal every hand again; leave --seed out for a secret one")
    return MOVE_TIMEOUT if move_timeout is None else move_timeout


def trusted_note(isolate: bool, texts, quiet: bool) -> None:
    """The trusted-code line, when user strategies ran in this process
    (printed once the run is over: an error stays one line)."""
    if not isolate and not quiet and any(_names_user(t) for t in texts):
        note(TRUSTED)


def _names_user(text: str) -> bool:
    """Whether a strategy text names a user strategy, itself or as a parameter."""
    from ..engine.user import is_reference
    return is_reference(text) or any(is_reference(v.partition("=")[2])
                                     for v in text.split(",") if "=" in v)


def parse_rules(rules: str, options: tuple[str, ...]):
    """A preset (`--rules`, maybe `preset+option+...`) with the `--rule`
    changes: one reader for both (`Rules.with_changes`)."""
    # imported when the command runs: help and listings stay light
    from ..engine.rules import Rules
    return Rules.with_changes(rules, options)


def emit(data: dict, view, fmt: str) -> None:
    """Print a result: rich tables, JSON (the plain data) or CSV (records)."""
    # imported when the command runs: help and listings stay light
    from rich.console import Console

    from ..analysis.output import print_tables, to_csv, to_json
    stream = results()
    if fmt == "json":
        click.echo(to_json(data), file=stream)
        return
    sections, records = view(data)
    if fmt == "csv":
        click.echo(to_csv(records), nl=False, file=stream)
    else:
        print_tables(sections, Console(file=stream, highlight=False,
                                       width=None if stream.isatty() else WIDTH))


def progress(quiet: bool, label: str, transient: bool = True, *columns):
    """A progress bar on stderr: label, bar, done/total, a `note` field, time."""
    # imported when the command runs: help and listings stay light
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn)
    label = label.replace("{", "{{").replace("}", "}}")           # verbatim, not a format
    return Progress(TextColumn(label, style="bold", markup=False), BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[note]}", markup=False), TimeElapsedColumn(),
                    *columns, console=err(), transient=transient,
                    disable=quiet or (transient and not err().is_terminal))


COMPILING = "compiling kernels, first run only"


def compile_note(strategies, rules) -> str:
    """A progress bar's first note: `COMPILING` when the kernel these
    strategies (one per seat, or per side) run in is not in Numba's disk
    cache yet (it compiles first: tens of seconds), else ''."""
    # imported when the command runs: help and listings stay light
    from ..engine.compiled import needs_compile
    return COMPILING if needs_compile(strategies, rules) else ""


OVERWRITE = click.option("--overwrite", is_flag=True,
                         help="Replace --out files that exist (refused otherwise).")


def check_out(paths, overwrite: bool | None = None, folder: bool = False,
              option: str = "--out") -> None:
    """Every command's check of where it writes, before any work: each path
    outside any run (`outside_runs`), writable (`check_writable`), and new
    unless `overwrite` (`new_files`; None: the command checks that itself).
    Errors name the path as given and advise `option`."""
    for path in paths:
        outside_runs(path, option=option)
        check_writable(path, folder)
    if overwrite is not None:
        new_files(paths, overwrite, option)


def new_files(paths, overwrite: bool, option: str = "--out") -> None:
    """Refuse, before any work, output files that exist, unless `overwrite`;
    a symbolic link always (writing through it would change the file it
    points to, replacing it would not write where the user meant)."""
    for path in map(Path, paths):
        refuse_special(path)
        if overwrite and path.is_symlink():
            raise ValueError(f"{path} is a symbolic link: give the file it points to, or "
                             f"choose another {option}")
        if not overwrite and (path.exists() or path.is_symlink()):
            raise ValueError(f"{path} already exists: choose another {option}, or pass "
                             f"--overwrite")


class OutPath(click.Path):
    """An --out path, never "" (which would name the current folder): a
    file (`folder=False`) or a folder; `example` shows one in the error.
    What is there is the command's to check (`check_writable`)."""

    def __init__(self, folder: bool = False, example: str | None = None):
        super().__init__(path_type=Path)
        self.folder, self.example = folder, example or ("results" if folder else "results.md")

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail(f"{value!r} is no path: name a {'folder' if self.folder else 'file'}, "
                      f"e.g. {param.opts[0] if param else '--out'} {self.example}", param, ctx)
        return super().convert(value, param, ctx)


def check_writable(path, folder: bool = False) -> None:
    """Refuse, before any work, an output that cannot be written, named as
    given: "", a folder where a file goes (a file where a folder goes), or
    a place whose nearest existing folder takes no new file (tried with a
    temporary file there, removed at once)."""
    if not str(path).strip():
        raise ValueError(f"{str(path)!r} is no path: name a {'folder' if folder else 'file'}")
    path = Path(path)
    refuse_special(path)
    if folder and (path.exists() or path.is_symlink()) and not path.is_dir():
        what = "a symbolic link" if path.is_symlink() else "a file"
        raise ValueError(f"cannot write {path}: it is {what}, not a folder")
    if not folder and path.is_dir():
        raise ValueError(f"cannot write {path}: it is a folder")
    near = path if folder else path.parent
    while not near.exists() and not near.is_symlink() and near != near.parent:
        near = near.parent
    cannot = "cannot create" if folder and near != path else "cannot write"
    if not near.is_dir():
        what = "a symbolic link to nothing" if near.is_symlink() else "a file"
        raise ValueError(f"{cannot} {path}: {near} is {what}, not a folder")
    try:
        with tempfile.TemporaryFile(dir=near):
            pass
    except OSError as e:
        raise ValueError(f"{cannot} {path}: {near} takes no new file "
                         f"({e.strerror or e})") from None


_SPECIAL = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"))


def refuse_special(path) -> None:
    """Refuse, with or without --overwrite, a path that is there and is
    neither a regular file, a folder nor a link (checked apart): replacing a
    device, a FIFO or a socket with a file, or writing through it, is never
    what the user meant (`/dev/null` stays /dev/null)."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):                 # not there (or a name too long): not ours
        return
    for kind, what in _SPECIAL:
        if kind(mode):
            raise ValueError(f"cannot write {path}: it is {what}, not a regular file")


def outside_runs(path, itself: bool = True, option: str = "--out") -> None:
    """Refuse, before any work, an output inside a scopa-sim run folder
    (one holding a manifest and a rounds folder): a file there makes the run
    a folder that is not only a run, a folder there a stray in its tables.
    The folders above `path` are looked at as written and with links
    resolved; with `itself`, `path` too. The error advises `option`."""

    from ..runs.store import MANIFEST
    given, path = path, Path(os.path.abspath(Path(path).expanduser()))
    seen = [*([path] if itself else []), *path.parents]
    try:
        real = path.resolve() if itself else path.parent.resolve() / path.name
        seen += [*([real] if itself else []), *real.parents]
    except (OSError, RuntimeError):              # a loop of links: the folders as written
        pass
    for folder in seen:
        try:
            inside = (folder / MANIFEST).is_file() and (folder / "rounds").is_dir()
        except OSError as e:                      # a name too long: named as given
            raise ValueError(f"cannot write {given}: {e.strerror or e}") from None
        if inside:
            raise ValueError(f"{given} is inside the scopa-sim run {folder}: writing there "
                             f"breaks the run; choose a place outside it for {option}")

