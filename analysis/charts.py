"""Charts of a run or a tournament (matplotlib, Agg backend): each with a
title, labelled axes and units, written as PNG (or SVG/PDF by the file's
extension) at a fixed size, `SIZE` inches at `DPI` (800 x 500 pixels)."""
from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from ..stats import mean_from_sums  # noqa: E402

SIZE = (8.0, 5.0)
DPI = 100
FORMATS = ("png", "svg", "pdf")
SIDE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _figure(title: str):
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI, layout="constrained")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return fig, ax


def plain_log_x(ax, fmt: str) -> None:
    """A log x axis labelled in plain numbers (`fmt`, e.g. "{x:,.0f}"), not
    as powers of ten, which need math fonts a shared font cache may lack."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ticker.StrMethodFormatter(fmt))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def _side_labels(stats: dict) -> list[str]:
    return [f"side {t}: {s}" for t, s in enumerate(stats["strategies"])]


def _err(items: list[dict], value: str = "rate") -> np.ndarray:
    return np.array([[d[value] - d["low"] for d in items], [d["high"] - d[value] for d in items]])


def winrates(stats: dict):
    """Round (and game) win rates per side and the round tie rate, with 95% Wilson intervals."""
    groups = [("round", "round_win")] + ([("game", "game_win")] if "games" in stats else [])
    fig, ax = _figure(f"Win rates, {stats['rules']}: " + " vs ".join(stats["strategies"]))
    width = 0.8 / len(stats["sides"])
    x = np.arange(len(groups))
    for t, side in enumerate(stats["sides"]):
        items = [side[key] for _, key in groups]
        ax.bar(x + (t - (len(stats["sides"]) - 1) / 2) * width, [d["rate"] for d in items], width,
               yerr=_err(items), capsize=4, label=_side_labels(stats)[t],
               color=SIDE_COLOURS[t % len(SIDE_COLOURS)])
    tie = stats["round_tie"]
    ax.bar([len(groups)], [tie["rate"]], 0.8 / len(stats["sides"]), yerr=_err([tie]), capsize=4,
           color="grey", label="round tied at the top")
    ax.set_xticks(list(x) + [len(groups)],
                  [f"{g} win rate (n = {stats[g + 's']:,})" for g, _ in groups] + ["round tie rate"])
    ax.set_ylabel("rate (fraction of rounds or games), 95% CI")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper right")
    return fig


def categories(stats: dict):
    """Mean points per round by category and side, with 95% intervals."""
    *cats, (points, _) = stats["categories"]
    cats = [*cats, (points, "all points")]
    fig, ax = _figure(f"Points per round by category, {stats['rules']} "
                      f"(n = {stats['rounds']:,} rounds)")
    k = len(stats["sides"])
    width = 0.8 / k
    x = np.arange(len(cats))
    for t, side in enumerate(stats["sides"]):
        items = [side[c] for c, _ in cats]
        ax.bar(x + (t - (k - 1) / 2) * width, [d["mean"] for d in items], width,
               yerr=_err(items, "mean"), capsize=3, label=_side_labels(stats)[t],
               color=SIDE_COLOURS[t % len(SIDE_COLOURS)])
    ax.set_xticks(x, [name for _, name in cats])
    ax.set_xlabel("scoring category")
    ax.set_ylabel("mean points per round (points), 95% CI")
    ax.legend()
    return fig


def _histogram(title: str, counts: dict, mean: dict, fmt: str, unit: str, colour: str,
               xlabel: str, ylabel: str):
    """Bars of whole-number `counts` as fractions, and the `mean` (a Mean's
    dict) as a dashed line labelled with its 95% interval."""
    n = sum(counts.values())
    xs = np.arange(min(counts), max(counts) + 1)
    fig, ax = _figure(title)
    ax.bar(xs, [counts.get(int(x), 0) / n for x in xs], 0.9, color=colour)
    low, high = (format(mean[k], fmt) for k in ("low", "high"))
    ax.axvline(mean["mean"], color="black", ls="--",
               label=f"mean {mean['mean']:{fmt}} [{low}, {high}] {unit} (95%)")
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return fig


def margin(stats: dict):
    """The distribution of the round point margin, side 0 minus side 1."""
    if "margin_counts" not in stats:
        raise ValueError("the margin histogram needs a run with two sides")
    counts = {int(k): v for k, v in stats["margin_counts"].items()}
    n = sum(counts.values())
    mean = mean_from_sums(sum(x * c for x, c in counts.items()),
                          sum(x * x * c for x, c in counts.items()), n)
    return _histogram(f"Round point margin, {stats['strategies'][0]} minus "
                      f"{stats['strategies'][1]} (n = {n:,} rounds)", counts, mean.as_dict(),
                      "+.3f", "points", SIDE_COLOURS[0],
                      "side 0 points minus side 1 points in a round (points)",
                      "fraction of rounds")


def convergence(stats: dict):
    """Side 0's round win rate against rounds played, with its 95% Wilson band."""
    c = stats["convergence"]
    n = np.array([d["rounds"] for d in c])
    fig, ax = _figure(f"Convergence: round win rate of side 0 ({stats['strategies'][0]})")
    ax.fill_between(n, [d["low"] for d in c], [d["high"] for d in c], alpha=0.3,
                    color=SIDE_COLOURS[0], label="95% Wilson interval")
    ax.plot(n, [d["rate"] for d in c], color=SIDE_COLOURS[0], label="estimate")
    ax.axhline(c[-1]["rate"], color="black", ls=":", lw=1,
               label=f"final {c[-1]['rate']:.4f} (n = {c[-1]['rounds']:,})")
    plain_log_x(ax, "{x:,.0f}")
    ax.set_xlabel("rounds played (log scale)")
    ax.set_ylabel("side 0 round win rate (fraction of rounds)")
    ax.legend()
    return fig


