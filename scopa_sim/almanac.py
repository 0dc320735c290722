"""The Scopa almanac: what strong play says about the game, and the strategy
books' advice put to the test (`scopa-sim almanac --out DIR`).

`make(out)` builds every section from ordinary runs under `out/runs/`
(each an ordinary `simulate` run: an interrupted almanac resumes them, a
finished one is only read again) and from duplicate comparisons, whose
results are kept as JSON under `out/parts/` (a part already made with the
same settings and version is read back, not played again). It writes
`out/ALMANAC.md` and its PNG charts beside it. The same seed and version
give the same document, byte for byte.

Each section is a small function returning plain data (estimates with
their intervals and n); `render` turns them into Markdown.

    edge      the dealer against the first player, per round and per game
    points    round points, the categories won / tied / split, scopas
    cards     what each card of the first hand is worth (`values`)
    odds      P(win the game) from every score (Markov chain, bootstrap)
    skill     spimc vs endgame, endgame vs greedy, greedy vs random
    advice    the maxims of the rule texts (`maxims.measure`)
    claims    claims of the rule texts answered with `ask`
    review    the worked-game page's commented plays, reviewed

The plan of the default almanac (2 cores shared with other work; rates
measured with `endgame` for every seat, Parquet writing included):

    part                                         units               time
    scopa rounds, endgame (38,000 rounds/s)      10,000,000 rounds   ~270 s
    scopa-3 rounds (16,000/s)                     2,000,000 rounds   ~125 s
    scopa-4 rounds (25,000/s)                     2,000,000 rounds    ~80 s
    scopone-scientifico rounds (19,000/s)         2,000,000 rounds   ~105 s
    games to the target, 4 presets     200,000 + 3 x 50,000 games    ~90 s
    reading the runs (report figures, points, the deals dealt again
      for the card values: ~260,000 rounds/s, one core), and asks   ~120 s
    odds: 200 bootstrap chains per two-sided preset                  ~15 s
    skill: endgame vs greedy and greedy vs random on each preset,
      200,000 deals and 20,000 games each (20,000 deals: 0.1-5 s)   ~100 s
    skill: spimc vs endgame (spimc: ~10 rounds/s/core), scopa only,
      2,000 deals and 200 games                                     ~300 s
    advice: 7 maxims x (100,000 deals ~6 s + 500 rounds replayed
      ~28 s)                                                        ~240 s
    the worked game reviewed (10,000 rollouts a play, deep checks)          ~60 s
    total                                                      ~25 minutes

(estimated from these rates, not timed end to end at this size; the
--quick almanac took 51 s end to end on the same 2 cores).

`quick=True` takes every count about 50 to 100 times smaller (under 3
minutes), with the same sections and wider intervals.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

PRESETS = ("scopa", "scopa-3", "scopa-4", "scopone-scientifico")
STRONG = "endgame"
LADDER = (("spimc", "endgame"), ("endgame", "greedy"), ("greedy", "random"))
RECORD = Path(__file__).resolve().parents[1] / "docs" / "examples" / "seed-003.scopa"
DOCUMENT = "ALMANAC.md"


@dataclass(frozen=True)
class Sizes:
    """How much each part plays. `rounds`, `games`: per preset, the main
    runs (every seat `endgame`); `skill`: per (a, b) of LADDER, (deals,
    games) on duplicate deals, and `skill_presets`: the presets each pair
    is played on; `maxim_deals`, `maxim_sample`: per maxim, the duplicate
    deals and the rounds replayed to see how often it changes the move;
    `bootstrap`: resamplings for the odds' intervals; `review_rollouts`:
    per play of the worked game."""
    rounds: dict = field(default_factory=lambda: {
        "scopa": 10_000_000, "scopa-3": 2_000_000, "scopa-4": 2_000_000,
        "scopone-scientifico": 2_000_000})
    games: dict = field(default_factory=lambda: {
        "scopa": 200_000, "scopa-3": 50_000, "scopa-4": 50_000, "scopone-scientifico": 50_000})
    skill: dict = field(default_factory=lambda: {
        "spimc-endgame": (2_000, 200), "endgame-greedy": (200_000, 20_000),
        "greedy-random": (200_000, 20_000)})
    skill_presets: dict = field(default_factory=lambda: {
        "spimc-endgame": ("scopa",), "endgame-greedy": PRESETS, "greedy-random": PRESETS})
    maxim_deals: int = 100_000
    maxim_sample: int = 500
    bootstrap: int = 200
    review_rollouts: int = 10_000


DEFAULT = Sizes()
QUICK = Sizes(
    rounds={"scopa": 100_000, "scopa-3": 30_000, "scopa-4": 30_000, "scopone-scientifico": 30_000},
    games={"scopa": 4_000, "scopa-3": 1_000, "scopa-4": 1_000, "scopone-scientifico": 1_000},
    skill={"spimc-endgame": (40, 10), "endgame-greedy": (5_000, 500),
           "greedy-random": (5_000, 500)},
    skill_presets={"spimc-endgame": ("scopa",), "endgame-greedy": ("scopa",),
                   "greedy-random": ("scopa",)},
    maxim_deals=5_000, maxim_sample=30, bootstrap=50, review_rollouts=500)

Progress = Callable[[str, int, int], None]        # (step, done, total)


# ---- runs and parts ---------------------------------------------------------
def version() -> str:
    from importlib import metadata
    try:
        return metadata.version("scopa-sim")
    except metadata.PackageNotFoundError:           # pragma: no cover - a source tree
        return "unknown"


def ensure_run(root: Path, spec, workers=None, scheduler=None, progress: Progress | None = None):
    """The ordinary run of `spec` in `root`, read back (`store.Run`): made if
    absent, resumed if unfinished, only opened if finished. A folder there
    holding another run is refused."""
    from .sources import open_to_resume
    from .store import MANIFEST, Run, StoredSpec, spec_dict
    from .stored_run import store_batches
    root = Path(root)
    step = root.name
    done = [0]

    def show(units, rate):
        done[0] = units if rate is None else done[0] + units
        if progress:
            progress(step, done[0], spec.units)
    if (root / MANIFEST).is_file():
        found = Run.open(root)
        if found.stored.as_dict() != StoredSpec.from_dict(spec_dict(spec)).as_dict():
            raise ValueError(f"{root} holds another run than the almanac's: remove it, or "
                             f"choose another --out")
        if not (found.manifest.get("finished") and found.n_missing == 0):
            with open_to_resume(root) as run:
                store_batches(run, workers, scheduler, show)
        elif progress:
            progress(step, spec.units, spec.units)
    else:
        root.parent.mkdir(parents=True, exist_ok=True)
        with Run.create(root, spec) as run:
            store_batches(run, workers, scheduler, show)
    return Run.open(root)


def main_run(out: Path, preset: str, units: int, games: bool = False, seed: int = 2026,
             strategy: str = STRONG, workers=None, scheduler=None, progress=None):
    """Every seat playing `strategy` under `preset`: `units` rounds (or games)."""
    from .rules import Rules
    from .runner import RunSpec
    rules = Rules.resolve(preset)
    kind = "games" if games else "rounds"
    spec = RunSpec.make(**{kind: units}, strategies=(strategy,) * rules.n_sides, rules=rules,
                        seed=seed, batch_size=None)
    root = Path(out) / "runs" / f"{strategy}-{preset}-{kind[0]}{units}-s{seed}"
    return ensure_run(root, spec, workers, scheduler, progress)


def part(out: Path, name: str, params: dict, make: Callable[[], dict]) -> dict:
    """A result kept as JSON in out/parts/NAME.json: read back when it was
    made with the same `params` (and version), else made and saved."""
    path = Path(out) / "parts" / f"{name}.json"
    params = {**params, "version": version()}
    if path.is_file():
        try:
            kept = json.loads(path.read_text())
            if kept.get("params") == json.loads(json.dumps(params)):
                return kept["result"]
        except (ValueError, KeyError):
            pass
    result = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"params": params, "result": result}, indent=1, default=_plain))
    tmp.replace(path)
    return json.loads(json.dumps(result, default=_plain))


def _plain(x):
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot keep {type(x).__name__} as JSON")


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
    from .analysis.runstats import run_stats
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
    from . import schema
    from .analysis.markov import round_counts, trimmed, MAX_POINTS
    from .analysis.stats import Moments, mean_from_sums, strict_leader, wilson
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
        dealer = df["dealer"].to_numpy().astype(np.int64)
        rs = _role_sides(rules, dealer)                  # rows x n: side of each role
        r = np.arange(len(dealer))
        pts = np.stack([df[f"points_{t}"].to_numpy().astype(np.int64) for t in range(n)], 1)
        sc = np.stack([df[f"scopas_{t}"].to_numpy().astype(np.int64) for t in range(n)], 1)
        by_role = pts[r[:, None], rs]
        for k in range(n):
            hist[k] += np.bincount(np.clip(by_role[:, k], 0, MAX_POINTS - 1), minlength=MAX_POINTS)
            scopas[k].add(sc[r, rs[:, k]])
        cat_points = np.zeros((len(dealer), n), np.int64)
        for j, c in enumerate(cats):
            v = np.stack([df[f"{c}_{t}"].to_numpy().astype(np.int64) for t in range(n)], 1)
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
    from .analysis.values import card_values
    return card_values(run)


def odds_table(joint, rules, strategies, rounds: int, seed: int, bootstrap: int) -> dict:
    """P(side 0 wins the game) from every score, from the run's rounds
    (their joint points per dealer seat, `points`), averaged over the
    dealer of the next round; bootstrap intervals, as `scopa_sim.odds`."""
    from .analysis.markov import bootstrap as markov_bootstrap, win_tables
    counts = np.asarray(joint, np.int64)
    point, low, high = markov_bootstrap(counts, lambda d: win_tables(d, rules.target).mean(-1),
                                        bootstrap, seed)
    return {"rules": rules.name, "target": rules.target, "strategies": list(strategies),
            "seed": seed, "rounds": rounds, "dealer": None, "bootstrap": bootstrap,
            "table": point.tolist(), "low": low.tolist(), "high": high.tolist()}


def skill(a: str, b: str, preset: str, deals: int, games: int, seed: int, workers=None,
          scheduler=None, progress: Progress | None = None) -> dict:
    """`a` against `b` on duplicate deals: margin per round and P(win the
    round); on duplicate game seeds (`games` > 0): P(win a game)."""
    from .matches import compare
    step = f"{a} vs {b}, {preset}"

    def show(kind, total):
        return (lambda c: progress(f"{step} ({kind})", c.units, total)) if progress else None
    r = compare(a, b, rules=preset, seed=seed, deals=deals, workers=workers,
                scheduler=scheduler, progress=show("deals", deals))
    out = {"a": a, "b": b, "rules": preset, "seed": seed, "deals": r["pairs"],
           "margin": r["margin"], "round_win": r["round_win"], "round_loss": r["round_loss"],
           "round_draw": r["round_draw"]}
    if games:
        g = compare(a, b, rules=preset, seed=seed, deals=games, games=True, workers=workers,
                    scheduler=scheduler, progress=show("games", games))
        out.update(games=g["pairs"], match_win=g["match_win"],
                   match_win_wilson=g["match_win_wilson"])
    return out


def advice(maxim: str, deals: int, sample: int, seed: int, workers=None, scheduler=None) -> dict:
    """What following one maxim is worth (`maxims.measure`), on scopa."""
    from .maxims import measure
    return measure(maxim, rules="scopa", deals=deals, seed=seed, workers=workers, sample=sample,
                   scheduler=scheduler)


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
    from .analysis.query import ask
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


def review_plays(rollouts: int, seed: int, workers=None, scheduler=None) -> dict:
    """`review` of the worked game's record (every label checked by the deep
    evaluator), and its verdict on each commented play."""
    from .review import review
    df = review(str(RECORD), seed=seed, rollouts=rollouts, workers=workers, scheduler=scheduler)
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
        label = str(h["label"])
        bad = label in ("inaccuracy", "mistake", "blunder")
        agree = (not bad) if verdict == "good" else bad if verdict == "mistake" else None
        rows.append({"who": who, "play": str(h["played"]), "verdict": verdict, "words": words,
                     "found": True, "round": int(h["round"]), "index": int(h["play"]),
                     "best": str(h["best"]), "label": label, "level": str(h["level"]),
                     **cost, "agrees": agree})
    return {"rollouts": rollouts, "seed": seed, "plays": rows}


def _same_play(a: str, b: str) -> bool:
    """Whether two plays as written ("7d takes 5s 2c", "3h trails", "3h")
    are one move: the same card, the same cards taken in any order."""
    def key(text):
        card, _, taken = text.replace(" trails", "").partition(" takes ")
        return card.strip().lower(), frozenset(taken.lower().split())
    return key(a) == key(b)


# ---- the whole almanac -----------------------------------------------------
def make(out, quick: bool = False, seed: int = 2026, workers=None, scheduler=None,
         progress: Progress | None = None, sizes: Sizes | None = None) -> Path:
    """Build the almanac in folder `out`: every run under out/runs/ (resumed
    when there), every comparison under out/parts/, then out/ALMANAC.md and
    its charts. Returns the document's path."""
    from .executors import executor
    from .maxims import MAXIMS
    from .rules import Rules
    from .runner import warm_kernels
    out = Path(out)
    sizes = sizes or (QUICK if quick else DEFAULT)
    data = {"seed": seed, "version": version(), "quick": quick, "sizes": asdict(sizes),
            "presets": {}, "skill": [], "advice": [], "claims": None, "review": None}
    with executor(workers, scheduler, setup=warm_kernels) as ex:
        for preset in PRESETS:
            rules = Rules.resolve(preset)
            rr = main_run(out, preset, sizes.rounds[preset], False, seed, STRONG, workers, ex,
                          progress)
            gr = main_run(out, preset, sizes.games[preset], True, seed, STRONG, workers, ex,
                          progress) if sizes.games.get(preset) else None
            p = {"edge": edge(rr, gr, sizes.bootstrap), "run": rr.root.name,
                 "games_run": gr.root.name if gr is not None else None}
            _step(progress, f"reading {preset}")
            p["points"] = points(rr)
            p["cards"] = cards(rr)
            if rules.n_sides == 2:
                p["odds"] = odds_table(p["points"].pop("joint"), rules, (STRONG,) * 2,
                                       p["points"]["rounds"], seed, sizes.bootstrap)
            if preset == "scopa":
                _step(progress, "claims")
                data["claims"] = claims(rr)
            data["presets"][preset] = p
        for a, b in LADDER:
            key = f"{a}-{b}"
            deals, games = sizes.skill[key]
            for preset in sizes.skill_presets[key]:
                data["skill"].append(part(
                    out, f"skill-{key}-{preset}",
                    {"a": a, "b": b, "rules": preset, "deals": deals, "games": games,
                     "seed": seed},
                    lambda: skill(a, b, preset, deals, games, seed, workers, ex, progress)))
        for k, name in enumerate(MAXIMS):
            _step(progress, f"maxim {name}", k, len(MAXIMS))
            data["advice"].append(part(
                out, f"maxim-{name}", {"maxim": name, "deals": sizes.maxim_deals,
                                       "sample": sizes.maxim_sample, "seed": seed},
                lambda: advice(name, sizes.maxim_deals, sizes.maxim_sample, seed, workers, ex)))
        _step(progress, "reviewing the worked game")
        data["review"] = part(out, "review-seed-003", {"rollouts": sizes.review_rollouts,
                                                       "seed": seed},
                              lambda: review_plays(sizes.review_rollouts, seed, workers, ex))
    _step(progress, "writing the document")
    return render(data, out)


