"""The almanac's numbers, read from its runs and results: each section a small
function returning plain data (estimates with their intervals and n), which
`almanac_page.render` writes as ALMANAC.md. Nothing here plays a game:
`scopa_sim.study.almanac` makes the runs and results (and keeps them).

    edge      the dealer against the first player, per round and per game
    points    round points, the categories won / tied / split, scopas
    cards     what each card of the first hand is worth (`values`)
    odds      P(win the game) from every score (Markov chain, bootstrap)
    claims    claims of the rule texts answered with `ask`
    review    the worked-game page's commented plays against what `review` says of them
"""
from __future__ import annotations

import math

import numpy as np

from ..engine import schema
from .markov import MAX_POINTS, bootstrap as markov_bootstrap, round_counts, trimmed, win_tables
from .query import ask
from .runstats import run_stats
from ..stats import Moments, mean_from_sums, strict_leader, wilson
from .values import card_values


# ---- roles: the sides in play order ----------------------------------------
def roles(rules) -> list[str]:
    """The sides in the order they first play, the dealer's last: for two
    sides ["first player", "dealer"] (teams: the hand team, the deck team)."""
    if rules.n_sides == 2 and rules.players == 4:
        return ["hand team (first player's)", "deck team (dealer's)"]
    players = ["first player", "second player", "third player", "fourth player", "fifth player"]
    return players[:rules.n_sides - 1] + ["dealer"]


def _role_sides(rules, dealer: np.ndarray) -> np.ndarray:
    """rows x n_sides: the side of each role, in play order, the dealer's
    last. In every preset the seats alternate sides, so the last n_sides
    seats to play (dealer+players-n_sides+1, ..., dealer) are one of each."""
    teams = np.asarray(rules.teams)
    p, n = rules.players, rules.n_sides
    return np.stack([teams[(dealer + k) % p] for k in range(p - n + 1, p + 1)], 1)


# ---- the sections ----------------------------------------------------------
def edge(rounds_run, games_run=None, bootstrap: int = 200) -> dict:
    """The dealer's side against the first player's, per round (margin and
    P(win the round)) and per game (P(the first dealer's side wins))."""
    st = run_stats(rounds_run, bootstrap=bootstrap, values=False)
    out = {"rounds": st["rounds"], "dealer": st["dealer"], "round_tie": st["round_tie"],
           "strategies": st["strategies"], "seed": st["seed"], "rules": st["rules"]}
    if games_run is not None:
        g = run_stats(games_run, bootstrap=bootstrap, values=False)
        out.update(games=g["games"], first_dealer_game_win=g["dealer"]["first_dealer_game_win"],
                   rounds_per_game=g["rounds_per_game"]["mean"], games_seed=g["seed"])
    return out


