"""A run is data: runs received from someone else, hostile or damaged.

Reading a run (report, ask, plot, the Python API) never runs code its
manifest names; resume runs a strategy's code only from a file the user
names, after its sha256 is the run's; every part is checked against the
sha256 recorded when it was written, and its columns and values against the
spec, so a changed or malformed part is one `error:` line (exit 2) naming
the part and the repair; an `--out` that would replace a file or write
inside a run is refused before anything is read or computed.

Tables name the case, what is done to the run, and the words the error
holds. No test depends on a simulated number: runs are compared with
themselves (bytes, row counts) and with the same run read another way.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from scopa_sim.analysis.query import ask
from scopa_sim.analysis.runstats import run_stats
from scopa_sim.runs.parts import _labels, labels_of, encode
from scopa_sim.runs.plan import StoredSpec
from scopa_sim.runs.store import MANIFEST, Run, StoreError, StoreWarning
from hostile import RUN, assert_error, cli, column, rehash, rewrite_part, tree

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "greedy_jit.py"


# ---- helpers ----------------------------------------------------------------------
def parts(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(Path(root).glob("*/part-*.parquet"))}


def manifest(root: Path) -> dict:
    return json.loads((root / MANIFEST).read_text())


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def forge(root: Path, **changes) -> None:
    """Edit a run's manifest and rewrite every part to agree with it (spec in
    the metadata, strategy labels, sha256 recorded): a whole, consistent
    run whose manifest says what the forger wants."""
    m = {**manifest(root), **changes}
    stored = StoredSpec.from_dict(m)
    meta = json.dumps(stored.as_dict(), sort_keys=True).encode()
    labels = labels_of(stored)
    for path in sorted(root.glob("*/part-*.parquet")):
        table = pq.read_table(path)
        for name in set(table.column_names) & set(labels):
            i = table.schema.get_field_index(name)
            table = table.set_column(i, name, _labels(labels[name], table.num_rows))
        path.write_bytes(encode(table, meta))
        if "part_sha256" in m:
            m["part_sha256"][path.relative_to(root).as_posix()] = sha(path.read_bytes())
    (root / MANIFEST).write_text(json.dumps(m))


READERS = {
    "report": lambda root: ("report", root, "--quiet", "--format", "json"),
    "ask": lambda root: ("ask", root, "winner == dealer_side", "--format", "json"),
    "plot": lambda root: ("plot", root, "--out", root.parent / "chart.png", "--format", "json"),
}


# ---- reading a run never runs its code ----------------------------------------------
PAYLOAD = """\
import pathlib
pathlib.Path({sentinel!r}).write_text("ran")
print("PAYLOAD RAN")


def f(obs, moves):
    return 0