def _step(progress, name, done=0, total=1):
    if progress:
        progress(name, done, total)


# ---- Markdown ---------------------------------------------------------------
def _n(d) -> int:
    return int(d["n"])


def rate(d, digits: int = 4) -> str:
    """A rate with its 95% interval and n."""
    return (f"{d['rate']:.{digits}f} [{d['low']:.{digits}f}, {d['high']:.{digits}f}] "
            f"(n = {_n(d):,})")


def mean(d, digits: int = 4, key: str = "mean") -> str:
    """A mean (or estimate) with its 95% interval and n."""
    return (f"{d[key]:+.{digits}f} [{d['low']:+.{digits}f}, {d['high']:+.{digits}f}] "
            f"(n = {_n(d):,})")


def share(d, digits: int = 4) -> str:
    """A paired estimate of a probability, with its 95% interval and n."""
    return (f"{d['estimate']:.{digits}f} [{d['low']:.{digits}f}, {d['high']:.{digits}f}] "
            f"(n = {_n(d):,})")


def _at(counts: list, k: int) -> int:
    return counts[k] if k < len(counts) else 0


def wilson_of(k: int, n: int) -> dict:
    from .analysis.stats import wilson
    return wilson(k, n).as_dict()


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _how(text: str) -> str:
    return f"*How it was made:* {text}\n"


