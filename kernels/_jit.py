"""The one decorator policy for compiled code, and where its cache lives.

Every compiled function is cached on disk, releases the GIL, runs without
Numba's reference counting (`_nrt=False`: it costs two atomic operations per
array argument per call; so a kernel cannot allocate, and every array is made
by the caller, see `batch.scratch`), with the NumPy error model (no raising
on division by zero: the kernels never divide by zero, and the checks cost
branches), without `fastmath` (it would change results) and without
`parallel` (a batch is serial; parallelism lives in the runner). Every option
a callee could inherit from its caller is set here explicitly.

Compiled without wrappers. Numba gives every compiled function a CPython
wrapper (unboxing its arguments, a record field by field) and a C one, and
optimises and emits them with it; a kernel called only from compiled code
never needs them, and they were a quarter of a first compile. So `kernel`
and `outlined` functions are compiled without (`Compiled`), for compiled
callers; a call from Python goes to `from_python`, the same function
compiled with the wrappers, on first use, and cached in files of its own (a
function without wrappers called from Python would crash the process).

Three kinds:

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
version): `<base>/scopa-sim-cache/<hash>`, where `<base>` is `NUMBA_CACHE_DIR`
if set, else `$XDG_CACHE_HOME` (default `~/.cache`); if that is not writable,
`<temp>/scopa-sim-cache-<uid>/<hash>` (a folder of this user's, not a link);
if nothing is, no disk cache (each process compiles). Numba reads the folder
when a function is decorated, so `_jit` sets it for just that moment and
leaves `numba.config` as it found it.

Clean-up deletes only what is ours. The parent folder has a name no user
folder would have and, when we make it, a `CACHEDIR.TAG` (the Cache
Directory Tagging spec: backup tools skip it); every version folder we make
holds our marker file, `MARKER`. When a new version folder is made, a version
folder beside it is deleted only if it is a real folder (not a link, looked
at with lstat), carries our marker (a regular file, not a link, with our
text), has not been used for `STALE_DAYS`, and the parent carries our tag.
Anything else there (a user's files, links, folders without the marker) is
left alone, wherever `NUMBA_CACHE_DIR` points (`$HOME`, `..`, a project).
The folder is deleted by `shutil.rmtree`, which removes links inside it, never
what they point to.
"""
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

import numba
from numba.core import config
from numba.core.registry import CPUDispatcher


def _numpy_support_without_the_blas_probe() -> None:
    """Load Numba's NumPy support telling its BLAS probe 'none': the probe
    imports scipy.linalg (0.2 s of CPU, a fifth of a warm `simulate`) when
    Numba's target starts, and no kernel calls BLAS. Numba asks again when it
    compiles a function that does (a user's `np.dot`), and then finds it."""
    probe = "scipy.linalg.cython_blas"
    if probe in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules[probe] = None                 # `import` of it: ImportError, nothing loaded
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[probe]


_numpy_support_without_the_blas_probe()
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


PARENT = "scopa-sim-cache"
MARKER = ".scopa-sim-cache-version"
MARKER_TEXT = b"scopa-sim kernel cache: a version folder that scopa-sim may delete\n"
TAG = "CACHEDIR.TAG"
TAG_TEXT = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
            b"# This file is a cache directory tag created by scopa-sim (Numba's compiled\n"
            b"# kernels). For information about cache directory tags, see:\n"
            b"#\thttps://bford.info/cachedir/\n")


def _is_ours(path: Path, name: str, text: bytes) -> bool:
    """Whether `path/name` is a regular file (not a link) starting with `text`."""
    try:
        st = os.lstat(path / name)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 4096:
            return False
        with open(path / name, "rb") as f:
            return f.read(len(text)) == text
    except OSError:
        return False


