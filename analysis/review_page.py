"""A game review (one row per play, as `scopa-sim review` computes it) as
an evaluation chart and as one self-contained HTML page: no external
resource, the chart embedded as a PNG, every text from the record escaped.
The words and numbers a player reads (`judged`, `verdict_words`, `legend`,
`number`, `interval`, `with_suits`) are the command line's table's too."""
from __future__ import annotations

import base64
import html
import math
import os
import re
from pathlib import Path

import numpy as np
from matplotlib import ticker

from ..engine.cards import SUIT_SYMBOLS, SUITS
from . import charts
from .charts import SIDE_COLOURS, _figure

REVIEWED = ("exact", "rollouts", "deep", "forced")
RATED = ("exact", "rollouts", "deep")
LABELS = ("inaccuracy", "mistake", "blunder")
LABEL_COLOURS = {"inaccuracy": "#d4a017", "mistake": "#ff7f0e", "blunder": "#d62728"}
PAGE_FORMATS = ("html", "htm")
SCOPA = "<span class='scopa'>SCOPA</span>"
CARD = re.compile(r"\b(10|[2-7AJQK])([dhsc])\b")       # a card as the review writes it
RED_CARD = re.compile(r"(?:10|[2-7AJQK])[♦♥]")          # a red suit's card, with its symbol

CSS = """body{font-family:system-ui,sans-serif;max-width:80em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;
vertical-align:top}th{background:#f4f4f4;text-align:left}.num{text-align:right;white-space:nowrap}
.cards{font-size:1.05em}.hand{white-space:nowrap}td.cards{min-width:6em}
table.plays{width:100%}.red{color:#c00}tr.deal td{background:#eef4fb}
tr.detail td{border-top:none}.scopa{font-weight:bold;color:#1f77b4;font-size:.85em}
.badge{padding:0 .4em;border-radius:.3em;color:#fff;font-size:.85em;white-space:nowrap;
background:#888}.badge.inaccuracy{background:#d4a017}.badge.mistake{background:#ff7f0e}
.badge.blunder{background:#d62728}.badge.best{background:#2e7d32}.badge.level{background:#607d8b}
.badge.worse{background:#a1887f}.badge.unrated,.badge.mark{background:none;color:#777}
tr.play.blunder td{background:#fdecea}tr.play.mistake td{background:#fff3e6}
tr.play.inaccuracy td{background:#fdf8e4}td.verdict{min-width:13em}.why{font-size:.85em;color:#444}
ul.parts,ul.legend{list-style:none;padding:0;margin:.2em 0}ul.parts{font-size:.8em;color:#444}
.part{display:inline-block;min-width:6em}.bar{display:inline-block;position:relative;
width:5em;height:.6em;margin:0 .4em;background:#eee;vertical-align:middle}
.bar span{position:absolute;top:0;bottom:0}.bar .neg{right:50%;background:#d62728}
.bar .pos{left:50%;background:#2ca02c}td.comment{font-style:italic;color:#444;min-width:12em}
ul.legend li{margin:.15em 0}p.legend{color:#444}tr.played td{font-weight:bold}
img{max-width:100%}footer{color:#555;font-size:.9em;margin-top:2em;border-top:1px solid #ccc;
padding-top:.5em}.round-end{font-weight:bold}"""


def _ok(x) -> bool:
    """Whether `x` is a finite number."""
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _plain(text: str) -> str:
    """A text as matplotlib shows it literally (no mathtext between dollars)."""
    return str(text).replace("$", r"\$")


# ---- the words and numbers a player reads (the page's and the table's) ----------------
def with_suits(text: str) -> str:
    """A move, hand or table with each card's suit as its symbol: "7d takes 5s"
    is "7♦ takes 5♠" (♦ coins, ♥ cups, ♠ swords, ♣ clubs)."""
    return CARD.sub(lambda m: m[1] + SUIT_SYMBOLS[SUITS.index(m[2])], str(text))


def number(x, fmt: str = ".2f") -> str:
    """`x` as `fmt` writes it, with a true minus sign and no negative zero."""
    text = format(float(x), fmt)
    if float(text) == 0:
        text = format(0.0, fmt)
    return text.replace("-", "−")