def rounds(stats: dict):
    """The distribution of the number of rounds in a game."""
    if "rounds_per_game" not in stats:
        raise ValueError("rounds per game needs a run of games (simulate with --games)")
    r = stats["rounds_per_game"]
    counts = {int(k): v for k, v in r["counts"].items()}
    return _histogram(f"Rounds per game to {stats['target']}, {stats['rules']} "
                      f"(n = {sum(counts.values()):,} games)", counts, r["mean"], ".2f",
                      "rounds", SIDE_COLOURS[2], "rounds in the game (rounds)",
                      "fraction of games")


def heatmap(tour: dict):
    """A tournament's margins per round (row minus column) with 95% intervals."""
    names = tour["strategies"]
    m = np.array(tour["margin"], dtype=float)
    lo, hi = np.array(tour["low"], dtype=float), np.array(tour["high"], dtype=float)
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI, layout="constrained")
    lim = np.nanmax(np.abs(m)) if np.isfinite(m).any() else 1.0
    im = ax.imshow(np.where(np.isfinite(m), m, np.nan), cmap="RdBu", vmin=-lim, vmax=lim)
    for i in range(len(names)):
        for j in range(len(names)):
            if i == j:
                ax.text(j, i, "—", ha="center", va="center", color="grey")
                continue
            dark = abs(m[i, j]) > 0.6 * lim
            ax.text(j, i, f"{m[i, j]:+.3f}\n±{(hi[i, j] - lo[i, j]) / 2:.3f}", ha="center",
                    va="center", fontsize=9, color="white" if dark else "black")
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    ax.set_title(f"Tournament, {tour.get('rules', '')}: mean points per round, row minus column\n"
                 f"{tour['pairs_per_match']:,} duplicate {tour['unit']} per pair; ± 95% halfwidth")
    fig.colorbar(im, ax=ax, label="mean margin (points per round)")
    return fig


def odds(data: dict):
    """P(side 0 wins the game) from every score below the target (`odds`),
    the cells stretched to fill the canvas; the score asked about, if any,
    framed and named in the legend with its interval."""
    t = np.array(data["table"], dtype=float)
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI, layout="constrained")
    im = ax.imshow(t, cmap="RdBu", vmin=0, vmax=1, origin="lower", aspect="auto")
    if len(t) <= 21:
        for i in range(len(t)):
            for j in range(len(t)):
                ax.text(j, i, f"{t[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(t[i, j] - 0.5) > 0.3 else "black")
    for axis in (ax.xaxis, ax.yaxis):                # every score, or whole ones
        axis.set_major_locator(ticker.MultipleLocator(1) if len(t) <= 21
                               else ticker.MaxNLocator(integer=True))
    if data.get("score") is not None:
        mine, theirs = data["score"]
        ax.add_patch(Rectangle((theirs - 0.5, mine - 0.5), 1, 1, fill=False, lw=2.5,
                               ec="black", label=f"from {mine}-{theirs}: {data['win']:.3f} "
                               f"[{data['win_low']:.3f}, {data['win_high']:.3f}] (95%)"))
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.1), frameon=False)
    ax.set_xlabel("side 1's score (theirs)")
    ax.set_ylabel("side 0's score (mine)")
    who = " vs ".join(data["strategies"])
    dealer = "averaged over the dealer" if data["dealer"] is None else f"seat {data['dealer']} deals"
    ax.set_title(f"P(side 0 wins the game to {data['target']}) from each score, {data['rules']}\n"
                 f"{who}, {data['rounds']:,} simulated rounds\n(Markov chain; {dealer})",
                 fontsize=10)
    fig.colorbar(im, ax=ax, label="probability side 0 wins")
    return fig


