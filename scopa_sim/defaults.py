"""Every default that more than one place needs, set once (light: the
command line reads it for its help; it imports nothing).

Batch sizes: how many units a batch holds, for each kind of unit. A batch
is the runner's unit of work (`runner.run`): planned, run on any
worker, handed to the consumer in order. Results never depend on these
sizes (randomness is keyed by unit); what they trade is the cost of a batch
(writing a part, folding a total, looking whether to stop) against memory
and how often progress shows.
"""
ROUNDS = 50_000                 # simulated rounds: big enough that writing a part costs little
GAMES = ROUNDS // 4             # simulated games (about 4 rounds each, more with higher targets)
DUPLICATE_DEALS = 10_000        # compare: deals, each played once from every side
DUPLICATE_GAMES = 2_500         # compare with games: game seeds, each played from every side
ROLLOUTS = 500                  # advise: rollouts; the stop checks come at ROLLOUTS x 2^k
MAX = 1_000_000                 # any unit: a batch is held in memory


def default(games: bool) -> int:
    """Rounds or games per batch of a simulated run."""
    return GAMES if games else ROUNDS


# ---- advise and review: what values a move ------------------------------------------
DEFAULT_STRATEGY = "net"                # plays the rollouts out (the quick pass)
DEFAULT_ROLLOUTS = 10_000               # rollouts per decision, at most (each stops once separated)
DEEP_STRATEGY = "spimc:samples=40"      # the deep evaluation's: strong, about 0.5 ms a move
DEEP_SAMPLES = 200                      # its deals of the hidden cards, at most
DEEP_BATCH = 50                         # and its batches: the stop checks at 50, 100
REVIEW_STRATEGY = "net"                 # plays review's rollouts: the strongest fast player
REVIEW_ROLLOUTS = 64_000                # review's rollouts per decision, at most (each stops
                                        # once the played move's verdict is decided)
THRESHOLDS = {"inaccuracy": 0.1, "mistake": 0.3, "blunder": 0.7}   # review's labels, round points

# ---- the almanac ----------------------------------------------------------------------
ALMANAC_STRATEGY = "net"                # every seat of its main runs (endgame's figures beside)

# ---- play: a game against the engine -------------------------------------------------
PLAY_OPPONENT = "net"                   # the engine's strategy: the strongest fast one
HINT_ROLLOUTS = 2_000                   # a hint's rollouts, at most: about a second

# ---- tune: a strategy's parameters by CMA-ES ------------------------------------------
TUNE_DEALS = 20_000                     # duplicate deals an evaluation plays (every one the same)
TUNE_CHECK_DEALS = 100_000              # fresh deals the best change is checked on
TUNE_EVALUATIONS = 200                  # the search's bound when no budget is given
LEAKS_ROUNDS = 500                      # leaks: deals played (each twice, seats swapped)
LEAKS_ROLLOUTS = 32                     # leaks: rollouts per decision that differs, at most
