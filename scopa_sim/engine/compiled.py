"""The compiled kernels as a command sees them: whether a run compiles its
kernel first, and where compiled code is cached (`kernels._jit`). Loads
Numba: a command imports this when it runs, never for its help."""
from __future__ import annotations

from ..kernels._jit import CACHE_DIR  # noqa: F401  (the folder a damaged cache file is in)
from ..kernels.batch import needs_compile as kernel_needs_compile, uncached
from ..kernels.selfplay import self_play
from .rules import Rules, compiled_in, packed
from .strategies import pack_strategies


def needs_compile(strategies, rules: Rules) -> bool:
    """Whether a run of these strategies (one per seat, or per side) under
    `rules` compiles its batch kernel first, not finding it in the disk
    cache (tens of seconds, not a fraction of one)."""
    return kernel_needs_compile(pack_strategies(strategies, rules)[0],
                                packed(rules) if compiled_in(rules) else None)


def training_needs_compile() -> bool:
    """Whether a training's self-play kernel compiles first (minutes, on a
    first run: `scopa-sim train` says so on its progress line)."""
    return uncached(self_play)
