"""Start-up pays only for what a command uses (docs/DEVELOPING.md, "Start-up"):
in a fresh process, the analysis package and the reading commands over a
small run load no Numba, SciPy, statsmodels, Dask, pandas, runner or
executors; checking a record loads the kernels that replay it, no more; and
Numba's start does not load scipy.linalg for a BLAS no kernel calls."""
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scopa_sim.analysis
from scopa_sim.cli import main

HEAVY = ("numba", "llvmlite", "scipy", "statsmodels", "dask", "distributed", "pandas",
         "scopa_sim.runs.runner", "scopa_sim.runs.executors")
REPLAY = ("numba", "llvmlite", "scipy")    # a record's replay: the kernels (Numba loads scipy's top)
EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "seed-003.scopa"


def loaded(code: str, *args) -> list[str]:
    """The HEAVY modules (and their submodules) a fresh Python holds after
    running `code` with `args` in sys.argv[1:], even if it exits."""
    probe = (f"import json, sys\ntry:\n    {code}\nfinally:\n    print(json.dumps(sorted(sys"
             f".modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *map(str, args)], capture_output=True,
                          text=True)
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A run of 300 rounds."""
    root = tmp_path_factory.mktemp("startup") / "run"
    res = CliRunner().invoke(main, ["simulate", "--rounds", "300", "--seed", "4", "--out",
                                    str(root), "-q"])
    assert res.exit_code == 0, res.output
    return root


def test_the_analysis_and_the_command_line_import_light():
    modules = [f"scopa_sim.analysis.{m.name}" for m in
               pkgutil.iter_modules(scopa_sim.analysis.__path__)]
    assert loaded(f"import scopa_sim.cli, {', '.join(modules)}") == []


@pytest.mark.parametrize("args", [("ask", "RUN", "winner == 0"),
                                  ("ask", "RUN", "margin", "--given", "count(hand_0 & sevens) >= 2"),
                                  ("report", "RUN", "-q"), ("values", "RUN", "-q"),
                                  ("plot", "RUN", "--out", "OUT", "-q")],
                         ids=["ask", "ask-deal", "report", "values", "plot"])
def test_a_reading_command_loads_no_engine(small, tmp_path, args):
    args = [small if a == "RUN" else tmp_path / "chart.png" if a == "OUT" else a for a in args]
    assert loaded("from scopa_sim.cli import main; main()", *args) == []


def test_checking_a_record_loads_the_kernels_and_nothing_else():
    found = loaded("from scopa_sim.cli import main; main()", "record", EXAMPLE)
    assert "numba" in found and [m for m in found if m.split(".")[0] not in REPLAY] == []


def test_the_kernels_start_without_scipy_linalg_and_a_users_blas_call_still_compiles(tmp_path):
    """Numba's BLAS probe is told 'none' (kernels._jit): a warm simulate
    loads no scipy.linalg; a user strategy calling np.dot still plays."""
    found = loaded("from scopa_sim.cli import main; main()", "simulate", "--rounds", "50",
                   "--seed", "1", "-q", "--out", tmp_path / "run")
    assert "numba" in found and not [m for m in found if m.startswith("scipy.linalg")]
    path = tmp_path / "dotty.py"
    path.write_text("import numba, numpy as np\n\n\n@numba.njit\n"
                    "def dotty(obs, cards, takes, params):\n"
                    "    return int(np.dot(np.ones(len(cards)), cards * 1.0)) % len(cards)\n")
    done = subprocess.run([sys.executable, "-m", "scopa_sim.cli", "simulate", "--rounds", "20",
                           "--seed", "1", "-q", "--strategies", f"{path}:dotty,greedy",
                           "--out", tmp_path / "dotty-run"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
