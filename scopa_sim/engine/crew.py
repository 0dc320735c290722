"""Helper threads for `Rounds` (`engine.envs`): helper h steps or samples
part h + 1 of the rows while the caller does part 0, in compiled code that
never takes the GIL (`kernels.envs.serve`), handed its jobs through a flag
it spins on (`kernels.sync`).

Why not a thread pool: a pool hands each call over through the operating
system and the GIL. On this kind of virtual machine waking a thread costs
25-50 us, and a woken thread often sleeps again for the GIL the caller
holds: a pool's hand-over was about 50 us a call, two calls a step with
`sample()`, beside a step of 8,192 rows of 600-700 us on 2 cores. Here a
helper spins on its flag for a while after each job (`SPINS`, about 100
us) and then sleeps, so steps made one after another never wait for a
wake-up and an idle crew sleeps; the caller spins on the helper's flag
while it finishes, then naps.
"""
from __future__ import annotations

import os
import threading
import time

import numpy as np

from ..kernels import batch, envs as K, sync

SPINS = 100_000            # reads of a flag before a thread sleeps: about 100 us here
NAP = 50e-6                # the caller's sleep between spins, seconds


class Helper:
    """One helper thread, serving one part of the rows: its flag (the
    number of the last job posted, of the last done) and its job's words
    (`kernels.envs.J_*`)."""

    def __init__(self, serve, first: int, args: tuple):
        self.flag, self.job = np.zeros(2, np.int64), np.zeros(K.J_CODE + 1, np.int64)
        self.job[K.J_FIRST] = first
        self.wake = threading.Event()
        args = (self.flag, self.job, *args, SPINS)
        entry = batch.entry(serve, args)
        self.thread = threading.Thread(target=self._loop, args=(entry, args), daemon=True,
                                       name="scopa-sim-helper")
        self.thread.start()

    def _loop(self, entry, args) -> None:
        while entry(*args) == K.IDLE:         # no job for a while: sleep until one is posted
            self.wake.wait()
            self.wake.clear()


class Crew:
    """Helpers for parts 1.. of the rows; `post` a job to all, make part 0
    on the calling thread, then `codes`."""

    def __init__(self, serve, parts: list[tuple]):
        """parts: each helper's first row and the arguments of `serve` after
        the flag and the job (`kernels.envs.serve`)."""
        flag = np.zeros(2, np.int64)
        self._wait = batch.entry(sync.wait_for, (flag, 0, 0, 0))
        self._publish = batch.entry(sync.publish, (flag, 0, 0))
        self._helpers = [Helper(serve, first, args) for first, args in parts]
        self._number = 0
        self.pid = os.getpid()       # a forked child has none of these threads

    def post(self, task: int, seed, stride: int = 0) -> None:
        """Job `task` (`kernels.envs.STEP`, `SAMPLE`, `STOP`) to every helper."""
        self._number += 1
        words = task, np.uint64(seed).view(np.int64), stride
        for h in self._helpers:
            h.job[K.J_TASK], h.job[K.J_SEED], h.job[K.J_STRIDE] = words
            self._publish(h.flag, K.POSTED, self._number)
            h.wake.set()

    def codes(self) -> list[int]:
        """Each helper's code for the job posted last, once it is done. A
        Ctrl-C meanwhile is raised only then: the job is whole, not half
        made by a helper still at work while its rows are read or stepped."""
        interrupted = None
        for h in self._helpers:
            while self._wait(h.flag, K.DONE, self._number - 1, SPINS) != self._number:
                if not h.thread.is_alive():
                    raise RuntimeError("internal: a helper thread of the environments stopped")
                try:
                    time.sleep(NAP)
                except KeyboardInterrupt as e:
                    interrupted = e
        if interrupted is not None:
            raise interrupted
        return [int(h.job[K.J_CODE]) for h in self._helpers]

    def close(self, wait: bool = True) -> None:
        """Stop the helpers; with `wait`, until they have."""
        if self._helpers:
            self.post(K.STOP, 0)
            if wait:
                for h in self._helpers:
                    h.thread.join()
            self._helpers = []

    def __del__(self):
        """A crew nobody holds: its helpers are told to stop, not waited for
        (at the interpreter's exit they may be gone already)."""
        self.close(wait=False)
