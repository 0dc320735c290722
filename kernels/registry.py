"""The built-in strategies, declared once: name, kind, parameters (name,
default, what values it takes) and help text. The kernel's dispatch
(`heuristics`, `strategies`), the Python registry, parameter parsing and the
command line's help all derive from `RECORDS`. Adding a strategy is one record here plus
its kernel function and its branch in the dispatch (`ID.<name>`):
`heuristics.pick_simple` (a simple strategy), `heuristics.pick_fast` (a fast
one) or `strategies.choose` (a search).

A strategy's id is its record's position, never written by hand: runs store
names, and a test pins the ids of the strategies there are, so a new one goes
at the end. The kernels read the ids as `ID.<name>`, fields of one named
tuple (Numba folds them to constants), not as module names made from the
strategy names: a strategy named like anything else (a kernel helper such as
`lowest`, a constant such as `USER`) cannot shadow it, or be shadowed.

A seat's parameter vector holds its strategy's parameters in the order
declared (unused slots are 0); `P_*` name the slots the kernels read, each
derived from the parameter's name in the records of the strategies that read
it (`slot`): an import error if they disagree or the name is missing.

User strategies (`scopa_sim.engine.user`) get the ids USER.. USER + MAX_USERS - 1,
one per distinct user function of a run; any other id is unknown, and the
kernel's dispatch refuses it (the round stops with an error, see `round`).
"""
import collections
import keyword
import re
from typing import NamedTuple

import numpy as np

from .layout import MAX_PLAYERS, N_PARAMS


class Param(NamedTuple):
    """A strategy parameter: `kind` is "number" (any finite number), "count"
    (a whole number 1..high), "whole" (a whole number 0..high), "flag" (0 or
    1), "strategy" (a strategy a rollout can play, `ROLLOUT`, or a user one:
    its id), "choice" (one of the names `choices`: its index), "non-negative"
    or "fraction" (0..1), "weights" (a network's weights file: the index of
    its network in the run's, see `net`). A "weights" parameter with `when`
    is read only where one of those parameters names the net (a rollout or
    a leaf): elsewhere the run holds no network for it."""
    name: str
    default: float
    kind: str = "number"
    high: float = 0.0
    choices: tuple = ()
    when: tuple = ()


class Builtin(NamedTuple):
    """A built-in strategy. `kind` says which batch kernel can play it
    (simple < fast < search, see `batch.kernel_for`; user strategies play
    in the fast and search ones). `id` is set by `declare` (its position).
    A "strategy" parameter's default names a strategy, a "choice" one's one
    of its choices; `declare` makes it that strategy's id (that choice's
    index). `rollout`: a search's rollouts can play it though it is no fast
    strategy (net: the search kernel holds its network). `revision`: (n,
    seats) once its play at the same parameters has changed n times, the last
    for rounds of `seats` seats or more; a stored run records n
    (`runs.plan.revisions`) and one made at another is not played again."""
    name: str
    kind: str
    params: tuple
    help: str
    id: int = -1
    rollout: bool = False
    revision: tuple = ()


class Lineup(NamedTuple):
    """Who plays each seat, as the kernels take it: a named tuple of arrays
    (Numba types it field by field). The seat's strategy id (or PYTHON: the
    seat's strategy decides in Python, see `play.play_out`) and its
    parameter row."""
    strategies: np.ndarray     # int64[MAX_PLAYERS]
    params: np.ndarray         # float64[MAX_PLAYERS, N_PARAMS]


def lineup(strategies=None, params=None):
    """A Lineup of these arrays (fresh zeros where not given)."""
    return Lineup(np.zeros(MAX_PLAYERS, np.int64) if strategies is None else strategies,
                  np.zeros((MAX_PLAYERS, N_PARAMS), np.float64) if params is None else params)


USER, MAX_USERS = 64, 6
PYTHON = -2                 # a lineup's id for a seat whose strategy decides in Python
KINDS = ("simple", "fast", "search")

WORTH = (Param("card", 100.0), Param("coin", 100.0), Param("settebello", 400.0),
         Param("primiera", 5.0), Param("scopa", 1000.0))
COUNTED = WORTH + (Param("sweep", 2000.0), Param("seven", 1200.0),      # counter and reply
                   Param("coin_exposed", 240.0), Param("settebello_exposed", 600.0))
# search strategies: how far a deal of the unseen cards is believed less when
# it gives a seat a card it trailed beside this deal (search.determinize_inferred)
INFER = Param("infer", 0.5, "fraction")
# pimc, ismcts, spimc: rollouts cut after `depth` plays and valued by the net (`leaf`);
# the net of `weights` plays a `rollout=net` and values those leaves
LEAF = (Param("leaf", "end", "choice", choices=("end", "net")), Param("depth", 4.0, "count", 40),
        Param("weights", 0.0, "weights", when=("rollout", "leaf")))
