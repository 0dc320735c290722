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

`INTERRUPT` (`signals`) is a Ctrl-C the program's signal handler took (see
`scopa_sim.cli`), whether or not its KeyboardInterrupt got through: `stream`
raises it (again) while it waits for a batch.

Every network wait has a deadline. A scheduler address is first greeted
(connect, Dask's handshake, its identity) within `CONNECT_TIMEOUT` seconds:
Dask's own `Client(timeout=...)` bounds the TCP connect but not the
handshake read, so a port that accepts and never answers hung it for good.
A cluster then needs a worker within `WORKERS_TIMEOUT` seconds, and while
batches run, a cluster with no worker, or a scheduler lost, for
`WORKERS_TIMEOUT` seconds ends the wait. Each is one error (`ClusterError`,
a ValueError) saying what to check.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from .signals import INTERRUPT

SCHEDULER_ENV = "SCOPA_SIM_SCHEDULER"
POLL = 0.25                         # seconds between looks at INTERRUPT while a batch runs
CONNECT_TIMEOUT = 10.0              # seconds to reach a scheduler and hear its answer
WORKERS_TIMEOUT = 15.0              # seconds a cluster may be without a worker
HERE = ""                           # the scheduler "this machine's threads", whatever
                                    # SCOPA_SIM_SCHEDULER says (isolated runs)


class ClusterError(ValueError):
    """A Dask cluster that does not answer, has no worker or was lost."""


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


class Inline:
    """No pool: each batch runs in the calling thread when `stream` reaches
    it, none ahead, so a consumer that stops wastes no batch. For a task
    that is itself one of many running at once (review's decisions)."""
    workers = 1

    def close(self, wait: bool = True) -> None:
        """Nothing runs but the caller."""


class Dask:
    """Batches as Dask tasks on a `distributed.Client`'s cluster; one batch
    at a time per worker thread (start workers with `--nthreads 1`: the
    number of worker processes sets the parallelism). The kernels are
    compiled, or loaded from Numba's cache, once per worker process."""

    def __init__(self, client, owned: bool = False, cluster=None, setup: Callable | None = None,
                 where: str = "the Dask cluster"):
        self.client, self._owned, self._cluster, self.where = client, owned, cluster, where
        self._idle_since = None                 # when the cluster was last seen without workers
        _wait_for_a_worker(client, where)
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

    restore_logs = staticmethod(lambda: None)

    def close(self, wait: bool = True) -> None:
        if self._owned:                          # ours: made for this command
            _close(self.client)
        if self._cluster is not None:
            self._cluster.close()
        self.restore_logs()

    def check(self) -> None:
        """While a batch is awaited: a ClusterError once the scheduler has been
        lost, or the cluster without a worker, for WORKERS_TIMEOUT seconds.
        Reads the client's own view, refreshed by Dask in the background
        (no network call here)."""
        lost = self.client.status != "running"
        try:
            idle = lost or not self.client.scheduler_info().get("workers")
        except Exception:                        # a client closing under us
            idle = True
        if not idle:
            self._idle_since = None
            return
        now = time.monotonic()
        self._idle_since = self._idle_since or now
        if now - self._idle_since >= WORKERS_TIMEOUT:
            what = "lost the scheduler" if lost else "has had no worker"
            raise ClusterError(f"{self.where} {what} for {WORKERS_TIMEOUT:.0f} s: check that "
                               f"the scheduler and its workers are running")


def _close(client) -> None:
    """Close a client without waiting long for a scheduler that does not answer."""
    try:
        client.close(timeout=CONNECT_TIMEOUT / 2)
    except Exception:                            # closed anyway: a timeout, a lost scheduler
        pass


def _greet(address: str, what: str) -> None:
    """Connect to the scheduler at `address` and hear its identity within
    CONNECT_TIMEOUT seconds (every read bounded), or a one-line ClusterError.
    The exchange runs on an event loop of its own, in a thread of its own
    (the caller may already run an event loop, as Jupyter does)."""
    import asyncio

    from distributed.comm import connect

    async def hello():
        comm = await connect(address, timeout=CONNECT_TIMEOUT)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    outcome: list = []

    def talk():
        try:
            outcome.append(asyncio.run(asyncio.wait_for(hello(), CONNECT_TIMEOUT)))
        except BaseException as e:               # noqa: BLE001 - carried to the caller
            outcome.append(e)

    thread = threading.Thread(target=talk, name="scopa-sim-greet", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + 2)
    answer = outcome[0] if outcome else TimeoutError()
    if isinstance(answer, dict) and answer.get("type") == "Scheduler":
        return
    causes = [answer]
    while (isinstance(causes[-1], BaseException) and len(causes) < 20
           and (causes[-1].__cause__ or causes[-1].__context__) is not None):
        causes.append(causes[-1].__cause__ or causes[-1].__context__)
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        reason = f"connection refused for {CONNECT_TIMEOUT:.0f} s: nothing listens there"
    elif isinstance(answer, (TimeoutError, asyncio.TimeoutError)) or (
            isinstance(answer, OSError) and "Timed out" in str(answer)):
        reason = f"no answer within {CONNECT_TIMEOUT:.0f} s"
    elif isinstance(answer, KeyboardInterrupt):
        raise answer
    elif isinstance(answer, BaseException):
        reason = f"{type(answer).__name__}: {answer}".rstrip(": ")
    else:
        reason = "what answers there is not a Dask scheduler"
    raise ClusterError(f"cannot reach the Dask scheduler at {what}: {reason}; check the "
                       f"address (the one `dask scheduler` prints), that the scheduler is "
                       f"running and that this machine can reach it")


def _wait_for_a_worker(client, where: str) -> None:
    """At least one worker within WORKERS_TIMEOUT seconds, or a ClusterError."""
    address = getattr(getattr(client, "scheduler", None), "address", None) or "ADDRESS"
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    except (TimeoutError, OSError) as e:
        if not isinstance(e, TimeoutError) and "Timed out" not in str(e):
            raise ClusterError(f"{where}: {e}") from None
        raise ClusterError(f"{where} has no worker (waited {WORKERS_TIMEOUT:.0f} s): start "
                           f"some with `dask worker {address} --nthreads 1`, or check that "
                           f"they can reach the scheduler") from None


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


def parse_scheduler(scheduler, source: str | None = None) -> tuple[str, Any]:
    """("threads", None), ("local", N) for `local:N`, ("address", text) for
    a scheduler address, or ("client", client) for a `distributed.Client`.
    `source` names where a text came from in an error (the environment
    variable), if not from the caller."""
    if scheduler is None or scheduler == "":
        return "threads", None
    if isinstance(scheduler, str):
        text = scheduler.strip()
        given = f"{source}={scheduler!r}" if source else repr(text)
        unset = f" (unset {source} to run on this machine)" if source else ""
        if text.startswith("local:"):
            n = text[6:]
            if not n.isascii() or not n.isdigit() or not 1 <= int(n) <= 256:
                raise ValueError(f"--cluster takes local:N with N workers 1..256, not "
                                 f"{given}{unset}")
            return "local", int(n)
        if ("://" not in text or any(c.isspace() for c in text)
                or not text.partition("://")[2].strip("/")):
            raise ValueError(f"a scheduler address looks like tcp://HOST:PORT, not "
                             f"{given}{unset}")
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
    if isinstance(scheduler, (Threads, Inline, Dask)):  # already open: the caller closes it
        yield scheduler
        return
    source = None
    if scheduler is None and os.environ.get(SCHEDULER_ENV):
        scheduler, source = os.environ[SCHEDULER_ENV], SCHEDULER_ENV
    kind, value = parse_scheduler(scheduler, source)
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
            quiet = _quiet_dask_logs()              # our one line says what went wrong
            what = f"{value} (from {source})" if source else value
            try:
                _greet(value, what)
                client = Client(value, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as e:
                quiet()
                raise ClusterError(f"cannot reach the Dask scheduler at {what}: {e}") from None
            except BaseException:
                quiet()
                raise
            try:
                ex = Dask(client, owned=True, setup=setup,
                          where=f"the Dask scheduler at {what}")
            except BaseException:
                _close(client)
                quiet()
                raise
            ex.restore_logs = quiet
        else:
            ex = Dask(value, setup=setup)
    try:
        yield ex
    except BaseException:
        ex.close(wait=False)                 # an error or Ctrl-C: no waiting for batches
        raise
    ex.close()


def _quiet_dask_logs() -> Callable[[], None]:
    """Silence Dask's loggers (its reconnect attempts and the tracebacks of
    a lost scheduler, which our one error line sums up); returns the call
    that restores them."""
    names = ["distributed", *(n for n in logging.root.manager.loggerDict
                              if n.startswith("distributed."))]
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL + 1)

    def restore() -> None:
        for n, level in saved.items():
            logging.getLogger(n).setLevel(level)
    return restore


def stream(task: Callable, args: tuple, batches: Iterable[int], ex,
           ahead: int = 2) -> Iterator[tuple[int, Any]]:
    """`task(*args, b)` for every batch b on executor `ex`, `ahead` batches a
    worker in flight (`Inline`: each in turn, here; batches are planned
    lazily: `batches` may be a huge generator); yields (b, result) in batch
    order. Closing the generator (a consumer that stops, Ctrl-C) cancels
    what is still pending."""
    if isinstance(ex, Inline):
        for b in batches:
            if INTERRUPT.is_set():
                raise KeyboardInterrupt
            yield b, task(*args, b)
        return
    pending: dict[int, Any] = {}                 # in batch order
    todo = iter(batches)
    try:
        while True:
            for b in itertools.islice(todo, ahead * ex.workers - len(pending)):
                pending[b] = ex.submit(task, *args, b)
            if not pending:
                return
            b = next(iter(pending))
            result = _result(pending[b], ex)
            del pending[b]
            yield b, result
    finally:
        for future in pending.values():
            future.cancel()


def _result(future, ex=None):
    """The future's result, or KeyboardInterrupt once `INTERRUPT` is set; on
    a cluster, a ClusterError once it has been without workers, or without
    its scheduler, too long (`Dask.check`), or when Dask cancels the batch
    (a lost scheduler)."""
    check = getattr(ex, "check", None)
    done = threading.Event()     # not result(timeout=): Dask's can lose a race with its own
    future.add_done_callback(lambda _: done.set())  # timeout (an UnboundLocalError, 2026.8)
    while not INTERRUPT.is_set():
        if not done.wait(POLL):
            if check is not None:
                check()
            continue
        try:
            return future.result()
        except concurrent.futures.CancelledError as e:      # Dask's too
            if check is None:
                raise
            what = ("lost the connection" if "connection-lost" in str(e) else
                    "cancelled a batch")
            raise ClusterError(f"{ex.where} {what}: check that the scheduler and its workers "
                               f"are running") from None
    raise KeyboardInterrupt
