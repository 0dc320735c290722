"""The kernel's confinement of an entrant (`--isolate`), applied before a
byte of its code loads.

Layers, each where the system offers it (`available` says which):

- namespaces: the entrant starts under `unshare` with a user, pid, network
  and mount namespace of its own (`command`): the runner and the other
  entrants are not in its /proc and cannot be named by a pid, it has no
  network, and when its first process ends, everything it started ends.
- Landlock (`landlock`, in the entrant, on Linux >= 5.13): no writing,
  making or removing of files anywhere but its own scratch folder (reading
  stays open, so Python and Numba load), no TCP (ABI >= 4), no signals and no
  abstract unix sockets beyond its own domain (ABI >= 6), and no ptrace (nor
  /proc/PID/mem) of a process outside it. PR_SET_NO_NEW_PRIVS first.
- rlimits (`limits`): memory (address space), processes, open files, file
  size, no core files.
- the runner itself is not dumpable while entrants run (`not_dumpable`):
  a process of the same user cannot open its /proc/PID/mem (root with
  CAP_SYS_PTRACE can; the namespaces and Landlock stop an entrant there).

What held is `available()`'s dict, reported with the run; `missing` names
what did not, in one line.
"""
from __future__ import annotations

import ctypes
import os
import platform
import resource
import shutil
import struct
import subprocess

SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}   # create, add_rule, restrict
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_DUMPABLE, PR_GET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 3, 38
# handled filesystem rights by the ABI that brought them: every right to change the tree
FS_WRITE = {1: 1 << 1 | 0b1111111110000,            # WRITE_FILE, REMOVE_*, MAKE_*
            2: 1 << 13,                              # REFER
            3: 1 << 14}                              # TRUNCATE
FILE_RIGHTS = 1 << 1 | 1 << 14                       # the rights a rule on a file may carry
NET_TCP = 0b11                                       # BIND_TCP, CONNECT_TCP (ABI 4)
SCOPES = 0b11                                        # ABSTRACT_UNIX_SOCKET, SIGNAL (ABI 6)
UNSHARE = ("--user", "--map-root-user", "--pid", "--fork", "--net", "--mount", "--mount-proc",
           "--kill-child")
MEMORY = 8 * 2**30          # bytes of address space (Numba and LLVM map a lot, use little)
PROCESSES = 64              # processes and threads of the entrant's own (in its user namespace)
OPEN_FILES = 256
LAYERS = ("namespaces", "landlock", "rlimits", "not dumpable")


class ConfineError(OSError):
    """A confinement the system said it offers could not be applied."""


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _syscall(number: int, *args) -> int:
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(ctypes.c_long(number), *args)
    if r < 0:
        e = ctypes.get_errno()
        raise ConfineError(e, os.strerror(e))
    return r


def landlock_abi() -> int:
    """Landlock's ABI version here, 0 without Landlock."""
    numbers = SYSCALLS.get(platform.machine())
    if numbers is None or os.name != "posix":
        return 0
    try:
        return _syscall(numbers[0], None, ctypes.c_size_t(0),
                        ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (ConfineError, AttributeError, OSError):
        return 0


def landlock(scratch: str, abi: int) -> None:
    """Confine this process (and all it starts) with Landlock `abi`: writes
    only under `scratch` (and to /dev/null), no TCP, no signals or abstract
    sockets outside its domain. Irreversible. ConfineError if it fails."""
    create, add_rule, restrict = SYSCALLS[platform.machine()]
    fs = sum(bits for version, bits in FS_WRITE.items() if version <= abi)
    net = NET_TCP if abi >= 4 else 0
    scoped = SCOPES if abi >= 6 else 0
    attr = struct.pack("<QQQ", fs, net, scoped)[:8 if abi < 4 else 16 if abi < 6 else 24]
    ruleset = _syscall(create, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)),
                       ctypes.c_uint32(0))
    try:
        for path, rights in ((scratch, fs), (os.devnull, fs & FILE_RIGHTS)):
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = struct.pack("<Qi", rights, fd)
                _syscall(add_rule, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH),
                         ctypes.c_char_p(rule), ctypes.c_uint32(0))
            finally:
                os.close(fd)
        no_new_privs()
        _syscall(restrict, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def no_new_privs() -> None:
    """PR_SET_NO_NEW_PRIVS: nothing this process executes gains privileges."""
    if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise ConfineError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")


def limits(file_limit: int) -> None:
    """The entrant's rlimits: memory, processes, open files, file size, no
    core files (each lowered only, never raised)."""
    for which, value in ((resource.RLIMIT_AS, MEMORY), (resource.RLIMIT_NPROC, PROCESSES),
                         (resource.RLIMIT_NOFILE, OPEN_FILES), (resource.RLIMIT_FSIZE, file_limit),
                         (resource.RLIMIT_CORE, 0)):
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))


def dumpable(flag: bool | None = None) -> bool:
    """Whether this process is dumpable; with `flag`, set it so first."""
    libc = _libc()
    if flag is not None:
        libc.prctl(PR_SET_DUMPABLE, int(flag), 0, 0, 0)
    return libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1


def namespaces() -> list[str]:
    """The command prefix that starts a process in namespaces of its own
    (`unshare ...`), or [] where unshare is missing or they cannot be made
    (unprivileged user namespaces off)."""
    unshare = shutil.which("unshare", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if unshare is None or os.name != "posix":
        return []
    try:
        ok = subprocess.run([unshare, *UNSHARE, "true"], capture_output=True, timeout=10,
                            env={}).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return [unshare, *UNSHARE] if ok else []


def available() -> dict:
    """What confinement this system offers an entrant: {"namespaces": the
    unshare prefix or [], "landlock": ABI (0: none), "rlimits": bool}."""
    return {"namespaces": namespaces(), "landlock": landlock_abi(),
            "rlimits": os.name == "posix"}


def held(offer: dict, not_dumpable: bool) -> dict[str, bool | int]:
    """The report's view of `offer`: layer -> whether it held (Landlock: its ABI)."""
    return {"namespaces": bool(offer["namespaces"]), "landlock": offer["landlock"],
            "rlimits": offer["rlimits"], "not dumpable": not_dumpable}


def missing(report: dict) -> str | None:
    """One line naming what confinement is missing and what it leaves open,
    None if everything held (Landlock with signal scoping, ABI >= 6)."""
    gaps = []
    if not report["namespaces"]:
        gaps.append("namespaces (an entrant sees the runner's and rivals' processes, has the "
                    "network, and what it leaves running may outlive it)")
    if not report["landlock"]:
        gaps.append("Landlock (an entrant may write outside its folder, e.g. plant a .pth, "
                    "and signal or trace other processes of this user)")
    elif report["landlock"] < 6:
        gaps.append(f"Landlock scoping (ABI {report['landlock']} < 6: signals and abstract "
                    "sockets are not scoped)")
    if not report["rlimits"]:
        gaps.append("rlimits (no memory or process limits)")
    if not report["not dumpable"]:
        gaps.append("a non-dumpable runner (its memory is readable by this user's processes)")
    return "; ".join(gaps) or None
