"""The almanac's page: ALMANAC.md and its PNG charts, written from the
sections' plain data (`analysis.almanac` reads the runs for it,
`scopa_sim.study.almanac.make` gathers it). Every number is shown with its
95% interval and n; the same data give the same document, byte for byte.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.cards import card_name
from .charts import SIDE_COLOURS, _figure, draw, save
from .review_page import interval
from ..stats import wilson

DOCUMENT = "ALMANAC.md"


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
    return wilson(k, n).as_dict()


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _how(text: str) -> str:
    return f"*How it was made:* {text}\n"


def _bounds(d) -> tuple[float, float, float]:
    """An estimate's (value, low, high), whichever name its value goes by."""
    value = next(d[k] for k in ("mean", "rate", "estimate") if k in d)
    return value, d["low"], d["high"]


class Beside:
    """The other strategy's figures (`data["beside"]`: endgame's) shown beside
    the main runs' wherever the two 95% intervals do not overlap, and each
    figure so shown kept (`changed`) for the page's summary. Without another
    strategy a figure is only formatted."""

    def __init__(self, name: str | None):
        self.name, self.compared, self.changed = name, 0, []

    def __call__(self, show, new, old, where: str, *args) -> str:
        text = show(new, *args)
        if self.name is None or old is None:
            return text
        self.compared += 1
        (a, lo_a, hi_a), (b, lo_b, hi_b) = _bounds(new), _bounds(old)
        if lo_a <= hi_b and lo_b <= hi_a:
            return text
        self.changed.append((where, a, b))
        return f"{text}<br>*{self.name}:* {show(old, *args)}"


def render(data: dict, out: Path) -> Path:
    """Write out/ALMANAC.md and its charts from the sections' data: "seed",
    "version", "quick", "strategy" (every seat's in the main runs), and per
    section what `scopa_sim.study.almanac.make` gathered ("presets": per
    preset "edge", "points", "cards", "odds", "run", "games_run"; "skill",
    "advice", "claims", "review")."""
    out = Path(out)
    seed, ver = data["seed"], data["version"]
    made = f"scopa-sim {ver}, seed {seed}"
    doc = ["# The Scopa almanac\n",
           f"What strong play says about the game, and the strategy books' advice put to "
           f"the test. Made by `scopa-sim almanac{' --quick' if data['quick'] else ''}"
           f"{_strategy_option(data)} --seed {seed}` ({made}). Every number carries its "
           f"95% interval (Wilson for rates, normal for means, paired for duplicate deals, "
           f"bootstrap for the odds) and its n. The runs are ordinary runs in `runs/`: "
           f"ask them anything with `scopa-sim ask`.\n"]
    beside = Beside(data.get("beside"))
    body = (_edge_md(data, out, made, beside) + _points_md(data, out, made, beside)
            + _cards_md(data, out, made, beside) + _odds_md(data, out, made, beside)
            + _skill_md(data, out, made) + _advice_md(data, out, made)
            + _claims_md(data, made, beside) + _review_md(data, made))
    doc += _changes_md(data, beside) + body
    path = out / DOCUMENT
    path.write_text("\n".join(doc))
    return path


def _strategy_option(data) -> str:
    return f" --strategy {data['strategy']}"


def _dig(d, *keys):
    """d[k1][k2]... (a list's items by index), or None where one is missing."""
    for k in keys:
        if d is None:
            return None
        d = d[k] if isinstance(d, list) else d.get(k)
    return d


def _old(p: dict, *keys):
    """The other strategy's figure of preset data `p` at keys..., or None."""
    return _dig(p.get("beside"), *keys)


