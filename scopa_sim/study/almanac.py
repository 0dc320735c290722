"""The Scopa almanac: what strong play says about the game, and the strategy
books' advice put to the test (`scopa-sim almanac --out DIR`).

`make(out)` builds every section from ordinary runs under `out/runs/`
(each an ordinary `simulate` run: an interrupted almanac resumes them, a
finished one is only read again) and from duplicate comparisons, whose
results are kept as JSON under `out/parts/` (a part already made with the
same settings, version, networks and strategy files is read back, not
played again; a run made by another network is refused). It writes
`out/ALMANAC.md` and its PNG charts beside it. The same seed and version
give the same document, byte for byte.

The running is here; the reading is in `scopa_sim.analysis`: each section
a small function returning plain data (estimates with their intervals and
n) from the runs and parts (`analysis.almanac`: edge, points, cards, odds,
claims, the review's verdicts), which `analysis.almanac_page.render` turns
into Markdown and charts.

    edge      the dealer against the first player, per round and per game
    points    round points, the categories won / tied / split, scopas
    cards     what each card of the first hand is worth (`values`)
    odds      P(win the game) from every score (Markov chain, bootstrap)
    skill     spimc vs endgame, endgame vs greedy, greedy vs random
    advice    the maxims of the rule texts (`maxims.measure`)
    claims    claims of the rule texts answered with `ask`
    review    the worked-game page's commented plays, reviewed

The plan of `endgame`'s almanac (`--strategy endgame`; 2 cores shared with
other work; rates measured with `endgame` for every seat, Parquet writing
included):

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
    the worked game reviewed (at most 64,000 rollouts a play, by net)       ~30 s
    total                                                      ~25 minutes

(estimated from these rates, not timed end to end at this size; the
--quick almanac took 51 s end to end on the same 2 cores).

Under net (the default) the plan above is made too (endgame's figures stand
beside), and net's own main runs and matches add about half an hour more
(estimated: net self-play ~16,000 rounds/s on 2 cores, scopone scientifico
~5,000; the --quick almanac with net took 70 s):

    part                                         units               time
    net's rounds, scopa, scopa-3, scopa-4       10 M, 2 M, 2 M       ~870 s
    net's rounds, scopone-scientifico            2,000,000 rounds   ~410 s
    net's games to the target, 4 presets                             ~120 s
    reading net's runs                                               ~120 s
    net vs endgame on each preset, 200,000 deals and 20,000 games    ~200 s

The almanac in docs/ is net's (the default, `ALMANAC_STRATEGY`): it took
30 minutes end to end on 2 free cores, with a third of net's scopa rounds
made before (so about 35 minutes from nothing).

`quick=True` takes every count about 50 to 100 times smaller (under 3
minutes), with the same sections and wider intervals.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

from .. import data
from ..analysis.almanac import cards, claims, commented_plays, edge, odds_table, points
from ..analysis.almanac_page import render
from ..defaults import ALMANAC_STRATEGY, REVIEW_ROLLOUTS, REVIEW_STRATEGY
from ..engine.rules import Rules
from ..engine.strategies import parse_strategy, user_slots
from ..runs.executors import executor
from ..runs.resume import store_batches
from ..runs.runner import warm_kernels
from ..runs.sources import open_to_resume
from ..runs.plan import RunSpec, StoredSpec, nets_played, revisions, spec_dict
from ..runs.store import MANIFEST, Run
from .matches import compare
from .maxims import MAXIMS, measure, strategies as maxim_strategies
from .review import review

PRESETS = ("scopa", "scopa-3", "scopa-4", "scopone-scientifico")
STRONG = "endgame"
LADDER = (("spimc", "endgame"), ("endgame", "greedy"), ("greedy", "random"))
RECORD = data.path("seed-003.scopa")   # package data; docs/examples/ has its copy


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
    review_rollouts: int = REVIEW_ROLLOUTS


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
    try:
        return metadata.version("scopa-sim")
    except metadata.PackageNotFoundError:           # pragma: no cover - a source tree
        return "unknown"


AGAIN = "run the almanac again, with the same options"     # what a damaged run's error advises


def ensure_run(root: Path, spec, workers=None, scheduler=None, progress: Progress | None = None):
    """The ordinary run of `spec` in `root`, read back (`store.Run`): made if
    absent, resumed if unfinished, only opened if finished. A folder there
    holding another run is refused."""
    root = Path(root)
    step = root.name
    done = [0]

    def show(units, rate):
        done[0] = units if rate is None else done[0] + units
        if progress:
            progress(step, done[0], spec.units)
    if (root / MANIFEST).is_file():
        found = Run.open(root, finish_with=AGAIN)
        if found.stored.as_dict() != StoredSpec.from_dict(spec_dict(spec)).as_dict():
            raise ValueError(f"{root} holds another run than the almanac's: remove it, or "
                             f"choose another --out")
        if not (found.manifest.get("finished") and found.n_missing == 0):
            with open_to_resume(root, finish_with=AGAIN) as run:
                store_batches(run, workers, scheduler, show)
        elif progress:
            progress(step, spec.units, spec.units)
    else:
        if root.is_symlink() or root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise ValueError(f"{root} is not a run of the almanac's: remove it, or choose "
                             f"another --out")
        root.parent.mkdir(parents=True, exist_ok=True)
        with Run.create(root, spec) as run:
            store_batches(run, workers, scheduler, show)
    return Run.open(root, finish_with=AGAIN)


def main_run(out: Path, preset: str, units: int, games: bool = False, seed: int = 2026,
             strategy: str = STRONG, workers=None, scheduler=None, progress=None):
    """Every seat playing `strategy` under `preset`: `units` rounds (or games)."""
    rules = Rules.resolve(preset)
    kind = "games" if games else "rounds"
    spec = RunSpec.make(**{kind: units}, strategies=(strategy,) * rules.n_sides, rules=rules,
                        seed=seed, batch_size=None)
    root = Path(out) / "runs" / f"{slug(strategy)}-{preset}-{kind[0]}{units}-s{seed}"
    return ensure_run(root, spec, workers, scheduler, progress)


def slug(strategy: str) -> str:
    """A strategy as part of a file name: `net:weights=a/b.npz` -> `net_weights=a_b.npz`."""
    return re.sub(r"[^A-Za-z0-9.=-]", "_", strategy)


def plays(strategies, preset: str = "scopa") -> dict:
    """What `strategies` play under `preset` that the version does not pin:
    their networks and strategy files, by sha256, and the revisions of the
    built-ins' play (`runs.plan.revisions`). A part's params hold it, so a
    part made by another network, file or play is made again, not read back."""
    seats, rules = [parse_strategy(s) for s in strategies], Rules.resolve(preset)
    revised = revisions(seats, rules)
    return {"nets": nets_played(seats, rules),
            "files": {u.text: u.digest for u in user_slots(seats)},
            **({"revisions": revised} if revised else {})}


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


# ---- the parts: duplicate comparisons, maxims, the review ---------------------
def skill(a: str, b: str, preset: str, deals: int, games: int, seed: int, workers=None,
          scheduler=None, progress: Progress | None = None) -> dict:
    """`a` against `b` on duplicate deals: margin per round and P(win the
    round); on duplicate game seeds (`games` > 0): P(win a game)."""
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
    return measure(maxim, rules="scopa", deals=deals, seed=seed, workers=workers, sample=sample,
                   scheduler=scheduler)


def review_plays(rollouts: int, seed: int, workers=None, scheduler=None) -> dict:
    """`review` of the worked game's record (net's rollouts until each
    verdict is decided), and its verdict on each commented play."""
    df = review(str(RECORD), seed=seed, rollouts=rollouts, workers=workers, scheduler=scheduler)
    return commented_plays(df, rollouts, seed)


# ---- the whole almanac -----------------------------------------------------
def make(out, quick: bool = False, seed: int = 2026, workers=None, scheduler=None,
         progress: Progress | None = None, sizes: Sizes | None = None,
         strategy: str = ALMANAC_STRATEGY) -> Path:
    """Build the almanac in folder `out`: every run under out/runs/ (resumed
    when there), every comparison under out/parts/, then out/ALMANAC.md and
    its charts. The main runs play `strategy` at every seat (by default
    `net`, the learned player); another than endgame is also measured against endgame
    on each preset at endgame-greedy's sizes, and endgame's main runs are
    made too, so that the page shows endgame's figures beside wherever the
    two differ beyond their intervals. Returns the document's path."""
    out = Path(out)
    sizes = sizes or (QUICK if quick else DEFAULT)
    strong = str(parse_strategy(strategy))
    beside = STRONG if strong != STRONG else None
    ladder = LADDER + (((strong, beside),) if beside else ())
    data = {"seed": seed, "version": version(), "quick": quick, "sizes": asdict(sizes),
            "strategy": strong, "beside": beside, "presets": {},
            "skill": [], "advice": [], "claims": None, "review": None}
    with executor(workers, scheduler, setup=warm_kernels) as ex:
        def figures(preset, strategy):
            rules = Rules.resolve(preset)
            rr = main_run(out, preset, sizes.rounds[preset], False, seed, strategy, workers, ex,
                          progress)
            gr = main_run(out, preset, sizes.games[preset], True, seed, strategy, workers, ex,
                          progress) if sizes.games.get(preset) else None
            p = {"edge": edge(rr, gr, sizes.bootstrap), "run": rr.root.name,
                 "games_run": gr.root.name if gr is not None else None}
            _step(progress, f"reading {preset} ({strategy})")
            p["points"] = points(rr)
            p["cards"] = cards(rr)
            if rules.n_sides == 2:
                p["odds"] = odds_table(p["points"].pop("joint"), rules, (strategy,) * 2,
                                       p["points"]["rounds"], seed, sizes.bootstrap)
            return p, rr

        for preset in PRESETS:
            data["presets"][preset], rr = figures(preset, strong)
            if beside:
                data["presets"][preset]["beside"], br = figures(preset, beside)
            if preset == "scopa":
                _step(progress, "claims")
                data["claims"] = claims(rr)
                if beside:
                    data["claims_beside"] = claims(br)
        for a, b in ladder:
            key = f"{a}-{b}" if (a, b) in LADDER else "endgame-greedy"
            deals, games = sizes.skill[key]
            for preset in sizes.skill_presets[key]:
                data["skill"].append(part(
                    out, f"skill-{slug(a)}-{slug(b)}-{preset}",
                    {"a": a, "b": b, "rules": preset, "deals": deals, "games": games,
                     "seed": seed, "plays": plays((a, b), preset)},
                    lambda: skill(a, b, preset, deals, games, seed, workers, ex, progress)))
        for k, name in enumerate(MAXIMS):
            _step(progress, f"maxim {name}", k, len(MAXIMS))
            data["advice"].append(part(
                out, f"maxim-{name}", {"maxim": name, "deals": sizes.maxim_deals,
                                       "sample": sizes.maxim_sample, "seed": seed,
                                       "plays": plays(maxim_strategies(name))},
                lambda: advice(name, sizes.maxim_deals, sizes.maxim_sample, seed, workers, ex)))
        _step(progress, "reviewing the worked game")
        data["review"] = part(out, "review-seed-003", {"rollouts": sizes.review_rollouts,
                                                       "seed": seed,
                                                       "plays": plays((REVIEW_STRATEGY,))},
                              lambda: review_plays(sizes.review_rollouts, seed, workers, ex))
    _step(progress, "writing the document")
    return render(data, out)


def _step(progress, name, done=0, total=1):
    if progress:
        progress(name, done, total)
