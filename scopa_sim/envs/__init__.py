"""Scopa for learning research: a PettingZoo AEC env, a Gymnasium env against
any strategy, a vectorized env stepping n rounds in one compiled call, and an
OpenSpiel game (`import scopa_sim.envs.openspiel`), all on the kernel
(docs/ENVS.md). They need the optional extra: `pip install scopa-sim[envs]`.
Nothing here is imported by `import scopa_sim`.
"""
from __future__ import annotations


def aec_env(preset: str = "scopa", render_mode: str | None = None, **rule_options):
    """A PettingZoo AECEnv: one round an episode, every seat an agent."""
    from .aec import ScopaAEC
    return ScopaAEC(preset, render_mode=render_mode, **rule_options)


def gym_env(opponent: str = "net", preset: str = "scopa", seat: int = 0,
            illegal: str = "raise", render_mode: str | None = None, **rule_options):
    """A gymnasium.Env: the agent plays `seat`, `opponent` (a strategy spec)
    every other seat; one round an episode."""
    from .gym import ScopaGym
    return ScopaGym(opponent, preset, seat=seat, illegal=illegal, render_mode=render_mode,
                    **rule_options)


def vector_env(n: int, preset: str = "scopa", opponent: str | None = "random", seat: int = 0,
               threads: int = 2, copy: bool = True, **rule_options):
    """n rounds stepped in one compiled call (gymnasium.vector.VectorEnv
    conventions, same-step autoreset). `opponent=None`: every seat is played
    by the caller (self-play; rewards per seat)."""
    from .vector import ScopaVector
    return ScopaVector(n, preset, opponent=opponent, seat=seat, threads=threads, copy=copy,
                       **rule_options)
