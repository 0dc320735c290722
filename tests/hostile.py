"""What the hostile tests share: the command line in this process, a
folder's every file, the one-line error they all expect, and a forger's
edits of a run (their small run, `made` and its copy `run`, are fixtures in
conftest.py)."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
from click.testing import CliRunner

from scopa_sim.cli import main
from scopa_sim.runs.store import MANIFEST

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


def rehash(root: Path, *names: str) -> None:
    """Record the parts' present sha256 in the manifest, as a forger would."""
    m = json.loads((root / MANIFEST).read_text())
    for name in names:
        m["part_sha256"][name] = hashlib.sha256((root / name).read_bytes()).hexdigest()
    (root / MANIFEST).write_text(json.dumps(m))


def rewrite_part(path: Path, change) -> None:
    """Rewrite a part with `change(table)`, keeping its metadata."""
    table = pq.read_table(path)
    pq.write_table(change(table).replace_schema_metadata(table.schema.metadata), path,
                   compression="zstd")


def column(name: str, values):
    """A change: column `name` replaced by values(old column)."""
    def change(table):
        i = table.schema.get_field_index(name)
        return table.set_column(i, name, values(table.column(name)))
    return change
