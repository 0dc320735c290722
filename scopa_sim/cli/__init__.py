"""The `scopa-sim` command line: a thin layer over the library.

    __init__   the `main` group: one error line and exit 2 for bad input,
               exit 130 with one line on Ctrl-C, 143 on SIGTERM
    options    shared options and their parsing (rules, seed, strategies,
               format), the consoles, progress bars, result output
    simulate   simulate (and the summary it prints)
    listings   rules, strategies
    analysis   compare, tournament, report, ask, plot
    advise     advise
    records    record, review
    play       play (a game against the engine)
    almanac    almanac
    train      train (the net strategy's network)
    tune       tune (a strategy's parameters, by CMA-ES)
    leaks      leaks (where a strategy loses points, by situation)

Results go to stdout, progress and errors to stderr. Modules import click
only; each command imports numba, pandas or pyarrow when it runs, so help
and listings answer at once.
"""
from __future__ import annotations

import atexit
import functools
import os
import pickle
import signal
import sys
import threading


def run() -> None:
    """The `scopa-sim` program (the console script's entry point)."""
    main.standalone = True
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_terminate)
    try:
        main()
    finally:
        flush_results()
    _done()


def _done() -> None:
    """The command is done: end the process as Python would, atexit functions
    and all, but without tearing the interpreter down, which frees Numba's
    compiled code and every module for no one (0.2 s of CPU, a fifth of a
    warm `simulate`). With a thread still running, the ordinary exit (it
    waits for the thread)."""
    if any(t.is_alive() and not t.daemon and t is not threading.main_thread()
           for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    flush_results()
    sys.stderr.flush()
    os._exit(0)


def _interrupted_while_loading(signum, frame):
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()
    os._exit(130)       # nothing is written while loading; an import may catch SystemExit


# Ctrl-C while the command line loads is one line too; `main` installs
# `_on_interrupt` (KeyboardInterrupt, as Python's own handler) before any
# command runs. An ignored SIGINT (a background job) stays ignored.
_LOADING = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _LOADING:
    signal.signal(signal.SIGINT, _interrupted_while_loading)

import click  # noqa: E402

from ..runs.signals import INTERRUPT, TERMINATED  # noqa: E402
from .options import Answered, Interrupted, flush_results, guard_output  # noqa: E402


def _on_interrupt(signum, frame):
    """Ctrl-C: noted (`signals.INTERRUPT`: the work raises it again where it
    next waits for a batch) and raised as KeyboardInterrupt. A library may
    swallow the exception (a bare `except:`, a generator finalised then, C
    code that clears errors); the note stops the run all the same. While
    Numba compiles in this thread the signal is often handled inside one of
    LLVM's callbacks, where ctypes would print the exception and drop it:
    there it is only noted."""
    INTERRUPT.set()
    if frame is not None and "llvmlite" in frame.f_code.co_filename:
        return
    raise KeyboardInterrupt


def _on_terminate(signum, frame):
    """SIGTERM: as Ctrl-C, but the program says `terminated` and exits 143
    (128 + 15, the convention)."""
    TERMINATED.set()
    _on_interrupt(signum, frame)


def _from_interrupt(e: BaseException) -> bool:
    """Whether Ctrl-C raised `e`: a KeyboardInterrupt in its chain of causes
    (Python wraps one raised in `__set_name__`, for one, in a RuntimeError)."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


MAX_ERROR = 2_000       # characters of an error line, whatever it echoes


class Cli(click.Group):
    """A group whose errors are one line on stderr with exit code 2, and
    Ctrl-C one line with exit code 130."""

    standalone = False           # True when run as the `scopa-sim` program

    def main(self, args=None, prog_name=None, **extra):
        TERMINATED.clear()
        INTERRUPT.clear()
        try:
            if _LOADING:
                signal.signal(signal.SIGINT, _on_interrupt)
            return super().main(args, prog_name or "scopa-sim", standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except Answered as e:
            self._leave(e.code, str(e))
        except click.ClickException as e:
            self._leave(2, "error: " + e.format_message())
        except ValueError as e:                # bad input, bad runs (store.StoreError)
            self._leave(2, "error: " + str(e))
        except OSError as e:                   # a file we were told to write or read
            self._leave(2, "error: " + (f"{e.filename}: {e.strerror}" if e.filename else str(e)))
        except (pickle.UnpicklingError, EOFError) as e:     # a damaged file of Numba's cache
            # imported when the command runs: help and listings stay light
            from ..engine.compiled import CACHE_DIR
            self._leave(2, f"error: a damaged cache file ({e}): delete {CACHE_DIR} and run again")
        except (Interrupted, click.exceptions.Abort, KeyboardInterrupt) as e:
            self._leave(130, isinstance(e, Interrupted) and str(e) or "interrupted")
        except Exception as e:
            if not _from_interrupt(e):
                raise
            self._leave(130, "interrupted")     # e.g. Ctrl-C in a class body while importing
        finally:
            INTERRUPT.clear()                   # the command is over (in-process: the next one)

    def _leave(self, code: int, message: str):
        """One line on stderr (user text on one line, cut at MAX_ERROR), then exit.
        The work is unwound by now; the program leaves without waiting for
        threads still in a batch (a user strategy may never return). An
        interruption by SIGTERM is `terminated` and exit 143."""
        if code == 130 and TERMINATED.is_set():
            code, message = 143, "terminated" + message.removeprefix("interrupted")
        from ..engine.checks import shown          # on the way out: help stays light
        click.echo(shown(message, MAX_ERROR), err=True)
        if self.standalone:
            flush_results()
            sys.stderr.flush()
            os._exit(code)
        sys.exit(code)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None


@click.group(cls=Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="scopa-sim")
def main():
    """scopa-sim: fast Monte Carlo simulation and strategy analysis for Scopa.

    Start with `scopa-sim simulate --help`.
    """


def _guarded(callback):
    """A command's callback that, in the program, first sends everything
    but its results to stderr (`options.guard_output`): options are parsed
    by then, so `--help` and usage errors are as click makes them."""
    @functools.wraps(callback)
    def guarded(*args, **kwargs):
        if main.standalone:
            guard_output()
        return callback(*args, **kwargs)
    return guarded


def _register() -> None:
    # imported when the command runs: help and listings stay light
    from . import (advise, almanac, analysis, leaks, listings, play, records, simulate, train,
                   tune, verify)
    for module in (simulate, listings, analysis, advise, records, play, almanac, train, tune,
                   leaks, verify):
        for command in module.COMMANDS:
            command.callback = _guarded(command.callback)
            main.add_command(command)


_register()
