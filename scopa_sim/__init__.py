"""scopa-sim: a fast Monte Carlo simulator and strategy analyser for Scopa.

    >>> import scopa_sim
    >>> scopa_sim.legal_captures("As 6c 5h", "7s")
    [(20, 35)]
    >>> df = scopa_sim.simulate(rounds=10_000, strategies=("random", "greedy"), seed=1)
"""
from .cards import card_name, parse_card, parse_cards
from .engine import Game, legal_captures, legal_moves
from .rules import PRESETS, Rules
from .runner import simulate, trace_round
from .strategies import REGISTRY as STRATEGIES, parse_strategy

__all__ = ["Game", "PRESETS", "Rules", "STRATEGIES", "card_name", "legal_captures",
           "legal_moves", "parse_card", "parse_cards", "parse_strategy", "simulate",
           "trace_round"]
