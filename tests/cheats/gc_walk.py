"""A Python entrant that looks through every object of the process
(gc.get_objects) for the engine's scratch arrays, and reads the opponents'
hands there."""
import gc
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402

FOUND = {"scratch": None, "calls": 0, "last_scan": -10**9}


def _scan(v, teams):
    for o in gc.get_objects():
        pos = getattr(o, "pos", None) if isinstance(o, tuple) else None
        if pos is not None and _base.opponents_in(pos, v, teams) is not None:
            return o
    return None


def gc_walk(obs, moves):
    v, teams = _base.view(obs), obs.rules.teams
    FOUND["calls"] += 1
    s = FOUND["scratch"]
    known = _base.opponents_in(s.pos, v, teams) if s is not None else None
    if known is None and FOUND["calls"] - FOUND["last_scan"] >= 200:
        FOUND["last_scan"] = FOUND["calls"]
        FOUND["scratch"] = s = _scan(v, teams)
        known = _base.opponents_in(s.pos, v, teams) if s is not None else None
    return _base.choose(v, _base.moves_of(moves), known)
