"""An entrant that reads other processes' command lines and environments
(the runner's: its arguments, a seed, the rivals' paths), opens the
runner's pipes through /proc/PID/fd, and the network (binds a TCP port on
loopback, connects out)."""
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402

STATE = {}


def attack() -> bool:
    own = _attack.mine()
    seen = False
    for pid in _attack.pids():
        if pid in own or pid == 1:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                seen |= bool(f.read())
        except OSError:
            pass
        seen |= b"scopa" in _attack.cmdline(pid) or b"pytest" in _attack.cmdline(pid)
    host = _attack.runner()
    if host is not None:            # its pipes: opened (not read) through /proc/PID/fd
        try:
            for fd in os.listdir(f"/proc/{host}/fd"):
                try:
                    os.close(os.open(f"/proc/{host}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK))
                    seen = True
                except OSError:
                    pass
        except OSError:
            pass
    for try_net in (lambda: socket.create_server(("127.0.0.1", 0)).close(),
                    lambda: socket.create_connection(("1.1.1.1", 53), timeout=0.5).close()):
        try:
            try_net()
            seen = True
        except OSError:
            pass
    return seen


def snoop(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