def interval(v, low=None, high=None, fmt: str = ".2f") -> str:
    """"0.42 [0.23, 0.61]"; the value alone when its interval is unknown or
    has no width (exact); "—" when the value is unknown."""
    if not _ok(v):
        return "—"
    if not (_ok(low) and _ok(high)) or float(low) == float(high):
        return number(v, fmt)
    return f"{number(v, fmt)} [{number(low, fmt)}, {number(high, fmt)}]"


def judged(r) -> dict:
    """A play's verdict ("best", "level", "worse", "forced", '' not
    reviewed), the move it is compared with (`versus`), its edge over that
    move (played minus versus, round points, with `edge_low`, `edge_high`),
    `why` and `parts`: the review's own where it gives them, else from the
    play's cost and alternatives (no why, no parts)."""
    keys = ("verdict", "versus", "edge", "edge_low", "edge_high", "why", "parts")
    if isinstance(r.get("verdict"), str):
        return {k: r.get(k) for k in keys}
    nan = float("nan")
    out = {"verdict": "forced" if r["level"] == "forced" else "", "versus": "", "edge": nan,
           "edge_low": nan, "edge_high": nan, "why": "", "parts": {}}
    alternatives = r.get("alternatives")
    alternatives = alternatives if isinstance(alternatives, list) else []
    if r["level"] not in RATED:
        return out
    if r["played"] != r["best"]:                  # against the best
        versus, edge = r["best"], [-r["cost"], -r["cost_high"], -r["cost_low"]]
    elif len(alternatives) > 1:                   # the best, against the next
        other = alternatives[1]
        versus, edge = other["move"], [-other[k] for k in ("vs_best", "vs_best_high",
                                                            "vs_best_low")]
    else:
        return {**out, "verdict": "best"}
    verdict = ("worse" if r.get("label") or edge[2] < 0 else "best" if edge[1] > 0
               else "level")
    return {**out, "verdict": verdict, "versus": versus, "edge": edge[0], "edge_low": edge[1],
            "edge_high": edge[2]}


def verdict_words(r, j: dict) -> tuple[str, str]:
    """A play's verdict (`j`: its `judged`) as a word and the words after it:
    ("best", ", +0.60 [+0.27, +0.93] over X"), ("best", ", equal to X"),
    ("level", " with X (−0.05 [−0.30,
    +0.20])"), ("mistake *", ", best X") (`*`: the deep check kept the
    label), ("worse", ", best X"), ("forced", ""), ("not reviewed", "")."""
    verdict = j["verdict"]
    if verdict == "level" and all(_ok(j[k]) and float(j[k]) == 0
                                  for k in ("edge", "edge_low", "edge_high")):
        return "best", f", equal to {j['versus']}"
    if verdict == "level":
        return "level", (f" with {j['versus']} "
                         f"({interval(j['edge'], j['edge_low'], j['edge_high'], '+.2f')})")
    if verdict == "best" and j["versus"] and _ok(j["edge"]):
        return "best", (f", {interval(j['edge'], j['edge_low'], j['edge_high'], '+.2f')} "
                        f"over {j['versus']}")
    if verdict == "worse":
        label = r.get("label") or ""
        word = f"{label} *" if label and r["level"] == "deep" else label or "worse"
        return word, f", best {r['best']}"
    return verdict or "not reviewed", ""


def legend(attrs: dict) -> list[tuple[tuple[str, ...], str]]:
    """What the verdicts say, as (words, meaning), for the page and the
    table's caption."""
    marks = attrs.get("thresholds") or {}
    out = [(("best",), "better than every other move (95%): the edge over the closest, X"),
           (("level with X",), "not told apart from move X (within the precision, or at the "
                               "budget): the edge, played minus X in round points (95%)"),
           (("worse",), "below the best (95%), by less than the mildest label")]
    if marks:
        at = ", ".join(f"{v:g}" for v in marks.values())
        out.append((tuple(marks), f"worse, by at least {at} round points"))
    if attrs.get("checked"):
        out.append((("*",), f"the label stands after the deep check "
                            f"({attrs.get('deep_strategy')} on {attrs.get('deep_samples')} "
                            f"deals); a play it cleared has none"))
    return out + [(("forced",), "one legal move, not rated")]


# ---- the chart ----------------------------------------------------------------------
def _n_sides(df) -> int:
    sides = df.attrs.get("sides")
    if sides:
        return int(sides)
    return int(df["side"].max()) + 1 if len(df) else 2


