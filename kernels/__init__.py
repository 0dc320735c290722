"""scopa_sim.kernels: the hot path, Numba njit code only.

Contract: arrays and scalars in, arrays out; no Python objects, no I/O, no
pandas. Inputs are trusted: every check happens once in the Python face
(`scopa_sim`). Card sets are uint64 masks; rules are an int64 vector
(`layout.R_*`); a seat's strategy is an int id and a float64 parameter row.
Kernels do not allocate (see `_jit`): callers pass every array in.
`needs_compile(strategy ids)` says whether a run will compile first.
"""
if __name__ != "scopa_sim.kernels":         # imported as a top-level `kernels` from the repository root
    raise ImportError("this folder is installed as scopa_sim.kernels: import scopa_sim.kernels, not "
                      "kernels (bash scripts/setup.sh installs it)")

import importlib

from . import layout, registry        # plain constants (numpy only): light to import

_WHERE = {"captures_of": "moves", "legal_moves": "moves", "needs_compile": "batch",
          "scratch": "batch", "simulate_games": "batch", "simulate_rounds": "batch",
          "simulate_units": "batch",
          "score_round": "scoring"}
_MODULES = ("batch", "deals", "moves", "net", "observe", "play", "position", "rng", "round", "scoring",
            "search", "selfplay", "strategies", "users")
__all__ = ["layout", "registry", *_MODULES, *_WHERE]


def __getattr__(name: str):
    """Numba and the compiled kernels load on first use, so that the command
    line's help and listings answer at once."""
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
