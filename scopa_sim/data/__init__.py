"""What the library reads at run time, shipped inside the package (found with
`importlib.resources`, so it works wherever the package is installed):
the maxims' strategy (`maxims.py`, a user strategy file: `study.maxims`) and
the worked game of the rules page with a worked game (`seed-003.scopa`: the almanac reviews it).
docs/examples/ keeps readable copies; a test checks they are identical."""
from importlib import resources
from pathlib import Path


def path(name: str) -> Path:
    """The file `name` of this folder, as a path on disk."""
    return Path(str(resources.files(__name__) / name))