def _side_names(df) -> list[str]:
    """Each side's seat names, in seat order ("Anna & Carla" for a team)."""
    names: dict[int, list[str]] = {}
    for _, r in df.sort_values("seat", kind="stable").iterrows():
        side = names.setdefault(int(r["side"]), [])
        if str(r["name"]) not in side:
            side.append(str(r["name"]))
    seats = df.attrs.get("headers", {}).get("seats") or []
    n = _n_sides(df)
    if not names and len(seats) == n:                  # no play: the header's seats
        return [str(s) for s in seats]
    return [" & ".join(names[t]) if t in names else f"side {t}" for t in range(n)]


def _uses_win(df) -> bool:
    """Whether the chart shows P(win the game) (the record has scores)."""
    return "win_game" in df and bool(_reviewed(df, "win_game").any())


def _reviewed(df, col: str) -> np.ndarray:
    """Rows that give a point: reviewed, with a finite `col`."""
    if col not in df or not len(df):
        return np.zeros(len(df), dtype=bool)
    vals = np.array([_ok(v) for v in df[col]], dtype=bool)
    return df["level"].isin(REVIEWED).to_numpy() & vals


def _column(df, col: str) -> np.ndarray:
    if col not in df:
        return np.full(len(df), np.nan)
    return np.array([float(v) if _ok(v) else np.nan for v in df[col]])


def _chart_sides(df) -> list[int]:
    """The sides the chart draws: those with a reviewed play."""
    col = "win_game" if _uses_win(df) else "value"
    return sorted({int(t) for t in df.loc[_reviewed(df, col), "side"]}) if len(df) else []


def _what(df) -> tuple[str, str]:
    """The chart's y quantity (for the axis and the alt text) and its unit."""
    sides = _chart_sides(df)
    who = _side_names(df)[sides[0]] if len(sides) == 1 else "each reviewed side"
    if _uses_win(df):
        return f"P(win the game) for {who}", "probability"
    return f"expected round margin for {who}, its points minus the best other side's", "points"


def chart(df):
    """The evaluation over the game: each reviewed side's chances at its own
    plays, as its seat saw them then (P(win the game) when the record has
    scores, else the expected round margin), 95% bands, labelled plays
    marked; the plays numbered within their round."""
    col = "win_game" if _uses_win(df) else "value"
    names = _side_names(df)
    rules = df.attrs.get("headers", {}).get("rules", "")
    fig, ax = _figure(_plain(f"Evaluation: {' vs '.join(names)}"
                             + (f" ({rules})" if rules else "")))
    what, unit = _what(df)
    ax.set_xlabel("play, numbered within its round")
    plays = df["play"].to_numpy() if len(df) else np.zeros(0)
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(
        lambda v, _: str(int(plays[int(v) - 1])) if v == int(v) and 1 <= v <= len(plays)
        else ""))
    ax.set_ylabel(_plain(f"{what} ({unit})"))
    if col == "win_game":
        ax.set_ylim(0, 1)
    x = np.arange(1, len(df) + 1)
    for k, start in _round_starts(df):
        ax.axvline(start - 0.5, color="grey", ls=":", lw=1)
        ax.text(start - 0.4, 0.98, f"round {k}", transform=ax.get_xaxis_transform(),
                va="top", fontsize=8, color="grey")
    ok = _reviewed(df, col)
    if not ok.any():
        ax.text(0.5, 0.5, "no play was reviewed", transform=ax.transAxes, ha="center",
                va="center", color="grey")
        ax.set_xlim(0, max(len(df), 1) + 1)
        return fig
    y, low, high = (_column(df, c) for c in (col, col + "_low", col + "_high"))
    side = df["side"].to_numpy().astype(int)
    if col != "win_game" or _n_sides(df) == 2:
        ax.axhline(0.5 if col == "win_game" else 0, color="black", lw=0.8)
    for t in _chart_sides(df):
        rows, colour = ok & (side == t), SIDE_COLOURS[t % len(SIDE_COLOURS)]
        band = rows & np.isfinite(low) & np.isfinite(high)
        if band.any():
            ax.fill_between(x[band], low[band], high[band], color=colour, alpha=0.2, lw=0)
        ax.plot(x[rows], y[rows], color=colour, marker="o", ms=3, label=_plain(names[t]))
    labels = df["label"].to_numpy() if "label" in df else np.full(len(df), "")
    for name in LABELS:
        rows = ok & (labels == name)
        if rows.any():
            ax.scatter(x[rows], y[rows], s=60, color=LABEL_COLOURS[name], edgecolor="black",
                       zorder=3, label=name)
    ax.set_xlim(0.5, len(df) + 0.5)
    ax.legend(loc="best", fontsize=8)
    return fig