SPIMC_PARAMS = (Param("samples", 400.0, "count", 100_000), Param("rollout", "counter", "strategy"),
                Param("endgame", 1.0, "flag"), INFER, *LEAF, Param("tail", 6.0, "whole", 40),
                Param("reach", 18.0, "count", 40))
RECORDS = (
    Builtin("random", "simple", (),
            "uniform over all legal moves (a move is a card and a capture set)"),
    Builtin("greedy", "simple", WORTH,
            "best immediate gain: scopa, then settebello, cards, coins, primiera; "
            "trails its least valuable card"),
    Builtin("heuristic", "fast",
            WORTH + (Param("sweep", 500.0), Param("seven", 120.0), Param("coin_exposed", 30.0),
                     Param("settebello_exposed", 300.0)),
            "greedy's gain minus flat costs for what the move leaves open: a table of 10 or "
            "less (a sweep), exposed sevens, coins and the settebello"),
    Builtin("counter", "fast", COUNTED,
            "heuristic with card counting: each cost times the chance, from the unseen "
            "cards, that the next player holds a card that takes it"),
    Builtin("reply", "fast",
            COUNTED + (Param("match", 1.0, "non-negative"), Param("pair", 0.5, "non-negative")),
            "counter that also charges the next player's likely reply: each card left on "
            "the table, its worth times `match`, and each two that sum to a rank not on the "
            "table, their worth times `pair`, times the chance it holds that rank"),
    Builtin("pimc", "search",
            (Param("samples", 24.0, "count", 100_000), Param("rollout", "counter", "strategy"),
             Param("endgame", 1.0, "flag"), INFER, *LEAF),
            "determinized Monte Carlo: deal the unseen cards at random `samples` times "
            "(weighed by `infer`), play each move out with the `rollout` strategy, best mean "
            "margin; exact endgame when nothing is hidden; with `leaf=net` each rollout stops "
            "after `depth` plays and takes the net's value of the position"),
    Builtin("ismcts", "search",
            (Param("iterations", 600.0, "count", 30_000), Param("rollout", "counter", "strategy"),
             Param("endgame", 1.0, "flag"), INFER, *LEAF, Param("exploration", 0.7, "non-negative")),
            "single-observer information-set MCTS with `iterations` sampled deals, UCB "
            "`exploration`, `rollout` strategy (`leaf` and `depth` as pimc's); exact endgame "
            "when nothing is hidden"),
    Builtin("endgame", "search",
            (Param("max_cards", 10.0, "count", 16), Param("fallback", "reply", "strategy"),
             Param("deals", 8.0, "whole", 10_000), Param("deal_cards", 6.0, "count", 16)),
            "exact minimax on the round margin once no card is hidden (at most `max_cards` "
            "in hands); with `deals`, once the deck is out and at most `deal_cards` are in "
            "hands, the best mean exact margin over that many sampled deals of the hidden "
            "cards; the `fallback` strategy before"),
    Builtin("spimc", "search", SPIMC_PARAMS,
            "pimc's rollouts (`samples` per legal move) spent by sequential halving: rounds "
            "that each drop the worse half of the moves (all on the same sampled deals); each "
            "rollout solved exactly once the deck is out and at most `tail` cards are in hands "
            "(0: never) in searches from at most `reach` cards in hands and deck (before a "
            "`leaf=net` cut: `leaf` and `depth` as pimc's); exact endgame when nothing is hidden"),
    Builtin("net", "search",
            (Param("weights", 0.0, "weights"), Param("endgame", 1.0, "flag"),
             Param("deals", 16.0, "whole", 10_000), Param("deal_cards", 7.0, "count", 16)),
            "a learned network's value of the position each move leaves, best first "
            "(`weights`: a file `scopa-sim train` wrote; by default the network shipped for "
            "the preset, 2-player scopa's where it has none of its own; `v1`: 2-player "
            "scopa's shipped before December 2026, `scopa-3-v1`, `scopa-4-v1`: theirs); "
            "exact endgame when nothing is hidden, and endgame's sampled one (`deals`, "
            "`deal_cards` as endgame's) when several seats hide the last cards; a search's "
            "rollouts can play it (`rollout=net`, with the search's `weights`)", rollout=True,
            revision=(1, 3)),           # 1: the sampled end of rounds of 3+ seats (Dec 2026)
    Builtin("netsearch", "search",
            tuple(p._replace(when=()) for p in SPIMC_PARAMS) + (Param("keep", 3.0, "count", 100),),
            "spimc over the `keep` moves the net values best (the network of `weights`), "
            "its rollouts spent on those alone"),
)