def points(run) -> dict:
    """One pass over a run's rounds: points per round by role (distribution
    and mean), how often each category goes to each role or to nobody
    (tied), how the category points are split, scopas per round by role,
    rounds decided by scopas alone, and (two sides) the rounds' joint
    points per dealer seat, for the odds."""
    rules = run.spec.rules
    n, players = rules.n_sides, rules.players
    cats = [c for c, _ in schema.categories(rules) if c.startswith("pt_")]
    cols = ["dealer"] + [f"{c}_{t}" for c in cats + ["points", "scopas"] for t in range(n)]
    hist = np.zeros((n, MAX_POINTS), np.int64)            # [role, points]
    won = np.zeros((len(cats), n + 1), np.int64)          # [category, role or nobody]
    share = np.zeros(len(cats) + 1, np.int64)             # dealer side's category points
    split = swept = decided = rows = 0
    scopas = [Moments() for _ in range(n)]
    total_scopas = np.zeros(2, np.float64)                 # sum, sum of squares
    joint = np.zeros((players, MAX_POINTS, MAX_POINTS), np.int64) if n == 2 else None
    for _, df in run.batches(columns=cols):
        dealer = df["dealer"].astype(np.int64)
        rs = _role_sides(rules, dealer)                  # rows x n: side of each role
        r = np.arange(len(dealer))
        pts = np.stack([df[f"points_{t}"].astype(np.int64) for t in range(n)], 1)
        sc = np.stack([df[f"scopas_{t}"].astype(np.int64) for t in range(n)], 1)
        by_role = pts[r[:, None], rs]
        for k in range(n):
            hist[k] += np.bincount(np.clip(by_role[:, k], 0, MAX_POINTS - 1), minlength=MAX_POINTS)
            scopas[k].add(sc[r, rs[:, k]])
        cat_points = np.zeros((len(dealer), n), np.int64)
        for j, c in enumerate(cats):
            v = np.stack([df[f"{c}_{t}"].astype(np.int64) for t in range(n)], 1)
            cat_points += v
            got = v[r[:, None], rs] > 0
            won[j, :n] += got.sum(0)
            won[j, n] += (~got.any(1)).sum()
        share += np.bincount(cat_points[r, rs[:, -1]], minlength=len(cats) + 1)[:len(cats) + 1]
        scored = (cat_points > 0).sum(1)
        split += int((scored >= 2).sum())
        swept += int(((scored == 1) & (cat_points.sum(1) == len(cats))).sum())
        with_scopas, without = strict_leader(pts), strict_leader(pts - sc)
        decided += int(((with_scopas != without) & (with_scopas >= 0)).sum())
        t_sc = sc.sum(1)
        total_scopas += [t_sc.sum(), (t_sc * t_sc).sum()]
        if joint is not None:
            joint += round_counts(dealer, pts[:, 0], pts[:, 1], players)
        rows += len(dealer)
    last = int(np.flatnonzero(hist.sum(0)).max()) + 1
    out = {"rounds": rows, "roles": roles(rules),
           "categories": [{"category": c, "title": dict(schema.categories(rules))[c],
                           "won": [wilson(int(won[j, k]), rows).as_dict() for k in range(n)],
                           "tied": wilson(int(won[j, n]), rows).as_dict()}
                          for j, c in enumerate(cats)],
           "points": [{"role": roles(rules)[k],
                       "mean": mean_from_sums(float((hist[k] * np.arange(MAX_POINTS)).sum()),
                                              float((hist[k] * np.arange(MAX_POINTS) ** 2).sum()),
                                              rows).as_dict(),
                       "counts": [int(x) for x in hist[k, :last]]} for k in range(n)],
           "dealer_category_points": [wilson(int(k), rows).as_dict() for k in share],
           "split": wilson(split, rows).as_dict(), "swept": wilson(swept, rows).as_dict(),
           "scopas": [scopas[k].result().as_dict() for k in range(n)],
           "scopas_total": mean_from_sums(*total_scopas, rows).as_dict(),
           "decided_by_scopas": wilson(decided, rows).as_dict(),
           "category_names": cats}
    if joint is not None:
        out["joint"] = trimmed(joint).tolist()
    return out


def cards(run) -> dict:
    """What each card in the first hand is worth (`values.card_values`)."""
    return card_values(run)


def odds_table(joint, rules, strategies, rounds: int, seed: int, bootstrap: int) -> dict:
    """P(side 0 wins the game) from every score, from the run's rounds
    (their joint points per dealer seat, `points`), averaged over the
    dealer of the next round; bootstrap intervals, as `scopa_sim.study.odds`."""
    counts = np.asarray(joint, np.int64)
    point, low, high = markov_bootstrap(counts, lambda d: win_tables(d, rules.target).mean(-1),
                                        bootstrap, seed)
    return {"rules": rules.name, "target": rules.target, "strategies": list(strategies),
            "seed": seed, "rounds": rounds, "dealer": None, "bootstrap": bootstrap,
            "table": point.tolist(), "low": low.tolist(), "high": high.tolist()}



CLAIMS = (
    {"source": "the database summary's strategy notes",
     "quote": "Holding all four Sevens virtually guarantees the Prime point.",
     "question": "P(side 0 wins the primiera) when it is dealt all four sevens",
     "event": "pt_primiera_0 == 1", "given": "count(dealt_0 & sevens) == 4",
     "check": "at least 0.9"},       # "virtually": 9 times in 10 or more
    {"source": "the database summary's strategy notes",
     "quote": "With only 10 Coins cards in the deck, capturing 6 or more guarantees the "
              "Coins majority point",
     "question": "P(side 0 takes the coins point) when it captures 6 coins or more",
     "event": "pt_coins_0 == 1", "given": "coins_0 >= 6", "check": "1"},
    {"source": "the rulebook",
     "quote": "The best cards to win during play are the 7's and the cards of the Coin suit.",
     "question": "P(side 0 wins the round) when its first hand holds a seven or a coin",
     "event": "winner == 0", "given": "count(hand_0 & (sevens | coins)) >= 1",
     "against": "count(hand_0 & (sevens | coins)) == 0", "check": "above the other"},
)


