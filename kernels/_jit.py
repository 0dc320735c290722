"""The one decorator policy for compiled code.

`kernel`: cached on disk, GIL released, inlined into its callers, and compiled
without Numba's reference counting (`_nrt=False`). Reference counting costs
two atomic operations per array argument per call, which was most of the
run time of a round; without it a kernel cannot allocate, so every array is
made by the caller (`alloc` functions, or Python). No `fastmath`, no
`parallel`: a batch is serial; parallelism lives in the runner.

`alloc`: the same, with reference counting, for the few functions that make
arrays (scratch space); never called from a `kernel`. `outlined`: a kernel
compiled as a function of its own, not inlined: for big kernels (a round,
a search), where inlining costs compile time and saves nothing. No kernel
may call itself: Numba cannot cache recursion (numba#6061, a segfault).
"""
import functools

import numba

kernel = functools.partial(numba.njit, cache=True, nogil=True, _nrt=False,
                           inline="always")
alloc = functools.partial(numba.njit, cache=True, nogil=True)
outlined = functools.partial(numba.njit, cache=True, nogil=True, _nrt=False)
