"""An entrant that SIGKILLs the other entrants' processes it finds in
/proc (the victim would be charged with crashes and put out), then
signals the runner (signal 0: whether it could)."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402

STATE = {}
SIGNAL = signal.SIGKILL


def attack() -> bool:
    hit = False
    for pid in _attack.rivals():
        try:
            os.kill(pid, SIGNAL)
            hit = True
        except OSError:
            pass
    host = _attack.runner()
    if host is not None:
        try:
            os.kill(host, 0)
            hit = True
        except OSError:
            pass
    return hit


def kill_rival(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
