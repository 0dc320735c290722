"""The process's interruptions as events the work looks at: a module of its
own, so that the command line sets its signal handlers without loading the
executors.

    INTERRUPT    a Ctrl-C the program's signal handler could not raise where
                 it arrived (see `scopa_sim.cli`): `executors.stream` raises
                 it as KeyboardInterrupt while it waits for a batch
    TERMINATED   the interruption was SIGTERM (exit 143, not 130)
"""
import threading

INTERRUPT = threading.Event()       # set by a signal handler only: signals are per process
TERMINATED = threading.Event()