def claims(run) -> list[dict]:
    """Claims of the rule texts, each answered with `ask` over the run."""
    out = []
    for c in CLAIMS:
        r = dict(c, answer=ask(run, c["event"], c["given"]))
        if "against" in c:
            r["other"] = ask(run, c["event"], c["against"])
        a = r["answer"]
        if c["check"] == "1":
            r["verdict"] = "holds" if a["k"] == a["n"] else "does not hold"
        else:
            low, high = ((0.9, 0.9) if c["check"] == "at least 0.9" else
                         (r["other"]["high"], r["other"]["low"]))
            r["verdict"] = ("holds" if a["low"] > low else "does not hold" if a["high"] < high
                            else "is not settled at this n (the intervals overlap the bar)")
        out.append(r)
    return out


# The plays the worked-game page's commentary judges: (who, the play as `review` writes
# it, the text's verdict, its words).
COMMENTED = (
    ("You", "7d takes 2c 5s", "good", "The settebello is now in your pile, where nobody can "
     "take it from you."),
    ("Ada", "3h", "mistake", "That is a mistake: a four and a three make seven, and there are "
     "four sevens in the pack."),
    ("You", "As", "good", "The table is 4, 9, 3 and 1, which adds up to 17, so no single card "
     "can clear it."),
    ("Ada", "Kc takes Qd As", "neutral", "Ada has two ways to capture. ... She plays K♣ and "
     "takes Q♦ and A♠, a coin and an ace."),
    ("You", "Js takes Jd", "good", "Your J♠ matches J♦ exactly, so you take it, and the table "
     "is empty again: a second scopa, and a second coin."),
    ("You", "2h", "good", "You cannot take a 9 with a 6 or a 2, so you lay down 2♥ — 9 and 2 "
     "make 11, too much for any single card. You keep 6♦, a coin."),
)


def commented_plays(df, rollouts: int, seed: int) -> dict:
    """What a `review` of the worked game's record (`df`, made with `rollouts` and
    `seed`) says of each play its commentary judges (`COMMENTED`), and
    whether the two agree."""
    rows = []
    for who, play, verdict, words in COMMENTED:
        hit = df[(df["name"] == who) & df["played"].map(lambda x: _same_play(str(x), play))]
        if hit.empty:
            rows.append({"who": who, "play": play, "verdict": verdict, "words": words,
                         "found": False})
            continue
        h = hit.iloc[0]
        cost = {k: (None if h[k] is None or (isinstance(h[k], float) and math.isnan(h[k]))
                    else float(h[k])) for k in ("cost", "cost_low", "cost_high")}
        label, judged = str(h["label"]), str(h["verdict"])
        bad = label in ("inaccuracy", "mistake", "blunder")
        agree = (None if judged == "level" else (not bad) if verdict == "good"
                 else bad if verdict == "mistake" else None)
        edge = {k: float(h[k]) for k in ("edge", "edge_low", "edge_high")}
        rows.append({"who": who, "play": str(h["played"]), "verdict": verdict, "words": words,
                     "found": True, "round": int(h["round"]), "index": int(h["play"]),
                     "best": str(h["best"]), "label": label, "level": str(h["level"]),
                     "judged": judged, "versus": str(h["versus"]), "why": str(h["why"]),
                     **edge, **cost, "agrees": agree})
    return {"rollouts": rollouts, "seed": seed, "plays": rows}


def _same_play(a: str, b: str) -> bool:
    """Whether two plays as written ("7d takes 5s 2c", "3h trails", "3h")
    are one move: the same card, the same cards taken in any order."""
    def key(text):
        card, _, taken = text.replace(" trails", "").partition(" takes ")
        return card.strip().lower(), frozenset(taken.lower().split())
    return key(a) == key(b)
