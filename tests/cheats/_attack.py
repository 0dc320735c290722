"""What the attacking entrants share: each tries its attack at its first
decisions, and plays greedy (as `_base`) while it fails; once it works,
it plays another move than greedy's wherever there is one, so a margin of
exactly 0 against the built-in `greedy` says the attack never worked.

`runner()` finds the run's host process the way an attacker would: up the
parent chain, else any process whose command line names scopa-sim or
pytest that is not an entrant (in a pid namespace of its own, neither is
there to find). `rivals()` are the other entrants' processes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _base  # noqa: E402

ENTRANT = b"scopa_sim.engine.isolate"


def cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(next(x for x in f if x.startswith("PPid:")).split()[1])
    except (OSError, StopIteration, ValueError):
        return 0


def pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def mine() -> set[int]:
    """This entrant's own processes: itself and its ancestors up to the first
    that is not an entrant (unshare's, or the runner)."""
    found, pid = {os.getpid()}, os.getppid()
    while pid > 1 and ENTRANT in cmdline(pid) and b"scopa_sim.cli" not in cmdline(pid):
        found.add(pid)
        pid = parent(pid)
    return found


def runner() -> int | None:
    pid = os.getppid()
    while pid > 1:
        line = cmdline(pid)
        if line and ENTRANT not in line:
            return pid
        pid = parent(pid)
    for pid in pids():
        line = cmdline(pid)
        if (b"scopa_sim" in line or b"scopa-sim" in line or b"pytest" in line) \
                and ENTRANT not in line:
            return pid
    return None


def rivals() -> list[int]:
    """Entrant processes of the same runner that are not this one's."""
    host, own = runner(), mine()
    return [p for p in pids() if p not in own and ENTRANT in cmdline(p)
            and host is not None and _descends(p, host)]


def _descends(pid: int, host: int) -> bool:
    for _ in range(8):
        pid = parent(pid)
        if pid == host:
            return True
        if pid <= 1:
            return False
    return False


TRIES = 20      # decisions at which an attack is tried (a rival may start late)


def play(state: dict, attack, obs, moves) -> int:
    """Greedy's move, or another once `attack()` (tried at the first TRIES
    decisions) worked."""
    if not state.get("won") and state.get("tries", 0) < TRIES:
        state["tries"] = state.get("tries", 0) + 1
        try:
            state["won"] = bool(attack())
        except Exception:           # the attack failed: play on, honestly
            state["won"] = False
    i = _base.choose(_base.view(obs), _base.moves_of(moves))
    return (i + 1) % len(moves) if state.get("won") else i
