"""What the doc generators share (`columns_doc.py`, `cli_doc.py`): a page, or
the part of it between two marker lines, is written from the code, and
`--check` says in one line whether the committed page is what the generator
writes, and the command that remakes it.

    .venv/bin/python scripts/columns_doc.py            # writes docs/COLUMNS.md
    .venv/bin/python scripts/columns_doc.py --check    # exit 1 if it is stale
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent


def splice(page: str, text: str, begin: str, end: str) -> str:
    """`page` with the lines between its marker lines `begin` and `end`
    replaced by `text`; an error if the markers are not there once each."""
    lines = page.splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.rstrip("\n") in (begin, end)]
    if len(at) != 2 or lines[at[0]].rstrip("\n") != begin:
        raise SystemExit(f"error: the page needs the line {begin!r}, then {end!r}, once each")
    return "".join(lines[:at[0] + 1]) + text + "".join(lines[at[1]:])


def main(page: str, render: Callable[[str], str], argv: list[str] | None = None) -> int:
    """Write `page` (a path from the repository's root) as `render` makes it
    from the page's current text, or with `--check` only compare."""
    argv = sys.argv[1:] if argv is None else argv
    path, script = ROOT / page, Path(sys.argv[0]).resolve().relative_to(ROOT)
    old = path.read_text() if path.exists() else ""
    new = render(old)
    if argv == ["--check"]:
        if old != new:
            print(f"{page} is not what {script} writes: run .venv/bin/python {script}",
                  file=sys.stderr)
            return 1
        return 0
    if argv:
        raise SystemExit(f"usage: python {script} [--check]")
    if old != new:
        path.write_text(new)
    return 0
