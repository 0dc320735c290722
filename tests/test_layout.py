"""The layout users asked for (issue 25): kernels/ and analysis/ stay at the
top of the repository and are installed as scopa_sim.kernels and
scopa_sim.analysis; importing them under their folder names fails with one
line, and scopa_sim/ links to them, so an editor finds scopa_sim.kernels.*."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["kernels", "analysis"])
def test_the_folder_name_alone_does_not_import_a_second_copy(name):
    r = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1] == (
        f"ImportError: this folder is installed as scopa_sim.{name}: import scopa_sim.{name}, "
        f"not {name} (bash scripts/setup.sh installs it)")


@pytest.mark.parametrize("name", ["kernels", "analysis"])
def test_scopa_sim_links_to_the_top_level_folder(name):
    link = ROOT / "scopa_sim" / name
    assert link.is_symlink() and link.resolve() == ROOT / name