def render(data: dict, out: Path) -> Path:
    """Write out/ALMANAC.md and its charts from the sections' data."""
    out = Path(out)
    seed, ver = data["seed"], data["version"]
    made = f"scopa-sim {ver}, seed {seed}"
    doc = ["# The Scopa almanac\n",
           f"What strong play says about the game, and the strategy books' advice put to "
           f"the test. Made by `scopa-sim almanac{' --quick' if data['quick'] else ''} "
           f"--seed {seed}` ({made}). Every number carries its 95% interval (Wilson for "
           f"rates, normal for means, paired for duplicate deals, bootstrap for the odds) "
           f"and its n. The runs are ordinary runs in `runs/`: ask them anything with "
           f"`scopa-sim ask`.\n"]
    doc += _edge_md(data, out, made)
    doc += _points_md(data, out, made)
    doc += _cards_md(data, out, made)
    doc += _odds_md(data, out, made)
    doc += _skill_md(data, out, made)
    doc += _advice_md(data, out, made)
    doc += _claims_md(data, made)
    doc += _review_md(data, made)
    path = out / DOCUMENT
    path.write_text("\n".join(doc))
    return path


def _edge_md(data, out, made) -> list[str]:
    from .analysis.charts import _figure, save
    doc = ["## The edge: dealer against first player\n",
           "Per round: the dealer's side's points minus the first player's side's (margin), "
           "and each side's P(win the round). Per game: P(the side that deals the first "
           "round wins the game).\n"]
    rows, names, est, half = [], [], [], []
    for preset, p in data["presets"].items():
        e = p["edge"]
        d = e["dealer"]
        rows.append([preset, mean(d["margin"]), rate(d["dealer_win"]), rate(d["leader_win"]),
                     rate(e["first_dealer_game_win"]) if "first_dealer_game_win" in e else "—"])
        names.append(preset)
        est.append(d["margin"]["mean"])
        half.append(d["margin"]["high"] - d["margin"]["mean"])
    doc.append(_table(["rules", "dealer's margin per round", "P(dealer's side wins round)",
                       "P(first player's side wins round)", "P(first dealer wins game)"], rows))
    fig, ax = _figure("The dealer's edge: mean round margin, dealer's side minus first "
                      "player's\n(95% intervals)")
    ax.bar(names, est, yerr=half, capsize=6, color="#4C72B0")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("points per round")
    save(fig, out / "almanac-edge.png")
    doc.append("![The dealer's edge per round](almanac-edge.png)\n")
    counts = ", ".join(f"{k}: {p['edge']['rounds']:,} rounds ({p['run']})"
                       + (f" and {p['edge']['games']:,} games ({p['games_run']})"
                          if p["games_run"] else "") for k, p in data["presets"].items())
    doc.append(_how(f"every seat plays `{STRONG}`; {counts}; {made}."))
    return doc