def _edge_md(data, out, made, beside: Beside) -> list[str]:
    strong = data["strategy"]           # every seat's, in the main runs
    doc = ["## The edge: dealer against first player\n",
           "Per round: the dealer's side's points minus the first player's side's (margin), "
           "and each side's P(win the round). Per game: P(the side that deals the first "
           "round wins the game).\n"]
    rows, names, bars = [], [], {strong: ([], [])}
    for preset, p in data["presets"].items():
        e = p["edge"]
        d = e["dealer"]
        row = [preset]
        for key, what in (("margin", "dealer's margin per round"),
                          ("dealer_win", "P(dealer's side wins round)"),
                          ("leader_win", "P(first player's side wins round)")):
            row.append(beside(mean if key == "margin" else rate, d[key],
                              _old(p, "edge", "dealer", key), f"{preset}: {what}"))
        row.append(beside(rate, e["first_dealer_game_win"],
                          _old(p, "edge", "first_dealer_game_win"),
                          f"{preset}: P(first dealer wins game)")
                   if "first_dealer_game_win" in e else "—")
        rows.append(row)
        names.append(preset)
        for name, fig in ((strong, d), (beside.name, _old(p, "edge", "dealer"))):
            if fig is not None:
                est, half = bars.setdefault(name, ([], []))
                est.append(fig["margin"]["mean"])
                half.append(fig["margin"]["high"] - fig["margin"]["mean"])
    doc.append(_table(["rules", "dealer's margin per round", "P(dealer's side wins round)",
                       "P(first player's side wins round)", "P(first dealer wins game)"], rows))
    fig, ax = _figure("The dealer's edge: mean round margin, dealer's side minus first "
                      "player's\n(95% intervals)")
    width = 0.8 / len(bars)
    for k, (name, (est, half)) in enumerate(bars.items()):
        ax.bar(np.arange(len(names)) + k * width - 0.4 + width / 2, est, width, yerr=half,
               capsize=6, color=SIDE_COLOURS[k % len(SIDE_COLOURS)], label=f"every seat {name}")
    ax.set_xticks(range(len(names)), names)
    if len(bars) > 1:
        ax.legend()
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("points per round")
    save(fig, out / "almanac-edge.png")
    doc.append("![The dealer's edge per round](almanac-edge.png)\n")
    counts = ", ".join(f"{k}: {p['edge']['rounds']:,} rounds ({p['run']})"
                       + (f" and {p['edge']['games']:,} games ({p['games_run']})"
                          if p["games_run"] else "") for k, p in data["presets"].items())
    doc.append(_how(f"every seat plays `{strong}`; {counts}{_beside_runs(data)}; {made}."))
    return doc


def _beside_runs(data) -> str:
    """The other strategy's main runs, for a "How it was made" line."""
    if not data.get("beside"):
        return ""
    runs = ", ".join(f"{k}: {p['beside']['run']}" + (f" and {p['beside']['games_run']}"
                                                       if p["beside"]["games_run"] else "")
                     for k, p in data["presets"].items())
    return f"; beside, every seat `{data['beside']}` and seed ({runs})"


def _points_md(data, out, made, beside: Beside) -> list[str]:
    strong = data["strategy"]           # every seat's, in the main runs
    doc = ["## Points: what a round is made of\n"]
    for preset, p in data["presets"].items():
        pt, old = p["points"], _old(p, "points")

        def fig(show, key, what, *path, args=()):
            return beside(show, _dig(pt, key, *path), _dig(old, key, *path),
                          f"{preset}: {what}", *args)
        roles = pt["roles"]
        doc.append(f"### {preset}\n")
        doc.append(_table(["", *roles],
                          [["points per round", *(fig(mean, "points", f"{r}'s points per round",
                                                      k, "mean") for k, r in enumerate(roles))],
                           ["scopas per round", *(fig(mean, "scopas", f"{r}'s scopas per round",
                                                      k) for k, r in enumerate(roles))]]))
        rows = [[c["title"],
                 *(fig(rate, "categories", f"{c['title']} won by the {r}", j, "won", k)
                   for k, r in enumerate(roles)),
                 fig(rate, "categories", f"{c['title']} tied", j, "tied")]
                for j, c in enumerate(pt["categories"])]
        doc.append("How often each category is won by each side, or by nobody (tied):\n")
        doc.append(_table(["category", *(f"won by the {r}" for r in roles),
                           "tied (nobody)"], rows))
        doc.append(f"- The category points split between the sides (each side scoring at "
                   f"least one): {fig(rate, 'split', 'category points split')}; one side "
                   f"takes them all: {fig(rate, 'swept', 'one side takes every category')}.\n"
                   f"- Scopas per round, both sides together: "
                   f"{fig(mean, 'scopas_total', 'scopas per round, both sides')}.\n"
                   f"- Rounds decided by scopas alone (the winner without the scopas would "
                   f"differ): {fig(rate, 'decided_by_scopas', 'rounds decided by scopas')}.\n")
        shares = pt["dealer_category_points"]
        doc.append("The dealer's side's share of the category points:\n")
        doc.append(_table([f"{k} of {len(shares) - 1}" for k in range(len(shares))],
                          [[fig(rate, "dealer_category_points",
                                f"dealer's side scores {k} of {len(shares) - 1} categories", k,
                                args=(3,)) for k in range(len(shares))]]))
        n = pt["rounds"]
        doc.append("The distribution of a round's points, each side (points scored by at "
                   "least 1 round in 1,000):\n")
        top = max(len(x["counts"]) for x in pt["points"])
        shown = [k for k in range(top)
                 if max(_at(x["counts"], k) for x in pt["points"]) * 1000 >= n]

        def scored(k, role):
            counts = [wilson_of(_at(x["points"][role]["counts"], k), x["rounds"])
                      for x in (pt, old) if x]
            return beside(rate, counts[0], counts[1] if len(counts) > 1 else None,
                          f"{preset}: the {roles[role]} scores {k} points", 3)
        doc.append(_table(["points", *roles],
                          [[str(k), *(scored(k, r) for r in range(len(roles)))]
                           for k in shown]))
        width = 0.8 / len(pt["points"])
        fig, ax = _figure(f"Round points, {preset}: the distribution for each side\n"
                          f"({strong} for every seat, {n:,} rounds)")
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
        doc.append(_how(f"every seat plays `{strong}`; {n:,} rounds ({p['run']}); {made}."))
    return doc


