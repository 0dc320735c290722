"""Entrants in processes of their own (`--isolate`): a fair contest of user
strategies nobody vouches for.

Every user strategy plays each of its seats from a process of its own
(`Entrant`), started clean: `python -I -m scopa_sim.engine.isolate`, a
minimal environment, no open files but its two pipes, a fresh empty working
folder, a session of its own (its whole process group is killed when it is
done), and the kernel's confinement (`confine`: namespaces, Landlock,
rlimits, a runner that is not dumpable) applied before a byte of its code
loads. It never sees the run's seed, arguments or files, nor another
entrant's: the host reads each strategy file once, when the run begins,
and hands its bytes over with the handshake (a later change on disk cannot
matter); the host loads no entrant's code (what a strategy declares comes
from its first process, `describe`), and each decision sends a copy of the
seat's observation, the legal moves and the parameter row, and reads back
one move index.

The pipes carry fixed-layout frames (native int64/float64)::

    handshake   host -> entrant   u32 length, JSON {text, reference, digest, checked, rules,
                                  code (the file's bytes, base64), landlock (ABI to apply)}
                entrant -> host   u32 length, JSON {params, source, digest} or {error}
    decision    host -> entrant   int64 [seq, n], obs int64[O_SIZE], params float64[N_PARAMS],
                                  cards int64[n], takes int64[n]
                entrant -> host   int64 [seq, index]   (index BAD: not a whole number)

A handshake has `START_TIMEOUT` seconds (importing Numba and compiling a
jitted strategy), a decision `move_timeout`. A process that does not answer
in time, dies, fails to start again, or answers anything but an index of
a legal move FORFEITS (`Forfeit`): it is killed, and its next decision
starts a fresh one. A forfeit it need not have caused (its process killed
by a signal that is not one of a fault's, or found stopped) is "suspect":
counted apart and never charged. After `MAX_FORFEITS` charged forfeits an
entrant is out: it forfeits the rounds left unasked. What the round does
with a forfeit is `seats.Seats.play_in_python`'s.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from . import confine
from .checks import raised

START_TIMEOUT = 60.0            # seconds for an entrant to start and load its strategy
MOVE_TIMEOUT = 1.0              # seconds for a decision (--move-timeout's default)
BAD = -(2**63)                  # the answer for a return that is not a whole number
FILE_LIMIT = 16 * 2**20         # bytes: the largest file an entrant may write
MAX_FORFEITS = 20               # rounds an entrant may forfeit before it is out of the run
KINDS = ("timeout", "crash", "bad answer", "suspect", "out")
FAULTS = (signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGABRT,
          signal.SIGXFSZ, signal.SIGXCPU, signal.SIGSYS)      # signals a process earns itself
ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "SCOPA_SIM_BOUNDSCHECK", "SYSTEMROOT")
PIPE_CHUNK = 4096                # bytes a write to a pipe ready for writing takes whole
_HEAD = struct.Struct("<I")
_REPLY = struct.Struct("<qq")


class IsolateError(ValueError):
    """An entrant that cannot start (its strategy fails to load), or a use
    of --isolate that cannot be kept. `suspect`: its start was stopped from
    outside (a signal it need not have earned, or SIGSTOP)."""
    suspect = False


class Forfeit(Exception):
    """An entrant forfeits its round: `kind` is one of KINDS."""

    def __init__(self, name: str, kind: str, why: str):
        super().__init__(f"entrant {name} forfeits: {why}")
        self.name, self.kind = name, kind


class Closed(RuntimeError):
    """The entrants' processes were stopped (the run ended or was interrupted)."""


class Remote:
    """The function of a user strategy that plays in its entrant's
    processes: never called in this one."""
    isolated = True
    __name__ = "remote"

    def __call__(self, *args):
        raise IsolateError("under --isolate a user strategy plays only at a seat, in its "
                           "own process")