def _points_md(data, out, made) -> list[str]:
    from .analysis.charts import SIDE_COLOURS, _figure, save
    doc = ["## Points: what a round is made of\n"]
    for preset, p in data["presets"].items():
        pt = p["points"]
        doc.append(f"### {preset}\n")
        doc.append(_table(["", *pt["roles"]],
                          [["points per round", *(mean(x["mean"]) for x in pt["points"])],
                           ["scopas per round", *(mean(x) for x in pt["scopas"])]]))
        rows = [[c["title"], *(rate(w) for w in c["won"]), rate(c["tied"])]
                for c in pt["categories"]]
        doc.append("How often each category is won by each side, or by nobody (tied):\n")
        doc.append(_table(["category", *(f"won by the {r}" for r in pt["roles"]),
                           "tied (nobody)"], rows))
        doc.append(f"- The category points split between the sides (each side scoring at "
                   f"least one): {rate(pt['split'])}; one side takes them all: "
                   f"{rate(pt['swept'])}.\n"
                   f"- Scopas per round, both sides together: {mean(pt['scopas_total'])}.\n"
                   f"- Rounds decided by scopas alone (the winner without the scopas would "
                   f"differ): {rate(pt['decided_by_scopas'])}.\n")
        shares = pt["dealer_category_points"]
        doc.append("The dealer's side's share of the category points:\n")
        doc.append(_table([f"{k} of {len(shares) - 1}" for k in range(len(shares))],
                          [[rate(s, 3) for s in shares]]))
        n = pt["rounds"]
        doc.append("The distribution of a round's points, each side (points scored by at "
                   "least 1 round in 1,000):\n")
        top = max(len(x["counts"]) for x in pt["points"])
        shown = [k for k in range(top)
                 if max(_at(x["counts"], k) for x in pt["points"]) * 1000 >= n]
        doc.append(_table(["points", *pt["roles"]],
                          [[str(k), *(rate(wilson_of(_at(x["counts"], k), n), 3)
                                      for x in pt["points"])] for k in shown]))
        width = 0.8 / len(pt["points"])
        fig, ax = _figure(f"Round points, {preset}: the distribution for each side\n"
                          f"({STRONG} for every seat, {n:,} rounds)")
        for k, x in enumerate(pt["points"]):
            c = np.array(x["counts"], float) / n
            ax.bar(np.arange(len(c)) + k * width, c, width, label=x["role"],
                   color=SIDE_COLOURS[k % len(SIDE_COLOURS)])
        ax.set_xlabel("points in the round")
        ax.set_ylabel("share of rounds")
        ax.legend()
        name = f"almanac-points-{preset}.png"
        save(fig, out / name)
        doc.append(f"![Round points, {preset}]({name})\n")
        doc.append(_how(f"every seat plays `{STRONG}`; {n:,} rounds ({p['run']}); {made}."))
    return doc


