"""The compiled-kernel cache: a folder per version of kernels/ (kernels/_jit.py).

Numba keys a cached function on its own file only, so a change to a kernel
another one inlined must move every function to a new folder; these tests
say that it does, and where the folder goes.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from scopa_sim.engine import user
from scopa_sim.kernels import _jit

KERNELS = Path(_jit.__file__).resolve().parent


def copy_of_kernels(tmp_path):
    dst = tmp_path / "kernels"
    shutil.copytree(KERNELS, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def test_a_one_byte_change_to_any_kernel_file_moves_the_cache_folder(tmp_path):
    folder = copy_of_kernels(tmp_path)
    before = _jit.source_hash(folder)
    assert before == _jit.source_hash(KERNELS)
    seen = {before}
    for name in ("moves.py", "rng.py", "layout.py"):        # inlined by the batch kernels
        path = folder / name
        original = path.read_bytes()
        i = original.index(b"\n\n") + 1                      # a byte after the docstring
        path.write_bytes(original[:i] + b" " + original[i:])
        changed = _jit.source_hash(folder)
        assert changed not in seen
        seen.add(changed)
        assert _jit.cache_folder(changed, tmp_path) != _jit.cache_folder(before, tmp_path)
        path.write_bytes(original)
    assert _jit.source_hash(folder) == before
    (folder / "new_kernel.py").write_text("X = 1\n")          # a new file counts too
    assert _jit.source_hash(folder) != before


def test_the_folder_is_under_the_base_and_named_by_the_hash(tmp_path):
    folder = _jit.cache_folder("0123456789abcdef", tmp_path)
    assert folder == tmp_path / _jit.PARENT / "0123456789abcdef" and folder.is_dir()


def test_an_unwritable_base_falls_back_to_a_temporary_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    folder = _jit.cache_folder(f"test-{os.getpid()}", blocker)
    try:
        assert folder is not None and folder.is_dir()
        assert folder.parent.parent == Path(tempfile.gettempdir())
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def test_versions_unused_for_long_are_pruned_when_a_new_one_is_made(tmp_path):
    old = _jit.cache_folder("old", tmp_path)
    recent = _jit.cache_folder("recent", tmp_path)
    long_ago = time.time() - (_jit.STALE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    _jit.cache_folder("new", tmp_path)
    assert not old.exists() and recent.exists()


def run_probe(**extra):
    """What a fresh process sees, with these variables (and neither
    NUMBA_CACHE_DIR nor XDG_CACHE_HOME otherwise): the kernels' cache folder,
    Numba's own setting after the import, and where a batch kernel caches."""
    code = ("import json, numba; from scopa_sim.kernels import _jit, batch; "
            "print(json.dumps([str(_jit.CACHE_DIR), numba.config.CACHE_DIR, "
            "batch.simple_units.stats.cache_path]))")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(extra)
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def test_a_user_numba_cache_dir_is_the_base_and_numba_config_is_left_alone(tmp_path):
    folder, numba_setting, kernel_cache = run_probe(NUMBA_CACHE_DIR=str(tmp_path))
    assert folder == str(tmp_path / _jit.PARENT / _jit.source_hash())
    assert numba_setting == str(tmp_path)
    assert kernel_cache.startswith(folder + os.sep)


def test_without_numba_cache_dir_the_user_cache_folder_is_used(tmp_path):
    folder, numba_setting, kernel_cache = run_probe(XDG_CACHE_HOME=str(tmp_path))
    assert folder == str(tmp_path / _jit.PARENT / _jit.source_hash())
    assert numba_setting == ""
    assert kernel_cache.startswith(folder + os.sep)


def test_the_hash_covers_the_numba_version(tmp_path, monkeypatch):
    before = _jit.source_hash()
    monkeypatch.setattr(numba, "__version__", numba.__version__ + ".other")
    assert _jit.source_hash() != before


GREEDY_JIT = KERNELS.parent / "docs" / "examples" / "greedy_jit.py"


def in_python(code: str, cwd: Path) -> str:
    """What a fresh Python process running `code` in `cwd` prints."""
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout.strip()


def rounds_played(strategy: Path) -> str:
    """Code that plays 20 rounds with the file's `greedy` and prints how many."""
    return ("import scopa_sim; r = scopa_sim.simulate(rounds=20, seed=1, "
            f"strategies=({str(strategy) + ':greedy'!r}, 'counter')); print(len(r))")


def test_a_strategy_file_imported_by_its_user_first_still_loads(tmp_path):
    """Numba records a cached function's module name: a file the user's own
    `import strat` cached must still load as a strategy (and the other way
    round), each from its own cache (scopa_sim.engine.user._compiling)."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(GREEDY_JIT, home / "strat.py")
    use = ("import numpy as np, strat; "
           "print(strat.worth(7, np.array([100., 100., 400., 5., 1000.])))")
    assert in_python(use, home) == "805.0"
    assert in_python(rounds_played(home / "strat.py"), tmp_path) == "20"
    assert in_python(use, home) == "805.0"


def test_a_damaged_cache_file_of_a_strategy_is_dropped_and_compiled_again(tmp_path):
    """A truncated index file in scopa-sim's `user/` cache (ours): the
    strategy still loads and plays (scopa_sim.engine.user._clear_user_cache)."""
    shutil.copy(GREEDY_JIT, tmp_path / "g.py")
    assert in_python(rounds_played(tmp_path / "g.py"), tmp_path) == "20"
    indexes = list(user.user_cache().glob(f"checked/{tmp_path.name}_*/g.*.nbi"))
    assert indexes
    for index in indexes:
        index.write_bytes(index.read_bytes()[:20])
    assert in_python(rounds_played(tmp_path / "g.py"), tmp_path) == "20"
