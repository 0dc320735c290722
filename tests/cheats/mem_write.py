"""An entrant that writes the runner's memory through /proc/PID/mem (its
own pile could be all 40 cards). Here it writes back the bytes it read: a
write that succeeds changes nothing, and says the door was open."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402
from mem_read import first_region  # noqa: E402

STATE = {}


def attack() -> bool:
    pid = _attack.runner()
    if pid is None:
        return False
    at, size = first_region(pid)
    with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem:
        mem.seek(at)
        data = mem.read(size)
        mem.seek(at)
        return mem.write(data) == size


def mem_write(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