def _cards_md(data, out, made, beside: Beside) -> list[str]:
    strong = data["strategy"]           # every seat's, in the main runs
    doc = ["## Cards: what each card of the first hand is worth\n",
           "A card's worth: the mean round margin of the side whose first hand holds it; "
           "a hand's worth: the sum of its cards' values.\n"]
    for preset, p in data["presets"].items():
        v = p["cards"]
        cards = sorted(v["cards"], key=lambda c: -c["margin"]["mean"])
        old = {c["card"]: c for c in _old(p, "cards", "cards") or ()}
        doc.append(f"### {preset}\n")
        rows = [[card_name(c["card"]),
                 *(beside(mean, c[k], old.get(c["card"], {}).get(k),
                          f"{preset}: {card_name(c['card'])}'s {what}")
                   for k, what in (("margin", "worth"), ("win_edge", "win edge")))]
                for c in cards[:5] + cards[-3:]]
        doc.append("The five cards worth most, and the three worth least:\n")
        doc.append(_table(["card", "holder's margin per round", "win edge"], rows))
        w = v["hand_worth"]
        q = w["quantiles"]
        worth = beside(mean, w["mean"], _old(p, "cards", "hand_worth", "mean"),
                       f"{preset}: a first hand's mean worth")
        doc.append(f"A first hand's worth: mean {worth}; 5% of hands are worth at most "
                   f"{q['0.05']:+.2f}, half at most {q['0.5']:+.2f}, 95% at most "
                   f"{q['0.95']:+.2f} (quantiles of {w['mean']['n']:,} hands, to "
                   f"{w['bin']} points).\n")
        name = f"almanac-values-{preset}.png"
        draw("values", v, out / name)
        doc.append(f"![What each card is worth, {preset}]({name})\n")
        doc.append(_how(f"`scopa-sim values` of {p['run']} ({v['rounds']:,} rounds, every seat "
                        f"`{strong}`); {made}."))
    return doc


def _odds_md(data, out, made, beside: Beside) -> list[str]:
    strong = data["strategy"]           # every seat's, in the main runs
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
        doc.append(_odds_beside(o, _old(p, "odds"), beside, preset))
        name = f"almanac-odds-{preset}.png"
        draw("odds", o, out / name)
        doc.append(f"![P(win the game) from every score, {preset}]({name})\n")
        doc.append(_how(f"{o['rounds']:,} rounds of {p['run']} (`{strong}` for every seat), "
                        f"{o['bootstrap']} bootstrap resamplings; {made}."))
    return doc


def _odds_beside(new: dict, old: dict | None, beside: Beside, preset: str) -> str:
    """One line on how the other strategy's odds differ: the cells whose
    intervals do not overlap, and the largest difference (each a change)."""
    if old is None or beside.name is None:
        return ""
    t, lo, hi, t0, lo0, hi0 = (np.array(d[k]) for d in (new, old)
                               for k in ("table", "low", "high"))
    apart = (lo > hi0) | (hi < lo0)
    beside.compared += apart.size
    if not apart.any():
        return (f"Under `{beside.name}` every cell's interval overlaps this one's.\n")
    gap = np.where(apart, np.abs(t - t0), 0)
    i, j = np.unravel_index(int(gap.argmax()), gap.shape)
    for a, b in zip(*np.nonzero(apart)):
        beside.changed.append((f"{preset}: P(win the game) at {a} to {b}",
                               float(t[a, b]), float(t0[a, b])))
    return (f"Under `{beside.name}` {int(apart.sum())} of {apart.size} cells differ beyond "
            f"their intervals; the most at {i} to {j}: {t0[i, j]:.3f} [{lo0[i, j]:.3f}, "
            f"{hi0[i, j]:.3f}] there.\n")


def _skill_md(data, out, made) -> list[str]:
    strong = data["strategy"]           # every seat's, in the main runs
    doc = ["## Skill against luck\n",
           "How much better play is worth, on duplicate deals (each deck played with the "
           "strategies in every seat, so the luck of the deal cancels), set against the spread "
           "of a round's margin that the cards alone make: its standard deviation when "
           f"`{strong}` plays itself.\n"]
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
    """A maxims strategy text with the path of its copy in the source tree
    (the package's own, `scopa_sim/data/maxims.py`, is where it is installed)."""
    path, sep, rest = text.partition(":maxims:")
    known = path.endswith(("scopa_sim/data/maxims.py", "docs/examples/maxims/base.py"))
    return f"docs/examples/maxims/base.py{sep}{rest}" if sep and known else text


