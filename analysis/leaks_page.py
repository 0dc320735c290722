"""The leaks of a strategy as a chart and a page (`scopa-sim leaks --out`):
a bar chart of the costliest situations, cost per round with its 95%
interval, and an HTML page with that chart, the table and the examples.
Reads a `study.leaks` result (plain data) only."""
from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np

from .charts import _figure, figure_png, save
from .output import Section, html_table, signed, signed_ci

TOP = 10                         # situations in the chart


def chart(data: dict):
    """The costliest situations (at most TOP), cost per round with 95% intervals."""
    rows = data["situations"][:TOP][::-1]
    fig, ax = _figure(f"leaks of {data['strategy']} (judge {data['judge']}): cost per round")
    cost = np.array([r["cost"] for r in rows])
    err = np.array([[r["cost"] - r["cost_low"] for r in rows],
                    [r["cost_high"] - r["cost"] for r in rows]])
    ax.barh(range(len(rows)), cost, xerr=np.nan_to_num(err), color="#d62728", alpha=0.8,
            capsize=3)
    ax.set_yticks(range(len(rows)), [r["situation"] for r in rows], fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.grid(axis="x", alpha=0.3)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("round points lost per round (95% interval); the rows overlap")
    return fig


def table(data: dict) -> Section:
    """The leaks table: a row per situation, costliest first."""
    s = Section(f"leaks of {data['strategy']} against {data['against']}, judged by "
                f"{data['judge']} ({data['rounds']:,} rounds, {data['valued']})",
                ["situation", "per round", "differs", "cost a round ±95%",
                 *data["total"]["parts"]])
    for r in [*data["situations"], {"situation": "all decisions (total)", **data["total"]}]:
        half = (r["cost_high"] - r["cost_low"]) / 2
        s.add(r["situation"], f"{r['per_round']:.2f}", f"{r['differs']:.0%}",
              f"{signed(r['cost'], 3)} ±{half:.3f}", *(signed(v, 2) for v in r["parts"].values()))
    c = data["compare"]
    s.caption = (f"A decision counts in every situation it belongs to: the rows overlap, the "
                 f"total is all decisions. compare {data['strategy']} {data['judge']} on the "
                 f"same deals: {signed(c['margin'], 3)} {signed_ci(c['low'], c['high'], 3)}; "
                 f"total cost + that margin (the gap): {signed(data['gap'], 3)}")
    return s


def write(data: dict, path: str | Path) -> Path:
    """The chart (.png, .svg, .pdf) or the page (.html) at `path`."""
    path = Path(path)
    if path.suffix.lower() != ".html":
        return save(chart(data), path)
    png = base64.b64encode(figure_png(chart(data))).decode()
    e = html.escape
    examples = "".join(
        f"<h4>{e(r['situation'])}</h4><pre>{e(chr(10).join(r['examples']))}</pre>"
        for r in data["situations"][:TOP] if r["examples"])
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>leaks of "
            f"{e(data['strategy'])}</title><style>body{{font-family:sans-serif;margin:2em}}"
            f"td,th{{padding:2px 8px;text-align:right}}td:first-child{{text-align:left}}"
            f"pre{{white-space:pre-wrap}}</style></head><body>"
            f"<img alt='leaks chart' src='data:image/png;base64,{png}'>"
            f"{html_table(table(data))}<h3>examples (advise commands that set each up "
            f"again)</h3>{examples}</body></html>\n")
    path.write_text(page, encoding="utf-8")
    return path
