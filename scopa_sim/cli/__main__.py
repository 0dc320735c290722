"""`python -m scopa_sim.cli`: the `scopa-sim` command."""
from . import run

run()