def _write_new(path: Path, data: bytes) -> None:
    """Write a file that must not exist yet (never through a link)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o644)
    except OSError:
        return
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _prune(parent: Path, keep: Path) -> None:
    """Delete our version folders beside `keep` not used for STALE_DAYS (see
    the module docstring: nothing that is not marked as ours, no link)."""
    if not _is_ours(parent, TAG, TAG_TEXT) or not shutil.rmtree.avoids_symlink_attacks:
        return
    cutoff = time.time() - STALE_DAYS * 86400
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        old = Path(entry.path)
        try:
            st = os.lstat(old)
        except OSError:
            continue
        if (old.name == keep.name or not stat.S_ISDIR(st.st_mode) or st.st_mtime >= cutoff
                or not _is_ours(old, MARKER, MARKER_TEXT)):
            continue
        shutil.rmtree(old, ignore_errors=True)


def _parents(base):
    """Where version folders may go, in order of preference, each with
    whether it must be a folder of this user's (the shared temporary folder)."""
    base = base or config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR")
    if base:
        yield Path(base).expanduser().absolute() / PARENT, False
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        home = Path(xdg) if os.path.isabs(xdg) else Path("~/.cache").expanduser()
        if home.is_absolute():                   # not when there is no home folder
            yield home / PARENT, False
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    yield Path(tempfile.gettempdir()) / f"{PARENT}-{uid}", True


def _own_folder(folder: Path) -> bool:
    """Whether `folder` is a real folder (not a link) of this user's."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid())


def cache_folder(version=None, base=None):
    """The cache folder for this version of the kernels (see the module
    docstring; `base` stands for NUMBA_CACHE_DIR), made if missing and marked
    used; None if no folder can be written."""
    version = version or source_hash()
    for parent, private in _parents(base):
        made_parent = not os.path.lexists(parent)
        if private and not made_parent and not _own_folder(parent):
            continue                               # another user's, or a link: not ours
        folder = parent / version
        new = not os.path.lexists(folder)
        if not _writable(folder) or (private and not _own_folder(parent)):
            continue
        if made_parent:
            _write_new(parent / TAG, TAG_TEXT)
        if new:
            _write_new(folder / MARKER, MARKER_TEXT)
            _prune(parent, folder)
        else:
            try:
                os.utime(folder)               # mark it used
            except OSError:
                pass
        return folder
    return None


CACHE_DIR = cache_folder()


class Compiled(CPUDispatcher):
    """A compiled function without the wrappers a call from Python needs
    (see the module docstring); such a call goes to `from_python`."""

    def __call__(self, *args, **kwargs):
        return self.from_python(*args, **kwargs)

    @property
    def from_python(self):
        """The same function compiled with the wrappers, for calls from
        Python: made on first use, cached in files of its own (Numba names a
        cache file by the function's qualified name and keys it on the
        signature alone, so the two must not share one)."""
        twin = self.__dict__.get("_from_python")
        if twin is None:
            with _TWINS:
                twin = self.__dict__.get("_from_python")
                if twin is None:
                    f = self.py_func
                    g = types.FunctionType(f.__code__, f.__globals__, f.__name__,
                                           f.__defaults__, f.__closure__)
                    g.__qualname__, g.__doc__ = f.__qualname__ + "_from_python", f.__doc__
                    options = {k: v for k, v in self.targetoptions.items()
                               if k not in _WRAPPERLESS}
                    twin = self.__dict__["_from_python"] = _dispatcher(CPUDispatcher, g, options)
        return twin


def from_python(function):
    """The dispatcher a call of `function` from Python reaches (itself, or a
    wrapperless one's `from_python`): whose overloads and cache say whether
    such a call compiles first."""
    return function.from_python if isinstance(function, Compiled) else function


def _dispatcher(cls, f, options):
    """`f` compiled lazily by a `cls` dispatcher, cached in CACHE_DIR (Numba
    reads the folder here, so it is set for this moment only)."""
    d = cls(py_func=f, locals={}, targetoptions={"nopython": True, **options})
    if CACHE_DIR is not None:
        saved = config.CACHE_DIR
        config.CACHE_DIR = str(CACHE_DIR)
        try:
            d.enable_caching()
        finally:
            config.CACHE_DIR = saved
    return d


def _policy(cls, **options):
    def decorate(f):
        return _dispatcher(cls, f, options)
    return decorate


_TWINS = threading.Lock()
_WRAPPERLESS = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)
_COMMON = dict(nogil=True, _nrt=False, error_model="numpy", boundscheck=False,
               fastmath=False)
kernel = _policy(Compiled, forceinline=True, **_WRAPPERLESS, **_COMMON)
spliced = _policy(CPUDispatcher, inline="always", forceinline=False, **_COMMON)
outlined = _policy(Compiled, forceinline=False, **_WRAPPERLESS, **_COMMON)
