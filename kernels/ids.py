"""Strategy ids, parameter names and defaults: the one source for the kernel
and the Python registry. A strategy's parameter vector holds its parameters
in the order named here (unused slots are 0)."""
import numpy as np

from .layout import N_PARAMS

RANDOM, GREEDY, HEURISTIC, COUNTER, PIMC, ISMCTS, ENDGAME = range(7)
NAMES = ("random", "greedy", "heuristic", "counter", "pimc", "ismcts", "endgame")

# greedy, heuristic, counter: what taken cards are worth, in hundredths of a card
P_CARD, P_COIN, P_SETTEBELLO, P_PRIMIERA, P_SCOPA = 0, 1, 2, 3, 4
# heuristic, counter: what leaving the table open costs (counter: times a probability);
# defaults tuned with scripts/tune_heuristic.py
P_SWEEP, P_SEVEN, P_COIN_EXPOSED, P_SETTEBELLO_EXPOSED = 5, 6, 7, 8
# search strategies
P_SAMPLES = P_ITERATIONS = 0
P_ROLLOUT = 1
P_USE_ENDGAME = 2
P_EXPLORATION = 3
P_MAX_CARDS, P_FALLBACK = 0, 1

WORTH = (("card", 100.0), ("coin", 100.0), ("settebello", 400.0), ("primiera", 5.0),
         ("scopa", 1000.0))
PARAMS = {
    RANDOM: (),
    GREEDY: WORTH,
    HEURISTIC: WORTH + (("sweep", 500.0), ("seven", 120.0), ("coin_exposed", 30.0),
                        ("settebello_exposed", 300.0)),
    COUNTER: WORTH + (("sweep", 2000.0), ("seven", 1200.0), ("coin_exposed", 240.0),
                      ("settebello_exposed", 600.0)),
    PIMC: (("samples", 24.0), ("rollout", float(HEURISTIC)), ("endgame", 1.0)),
    ISMCTS: (("iterations", 600.0), ("rollout", float(HEURISTIC)), ("endgame", 1.0),
             ("exploration", 0.7)),
    ENDGAME: (("max_cards", 10.0), ("fallback", float(COUNTER))),
}
DEFAULTS = np.zeros((len(NAMES), N_PARAMS), np.float64)
for _id, _params in PARAMS.items():
    DEFAULTS[_id, :len(_params)] = [v for _, v in _params]
