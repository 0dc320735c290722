"""scopa-sim: a fast Monte Carlo simulator and strategy analyser for Scopa.

    >>> import scopa_sim
    >>> scopa_sim.legal_captures("As 6c 5h", "7s")
    [(20, 35)]
    >>> df = scopa_sim.simulate(rounds=10_000, strategies=("random", "greedy"), seed=1)
    >>> scopa_sim.compare("counter", "greedy", deals=10_000)["margin"]   # duplicate deals

The names below are imported when first used, so `import scopa_sim` (and the
command line's help) does not load Numba, pandas or pyarrow.
"""
import importlib
import sys
import types

_WHERE = {"advise": "advise", "advise_round": "advise",
          "compare": "matches", "tournament": "matches", "odds": "odds",
          "card_name": "cards", "Move": "cards", "parse_card": "cards", "parse_cards": "cards",
          "Game": "game", "Round": "game", "legal_captures": "game", "legal_moves": "game",
          "PRESETS": "rules", "Rules": "rules", "simulate": "runner", "resume": "stored_run",
          "trace_round": "runner", "read_record": "records", "review": "review",
          "trace_game": "runner", "deal_columns": "deals", "deck_of": "runner",
          "STRATEGIES": "strategies", "parse_strategy": "strategies", "params": "user",
          "Observation": "observation", "StrategyError": "seats"}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'scopa_sim' has no attribute {name!r}")
    module = importlib.import_module(f".{_WHERE[name]}", __name__)
    value = getattr(module, "REGISTRY" if name == "STRATEGIES" else name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """`scopa_sim.advise`, `scopa_sim.odds` and `scopa_sim.review` are
    functions of modules of the same name: importing the module (`from .advise import ...`) makes the
    package's name the function, not the module (the module stays in
    sys.modules)."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _WHERE.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
