"""A run's report as a self-contained document: Markdown with its charts as
PNG files beside it (`NAME-<kind>.png`), or one HTML file with the charts
embedded (base64)."""
from __future__ import annotations

import base64
import html
from pathlib import Path
from urllib.parse import quote

from . import charts
from .output import html_table, markdown_table, md_text
from .views import report_view

CSS = """body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em}
td:not(:first-child){text-align:right}.caption{color:#555;font-size:.9em}
img{max-width:100%}"""


def _title(st: dict) -> str:
    return f"scopa-sim report: {' vs '.join(st['strategies'])} ({st['rules']})"


def _intro(st: dict, html_out: bool = False) -> str:
    """The opening line, naming the run as code (Markdown or HTML)."""
    run = (f"<code>{html.escape(st['run'])}</code>" if html_out else
           f"<code>{md_text(st['run'])}</code>")          # a code span cannot hold every text
    what = f"{st['rounds']:,} rounds" + (f" in {st['games']:,} games" if "games" in st else "")
    return (f"Run {run}: {what}, seed {st['seed']}. Every rate has its n and a 95% "
            "interval (Wilson for rates, normal for means).")


def report_files(path: str | Path, spec, values: bool) -> list[Path]:
    """The files a report of a run with this spec writes at `path`: the
    report, and for Markdown its charts beside it (`values`: whether the
    run's deals can be dealt again, so its values chart is drawn)."""
    path = Path(path)
    if path.suffix.lower() != ".md":
        return [path]
    return [path, *(chart_file(path, kind) for kind in charts.spec_kinds(spec, values))]


def chart_file(path: Path, kind: str) -> Path:
    """Where a Markdown report's chart goes: NAME-<kind>.png beside it."""
    return path.with_name(f"{path.stem}-{kind}.png")


def write_report(st: dict, path: str | Path) -> list[Path]:
    """Write the report for run statistics `st` (`run_stats`) to `path`
    (.md or .html); returns the files written."""
    path = Path(path)
    ext = path.suffix.lower()
    if ext not in (".md", ".html", ".htm"):
        raise ValueError(f"report file {str(path)!r} must end in .md or .html")
    path.parent.mkdir(parents=True, exist_ok=True)
    sections, _ = report_view(st)
    kinds = charts.run_kinds(st)
    if ext == ".md":
        written = []
        parts = [f"# {md_text(_title(st))}\n", _intro(st) + "\n"]
        parts += [markdown_table(s) for s in sections]
        parts.append("## Charts\n")
        for kind in kinds:
            png = charts.draw(kind, st, chart_file(path, kind))
            written.append(png)
            parts.append(f"![{kind}]({quote(png.name)})\n")      # any file name, as a URL
        path.write_text("\n".join(parts))
        return [path, *written]
    body = [f"<h1>{html.escape(_title(st))}</h1>", f"<p>{_intro(st, html_out=True)}</p>"]
    body += [html_table(s) for s in sections]
    body.append("<h2>Charts</h2>")
    for kind in kinds:
        data = base64.b64encode(charts.png_bytes(kind, st)).decode()
        body.append(f"<p><img alt='{kind}' src='data:image/png;base64,{data}'></p>")
    path.write_text(f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
                    f"<title>{html.escape(_title(st))}</title><style>{CSS}</style></head>"
                    f"<body>\n" + "\n".join(body) + "\n</body></html>\n")
    return [path]
