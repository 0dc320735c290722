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

_WHERE = {"advise": "study.advise", "advise_round": "study.advise",
          "compare": "study.matches", "tournament": "study.matches", "odds": "study.odds",
          "review": "study.review",
          "card_name": "engine.cards", "Move": "engine.cards", "parse_card": "engine.cards", "parse_cards": "engine.cards",
          "Game": "engine.game", "Round": "engine.game", "legal_captures": "engine.game",
          "legal_moves": "engine.game", "PRESETS": "engine.rules", "Rules": "engine.rules",
          "read_record": "engine.records", "deal_columns": "engine.deals",
          "STRATEGIES": "engine.strategies", "parse_strategy": "engine.strategies",
          "params": "engine.user", "StrategyError": "engine.seats",
          "Observation": "observation",
          "simulate": "runs.runner", "resume": "runs.resume", "trace_round": "runs.traces",
          "trace_game": "runs.traces", "deck_of": "runs.traces"}
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