def _round_starts(df) -> list[tuple[int, int]]:
    """(round, 1-based position of its first play in `df`) for each round."""
    starts, last = [], None
    for i, k in enumerate(df["round"].to_numpy() if len(df) else []):
        if k != last:
            starts.append((int(k), i + 1))
            last = k
    return starts


def _png(df) -> bytes:
    return charts.figure_png(chart(df))


# ---- the page -----------------------------------------------------------------------
def _cards(text) -> str:
    """Escaped HTML of a text of cards, each with its suit symbol, the red suits red."""
    return RED_CARD.sub(r"<span class='red'>\g<0></span>", _e(with_suits(text)))


def _table(head: list[str], rows: list[str], cls: str = "", id: str = "") -> str:
    """A table from header texts and ready <tr> rows."""
    attrs = (f" class='{cls}'" if cls else "") + (f" id='{id}'" if id else "")
    cells = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table{attrs}><thead><tr>{cells}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _cell(d, key: str, fmt: str) -> str:
    """A number cell: d[key] with its interval d[key_low], d[key_high]."""
    return (f"<td class='num'>"
            f"{_e(interval(d.get(key), d.get(key + '_low'), d.get(key + '_high'), fmt))}</td>")


def _headers(headers: dict) -> str:
    def value(v):
        return ", ".join(str(x) for x in v) if isinstance(v, (list, tuple)) else str(v)
    rows = [f"<tr><th>{_e(k)}</th><td>{_e(value(v))}</td></tr>" for k, v in headers.items()]
    return (f"<table id='headers'><tbody>{''.join(rows)}</tbody></table>" if rows
            else "<p>No headers.</p>")


def _summary(summary: list[dict]) -> str:
    rows = []
    for s in summary:
        counts = s.get("labels") or {}
        rows.append(
            f"<tr class='seat'><td>{_e(s.get('name', ''))}</td>"
            f"<td class='num'>{_e(s.get('decisions', ''))}</td>"
            + _cell(s, "mean_cost", ".3f")
            + "".join(f"<td class='num'>{_e(counts.get(k, 0))}</td>" for k in LABELS)
            + _cell(s, "luck", "+.2f") + "</tr>")
    head = ["seat", "decisions rated", "mean cost (points lost per decision, 95%)",
            "inaccuracies", "mistakes", "blunders", "luck (points, 95%)"]
    return _table(head, rows, id="summary")


def _legend(attrs: dict) -> str:
    def badge(word):
        return (f"<span class='badge {_e(word.split()[0]) if word[0].isalpha() else 'mark'}'>"
                f"{_e(word)}</span>")
    items = "".join(f"<li>{' '.join(map(badge, words))} {_e(meaning)}</li>"
                    for words, meaning in legend(attrs))
    return (f"<ul class='legend'>{items}</ul><p class='legend'>Cards: <span class='red'>♦</span> "
            f"coins, <span class='red'>♥</span> cups, ♠ swords, ♣ clubs. Under a "
            f"verdict: why it differs most, and the edge split by what the round's points "
            f"are made of. Cost: the round points the play lost against the best move.</p>")


def _parts(parts) -> str:
    """The edge split by what the round's points are made of, largest
    first: a bar (red: lost, green: gained) and the number each (its
    interval on hovering)."""
    items = sorted(((str(k), [float(x) for x in v]) for k, v in
                    (parts.items() if isinstance(parts, dict) else ())
                    if isinstance(v, (list, tuple)) and len(v) == 3 and _ok(v[0])
                    and number(v[0]) != number(0)), key=lambda kv: -abs(kv[1][0]))
    if not items:
        return ""
    top = max(abs(v[0]) for _, v in items)
    rows = "".join(f"<li title='{_e(k)}: {_e(interval(*v, fmt='+.2f'))} (95%)'>"
                   f"<span class='part'>{_e(k)}</span><span class='bar'><span class="
                   f"'{'pos' if v[0] > 0 else 'neg'}' style='width:{50 * abs(v[0]) / top:.0f}%'>"
                   f"</span></span>{_e(number(v[0], '+.2f'))}</li>" for k, v in items)
    return f"<ul class='parts'>{rows}</ul>"


