"""The almanac (`scopa_sim.study.almanac` runs it, `scopa_sim.analysis.almanac`
and `almanac_page` read and write it, `scopa-sim almanac`): a small almanac
has every section, its charts, an interval and n on its numbers, and
resumes to the same document; its per-round figures under random play
agree with the slow reference engine (tests/reference/engine.py)."""
from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pytest

from scopa_sim.analysis import almanac as numbers
from scopa_sim.engine.rules import Rules
from scopa_sim.engine.strategies import parse_strategy
from scopa_sim.study import almanac
from scopa_sim.study.almanac import PRESETS, Sizes
from scopa_sim.study.maxims import strategies as maxim_strategies

try:
    from tests.reference import engine as ref
except ImportError:                     # pytest run from tests/
    from reference import engine as ref

TINY = Sizes(rounds={p: 2_000 for p in PRESETS}, games={p: 100 for p in PRESETS},
             skill={"spimc-endgame": (4, 2), "endgame-greedy": (500, 50),
                    "greedy-random": (500, 50)},
             skill_presets={k: ("scopa",) for k in ("spimc-endgame", "endgame-greedy",
                                                    "greedy-random")},
             maxim_deals=500, maxim_sample=3, bootstrap=20, review_rollouts=500)
SECTIONS = ("## The edge", "## Points", "## Cards", "## Odds", "## Skill against luck",
            "## The advice of the rule texts", "## Claims of the rule texts",
            "## The worked-game page's commented plays")
INTERVAL = r"[+-]?\d+\.\d+ \[[+-]?\d+\.\d+, [+-]?\d+\.\d+\]"
Z999 = 3.2905                           # two-sided 99.9%


def _section(doc: str, heading: str) -> str:
    start = doc.index(heading)
    end = doc.find("\n## ", start + 1)
    return doc[start:end if end >= 0 else len(doc)]


@pytest.mark.slow                  # a whole (small) almanac
def test_small_almanac_sections_charts_intervals_and_resume(tmp_path):
    out = tmp_path / "alm"
    path = almanac.make(out, quick=True, seed=5, workers=2, sizes=TINY, strategy="endgame")
    doc = path.read_text()
    for heading in SECTIONS:
        assert heading in doc, heading
    for preset in PRESETS:
        assert f"### {preset}" in doc
    charts = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", doc)
    assert {"almanac-edge.png", "almanac-skill.png", "almanac-advice.png",
            "almanac-values-scopa.png", "almanac-odds-scopa.png",
            "almanac-points-scopa.png"} <= set(charts)
    for name in charts:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    # every estimate with an interval carries its n, in the sections of rates and means
    for heading in ("## The edge", "## Points", "## Skill against luck",
                    "## The advice of the rule texts", "## Claims of the rule texts"):
        text = _section(doc, heading)
        found = re.findall(INTERVAL + r"( \((?:n|k) = [\d,]+)?", text)
        assert found, heading
        assert all(n for n in found), f"an interval without n in {heading}"
    assert re.search(r"dealer's margin per round", doc)
    assert re.search(r"\| scopa \| " + INTERVAL + r" \(n = 2,000\)", doc)
    assert "(n = 100) |" in _section(doc, "## The edge")           # P(first dealer wins game)
    assert re.search(r"95% interval \(20 resamplings of n = 2,000 rounds\)", doc)
    assert re.search(r"Holding all four Sevens .* the database summary's strategy notes", doc)
    assert doc.count("*How it was made:*") >= 10
    assert "seed 5" in doc and "scopa-sim " in doc
    review = _section(doc, "## The worked-game page's commented plays")
    assert review.count("\n| You |") == 4 and review.count("\n| Ada |") == 2
    assert "not found" not in review
    # a second run reuses every run and part and writes the same document
    runs = sorted((out / "runs").iterdir())
    assert len(runs) == 2 * len(PRESETS)
    kept = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*") if p.is_file()}
    kept.update({p: p.stat().st_mtime_ns for p in (out / "parts").iterdir()})
    again = almanac.make(out, quick=True, seed=5, workers=2, sizes=TINY, strategy="endgame")
    assert again.read_bytes() == doc.encode()
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    # under another strategy: its own main runs, endgame's beside where they differ
    other = almanac.make(out, quick=True, seed=5, workers=2, sizes=TINY,
                         strategy="random").read_text()
    assert "`scopa-sim almanac --quick --strategy random --seed 5`" in other
    changes = _section(other, "## What changed from `endgame`'s almanac")
    changed, compared = (int(x.replace(",", "")) for x in
                         re.search(r"([\d,]+) of ([\d,]+) figures differ", changes).groups())
    assert 0 < changed < compared
    assert re.search(r"scopa " + INTERVAL + r" \(n = 500\)", changes)   # random vs endgame
    assert other.count("<br>*endgame:* ") > 10      # random play changes most figures
    edge = _section(other, "## The edge")
    assert "every seat plays `random`" in edge and "every seat `endgame`" in edge
    assert all(f"random-{p}-r2000-s5" in edge and f"endgame-{p}-r2000-s5" in edge
               for p in PRESETS)


