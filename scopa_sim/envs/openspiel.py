"""Scopa as an OpenSpiel game: importing this module registers
`python_scopa` with pyspiel (docs/ENVS.md).

    import pyspiel, scopa_sim.envs.openspiel
    game = pyspiel.load_game("python_scopa", {"preset": "scopa+fewest_cards"})

Parameters: `preset` (a preset, with `+option` changes as `Rules.preset`
reads them), `seed`, `deals`, `start` and `redeal`. One round a game: the
first node is a chance node whose `deals` equally likely outcomes k are
round k of the run seeded `seed`, dealt as `simulate` deals it, its first
`start` plays made by greedy (an endgame small enough for exact tools);
with `redeal`, a second chance node then deals the cards no seat sees all
of (the hands and the deck) anew, every arrangement equally likely, so each
seat knows only its own hand: a game of hidden cards small enough for exact
tools when `start` is late (at most `MAX_ARRANGEMENTS`); then the seats'
actions, the 80 of docs/ENVS.md (a move in one or more steps). Returns: each seat's
side's points less the mean of the other sides'. Observation tensor: the
envs' observation (float32); information state tensor: it and every play
of the round so far (seat one-hot, card one-hot, cards taken), perfect
recall. `StrategyPolicy` makes a built-in strategy an OpenSpiel policy.
"""
from __future__ import annotations

import math

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ..engine.envs import N_ACTIONS, PLAYS as P_PLAYS, Rounds, action_name, obs_size
from ..engine.rules import Rules

_MAX_PLAYERS = 6
_PLAYS = 40
MAX_ARRANGEMENTS = 20_000     # the redeal's chance outcomes, at most
_GAME_TYPE = pyspiel.GameType(
    short_name="python_scopa",
    long_name="Python Scopa (scopa-sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"preset": "scopa", "seed": 0, "deals": 1000, "start": 0,
                             "redeal": False})


class ScopaGame(pyspiel.Game):
    """One round of the preset's rules, dealt from a run's rounds."""

    def __init__(self, params=None):
        params = {**_GAME_TYPE.parameter_specification, **(params or {})}
        self.rules = Rules.preset(str(params["preset"]))
        self.seed, self.deals = int(params["seed"]), int(params["deals"])
        self.start = int(params["start"])
        if self.deals < 1:
            raise ValueError(f"deals is at least 1, not {self.deals}")
        if not 0 <= self.start < _PLAYS:
            raise ValueError(f"start is a number of plays 0..39, not {self.start}")
        self.rounds = Rounds(1, self.rules)      # the kernel scratch every state shares
        self.redeal = bool(params["redeal"])
        self.arrangements = self._arrangements() if self.redeal else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=max(self.deals, self.arrangements),
            num_players=self.rules.players, min_utility=-60.0, max_utility=60.0,
            utility_sum=0.0, max_game_length=2 * _PLAYS)
        super().__init__(_GAME_TYPE, info, params)

    def dealt(self, k: int) -> Rounds:
        """Round k of the run, its first `start` plays made by greedy."""
        rounds = self.rounds.fork()
        rounds.reset(self.seed, first=k)
        while int(rounds.state.pos[0, P_PLAYS]) < self.start and rounds.state.mask[0].any():
            rounds.step(rounds.strategy_action(0, "greedy"))
        return rounds

    def _arrangements(self) -> int:
        """How many ways the redeal has (the same for every deal: the plays
        made say how many cards each hand and the deck hold)."""
        cards, sizes = self.dealt(0).hidden(0)
        count = ways(len(cards), sizes)
        if count > MAX_ARRANGEMENTS:
            raise ValueError(f"redeal at start {self.start} has {count:,} arrangements of the "
                             f"{len(cards)} hidden cards, more than {MAX_ARRANGEMENTS:,}: "
                             f"start later")
        return count

    def new_initial_state(self):
        return ScopaState(self)

    def __deepcopy__(self, memo):          # a state's clone shares its game
        return self

    def make_py_observer(self, iig_obs_type=None, params=None):
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ScopaObserver(self, recall)


