"""How each result reads: table sections (for the terminal, Markdown and
HTML) and flat records (for CSV), from the plain data the analysis
functions return."""
from __future__ import annotations

from ..engine.checks import plural
from .output import Section, ci, number, short_labels, signed, signed_ci



def category_rows(summary: dict) -> list[tuple[str, str]]:
    """(key, title) of a summary's point categories: all points first, then
    each category indented under it."""
    *parts, (points, title) = summary["categories"]
    return [(points, title)] + [(key, "  " + name) for key, name in parts]


def _rec(metric, d=None, estimate=None, **extra) -> dict:
    d = d or {}
    value = estimate if estimate is not None else d.get("rate", d.get("mean", d.get("estimate")))
    return {"metric": metric, **extra, "estimate": value, "low": d.get("low"),
            "high": d.get("high"), "n": d.get("n")}


# ---- compare ---------------------------------------------------------------
def compare_view(r: dict) -> tuple[list[Section], list[dict]]:
    a, b, m = r["a"], r["b"], r["margin"]
    plays = r.get("plays", 2)
    unit = "game seeds" if r["unit"] == "games" else "deals"
    if plays == 2:
        how, sets, corr = "each played twice, seats swapped", "pairs", "the two plays of a pair"
        others, loss = f"{b}", f"{b} wins the round"
    else:
        how, sets = f"each played {plays} times, {a} at each side in turn", unit
        corr = f"two plays of one of the {unit} (mean)"
        others, loss = f"the mean of the {plays - 1} sides of {b}", f"a side of {b} has more points"
    s = Section(f"compare: {a} vs {b}, {r['rules']} (duplicate {unit}: {how})",
                ["", "estimate", "95% CI", "n"])
    s.add(f"margin per round, {a} − {others} (points), paired", signed(m['estimate'], 4),
          signed_ci(m['low'], m['high'], 4), f"{m['n']:,} {sets}")
    s.add("  same data taken as unpaired", "", signed_ci(m['unpaired_low'], m['unpaired_high'], 4),
          f"{plays * m['n']:,} plays")
    s.add(f"  correlation of {corr}", signed(m['correlation'], 3), "", "")
    if m["halfwidth"] == 0 and m["estimate"] == 0:       # saving: nan, the paired width 0
        s.add(f"  margins identical: each {unit[:-1]} scored the same whoever sat where",
              "", "", "")
    else:
        s.add("  pairing is worth (× unpaired sample size)", f"{m['saving']:.2f}", "", "")
    for key, title in (("round_win", f"{a} wins the round"), ("round_draw", "round drawn"),
                       ("round_loss", loss)):
        d = r[key]
        s.add(title, f"{d['rate']:.4f}", ci(d), f"{d['n']:,} rounds")
    recs = [_rec("margin_paired", m, correlation=m["correlation"]),
            _rec("margin_unpaired", {"low": m["unpaired_low"], "high": m["unpaired_high"],
                                     "n": plays * m["n"]}, m["estimate"]),
            _rec("round_win", r["round_win"]), _rec("round_draw", r["round_draw"]),
            _rec("round_loss", r["round_loss"])]
    if "match_win" in r:
        mw, ww = r["match_win"], r["match_win_wilson"]
        s.add(f"{a} wins the game (to the target), paired", f"{mw['estimate']:.4f}",
              ci(mw), f"{mw['n']:,} {sets}")
        s.add("  Wilson, games taken as unpaired", f"{ww['rate']:.4f}", ci(ww), f"{ww['n']:,} games")
        s.add(f"  correlation of {corr}", signed(mw['correlation'], 3), "", "")
        s.add("rounds per game", f"{r['rounds_per_game']:.2f}", "", "")
        recs += [_rec("match_win_paired", mw, correlation=mw["correlation"]),
                 _rec("match_win_wilson", ww)]
    cap = f"seed {r['seed']}; {r['rounds']:,} rounds played"
    if r.get("until_halfwidth") is not None:
        cap += (f"; stopped at ±{r['until_halfwidth']:g} after {r['pairs']:,} {sets}"
                if r["reached"]
                else f"; ±{r['until_halfwidth']:g} not reached by the cap of "
                     f"{r['pairs']:,} {sets}")
    s.caption = cap + forfeits_text(r)
    for rec in recs:
        rec.update(a=a, b=b, seed=r["seed"])
    return [s], recs


