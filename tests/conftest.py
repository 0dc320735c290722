import os

import pytest
from hypothesis import settings

# Hypothesis searches at random on a developer's machine; CI (`.ci/run` sets
# HYPOTHESIS_PROFILE=ci) derives every example from the test itself and keeps no
# database, so a fresh clone passes or fails the same way every time.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# The kernels keep their own compiled cache, a folder per version of kernels/
# (see kernels/_jit.py), so nothing here needs to choose one.


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Load (or compile, on a cold cache) the kernels once per session."""
    import scopa_sim
    scopa_sim.simulate(rounds=2, strategies=("random", "greedy"), seed=0)
    scopa_sim.simulate(games=1, strategies=("random", "greedy"), seed=0)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A finished run of 4 parts (the hostile tests'), copied by each test
    that changes it (`run`)."""
    from hostile import RUN, cli
    root = tmp_path_factory.mktemp("made") / "run"
    assert cli("simulate", "--out", root, "--quiet", *RUN).exit_code == 0
    return root


@pytest.fixture
def run(made, tmp_path):
    import shutil
    shutil.copytree(made, tmp_path / "run")
    return tmp_path / "run"


def _fail(*args, **kwargs):
    raise AssertionError("read or computed before the refusal")


@pytest.fixture
def nothing_computed(monkeypatch):
    """Reading a part or running a batch fails the test."""
    from scopa_sim.runs.store import Run
    monkeypatch.setattr(Run, "_table", _fail)
    monkeypatch.setattr("scopa_sim.runs.runner.run_batch", _fail)
