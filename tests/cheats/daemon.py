"""An entrant that leaves a double-forked daemon in a session of its own,
to outlive the run (and kill the next run's entrants); its command line
carries MARKER so a test can look for it."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402

STATE = {}
MARKER = "scopa-cheat-daemon"


def attack() -> bool:
    if STATE.get("tries", 0) > 1:
        return False
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)",
                                      MARKER])
        os._exit(0)
    os.wait()
    return False          # whether it outlived the run is for the test to see


def daemon(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