def forfeits_text(r: dict) -> str:
    """An isolated run's forfeits as the caption's last words ('' if not isolated)."""
    if not r.get("isolate"):
        return ""
    f = r.get("forfeits") or {}
    held = r.get("confinement") or {}
    confined = ("; confined by " + (", ".join(
        f"Landlock ABI {v}" if k == "landlock" else k for k, v in held.items() if v) or "nothing")
        if held else "")
    if not f:
        return confined + "; entrants isolated, none forfeited a round"
    return confined + "; forfeited rounds: " + "; ".join(
        f"{name} {sum(c.values()):,} ({', '.join(f'{k} {n:,}' for k, n in c.items())})"
        for name, c in f.items())


# ---- tournament ------------------------------------------------------------
def tournament_view(t: dict) -> tuple[list[Section], list[dict]]:
    names = t["strategies"]
    mat = Section(f"tournament, {t['rules']}: mean points per round, row minus column, "
                  f"95% CI ({t['pairs_per_match']:,} duplicate {t['unit']} per pair)",
                  [""] + short_labels(names))
    recs = []
    for i, (row, shown) in enumerate(zip(names, short_labels(names))):
        cells = []
        for j in range(len(names)):
            if i == j:
                cells.append("—")
                continue
            m, lo, hi = t["margin"][i][j], t["low"][i][j], t["high"][i][j]
            cells.append(f"{signed(m, 3)} {signed_ci(lo, hi, 3)}")
            recs.append({"table": "margin", "strategy": row, "opponent": names[j],
                         "estimate": m, "low": lo, "high": hi})
        mat.add(shown, *cells)
    basis = ("games won" if t.get("rating_basis") == "games"
             else "round wins (a draw counts half)")
    rat = Section(f"Bradley-Terry ratings from {basis}, 95% CI",
                  ["rank", "strategy", "log-strength", "95% CI", "Elo", "Elo 95% CI"])
    for r in sorted(t["ratings"], key=lambda r: r["rank"]):
        rat.add(r["rank"], r["strategy"], signed(r['theta'], 3), signed_ci(r['low'], r['high'], 3),
                f"{r['elo']:.0f}", f"[{r['elo_low']:.0f}, {r['elo_high']:.0f}]")
        recs.append({"table": "rating", "strategy": r["strategy"], "estimate": r["theta"],
                     "low": r["low"], "high": r["high"], "elo": r["elo"],
                     "elo_low": r["elo_low"], "elo_high": r["elo_high"]})
    rat.caption = (f"seed {t['seed']}; Elo = 1500 + 400/ln(10) × log-strength (mean 1500); "
                   "intervals from the Hessian of the likelihood" + forfeits_text(t))
    return [mat, rat], recs


# ---- ask -------------------------------------------------------------------
def ask_view(r: dict) -> tuple[list[Section], list[dict]]:
    given = f" | {r['given']}" if r["given"] else ""
    if r["kind"] == "probability":
        s = Section(f"P({r['event']}{given})", ["estimate", "95% CI (Wilson)", "k", "n"])
        s.add(f"{r['estimate']:.4f}", ci(r), f"{r['k']:,}", f"{r['n']:,}")
    else:
        s = Section(f"mean of {r['event']}{given}", ["estimate", "95% CI", "sd", "n"])
        s.add(number(r["estimate"]), ci(r), number(r["sd"]), f"{r['n']:,}")
    s.caption = f"{r['run']} ({r['table']}: {r['rows']:,} rows)" + (
        f"; {r['partial']}" if r.get("partial") else "")
    rec = {k: r.get(k) for k in ("event", "given", "table", "kind", "estimate", "low", "high",
                                 "k", "n", "rows")}
    if r.get("partial"):
        rec["partial"] = r["partial"]
    return [s], [rec]


