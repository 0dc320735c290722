"""A game review (one row per play, as `scopa-sim review` computes it) as
an evaluation chart and as one self-contained HTML page: no external
resource, the chart embedded as a PNG, every text from the record escaped."""
from __future__ import annotations

import base64
import html
import math
import os
from pathlib import Path

import numpy as np
from matplotlib import ticker

from . import charts
from .charts import SIDE_COLOURS, _figure

REVIEWED = ("exact", "rollouts", "deep", "forced")
LABELS = ("inaccuracy", "mistake", "blunder")
LABEL_COLOURS = {"inaccuracy": "#d4a017", "mistake": "#ff7f0e", "blunder": "#d62728"}
PAGE_FORMATS = ("html", "htm")
SCOPA = "<span class='scopa'>SCOPA</span>"

CSS = """body{font-family:system-ui,sans-serif;max-width:72em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;
vertical-align:top}th{background:#f4f4f4;text-align:left}.num{text-align:right;white-space:nowrap}
.cards{font-family:monospace;font-size:.9em}tr.deal td{background:#eef4fb}
tr.detail td{border-top:none}.scopa{font-weight:bold;color:#1f77b4}
.badge{padding:0 .4em;border-radius:.3em;color:#fff;font-size:.85em}
.badge.inaccuracy{background:#d4a017}.badge.mistake{background:#ff7f0e}
.badge.blunder{background:#d62728}tr.play.blunder td{background:#fdecea}
tr.play.mistake td{background:#fff3e6}tr.play.inaccuracy td{background:#fdf8e4}
tr.played td{font-weight:bold}img{max-width:100%}footer{color:#555;font-size:.9em;
margin-top:2em;border-top:1px solid #ccc;padding-top:.5em}.round-end{font-weight:bold}"""


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


def _what(df) -> tuple[str, str]:
    """The chart's y quantity (for the axis and the alt text) and its unit."""
    win = _uses_win(df)
    if _n_sides(df) == 2:
        return (("P(side 0 wins the game)", "probability") if win else
                ("expected round margin for side 0", "points"))
    return (("P(each side wins the game)", "probability") if win else
            ("expected round margin of each side (its points minus the best other side's)",
             "points"))


def chart(df):
    """The evaluation over the game: for two sides one line from side 0's
    view, for more one line per side; P(win the game) when the record has
    scores, else the expected round margin; 95% bands, labelled plays marked."""
    col = "win_game" if _uses_win(df) else "value"
    n = _n_sides(df)
    names = _side_names(df)
    rules = df.attrs.get("headers", {}).get("rules", "")
    fig, ax = _figure(_plain(f"Evaluation: {' vs '.join(names)}"
                             + (f" ({rules})" if rules else "")))
    what, unit = _what(df)
    ax.set_xlabel("play in the game (counted over all rounds)")
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.set_ylabel(f"{what} ({unit})")
    if col == "win_game":
        ax.set_ylim(0, 1)
    x = np.arange(1, len(df) + 1)
    for k, start in _round_starts(df):
        ax.axvline(start - 0.5, color="grey", ls=":", lw=1)
        ax.text(start - 0.4, 0.98, f"round {k + 1}", transform=ax.get_xaxis_transform(),
                va="top", fontsize=8, color="grey")
    ok = _reviewed(df, col)
    if not ok.any():
        ax.text(0.5, 0.5, "no play was reviewed", transform=ax.transAxes, ha="center",
                va="center", color="grey")
        ax.set_xlim(0, max(len(df), 1) + 1)
        return fig
    y, low, high = (_column(df, c) for c in (col, col + "_low", col + "_high"))
    side = df["side"].to_numpy().astype(int)
    if n == 2:                                      # side 1's rows seen from side 0
        flip = side == 1
        if col == "win_game":
            y, low, high = np.where(flip, 1 - y, y), np.where(flip, 1 - high, low), \
                np.where(flip, 1 - low, high)
        else:
            y, low, high = np.where(flip, -y, y), np.where(flip, -high, low), \
                np.where(flip, -low, high)
        lines = [(ok, f"side 0: {names[0]}", SIDE_COLOURS[0])]
        ax.axhline(0.5 if col == "win_game" else 0, color="black", lw=0.8)
    else:
        lines = [(ok & (side == t), f"side {t}: {names[t]}", SIDE_COLOURS[t % len(SIDE_COLOURS)])
                 for t in range(n)]
        if col != "win_game":
            ax.axhline(0, color="black", lw=0.8)
    for rows, label, colour in lines:
        if not rows.any():
            continue
        band = rows & np.isfinite(low) & np.isfinite(high)
        if band.any():
            ax.fill_between(x[band], low[band], high[band], color=colour, alpha=0.2, lw=0)
        ax.plot(x[rows], y[rows], color=colour, marker="o", ms=3, label=_plain(label))
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
    """(round, 1-based position of its first play) for each round in `df`."""
    starts, last = [], None
    for i, k in enumerate(df["round"].to_numpy() if len(df) else []):
        if k != last:
            starts.append((int(k), i + 1))
            last = k
    return starts