def _verdict(r) -> str:
    """A play's verdict cell: the verdict, why, and the edge's parts."""
    j = judged(r)
    word, rest = verdict_words(r, j)
    cls = word.split()[0] if j["verdict"] else "unrated"
    why = j["why"] if isinstance(j["why"], str) else ""
    return (f"<td class='verdict'><span class='badge {_e(cls)}'>{_e(word)}</span>{_cards(rest)}"
            + (f"<div class='why'>{_e(why)}</div>" if why else "") + _parts(j["parts"])
            + "</td>")


def _alternatives(r, win: bool) -> str:
    head = ["move", "margin (points, 95%)", "vs best (points, 95%)"] + \
        (["P(win the game)"] if win else [])
    rows = []
    for a in r["alternatives"]:
        cls = " class='played'" if str(a.get("move")) == str(r["played"]) else ""
        rows.append(f"<tr{cls}><td>{_cards(a.get('move', ''))}</td>"
                    + _cell(a, "margin", "+.2f") + _cell(a, "vs_best", "+.2f")
                    + (_cell(a, "win_game", ".3f") if win else "") + "</tr>")
    checked = ""
    if r["level"] == "deep":
        checked = (f"<p class='checked'>checked by the deep evaluator: the quick pass said "
                   f"{_e(r.get('quick_label') or 'no label')} (cost "
                   f"{_e(interval(r.get('quick_cost')))})</p>")
    return (f"<details><summary>{len(rows)} legal moves{'; checked' if checked else ''}"
            f"</summary>{checked}{_table(head, rows, cls='alternatives')}</details>")


def _columns(win: bool, comments: bool) -> list[str]:
    """The record's columns (`win`: the record has game scores; `comments`: it comments plays)."""
    return (["play", "seat", "hand", "table", "played", "verdict", "cost (points lost, 95%)"]
            + (["cost (P(win the game) lost, 95%)"] if win else [])
            + (["comment"] if comments else []))


def _play(r, columns: list[str]) -> str:
    label = r["label"] if r["label"] in LABELS else ""
    win = "cost (P(win the game) lost, 95%)" in columns
    rated = r["level"] in RATED                     # forced: one legal move, not rated
    costs = (_cell(r, "cost", ".2f") + (_cell(r, "win_cost", ".3f") if win else "") if rated
             else "<td class='num'>—</td>" * (1 + win))
    comment = r.get("comment")
    row = (f"<tr class='play{f' {label}' if label else ''}' id='r{int(r['round'])}"
           f"p{int(r['play'])}' data-level='{_e(r['level'])}'><td class='num'>{int(r['play'])}"
           f"</td><td>{_e(r['name'])}</td><td class='cards hand'>{_cards(r['hand'])}</td>"
           f"<td class='cards'>{_cards(r['table'] or '—')}</td><td class='cards'>"
           f"{_cards(r['played'])}{' ' + SCOPA if r['scopa'] else ''}</td>{_verdict(r)}{costs}"
           + (f"<td class='comment'>{_e(comment) if isinstance(comment, str) else ''}</td>"
              if "comment" in columns else "") + "</tr>")
    alternatives = r["alternatives"] if isinstance(r["alternatives"], list) else []
    if alternatives and r["level"] in REVIEWED:
        row += (f"<tr class='detail'><td></td><td colspan='{len(columns) - 1}'>"
                f"{_alternatives(r, win)}</td></tr>")
    return row


def _deal(deal: dict, columns: list[str]) -> str:
    hands = "; ".join(f"{_e(name)}: <span class='cards'>{_cards(cards)}</span>"
                      for name, cards in (deal.get("hands") or {}).items())
    return (f"<tr class='deal'><td colspan='{len(columns)}'>Deal: {hands}; table: "
            f"<span class='cards'>{_cards(deal.get('table') or '—')}</span></td></tr>")


def _by_sides(values, names: list[str]) -> str:
    return ", ".join(f"{_e(n)} {_e(v)}" for n, v in zip(names, values))