# ---- report ----------------------------------------------------------------
def report_view(st: dict) -> tuple[list[Section], list[dict]]:
    labels = st["strategies"]
    side_cols = [f"side {t}: {x}" for t, x in enumerate(short_labels(labels))]
    secs, recs = [], []

    w = Section("Win rates (95% Wilson intervals)", ["", *side_cols])
    rows = [("round win rate", "round_win", "rounds")]
    if "games" in st:
        rows.insert(0, ("game win rate", "game_win", "games"))
    for title, key, unit in rows:
        w.add(f"{title} (n = {st[unit]:,} {unit})",
              *(f"{s[key]['rate']:.4f} {ci(s[key])}" for s in st["sides"]))
        recs += [_rec(key, s[key], side=t) for t, s in enumerate(st["sides"])]
    tie = st["round_tie"]
    w.add("round tied at the top", f"{tie['rate']:.4f} {ci(tie)}", *[""] * (len(labels) - 1))
    recs.append(_rec("round_tie", tie))
    if st.get("partial"):
        w.caption = (f"{st['partial']}: the run is unfinished or still being written; every "
                     f"figure here is of its finished parts")
    secs.append(w)

    ex = st.get("match_exact")
    if ex and "side0_win" in ex:
        e = Section(f"Match win probability of side 0 ({labels[0]}), games to {ex['target']}",
                    ["", "estimate", "95% CI", "n"])
        e.add("exact, from the per-round score distribution (Markov chain)",
              f"{ex['side0_win']:.4f}", ci(ex), f"{st['rounds']:,} rounds")
        recs.append(_rec("match_exact", {**ex, "n": st["rounds"]}, ex["side0_win"]))
        if "simulated" in ex:
            sim = ex["simulated"]
            e.add("simulated games", f"{sim['rate']:.4f}", ci(sim), f"{sim['n']:,} games")
            recs.append(_rec("match_simulated", sim))
        e.caption = ("the chain plays (score_0, score_1) to the target with the deal passing each "
                     "round and a tie at the top playing on; its interval is a bootstrap over the "
                     f"rounds ({ex['replicates']} resamplings)")
        secs.append(e)

    c = Section("Points per round by category (mean, ± 95% halfwidth)", ["", *side_cols])
    for key, title in category_rows(st):
        c.add(title, *(f"{s[key]['mean']:.4f} ±{s[key]['high'] - s[key]['mean']:.4f}"
                       for s in st["sides"]))
        recs += [_rec(key, s[key], side=t) for t, s in enumerate(st["sides"])]
    secs.append(c)

    sc = st["scopas_per_round"]
    total = sum(sc.values())
    s = Section("Scopas per round (all sides together)", ["scopas", "rounds", "fraction"])
    for k, v in sc.items():
        s.add(k, f"{v:,}", f"{v / total:.4f}")
        recs.append({"metric": "scopas_per_round", "value": int(k), "estimate": v / total, "n": v})
    secs.append(s)

    d = st["dealer"]
    dl = Section("Dealer versus leader (the seat after the dealer leads)",
                 ["", "estimate", "95% CI", "n"])
    dl.add("dealer's side wins the round", f"{d['dealer_win']['rate']:.4f}", ci(d["dealer_win"]),
           f"{d['dealer_win']['n']:,}")
    dl.add("leader's side wins the round", f"{d['leader_win']['rate']:.4f}", ci(d["leader_win"]),
           f"{d['leader_win']['n']:,}")
    dl.add("margin, dealer's side − leader's side (points)", signed(d['margin']['mean'], 4),
           signed_ci(d['margin']['low'], d['margin']['high'], 4), f"{d['margin']['n']:,}")
    recs += [_rec("dealer_round_win", d["dealer_win"]), _rec("leader_round_win", d["leader_win"]),
             _rec("dealer_margin", d["margin"])]
    if "first_dealer_game_win" in d:
        g = d["first_dealer_game_win"]
        dl.add("first dealer's side wins the game", f"{g['rate']:.4f}", ci(g), f"{g['n']:,}")
        recs.append(_rec("first_dealer_game_win", g))
    secs.append(dl)

    if "rounds_per_game" in st:
        r = st["rounds_per_game"]
        q = r["quantiles"]
        g = Section(f"Rounds per game (to {st['target']})", ["", "rounds"])
        g.add("mean (95% CI)", f"{r['mean']['mean']:.3f} {ci(r['mean'], 3)}")
        g.add("median [5%, 25%, 75%, 95% quantiles]",
              f"{q['0.5']:g} [{q['0.05']:g}, {q['0.25']:g}, {q['0.75']:g}, {q['0.95']:g}]")
        recs.append(_rec("rounds_per_game", r["mean"]))
        secs.append(g)
        n = sum(r["counts"].values())
        h = Section("Rounds per game: distribution", ["rounds", "games", "fraction"])
        for k, v in r["counts"].items():
            h.add(k, f"{v:,}", f"{v / n:.4f}")
            recs.append({"metric": "rounds_per_game_count", "value": int(k), "estimate": v / n,
                         "n": v})
        secs.append(h)

    if "values" in st:
        value_secs, _ = values_view(st["values"])
        secs += value_secs

    tp = st["throughput"]
    t = Section("Run", ["", ""])
    t.add("run", st["run"])
    t.add("rules, seed", f"{st['rules']}, seed {st['seed']}")
    t.add("batches", f"{tp['batches']} of {tp['n_batches']}"
          + ("" if tp["finished"] else " (unfinished)"))
    if tp["seconds"]:
        t.add("simulation time", f"{tp['seconds']:.2f} s on {tp['workers']} worker(s)")
        t.add("throughput", f"{plural(round(tp['rounds_per_second']), 'round')}/s")
        recs.append({"metric": "rounds_per_second", "estimate": tp["rounds_per_second"]})
    if tp.get("created"):
        t.add("created", tp["created"])
    secs.append(t)
    return secs, recs


