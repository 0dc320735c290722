"""An entrant that appends to a rival's strategy file, its path found on a
command line in /proc (the runner's, given with --isolate): the run used to
abort with "has changed since the run began". (Only files named rival*.py:
a test's.) It also writes beside its own folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402

STATE = {}
HERE = os.path.abspath(__file__)


def attack() -> bool:
    hit = False
    targets = {os.path.join(os.path.dirname(HERE), "..", "..", "scopa_cheat_written")}
    for pid in _attack.pids():
        for arg in _attack.cmdline(pid).split(b"\0"):
            where = arg.decode(errors="replace").rpartition(":")[0]
            if os.path.basename(where).startswith("rival") and where.endswith(".py"):
                targets.add(where)
    for path in targets:
        try:
            with open(path, "a") as f:
                f.write("\n# appended by a rival\n")
            hit = True
        except OSError:
            pass
    return hit


def append_rival(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
