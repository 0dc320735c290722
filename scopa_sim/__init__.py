"""scopa-sim: a fast Monte Carlo simulator and strategy analyser for Scopa.

    >>> import scopa_sim
    >>> scopa_sim.legal_captures("As 6c 5h", "7s")
    [(20, 35)]
    >>> df = scopa_sim.simulate(rounds=10_000, strategies=("random", "greedy"), seed=1)
    >>> scopa_sim.compare("counter", "greedy", deals=10_000)["margin"]   # duplicate deals

The names below are imported when first used, so `import scopa_sim` (and the
command line's help) does not load Numba, pandas or pyarrow. The imports
under `TYPE_CHECKING` declare them, once: editors and type checkers follow
them, and `__getattr__` reads them (as `lazy_loader` reads a stub).
"""
from __future__ import annotations

import functools
import importlib

TYPE_CHECKING = False      # as typing's, without loading typing; type checkers take it as True

if TYPE_CHECKING:
    from .engine.cards import Move, card_name, parse_card, parse_cards
    from .engine.deals import deal_columns
    from .engine.game import Game, Round, legal_captures, legal_moves
    from .engine.observation import Observation
    from .engine.records import read_record
    from .engine.rules import PRESETS, Rules
    from .engine.seats import StrategyError
    from .engine.strategies import REGISTRY as STRATEGIES, parse_strategy
    from .engine.user import params
    from .runs.resume import resume
    from .runs.runner import simulate
    from .runs.traces import deck_of, trace_game, trace_round
    from .study.advise import advise, advise_round
    from .study.leaks import leaks
    from .study.matches import compare, tournament
    from .study.odds import odds
    from .study.review import review
    from .study.tune import tune


@functools.cache
def _declared() -> dict[str, tuple[str, str]]:
    """Each public name -> (its module, its name there), read from the
    `TYPE_CHECKING` imports above."""
    import ast
    from pathlib import Path
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and ast.unparse(node.test) == "TYPE_CHECKING")
    return {a.asname or a.name: (f".{i.module}", a.name) for i in block.body for a in i.names}


def __getattr__(name: str):
    if name == "__all__":
        return sorted(_declared())
    if name.startswith("__") or name not in _declared():
        raise AttributeError(f"module 'scopa_sim' has no attribute {name!r}")
    module, attribute = _declared()[name]
    value = getattr(importlib.import_module(module, __name__), attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_declared()))