def test_an_interrupted_run_is_resumed(tmp_path):
    """A run cut short (a part file missing, the manifest unfinished) is
    finished by the almanac, not made again."""
    import json
    run = almanac.main_run(tmp_path, "scopa", 120_000, seed=3, workers=1)
    parts = sorted((run.root / "rounds").iterdir())
    assert len(parts) == 3
    parts[-1].unlink()
    manifest = json.loads((run.root / "manifest.json").read_text())
    name = parts[-1].name
    manifest["finished"] = False
    manifest["part_sha256"] = {k: v for k, v in manifest.get("part_sha256", {}).items()
                               if name not in k}
    (run.root / "manifest.json").write_text(json.dumps(manifest))
    first = parts[0].stat().st_mtime_ns
    again = almanac.main_run(tmp_path, "scopa", 120_000, seed=3, workers=1)
    assert again.n_missing == 0 and parts[-1].is_file()
    assert parts[0].stat().st_mtime_ns == first


def _close(a: float, se_a: float, b: float, se_b: float, what: str) -> None:
    assert abs(a - b) <= Z999 * math.hypot(se_a, se_b), f"{what}: {a} vs {b}"


def _se(d: dict) -> float:
    if "sd" in d:
        return d["sd"] / math.sqrt(d["n"])
    p = d["rate"]
    return math.sqrt(max(p * (1 - p), 1e-12) / d["n"])


def test_random_play_figures_agree_with_the_reference(tmp_path):
    """Under random play for both sides, the almanac's per-round scopa
    figures (the dealer's edge, category rates, scopas per round) agree
    with the slow reference engine's on other seeds, within 99.9%."""
    from scopa_sim.engine.rules import Rules
    n = 10_000
    run = almanac.main_run(tmp_path, "scopa", n, seed=11, strategy="random", workers=2)
    edge, pts = numbers.edge(run, None, bootstrap=2), numbers.points(run)
    recs = ref.simulate(rounds=n, strategies=("random", "random"), rules=Rules.resolve("scopa"),
                        seed=12345)
    dealer = np.array([r["dealer"] for r in recs])
    col = {k: np.array([r[k] for r in recs]) for k in recs[0] if k != "round"}
    d_side, l_side = dealer % 2, (dealer + 1) % 2

    def by(side, name):
        return np.where(side == 0, col[f"{name}_0"], col[f"{name}_1"])
    margin = by(d_side, "points") - by(l_side, "points")
    m = edge["dealer"]["margin"]
    _close(m["mean"], _se(m), margin.mean(), margin.std(ddof=1) / math.sqrt(n), "dealer margin")
    for key, wins in (("dealer_win", by(d_side, "points") > by(l_side, "points")),
                      ("leader_win", by(l_side, "points") > by(d_side, "points"))):
        p = wins.mean()
        _close(edge["dealer"][key]["rate"], _se(edge["dealer"][key]), p,
               math.sqrt(p * (1 - p) / n), key)
    assert pts["roles"] == ["first player", "dealer"]
    for c in pts["categories"]:
        name = c["category"]
        for k, side in enumerate((l_side, d_side)):
            p = (by(side, name) > 0).mean()
            _close(c["won"][k]["rate"], _se(c["won"][k]), p, math.sqrt(p * (1 - p) / n),
                   f"{name} won by {pts['roles'][k]}")
        p = ((col[f"{name}_0"] == 0) & (col[f"{name}_1"] == 0)).mean()
        _close(c["tied"]["rate"], _se(c["tied"]), p, math.sqrt(p * (1 - p) / n), f"{name} tied")
    total = col["scopas_0"] + col["scopas_1"]
    s = pts["scopas_total"]
    _close(s["mean"], _se(s), total.mean(), total.std(ddof=1) / math.sqrt(n), "scopas per round")
    for k, side in enumerate((l_side, d_side)):
        x = by(side, "scopas")
        _close(pts["scopas"][k]["mean"], _se(pts["scopas"][k]), x.mean(),
               x.std(ddof=1) / math.sqrt(n), f"scopas of the {pts['roles'][k]}")