# -- the host's side ----------------------------------------------------------
def _declared(text: str, answer: dict) -> tuple[dict[str, float], str | None, str | None]:
    """What an entrant's process says its strategy declares (params, source,
    digest), checked as data: it comes from the entrant."""
    import math
    import re

    from .user import MAX_PARAMS
    params, source, digest = (answer.get(k) for k in ("params", "source", "digest"))
    ok = (isinstance(params, dict) and len(params) <= MAX_PARAMS
          and all(isinstance(k, str) and k.isidentifier() and type(v) in (int, float)
                  and math.isfinite(v) for k, v in params.items())
          and (source is None or isinstance(source, str))
          and (digest is None or isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)))
    if not ok:
        raise IsolateError(f"entrant {text} answered its start with something else than what "
                           f"its strategy declares")
    return {k: float(v) for k, v in params.items()}, source, digest


def _environment(scratch: str) -> dict[str, str]:
    """The few variables an entrant needs (and nothing of the run's): its
    home, temporary files and Numba cache in its own `scratch` folder (a
    cache of its own: it cannot poison the shared one)."""
    return {**{k: os.environ[k] for k in ENVIRONMENT if k in os.environ}, "HOME": scratch,
            "TMPDIR": scratch, "NUMBA_CACHE_DIR": os.path.join(scratch, "numba")}


