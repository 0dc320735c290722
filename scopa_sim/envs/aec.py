"""Scopa as a PettingZoo AECEnv: one round an episode, each seat an agent
(`player_0`, ...), the round's actions and observation as docs/ENVS.md says."""
from __future__ import annotations

import secrets

import numpy as np
from pettingzoo import AECEnv

from ..engine.checks import whole
from ..engine.envs import Rounds, action_name
from ._common import action_space, observation_space, render, rules_of


class ScopaAEC(AECEnv):
    """`reset(seed=s)` deals round 0 of a run seeded s (as `simulate` deals
    it), each later `reset()` the next round of that run;
    `options={"round": k}` deals round k. An illegal action raises
    ValueError, as does a step after the round is over (other than the
    `None` actions PettingZoo sends finished agents)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "scopa_v0",
                "is_parallelizable": False}

    def __init__(self, preset: str = "scopa", render_mode: str | None = None, **rule_options):
        super().__init__()
        self.rules = rules_of(preset, rule_options)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players)]
        space = observation_space(self.rules)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self.rounds = Rounds(1, self.rules)
        self._seed, self._next = None, 0
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self.agents, self._turn = [], None          # the seat to play; None: the round is over
        st = self.rounds.state
        self._obs, self._mask = st.obs[0], st.mask[0]      # its view, as the kernel writes it
        self._seat_now, self._done = memoryview(st.seat), memoryview(st.done)  # read as ints

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._seed, self._next = seed, 0
        elif self._seed is None:
            self._seed = secrets.randbits(63)
        if options and "round" in options:
            self._next = whole(options["round"], "round", 0, 2**43)
        self.rounds.reset(self._seed, first=self._next)
        self.round = self._next
        self._next += 1
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._turn = int(self.rounds.state.seat[0])
        self.agent_selection = self.agents[self._turn]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        seat = self._seat[agent]
        if seat == self._turn:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        obs, mask = self.rounds.view(0, seat)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        if self._turn is None:
            agent = self.agent_selection
            if not self.agents:
                raise ValueError("the round is over: reset the environment for a new round")
            if action is not None:
                raise ValueError(f"the round is over: {agent} can only step None; reset the "
                                 f"environment for a new round")
            self._was_dead_step(action)
            return
        if type(action) is not int:
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise ValueError(f"an action is a whole number 0..79 (docs/ENVS.md), "
                                 f"not {action!r}")
            action = int(action)
        self.rounds.step_one(action)    # rewards stay 0 until the round's end
        if self._done[0]:
            self._turn = None
            st, result = self.rounds.state, self.rounds.result(0)
            for s, a in enumerate(self.agents):
                self.rewards[a] = float(st.rewards[0, s])
                self.terminations[a] = True
                self.infos[a] = {"result": dict(result)}
            self._cumulative_rewards[self.agent_selection] = 0.0
            self._accumulate_rewards()
        else:
            self._turn = self._seat_now[0]
            self.agent_selection = self.possible_agents[self._turn]
        if self.render_mode == "human":
            self.render()

    def render(self):
        return render(self.rounds, self.render_mode)

    def close(self):
        self.rounds.close()

    # -- playing a built-in strategy's move -------------------------------------
    def suggest(self, strategy: str):
        """The move (card, capture set) a built-in strategy plays for the
        agent to act, drawing from the round's decide stream as `simulate`'s
        seat does (docs/ENVS.md)."""
        return self.rounds.suggest(0, strategy)

    def action_for(self, move) -> int:
        """The next action toward `move` (card, capture set)."""
        return self.rounds.action_for(0, move)

    def play(self, move) -> None:
        """Step every action of `move` (card, capture set) for the agent to act."""
        while True:
            self.step(self.rounds.action_for(0, move))
            if int(self.rounds.state.pending[0]) < 0:
                return

    @staticmethod
    def action_name(action: int) -> str:
        return action_name(int(action))
