"""What the cheating entrants share: greedy's choice (as the built-in
`greedy` and docs/examples/greedy_py.py make it, so a cheat that learns
nothing plays exactly as its honest twin, `greedy`), and the same choice
told the cards the opponents hold: it then avoids leaving a table they
can sweep. Card sets are int masks (bit c: card c)."""
from scopa_sim.kernels.layout import R_ACE_TAKES_ALL, R_SCOPA_ON_LAST_PLAY
from scopa_sim.observation import (DECK_LEFT, HAND, HAND_SIZES, LAST_PLAY, PLAYED, RULES, SEAT,
                                   TABLE, UNSEEN)

PRIMIERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
ACES = 1 | 1 << 10 | 1 << 20 | 1 << 30


def cards(mask: int) -> list[int]:
    return [c for c in range(40) if mask >> c & 1]


def mask_of(cs) -> int:
    m = 0
    for c in cs:
        m |= 1 << c
    return m


def worth(cs) -> float:
    return (100.0 * len(cs) + 100.0 * sum(c < 10 for c in cs) + 400.0 * (6 in cs)
            + sum(5.0 * PRIMIERA[c % 10] for c in cs))


def view(obs) -> dict:
    """The fields a cheat uses, from an Observation or an observation array."""
    if hasattr(obs, "table"):
        return {"seat": obs.seat, "hand": mask_of(obs.hand), "table": mask_of(obs.table),
                "unseen": mask_of(obs.unseen), "played": mask_of(obs.played),
                "deck_left": obs.deck_left, "last_play": obs.last_play,
                "scopa_on_last_play": obs.rules.scopa_on_last_play,
                "ace_takes_all": obs.rules.ace_takes_all, "teams": obs.rules.teams,
                "hand_sizes": obs.hand_sizes}
    o = [int(x) for x in obs]
    return {"seat": o[SEAT], "hand": o[HAND], "table": o[TABLE], "unseen": o[UNSEEN],
            "played": o[PLAYED], "deck_left": o[DECK_LEFT], "last_play": bool(o[LAST_PLAY]),
            "scopa_on_last_play": bool(o[RULES + R_SCOPA_ON_LAST_PLAY]),
            "ace_takes_all": bool(o[RULES + R_ACE_TAKES_ALL]), "teams": None,
            "hand_sizes": o[HAND_SIZES:HAND_SIZES + 6]}


def moves_of(moves) -> list[tuple[int, int]]:
    """A Python strategy's moves as (card, capture mask)."""
    return [(card, mask_of(taken)) for card, taken in moves]


def sweeps(v: dict, card: int, take: int) -> bool:
    if take != v["table"]:
        return False
    if v["last_play"] and not v["scopa_on_last_play"]:
        return False
    return not (v["ace_takes_all"] and card % 10 == 0 and take & ACES == 0)


def gain(v: dict, card: int, take: int) -> float:
    if not take:
        return -worth([card])
    return worth([card, *cards(take)]) + (1000.0 if sweeps(v, card, take) else 0.0)


def sweepable(table: int, opponents: int) -> bool:
    """Whether a card in `opponents` takes the whole (non-empty) `table`."""
    if not table:
        return False
    total = sum(c % 10 + 1 for c in cards(table))
    return any(c % 10 + 1 == total for c in cards(opponents))


def choose(v: dict, moves, opponents: int | None = None) -> int:
    """Greedy's move among `moves` [(card, capture mask)]; told the
    opponents' cards, one that leaves them no sweep where it can."""
    if len(moves) == 1:
        return 0
    values = []
    for card, take in moves:
        value = gain(v, card, take)
        if opponents:
            after = v["table"] & ~take if take else v["table"] | 1 << card
            if sweepable(after, opponents):
                value -= 900.0
        values.append(value)
    return values.index(max(values))


def opponents_in(pos, v: dict, teams) -> int | None:
    """The opponents' cards from the engine's position array `pos`, if it
    is the position this observation was made from (else None)."""
    from scopa_sim.kernels.position import HAND as P_HAND, TABLE as P_TABLE
    try:
        if int(pos[P_HAND + v["seat"]]) != v["hand"] or int(pos[P_TABLE]) != v["table"]:
            return None
        mine = teams[v["seat"]]
        return _or(int(pos[P_HAND + s]) for s in range(len(teams)) if teams[s] != mine)
    except (IndexError, TypeError, ValueError):
        return None


def _or(masks) -> int:
    m = 0
    for x in masks:
        m |= x
    return m
