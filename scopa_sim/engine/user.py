"""User strategies: a function of what one seat sees, loaded from a file
(`PATH.py:NAME`) or a module (`package.module:NAME`), or passed in Python.

Two speeds (docs/STRATEGIES.md):

* jitted (`@numba.njit`): `f(obs, cards, takes, params) -> index`, called
  from inside the batch kernels through a function pointer (`kernels.users`);
  `obs` is the seat's observation array (`scopa_sim.observation`), `cards`
  and `takes` the legal moves as int64 arrays, `params` its float64 row.
* plain Python: `f(obs, moves)` or `f(obs, moves, params)`, with `obs` an
  `Observation`, `moves` a list of (card, captured cards) and `params` a
  dict; played by the Python round loop (`userplay`), much slower.

Parameters are declared with `@scopa_sim.params(name=default, ...)`; they are
then set as for the built-ins: `mine.py:cautious:risk=2`.

Jitted strategies are compiled with bounds checks (an index out of an
array's range raises IndexError, so the kernel around it is never read or
written out of place), unless SCOPA_SIM_BOUNDSCHECK=0 (`bounds_checked`):
a file's functions are compiled so from its import on, each mode cached in
a folder of its own; a function passed in Python is compiled again, checked.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import importlib.util
import inspect
import os
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..kernels.registry import Param
from .checks import raised

PARAMS_ATTRIBUTE = "scopa_params"
MAX_PARAMS = 16
BOUNDSCHECK_ENV = "SCOPA_SIM_BOUNDSCHECK"


class UserStrategyError(ValueError):
    """A user strategy that cannot be loaded, or has the wrong signature,
    or whose file changed since a run began."""


def bounds_checked() -> bool:
    """Whether user strategies are compiled with bounds checks: yes, unless
    the environment sets SCOPA_SIM_BOUNDSCHECK=0."""
    value = os.environ.get(BOUNDSCHECK_ENV, "1").strip()
    if value not in ("0", "1"):
        raise UserStrategyError(f"{BOUNDSCHECK_ENV} is 1 (bounds checks, the default) or 0 "
                                f"(none, faster), not {value!r}")
    return value == "1"


def params(**defaults):
    """Declare a strategy's parameters and their defaults (numbers)::

        @scopa_sim.params(risk=2.0)
        @numba.njit
        def cautious(obs, cards, takes, params): ...   # params[0] is risk
    """
    if len(defaults) > MAX_PARAMS:
        raise ValueError(f"a strategy has at most {MAX_PARAMS} parameters")
    for name, value in defaults.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"parameter {name} needs a number as its default, not {value!r}")

    def declare(function):
        setattr(function, PARAMS_ATTRIBUTE, {k: float(v) for k, v in defaults.items()})
        return function
    return declare


def is_reference(text: str) -> bool:
    """Whether a strategy text names a user strategy (`x.py:f`, `pkg.mod:f`)
    rather than a built-in (`name:key=value`)."""
    head = text.split(":", 1)[0]
    return ":" in text and any(c in head for c in "./\\")


def is_jitted(function) -> bool:
    try:
        from numba.core.registry import CPUDispatcher
    except ImportError:               # pragma: no cover - numba is a dependency
        return False
    return isinstance(function, CPUDispatcher)


@dataclass(frozen=True, eq=False)
class UserSpec:
    """A user strategy: how it was named (`text`), the function, its declared
    parameters and, when it came from a file, the file and its sha256."""
    text: str
    function: object = field(repr=False)
    params: dict[str, float]
    source: str | None = None
    digest: str | None = None
    checked: bool = True

    @property
    def name(self) -> str:
        return self.text

    @property
    def declared(self) -> tuple[Param, ...]:
        """Its parameters, as a built-in's are declared (numbers)."""
        return tuple(Param(k, v) for k, v in self.params.items())

    @property
    def jitted(self) -> bool:
        return is_jitted(self.function)

    def __eq__(self, other):
        return (isinstance(other, UserSpec) and self.function is other.function
                and self.text == other.text)

    def __hash__(self):
        return hash((self.text, id(self.function)))

    def reference(self) -> str | None:
        """How to load it again anywhere: `ABSOLUTE_PATH.py:NAME` or the
        module reference; None for a function passed in Python."""
        if self.text.startswith("<"):
            return None
        if is_file_text(self.text):
            return f"{self.source}:{self.text.rpartition(':')[2]}"
        return self.text

    def __reduce__(self):
        """Pickled by reference (for workers): loaded again from its file or
        module, and refused there if the file has changed."""
        if self.reference() is None:
            return (UserSpec, (self.text, self.function, self.params, None, None,
                               self.checked))
        return (reload, (self.text, self.reference(), self.digest, self.checked))


