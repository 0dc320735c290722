"""An entrant that plants a .pth file in site-packages (python -I still
runs it: the next run's processes, the runner's too, would run its line,
which could fix the seed). Here its line is harmless."""
import os
import site
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _attack  # noqa: E402

STATE = {}
NAME = "scopa_cheat_planted.pth"


def attack() -> bool:
    planted = False
    for folder in [*site.getsitepackages(), os.path.dirname(os.__file__)]:
        try:
            with open(os.path.join(folder, NAME), "w") as f:
                f.write("import os\n")
            planted = True
        except OSError:
            pass
    return planted


def plant_pth(obs, moves):
    return _attack.play(STATE, attack, obs, moves)
