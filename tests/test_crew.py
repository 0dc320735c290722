"""The helper threads of the learning environments' rounds (`engine.crew`,
`kernels.sync`): a hand-over through a flag, the same rounds as one thread
however the helpers sleep and wake, and no thread left behind."""
import gc
import threading
import time

import numpy as np
import pytest

from scopa_sim.engine.envs import Rounds
from scopa_sim.kernels import batch, sync


def helpers() -> int:
    return sum(t.name == "scopa-sim-helper" for t in threading.enumerate())


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


@pytest.mark.parametrize("lineup", [[None, None], [None, "greedy"], [None, "counter"]])
def test_two_threads_play_as_one_whether_the_helper_spins_or_sleeps(lineup):
    one = play(lineup, 1)
    for pause in (0.0, 0.01):                  # 10 ms: far past a helper's spins
        two = play(lineup, 2, pause)
        assert (two[0] == one[0]).all() and (two[1] == one[1]).all()


def test_close_stops_the_helpers_and_a_later_step_starts_them_again():
    before = helpers()
    rounds = Rounds(600, "scopa", [None, None], threads=2)
    rounds.reset(1, 0, 600)
    rounds.step(rounds.random_actions(0))
    assert helpers() == before + 1
    rounds.close()
    for _ in range(100):
        if helpers() == before:
            break
        time.sleep(0.01)
    assert helpers() == before
    rounds.step(rounds.random_actions(1))
    assert helpers() == before + 1
    del rounds
    gc.collect()
    for _ in range(100):                        # dropped without close: its helper stops too
        if helpers() == before:
            break
        time.sleep(0.01)
    assert helpers() == before


def test_a_step_interrupted_while_it_waited_for_its_helper_is_whole_before_the_next(monkeypatch):
    """Ctrl-C while the calling thread waits for the helper: the step goes on
    in the helper, and the next job waits for it (it must not change the
    actions the helper still reads), so the rounds end as if uninterrupted."""
    from scopa_sim.engine import crew

    one = Rounds(600, "scopa", [None, "greedy"], threads=1)
    two = Rounds(600, "scopa", [None, "greedy"], threads=2)
    for r in (one, two):
        r.reset(4, 0, 600)
    codes, calls = crew.Crew.codes, []

    def interrupted(self):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return codes(self)

    monkeypatch.setattr(crew.Crew, "codes", interrupted)
    actions = []
    for k in range(12):
        actions.append(one.random_actions(k))
        one.step(actions[-1])
    for k, a in enumerate(actions):             # the next step follows at once
        try:
            two.step(a)
        except KeyboardInterrupt:
            assert k == 2
    assert len(calls) == 12
    assert all((x == y).all() for x, y in zip(one.state, two.state))