class Declared(NamedTuple):
    """What `declare` makes of the records."""
    builtins: tuple            # the records, each with its id
    names: tuple               # the names, by id
    id: tuple                  # ID: a named tuple of the ids, `ID.greedy` (a constant in Numba)
    fast: tuple                # the ids rollouts can play (not "search")
    defaults: np.ndarray       # float64[strategies, N_PARAMS]: each one's default parameters


def declare(records) -> Declared:
    """The strategies of these records: ids by position, "strategy"
    parameter defaults (names) as ids, the `ID` tuple, the defaults table.
    A name that is not a lower-case identifier, or taken twice: ValueError."""
    names = tuple(b.name for b in records)
    for name in names:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or keyword.iskeyword(name):
            raise ValueError(f"strategy name {name!r}: lower-case letters, digits and _, "
                             f"starting with a letter")
    if len(set(names)) != len(names):
        raise ValueError(f"strategy names taken twice: "
                         f"{', '.join(sorted({n for n in names if names.count(n) > 1}))}")

    def resolved(p):
        if not isinstance(p.default, str):
            return p
        return p._replace(default=float((p.choices or names).index(p.default)))

    builtins = tuple(b._replace(id=i, params=tuple(resolved(p) for p in b.params))
                     for i, b in enumerate(records))
    defaults = np.zeros((len(builtins), N_PARAMS), np.float64)
    for b in builtins:
        defaults[b.id, :len(b.params)] = [p.default for p in b.params]
    ids = collections.namedtuple("StrategyIds", names)(*range(len(names)))
    return Declared(builtins, names, ids, tuple(b.id for b in builtins if b.kind != "search"),
                    defaults)


# the ids (ID.random, ID.greedy, ...), FAST: what the fast batch kernel can play
BUILTINS, NAMES, ID, FAST, DEFAULTS = declare(RECORDS)
# what a search's rollouts (a "strategy" parameter) can play: the fast strategies and net
ROLLOUT = FAST + tuple(b.id for b in BUILTINS if b.rollout and b.id not in FAST)


def slot(param, *strategies):
    """The parameter vector slot of parameter `param` of these strategies
    (names): the same in each, or ValueError."""
    found = set()
    for name in strategies:
        names = [p.name for p in BUILTINS[NAMES.index(name)].params]
        if param not in names:
            raise ValueError(f"strategy {name} declares no parameter {param!r}")
        found.add(names.index(param))
    if len(found) != 1:
        raise ValueError(f"parameter {param!r} is in different slots of {strategies}")
    return found.pop()


# greedy, heuristic, counter, reply: what taken cards are worth, in hundredths of a card
_WORTHY = ("greedy", "heuristic", "counter", "reply")
P_CARD, P_COIN, P_SETTEBELLO, P_PRIMIERA, P_SCOPA = (
    slot(p, *_WORTHY) for p in ("card", "coin", "settebello", "primiera", "scopa"))
# heuristic, counter, reply: what leaving the table open costs (counter and reply: times
# a probability); tune them with `scopa-sim tune` (study/tune.py)
P_SWEEP, P_SEVEN, P_COIN_EXPOSED, P_SETTEBELLO_EXPOSED = (
    slot(p, *_WORTHY[1:]) for p in ("sweep", "seven", "coin_exposed", "settebello_exposed"))
# reply: what the next player takes by matching a rank, times its worth
P_MATCH, P_PAIR = slot("match", "reply"), slot("pair", "reply")
# search strategies (spimc reads pimc's)
P_SAMPLES = slot("samples", "pimc", "spimc", "netsearch")
P_ITERATIONS = slot("iterations", "ismcts")
P_ROLLOUT = slot("rollout", "pimc", "ismcts", "spimc", "netsearch")
# leaf=net: each rollout cut after `depth` plays, valued by the net of `weights` (which
# a rollout=net plays, and netsearch prunes with)
P_LEAF, P_DEPTH, P_SEARCH_WEIGHTS = (slot(p, "pimc", "ismcts", "spimc", "netsearch")
                                     for p in ("leaf", "depth", "weights"))
LEAF_NET = LEAF[0].choices.index("net")
P_USE_ENDGAME = slot("endgame", "pimc", "ismcts", "spimc", "netsearch")
P_INFER = slot("infer", "pimc", "ismcts", "spimc", "netsearch")
P_EXPLORATION = slot("exploration", "ismcts")
P_TAIL, P_REACH = slot("tail", "spimc", "netsearch"), slot("reach", "spimc", "netsearch")
P_WEIGHTS, P_NET_ENDGAME = slot("weights", "net"), slot("endgame", "net")
# netsearch (spimc reads it too: 0 in its rows, no pruning)
P_KEEP = slot("keep", "netsearch")
P_MAX_CARDS, P_FALLBACK = (slot(p, "endgame") for p in ("max_cards", "fallback"))
P_DEALS, P_DEAL_CARDS = (slot(p, "endgame", "net") for p in ("deals", "deal_cards"))
