import pytest

# The kernels keep their own compiled cache, a folder per version of kernels/
# (see kernels/_jit.py), so nothing here needs to choose one.


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Load (or compile, on a cold cache) the kernels once per session."""
    import scopa_sim
    scopa_sim.simulate(rounds=2, strategies=("random", "greedy"), seed=0)
    scopa_sim.simulate(games=1, strategies=("random", "greedy"), seed=0)
