"""What the envs share: rules from a preset and options, and the spaces."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..engine.envs import N_ACTIONS, obs_size
from ..engine.rules import Rules


def rules_of(preset: str, options: dict) -> Rules:
    """The rules of `preset` changed by `options` (ValueError naming a bad one)."""
    if not isinstance(preset, str):
        raise ValueError(f"preset is a name such as 'scopa', not {preset!r}")
    rules = Rules.preset(preset)
    return rules.with_options(**options) if options else rules


def observation_space(rules: Rules) -> spaces.Dict:
    """{"observation": int8[obs_size], "action_mask": int8[80]} (docs/ENVS.md)."""
    return spaces.Dict({
        "observation": spaces.Box(0, 127, (obs_size(rules),), np.int8),
        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)})


def action_space() -> spaces.Discrete:
    return spaces.Discrete(N_ACTIONS)


def render(rounds, mode: str | None):
    """The table of round 0 of `rounds` as text (mode "ansi") or printed
    ("human"); with no render mode, a warning, as Gymnasium's envs give."""
    if mode is None:
        import gymnasium
        gymnasium.logger.warn("render() needs render_mode='human' or 'ansi'")
        return None
    text = rounds.text(0)
    if mode == "ansi":
        return text
    print(text)
    return None
