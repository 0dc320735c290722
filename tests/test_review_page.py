"""The review page and chart (analysis/review_page.py) from synthetic
review tables: structure, self-containment, escaping, and write()."""
import base64
import functools
import html
import math
import re
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scopa_sim.analysis import charts, review_page

NAN = math.nan
HOSTILE = ("<script>alert(1)</script>", "\"&'$x$")


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """No kernels here: the session's warming (conftest.py) is not needed."""


COLUMNS = ["round", "play", "seat", "name", "side", "hand", "table", "played", "scopa", "level",
           "best", "cost", "cost_low", "cost_high", "win_cost", "win_cost_low", "win_cost_high",
           "value", "value_low", "value_high", "win_game", "label", "alternatives", "comment"]
COMMENT = "a <b>fine</b> take & a scopa"


def review(names=("Anna", "Bruno"), sides=2, rounds=2, plays=4, scores=True,
           reviewed=True, sides_reviewed=None) -> pd.DataFrame:
    """A synthetic review table: `rounds` rounds of `plays` plays, seats in
    turn, labels on some plays (a mistake the deep check kept), one forced
    and one not-reviewed play, a play the deep check cleared, the first play
    commented; rounds and plays counted from 1, as review counts them."""
    n = len(names)
    labels = ["", "inaccuracy", "", "mistake", "blunder", "", "", ""]
    rows = []
    for k in range(rounds):
        for p in range(plays):
            i = k * plays + p
            seat = p % n
            level = ("not reviewed" if not reviewed or i == 2 or sides_reviewed is not None
                     and seat % sides not in sides_reviewed else "forced" if i == 5
                     else "deep" if i in (3, 6) else "exact" if i % 2 else "rollouts")
            known = level != "not reviewed"
            cost = 0.0 if level == "forced" else [0.0, 0.2, 0.0, 0.5, 1.3, 0, 0, 0.1][i % 8]
            label = labels[i % 8] if level in ("exact", "rollouts", "deep") else ""
            value = 0.3 * (i % 5) - 0.6
            alts = [] if not known else [
                {"move": "7d takes 7h", "margin": value + cost, "margin_low": value + cost - 0.2,
                 "margin_high": value + cost + 0.2, "vs_best": -0.0, "vs_best_low": -0.001,
                 "vs_best_high": 0.0, **({"win_game": 0.6} if scores else {})},
                {"move": f"{names[seat]} move", "margin": value, "margin_low": value - 0.2,
                 "margin_high": value + 0.2, "vs_best": -cost, "vs_best_low": -cost - 0.1,
                 "vs_best_high": -cost + 0.1, **({"win_game": 0.5} if scores else {})}]
            rows.append({
                "round": k + 1, "play": p + 1, "seat": seat, "name": names[seat],
                "side": seat % sides,
                "hand": "7d 7h As", "table": "" if p == 3 else "2c 4h 5s Qd",
                "played": f"{names[seat]} move", "scopa": p == 3, "level": level,
                "best": "7d takes 7h" if level in ("exact", "rollouts", "deep") else "",
                "cost": cost if known else NAN,
                "cost_low": max(cost - 0.1, 0) if known else NAN,
                "cost_high": cost + 0.1 if known else NAN,
                "win_cost": cost / 10 if known and scores else NAN,
                "win_cost_low": cost / 20 if known and scores else NAN,
                "win_cost_high": cost / 5 if known and scores else NAN,
                "value": value if known else NAN, "value_low": value - 0.3 if known else NAN,
                "value_high": value + 0.3 if known else NAN,
                "win_game": 0.5 + value / 4 if known and scores else NAN,
                "label": label, "alternatives": alts, "comment": COMMENT if i == 0 else ""})
    df = pd.DataFrame(rows, columns=COLUMNS)
    df.attrs = {
        "headers": {"rules": "scopa", "seats": list(names), "first_dealer": names[-1],
                    "score": [0] * sides, "event": names[0]},
        "sides": sides,
        "rounds": [{"round": k + 1, "dealer": names[(k + n - 1) % n],
                    "deals": [{"play": 1, "hands": {m: "7d 7h As" if j == 0 else "? ? ?"
                                                    for j, m in enumerate(names)},
                               "table": "2c 4h 5s Qd"},
                              {"play": plays // 2 + 1, "hands": {m: "? ? ?" for m in names},
                               "table": ""}],
                    "points": [3 + k] * sides if scores else None,
                    "score": [3 * (k + 1)] * sides if scores else None}
                   for k in range(rounds)],
        "summary": [{"name": m, "seat": j, "decisions": plays, "mean_cost": 0.2,
                     "mean_cost_low": 0.1, "mean_cost_high": 0.3,
                     "labels": {"inaccuracy": 1, "mistake": 0, "blunder": 1},
                     "luck": NAN if j else 0.4, "luck_low": NAN if j else 0.1,
                     "luck_high": NAN if j else 0.7} for j, m in enumerate(names)],
        "thresholds": {"inaccuracy": 0.15, "mistake": 0.4, "blunder": 1.0},
        "strategy": "ismcts", "rollouts": 200, "seed": 7, "checked": True,
        "deep_strategy": "spimc:samples=40", "deep_samples": 200}
    return df