# ---- odds --------------------------------------------------------------------------------
def odds_view(r: dict) -> tuple[list[Section], list[dict]]:
    who = " vs ".join(r["strategies"])
    dealer = "either seat dealing next" if r["dealer"] is None else f"seat {r['dealer']} dealing next"
    secs = []
    if "score" in r:
        s = Section(f"P(side 0 wins the game to {r['target']}) from {r['score'][0]}-"
                    f"{r['score'][1]}, {r['rules']}: {who}, {dealer}",
                    ["", "estimate", "95% CI", "n"])
        s.add(f"from {r['score'][0]}-{r['score'][1]}", f"{r['win']:.4f}",
              f"[{r['win_low']:.4f}, {r['win_high']:.4f}]", f"{r['rounds']:,} rounds")
        s.caption = ("a Markov chain over the per-round score distribution of the simulated "
                     f"rounds; the interval is a bootstrap ({r['bootstrap']} resamplings)")
        secs.append(s)
    t = r["table"]
    grid = Section(f"P(side 0 wins) by score: rows side 0 (mine), columns side 1 (theirs); "
                   f"{who}, {dealer}", ["mine \\ theirs", *map(str, range(len(t)))])
    for i, row in enumerate(t):
        grid.add(str(i), *(f"{p:.2f}" for p in row))
    secs.append(grid)
    recs = [{"score_0": i, "score_1": j, "estimate": t[i][j], "low": r["low"][i][j],
             "high": r["high"][i][j]} for i in range(len(t)) for j in range(len(t))]
    return secs, recs


# ---- values --------------------------------------------------------------------
def values_view(r: dict) -> tuple[list[Section], list[dict]]:
    from ..engine.cards import card_name
    who = " vs ".join(r["strategies"])
    taken = r.get("by") == "taken"
    s = Section(f"what a card {'captured' if taken else 'in the first hand'} is worth, "
                f"{r['rules']}: {who}, {r['rounds']:,} rounds (most valuable first)",
                ["card", "captor's margin" if taken else "holder's margin", "95% CI",
                 "win edge", "95% CI", "n"])
    cards = sorted((c for c in r["cards"] if c["margin"]["n"]),      # never held: not listed
                   key=lambda c: -(c["margin"]["mean"] or 0))
    for c in cards:
        m, e = c["margin"], c["win_edge"]
        s.add(card_name(c["card"]), signed(m['mean'], 4), signed_ci(m['low'], m['high'], 4),
              signed(e['mean'], 4), signed_ci(e['low'], e['high'], 4), f"{m['n']:,}")
    s.caption = ("the round margin (points, own side minus the best other) and the win edge "
                 "(P(win) minus P(another side wins)) of the side "
                 + ("that captured the card" if taken else "whose first hand holds the card")
                 + f"; these values hold under these strategies ({who}), not in general"
                 + (f"; {r['partial']}" if r.get("partial") else ""))
    w = r["hand_worth"]
    recs = [{"card": card_name(c["card"]), "margin": c["margin"]["mean"],
             "margin_low": c["margin"]["low"], "margin_high": c["margin"]["high"],
             "win_edge": c["win_edge"]["mean"], "win_edge_low": c["win_edge"]["low"],
             "win_edge_high": c["win_edge"]["high"], "n": c["margin"]["n"]} for c in r["cards"]]
    if w is None:                         # by who captured the card: no hand's worth
        return [s], recs
    h = Section(f"a first hand's worth: the sum of its cards' values (points per round), "
                f"over {w['mean']['n']:,} first hands", ["share of hands", "worth at most"])
    for q, x in w["quantiles"].items():
        h.add(f"{float(q):.0%}", signed(x, 2))
    h.caption = f"to the histogram's bins of {w['bin']} points"
    return [s, h], recs