def reload(text: str, reference: str, digest: str | None, checked: bool = True,
           data: bytes | None = None) -> UserSpec:
    """The strategy named `text` loaded from `reference` (bounds checked or
    not); refused if its file no longer has the sha256 `digest` (a strategy
    file before any of its code runs; see `load`). With `data`, those bytes
    run as the file's (`--isolate`: the bytes read when the run began)."""
    spec = load(reference, checked, digest=digest, label=text, data=data)
    if digest is not None and spec.digest != digest:
        _changed(text, spec.source, spec.digest, digest)
    return UserSpec(text, spec.function, spec.params, spec.source, spec.digest, checked)


def _changed(text: str, source, found: str | None, digest: str):
    raise UserStrategyError(f"strategy {text}: {source} has changed since the run began "
                            f"(sha256 {(found or 'none')[:12]}, the run's {digest[:12]})")


def is_file_text(text: str) -> bool:
    where = text.rpartition(":")[0]
    return where.endswith(".py") or "/" in where or "\\" in where


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def user_cache() -> Path | None:
    """The folder of user strategies' compiled functions: `user/` in the
    kernels' cache folder (None without one; see `_compiling`)."""
    from ..kernels import _jit         # Numba: loaded to compile, never to name a strategy
    return _jit.CACHE_DIR / "user" if _jit.CACHE_DIR else None


@contextlib.contextmanager
def _compiling(checked: bool):
    """Numba's settings while a strategy file is imported and its functions
    compiled: bounds checks on every function compiled meanwhile, if
    `checked` (Numba's global switch, held under its compiler lock, so no
    other thread compiles meanwhile), and the disk cache in a folder of
    scopa-sim's (`user/checked/` or `user/unchecked/` in the kernels' cache
    folder: Numba's cache key does not say whether a function was checked),
    not beside the file: a cached function records the name of its module,
    and one cached by the user's own `import` (`mystrategy`) fails to load
    under ours (`scopa_user_...`), and the other way round. Numba reads the
    cache folder at decoration; without a folder of ours, it stays as is."""
    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock
    folder = user_cache()
    with global_compiler_lock:
        saved = config.CACHE_DIR, config.BOUNDSCHECK
        if folder is not None:
            config.CACHE_DIR = str(folder / ("checked" if checked else "unchecked"))
        if checked:
            config.BOUNDSCHECK = 1
        try:
            yield
        finally:
            config.CACHE_DIR, config.BOUNDSCHECK = saved


def _clear_user_cache() -> None:
    """Delete the cached files of `_compiling`'s folders (ours), keeping
    the folders (Numba writes into them), so every user function compiles
    afresh."""
    folder = user_cache()
    if folder is not None:
        for f in folder.rglob("*.nb[ic]"):
            f.unlink(missing_ok=True)


def _module_from_file(path: Path, text: str, checked: bool, expected: str | None = None,
                      data: bytes | None = None):
    """Execute a strategy file as a module of its own (one per file, content
    and bounds-check mode), so that two files of the same name never mix;
    the module and the sha256 of the bytes it was made from (the file is
    read once, and those bytes run; or `data`, given as its bytes). With
    `expected`, bytes of another sha256 are refused before they run."""
    try:
        data = path.read_bytes() if data is None else data
    except OSError as e:
        raise UserStrategyError(f"strategy {text}: cannot read {path}: "
                                f"{e.strerror or e}") from None
    digest = hashlib.sha256(data).hexdigest()
    if expected is not None and digest != expected:
        _changed(text, path, digest, expected)
    mode = b"\0checked" if checked else b"\0unchecked"
    name = "scopa_user_" + hashlib.sha256(str(path).encode() + b"\0" + data + mode).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name], digest
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with _compiling(checked):
            exec(compile(data, str(path), "exec"), module.__dict__)     # noqa: S102
    except (Exception, SystemExit) as e:           # a strategy file may not end the program
        del sys.modules[name]
        raise UserStrategyError(f"strategy {text}: {path.name} fails to load: "
                                f"{raised(e)}") from None
    return module, digest


def load(text: str, checked: bool | None = None, digest: str | None = None,
         label: str | None = None, data: bytes | None = None) -> UserSpec:
    """The user strategy `PATH.py:NAME` or `package.module:NAME`, its
    signature checked, compiled with bounds checks if `checked` (default:
    `bounds_checked()`). With `digest`, a file of another sha256 is refused
    before any of its code runs (`label`: the strategy's name in that
    error); with `data`, the file's bytes as given (see `reload`); a
    module, once imported (finding `package.module` imports
    `package`)."""
    checked = bounds_checked() if checked is None else checked
    where, _, name = text.rpartition(":")
    if not where or not name.isidentifier():
        raise UserStrategyError(f"a user strategy is written PATH.py:NAME or "
                                f"package.module:NAME, not {text!r}")
    expected, source, digest = digest, None, None
    if is_file_text(text):
        path = Path(where).expanduser()
        if data is None and not path.is_file():
            raise UserStrategyError(f"strategy {text}: no file {where}")
        if path.suffix != ".py":
            raise UserStrategyError(f"strategy {text}: {where} is not a Python file (.py)")
        path = path.resolve()
        module, digest = _module_from_file(path, label or text, checked, expected, data)
        source = str(path)
    else:
        try:
            with _compiling(checked):
                module = importlib.import_module(where)
        except (Exception, SystemExit) as e:
            raise UserStrategyError(f"strategy {text}: cannot import {where}: "
                                    f"{raised(e)}") from None
        file = getattr(module, "__file__", None)
        if file:
            source, digest = str(Path(file).resolve()), digest_of(Path(file))
    function = getattr(module, name, None)
    if function is None:
        raise UserStrategyError(f"strategy {text}: {where} has no {name}")
    return make(function, text, source, digest, checked, loaded=True)