PARTS = {"scopas": [-0.4, -0.6, -0.2], "settebello": [-0.1, -0.2, 0.0],
         "cards": [0.004, -0.01, 0.02], "primiera": [0.05, 0.0, 0.1]}


def with_verdicts(df: pd.DataFrame) -> pd.DataFrame:
    """The review's verdict columns added by hand: each rated play best,
    level with another move, or worse than the best (why and parts on the
    worse ones); forced plays forced, the rest ''."""
    df = df.copy()
    rated = df["level"].isin(["exact", "rollouts", "deep"])
    cycle = np.array(["best", "level", "worse"])[np.arange(len(df)) % 3]
    df["verdict"] = np.where(rated, np.where(df["label"] != "", "worse", cycle),
                             np.where(df["level"] == "forced", "forced", ""))
    worse = df["verdict"] == "worse"
    df["versus"] = np.where(df["verdict"] == "level", "Kc takes Qd As",
                            np.where(worse, df["best"], np.where(rated, "3h trails", "")))
    df["edge"] = np.where(worse, -df["cost"], np.where(rated, 0.05, NAN))
    df["edge_low"] = np.where(worse, -df["cost_high"], np.where(rated, -0.004, NAN))
    df["edge_high"] = np.where(worse, -df["cost_low"], np.where(rated, 0.2, NAN))
    df["why"] = np.where(worse, "gives away a scopa 31% of the time (vs 4%)", "")
    df["parts"] = [PARTS if w else {} for w in worse]
    return df


CASES = {
    "2 sides, scores": lambda: review(),
    "2 sides, no scores": lambda: review(scores=False),
    "4 seats, 2 teams": lambda: review(names=("Anna", "Bruno", "Carla", "Dario"), plays=8),
    "3 sides": lambda: review(names=("Anna", "Bruno", "Carla"), sides=3, plays=6),
    "nothing reviewed": lambda: review(reviewed=False),
    "one row": lambda: review(rounds=1, plays=1),
    "no rows": lambda: review(rounds=0),
    "hostile names": lambda: review(names=HOSTILE),
    "verdicts": lambda: with_verdicts(review()),
    "verdicts, 3 sides": lambda: with_verdicts(review(names=("Anna", "Bruno", "Carla"),
                                                      sides=3, plays=6)),
}


class Collector(HTMLParser):
    """Start tags (with attributes), whether table tags balance, and each
    table's row widths (cells counted with their colspan)."""
    BALANCED = ("table", "thead", "tbody", "tr", "td", "th", "details", "summary", "section")

    def __init__(self):
        super().__init__()
        self.tags, self.stack, self.errors, self.text = [], [], [], []
        self.tables, self.widths = [], []          # open tables' row widths; closed ones'

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag in self.BALANCED:
            self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append(0)
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self.tables[-1][-1] += int(attrs.get("colspan") or 1)

    def handle_endtag(self, tag):
        if tag in self.BALANCED:
            if not self.stack or self.stack[-1] != tag:
                self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            else:
                self.stack.pop()
        if tag == "table" and self.tables:
            self.widths.append(self.tables.pop())

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag, cls=None):
        return [a for t, a in self.tags
                if t == tag and (cls is None or cls in (a.get("class") or "").split())]


def parse(text: str) -> Collector:
    c = Collector()
    c.feed(text)
    c.close()
    assert not c.errors and not c.stack, (c.errors, c.stack)
    for widths in c.widths:
        assert len(set(widths)) <= 1, widths
    return c


@functools.cache
def rendered(name: str) -> tuple[pd.DataFrame, str]:
    """A case's table and page, made once."""
    df = CASES[name]()
    return df, review_page.page(df)


@pytest.fixture(params=list(CASES))
def case(request):
    return rendered(request.param)