def _png(df) -> bytes:
    return charts.figure_png(chart(df))


def _ci(v, low, high, fmt: str = ".2f") -> str:
    """"0.42 [0.23, 0.61]", or "—" when unknown (escaped HTML)."""
    def num(x) -> str:
        text = format(float(x), fmt)
        return (format(0.0, fmt) if float(text) == 0 else text).replace("-", "−")
    if not _ok(v):
        return "—"
    interval = f" [{num(low)}, {num(high)}]" if _ok(low) and _ok(high) else ""
    return _e(num(v) + interval)


def _table(head: list[str], rows: list[str], cls: str = "", id: str = "") -> str:
    """A table from header texts and ready <tr> rows."""
    attrs = (f" class='{cls}'" if cls else "") + (f" id='{id}'" if id else "")
    cells = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table{attrs}><thead><tr>{cells}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _cell(d, key: str, fmt: str) -> str:
    """A number cell: d[key] with its interval d[key_low], d[key_high]."""
    return f"<td class='num'>{_ci(d.get(key), d.get(key + '_low'), d.get(key + '_high'), fmt)}</td>"


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


def _alternatives(r, win: bool) -> str:
    head = ["move", "margin (points, 95%)", "vs best (points, 95%)"] + \
        (["P(win the game)"] if win else [])
    rows = []
    for a in r["alternatives"]:
        cls = " class='played'" if str(a.get("move")) == str(r["played"]) else ""
        rows.append(f"<tr{cls}><td>{_e(a.get('move', ''))}</td>" + _cell(a, "margin", "+.2f")
                    + _cell(a, "vs_best", "+.2f") + (_cell(a, "win_game", ".3f") if win else "")
                    + "</tr>")
    checked = ""
    if r["level"] == "deep":
        checked = (f"<p class='checked'>checked by the deep evaluator: the quick pass said "
                   f"{_e(r.get('quick_label') or 'no label')} (cost "
                   f"{float(r.get('quick_cost', float('nan'))):.2f})</p>")
    return (f"<details><summary>best: {_e(r['best'] or '—')}; {len(rows)} legal moves"
            f"{'; checked' if checked else ''}</summary>{checked}"
            f"{_table(head, rows, cls='alternatives')}</details>")


def _columns(win: bool) -> list[str]:
    """The record's columns (`win`: the record has game scores)."""
    return (["#", "seat", "hand", "table", "played", "scopa", "label", "cost (points lost, 95%)"]
            + (["cost (P(win the game) lost, 95%)"] if win else []))