def _limits() -> None:      # pragma: no cover - runs in the child before exec
    """No core files, no big files, in the entrant's process."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    except (ImportError, ValueError, OSError):
        pass


def _read(fd: int, size: int, deadline: float) -> bytes:
    """Exactly `size` bytes from `fd` by `deadline` (time.monotonic), or
    TimeoutError; EOFError if the pipe closes first."""
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _write(fd: int, data: bytes, deadline: float) -> None:
    """All of `data` to `fd` by `deadline`, or TimeoutError (a reader that
    stopped reading cannot hold the host)."""
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise TimeoutError
        view = view[os.write(fd, view[:PIPE_CHUNK]):]


@dataclass
class Entrant:
    """One entrant's process for one seat: `start`, `ask`, `stop`."""
    name: str
    hello: dict                      # the handshake (see the module docstring)
    prefix: list = field(default_factory=list)     # the namespaces' command (`confine`)
    process: subprocess.Popen | None = None
    folder: tempfile.TemporaryDirectory | None = None
    seq: int = 0

    def start(self, timeout: float = START_TIMEOUT) -> dict:
        """Start the process and load the strategy; its answer (params,
        source, digest). IsolateError if it cannot load it."""
        self.folder = tempfile.TemporaryDirectory(prefix="scopa-entrant-",
                                                  ignore_cleanup_errors=True)
        self.process = subprocess.Popen(
            [*self.prefix, sys.executable, "-I", "-m", "scopa_sim.engine.isolate"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_environment(self.folder.name),
            cwd=self.folder.name, close_fds=True,
            start_new_session=True, preexec_fn=_limits if os.name == "posix" else None)
        body = json.dumps(self.hello).encode()
        deadline = time.monotonic() + timeout
        try:
            _write(self.process.stdin.fileno(), _HEAD.pack(len(body)) + body, deadline)
            size, = _HEAD.unpack(_read(self.process.stdout.fileno(), _HEAD.size, deadline))
            answer = json.loads(_read(self.process.stdout.fileno(), min(size, 2**20), deadline))
        except (OSError, EOFError, TimeoutError, ValueError) as e:
            suspect = self._stopped() or self._signalled()
            self.stop()
            why = "took too long to start" if isinstance(e, TimeoutError) else "failed to start"
            error = IsolateError(f"entrant {self.name} {why}")
            error.suspect = suspect
            raise error from None
        if not isinstance(answer, dict) or "error" in answer:
            self.stop()
            raise IsolateError(str(answer.get("error") if isinstance(answer, dict) else answer))
        return answer

    def ask(self, obs, params, cards, takes, timeout: float) -> int:
        """The index the strategy plays among the len(cards) legal moves;
        Forfeit (the process stopped) on a timeout, a crash or a bad answer."""
        p = self.process
        if p is None:
            raise Closed(f"entrant {self.name} was stopped")
        self.seq += 1
        n = len(cards)
        frame = (np.array([self.seq, n], np.int64).tobytes() + obs.astype(np.int64).tobytes()
                 + params.astype(np.float64).tobytes() + np.asarray(cards, np.int64).tobytes()
                 + np.asarray(takes).astype(np.int64).tobytes())
        deadline = time.monotonic() + timeout
        try:
            _write(p.stdin.fileno(), frame, deadline)
            seq, i = _REPLY.unpack(_read(p.stdout.fileno(), _REPLY.size, deadline))
        except TimeoutError:
            if self._stopped():
                self._forfeit("suspect", "its process was stopped (SIGSTOP) by someone")
            self._forfeit("timeout", f"no move within {timeout:g} s")
        except (OSError, EOFError):
            self._ended()
        if seq != self.seq or not 0 <= i < n:
            what = "not a whole number" if i == BAD else f"move {i} of {n} legal moves"
            self._forfeit("bad answer", what if seq == self.seq else "an answer out of turn")
        return int(i)

    def _ended(self):
        """Forfeit for a process that ended: "crash", or "suspect" if a
        signal it need not have earned itself killed it."""
        if self._signalled():
            self._forfeit("suspect", f"its process was killed by signal "
                                     f"{-self.process.returncode} from outside")
        self._forfeit("crash", "its process ended")

    def _signalled(self) -> bool:
        """Whether the process ended by a signal that is not a fault's."""
        try:
            code = self.process.wait(1)
        except subprocess.TimeoutExpired:
            return False
        return code < 0 and -code not in FAULTS

    def _stopped(self) -> bool:
        """Whether a process of the entrant's session is stopped (SIGSTOP)."""
        p = self.process
        try:
            for task in os.listdir("/proc"):
                if task.isdigit():
                    with open(f"/proc/{task}/stat", "rb") as f:
                        fields = f.read().rpartition(b")")[2].split()
                    if int(fields[3]) == p.pid and fields[0] in (b"T", b"t"):    # session
                        return True
        except (OSError, IndexError, ValueError):
            pass
        return False

    def _forfeit(self, kind: str, why: str):
        self.stop()
        raise Forfeit(self.name, kind, why)

    def stop(self) -> None:
        """Kill the process and its whole process group (children it left),
        and remove its folder."""
        p, self.process = self.process, None
        if p is not None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.kill()
            p.wait()
            for pipe in (p.stdin, p.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
        if self.folder is not None:
            self.folder.cleanup()
            self.folder = None


@dataclass
class Entrants:
    """All of a run's entrant processes (one per user strategy and seat,
    started on first use), and the forfeits counted by entrant and kind. A
    context manager: every process is stopped on leaving, also on Ctrl-C
    and errors; after that, `ask` raises Closed. Inside it this process is
    not dumpable. With `strict`, IsolateError unless every layer of
    `confine` holds; `confinement` says which did."""
    rules: object
    move_timeout: float = MOVE_TIMEOUT
    start_timeout: float = START_TIMEOUT
    max_forfeits: int = MAX_FORFEITS
    strict: bool = False
    offer: dict = field(default_factory=confine.available)   # what the system offers
    confinement: dict = field(default_factory=dict)        # layer -> held (`confine.held`)
    forfeits: dict = field(default_factory=dict)          # name -> Counter of kinds
    decisions: int = 0                                    # moves asked so far
    _specs: dict = field(default_factory=dict)            # text -> UserSpec (`load`)
    _running: dict = field(default_factory=dict)          # (name, seat) -> Entrant
    _code: dict = field(default_factory=dict)             # path -> its bytes, read once
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closed: bool = False
    _dumpable: bool | None = None                         # as it was before __enter__

    def __post_init__(self):
        if not 0 < self.move_timeout <= 3600:
            raise IsolateError(f"the move timeout is 0..3600 seconds, not {self.move_timeout!r}")
        self.confinement = confine.held(self.offer, os.name == "posix")
        gaps = confine.missing(self.confinement)
        if self.strict and gaps:
            raise IsolateError(f"strict isolation refused: this system lacks {gaps}")

    def __enter__(self) -> Entrants:
        if os.name == "posix":
            self._dumpable = confine.dumpable()
            self.confinement["not dumpable"] = not confine.dumpable(False)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            running, self._running = list(self._running.values()), {}
        for e in running:
            e.stop()
        if self._dumpable:
            confine.dumpable(True)
            self._dumpable = None

    def load(self, text: str):
        """User strategy `text` (PATH.py:NAME or module:NAME) as a UserSpec
        that plays in its own processes: nothing of it runs in this one;
        what it declares comes from `describe`."""
        from pathlib import Path

        from . import user
        if text in self._specs:
            return self._specs[text]
        where, _, name = text.rpartition(":")
        if not where or not name.isidentifier():
            raise user.UserStrategyError(f"a user strategy is written PATH.py:NAME or "
                                         f"package.module:NAME, not {text!r}")
        reference, digest = text, None
        if user.is_file_text(text):
            path = Path(where).expanduser()
            if not path.is_file() or path.suffix != ".py":
                raise user.UserStrategyError(f"strategy {text}: no Python file {where}")
            path = path.resolve()
            try:
                self._code[str(path)] = data = path.read_bytes()     # once: the run's bytes
            except OSError as e:
                raise user.UserStrategyError(f"strategy {text}: cannot read {where}: "
                                             f"{e.strerror or e}") from None
            reference, digest = f"{path}:{name}", hashlib.sha256(data).hexdigest()
        checked = user.bounds_checked()
        params, source, found = _declared(text, self.describe(text, reference, digest, checked))
        spec = user.UserSpec(text, Remote(), params, source if digest is None else str(path),
                             found if digest is None else digest, checked)
        self._specs[text] = spec
        return spec

    def describe(self, text: str, reference: str, digest: str | None, checked: bool) -> dict:
        """What the strategy declares (params, source, digest), from a
        process of its own that loads it and is stopped."""
        e = Entrant(text, self._hello(text, reference, digest, checked), self.offer["namespaces"])
        try:
            return e.start(self.start_timeout)
        finally:
            e.stop()

    def _hello(self, text, reference, digest, checked) -> dict:
        rules = json.loads(json.dumps(self.rules.settings(), default=int))     # plain data
        code = self._code.get(reference.rpartition(":")[0]) if digest is not None else None
        return {"text": text, "reference": reference, "digest": digest, "checked": checked,
                "rules": rules, "landlock": self.offer["landlock"],
                "rlimits": self.offer["rlimits"],
                "code": None if code is None else base64.b64encode(code).decode()}

    def ask(self, spec, seat: int, obs, params, cards, takes) -> int:
        """Seat's move from user strategy `spec` in its process (see
        `Entrant.ask`). An entrant that has forfeited `max_forfeits` rounds
        is out: it forfeits every round left, unasked (kind "out"), so that
        one that always fails costs the run no more restarts or timeouts.
        Suspect forfeits are not charged."""
        with self._lock:
            lost = self.forfeits.get(spec.text)
            if lost is not None and sum(lost.values()) - lost["suspect"] >= self.max_forfeits:
                lost["out"] += 1
                raise Forfeit(spec.text, "out", f"out after {self.max_forfeits} forfeited rounds")
        try:
            e = self._entrant(spec, seat)
            self.decisions += 1
            return e.ask(obs, params, cards, takes, self.move_timeout)
        except Forfeit as f:
            with self._lock:
                self._running.pop((spec.text, seat), None)
                self.forfeits.setdefault(f.name, Counter())[f.kind] += 1
            raise

    def _entrant(self, spec, seat: int) -> Entrant:
        with self._lock:
            if self._closed:
                raise Closed("the entrants' processes were stopped")
            e = self._running.get((spec.text, seat))
            if e is None:
                e = Entrant(spec.text, self._hello(spec.text, spec.reference(), spec.digest,
                                                   spec.checked), self.offer["namespaces"])
                self._running[(spec.text, seat)] = e
                try:
                    e.start(self.start_timeout)
                except IsolateError as error:       # it loaded once: its forfeit, not the run's
                    self._running.pop((spec.text, seat), None)
                    raise Forfeit(spec.text, "suspect" if error.suspect else "crash",
                                  f"it failed to start again: {error}") from None
            return e

    def report(self) -> dict[str, dict[str, int]]:
        """The forfeits: entrant -> {kind: count} (only kinds that happened)."""
        return {name: {k: c[k] for k in KINDS if c[k]} for name, c in sorted(self.forfeits.items())}


# -- the entrant's side ---------------------------------------------------------
def _confine(hello: dict) -> None:
    """The confinement the host asks for, on this process, before any of
    the strategy's code loads (ConfineError if it cannot be had)."""
    if hello.get("rlimits"):
        confine.limits(FILE_LIMIT)
    if hello.get("landlock"):
        confine.landlock(os.getcwd(), int(hello["landlock"]))


def _serve(read_fd: int, write_fd: int) -> int:
    """The entrant's loop: the handshake (confined before the strategy
    loads), then a move for every decision asked, until the host closes
    the pipe."""
    forever = time.monotonic() + 10**9
    size, = _HEAD.unpack(_read(read_fd, _HEAD.size, forever))
    hello = json.loads(_read(read_fd, size, forever))
    try:
        _confine(hello)
    except OSError as e:
        body = json.dumps({"error": f"entrant {hello.get('text')} cannot be confined: {e}"})
        _write(write_fd, _HEAD.pack(len(body)) + body.encode(), forever)
        return 1
    from . import user
    from .rules import Rules
    from .user import user_call
    from ..kernels.layout import MAX_MOVES, N_PARAMS
    from ..kernels.observe import O_SIZE
    try:
        rules = Rules(**{k: tuple(v) if isinstance(v, list) else v
                         for k, v in hello["rules"].items()})
        code = None if hello.get("code") is None else base64.b64decode(hello["code"])
        spec = user.reload(hello["text"], hello["reference"], hello["digest"], hello["checked"],
                           code)
        answer = {"params": spec.params, "source": spec.source, "digest": spec.digest}
    except (user.UserStrategyError, ValueError, TypeError, KeyError) as e:
        answer = {"error": str(e)}
    body = json.dumps(answer).encode()
    _write(write_fd, _HEAD.pack(len(body)) + body, forever)
    if "error" in answer:
        return 1
    call = _named(user_call(spec, rules), spec.text)
    head = 16 + 8 * O_SIZE + 8 * N_PARAMS
    while True:
        try:
            frame = _read(read_fd, head, forever)
        except EOFError:
            return 0
        seq, n = np.frombuffer(frame[:16], np.int64)
        if not 0 < n <= MAX_MOVES:
            return 1
        obs = np.frombuffer(frame[16:16 + 8 * O_SIZE], np.int64).copy()
        params = np.frombuffer(frame[16 + 8 * O_SIZE:], np.float64).copy()
        moves = np.frombuffer(_read(read_fd, 16 * int(n), forever), np.int64)
        i = call(obs, moves[:n].copy(), moves[n:].copy(), params)
        _write(write_fd, _REPLY.pack(int(seq), _index(i)), forever)


def _named(call, text: str):
    """`call`, its exceptions ended as one line naming the strategy (the
    entrant's process then ends: a crash)."""
    def named(*args):
        try:
            return call(*args)
        except (Exception, SystemExit) as e:
            print(f"entrant {text}: {raised(e)}", file=sys.stderr)
            os._exit(1)
    return named


def _index(i) -> int:
    """A strategy's return as the answer: a whole number, else BAD."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        return BAD
    return int(i) if -(2**63) < int(i) < 2**63 else BAD


def main() -> int:      # pragma: no cover - runs as the entrant's process
    """The entrant process: its pipes kept apart, stdout pointed at stderr
    (what a strategy prints never reaches the pipe), then `_serve`."""
    read_fd, write_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    try:
        return _serve(read_fd, write_fd)
    except (Exception, SystemExit) as e:     # the strategy raised: a crash, one line
        print(f"entrant: {raised(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 1


if __name__ == "__main__":      # pragma: no cover
    sys.exit(main())