def _cards_md(data, out, made) -> list[str]:
    from .analysis.charts import draw
    from .cards import card_name
    doc = ["## Cards: what each card of the first hand is worth\n",
           "A card's worth: the mean round margin of the side whose first hand holds it; "
           "a hand's worth: the sum of its cards' values.\n"]
    for preset, p in data["presets"].items():
        v = p["cards"]
        cards = sorted(v["cards"], key=lambda c: -c["margin"]["mean"])
        doc.append(f"### {preset}\n")
        rows = [[card_name(c["card"]), mean(c["margin"]), mean(c["win_edge"])]
                for c in cards[:5] + cards[-3:]]
        doc.append("The five cards worth most, and the three worth least:\n")
        doc.append(_table(["card", "holder's margin per round", "win edge"], rows))
        w = v["hand_worth"]
        q = w["quantiles"]
        doc.append(f"A first hand's worth: mean {mean(w['mean'])}; 5% of hands are worth at most "
                   f"{q['0.05']:+.2f}, half at most {q['0.5']:+.2f}, 95% at most "
                   f"{q['0.95']:+.2f} (quantiles of {w['mean']['n']:,} hands, to "
                   f"{w['bin']} points).\n")
        name = f"almanac-values-{preset}.png"
        draw("values", v, out / name)
        doc.append(f"![What each card is worth, {preset}]({name})\n")
        doc.append(_how(f"`scopa-sim values` of {p['run']} ({v['rounds']:,} rounds, every seat "
                        f"`{STRONG}`); {made}."))
    return doc