def test_page_structure(case):
    df, text = case
    assert text.startswith("<!DOCTYPE html>")
    c = parse(text)
    plays = c.find("tr", "play")
    assert [p["id"] for p in plays] == [f"r{r}p{p}" for r, p in zip(df["round"], df["play"])]
    for p, label in zip(plays, df["label"]):
        assert (label in p["class"].split()) if label else p["class"] == "play"
    summary = [a for a in c.find("table") if a.get("id") == "summary"]
    assert len(summary) == 1
    assert len(c.find("tr", "seat")) == len(df.attrs["summary"])
    assert len(c.find("tr", "deal")) == 2 * len(df.attrs["rounds"])
    labelled = (df["label"] != "").sum()
    assert len(c.find("details")) >= labelled
    assert len(c.find("section", "round")) == len(df.attrs["rounds"])


def test_page_is_self_contained(case):
    _, text = case
    c = parse(text)
    assert not re.search(r"https?://", text)
    assert not c.find("script") and not c.find("link")
    for _, attrs in c.tags:
        for key in ("src", "href"):
            assert not attrs.get(key) or attrs[key].startswith("data:image/png;base64,")
    (img,) = c.find("img")
    assert img["id"] == "chart" and img["alt"]
    png = base64.b64decode(img["src"].removeprefix("data:image/png;base64,"), validate=True)
    assert png.startswith(b"\x89PNG")


def test_hostile_names_only_escaped():
    _, text = rendered("hostile names")
    for name in HOSTILE:
        assert name not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&quot;&amp;&#x27;$x$" in text
    c = parse(text)
    assert not c.find("script")
    assert any(HOSTILE[0] in t for t in c.text)       # shown as text, as typed


def test_page_contents():
    _, text = rendered("2 sides, scores")
    assert "Game review: Anna vs Bruno (scopa)" in text
    assert "SCOPA" in text and "? ? ?" in text
    assert "0.50 [0.40, 0.60]" in text                 # a cost with its interval
    assert "game score: Anna 3, Bruno 3" in text
    assert "ismcts" in text and "200" in text and "blunder ≥ 1.0" in text
    assert "P(win the game)" in text
    _, text = rendered("2 sides, no scores")
    assert "<details>" in text and "P(win the game)" not in text


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG")
    return struct.unpack(">II", data[16:24])


def side_lines(fig, df) -> dict:
    """The chart's lines of the sides, by side name."""
    names = {review_page._plain(n): n for n in review_page._side_names(df)}   # as matplotlib
    return {names[line.get_label()]: line for line in fig.axes[0].get_lines()
            if line.get_label() in names and len(line.get_xdata())}


@pytest.mark.parametrize("name", ["2 sides, scores", "2 sides, no scores", "3 sides",
                                  "nothing reviewed", "no rows", "one row", "hostile names"])
def test_chart(name):
    df = CASES[name]()
    fig = review_page.chart(df)
    ax = fig.axes[0]
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    lines = side_lines(fig, df)
    if name in ("nothing reviewed", "no rows"):
        assert not lines and "no play was reviewed" in [t.get_text() for t in ax.texts]
    elif name == "one row":
        assert len(lines) == 1
    else:
        assert len(lines) == df.attrs["sides"]
    if name == "2 sides, scores":
        assert ax.get_ylim() == (0, 1)
        assert all(np.all((y >= 0) & (y <= 1)) for y in (l.get_ydata() for l in lines.values()))
        assert {"inaccuracy", "mistake", "blunder"} <= {t.get_text() for t in
                                                          ax.get_legend().get_texts()}
    charts.plt.close(fig)


@pytest.mark.parametrize("scores", [True, False])
def test_the_chart_shows_the_reviewed_seats_chances(scores):
    """One seat reviewed: its chances alone, at its plays, as it saw them
    (not the first seat's, not flipped); both: each side's at its own plays."""
    col = "win_game" if scores else "value"
    df = review(scores=scores, sides_reviewed={1})
    fig = review_page.chart(df)
    (name, line), = side_lines(fig, df).items()
    mine = df[(df["side"] == 1) & df["level"].isin(["exact", "rollouts", "deep", "forced"])]
    assert name == "Bruno" and "Bruno" in fig.axes[0].get_ylabel()
    assert list(line.get_ydata()) == pytest.approx(list(mine[col]))
    assert list(line.get_xdata()) == [df.index.get_loc(i) + 1 for i in mine.index]
    assert "for Bruno" in review_page.page(df)           # the alt text says whose
    charts.plt.close(fig)
    df = review(scores=scores)
    fig = review_page.chart(df)
    lines = side_lines(fig, df)
    assert sorted(lines) == ["Anna", "Bruno"]
    for side, name in enumerate(("Anna", "Bruno")):
        own = df[(df["side"] == side) & df["level"].isin(["exact", "rollouts", "deep", "forced"])]
        assert list(lines[name].get_ydata()) == pytest.approx(list(own[col]))
    charts.plt.close(fig)


