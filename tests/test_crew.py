"""The helper threads of the learning environments' rounds (`engine.crew`,
`kernels.sync`): a hand-over through a flag, the same rounds as one thread
however the helpers sleep and wake, and no thread left behind."""
import gc
import multiprocessing
import os
import threading
import time

import numpy as np
import pytest

from scopa_sim.engine.envs import Rounds
from scopa_sim.kernels import batch, sync


def test_a_flag_waited_on_gives_its_new_value_or_the_old_one_after_its_spins():
    flag = np.zeros(2, np.int64)
    wait, publish = batch.entry(sync.wait_for, (flag, 0, 0, 0)), batch.entry(sync.publish,
                                                                             (flag, 0, 0))
    assert wait(flag, 1, 0, 1000) == 0
    publish(flag, 1, 7)
    assert wait(flag, 1, 0, 1000) == 7 and wait(flag, 1, 7, 10) == 7
    seen = []
    other = threading.Thread(target=lambda: seen.append(wait(flag, 0, 0, 10**10)))
    other.start()
    publish(flag, 0, 3)
    other.join(timeout=30)
    assert seen == [3]


def play(lineup, threads, pause=0.0, steps=40):
    """Steps of 600 rounds from random actions, pausing between them; the
    last observations and each row's summed rewards."""
    rounds = Rounds(600, "scopa", lineup, threads=threads)
    rounds.reset(5, 0, 600)
    total = np.zeros(600)
    for k in range(steps):
        rounds.step(rounds.random_actions(k))
        total += rounds.state.rewards.sum(axis=1)
        if pause and k % 10 == 0:
            time.sleep(pause)
    rounds.close()
    return rounds.state.obs.copy(), total


@pytest.mark.parametrize("lineup", [[None, None], [None, "greedy"],
                                    pytest.param([None, "counter"], marks=pytest.mark.slow)])
def test_two_threads_play_as_one_whether_the_helper_spins_or_sleeps(lineup):
    one = play(lineup, 1)
    for pause in (0.0, 0.01):                  # 10 ms: far past a helper's spins
        two = play(lineup, 2, pause)
        assert (two[0] == one[0]).all() and (two[1] == one[1]).all()


def test_close_stops_the_helpers_and_a_later_step_starts_them_again():
    def started(step):
        before = set(threading.enumerate())
        step()
        return [t for t in set(threading.enumerate()) - before if t.name == "scopa-sim-helper"]

    rounds = Rounds(600, "scopa", [None, None], threads=2)
    rounds.reset(1, 0, 600)
    first = started(lambda: rounds.step(rounds.random_actions(0)))
    assert len(first) == 1 and first[0].is_alive()
    rounds.close()                              # returns once they have stopped
    assert not first[0].is_alive()
    again = started(lambda: rounds.step(rounds.random_actions(1)))
    assert len(again) == 1
    del rounds
    gc.collect()                                # dropped without close: its helper stops too
    again[0].join(timeout=30)
    assert not again[0].is_alive()


def test_a_ctrl_c_while_the_helper_works_is_raised_once_its_part_is_done(monkeypatch):
    """Ctrl-C while the calling thread waits for its helper: the step is
    made whole first, then KeyboardInterrupt raised, so the rounds go on
    as if never interrupted (the next step's mask check and actions must
    not meet a helper still stepping)."""
    from scopa_sim.engine import crew

    one = Rounds(600, "scopa", [None, "greedy"], threads=1)
    two = Rounds(600, "scopa", [None, "greedy"], threads=2)
    for r in (one, two):
        r.reset(4, 0, 600)
    team, armed, ctrl_c, sleep = two._helpers(), [], [], time.sleep
    spin = team._wait

    def wait(flag, at, seen, spins):            # armed: as if its spins ran out
        if armed:
            armed.pop()
            ctrl_c.append(1)
            return seen
        return spin(flag, at, seen, spins)

    def nap(seconds):                           # ... and Ctrl-C in the nap that follows
        if ctrl_c:
            ctrl_c.pop()
            raise KeyboardInterrupt
        sleep(seconds)

    team._wait = wait
    monkeypatch.setattr(crew.time, "sleep", nap)
    raised = []
    for k in range(12):
        a = one.random_actions(k)
        one.step(a)
        armed[:] = [1] if k == 2 else []
        try:
            two.step(a)
        except KeyboardInterrupt:
            raised.append(k)
    assert raised == [2] and not ctrl_c and not armed
    assert all((x == y).all() for x, y in zip(one.state, two.state))
    two.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_steps_its_copy_with_helper_threads_of_its_own():
    """A child forked after the helpers started has none of their threads:
    its rounds make their own and step as the parent's do."""
    rounds = Rounds(600, "scopa", [None, "greedy"], threads=2)
    rounds.reset(6, 0, 600)
    rounds.step(rounds.random_actions(0))
    ours, theirs = multiprocessing.get_context("fork").Pipe()

    def child():
        rounds.step(rounds.random_actions(1))
        theirs.send(rounds.state.obs.copy())
        os._exit(0)                             # no clean-up of what the fork copied

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    got = ours.recv() if ours.poll(60) else None
    process.join(timeout=60)
    rounds.step(rounds.random_actions(1))
    assert got is not None and (got == rounds.state.obs).all()
    rounds.close()