def _claims_md(data, made, beside: Beside) -> list[str]:
    strong = data["strategy"]           # every seat's, in the main runs
    doc = ["## Claims of the rule texts, asked\n"]
    old = data.get("claims_beside") or [None] * len(data["claims"])
    for c, c0 in zip(data["claims"], old):
        a = c["answer"]
        doc.append(f"> \"{c['quote']}\" — {c['source']}\n")
        line = (f"`scopa-sim ask RUN \"{c['event']}\" --given \"{c['given']}\"`: "
                f"{c['question']}: "
                + beside(_answer, a, c0 and c0["answer"], f"scopa: {c['question']}"))
        if "other" in c:
            o = c["other"]
            line += (f"; against {o['estimate']:.4f} [{o['low']:.4f}, {o['high']:.4f}] "
                     f"(n = {o['n']:,}) given `{c['against']}`")
        doc.append(f"- {line}. The claim {c['verdict']} (checked: {c['check']})"
                   + (f"; under `{beside.name}` it {c0['verdict']}"
                      if c0 and c0["verdict"] != c["verdict"] else "") + ".\n")
    run = data["presets"]["scopa"]["run"]
    doc.append(_how(f"`ask` over {run} (`{strong}` for every seat); {made}."))
    return doc


def _answer(a: dict) -> str:
    return (f"{a['estimate']:.4f} [{a['low']:.4f}, {a['high']:.4f}] "
            f"(k = {a['k']:,}, n = {a['n']:,})")


def _changes_md(data, beside: Beside, shown: int = 12) -> list[str]:
    """What changed from the other strategy's almanac (endgame's): how many
    figures differ beyond their intervals, how the two players compare on
    each preset, and the largest changes."""
    if beside.name is None:
        return []
    strong, old = data["strategy"], beside.name
    doc = [f"## What changed from `{old}`'s almanac\n",
           f"Every figure of the edge, points, cards, odds and claims below was made twice: "
           f"with `{strong}` at every seat, as shown, and with `{old}` at every seat (the "
           f"almanac's player before; the same seed and counts). {len(beside.changed):,} of "
           f"{beside.compared:,} figures differ beyond their 95% intervals; there `{old}`'s "
           f"figure is shown beside (*{old}:* ...).\n"]
    matches = [x for x in data["skill"] if x["a"] == strong and x["b"] == old]
    if matches:
        doc.append(f"How much stronger `{strong}` is, per round on duplicate deals: "
                   + "; ".join(f"{x['rules']} {mean(x['margin'], key='estimate')}"
                               for x in matches) + ".\n")
    top = sorted(beside.changed, key=lambda c: -abs(c[1] - c[2]))[:shown]
    if top:
        doc.append(f"The {len(top)} largest changes:\n")
        doc.append(_table(["figure", f"`{strong}`", f"`{old}`", "change"],
                          [[w, f"{a:+.4f}", f"{b:+.4f}", f"{a - b:+.4f}"] for w, a, b in top]))
    return doc


def _review_md(data, made) -> list[str]:
    r = data["review"]
    doc = ["## The worked-game page's commented plays, reviewed\n",
           "For each play the text calls good or a mistake: what `scopa-sim review` says "
           "(its verdict: best, worse with its label, or level with a move it cannot be told "
           "from; the played move minus the move it is compared with, in round points with "
           "its 95% interval over the review's looks; why), and whether the two agree. "
           "Reviews under seeds 1 to 5 never contradict one another (two labels, or best "
           "beside worse): a play may be level under one seed and best, or worse by less "
           "than a label, under another (`benchmarks/bench_verdicts.py --record`).\n"]
    rows = []
    for p in r["plays"]:
        if not p["found"]:
            rows.append([p["who"], p["play"], p["verdict"], "not found in the record", "—",
                         "—"])
            continue
        edge = interval(p["edge"], p["edge_low"], p["edge_high"], "+.2f")
        said = p["label"] or p["judged"]
        rows.append([p["who"], p["play"], f"{p['verdict']}: \"{p['words']}\"",
                     f"{said} against {p['versus']}: {edge}"
                     + (f"; {p['why']}" if p["why"] else ""),
                     {True: "yes", False: "no", None: "— (no verdict)"}[p["agrees"]],
                     f"round {p['round']}, play {p['index']}"])
    doc.append(_table(["who", "play", "the text", "review", "agree", "where"], rows))
    doc.append(_how(f"`scopa-sim review docs/examples/seed-003.scopa --seed {r['seed']} "
                    f"--rollouts {r['rollouts']:,}` (rollouts by net until each verdict is "
                    f"decided, {r['rollouts']:,} a move at most); {made}."))
    return doc
