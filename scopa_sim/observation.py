"""What a user strategy sees: the observation of the seat to play, for
strategy authors (docs/STRATEGIES.md; defined in `engine.observation`).

A jitted strategy reads the array by these indices (compile-time
constants in Numba)::

    from scopa_sim.observation import HAND, TABLE, PILES, SIDE, count
    mine = count(obs[PILES + obs[SIDE]])      # cards my side has taken

(`count` and `lowest_card` are jitted helpers on card sets.) A Python
strategy gets the same as an `Observation`.
"""
from .engine.observation import (DEALER, DECK_LEFT, HAND, HAND_SIZES, LAST, LAST_PLAY, PILES,
                                 PLAYED, PLAYS, RANDOM, RANK, RANK_CARDS, RULES, SCOPAS, SCORES,
                                 SEAT, SIDE, SIZE, TABLE, UNSEEN, Observation, count,
                                 lowest_card)

__all__ = ["SEAT", "SIDE", "DEALER", "PLAYS", "DECK_LEFT", "LAST", "RANDOM", "LAST_PLAY",
           "HAND", "TABLE", "PLAYED", "UNSEEN", "PILES", "SCOPAS", "SCORES", "HAND_SIZES",
           "RULES", "SIZE", "RANK", "RANK_CARDS", "count", "lowest_card", "Observation"]
