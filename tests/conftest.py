import hashlib
import os
from pathlib import Path

import pytest

# Numba caches each kernel by its own file only, not by what it inlined from
# other files: give every version of kernels/ its own cache folder (as
# scripts/cache-dir.sh does), so stale compiled code can never load.
_ROOT = Path(__file__).resolve().parents[1]
_SOURCES = b"".join(p.read_bytes() for p in sorted((_ROOT / "kernels").glob("*.py")))
os.environ.setdefault("NUMBA_CACHE_DIR", str(
    _ROOT / ".venv" / "numba-cache" / hashlib.sha256(_SOURCES).hexdigest()[:16]))



@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Load (or compile, on a cold cache) the kernels once per session."""
    import scopa_sim
    scopa_sim.simulate(rounds=2, strategies=("random", "greedy"), seed=0)
    scopa_sim.simulate(games=1, strategies=("random", "greedy"), seed=0)