def _play(r, number: int, win: bool) -> str:
    label = r["label"] if r["label"] in LABELS else ""
    badge = f"<span class='badge {label}'>{label}</span>" if label else ""
    rated = r["level"] in ("exact", "rollouts", "deep")   # forced: one legal move, not rated
    costs = (_cell(r, "cost", ".2f") + (_cell(r, "win_cost", ".3f") if win else "") if rated
             else f"<td colspan='{1 + win}'>{_e(r['level'])}</td>")
    cls = "play" + (f" {label}" if label else "")
    row = (f"<tr class='{cls}' id='r{int(r['round'])}p{int(r['play'])}' "
           f"data-level='{_e(r['level'])}'><td class='num'>{number}</td><td>{_e(r['name'])}</td>"
           f"<td class='cards'>{_e(r['hand'])}</td><td class='cards'>{_e(r['table'] or '—')}</td>"
           f"<td>{_e(r['played'])}</td><td>{SCOPA if r['scopa'] else ''}</td><td>{badge}</td>"
           f"{costs}</tr>")
    alternatives = r["alternatives"] if isinstance(r["alternatives"], list) else []
    if alternatives and r["level"] in REVIEWED:
        row += (f"<tr class='detail'><td></td><td colspan='{len(_columns(win)) - 1}'>"
                f"{_alternatives(r, win)}</td></tr>")
    return row


def _deal(deal: dict, win: bool) -> str:
    hands = "; ".join(f"{_e(name)}: <span class='cards'>{_e(cards)}</span>"
                      for name, cards in (deal.get("hands") or {}).items())
    table = _e(deal.get("table") or "—")
    return (f"<tr class='deal'><td colspan='{len(_columns(win))}'>Deal: {hands}; "
            f"table: <span class='cards'>{table}</span></td></tr>")


def _by_sides(values, names: list[str]) -> str:
    return ", ".join(f"{_e(n)} {_e(v)}" for n, v in zip(names, values))


def _round(k: int, rows, info: dict, start: int, win: bool, names: list[str]) -> str:
    deals = sorted(info.get("deals") or [], key=lambda d: d.get("play", 0))
    body, d = [], 0
    for number, (_, r) in enumerate(rows.iterrows(), start):
        while d < len(deals) and deals[d].get("play", 0) <= r["play"]:
            body.append(_deal(deals[d], win))
            d += 1
        body.append(_play(r, number, win))
    body += [_deal(deal, win) for deal in deals[d:]]
    dealer = f", dealer {_e(info['dealer'])}" if info.get("dealer") is not None else ""
    end = []
    if info.get("points") is not None:
        end.append(f"points: {_by_sides(info['points'], names)}")
    if info.get("score") is not None:
        end.append(f"game score: {_by_sides(info['score'], names)}")
    end_text = "; ".join(end) if end else "points unknown"
    return (f"<section class='round' id='round{k}'><h3>Round {k + 1}{dealer}</h3>"
            f"{_table(_columns(win), body, cls='plays')}"
            f"<p class='round-end'>End of round {k + 1}: {end_text}</p></section>")


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
    what, unit = _what(df)
    png = base64.b64encode(_png(df)).decode()
    body = [f"<h1>{title}</h1>", "<h2>Headers</h2>", _headers(attrs.get("headers") or {}),
            "<h2>Evaluation</h2>",
            f"<p><img id='chart' alt='{_e(f'Evaluation chart: {what} ({unit}) after each play')}' "
            f"src='data:image/png;base64,{png}'></p>",
            "<h2>Summary</h2>", _summary(attrs.get("summary") or []), "<h2>Record</h2>"]
    rounds = {int(r["round"]): r for r in attrs.get("rounds") or []}
    start = 1
    for k in sorted(set(rounds) | {int(k) for k in df["round"]}):
        rows = df[df["round"] == k]
        body.append(_round(k, rows, rounds.get(k, {}), start, win, names))
        start += len(rows)
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
        raise ValueError(f"{path} exists: use --overwrite")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{path.suffix}")     # the extension names the format
    try:
        if ext in PAGE_FORMATS:
            tmp.write_text(page(df), encoding="utf-8")
        else:
            charts.save(chart(df), tmp)
        os.replace(tmp, path)
    finally:                                      # Ctrl-C mid-write: no partial file stays
        tmp.unlink(missing_ok=True)
    return path