def _odds_md(data, out, made) -> list[str]:
    from .analysis.charts import draw
    doc = ["## Odds: P(win the game) from every score\n",
           "From the rounds of the main run: the Markov chain over the score, its round "
           "distribution resampled for the 95% interval; the next round's dealer averaged "
           "over the seats.\n"]
    for preset, p in data["presets"].items():
        if "odds" not in p:
            doc.append(f"### {preset}\n\nNo table: the chain covers two sides, "
                       f"{preset} has three.\n")
            continue
        o = p["odds"]
        t, lo, hi = (np.array(o[k]) for k in ("table", "low", "high"))
        doc.append(f"### {preset}\n")
        doc.append(f"P(you win the game to {o['target']}): rows your score, columns theirs; "
                   f"each cell its 95% interval ({o['bootstrap']} resamplings of "
                   f"n = {o['rounds']:,} rounds).\n")
        cols = range(len(t))
        rows = [[str(i), *(f"{t[i, j]:.3f} [{lo[i, j]:.3f}, {hi[i, j]:.3f}]" for j in cols)]
                for i in cols]
        doc.append(_table(["you \\ them", *(str(j) for j in cols)], rows))
        name = f"almanac-odds-{preset}.png"
        draw("odds", o, out / name)
        doc.append(f"![P(win the game) from every score, {preset}]({name})\n")
        doc.append(_how(f"{o['rounds']:,} rounds of {p['run']} (`{STRONG}` for every seat), "
                        f"{o['bootstrap']} bootstrap resamplings; {made}."))
    return doc


