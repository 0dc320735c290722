"""The learning environments' speed (docs/ENVS.md), each after a warm-up:

    .venv/bin/python benchmarks/bench_envs.py [--seconds S] [--n N [N ...]]

- AEC env, random agents (one core): PettingZoo's loop (`agent_iter`,
  `last`, a uniformly random legal action, `step`), steps/s; goal 250,000;
  and the same loop over an env that does nothing (`Idle`), for scale;
- vector env, self-play, `--n` rounds (1,024 and 8,192) on 2 threads (and
  on 1): steps/s of `step(sample(k))` (both in compiled code), and of the
  step alone; goal 10,000,000 on 2 cores;
- gym env against the net: steps/s of random legal actions; goal 20,000;
- OpenSpiel: random play-outs through pyspiel, rounds/s, of `python_scopa`
  and, beside it, of OpenSpiel's own card games in C++ (`OPENSPIEL_CPP`).

Wall time; the machine's load average is printed beside the figures (the
cores are shared: run it on a quiet machine for the true figures).
"""
import argparse
import os
import random
import time

import numpy as np
from pettingzoo import AECEnv

from scopa_sim.envs import aec_env, gym_env, vector_env


def timed(run, seconds):
    """Units per second of `run(k)` (returning its units) called until `seconds` pass."""
    start, units, k = time.perf_counter(), 0, 0
    while time.perf_counter() - start < seconds:
        units += run(k)
        k += 1
    return units / (time.perf_counter() - start)


class Idle(AECEnv):
    """An AEC env that does nothing: two agents, 36 steps a round, fixed
    arrays: PettingZoo's loop and the random agent alone."""
    metadata = {"name": "idle"}

    def __init__(self):
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        self.obs, self.mask = np.zeros(293, np.int8), np.ones(80, np.int8)

    def observe(self, agent):
        return {"observation": self.obs.copy(), "action_mask": self.mask.copy()}

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        for field, value in (("rewards", 0.0), ("_cumulative_rewards", 0.0),
                             ("terminations", False), ("truncations", False)):
            setattr(self, field, {a: value for a in self.agents})
        self.infos = {a: {} for a in self.agents}
        self.agent_selection, self.plays = self.agents[0], 0

    def step(self, action):
        if self.terminations[self.agent_selection]:
            return self._was_dead_step(action)
        self.plays += 1
        if self.plays == 36:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.agents[self.plays % 2]


def aec(seconds, env=None):
    env, pick = env or aec_env(), random.Random(0)
    env.reset(seed=1)

    def episode(_):
        env.reset()
        steps = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[pick.randrange(len(legal))])
            env.step(action)
            steps += 1
        return steps
    episode(0)
    return timed(episode, seconds)


def vector(n, threads, seconds):
    v = vector_env(n, opponent=None, threads=threads, copy=False)
    v.reset(seed=1)
    v.step(v.sample(0))
    both = timed(lambda k: (v.step(v.sample(k)), n)[1], seconds)
    rounds, spent, k = v.rounds, 0.0, 0
    while spent < seconds:
        a = rounds.random_actions(10**6 + k)
        t = time.perf_counter()
        rounds.step(a)
        spent += time.perf_counter() - t
        k += 1
    v.close()
    return both, n * k / spent


def gym(seconds):
    g, pick = gym_env("net"), random.Random(0)
    obs, _ = g.reset(seed=1)

    def step(_):
        nonlocal obs
        legal = obs["action_mask"].nonzero()[0]
        obs, _, done, _, _ = g.step(int(legal[pick.randrange(len(legal))]))
        if done:
            obs, _ = g.reset()
        return 1
    step(0)
    return timed(step, seconds)


OPENSPIEL_CPP = ("skat", "euchre", "hearts", "spades", "gin_rummy")   # card games in C++


def openspiel(seconds, name="python_scopa"):
    """Random play-outs of an OpenSpiel game through pyspiel, rounds/s, and
    its actions a round (chance outcomes drawn uniformly, counted too)."""
    import pyspiel
    import scopa_sim.envs.openspiel  # noqa: F401  (registers python_scopa)
    game, pick, count = pyspiel.load_game(name), random.Random(0), [0, 0]   # actions, rounds

    def playout(k):
        state = game.new_initial_state()
        if name == "python_scopa":               # its deal: one of 1,000 rounds of a run
            state.apply_action(k % 1000)
        while not state.is_terminal():
            legal = (state.legal_actions() if not state.is_chance_node() else
                     [a for a, _ in state.chance_outcomes()])
            state.apply_action(legal[pick.randrange(len(legal))])
            count[0] += 1
        count[1] += 1
        return 1
    playout(0)
    count[:] = [0, 0]
    return timed(playout, seconds), count[0] / count[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    parser.add_argument("--n", type=int, nargs="+", default=[1024, 8192],
                        help="vector env sizes")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"AEC env, random agents, 1 core       {aec(args.seconds):>14,.0f} steps/s  "
          f"(goal 250,000)")
    print(f"  the same loop, an env that does nothing {aec(args.seconds, Idle()):>8,.0f} steps/s")
    for n in args.n:
        for threads in (1, 2):
            both, alone = vector(n, threads, args.seconds)
            print(f"vector env, n={n:<5}, {threads} thread(s) {both:>14,.0f} steps/s with "
                  f"sample(), {alone:,.0f} step alone  (goal 10,000,000 on 2)")
    print(f"gym env against the net             {gym(args.seconds):>14,.0f} steps/s  "
          f"(goal 20,000)")
    for name in ("python_scopa", *OPENSPIEL_CPP):
        rate, actions = openspiel(args.seconds, name)
        print(f"OpenSpiel random play-outs, {name:<12} {rate:>8,.1f} rounds/s, "
              f"{actions:.0f} actions a round")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
