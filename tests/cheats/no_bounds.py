"""A jitted entrant that turns Numba's bounds checks off for itself at
import (numba.core.config.BOUNDSCHECK = 0, compiled at once) and reads
past the end of its observation for the engine's position."""
import os
import sys

import numba
import numba.core.config
import numpy as np
from numba import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _jit_base import choose, looks_like_position  # noqa: E402
from scopa_sim.observation import SIZE  # noqa: E402

numba.core.config.BOUNDSCHECK = 0
SIGNATURE = types.int64(types.int64[::1], types.int64[::1], types.int64[::1], types.float64[::1])


@numba.njit(boundscheck=False)
def no_bounds(obs, cards, takes, params):
    found = np.int64(-1)
    w = np.zeros(13, np.int64)
    for k in range(SIZE, SIZE + 256):
        for j in range(13):
            w[j] = obs[k + j]            # past the end: whatever memory holds
        x = looks_like_position(w, obs)
        if x >= 0:
            found = x
    return choose(obs, cards, takes, found)


no_bounds.compile(SIGNATURE.args)
