"""Scopa as a gymnasium.Env: the agent plays one seat, a strategy of the
registry every other; one round an episode (docs/ENVS.md)."""
from __future__ import annotations

import gymnasium
import numpy as np

from ..engine.checks import whole
from ..engine.envs import Rounds
from ._common import action_space, observation_space, render, rules_of

ILLEGAL_REWARD = -10.0          # with illegal="lose": the reward of an illegal action


class ScopaGym(gymnasium.Env):
    """`opponent`: a strategy spec ("net", "greedy", "pimc:samples=50", a
    jitted user strategy `file.py:name`) for every seat but `seat`.
    `reset(seed=s)` deals round 0 of run s (as `simulate` deals it), each
    later `reset()` the next round; `options={"round": k}` round k. An
    illegal action raises ValueError (`illegal="raise"`), or with
    `illegal="lose"` ends the round with reward ILLEGAL_REWARD and
    info["illegal"] True (what `check_env`, which steps actions drawn
    without the mask, needs)."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, opponent: str = "net", preset: str = "scopa", seat: int = 0,
                 illegal: str = "raise", render_mode: str | None = None, **rule_options):
        self.rules = rules_of(preset, rule_options)
        self.seat = whole(seat, "seat", 0, self.rules.players - 1)
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal is 'raise' or 'lose', not {illegal!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if opponent is None:
            raise ValueError("gym_env needs an opponent strategy; for self-play use aec_env or "
                             "vector_env(opponent=None)")
        self.illegal, self.render_mode, self.opponent = illegal, render_mode, opponent
        lineup = [opponent] * self.rules.players
        lineup[self.seat] = None
        self.rounds = Rounds(1, self.rules, lineup)
        self.observation_space = observation_space(self.rules)
        self.action_space = action_space()
        self._seed, self._next, self._over = None, 0, True

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._next = seed, 0
        elif self._seed is None:
            self._seed = int(self.np_random.integers(2**63))
        if options and "round" in options:
            self._next = whole(options["round"], "round", 0, 2**43)
        self.rounds.reset(self._seed, first=self._next)
        self.round, self._next, self._over = self._next, self._next + 1, False
        if self.render_mode == "human":
            self.render()
        return self._obs(), {"round": self.round}

    def _obs(self):
        st = self.rounds.state
        if st.mask[0].any():
            return {"observation": st.obs[0].copy(), "action_mask": st.mask[0].copy()}
        obs, mask = self.rounds.view(0, self.seat)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        if self._over:
            raise ValueError("the round is over: reset the environment for a new round")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                and not (isinstance(action, np.ndarray) and action.shape == ()
                         and action.dtype.kind in "iu"):
            raise ValueError(f"an action is a whole number 0..79 (docs/ENVS.md), not {action!r}")
        a = int(action)
        st = self.rounds.state
        if self.illegal == "lose" and not (0 <= a < st.mask.shape[1] and st.mask[0, a]):
            self._over = True
            obs, _ = self.rounds.view(0, self.seat)
            return ({"observation": obs, "action_mask": np.zeros_like(st.mask[0])},
                    ILLEGAL_REWARD, True, False, {"illegal": True})
        self.rounds.step(np.array([a]))
        info = {}
        if st.done[0]:
            self._over = True
            info["result"] = self.rounds.result(0)
        reward = float(st.rewards[0, self.seat]) if st.done[0] else 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, bool(st.done[0]), False, info

    def render(self):
        return render(self.rounds, self.render_mode)

    def close(self):
        self.rounds.close()

    def suggest(self, strategy: str):
        """The move a built-in strategy plays for the agent (engine.envs.Rounds.suggest)."""
        return self.rounds.suggest(0, strategy)

    def action_for(self, move) -> int:
        """The next action toward `move` (card, capture set)."""
        return self.rounds.action_for(0, move)

    def play(self, move):
        """Step every action of `move` (card, capture set); the last step's return."""
        while True:
            out = self.step(self.rounds.action_for(0, move))
            if out[2] or int(self.rounds.state.pending[0]) < 0:
                return out