class ScopaState(pyspiel.State):
    """A round: a chance node (the deal), then the seats' steps."""

    def __init__(self, game: ScopaGame):
        super().__init__(game)
        self._game = game
        self._rounds = None            # this state's round (a fork of the game's `Rounds`)
        self._arranged = not game.redeal   # with redeal: once its hidden cards are dealt anew
        self._player = pyspiel.PlayerId.CHANCE   # `current_player`, found once an action

    @property
    def state(self):
        return self._rounds.state

    def current_player(self):               # pyspiel asks it several times an action
        return self._player

    def _find_player(self):
        if self._rounds is None or not self._arranged:
            return pyspiel.PlayerId.CHANCE
        if not self.state.mask[0].any():
            return pyspiel.PlayerId.TERMINAL
        return int(self.state.seat[0])

    def _legal_actions(self, player):
        return self.state.mask[0].nonzero()[0].tolist()

    def _outcomes(self) -> int:
        """How many outcomes this chance node has: the deals, then the redeal's."""
        return self._game.deals if self._rounds is None else self._game.arrangements

    def chance_outcomes(self):
        n = self._outcomes()
        return [(k, 1.0 / n) for k in range(n)]

    def _apply_action(self, action):
        if self.is_chance_node() and not 0 <= int(action) < self._outcomes():
            raise ValueError(f"chance outcome {action} is not one of 0..{self._outcomes() - 1}")
        if self._rounds is None:
            self._rounds = self._game.dealt(int(action))
            self._arranged = self._arranged or not self.state.mask[0].any()
        elif not self._arranged:
            cards, sizes = self._rounds.hidden(0)
            self._rounds.rearrange(0, arrangement(cards, sizes, int(action)))
            self._arranged = True
        else:
            self._rounds.step_one(int(action))
        self._player = self._find_player()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal round {action}" if self._rounds is None else f"arrangement {action}"
        return action_name(int(action))

    def is_terminal(self):
        return self._player == pyspiel.PlayerId.TERMINAL

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self._game.rules.players
        return [float(x) for x in self.state.rewards[0, :self._game.rules.players]]

    def __str__(self):
        return "(not dealt)" if self._rounds is None else self._rounds.text(0)

    # -- a scopa-sim strategy's move -------------------------------------------
    def suggest(self, strategy: str):
        """The move (card, capture set) a built-in strategy plays here."""
        return self._rounds.suggest(0, strategy)

    def action_for(self, move) -> int:
        """The next action toward `move`."""
        return self._rounds.action_for(0, move)

    def strategy_action(self, strategy: str) -> int:
        """The next action of the move a built-in strategy plays here (asked
        at the move's first step, kept for its others)."""
        return self._rounds.strategy_action(0, strategy)


class StrategyPolicy(policy_lib.Policy):
    """A built-in strategy (`greedy`, `counter`, ...) as an OpenSpiel policy
    of every seat: in each state, the next action of the move it plays, for
    OpenSpiel's tools (`exploitability.nash_conv(game, StrategyPolicy(game))`)."""

    def __init__(self, game, strategy: str = "greedy"):
        super().__init__(game, list(range(game.num_players())))
        self.strategy = strategy

    def action_probabilities(self, state, player_id=None):
        return {state.clone().strategy_action(self.strategy): 1.0}


def ways(count: int, sizes) -> int:
    """In how many ways `count` cards go to places of these sizes (all
    filled; the order within a place does not count)."""
    total = 1
    for size in sizes:
        total *= math.comb(count, size)
        count -= size
    return total


def arrangement(cards: list[int], sizes, k: int) -> list[list[int]]:
    """Arrangement k (0 <= k < `ways`) of `cards` in places of `sizes`: each
    place's cards, the first place's combination varying fastest."""
    rest, parts = list(cards), []
    for size in sizes:
        k, q = divmod(k, math.comb(len(rest), size))
        part, start = [], 0
        for left in range(size, 0, -1):          # combination q of `rest`, in ascending order
            for j in range(start, len(rest)):
                below = math.comb(len(rest) - j - 1, left - 1)
                if q < below:
                    part.append(rest[j])
                    start = j + 1
                    break
                q -= below
        parts.append(part)
        rest = [c for c in rest if c not in part]
    return parts


class ScopaObserver:
    """The observation (or, with perfect recall, the information state) of a
    player, as OpenSpiel's PyObserver interface reads it."""

    def __init__(self, game: ScopaGame, recall: bool):
        r = game.rules
        self.recall, self.players = recall, r.players
        size = obs_size(r)
        pieces = [("observation", size)]
        if recall:
            pieces.append(("plays", _PLAYS * (r.players + 80)))
        self.tensor = np.zeros(sum(s for _, s in pieces), np.float32)
        self.dict, at = {}, 0
        for name, s in pieces:
            self.dict[name] = self.tensor[at:at + s]
            at += s
        if recall:
            self.dict["plays"] = self.dict["plays"].reshape(_PLAYS, r.players + 80)

    def set_from(self, state: ScopaState, player: int):
        self.tensor.fill(0)
        if state._rounds is None:
            return
        obs, _ = state._rounds.view(0, player)
        self.dict["observation"][:] = obs
        if self.recall:
            plays = self.dict["plays"]
            n = self.players
            for k, (seat, card, take) in enumerate(self._plays(state)):
                plays[k, seat] = 1
                plays[k, n + card] = 1
                for c in range(40):
                    if take >> c & 1:
                        plays[k, n + 40 + c] = 1

    @staticmethod
    def _plays(state):
        return state._rounds.plays(0)

    def string_from(self, state: ScopaState, player: int):
        if state._rounds is None:
            return "(not dealt)"
        obs, _ = state._rounds.view(0, player)
        text = f"p{player} " + " ".join(f"{i}:{obs[i]}" for i in np.flatnonzero(obs))
        if self.recall:
            text += " plays " + " ".join(f"{s}:{c}:{t}" for s, c, t in self._plays(state))
        return text


pyspiel.register_game(_GAME_TYPE, ScopaGame)
