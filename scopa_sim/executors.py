"""Where batches run: an embedded thread pool (one machine, the default) or
a Dask cluster, behind one small protocol, and `stream`, which runs a batch
task on either and yields the results in batch order.

    executor.workers             how many batches run at once
    executor.submit(fn, *args)   a future with .result() and .cancel()
    executor.close(wait=True)    wait=False: leave the batches at work running

A batch task is a pure function of its arguments (a run spec and a batch
index): it may run on any worker, and twice (Dask retries the tasks of a
worker that died) without harm, because the consumer, not the task, writes
results, once per batch, in batch order.

`INTERRUPT` is a Ctrl-C the program's signal handler could not raise where
it arrived (see `scopa_sim.cli`): `stream` raises it as KeyboardInterrupt
while it waits for a batch.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

SCHEDULER_ENV = "SCOPA_SIM_SCHEDULER"
INTERRUPT = threading.Event()       # set by a signal handler only: signals are per process
POLL = 0.25                         # seconds between looks at INTERRUPT while a batch runs


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Threads:
    """The embedded pool: batches on threads of this process (the kernels
    release the GIL). No Dask process is started."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers)

    def submit(self, fn: Callable, *args):
        return self._pool.submit(fn, *args)

    def close(self, wait: bool = True) -> None:
        """Cancel what has not started; with `wait`, wait for what has."""
        self._pool.shutdown(wait=wait, cancel_futures=True)


class Dask:
    """Batches as Dask tasks on a `distributed.Client`'s cluster; one batch
    at a time per worker thread (start workers with `--nthreads 1`: the
    number of worker processes sets the parallelism). The kernels are
    compiled, or loaded from Numba's cache, once per worker process."""

    def __init__(self, client, owned: bool = False, cluster=None, setup: Callable | None = None):
        self.client, self._owned, self._cluster = client, owned, cluster
        if setup is not None:
            from distributed.diagnostics.plugin import WorkerPlugin

            class Setup(WorkerPlugin):
                name = "scopa-sim-setup"

                def __init__(self, call: Callable):
                    self.call = call

                def setup(self, worker):
                    self.call()

            client.register_plugin(Setup(setup))
        self.workers = max(1, sum(client.nthreads().values()))

    def submit(self, fn: Callable, *args):
        """`fn(*args)` as a task. The call travels as bytes, unpickled by the
        worker that runs it: unpickling loads a user strategy from its file
        (`user.UserSpec`), and the scheduler, which unpickles a task's
        arguments, may not have the file, or may find it changed; the worker
        then raises the one-line error as the task's."""
        import cloudpickle
        return self.client.submit(_call, cloudpickle.dumps((fn, args)), pure=False)

    def close(self, wait: bool = True) -> None:
        if self._owned:                          # ours: made for this command
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def _call(payload: bytes):
    """A `Dask.submit` task: the pickled call, made."""
    import cloudpickle
    fn, args = cloudpickle.loads(payload)
    return fn(*args)


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (a process of its own, on our
    stderr) ignoring UserWarning: when Ctrl-C ends the program while a local
    cluster starts, it would warn of leaked semaphores after `interrupted`.
    It takes its warning filters from `sys.warnoptions` when it starts."""
    from multiprocessing import resource_tracker
    saved = list(sys.warnoptions)
    sys.warnoptions.append("ignore::UserWarning")
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions[:] = saved


def parse_scheduler(scheduler) -> tuple[str, Any]:
    """("threads", None), ("local", N) for `local:N`, ("address", text) for
    a scheduler address, or ("client", client) for a `distributed.Client`."""
    if scheduler is None or scheduler == "":
        return "threads", None
    if isinstance(scheduler, str):
        text = scheduler.strip()
        if text.startswith("local:"):
            n = text[6:]
            if not n.isdigit() or not 1 <= int(n) <= 256:
                raise ValueError(f"--cluster takes local:N with N workers 1..256, not {text!r}")
            return "local", int(n)
        if "://" not in text or any(c.isspace() for c in text):
            raise ValueError(f"a scheduler address looks like tcp://HOST:PORT, not {text!r}")
        return "address", text
    if type(scheduler).__name__ == "Client" and hasattr(scheduler, "submit"):
        return "client", scheduler
    raise ValueError(f"scheduler must be an address (tcp://HOST:PORT), local:N or a "
                     f"distributed.Client, not {scheduler!r}")


@contextmanager
def executor(workers: int | None = None, scheduler=None, setup: Callable | None = None):
    """The executor for `scheduler` (see `parse_scheduler`; None: the
    `SCOPA_SIM_SCHEDULER` environment variable, else the embedded pool of
    `workers` threads, default all cores; an executor: itself). `setup`, a
    module-level function, is called once by each Dask worker as it starts
    (`runner.warm_kernels`), so that no batch pays for it."""
    if isinstance(scheduler, (Threads, Dask)):          # already open: the caller closes it
        yield scheduler
        return
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    kind, value = parse_scheduler(scheduler)
    if kind == "threads":
        ex = Threads(workers or default_workers())
    else:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ValueError("running on a cluster needs Dask: pip install "
                             "'dask[distributed]'") from None
        if kind == "local":
            _quiet_resource_tracker()
            cluster = LocalCluster(n_workers=value, threads_per_worker=1, processes=True,
                                   dashboard_address=":0", silence_logs=logging.CRITICAL)
            ex = Dask(Client(cluster), owned=True, cluster=cluster, setup=setup)
        elif kind == "address":
            try:
                ex = Dask(Client(value, timeout=10), owned=True, setup=setup)
            except OSError as e:
                raise ValueError(f"cannot reach the Dask scheduler at {value}: {e}") from None
        else:
            ex = Dask(value, setup=setup)
    try:
        yield ex
    except BaseException:
        ex.close(wait=False)                 # an error or Ctrl-C: no waiting for batches
        raise
    ex.close()


def stream(task: Callable, args: tuple, batches: Iterable[int], ex) -> Iterator[tuple[int, Any]]:
    """`task(*args, b)` for every batch b on executor `ex`, two batches a
    worker in flight (batches are planned lazily: `batches` may be a huge
    generator); yields (b, result) in batch order. Closing the generator
    (a consumer that stops, Ctrl-C) cancels what is still pending."""
    pending: dict[int, Any] = {}                 # in batch order
    todo = iter(batches)
    try:
        while True:
            for b in itertools.islice(todo, 2 * ex.workers - len(pending)):
                pending[b] = ex.submit(task, *args, b)
            if not pending:
                return
            b = next(iter(pending))
            result = _result(pending[b])
            del pending[b]
            yield b, result
    finally:
        for future in pending.values():
            future.cancel()


def _result(future):
    """The future's result, or KeyboardInterrupt once `INTERRUPT` is set."""
    while not INTERRUPT.is_set():
        try:
            return future.result(timeout=POLL)
        except (TimeoutError, concurrent.futures.TimeoutError):
            continue
    raise KeyboardInterrupt
