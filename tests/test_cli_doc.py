"""docs/CLI.md's command reference is every command's `--help` as click
prints it (scripts/cli_doc.py writes it), so the page cannot drift from the
options."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_command_reference_is_what_the_help_prints():
    """(regenerate: .venv/bin/python scripts/cli_doc.py), whatever the
    terminal's width."""
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_doc.py"), "--check"],
                           capture_output=True, text=True, env={**os.environ, "COLUMNS": "41"})
    assert check.returncode == 0, check.stderr


def test_every_command_has_its_section():
    from scopa_sim.cli import main
    page = (ROOT / "docs" / "CLI.md").read_text()
    for name in main.commands:
        assert f"\n### scopa-sim {name}\n\n```text\nUsage: scopa-sim {name} " in page, name
