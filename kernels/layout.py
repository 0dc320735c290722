"""Constants shared by the kernels and the Python face: card tables, and the
index layouts of the rules vector and the result arrays (the "enums" module).

A card is `suit*10 + rank - 1`; a card set is a uint64 with bit `card` set::

    bit:  39 ..... 30 29 ..... 20 19 ..... 10 9 ...... 0
          K  ...   A  K  ...   A  K  ...   A  K  ...  A
          '- clubs -' '- swords' '-- cups -' '- coins -'

The rules vector's slots `R_*` are made from the one table of rules
(`rule_table.RULES`), not written out: one name per rule, the option's own
(`R_FEWEST_CARDS` for `fewest_cards`). They are plain module ints, so Numba
freezes each as a constant where a kernel reads it (no lookup, no cost); the
price is that a static tool cannot see them, so a test checks each against
the table (tests/test_variants.py).
"""
import numpy as np

from .rule_table import APPENDED, MAX_PLAYERS, PRIMIERA, RULES  # noqa: F401 (PRIMIERA: by rank)

N_CARDS = 40
N_RANKS = 10
SETTEBELLO = 6                    # 7 of coins
RE_BELLO = 9                      # king of coins

RANK = np.array([c % 10 + 1 for c in range(N_CARDS)], dtype=np.int64)
COINS = np.uint64((1 << 10) - 1)
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
# RANK_CARDS[r]: the four cards of rank r (RANK_CARDS[0] empty).
RANK_CARDS = np.array(
    [sum(1 << (s * 10 + r - 1) for s in range(4)) if r else 0 for r in range(11)],
    dtype=np.uint64)

def slots(fields):
    """The offsets of a layout declared as (name, size) fields in order, by
    name, and its total size: how every numbered slot is derived.

    >>> slots((("a", 1), ("b", 6), ("c", 1)))
    ({'a': 0, 'b': 1, 'c': 7}, 8)
    """
    at, offsets = 0, {}
    for name, size in fields:
        offsets[name] = at
        at += size
    return offsets, at


# ---- rules vector (int64): what the one kernel is general in --------------
# From the one table of rules (`rule_table.RULES`): the one-slot records first,
# then the longer ones, then those added later (`rule_table.APPENDED`).
# `R_TEAMS + seat`: the side of each seat; `R_PRIMIERA_SCALE + rank - 1`: the
# primiera scale; `R_BEST + suit slice`: that suit's best primiera value
# (`primiera_table` of the scale). Each record's slot is `R_<NAME>` (see the
# module docstring).
_ORDER = sorted((r for r in RULES if r.name not in APPENDED), key=lambda r: r.size > 1) + \
    [r for name in APPENDED for r in RULES if r.name == name]
RULE_FIELDS = tuple((r.name, r.size) for r in _ORDER if r.size)
RULE_SLOTS, R_SIZE = slots(RULE_FIELDS)
globals().update(("R_" + name.upper(), at) for name, at in RULE_SLOTS.items())

# ---- per-side round results (int16), one row per side ----------------------
# The result fields in the kernel's order (`scopa_sim.engine.schema` says what each
# is, in this order); each S_*/Q_* is its field's index, looked up by name.
SIDE_FIELDS = ("cards", "coins", "settebello", "primiera", "scopas",
               "pt_cards", "pt_coins", "pt_settebello", "pt_primiera",
               "pt_re_bello", "pt_napola", "points", "score")
N_SIDE = len(SIDE_FIELDS)
S_CARDS, S_COINS, S_SETTEBELLO, S_PRIMIERA, S_SCOPAS = (
    SIDE_FIELDS.index(f) for f in ("cards", "coins", "settebello", "primiera", "scopas"))
S_PT_CARDS, S_PT_COINS, S_PT_SETTEBELLO, S_PT_PRIMIERA = (
    SIDE_FIELDS.index(f) for f in ("pt_cards", "pt_coins", "pt_settebello", "pt_primiera"))
S_PT_RE_BELLO, S_PT_NAPOLA, S_POINTS, S_SCORE = (
    SIDE_FIELDS.index(f) for f in ("pt_re_bello", "pt_napola", "points", "score"))

# ---- per-round results (int64) ---------------------------------------------
ROUND_FIELDS = ("round", "game", "dealer", "last_capturer", "leftover", "captures")
N_ROUND = len(ROUND_FIELDS)
Q_ROUND, Q_GAME, Q_DEALER, Q_LAST_CAPTURER, Q_LEFTOVER, Q_CAPTURES = (
    ROUND_FIELDS.index(f)
    for f in ("round", "game", "dealer", "last_capturer", "leftover", "captures"))

# ---- strategies ------------------------------------------------------------
N_PARAMS = 16          # parameter vector length per seat
MAX_MOVES = 16384      # > the most legal moves any position can have


def primiera_table(scale=PRIMIERA):
    """Best primiera value of every 10-bit suit slice (bit r-1: rank r held).

    The kernels look a suit's best card up here instead of looping over it.
    """
    table = np.zeros(1024, np.int64)
    for m in range(1, 1024):
        table[m] = max(scale[r] for r in range(10) if m >> r & 1)
    return table