def _round(k: int, rows, info: dict, columns: list[str], names: list[str]) -> str:
    deals = sorted(info.get("deals") or [], key=lambda d: d.get("play", 0))
    body, d = [], 0
    for _, r in rows.iterrows():
        while d < len(deals) and deals[d].get("play", 0) <= r["play"]:
            body.append(_deal(deals[d], columns))
            d += 1
        body.append(_play(r, columns))
    body += [_deal(deal, columns) for deal in deals[d:]]
    dealer = f", dealer {_e(info['dealer'])}" if info.get("dealer") is not None else ""
    end = []
    if info.get("points") is not None:
        end.append(f"points: {_by_sides(info['points'], names)}")
    if info.get("score") is not None:
        end.append(f"game score: {_by_sides(info['score'], names)}")
    end_text = "; ".join(end) if end else "points unknown"
    return (f"<section class='round' id='round{k}'><h3>Round {k}{dealer}</h3>"
            f"{_table(columns, body, cls='plays')}"
            f"<p class='round-end'>End of round {k}: {end_text}</p></section>")


def _footer(attrs: dict) -> str:
    thresholds = ", ".join(f"{_e(k)} ≥ {_e(v)}"
                           for k, v in (attrs.get("thresholds") or {}).items())
    return (f"<footer>Strategy {_e(attrs.get('strategy', '—'))}, rollouts "
            f"{_e(attrs.get('rollouts', '—'))}, seed {_e(attrs.get('seed', '—'))}. "
            f"Labels by points lost: {thresholds or '—'}. "
            + (f"Every label checked by {_e(attrs.get('deep_strategy'))} on "
               f"{_e(attrs.get('deep_samples'))} deals. " if attrs.get("checked") else "")
            + "Intervals are 95%. Made by scopa-sim review.</footer>")


def page(df) -> str:
    """The review as one self-contained HTML5 document."""
    attrs = df.attrs
    names = _side_names(df)
    rules = attrs.get("headers", {}).get("rules", "")
    title = _e(f"Game review: {' vs '.join(names)}" + (f" ({rules})" if rules else ""))
    win = _uses_win(df) or any("win_game" in a for alts in df["alternatives"]
                               if isinstance(alts, list) for a in alts)
    comments = "comment" in df and any(isinstance(c, str) and c for c in df["comment"])
    columns = _columns(win, comments)
    what, unit = _what(df)
    png = base64.b64encode(_png(df)).decode()
    body = [f"<h1>{title}</h1>", "<h2>Headers</h2>", _headers(attrs.get("headers") or {}),
            "<h2>Evaluation</h2>",
            f"<p><img id='chart' alt='{_e(f'Evaluation chart: {what} ({unit}) after each play')}' "
            f"src='data:image/png;base64,{png}'></p>",
            "<h2>Summary</h2>", _summary(attrs.get("summary") or []), "<h2>Record</h2>",
            _legend(attrs)]
    rounds = {int(r["round"]): r for r in attrs.get("rounds") or []}
    for k in sorted(set(rounds) | {int(k) for k in df["round"]}):
        body.append(_round(k, df[df["round"] == k], rounds.get(k, {}), columns, names))
    body.append(_footer(attrs))
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{title}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def check_path(path: str | Path) -> str:
    """The format of a review file by its extension; ValueError for another
    extension or a folder."""
    path = Path(path)
    ext = path.suffix.lower().lstrip(".")
    if ext not in PAGE_FORMATS + charts.FORMATS:
        raise ValueError(f"review file {str(path)!r} must end in "
                         f"{', '.join('.' + f for f in PAGE_FORMATS + charts.FORMATS)}")
    if path.is_dir():
        raise ValueError(f"{path} is a folder: name a file")
    return ext


def write(df, path: str | Path, overwrite: bool = False) -> Path:
    """Write the review by the file's extension: the page (.html, .htm) or
    the chart alone (.png, .svg, .pdf); atomically, refusing an existing
    file unless `overwrite`."""
    path = Path(path)
    ext = check_path(path)
    if (path.exists() or path.is_symlink()) and not overwrite:
        raise ValueError(f"{path} exists: choose another --out, or pass --overwrite")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{path.suffix}")     # the extension names the format
    try:
        if ext in PAGE_FORMATS:
            tmp.write_text(page(df), encoding="utf-8")
        else:
            charts.save(chart(df), tmp)
        os.replace(tmp, path)
    except OSError as e:                          # named as given, not as the temporary file
        raise OSError(e.errno, e.strerror, str(path)) from None
    finally:                                      # Ctrl-C mid-write: no partial file stays
        tmp.unlink(missing_ok=True)
    return path
