"""Results in three shapes: tables (rich on a terminal, Markdown, HTML),
JSON (the plain data), and CSV (flat records)."""
from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import PurePath

import numpy as np

FORMATS = ("table", "json", "csv")


@dataclass
class Section:
    """One table of a result: a title, column names, rows of strings, and
    `styles` (regex -> rich style) for the text it matches on a terminal."""
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    caption: str = ""
    styles: dict[str, str] = field(default_factory=dict)

    def add(self, *cells) -> Section:
        self.rows.append([str(c) for c in cells])
        return self


def short_labels(labels: list[str]) -> list[str]:
    """Strategy labels for column heads: a file strategy's path
    (`/tmp/a/entrant.py:f`) cut to its last folders, as few as keep the
    labels apart (`entrant.py:f`, or `a/entrant.py:f` beside `b/entrant.py:f`);
    other labels as they are. JSON and CSV keep the whole labels."""
    split = [label.partition(".py:") for label in labels]
    paths = [PurePath(head + ".py").parts if sep else () for head, sep, _ in split]
    for depth in range(1, max(map(len, paths), default=0) + 1):
        short = [str(PurePath(*parts[-depth:])) + ":" + tail if parts else label
                 for parts, (_, _, tail), label in zip(paths, split, labels)]
        if len(set(short)) == len(set(labels)):
            return short
    return list(labels)


def number(x: float, digits: int = 4) -> str:
    """`digits` decimals; a number of a billion or more (an `ask` mean of a
    scaled column) in exponent form, not as a row of digits."""
    return f"{x:.{digits}f}" if abs(x) < 1e9 else f"{x:.{digits + 1}e}"


def signed(x: float, digits: int = 4) -> str:
    """`x` with its sign and `digits` decimals; what rounds to zero is
    written 0.000, never -0.000 (nor +0.000)."""
    text = f"{x:+.{digits}f}"
    return f"{0:.{digits}f}" if float(text) == 0 else text


def signed_ci(low: float, high: float, digits: int = 4) -> str:
    """An interval of signed numbers as text, [low, high] (`signed`)."""
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


def ci(d: dict, digits: int = 4) -> str:
    """An interval as text, [low, high]."""
    return f"[{number(d['low'], digits)}, {number(d['high'], digits)}]"


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def to_json(data: dict) -> str:
    """Strict JSON (NaN and infinities become null)."""
    return json.dumps(_plain(data), indent=2)


def to_csv(records: list[dict]) -> str:
    """Flat records as CSV, columns in first-seen order."""
    cols: list[str] = []
    for r in records:
        cols += [k for k in r if k not in cols]
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, lineterminator="\n")
    w.writeheader()
    for r in records:
        w.writerow({k: ("" if v is None else v) for k, v in _plain(r).items()})
    return buf.getvalue()


def print_tables(sections: list[Section], console) -> None:
    """The sections as rich tables; every text is shown as is (no markup), and
    wrapped, never cut: a word wider than its column folds onto the next line."""
    from rich.table import Table
    from rich.text import Text
    for s in sections:
        t = Table(title=Text(s.title), caption=Text(s.caption) if s.caption else None,
                  caption_justify="left", title_justify="left")
        for i, c in enumerate(s.columns):
            t.add_column(Text(c), justify="left" if i == 0 else "right", overflow="fold")
        for row in s.rows:
            cells = [Text(c) for c in row]
            for cell in cells:
                for pattern, style in s.styles.items():
                    cell.highlight_regex(pattern, style)
            t.add_row(*cells)
        console.print(t)


_MD_INLINE = re.compile(r"([\\`*_\[\]|~#])")
_MD_LINE_START = re.compile(r"^(\s*(?:\d{1,9}(?=[.)])|(?=[-+])))([-+.)])(?=\s|$)")   # 1. - +


def md_text(x) -> str:
    """Text as it reads, in Markdown: on one line, with every character
    Markdown or a renderer's HTML would act on escaped (`*`, `_`, backticks,
    brackets, `|`, `~`, `#`, backslash; `<`, `>` and `&` as entities, so no
    tag survives; a list or heading marker at the start)."""
    text = " ".join(str(x).splitlines())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_INLINE.sub(r"\\\1", text)
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def markdown_table(s: Section) -> str:
    lines = [f"### {md_text(s.title)}", "", "| " + " | ".join(map(md_text, s.columns)) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(s.columns))) + "|"]
    lines += ["| " + " | ".join(map(md_text, r)) + " |" for r in s.rows]
    if s.caption:
        lines += ["", md_text(s.caption)]
    return "\n".join(lines) + "\n"


def html_table(s: Section) -> str:
    e = html.escape
    head = "".join(f"<th>{e(c)}</th>" for c in s.columns)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in s.rows)
    cap = f"<p class='caption'>{e(s.caption)}</p>" if s.caption else ""
    return (f"<h3>{e(s.title)}</h3>\n<table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>{cap}\n")
