"""Issue 38, what a new user trips on (second round): a test per item."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scopa_sim
from scopa_sim.cli import main
from scopa_sim.engine.records import RecordError, read_record

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "seed-003.scopa"


def cli(*args, ok=True):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert res.exit_code == 0, res.output
    return res


# ---- 1. scripts/cards_figures.sh runs twice on a fresh clone ---------------------------
def test_cards_figures_script_overwrites_its_own_figure_and_says_how_long():
    text = (ROOT / "scripts" / "cards_figures.sh").read_text()
    values = [line for line in text.splitlines() if " values " in line]
    assert values and all("--overwrite" in line for line in values)
    assert "about two minutes" not in text
    assert re.search(r"\d+ (to \d+ )?minutes", text)          # a measured duration
    for line in text.splitlines():                           # every command exists as written
        if line.startswith("$S ") and "simulate" not in line:
            words = line.split()
            assert cli(words[1], "--help").exit_code == 0


# ---- 2. a record error names the line at fault ------------------------------------------
def test_a_play_written_twice_is_named_at_its_line(tmp_path):
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if x.startswith("You: As"))
    lines.insert(at + 1, "You: As\n")                        # line at + 2, before 'Hand' lines
    f = tmp_path / "twice.scopa"
    f.write_text("".join(lines))
    with pytest.raises(RecordError) as e:
        read_record(f)
    assert str(e.value) == (f"line {at + 2}: You plays out of turn: play 4 of round 1 is "
                            f"Ada's")


# ---- 3. almanac --help names the seed it uses ------------------------------------------
def test_almanac_help_names_its_default_seed():
    from scopa_sim.study.almanac import make
    from scopa_sim.cli.almanac import DEFAULT_SEED
    import inspect
    assert inspect.signature(make).parameters["seed"].default == DEFAULT_SEED
    text = " ".join(cli("almanac", "--help").output.split())
    assert f"default {DEFAULT_SEED}" in text and "a fresh one" not in text


# ---- 6. moves read as cards ------------------------------------------------------------
def test_moves_print_as_cards_and_stay_tuples():
    rnd = scopa_sim.Round.from_position(hands=["7d 3c 5h", "Kc Qs 2d"], table="4h 3s",
                                        deck="Jd As 2s 4s 5s 6s", dealer=1)
    m = rnd.suggest("endgame")
    assert m == (6, (13, 22)) and (m.card, m.captured) == (6, (13, 22))
    assert str(m) == "7d takes 4h 3s" and repr(m) == "Move(7d takes 4h 3s)"
    assert [str(x) for x in rnd.legal_moves()] == ["7d takes 4h 3s", "5h trails", "3c takes 3s"]
    assert str(rnd.play("5h")) == "5h trails"
    assert str(scopa_sim.legal_moves("As", "")[0]) == "As trails"
    assert scopa_sim.card_name(m.card) == "7d"


# ---- 7. checking a record says it is fine ------------------------------------------------
def test_record_check_says_ok_in_one_line():
    r = cli("record", EXAMPLE)
    assert r.output == "ok: 1 round, 12 plays, final score 1–5\n"
    full = cli("record", EXAMPLE, "--format", "record").output
    assert full == read_record(EXAMPLE).record() and full.startswith("# scopa-sim game record")


def test_record_check_writes_the_standard_form_with_out(tmp_path):
    out = tmp_path / "again.scopa"
    r = cli("record", EXAMPLE, "--out", out)
    assert "ok:" not in r.stdout and out.read_text() == read_record(EXAMPLE).record()


# ---- 8. the compile apart from the rate --------------------------------------------------
def test_first_run_reports_the_compile_apart(tmp_path, monkeypatch):
    import scopa_sim.engine.compiled as K
    monkeypatch.setattr(K, "needs_compile", lambda strategies, rules: True)     # as on a cold cache
    r = cli("simulate", "--rounds", 2000, "--seed", 1, "--out", tmp_path / "a", "--quiet")
    last = r.output.strip().splitlines()[-1]
    assert re.search(r"simulated in [\d.]+ s \([\d,]+ rounds/s\); seed 1; the kernels "
                     r"compiled first, in [\d.]+ s, apart from the rate$", last), last
    r = cli("simulate", "--rounds", 2000, "--seed", 1, "--out", tmp_path / "b", "--quiet",
            "--format", "json")
    assert json.loads(r.output)["compile_seconds"] >= 0
    monkeypatch.setattr(K, "needs_compile", lambda strategies, rules: False)
    r = cli("simulate", "--rounds", 2000, "--seed", 1, "--out", tmp_path / "c", "--quiet")
    assert "compiled" not in r.output
    same = [sorted((tmp_path / x / "rounds").iterdir()) for x in "ac"]
    assert [p.read_bytes() for p in same[0]] == [p.read_bytes() for p in same[1]]


# ---- 9. setup.sh is quiet ----------------------------------------------------------------
def test_setup_filters_the_editable_install_warning():
    """The filter setup.sh gives pip's build (PYTHONWARNINGS) silences
    setuptools' editable-install warning, and only that one."""
    text = (ROOT / "scripts" / "setup.sh").read_text()
    m = re.search(r'PYTHONWARNINGS="([^"]+)"', text)
    assert m, "setup.sh sets no warning filter"
    warn = ("import warnings\n"
            "class BuildBackendWarning(UserWarning): pass\n"
            "warnings.warn('Editable installation.\\n!!\\n  Please be careful with folders',"
            " BuildBackendWarning)\n"
            "warnings.warn('another warning', UserWarning)\n")
    done = subprocess.run([sys.executable, "-c", warn], capture_output=True, text=True,
                          env={"PYTHONWARNINGS": m[1], "PATH": ""})
    assert "Editable installation" not in done.stderr and "another warning" in done.stderr