def make(function, text: str | None = None, source=None, digest=None,
         checked: bool | None = None, loaded: bool = False) -> UserSpec:
    """A user strategy from a function (jitted or Python), its signature
    checked; a jitted one bounds checked if `checked` (default:
    `bounds_checked()`), compiled again so unless `loaded` (by `load`, which
    compiled the file so)."""
    checked = bounds_checked() if checked is None else checked
    name = str(getattr(function, "__name__", "strategy"))
    text = text or (name if name.startswith("<") else f"<{name}>")    # "<lambda>" stays
    if not callable(function):
        raise UserStrategyError(f"strategy {text} is not a function")
    declared = getattr(function, PARAMS_ATTRIBUTE, {})
    if is_jitted(function):
        if checked and not loaded:
            function = _checked_copy(function)
        _check_jitted(function, text, checked)
    else:
        _check_python(function, text, bool(declared))
    return UserSpec(text, function, dict(declared), source, digest, checked)


def _checked_copy(function):
    """A jitted function passed in Python, compiled again with bounds checks
    (not cached: Numba's cache would not tell it from the unchecked one);
    one copy per function, kept on it."""
    copy = getattr(function, "_scopa_checked", None)
    if copy is None:
        import numba
        options = {k: v for k, v in function.targetoptions.items() if k != "nopython"}
        copy = numba.njit(**{**options, "boundscheck": True})(function.py_func)
        setattr(copy, PARAMS_ATTRIBUTE, getattr(function, PARAMS_ATTRIBUTE, {}))
        function._scopa_checked = copy
    return copy


def _check_jitted(function, text: str, checked: bool) -> None:
    from numba.core import types
    from numba.core.errors import NumbaError

    from ..kernels.users import SIGNATURE
    contract = (f"strategy {text}: a jitted strategy is f(obs, cards, takes, params) on int64, "
                f"int64, int64 and float64 arrays, returning an int (int64)")
    try:
        try:
            with _compiling(checked):
                function.compile(SIGNATURE.args)
        except (pickle.UnpicklingError, EOFError):  # a damaged file of our cache: drop it
            _clear_user_cache()
            with _compiling(checked):
                function.compile(SIGNATURE.args)
    except (NumbaError, TypeError, ValueError) as e:
        first = next((line for line in str(e).splitlines() if line.strip()), "")
        raise UserStrategyError(f"{contract}: {first.strip()}") from None
    returns = types.unliteral(function.overloads[SIGNATURE.args].signature.return_type)
    if returns != SIGNATURE.return_type:                 # `return 0` types as Literal[int](0)
        raise UserStrategyError(f"{contract}, not {returns}")


def _check_python(function, text: str, has_params: bool) -> None:
    arity = python_arity(function)
    if arity not in (2, 3) or (has_params and arity != 3):
        declares = " (it declares parameters)" if has_params else ""
        raise UserStrategyError(f"strategy {text}: a Python strategy is f(obs, moves) or "
                                f"f(obs, moves, params){declares}, not one of {arity} "
                                f"arguments")


def python_arity(function) -> int:
    """The positional arguments a Python strategy takes without defaults
    (2: obs, moves; 3: and params)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 2
    return len([p for p in parameters if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])


def user_call(spec: UserSpec, rules):
    """`f(obs, cards, takes, params)` (arrays) calling user strategy `spec`
    as it takes its arguments: a jitted one as is, a Python one with an
    `Observation`, a list of moves and (if it takes them) a dict of params."""
    if spec.jitted:
        return spec.function
    from .observation import Observation      # Numba's observe kernels: only to call one
    from .cards import cards_of
    takes_params = python_arity(spec.function) == 3

    def call(obs, cards, takes, p):
        moves = [(int(c), tuple(cards_of(int(t)))) for c, t in zip(cards, takes)]
        args = [Observation.from_array(obs, copy.copy(rules)), moves]    # its own rules
        if takes_params:
            args.append(dict(zip(spec.params, map(float, p))))
        return spec.function(*args)
    return call
