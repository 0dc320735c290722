"""The rules, declared once: every setting and variant option of a rule set,
and the slots of the rules vector the kernels read (plain data, no numpy).

Each `Rule` is one record. From this table come the kernel's layout
(`layout.RULE_FIELDS` and its `R_*` slots), the `Rules` fields, their
checks and `Rules.pack()`, the `scopa-sim rules` listing, the options table
of docs/VARIANTS.md (`scripts/variants_doc.py`) and the reference engine's
list of flags. Adding a flag is a record here, its effect in the kernels and
in the reference engine, and a test (docs/DEVELOPING.md, "Adding a rule flag").

The rules vector holds the records' one-slot fields first, then the longer
ones, each group in the order declared here, then the records named in
`APPENDED` (added since users' strategies were first written against the
slots), in that order: a new record goes there, so no slot ever moves.
"""
from typing import NamedTuple

PRIMIERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)   # by rank 1..10
MAX_PLAYERS = 6


class Rule(NamedTuple):
    """One rule record. `kind`: "setting" (shapes the deal), "variant" (a
    rule option from the rule texts) or "derived" (a slot `Rules.pack`
    computes from the others; no option). `type`: "bool", "int" or "tuple"
    (a list of whole numbers). `size`: its slots in the rules vector (0:
    none). `source`: which rule texts say so (docs/VARIANTS.md)."""
    name: str
    kind: str
    type: str
    default: object
    help: str
    source: str = ""
    size: int = 1


RULES = (
    Rule("players", "setting", "int", 2, "seats at the table, 2..6"),
    Rule("sides", "derived", "int", None, "number of sides (teams, or players)"),
    Rule("teams", "setting", "tuple", None,
         "side of each seat, e.g. 0,1,0,1 (partners sit apart); default: each for themselves",
         size=MAX_PLAYERS),
    Rule("hand_size", "setting", "int", 3, "cards to each player per deal"),
    Rule("table_size", "setting", "int", 4,
         "cards face up on the table at the start of a round"),
    Rule("refill", "setting", "bool", True,
         "new hands of hand_size when all hands are empty, while the deck lasts"),
    Rule("ranks", "setting", "int", 10,
         "ranks in play, A up to this one in every suit: 10 is the 40-card deck; fewer "
         "(4 * ranks cards) make small games, e.g. for exact solvers; the others are set aside"),
    Rule("target", "variant", "int", 11,
         "a game ends after a round in which a side has at least this many points "
         "(11, 16, 21 or any 1..1000)",
         "the games site: 11/16/21; the rulebook: 8 for 3, 15 for 4"),
    Rule("scopa_on_last_play", "variant", "bool", False,
         "clearing the table on the round's last play is a scopa",
         "the rulebook is silent, the worked-game page forbids it"),
    Rule("fewest_cards", "variant", "bool", False,
         "a card with several captures must take one with the fewest cards", "the games site"),
    Rule("ace_takes_all", "variant", "bool", False,
         "asso piglia tutto: an ace takes the whole table when no ace is on it; "
         "that sweep is no scopa", "the games site"),
    Rule("primiera_forfeit", "variant", "bool", False,
         "a side missing a suit has primiera 0 and cannot win the primiera",
         "the family; 002 counts a missing suit 0"),
    Rule("re_bello", "variant", "bool", False,
         "the king of coins scores a point, like the settebello", "the family"),
    Rule("napola", "variant", "bool", False,
         "A-2-3 of coins score the length of the coin run from the ace (3..10)", "the family"),
    Rule("primiera_scale", "variant", "tuple", PRIMIERA,
         "primiera value of ranks A..K: ten whole numbers 1..1000",
         "custom; 000, 001, 003 give the standard one", size=len(PRIMIERA)),
    Rule("best", "derived", "tuple", None,
         "each 10-bit suit slice's best primiera value (`layout.primiera_table`)", size=1024),
)
APPENDED = ("ranks",)        # the records added later: last in the rules vector, in this order
OPTIONS = tuple(r for r in RULES if r.kind != "derived")       # the `Rules` fields, in order
