"""Constants shared by the kernels and the Python face: card tables, and the
index layouts of the rules vector and the result arrays (the "enums" module).

A card is `suit*10 + rank - 1`; a card set is a uint64 with bit `card` set::

    bit:  39 ..... 30 29 ..... 20 19 ..... 10 9 ...... 0
          K  ...   A  K  ...   A  K  ...   A  K  ...  A
          '- clubs -' '- swords' '-- cups -' '- coins -'
"""
import numpy as np

N_CARDS = 40
N_RANKS = 10
MAX_PLAYERS = 6
SETTEBELLO = 6                    # 7 of coins
RE_BELLO = 9                      # king of coins

RANK = np.array([c % 10 + 1 for c in range(N_CARDS)], dtype=np.int64)
COINS = np.uint64((1 << 10) - 1)
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
# RANK_CARDS[r]: the four cards of rank r (RANK_CARDS[0] empty).
RANK_CARDS = np.array(
    [sum(1 << (s * 10 + r - 1) for s in range(4)) if r else 0 for r in range(11)],
    dtype=np.uint64)
PRIMIERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)   # by rank 1..10

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
# The variant options are each 0/1 (exact meaning: docs/VARIANTS.md).
RULE_FIELDS = (
    ("players", 1),        # 2..6
    ("sides", 1),          # number of sides (teams, or players)
    ("hand", 1),           # cards per hand per deal
    ("table", 1),          # cards to the table at the start of a round
    ("refill", 1),         # 1: new hands while the deck lasts
    ("target", 1),         # game target score
    ("scopa_on_last", 1),  # clearing the table on the round's last play is a scopa
    ("fewest", 1),         # among a card's sum captures only the fewest-card ones
    ("ace_takes_all", 1),  # asso piglia tutto: an ace takes a table with no ace; no scopa
    ("forfeit", 1),        # a side missing a suit has primiera 0
    ("re_bello", 1),       # the king of coins scores a point
    ("napola", 1),         # a coin run A-2-3.. from the ace scores its length
    ("team", MAX_PLAYERS), # R_TEAM + seat: the side of each seat
    ("primiera", N_RANKS), # R_PRIMIERA + rank - 1: primiera scale (1..1000)
    ("best", 1024),        # R_BEST + suit slice: that suit's best primiera value
                           # (`primiera_table` of the scale)
)
_R, R_SIZE = slots(RULE_FIELDS)
(R_PLAYERS, R_SIDES, R_HAND, R_TABLE, R_REFILL, R_TARGET, R_SCOPA_ON_LAST, R_FEWEST,
 R_ACE_TAKES_ALL, R_FORFEIT, R_RE_BELLO, R_NAPOLA, R_TEAM, R_PRIMIERA, R_BEST) = (
    _R[f] for f in ("players", "sides", "hand", "table", "refill", "target", "scopa_on_last",
                    "fewest", "ace_takes_all", "forfeit", "re_bello", "napola", "team",
                    "primiera", "best"))

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
