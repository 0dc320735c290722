"""n rounds stepped in one compiled call, after gymnasium.vector.VectorEnv's
conventions (docs/ENVS.md): `reset(seed=)` -> (obs, info), `step(actions)`
-> (obs, rewards, terminated, truncated, info), a finished round replaced by
the next at once (same-step autoreset)."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..engine.checks import whole
from ..engine.envs import Rounds
from ._common import action_space, observation_space, rules_of


class ScopaVector(VectorEnv):
    """Environment i plays rounds i, i + n, i + 2n, ... of the run seeded by
    `reset(seed=)`, dealt as `simulate` deals them. With an `opponent` the
    agent plays `seat` and rewards are float32[n]; with `opponent=None`
    every seat is the caller's (self-play): obs is the seat to play's
    (info["seat"]) and rewards are float32[n, players], each seat's.
    `copy=False` returns the environments' own arrays (observations,
    rewards, terminated, info), which the next step overwrites (as
    SyncVectorEnv's `copy`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, n: int, preset: str = "scopa", opponent: str | None = "random",
                 seat: int = 0, threads: int = 2, copy: bool = True, **rule_options):
        self.rules = rules_of(preset, rule_options)
        players = self.rules.players
        self.seat = whole(seat, "seat", 0, players - 1)
        self.self_play = opponent is None
        lineup = [None] * players if self.self_play else [opponent] * players
        lineup[self.seat] = None
        self.rounds = Rounds(n, self.rules, lineup, threads=threads)
        self.num_envs = self.rounds.n
        self.single_observation_space = observation_space(self.rules)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, 80))
        self._seed, self._reset, self.copy = None, False, bool(copy)
        self._never, self._every = (np.full(self.num_envs, v, np.bool_) for v in (False, True))
        self._never.flags.writeable = self._every.flags.writeable = False

    def reset(self, *, seed=None, options=None):
        """Deal every environment's first round; `seed`: one whole number
        for all (environment i plays rounds i, i + n, ... of that run)."""
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed is one whole number for all the environments, not {seed!r}")
        if seed is None:
            seed = int(np.random.default_rng().integers(2**63)) if self._seed is None \
                else self._seed + 1
        self._seed, self._reset = int(seed), True
        self.rounds.reset(self._seed, first=0, stride=self.num_envs)
        return self._obs(), self._info()

    def step(self, actions):
        if not self._reset:
            raise ValueError("reset the environments before stepping them")
        self.rounds.step(actions)
        st, out = self.rounds.state, self._out
        rewards = st.rewards if self.self_play else st.rewards[:, self.seat]
        return self._obs(), out(rewards), out(st.done), out(self._never), self._info()

    def _out(self, array):
        """`array` itself (copy=False: the environments' own, changed by the
        next step; shared constants read-only), else a copy."""
        return array.copy() if self.copy else array

    def _obs(self):
        st = self.rounds.state
        return {"observation": self._out(st.obs), "action_mask": self._out(st.mask)}

    def _info(self):
        """Each environment's seat to play and round, with the `_key` masks
        gymnasium's vector wrappers read (every environment has both)."""
        st, out = self.rounds.state, self._out
        return {"seat": out(st.seat), "_seat": out(self._every), "round": out(st.unit),
                "_round": out(self._every)}

    def sample(self, seed: int, mask=None) -> np.ndarray:
        """A legal action per environment, uniformly from `mask` (default the
        current one; int8 or bool of shape (n, 80)), drawn from `seed`."""
        return self.rounds.random_actions(seed, mask)

    def close_extras(self, **kwargs):
        self.rounds.close()
