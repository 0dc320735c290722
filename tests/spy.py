"""A cheating strategy, for the fair-play tests: it decodes the observation's
RANDOM field back to the round's random stream and deals the deck again.

Against the old engine it worked: RANDOM was mix64(state ^ (plays+1)*GOLDEN)
>> 1, with `state` the round's one stream, which had shuffled the deck 39
draws (and some decisions) earlier. So: undo mix64 (two candidates for the
dropped bit), undo the xor, step the stream back k draws for each k up to
MAX_BACK, shuffle a deck from there, and keep the first deck in which the
seat's hand lies where its current hand was dealt and every card it has
seen already dealt lies outside its unseen cards. With the deal and decide
streams apart (`kernels.rng`) no deck fits, and its guesses are chance.

`decode` is the core, `believed_next_hand` what it tells of the next seat,
and `spy` the strategy: it decodes at every decision and trails a card of a
rank the next seat is believed not to hold, when it has such a trail.
"""
import numba
import numpy as np

from scopa_sim.observation import DEALER, DECK_LEFT, HAND, PLAYS, RANDOM, RULES, SEAT, UNSEEN

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
INV1 = np.uint64(0x96DE1B173F119089)          # inverses of mix64's multipliers mod 2**64
INV2 = np.uint64(0x319642B2D24D8EC3)
MAX_BACK = 4096
PLAYERS, HAND_SIZE, TABLE_SIZE = 0, 2, 3      # layout.R_* offsets in the rules head


@numba.njit(cache=True)
def unmix64(z):
    """The inverse of SplitMix64's finaliser."""
    z = z ^ (z >> np.uint64(31)) ^ (z >> np.uint64(62))
    z = z * INV2
    z = z ^ (z >> np.uint64(27)) ^ (z >> np.uint64(54))
    z = z * INV1
    return z ^ (z >> np.uint64(30)) ^ (z >> np.uint64(60))


@numba.njit(cache=True)
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def shuffled(start, deck):
    """The deck Fisher-Yates shuffles from stream state `start` (the engine's way)."""
    for c in range(40):
        deck[c] = c
    state = start
    for i in range(39, 0, -1):
        state += GOLDEN
        j = ((mix64(state) >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32)
        deck[i], deck[j] = deck[j], deck[i]


@numba.njit(cache=True)
def fits(deck, seat, dealer, players, hand_size, table_size, hand, unseen, dealt):
    """Whether the seat's hand lies where its last hand was dealt in `deck`,
    and every earlier card it saw (the table, its earlier hands) is seen."""
    leader = (dealer + 1) % players
    offset = (seat - leader) % players
    deals = (dealt - table_size) // (players * hand_size)
    for c in range(table_size):
        if unseen >> deck[c] & 1:
            return False
    last = 0
    for d in range(deals):
        for i in range(hand_size):
            card = deck[table_size + d * players * hand_size + i * players + offset]
            if d == deals - 1:
                last |= 1 << card
            elif unseen >> card & 1:
                return False
    return hand & ~last == 0


@numba.njit(cache=True)
def decode(obs, deck):
    """The deck of the round as the old engine dealt it, into `deck`; whether
    one fitted (else `deck` holds a guess)."""
    players, hand_size = obs[RULES + PLAYERS], obs[RULES + HAND_SIZE]
    table_size = obs[RULES + TABLE_SIZE]
    dealt = 40 - obs[DECK_LEFT]
    mask = GOLDEN * np.uint64(obs[PLAYS] + 1)
    for bit in range(2):
        state = unmix64((np.uint64(obs[RANDOM]) << np.uint64(1)) | np.uint64(bit)) ^ mask
        for k in range(39, MAX_BACK):
            shuffled(state - np.uint64(k) * GOLDEN, deck)
            if fits(deck, obs[SEAT], obs[DEALER], players, hand_size, table_size, obs[HAND],
                    obs[UNSEEN], dealt):
                return True
    shuffled(np.uint64(obs[RANDOM]), deck)
    return False


@numba.njit(cache=True)
def believed_next_hand(obs, deck):
    """The cards the seat after this one holds in the decoded deck and the
    seat has not seen (a card set)."""
    decode(obs, deck)
    players, hand_size = obs[RULES + PLAYERS], obs[RULES + HAND_SIZE]
    table_size = obs[RULES + TABLE_SIZE]
    leader = (obs[DEALER] + 1) % players
    offset = (obs[SEAT] + 1 - leader) % players
    held = 0
    for d in range((40 - obs[DECK_LEFT] - table_size) // (players * hand_size)):
        for i in range(hand_size):
            held |= 1 << deck[table_size + d * players * hand_size + i * players + offset]
    return held & obs[UNSEEN]


@numba.njit(cache=True)
def spy(obs, cards, takes, params):
    """Decode; trail a card of a rank the next seat is believed not to hold."""
    deck = np.empty(40, np.int64)
    believed = believed_next_hand(obs, deck)
    for i in range(cards.shape[0]):
        if takes[i] == 0:
            rank = cards[i] % 10
            safe = True
            for suit in range(4):
                if believed >> (suit * 10 + rank) & 1:
                    safe = False
            if safe:
                return i
    return 0
