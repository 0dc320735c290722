"""The one declaration of the result fields (`scopa_sim.engine.schema`) against
the kernel's layout and everything derived from it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import scopa_sim
from scopa_sim.engine import schema
from scopa_sim.engine.rules import Rules


def test_simulated_columns_and_types_are_the_declared_ones():
    for rules, games in ((Rules.preset("scopa"), False),
                         (Rules.preset("scopa-3").with_options(re_bello=True, napola=True), True)):
        kw = {"games": 2} if games else {"rounds": 5}
        df = scopa_sim.simulate(strategies=["greedy"] * rules.n_sides, rules=rules, seed=1, **kw)
        assert {c: str(t) for c, t in df.dtypes.items()} == schema.round_columns(rules, games)


def test_categories_follow_the_rules():
    plain = [c for c, _ in schema.categories(Rules.preset("scopa"))]
    assert plain == ["pt_cards", "pt_coins", "pt_settebello", "pt_primiera", "scopas", "points"]
    extra = [c for c, _ in schema.categories(Rules.preset("scopa").with_options(re_bello=True))]
    assert "pt_re_bello" in extra and extra[-1] == "points" and "pt_napola" not in extra


def test_the_committed_column_table_is_the_one_the_schema_generates():
    """docs/COLUMNS.md is what scripts/columns_doc.py writes from the schema
    (regenerate: .venv/bin/python scripts/columns_doc.py)."""
    root = Path(__file__).resolve().parent.parent
    check = subprocess.run([sys.executable, str(root / "scripts" / "columns_doc.py"), "--check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_a_round_result_has_the_schema_columns_but_the_run_index():
    rules = Rules.preset("scopa")
    game = scopa_sim.Round(rules, deck=list(range(40)))
    while not game.done:
        game.play(*game.legal_moves()[0])
    assert list(game.result()) == [c for c in schema.round_fields(rules, False) if c != "round"]