def _skill_md(data, out, made) -> list[str]:
    from .analysis.charts import _figure, save
    doc = ["## Skill against luck\n",
           "How much better play is worth, on duplicate deals (each deck played with the "
           "strategies in every seat, so the luck of the deal cancels), set against the spread "
           "of a round's margin that the cards alone make: its standard deviation when "
           f"`{STRONG}` plays itself.\n"]
    rows, labels, est, half = [], [], [], []
    for s in data["skill"]:
        spread = data["presets"][s["rules"]]["edge"]["dealer"]["margin"]
        sd, rounds = spread["sd"], spread["n"]
        m = s["margin"]
        win = s["round_win"]
        rows.append([f"{s['a']} vs {s['b']}", s["rules"], mean(m, key="estimate"),
                     rate(win), f"{m['estimate'] / sd:+.3f} [{m['low'] / sd:+.3f}, "
                     f"{m['high'] / sd:+.3f}] (n = {m['n']:,}; sd {sd:.3f} over {rounds:,} rounds)",
                     share(s["match_win"]) if "match_win" in s else "—"])
        labels.append(f"{s['a']}\nvs {s['b']}\n{s['rules']}")
        est.append(m["estimate"] / sd)
        half.append(m["halfwidth"] / sd)
    doc.append(_table(["match", "rules", "margin per round (paired)", "P(win the round)",
                       "margin / luck's spread", "P(win a game)"], rows))
    fig, ax = _figure("Skill against luck: margin per round over the spread of a round's "
                      "margin\n(95% intervals)")
    ax.bar(range(len(est)), est, yerr=half, capsize=5, color="#55A868")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(est)), labels, fontsize=7)
    ax.set_ylabel("margin / sd of a round's margin")
    save(fig, out / "almanac-skill.png")
    doc.append("![Skill against luck](almanac-skill.png)\n")
    how = "; ".join(f"{s['a']} vs {s['b']} on {s['rules']}: {s['deals']:,} deals"
                    + (f", {s['games']:,} games" if "games" in s else "")
                    for s in data["skill"])
    doc.append(_how(f"`scopa-sim compare` on duplicate deals (and duplicate game seeds: "
                    f"P(win a game) is the paired estimate); {how}; {made}."))
    return doc