# ---- 10. read_record on a folder ----------------------------------------------------------
def test_read_record_on_a_folder_is_one_value_error(tmp_path):
    with pytest.raises(ValueError) as e:
        read_record(tmp_path)
    assert "is a folder, not a game record" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="cannot read"):
        read_record(tmp_path / "missing.scopa")


# ---- 11. a partial run says so ----------------------------------------------------------
@pytest.fixture(scope="module")
def partial_run(tmp_path_factory):
    """A run of 5 parts of which 2 are written (as when it is interrupted)."""
    from scopa_sim.runs.plan import RunSpec
    from scopa_sim.runs.store import Run
    from scopa_sim.runs.resume import simulate_part
    root = tmp_path_factory.mktemp("partial") / "run"
    spec = RunSpec.make(rounds=5000, strategies=("random", "greedy"), seed=4, batch_size=1000)
    with Run.create(root, spec) as run:
        for b in (0, 1):
            run.save(b, simulate_part(spec, run.meta, b)[0])
    return root


def test_ask_says_a_run_is_partial(partial_run):
    out = cli("ask", partial_run, "winner == 0").output
    assert "partial run: 2 of 5 parts" in " ".join(out.split())
    r = json.loads(cli("ask", partial_run, "winner == 0", "--format", "json").output)
    assert (r["partial"], r["parts"], r["parts_planned"]) == ("partial run: 2 of 5 parts", 2, 5)
    assert r["rows"] == 2000


def test_report_says_a_run_is_partial(partial_run):
    out = " ".join(cli("report", partial_run, "--quiet").output.split())
    assert "partial run: 2 of 5 parts" in out
    r = json.loads(cli("report", partial_run, "--quiet", "--format", "json").output)
    assert r["partial"] == "partial run: 2 of 5 parts"


def test_values_says_a_run_is_partial(partial_run):
    out = " ".join(cli("values", partial_run, "--quiet").output.split())
    assert "partial run: 2 of 5 parts" in out


def test_a_whole_run_says_nothing_of_parts(tmp_path):
    cli("simulate", "--rounds", 2000, "--seed", 2, "--batch-size", 1000, "--out", tmp_path / "w",
        "--quiet")
    r = json.loads(cli("ask", tmp_path / "w", "winner == 0", "--format", "json").output)
    assert "partial" not in r


# ---- 4. the README's commands, the path, the tests' duration ------------------------------
README = (ROOT / "README.md").read_text()


def test_readme_writes_scopa_sim_and_says_how_to_reach_it():
    commands = [line.strip() for line in README.splitlines()
                if re.match(r"^    (\$ )?(\.venv/bin/)?scopa-sim ", line)]
    assert len(commands) >= 10
    assert not [c for c in commands if ".venv/bin/" in c]        # one way of writing them
    assert "source .venv/bin/activate" in README
    tests = README[README.index("**Run the tests**"):README.index("bash scripts/test.sh")]
    assert re.search(r"\d+ minutes", tests)


# ---- 5. the rule texts by their names ------------------------------------------------------
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
KINDS = ("the rulebook", "the games site", "the database summary", "the worked-game page")


def _rule_texts_section(text: str) -> str:
    start = text.index("## The rule texts")
    return text[start:text.index("\n## ", start + 1)]


def test_docs_name_the_rule_texts_and_never_link_outside():
    variants = (ROOT / "docs" / "VARIANTS.md").read_text()
    table = _rule_texts_section(variants)
    for kind in KINDS:
        assert f"| {kind} |" in table
    for title in ('"Scopa Rulebook"', '"Game rules Italian Scopa"', '"Scopa rules"'):
        assert title in table
    for page in DOCS:
        text = page.read_text()
        assert "../shared" not in text and "shared/seeds" not in text, page.name
        if page.name == "VARIANTS.md":
            text = text.replace(table, "")                       # where the numbers are explained
        found = re.findall(r"\bseeds? 00[0-3]|\b00[0-3]'s\b|\b00[0-3]-00[0-3]\b", text, re.I)
        assert not found, (page.name, found)


def test_quotes_name_their_rule_text():
    from scopa_sim.analysis.almanac import CLAIMS
    from scopa_sim.study.maxims import MAXIMS
    for source in [m.source for m in MAXIMS.values()] + [c["source"] for c in CLAIMS]:
        assert source.startswith(KINDS), source
    rules = cli("rules").output
    assert not re.search(r"\bseeds? 00\d", rules)


# ---- 12. dealt against first hand -----------------------------------------------------------
def test_readme_says_what_dealt_0_is_and_asks_about_the_first_hand():
    ask = README[README.index("**Ask**"):README.index("**Price the cards**")]
    assert "'7d' in dealt_0" in ask and "'7d' in hand_0" in ask
    assert re.search(r"`dealt_0` is every card seat 0 was dealt in the round, in any deal", " ".join(ask.split()))
    assert "`hand_0` its first hand" in " ".join(ask.split())
    assert "count(taken_0 & sevens) >= 3" in ask                  # item 13's question
