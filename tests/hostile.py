"""What the hostile tests share: the command line in this process, a
folder's every file, and the one-line error they all expect (their small
run, `made` and its copy `run`, are fixtures in conftest.py)."""
from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from scopa_sim.cli import main

RUN = ("--rounds", 4_000, "--batch-size", 1_000, "--seed", 3)


def cli(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under root (files with their bytes; links as text)."""
    return {p.relative_to(root).as_posix(): (f"-> {os.readlink(p)}" if p.is_symlink() else
                                             p.read_bytes() if p.is_file() else None)
            for p in sorted(Path(root).rglob("*"))}


def assert_error(result, *needles, code: int = 2):
    assert result.exit_code == code, (result.exit_code, result.stderr, result.stdout)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == ""
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
