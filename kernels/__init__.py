"""scopa_sim.kernels: the hot path, Numba njit code only.

Contract: arrays and scalars in, arrays out; no Python objects, no I/O, no
pandas. Inputs are trusted: every check happens once in the Python face
(`scopa_sim`). Card sets are uint64 masks; rules are an int64 vector
(`layout.R_*`); a seat's strategy is an int id and a float64 parameter row.
Kernels do not allocate (see `_jit`): callers pass every array in.
`needs_compile(strategy ids)` says whether a run will compile first.
"""
from . import ids, layout, position, rng, strategies
from .batch import needs_compile, scratch, simulate_games, simulate_rounds
from .moves import captures_of, legal_moves
from .scoring import score_round

__all__ = ["captures_of", "ids", "layout", "legal_moves", "needs_compile", "position", "rng",
           "score_round", "scratch", "simulate_games", "simulate_rounds", "strategies"]
