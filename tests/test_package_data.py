"""What the library reads at run time is package data (`scopa_sim.data`),
found wherever the package is installed; docs/examples/ keeps readable
copies, which must be the same bytes."""
from pathlib import Path

import pytest

from scopa_sim import data
from scopa_sim.study import almanac, maxims

DOCS = Path(__file__).resolve().parent.parent / "docs" / "examples"


@pytest.mark.parametrize("shipped, copy", [("maxims.py", "maxims/base.py"),
                                           ("seed-003.scopa", "seed-003.scopa")])
def test_the_docs_copies_are_the_package_data(shipped, copy):
    assert data.path(shipped).read_bytes() == (DOCS / copy).read_bytes()


def test_the_library_reads_package_data_not_the_docs():
    for path in (maxims.STRATEGY, almanac.RECORD):
        assert path.is_file() and path.parent == data.path("")
        assert "docs" not in path.parts
