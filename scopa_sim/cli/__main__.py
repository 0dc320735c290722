"""`python -m scopa_sim.cli`: the `scopa-sim` command."""
from . import main

main()