def test_command_line(tmp_path):
    from click.testing import CliRunner

    from scopa_sim.cli import main
    from scopa_sim.cli.almanac import DEFAULT_SEED
    assert inspect.signature(almanac.make).parameters["seed"].default == DEFAULT_SEED
    r = CliRunner().invoke(main, ["almanac", "--help"])
    assert r.exit_code == 0 and "--quick" in r.output and "--scheduler" in r.output
    run = almanac.main_run(tmp_path, "scopa", 100, seed=1, workers=1)
    r = CliRunner().invoke(main, ["almanac", "--out", str(run.root / "alm"), "--quick", "-q"])
    assert r.exit_code == 2 and "inside the scopa-sim run" in r.output
    assert not (run.root / "alm").exists()


def test_beside_shows_the_other_figure_only_where_the_intervals_part():
    from scopa_sim.analysis.almanac_page import Beside, mean, rate
    beside = Beside("endgame")
    a = {"mean": 0.25, "low": 0.23, "high": 0.27, "n": 100}
    touching = {"mean": 0.21, "low": 0.19, "high": 0.23, "n": 100}
    apart = {"rate": 0.10, "low": 0.08, "high": 0.12, "n": 100}
    assert beside(mean, a, touching, "touching") == mean(a)
    assert beside(mean, a, None, "absent") == mean(a)
    shown = beside(rate, dict(a, rate=0.25), apart, "apart", 2)
    assert shown == f"{rate(dict(a, rate=0.25), 2)}<br>*endgame:* {rate(apart, 2)}"
    assert beside.compared == 2 and beside.changed == [("apart", 0.25, 0.10)]
    alone = Beside(None)
    assert alone(mean, a, apart, "x") == mean(a) and alone.compared == 0


def test_a_part_made_by_another_network_or_play_is_made_again(tmp_path):
    """A part's params hold the sha256 of the networks and files its
    strategies play (and their play's revisions), so one kept from an earlier
    network or play is not read back."""
    (w,) = parse_strategy("net").nets(Rules.resolve("scopa-4"))
    assert almanac.plays(("net", "endgame"), "scopa-4") == {"nets": {"shipped": w.sha256},
                                                             "files": {}, "revisions": {"net": 1}}
    assert "revisions" not in almanac.plays(("net", "endgame"))     # 2 seats: played as ever
    assert almanac.plays(("net",)) != almanac.plays(("net",), "scopa-4")
    on = almanac.plays(maxim_strategies("single"))["files"]
    assert len(on) == 1 and all(len(sha) == 64 for sha in on.values())
    made = []

    def make(value):
        return lambda: made.append(value) or {"value": value}
    first = {"a": "net", "plays": almanac.plays(("net",), "scopa-4")}
    assert almanac.part(tmp_path, "p", first, make(1)) == {"value": 1}
    assert almanac.part(tmp_path, "p", first, make(2)) == {"value": 1}
    other = {**first, "plays": almanac.plays(("net:weights=scopa-4-v1",), "scopa-4")}
    assert almanac.part(tmp_path, "p", other, make(3)) == {"value": 3} and made == [1, 3]
