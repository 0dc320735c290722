"""The defaults the docs name are the registry's (kernels/registry.py BUILTINS, and
advise's strategy): issue 28 found docs/ANALYSIS.md calling heuristic pimc's
rollout default while the README and `scopa-sim strategies` said counter.

Every claim of these forms in README.md and docs/*.md is checked:

- a parameter and its default, "`rollout` strategy (default `counter`)",
  "`deals` (8)", "`infer` (0..1, default 0.5)", for the strategy named last
  before it in the same paragraph or table row (or, with none named, for
  any strategy with that parameter);
- "`pimc`, `ismcts` and `spimc` roll out with `counter`", "`X` is the default
  (as for `pimc`)", "`pimc`'s own rollouts default to `counter`": the
  rollout default of each strategy named;
- "`--strategy` (default `heuristic`", "`heuristic` is `advise`'s default":
  advise's strategy.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from scopa_sim.study.advise import DEFAULT_STRATEGY
from scopa_sim.cli import main
from scopa_sim.kernels import registry

ROOT = Path(__file__).parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BUILTINS = {b.name: b for b in registry.BUILTINS}
NAMED = re.compile(r"`(\w+)`|\*\*(\w+)\*\*")
PARAM = re.compile(r"`(?P<param>[a-z_]+)`(?: strategy)? \((?:default |0\.\.1, default )?"
                   r"`?(?P<value>[\w.]+)`?[;:),]")
ROLL_OUT = re.compile(r"roll out with `(?P<value>\w+)`")
AS_FOR = re.compile(r"`(?P<value>\w+)` is the default \(as for `(?P<name>\w+)`\)")
ROLLOUTS_DEFAULT = re.compile(r"`(?P<name>\w+)`'s (?:own )?rollouts? defaults? (?:is |to )"
                              r"`(?P<value>\w+)`")
ADVISE = re.compile(r"`--strategy` \(default `(?P<value>\w+)`|`(?P<v>\w+)` is `advise`'s default")


def written(param: registry.Param) -> str:
    """A default as the docs write it: a strategy by name, a number plainly."""
    if param.kind == "strategy":
        return registry.NAMES[int(param.default)]
    if param.kind == "choice":
        return param.choices[int(param.default)]
    return f"{param.default:g}"


def defaults(name: str) -> dict[str, str]:
    return {p.name: written(p) for p in BUILTINS[name].params}


def blocks(text: str) -> list[str]:
    """Paragraphs, each table row apart."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        if para.lstrip().startswith("|"):
            out += para.splitlines()
        else:
            out.append(" ".join(para.split()))
    return out


def claims(text: str):
    """(what, claimed, true) for every claim in `text`."""
    for block in blocks(text):
        for m in PARAM.finditer(block):
            param, value = m["param"], m["value"]
            having = [n for n in BUILTINS if param in defaults(n)]
            if not having:
                continue                              # not a strategy parameter
            before = [a or b for a, b in NAMED.findall(block[:m.start()]) if (a or b) in having]
            names = before[-1:] or having
            true = sorted({defaults(n)[param] for n in names})
            number = re.fullmatch(r"[\d.]+", value)
            ok = (f"{float(value):g}" if number else value) in true
            yield f"{m[0]!r} (of {', '.join(names)})", value, true if not ok else [value]
        for m in ROLL_OUT.finditer(block):
            sentence = re.split(r"\.\s", block[:m.start()])[-1]
            for name in {a for a, _ in NAMED.findall(sentence) if a in BUILTINS}:
                yield f"{m[0]!r} ({name})", m["value"], [defaults(name)["rollout"]]
        for pattern in (AS_FOR, ROLLOUTS_DEFAULT):
            for m in pattern.finditer(block):
                yield f"{m[0]!r}", m["value"], [defaults(m["name"])["rollout"]]
        for m in ADVISE.finditer(block):
            yield f"{m[0]!r} (advise)", m["value"] or m["v"], [DEFAULT_STRATEGY]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_the_defaults_the_docs_name_are_the_registrys(doc):
    wrong = [f"{what}: the default is {' or '.join(true)}, not {claimed}"
             for what, claimed, true in claims(doc.read_text()) if claimed not in true]
    assert not wrong, f"{doc.name}:\n" + "\n".join(wrong)


def test_the_checks_find_the_claims_and_catch_a_wrong_one():
    """The README's claims are found (so a check that matches nothing cannot
    pass unseen), and the issue's contradiction is caught."""
    found = list(claims((ROOT / "README.md").read_text()))
    assert len(found) >= 12
    assert {"counter", "reply", "net"} <= {claimed for _, claimed, _ in found}
    issue = ("Heuristic, counter and greedy are equal within the intervals; `heuristic` is "
             "the default (as for `pimc`).\n\n| `pimc` | the `rollout` strategy (default "
             "`heuristic`) |\n\n`pimc` and `spimc` roll out with `heuristic`.")
    assert [claimed == "heuristic" and true == ["counter"]
            for _, claimed, true in claims(issue)] == [True, True, True, True]


def test_the_strategies_listing_shows_the_registrys_defaults():
    out = " ".join(CliRunner().invoke(main, ["strategies"]).output.split())
    for name in ("pimc", "ismcts", "spimc"):
        assert f"rollout={defaults(name)['rollout']}" in out
    assert f"fallback={defaults('endgame')['fallback']}" in out
