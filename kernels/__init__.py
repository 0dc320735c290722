"""scopa_sim.kernels: the hot path, Numba njit code only.

Contract: arrays and scalars in, arrays out; no Python objects, no I/O, no
pandas. Inputs are trusted: every check happens once in the Python face,
`scopa_sim.engine`, the only caller of these kernels (the other layers may
read the plain constants of `layout` and `registry`). Card sets are uint64
masks; rules are an int64 vector (`layout.R_*`); a seat's strategy is an
int id and a float64 parameter row. Kernels do not allocate (see `_jit`):
callers pass every array in. Import each module by name (`from
scopa_sim.kernels import batch`): this package loads none, so the plain
constants load without Numba.
"""
if __name__ != "scopa_sim.kernels":         # imported as a top-level `kernels` from the repository root
    raise ImportError("this folder is installed as scopa_sim.kernels: import scopa_sim.kernels, not "
                      "kernels (bash scripts/setup.sh installs it)")
