"""The process's interruptions as events the work looks at: a module of its
own, so that the command line sets its signal handlers without loading the
executors.

    INTERRUPT    a Ctrl-C the program's signal handler took (`scopa_sim.cli`),
                 raised where it arrived or not: `executors.stream` raises it
                 (again) as KeyboardInterrupt while it waits for a batch
    TERMINATED   the interruption was SIGTERM (exit 143, not 130)

A process forked from ours (by user code: a multiprocessing pool's worker,
say) starts with Python's SIGTERM, which ends it: `Pool.terminate()` counts
on that. With our handler inherited, a SIGTERM that came before the child
ran Python code was dropped (CPython clears the signals caught then), the
worker lived on, and the pool, so the command, waited for it forever; one
that came later raised KeyboardInterrupt wherever the worker was. So while
the process forks, SIGTERM waits (blocked in the forking thread); the child
takes the default, then lets it through.
"""
import os
import signal
import threading

INTERRUPT = threading.Event()       # set by a signal handler only: signals are per process
TERMINATED = threading.Event()


def _ours() -> bool:
    """Whether SIGTERM's handler is one of the program's."""
    handler = signal.getsignal(signal.SIGTERM)
    return getattr(handler, "__module__", "").partition(".")[0] == "scopa_sim"


def _hold() -> None:
    if _ours():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})


def _release() -> None:
    if _ours():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _release_as_python() -> None:
    if _ours():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


os.register_at_fork(before=_hold, after_in_parent=_release, after_in_child=_release_as_python)
