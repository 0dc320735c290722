"""An entrant that SIGSTOPs the other entrants' processes (the victim would
be charged with timeouts), and lowers their priority (renice, autogroup)."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402

STATE = {}


def attack() -> bool:
    hit = False
    for pid in _attack.rivals():
        for act in (lambda: os.kill(pid, signal.SIGSTOP),
                    lambda: os.setpriority(os.PRIO_PROCESS, pid, 19),
                    lambda: open(f"/proc/{pid}/autogroup", "w").write("19")):
            try:
                act()
                hit = True
            except OSError:
                pass
    return hit


def stop_rival(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
