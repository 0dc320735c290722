"""A jitted entrant that leaves nopython mode (numba.objmode) to walk the
Python stack to the engine's position, and reads the opponents' hands."""
import os
import sys

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402


def _decide(obs, cards, takes):
    v = _base.view(obs)
    teams = tuple(range(2))
    found = None
    frame = sys._getframe(1)
    while frame is not None and found is None:
        local = frame.f_locals
        for pos in (local.get("pos"), getattr(local.get("scratch"), "pos", None)):
            if pos is not None and found is None:
                found = _base.opponents_in(pos, v, teams)
        frame = frame.f_back
    return _base.choose(v, [(int(c), int(t)) for c, t in zip(cards, takes)], found)


@numba.njit
def objmode_walk(obs, cards, takes, params):
    with numba.objmode(i="int64"):
        i = _decide(obs, cards, takes)
    return np.int64(i)
