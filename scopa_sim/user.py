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
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path

from numba.core import config

from .kernels import _jit
from .kernels.ids import Param

PARAMS_ATTRIBUTE = "scopa_params"
USER_CACHE = _jit.CACHE_DIR / "user" if _jit.CACHE_DIR else None   # see _cached_apart
MAX_PARAMS = 16


class UserStrategyError(ValueError):
    """A user strategy that cannot be loaded, or has the wrong signature,
    or whose file changed since a run began."""


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
            return (UserSpec, (self.text, self.function, self.params))
        return (reload, (self.text, self.reference(), self.digest))


def reload(text: str, reference: str, digest: str | None) -> UserSpec:
    """The strategy named `text` loaded from `reference`; refused if its
    file no longer has the sha256 `digest` (a strategy file before any of
    its code runs; see `load`)."""
    spec = load(reference, digest, text)
    if digest is not None and spec.digest != digest:
        _changed(text, spec.source, spec.digest, digest)
    return UserSpec(text, spec.function, spec.params, spec.source, spec.digest)


def _changed(text: str, source, found: str | None, digest: str):
    raise UserStrategyError(f"strategy {text}: {source} has changed since the run began "
                            f"(sha256 {(found or 'none')[:12]}, the run's {digest[:12]})")


def is_file_text(text: str) -> bool:
    where = text.rpartition(":")[0]
    return where.endswith(".py") or "/" in where or "\\" in where


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def _cached_apart():
    """Numba's disk cache, for the functions a strategy file decorates, in a
    folder of scopa-sim's (`user/` in the kernels' cache folder), not beside
    the file: a cached function records the name of its module, and one
    cached by the user's own `import` (`mystrategy`) fails to load under
    ours (`scopa_user_...`), and the other way round. Numba reads the folder
    at decoration; without a folder of ours, nothing changes."""
    saved = config.CACHE_DIR
    if USER_CACHE is not None:
        config.CACHE_DIR = str(USER_CACHE)
    try:
        yield
    finally:
        config.CACHE_DIR = saved


def _clear_user_cache() -> None:
    """Delete the cached files of `_cached_apart`'s folder (ours), keeping
    its folders (Numba writes into them), so every user function compiles
    afresh."""
    if USER_CACHE is not None:
        for f in USER_CACHE.glob("*/*.nb[ic]"):
            f.unlink(missing_ok=True)


def _module_from_file(path: Path, text: str, expected: str | None = None):
    """Execute a strategy file as a module of its own (one per file and
    content), so that two files of the same name never mix; the module and
    the sha256 of the bytes it was made from (the file is read once, and
    those bytes run). With `expected`, bytes of another sha256 are refused
    before they run."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UserStrategyError(f"strategy {text}: cannot read {path}: "
                                f"{e.strerror or e}") from None
    digest = hashlib.sha256(data).hexdigest()
    if expected is not None and digest != expected:
        _changed(text, path, digest, expected)
    name = "scopa_user_" + hashlib.sha256(str(path).encode() + b"\0" + data).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name], digest
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with _cached_apart():
            exec(compile(data, str(path), "exec"), module.__dict__)     # noqa: S102
    except (Exception, SystemExit) as e:           # a strategy file may not end the program
        del sys.modules[name]
        raise UserStrategyError(f"strategy {text}: {path.name} fails to load: "
                                f"{type(e).__name__}: {e}") from None
    return module, digest


def load(text: str, digest: str | None = None, label: str | None = None) -> UserSpec:
    """The user strategy `PATH.py:NAME` or `package.module:NAME`, checked.
    With `digest`, a file of another sha256 is refused before any of its
    code runs (`label`: the strategy's name in that error); a module, once
    imported (finding `package.module` imports `package`)."""
    where, _, name = text.rpartition(":")
    if not where or not name.isidentifier():
        raise UserStrategyError(f"a user strategy is written PATH.py:NAME or "
                                f"package.module:NAME, not {text!r}")
    expected, source, digest = digest, None, None
    if is_file_text(text):
        path = Path(where).expanduser()
        if not path.is_file():
            raise UserStrategyError(f"strategy {text}: no file {where}")
        if path.suffix != ".py":
            raise UserStrategyError(f"strategy {text}: {where} is not a Python file (.py)")
        path = path.resolve()
        module, digest = _module_from_file(path, label or text, expected)
        source = str(path)
    else:
        try:
            module = importlib.import_module(where)
        except (Exception, SystemExit) as e:
            raise UserStrategyError(f"strategy {text}: cannot import {where}: "
                                    f"{type(e).__name__}: {e}") from None
        file = getattr(module, "__file__", None)
        if file:
            source, digest = str(Path(file).resolve()), digest_of(Path(file))
    function = getattr(module, name, None)
    if function is None:
        raise UserStrategyError(f"strategy {text}: {where} has no {name}")
    return make(function, text, source, digest)


def make(function, text: str | None = None, source=None, digest=None) -> UserSpec:
    """A user strategy from a function (jitted or Python), its signature checked."""
    name = str(getattr(function, "__name__", "strategy"))
    text = text or (name if name.startswith("<") else f"<{name}>")    # "<lambda>" stays
    if not callable(function):
        raise UserStrategyError(f"strategy {text} is not a function")
    declared = getattr(function, PARAMS_ATTRIBUTE, {})
    if is_jitted(function):
        _check_jitted(function, text)
    else:
        _check_python(function, text, bool(declared))
    return UserSpec(text, function, dict(declared), source, digest)


def _check_jitted(function, text: str) -> None:
    from numba.core import types
    from numba.core.errors import NumbaError

    from .kernels.users import SIGNATURE
    contract = (f"strategy {text}: a jitted strategy is f(obs, cards, takes, params) on int64, "
                f"int64, int64 and float64 arrays, returning an int (int64)")
    try:
        try:
            function.compile(SIGNATURE.args)
        except (pickle.UnpicklingError, EOFError):  # a damaged file of our cache: drop it
            _clear_user_cache()
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