"""


@pytest.fixture
def payloads(tmp_path, monkeypatch):
    """Payload files that write a sentinel and print when run: one shipped in
    the run folder (gift/payload.py, see `ship_payload`) and an importable
    package whose __init__ and module both are payloads."""
    sentinel = tmp_path / "SENTINEL"
    code = PAYLOAD.format(sentinel=str(sentinel))
    mods = tmp_path / "mods"
    (mods / "payloadpkg").mkdir(parents=True)
    for path in (mods / "payloadpkg" / "__init__.py", mods / "payloadpkg" / "mod.py"):
        path.write_text(code)
    monkeypatch.syspath_prepend(str(mods))
    yield sentinel, code, mods
    for name in ("payloadpkg", "payloadpkg.mod"):
        sys.modules.pop(name, None)


def ship_payload(run: Path, code: str) -> Path:
    (run / "gift").mkdir()
    (run / "gift" / "payload.py").write_text(code)
    return run / "gift" / "payload.py"


def named(run: Path, kind: str, code: str) -> tuple[str, dict]:
    """A strategy text of the given kind naming a payload, with its sources entry
    (the payload's true sha256: the forger knows it)."""
    payload = ship_payload(run, code)
    text = {"relative file in the run": "gift/payload.py:f",
            "absolute file in the run": f"{payload}:f",
            "module": "payloadpkg.mod:f"}[kind]
    reference = f"{payload}:f" if "file" in kind else text
    return text, {text: {"reference": reference, "sha256": sha(code.encode())}}


KINDS = ["relative file in the run", "absolute file in the run", "module"]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", KINDS)
def test_reading_a_run_never_runs_the_code_its_manifest_names(run, payloads, monkeypatch,
                                                              reader, kind):
    sentinel, code, _ = payloads
    text, sources = named(run, kind, code)
    rollout = f"pimc:rollout={text}"               # a user rollout of a built-in, too
    forge(run, strategies=[text, rollout], sources=sources)
    monkeypatch.chdir(run)                          # where gift/payload.py resolves
    result = cli(*READERS[reader](run))
    assert result.exit_code == 0, result.stderr
    assert not sentinel.exists() and "PAYLOAD" not in result.stdout + result.stderr
    assert "payloadpkg" not in sys.modules
    if reader != "plot":                            # the labels are shown as stored
        assert json.loads(result.stdout).get("strategies", [text, rollout]) == [text, rollout]


def test_the_python_api_reads_a_run_without_running_its_code(run, payloads):
    sentinel, code, _ = payloads
    text, sources = named(run, "absolute file in the run", code)
    forge(run, strategies=[text, "greedy"], sources=sources)
    r = Run.open(run)
    assert r.spec.strategies == (text, "greedy") and r.stored.sources[0].text == text
    assert run_stats(r, bootstrap=0)["strategies"] == [text, "greedy"]
    assert ask(r, "strategy_0 == 'greedy'")["k"] == 0
    assert set(r.read()["strategy_0"].astype(str)) == {text}
    assert not sentinel.exists()


def test_a_colleagues_run_reads_without_their_strategy_file(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text(EXAMPLE.read_text())
    root = tmp_path / "run"
    assert cli("simulate", "--out", root, "--quiet", *RUN, "--strategies",
               f"{mine}:greedy,counter").exit_code == 0
    before = cli("ask", root, "winner == 0", "--format", "json").stdout
    mine.unlink()                                   # the run travels; the file does not
    for reader in READERS.values():
        assert cli(*reader(root)).exit_code == 0
    assert cli("ask", root, "winner == 0", "--format", "json").stdout == before
    assert_error(cli("simulate", "--resume", root, "--quiet"), "--strategy-file",
                 f"{mine}:greedy")


# ---- resume: the user's file, its sha256 checked before any of it runs ----------------
def benign_sha() -> str:
    return sha(b"def f(obs, moves):\n    return 0\n")


RESUMES = {     # (kind, sha256 recorded, --strategy-file value, words of the error)
    "not confirmed": ("absolute file in the run", None, None, ["--strategy-file", "trust"]),
    "other bytes": ("absolute file in the run", benign_sha(), "{payload}",
                    ["not the file the run played", "nothing of it was run"]),
    "relative, other bytes": ("relative file in the run", benign_sha(), "gift/payload.py",
                              ["not the file the run played"]),
    "no sha256 recorded": ("absolute file in the run", "none", "{payload}",
                           ["records no sha256"]),
    "a module": ("module", None, None, ["module strategy payloadpkg.mod:f", "PATH.py:NAME"]),
    "a module, its file named": ("module", None, "{mods}/payloadpkg/mod.py",
                                 ["module strategy", "no sha256 covers"]),
    "a file that is not there": ("absolute file in the run", None, "{mods}/none.py",
                                 ["no file"]),
}


@pytest.mark.parametrize("case", RESUMES)
def test_resume_refuses_before_any_code_runs(run, payloads, monkeypatch, case):
    sentinel, code, mods = payloads
    kind, recorded, given, needles = RESUMES[case]
    text, sources = named(run, kind, code)
    if recorded is not None:
        sources[text]["sha256"] = None if recorded == "none" else recorded
    forge(run, strategies=[text, "greedy"], sources=sources, finished=False)
    monkeypatch.chdir(run)
    before = tree(run)
    flags = () if given is None else (
        "--strategy-file", f"{text}=" + given.format(payload=run / "gift" / "payload.py",
                                                     mods=mods))
    assert_error(cli("simulate", "--resume", run, "--quiet", *flags), *needles)
    assert not sentinel.exists() and "payloadpkg" not in sys.modules
    assert tree(run) == before


def test_resume_refuses_a_strategy_the_sources_do_not_record(run, payloads):
    """A label naming a file that `sources` does not list is never loaded."""
    sentinel, code, _ = payloads
    payload = ship_payload(run, code)
    forge(run, strategies=[f"{payload}:f", "greedy"], finished=False)
    assert cli("report", run, "--quiet").exit_code == 0          # reading: only a label
    assert_error(cli("simulate", "--resume", run, "--quiet"), "do not record")
    assert_error(cli("simulate", "--resume", run, "--quiet", "--strategy-file",
                     f"{payload}:f={payload}"), "--strategy-file", "TEXT=PATH")
    assert not sentinel.exists()


def test_resume_runs_the_named_file_once_its_sha256_matches(tmp_path):
    """The file moved since the run began: named with --strategy-file, it
    finishes the run, and the parts equal an uninterrupted run's (their
    metadata keeps the path the run recorded)."""
    mine = tmp_path / "mine.py"
    mine.write_text(EXAMPLE.read_text())
    args = ("--quiet", *RUN, "--strategies", f"{mine}:greedy,counter")
    assert cli("simulate", "--out", tmp_path / "whole", *args).exit_code == 0
    assert cli("simulate", "--out", tmp_path / "cut", *args).exit_code == 0
    cut = tmp_path / "cut"
    for b in (1, 3):
        (cut / "rounds" / f"part-{b:06d}.parquet").unlink()
    (cut / MANIFEST).write_text(json.dumps({**manifest(cut), "finished": False}))
    moved = tmp_path / "elsewhere" / "mine.py"
    moved.parent.mkdir()
    mine.rename(moved)
    result = cli("simulate", "--resume", cut, "--quiet", "--strategy-file",
                 f"{mine}:greedy={moved}")
    assert result.exit_code == 0, result.stderr
    assert parts(cut) == parts(tmp_path / "whole")
    assert manifest(cut)["sources"] == manifest(tmp_path / "whole")["sources"]
    assert manifest(cut)["part_sha256"] == manifest(tmp_path / "whole")["part_sha256"]


# ---- part contents: their sha256, columns and values ------------------------------
def plus_five(table):
    return column("points_0", lambda c: pc.cast(pc.add(c, 5), pa.int16()))(table)


API = {         # the Python API, reading the run
    "Run.read": lambda root: Run.open(root).read(),
    "run_stats": lambda root: run_stats(Run.open(root), bootstrap=0),
    "ask": lambda root: ask(Run.open(root), "points_0 >= 5"),
}


@pytest.mark.parametrize("reader", [*READERS, "resume", *API])
def test_a_part_with_changed_values_is_refused_by_every_reader(run, reader):
    part = run / "rounds" / "part-000002.parquet"
    rows, meta = pq.read_metadata(part).num_rows, pq.read_metadata(part).metadata
    rewrite_part(part, plus_five)
    assert (pq.read_metadata(part).num_rows, pq.read_metadata(part).metadata) == (rows, meta)
    before = tree(run.parent)
    needles = ["part-000002", "has changed since it was written", "delete it", "--resume"]
    if reader in API:
        with pytest.raises(StoreError) as e:
            API[reader](run)
        assert all(n in str(e.value) for n in needles), str(e.value)
    else:
        args = ("simulate", "--resume", run, "--quiet") if reader == "resume" else \
            READERS[reader](run)
        assert_error(cli(*args), *needles)
    assert tree(run.parent) == before


def drop(name):
    return lambda table: table.drop_columns([name])


MALFORMED = {   # (change to part 1, ask event that reads it, words of the error)
    "a column as text": (column("points_0", lambda c: pc.cast(c, pa.string())),
                         "points_0 > 1", ["column points_0 is string, not int16"]),
    "a column dropped": (drop("points_1"), "points_0 > 1", ["no column points_1"]),
    "a column added": (lambda t: t.append_column("extra", pa.array(np.zeros(t.num_rows,
                                                                            np.int8))),
                       "points_0 > 1", ["a column extra"]),
    "nulls": (column("points_0", lambda c: pa.array([None] + c.to_pylist()[1:], pa.int16())),
              "points_0 > 1", ["column points_0 has 1 empty values"]),
    "a seat of 99": (column("dealer", lambda c: pa.array(np.full(len(c), 99, np.int8))),
                     "dealer == 0", ["column dealer holds 99, not 0..1"]),
    "a seat of -1": (column("dealer", lambda c: pa.array(np.full(len(c), -1, np.int8))),
                     "dealer == 0", ["column dealer holds -1, not 0..1"]),
    "a negative count": (column("points_1", lambda c: pa.array(np.full(len(c), -3, np.int16))),
                         "points_1 > 1", ["column points_1 holds -3"]),
    "another label": (column("strategy_1", lambda c: _labels("spimc", len(c))),
                      "strategy_1 == 'greedy'", ["column strategy_1 holds 'spimc'"]),
    "fewer rows": (lambda t: t.slice(0, 10), "points_0 > 1", ["10 rows", "1,000"]),
    "not Parquet": (None, "points_0 > 1", ["not a readable part"]),
}


@pytest.mark.parametrize("reader", ["report", "ask", "plot", "resume"])
@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_part_is_one_error_line_even_with_its_hash_recorded(run, case, reader):
    change, event, needles = MALFORMED[case]
    part = run / "rounds" / "part-000001.parquet"
    if change is None:
        part.write_bytes(b"PAR1 not a part at all PAR1")
    else:
        rewrite_part(part, change)
    rehash(run, "rounds/part-000001.parquet")       # the manifest edited to match, too
    before = tree(run.parent)
    args = {"report": ("report", run, "--quiet"), "ask": ("ask", run, event),
            "plot": ("plot", run, "--out", run.parent / "chart.png"),
            "resume": ("simulate", "--resume", run, "--quiet")}[reader]
    assert_error(cli(*args), "part-000001", "delete it", *needles)
    assert tree(run.parent) == before


def test_the_manifest_records_the_sha256_of_every_part_written(made):
    assert manifest(made)["part_sha256"] == {name: sha(data)
                                             for name, data in parts(made).items()}


# ---- a killed run: parts written after the manifest was last saved ---------------
def test_unrecorded_parts_are_left_out_by_readers_and_run_again_by_resume(run, made):
    m = manifest(run)
    for b in (2, 3):
        del m["part_sha256"][f"rounds/part-{b:06d}.parquet"]
    (run / MANIFEST).write_text(json.dumps({**m, "finished": False}))
    rewrite_part(run / "rounds" / "part-000003.parquet", plus_five)     # never read
    assert len(Run.open(run).read(columns=["round"])) == 2_000
    assert cli("simulate", "--resume", run, "--quiet").exit_code == 0
    assert parts(run) == parts(made) and manifest(run)["part_sha256"] == manifest(made)[
        "part_sha256"]
    m = manifest(run)                               # in a finished run: an error
    del m["part_sha256"]["rounds/part-000001.parquet"]
    (run / MANIFEST).write_text(json.dumps(m))
    assert_error(cli("ask", run, "winner == 0"), "part-000001", "not recorded")


# ---- runs written before part hashes (store format 1) ------------------------------
def as_format_1(root: Path) -> None:
    m = manifest(root)
    del m["part_sha256"]
    (root / MANIFEST).write_text(json.dumps(m))
    forge(root, format=1)


def test_a_run_of_format_1_is_read_with_a_warning_and_not_resumed(run):
    as_format_1(run)
    result = cli("report", run, "--quiet")
    assert result.exit_code == 0 and result.stdout
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == ["warning"]
    assert "format 1" in result.stderr
    with pytest.warns(StoreWarning, match="format 1"):
        Run.open(run)
    assert_error(cli("simulate", "--resume", run, "--quiet"), "format 1", "not resumed")
    rewrite_part(run / "rounds" / "part-000001.parquet",
                 column("dealer", lambda c: pa.array(np.full(len(c), 99, np.int8))))
    result = cli("ask", run, "dealer == 0")
    assert result.exit_code == 2 and result.stderr.splitlines()[-1].startswith("error: ")
    assert "column dealer holds 99" in result.stderr


# ---- hostile manifests ----------------------------------------------------------------
def edit(**changes):
    def change(root: Path):
        m = manifest(root)
        m.update(changes)
        (root / MANIFEST).write_text(json.dumps(m))
    return change


def write(text: str):
    return lambda root: (root / MANIFEST).write_text(text)


def link_manifest_to(target: str):
    def change(root: Path):
        (root / MANIFEST).unlink()
        (root / MANIFEST).symlink_to(target)
    return change


HOSTILE = {     # (change, words of the error; None: read as usual)
    "extra keys": (edit(hello="world", nested={"deep": [1, {"x": None}]}), None),
    "no seed": (lambda r: write(json.dumps({k: v for k, v in manifest(r).items()
                                            if k != "seed"}))(r), ["corrupt", "no seed"]),
    "no part hashes": (lambda r: write(json.dumps({k: v for k, v in manifest(r).items()
                                                   if k != "part_sha256"}))(r),
                       ["corrupt", "part_sha256"]),
    "a hash naming /etc/passwd": (lambda r: edit(part_sha256={
        **manifest(r)["part_sha256"], "../../etc/passwd": "0" * 64})(r),
        ["corrupt", "not a part of this run"]),
    "a hash that is no sha256": (lambda r: edit(part_sha256={
        **manifest(r)["part_sha256"], "rounds/part-000000.parquet": "x"})(r),
        ["corrupt", "not a sha256"]),
    "a newer format": (edit(format=99), ["corrupt", "newer scopa-sim"]),
    "a format as text": (edit(format="2"), ["corrupt", "format"]),
    "sources naming /etc/passwd": (edit(sources={"/etc/passwd:f": {
        "reference": "/etc/passwd:f", "sha256": "0" * 64}}), ["another run"]),
    "sources not an object": (edit(sources=["x"]), ["corrupt", "sources"]),
    "sources naming no strategy": (edit(sources={"rm -rf": {"reference": "x", "sha256": None}}),
                                   ["corrupt", "sources"]),
    "absurd units": (edit(units=10**40), ["corrupt", "rounds"]),
    "units as a float": (edit(units=4000.0), ["corrupt", "rounds"]),
    "absurd seed": (edit(seed=2**80), ["corrupt", "seed"]),
    "absurd players": (lambda r: edit(rules={**manifest(r)["rules"], "players": 10**9})(r),
                       ["corrupt", "players"]),
    "an unknown rule": (lambda r: edit(rules={**manifest(r)["rules"], "evil": 1})(r),
                        ["corrupt", "evil"]),
    "strategies not texts": (edit(strategies=[1, 2]), ["corrupt", "strategies"]),
    "deeply nested": (write("[" * 100_000 + "]" * 100_000), ["corrupt"]),
    "a huge number": (write('{"format": 2, "units": ' + "9" * 5000 + "}"), ["corrupt"]),
    "not UTF-8": (lambda r: (r / MANIFEST).write_bytes(b"\xff\xfe{"), ["corrupt"]),
    "null": (write("null"), ["corrupt", "not a JSON object"]),
    "a link to /etc/passwd": (link_manifest_to("/etc/passwd"), ["symbolic link"]),
}


@pytest.mark.parametrize("reader", [*READERS, "resume"])
@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_manifest_is_one_error_line(run, case, reader):
    change, needles = HOSTILE[case]
    change(run)
    before = tree(run.parent)
    args = ("simulate", "--resume", run, "--quiet") if reader == "resume" else \
        READERS[reader](run)
    result = cli(*args)
    if needles is None:
        assert result.exit_code == 0, result.stderr
        return
    assert_error(result, *needles)
    assert tree(run.parent) == before


def test_a_manifest_linked_to_another_runs_is_refused(run, made):
    link_manifest_to(str(made / MANIFEST))(run)
    assert_error(cli("report", run, "--quiet"), "symbolic link")


# ---- --out: refused before anything is read or computed ---------------------------
OUTS = {        # (command, words of the error) with RUN the run, LINK a link to it
    "report onto a file": (("report", "RUN", "--out", "notes.md"), ["notes.md", "already exists",
                                                                    "--overwrite"]),
    "report onto a chart": (("report", "RUN", "--out", "chart.md"), ["chart-winrates.png",
                                                                     "already exists"]),
    "report in a run": (("report", "RUN", "--out", "RUN/notes.md"), ["inside the scopa-sim run"]),
    "report in its tables": (("report", "RUN", "--out", "RUN/rounds/x.md"), ["inside"]),
    "report through a link": (("report", "RUN", "--out", "LINK/notes.html"), ["inside"]),
    "report in another run": (("report", "RUN", "--out", "OTHER/x.md"), ["inside"]),
    "plot in a run": (("plot", "RUN", "--out", "RUN/chart.png"), ["inside"]),
    "plot all in a run": (("plot", "RUN", "--kind", "all", "--out", "RUN/rounds/c.svg"),
                          ["inside"]),
    "odds in a run": (("odds", "--out", "RUN/odds.png"), ["inside"]),
    "simulate in a run": (("simulate", "--rounds", 100, "--out", "RUN/sub"), ["inside"]),
    "simulate in its tables": (("simulate", "--rounds", 100, "--out", "RUN/rounds/sub",
                                "--overwrite"), ["inside"]),
    "simulate through a link": (("simulate", "--rounds", 100, "--out", "LINK/sub/deeper"),
                                ["inside"]),
}


@pytest.mark.parametrize("case", OUTS)
def test_an_out_that_would_replace_a_file_or_break_a_run_is_refused_first(
        run, tmp_path, monkeypatch, nothing_computed, case):
    args, needles = OUTS[case]
    monkeypatch.chdir(tmp_path)
    Path("notes.md").write_text("my notes")
    Path("chart-winrates.png").write_bytes(b"my chart")
    Path("LINK").symlink_to(run)
    shutil.copytree(run, "OTHER")
    before = tree(tmp_path)
    args = [str(run) + str(a)[3:] if str(a).split("/")[0] == "RUN" else a for a in args]
    assert_error(cli(*args, "--quiet"), *needles)
    assert tree(tmp_path) == before


def test_report_overwrite_replaces_the_report(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("notes.md").write_text("my notes")
    assert cli("report", run, "--out", "notes.md", "--quiet", "--overwrite").exit_code == 0
    assert Path("notes.md").read_text().startswith("# scopa-sim report")


@pytest.mark.parametrize("args", [
    ["plot", "{run}", "--out", "{file}"],
    ["values", "{run}", "--out", "{file}"],
    ["odds", "--score", "7-9", "--rounds", "1000", "--out", "{file}"],
])
def test_a_chart_onto_an_existing_file_is_refused_unless_overwrite(run, tmp_path, args):
    """Every --out that exists is refused before any work (issue 23), as
    report's and simulate's are; --overwrite replaces it."""
    chart = tmp_path / "mine.png"
    chart.write_bytes(b"keep me")
    words = [a.format(run=run, file=chart) for a in args]
    result = cli(*words, "--quiet")
    assert result.exit_code == 2 and "already exists" in result.stderr
    assert chart.read_bytes() == b"keep me"
    assert cli(*words, "--quiet", "--overwrite").exit_code == 0
    assert chart.read_bytes()[:4] == b"\x89PNG"