def test_the_chart_numbers_plays_within_their_round():
    df = review(rounds=2, plays=4)
    fig = review_page.chart(df)
    ax = fig.axes[0]
    fig.canvas.draw()
    shown = {int(t.get_position()[0]): t.get_text() for t in ax.get_xticklabels()
             if t.get_text()}
    assert shown and all(text == str(df["play"].iloc[x - 1]) for x, text in shown.items())
    assert {"round 1", "round 2"} <= {t.get_text() for t in ax.texts}
    charts.plt.close(fig)


NEGATIVE_ZERO = re.compile(r"[-−]0\.0+(?![0-9])")


@pytest.mark.parametrize("name", ["2 sides, scores", "verdicts", "verdicts, 3 sides"])
def test_page_as_a_player_reads_it(name):
    df, text = rendered(name)
    c = parse(text)
    assert not NEGATIVE_ZERO.search(text)
    # cards with suit symbols, the red suits red; no card written 7d in a cell
    assert "<span class='red'>7♦</span> <span class='red'>7♥</span> A♠" in text
    cells = [re.sub("<[^>]+>", "", cell)
             for cell in re.findall(r"<td class='cards[^']*'>(.*?)</td>", text)]
    assert len(cells) >= 3 * len(df)
    assert not any(re.search(r"\b(10|[2-7AJQK])[dhsc]\b", cell) for cell in cells), cells
    # the comment beside its play, escaped
    first = text[text.index("id='r1p1'"):]
    assert html.escape(COMMENT, quote=True) in first[:first.index("</tr>")]
    assert COMMENT not in text
    # the legend says what a * is; no * stands alone
    assert "the label stands after the deep check (spimc:samples=40 on 200 deals)" in text
    assert "mistake *" in text
    assert not re.search(r">\s*\*\s*<", text.replace("<span class='badge mark'>*</span>", ""))


def test_a_play_equal_to_the_best_says_best():
    """Played another move than the best, at a cost of exactly 0 (as good):
    "best, equal to" it, not the other move as if it were a correction."""
    df = review(rounds=1, plays=2)
    df.loc[0, "cost_high"] = 0.0                     # 0 [0, 0]: as good on every deal
    text = review_page.page(df)
    row = text[text.index("id='r1p1'"):]
    row = row[:row.index("</tr>")]
    assert ">best</span>, equal to <span class='red'>7♦</span> takes" in row
    assert "0.00</td>" in row


def test_page_verdicts_why_and_parts():
    df, text = rendered("verdicts")
    rows = {f"r{r.round}p{r.play}": r for r in df.itertuples()}
    for key, r in rows.items():
        row = text[text.index(f"id='{key}'"):]
        row = row[:row.index("</tr>")]
        if r.verdict == "worse":
            word = f"{r.label} *" if r.label and r.level == "deep" else r.label or "worse"
            assert f">{word}</span>, best " in row and r.why in row
            parts = re.findall(r"<li title='[^']*'><span class='part'>(\w+)</span>", row)
            assert parts == ["scopas", "settebello", "primiera"]     # largest first; 0.00 left out
            assert "style='width:50%'></span></span>−0.40</li>" in row
            assert "title='scopas: −0.40 [−0.60, −0.20] (95%)'" in row
        elif r.verdict == "level":
            assert ">level</span> with K♣ takes <span class='red'>Q♦</span> A♠ " \
                   "(+0.05 [+0.00, +0.20])" in row
        elif r.verdict == "best":
            assert ">best</span>, +0.05 [+0.00, +0.20] over <span class='red'>3♥</span> trails" in row
            assert "class='parts'" not in row
        elif r.verdict == "forced":
            assert ">forced</span>" in row
        else:
            assert ">not reviewed</span>" in row