def values(data: dict):
    """What each card is worth (`values.card_values`, or a report's
    statistics holding it): a suit x rank heat map of the holder's mean
    margin, and the distribution of first-hand worth."""
    from ..engine.cards import RANK_NAMES, SUIT_NAMES
    data = data.get("values", data)
    m = np.array([c["margin"]["mean"] for c in data["cards"]], dtype=float).reshape(4, 10)
    half = np.array([(c["margin"]["high"] - c["margin"]["low"]) / 2 for c in data["cards"]],
                    dtype=float).reshape(4, 10)
    w = data["hand_worth"]
    if w is None:                       # by who captured the card: the heat map alone
        fig, ax = plt.subplots(figsize=SIZE, dpi=DPI, layout="constrained")
    else:
        fig, (ax, hx) = plt.subplots(2, 1, figsize=(SIZE[0], SIZE[1] * 1.25), dpi=DPI,
                                     layout="constrained", height_ratios=(1.1, 1))
    lim = np.nanmax(np.abs(m)) or 1.0
    im = ax.imshow(m, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    for i in range(4):
        for j in range(10):
            if np.isnan(m[i, j]):       # never held (a small deck's card set aside): blank
                continue
            ax.text(j, i, f"{m[i, j]:+.2f}\n±{half[i, j]:.3f}", ha="center", va="center",
                    fontsize=7, color="white" if abs(m[i, j]) > 0.6 * lim else "black")
    ax.set_xticks(range(10), RANK_NAMES)
    ax.set_yticks(range(4), SUIT_NAMES)
    where, who = (("captured", "captor") if data.get("by") == "taken"
                  else ("in the first hand", "holder"))
    ax.set_title(f"What a card {where} is worth, {data['rules']}: the {who}'s mean "
                 f"round margin\n{' vs '.join(data['strategies'])}, {data['rounds']:,} rounds; "
                 f"± 95% halfwidth", fontsize=10)
    fig.colorbar(im, ax=ax, label="points per round")
    if w is None:
        return fig
    edges = w["low"] + w["bin"] * np.arange(len(w["counts"]))
    hx.bar(edges, w["counts"], width=w["bin"], align="edge", color="#4C72B0")
    for q, style in (("0.05", ":"), ("0.5", "--"), ("0.95", ":")):
        hx.axvline(w["quantiles"][q], color="black", linestyle=style,
                   label=f"{float(q):.0%} of hands: worth at most {w['quantiles'][q]:+.2f}")
    hx.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: f"{y:,.0f}"))
    hx.set_xlabel("a first hand's worth: the sum of its cards' values (points per round)")
    hx.set_ylabel("first hands")
    hx.legend(loc="upper right", fontsize=8)
    return fig


KINDS: dict[str, tuple[Callable, str]] = {
    "winrates": (winrates, "run"),
    "categories": (categories, "run"),
    "margin": (margin, "run"),
    "convergence": (convergence, "run"),
    "rounds": (rounds, "games"),
    "heatmap": (heatmap, "tournament"),
    "odds": (odds, "odds"),
    "values": (values, "values"),
}


def check_format(path: str | Path) -> str:
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FORMATS:
        raise ValueError(f"chart file {str(path)!r} must end in "
                         f"{', '.join('.' + f for f in FORMATS)}")
    return ext


def save(fig, path: str | Path) -> Path:
    """Write a figure (format from the extension) and close it."""
    path = Path(path)
    fmt = check_format(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(path, format=fmt, dpi=DPI)
    finally:
        plt.close(fig)
    return path


def draw(kind: str, data: dict, path: str | Path) -> Path:
    """Draw chart `kind` from run statistics (`run_stats`) or a tournament."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}: choose from {', '.join(KINDS)}")
    return save(KINDS[kind][0](data), path)


def png_bytes(kind: str, data: dict) -> bytes:
    return figure_png(KINDS[kind][0](data))


def figure_png(fig) -> bytes:
    """A figure as PNG bytes (for a page that embeds it), then closed."""
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=DPI)
    finally:
        plt.close(fig)
    return buf.getvalue()


def run_kinds(stats: dict) -> list[str]:
    """The chart kinds that apply to a run, from its statistics."""
    return _kinds("margin_counts" in stats, "rounds_per_game" in stats, "values" in stats)


def spec_kinds(spec, values: bool) -> list[str]:
    """The chart kinds that apply to a run, from its spec (before reading
    it); `values`: whether its deals can be dealt again."""
    return _kinds(spec.rules.n_sides == 2, spec.games, values)


def _kinds(margin: bool, games: bool, values: bool) -> list[str]:
    kinds = ["winrates", "categories", "convergence"]
    if margin:
        kinds.insert(2, "margin")
    if games:
        kinds.append("rounds")
    if values:
        kinds.append("values")
    return kinds
