"""The one decorator policy for compiled code, and where its cache lives.

Every compiled function is cached on disk, releases the GIL, runs without
Numba's reference counting (`_nrt=False`: it costs two atomic operations per
array argument per call; so a kernel cannot allocate, and every array is made
by the caller, see `batch.scratch`), with the NumPy error model (no raising
on division by zero: the kernels never divide by zero, and the checks cost
branches), without `fastmath` (it would change results) and without
`parallel` (a batch is serial; parallelism lives in the runner). Every option
a callee could inherit from its caller is set here explicitly. Three kinds:

`kernel`, the default: compiled once per signature as a function of its own
and marked `alwaysinline` for LLVM (`forceinline`), so each caller gets it
inlined as machine code. (Numba's own inlining, `inline="always"`, copies the
callee's IR into every caller, transitively, in time quadratic in the copy's
size: it was most of the compile time.)

`spliced`: inlined by Numba into its caller (`inline="always"`) and compiled
there, for thin bodies that mostly call kernels (the round loop, the strategy
dispatch, the search strategies' top level): each kernel compiled on its own
is optimised by LLVM again in every caller it is linked into, so splicing a
body whose work is in kernels saves whole optimisation passes.

`outlined`: a function of its own in machine code too, called, not inlined:
for the batch kernels and for big search pieces used from several places
(`search.solve`, `minimax`, `rollout`), where a copy per caller would cost
compile time and save nothing.

No kernel may call itself: Numba cannot cache recursion (numba#6061, a
segfault).

The cache. Numba keys a cached function on its own source file only, not on
what it inlined from other files, so an edit to one kernel file can leave a
stale function cached for another. So every version of this folder gets a
cache folder of its own, named by a hash of the kernel sources (and the Numba
version): `<base>/scopa-sim/<hash>`, where `<base>` is `NUMBA_CACHE_DIR` if
set, else `$XDG_CACHE_HOME` (default `~/.cache`); if that is not writable,
`<temp>/scopa-sim-<uid>/<hash>`; if nothing is, no disk cache (each process
compiles). Numba reads the folder when a function is decorated, so `_jit` sets
it for just that moment and leaves `numba.config` as it found it. A version
folder not used for `STALE_DAYS` is deleted when a new one is made.
"""
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import numba
from numba.core import config

SOURCES = Path(__file__).resolve().parent
STALE_DAYS = 30


def source_hash(folder=SOURCES) -> str:
    """16 hex digits of sha256 over the Numba version and every `*.py` file of
    `folder` (names and bytes, in name order)."""
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(Path(folder).glob("*.py")):
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _prune(parent: Path, keep: Path) -> None:
    """Delete version folders beside `keep` not used for STALE_DAYS."""
    cutoff = time.time() - STALE_DAYS * 86400
    try:
        for old in parent.iterdir():
            if old != keep and old.is_dir() and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass


def _parents(base):
    """Where version folders may go, in order of preference."""
    base = base or config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR")
    if base:
        yield Path(base).expanduser().absolute() / "scopa-sim"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        home = Path(xdg) if os.path.isabs(xdg) else Path("~/.cache").expanduser()
        if home.is_absolute():                   # not when there is no home folder
            yield home / "scopa-sim"
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    yield Path(tempfile.gettempdir()) / f"scopa-sim-{uid}"


def cache_folder(version=None, base=None):
    """The cache folder for this version of the kernels (see the module
    docstring; `base` stands for NUMBA_CACHE_DIR), made if missing and marked
    used; None if no folder can be written."""
    version = version or source_hash()
    for parent in _parents(base):
        folder = parent / version
        new = not folder.exists()
        if _writable(folder):
            if new:
                _prune(parent, folder)
            else:
                try:
                    os.utime(folder)               # mark it used
                except OSError:
                    pass
            return folder
    return None


CACHE_DIR = cache_folder()


def _policy(**options):
    def decorate(f):
        if CACHE_DIR is None:
            return numba.njit(cache=False, **options)(f)
        saved = config.CACHE_DIR
        config.CACHE_DIR = str(CACHE_DIR)         # read here, at decoration
        try:
            return numba.njit(cache=True, **options)(f)
        finally:
            config.CACHE_DIR = saved
    return decorate


_COMMON = dict(nogil=True, _nrt=False, error_model="numpy", boundscheck=False,
               fastmath=False)
kernel = _policy(forceinline=True, **_COMMON)
spliced = _policy(inline="always", forceinline=False, **_COMMON)
outlined = _policy(forceinline=False, **_COMMON)