def test_verdicts_from_a_review_without_them():
    """Without the verdict columns a play's verdict comes from its cost and
    its alternatives: worse when separated below the best, best when
    separated above the next move, level otherwise."""
    alts = [{"move": "a", "vs_best": 0.0, "vs_best_low": 0.0, "vs_best_high": 0.0},
            {"move": "b", "vs_best": -0.3, "vs_best_low": -0.5, "vs_best_high": -0.1}]
    row = {"level": "rollouts", "played": "a", "best": "a", "cost": 0.0, "cost_low": 0.0,
           "cost_high": 0.0, "label": "", "alternatives": alts}
    j = review_page.judged(row)
    assert (j["verdict"], j["versus"], j["edge"], j["edge_low"], j["edge_high"]) == \
        ("best", "b", 0.3, 0.1, 0.5)
    alts[1].update(vs_best_high=0.05)
    assert review_page.judged(row)["verdict"] == "level"
    row.update(played="b", cost=0.3, cost_low=0.1, cost_high=0.5)
    j = review_page.judged(row)
    assert (j["verdict"], j["versus"], j["edge_low"]) == ("worse", "a", -0.5)
    assert review_page.verdict_words(row, j) == ("worse", ", best a")
    row.update(level="deep", label="mistake")
    assert review_page.verdict_words(row, review_page.judged(row)) == ("mistake *", ", best a")
    row.update(cost_low=-0.1, label="")
    assert review_page.verdict_words(row, review_page.judged(row)) == (
        "level", " with a (−0.30 [−0.50, +0.10])")
    assert review_page.judged({**row, "level": "forced"})["verdict"] == "forced"
    assert review_page.judged({**row, "level": "not reviewed"})["verdict"] == ""


def test_numbers_never_read_minus_zero():
    assert review_page.number(-0.0001) == "0.00" and review_page.number(-0.0, "+.2f") == "+0.00"
    assert review_page.number(-0.25) == "−0.25"
    assert review_page.interval(0.2, -0.001, 0.4) == "0.20 [0.00, 0.40]"
    assert review_page.interval(0.2, 0.2, 0.2) == review_page.interval(0.2) == "0.20"
    assert review_page.interval(NAN, 0, 1) == "—"
    assert review_page.with_suits("10s takes 7d As, Kc") == "10♠ takes 7♦ A♠, K♣"


def test_write(tmp_path):
    df = review()
    png = review_page.write(df, tmp_path / "r.png")
    assert png_size(png.read_bytes()) == (int(charts.SIZE[0] * charts.DPI),
                                          int(charts.SIZE[1] * charts.DPI))
    page = review_page.write(df, tmp_path / "sub" / "r.HTML")
    parse(page.read_text(encoding="utf-8"))
    assert review_page.write(df, tmp_path / "r.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match=r"exists: choose another --out, or pass --overwrite$"):
        review_page.write(df, png)
    review_page.write(df, page, overwrite=True)
    with pytest.raises(ValueError, match=r"\.html.*\.png") as e:
        review_page.write(df, tmp_path / "r.txt")
    assert "\n" not in str(e.value)
    (tmp_path / "d.html").mkdir()
    with pytest.raises(ValueError, match="folder"):
        review_page.write(df, tmp_path / "d.html", overwrite=True)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["d.html", "r.HTML", "r.png", "r.svg",
                                                            "sub"]


def test_write_interrupted_leaves_nothing(tmp_path, monkeypatch):
    """Ctrl-C while the file is written: no partial or temporary file stays,
    and a file being overwritten keeps its old content."""
    old = review_page.write(review(), tmp_path / "old.png").read_bytes()

    def half(fig, path):
        charts.plt.close(fig)
        path.write_bytes(b"\x89PNG half")
        raise KeyboardInterrupt
    monkeypatch.setattr(charts, "save", half)
    for name in ("new.png", "old.png"):
        with pytest.raises(KeyboardInterrupt):
            review_page.write(review(), tmp_path / name, overwrite=True)
    assert [p.name for p in tmp_path.iterdir()] == ["old.png"]
    assert (tmp_path / "old.png").read_bytes() == old


SCREENSHOT = Path(__file__).resolve().parent.parent / "benchmarks" / "page_screenshot.py"


def screenshot(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCREENSHOT), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs /usr/bin/chromium")
def test_the_page_screenshot(tmp_path):
    page = review_page.write(review(), tmp_path / "r.html")
    out = tmp_path / "shot.png"
    run = screenshot(page, "--out", out, "--width", 1000, "--height", 700)
    assert run.returncode == 0, run.stderr
    assert png_size(out.read_bytes()) == (1000, 700)
    (tmp_path / "not.html").write_text("<!DOCTYPE html><p>not a review</p>")
    run = screenshot(tmp_path / "not.html", "--out", tmp_path / "no.png")
    assert run.returncode == 1 and "did not load as a review page" in run.stderr


def test_the_page_screenshot_without_chromium(tmp_path):
    run = screenshot("--chromium", tmp_path / "chromium", "--out", tmp_path / "shot.png")
    assert run.returncode == 1 and run.stderr.strip().splitlines() == [
        f"no Chromium at {tmp_path / 'chromium'}: install it (apt-get install -y chromium) or "
        f"name it with --chromium PATH"]
    assert not (tmp_path / "shot.png").exists()