def _advice_md(data, out, made) -> list[str]:
    from .analysis.charts import _figure, save
    doc = ["## The advice of the rule texts, measured\n",
           "Each piece of advice is one switch of the strategy "
           "`docs/examples/maxims/base.py:maxims`: two strategies that differ in that one rule "
           "only, compared on duplicate deals (scopa). How often its situation arises: the "
           "share of decisions (with more than one legal move) where following it changes the "
           "move, and of rounds with at least one such decision.\n"]
    names, est, half = [], [], []
    for a in data["advice"]:
        m = a["margin"]
        doc.append(f"### {a['title']} (`{a['parameter']}`)\n")
        doc.append(f"> \"{a['quote']}\" — {a['source']}\n")
        doc.append(f"- Worth, following it minus not: {mean(m, key='estimate')} points per "
                   f"round; P(win the round) {mean(a['round_win_difference'], key='estimate')} "
                   f"higher.\n"
                   f"- It changes the move at {rate(a['differ'])} of decisions, and in "
                   f"{rate(a['rounds_affected'])} of rounds.\n")
        doc.append(_how(f"`scopa-sim compare \"{_short(a['on'])}\" \"{_short(a['off'])}\" "
                        f"--deals {a['deals']:,} --seed {a['seed']}`; "
                        f"{a['rounds_affected']['n']:,} rounds replayed; {made}."))
        names.append(a["parameter"])
        est.append(m["estimate"])
        half.append(m["halfwidth"])
    fig, ax = _figure("The maxims: margin per round, following each minus not\n"
                      "(duplicate deals, 95% intervals)")
    ax.bar(names, est, yerr=half, capsize=5, color="#C44E52")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("points per round")
    ax.tick_params(axis="x", labelsize=8)
    save(fig, out / "almanac-advice.png")
    doc.append("![The maxims measured](almanac-advice.png)\n")
    return doc


def _short(text: str) -> str:
    """A maxims strategy text with its path from the source tree."""
    i = text.find("docs/examples/maxims/")
    return text[i:] if i >= 0 else text


def _claims_md(data, made) -> list[str]:
    doc = ["## Claims of the rule texts, asked\n"]
    for c in data["claims"]:
        a = c["answer"]
        doc.append(f"> \"{c['quote']}\" — {c['source']}\n")
        line = (f"`scopa-sim ask RUN \"{c['event']}\" --given \"{c['given']}\"`: "
                f"{c['question']}: {a['estimate']:.4f} [{a['low']:.4f}, {a['high']:.4f}] "
                f"(k = {a['k']:,}, n = {a['n']:,})")
        if "other" in c:
            o = c["other"]
            line += (f"; against {o['estimate']:.4f} [{o['low']:.4f}, {o['high']:.4f}] "
                     f"(n = {o['n']:,}) given `{c['against']}`")
        doc.append(f"- {line}. The claim {c['verdict']} "
                   f"(checked: {c['check']}).\n")
    run = data["presets"]["scopa"]["run"]
    doc.append(_how(f"`ask` over {run} (`{STRONG}` for every seat); {made}."))
    return doc


def _review_md(data, made) -> list[str]:
    r = data["review"]
    doc = ["## The worked-game page's commented plays, reviewed\n",
           "For each play the text calls good or a mistake: what `scopa-sim review` says "
           "(the round points the play lost against the best move, with its 95% interval, "
           "and its label), and whether the two agree.\n"]
    rows = []
    for p in r["plays"]:
        if not p["found"]:
            rows.append([p["who"], p["play"], p["verdict"], "not found in the record", "—",
                         "—"])
            continue
        cost = ("0 (exact)" if p["cost_low"] is None and p["cost"] == 0 else
                f"{p['cost']:.3f}" if p["cost_low"] is None else
                f"{p['cost']:.3f} [{p['cost_low']:.3f}, {p['cost_high']:.3f}]")
        rows.append([p["who"], p["play"], f"{p['verdict']}: \"{p['words']}\"",
                     f"cost {cost}; {p['label'] or 'no label'} ({p['level']}); best {p['best']}",
                     {True: "yes", False: "no", None: "— (no verdict)"}[p["agrees"]],
                     f"round {p['round']}, play {p['index']}"])
    doc.append(_table(["who", "play", "the text", "review", "agree", "where"], rows))
    doc.append(_how(f"`scopa-sim review docs/examples/seed-003.scopa --seed {r['seed']} "
                    f"--rollouts {r['rollouts']:,}` (each interval from the rollouts it "
                    f"reports; n = {r['rollouts']:,} rollouts a move at most); {made}."))
    return doc
