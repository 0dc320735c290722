"""The run dataset on disk: Parquet part files and a manifest.

    RUN/
      manifest.json             the run spec, versions, finished or not, and
                                the sha256 of every part written (`part_sha256`)
      rounds/part-000000.parquet  one file per batch (rows of rounds)
      games/part-000000.parquet   with --games: one row per game

A part file is written to a temporary name and renamed when complete, so a
killed run leaves only whole parts; the run spec is also in every part's
key-value metadata (key `scopa_sim`), with nothing that depends on workers or
time, so the same seed gives byte-identical parts.

A run is data. Reading one (`Run.open`) never loads the code it names: its
strategies are the labels they were stored as (`StoredSpec`). Every part is
read once into memory and its bytes checked against the sha256 the manifest
records, then its metadata, rows, columns and values against the spec,
before anything uses its rows. Resuming loads user strategies only from
files the user names, after their sha256 matches the run's (`sources`).
"""
from __future__ import annotations

import fcntl
import json
import os
import platform
import re
import shlex
import shutil
import time
import warnings
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..engine import schema
from ..engine.rules import Rules
from ..engine.user import is_file_text
from . import consistent
from .parts import (META_KEY, Part, as_numpy, labels_of, read_regular, expected_columns,
                    part_name, sha256, write_whole)
from .plan import SHA256, RunSpec, Source, StoredSpec, spec_dict

MANIFEST = "manifest.json"
HASHES = "part_sha256"          # manifest key: "rounds/part-000000.parquet" -> sha256
SAVE_EVERY = 1.0                # seconds between manifest saves while parts are written


class StoreWarning(UserWarning):
    """A run that can be read, but with less checking than a current one."""


class StoreError(ValueError):
    """A run folder that is missing, not a run, corrupt, or in the way."""


def versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in ("scopa-sim", "numba", "numpy", "pyarrow", "pandas"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


class Run:
    """A run folder: create or resume one (holding its lock), write parts,
    read back. Opening a run checks its files against the manifest; every
    part is checked in full when read (`_table`).

    `spec` is the RunSpec (strategies loaded) of a run opened to write, and
    the StoredSpec (strategies as labels) of one opened to read; `stored`
    is always the StoredSpec, whose JSON every part carries (`meta`)."""

    def __init__(self, root: Path, spec, stored: StoredSpec, manifest: dict,
                 lock: int | None = None, finish_with: str | None = None):
        self.root, self.spec, self.stored, self.manifest = Path(root), spec, stored, manifest
        self.finish_with = (finish_with
                            or f"finish the run with: scopa-sim simulate --resume {self.root}")
        self.meta = json.dumps(stored.as_dict(), sort_keys=True).encode()
        self._hashes = manifest.get(HASHES) if stored.format >= 2 else None   # None: format 1
        self._lock = lock
        self._dirty, self._saved = False, time.monotonic()
        self._columns = {t: expected_columns(stored, t) for t in self.tables}
        self._ends: dict[int, bytes] = {}   # batch -> its games' rounds and scores (`consistent`)
        self._done = self._verify()

    # -- opening ----------------------------------------------------------
    @classmethod
    def create(cls, root: str | Path, spec: RunSpec, overwrite: bool = False) -> Run:
        """A new run in `root` (absent or empty; with `overwrite`, a run folder
        whose run files are removed). The returned run holds the folder's lock;
        if anything fails (Ctrl-C too), a folder made here is removed again."""
        root = Path(root)
        stored = StoredSpec.from_dict(spec_dict(spec))
        if stored.as_dict() != spec_dict(spec):          # pragma: no cover - a bug, not input
            raise ValueError("the run spec does not read back as written")
        made = not root.exists()
        lock = _claim(root, overwrite)
        try:
            for table in tables(spec):
                (root / table).mkdir(exist_ok=True)
            manifest = {**spec_dict(spec), "finished": False, "versions": versions(),
                        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                        "elapsed_seconds": 0.0, HASHES: {}}
            run = cls(root, spec, stored, manifest, lock)
            run.save_manifest()
        except BaseException as e:
            os.close(lock)
            if made:
                shutil.rmtree(root, ignore_errors=True)
            if isinstance(e, OSError):
                raise StoreError(f"cannot write {root}: {e.strerror}") from None
            raise
        return run

    @classmethod
    def open(cls, root: str | Path, write: bool = False,
             finish_with: str | None = None) -> Run:
        """The run in `root`, its files checked against its manifest. Nothing
        it names is loaded. With `write` (to resume it): the folder's lock is
        taken and every part's bytes are checked against their sha256; its
        spec stays the stored one (strategies as labels) until
        `sources.open_to_resume` loads its user strategies. `finish_with`: how to
        finish the run, which its errors advise after "delete it and"
        (default: with `simulate --resume`; the almanac's: run it again)."""
        root = Path(root)
        stored, manifest = _read_manifest(root)
        if not write:
            run = cls(root, stored, stored, manifest, finish_with=finish_with)
            if run._hashes is None:
                warnings.warn(run.legacy_note(), StoreWarning, stacklevel=2)
            return run
        if stored.format < 2:
            made = manifest.get("versions", {}).get("scopa-sim", "an older version")
            raise StoreError(f"{root} was made by scopa-sim {made} (run format "
                             f"{stored.format}), before scopa-sim recorded the sha256 of each "
                             f"part and dealt every deck from the seed alone: it can be read "
                             f"but not resumed; simulate it again")
        lock = _lock(root)
        try:
            run = cls(root, stored, stored, manifest, lock, finish_with)
            for b in run.done_batches():             # data first: no code for a broken run
                for table in run.tables:
                    run._part(table, b)
            return run
        except BaseException:
            os.close(lock)
            raise

    def legacy_note(self) -> str:
        return (f"{self.root} was written in store format {self.stored.format}, before "
                f"scopa-sim recorded each part's sha256: its parts are checked for their spec, "
                f"columns and values only")

    def close(self) -> None:
        """Record the parts written since the manifest was last saved, and
        release the folder's lock (also released when the process ends)."""
        if self._lock is not None:
            try:
                if self._dirty:
                    self.save_manifest()
            finally:
                os.close(self._lock)
                self._lock = None

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- checking ---------------------------------------------------------
    def repair(self) -> str:
        """What to do about a bad part (in every error naming one)."""
        if self._hashes is None:
            return "delete it, or simulate the run again"
        return f"delete it and {self.finish_with}"

    def _verify(self) -> set[int]:
        """The finished batches, after checking that every file under
        rounds/ and games/ is a part of this run (temporaries of a killed run
        aside) and recorded in the manifest. A part written after the
        manifest was last saved (a killed run) is not finished: resume runs
        its batch again, readers of an unfinished run leave it out, and in a
        finished run it is an error."""
        found = {}
        for table in self.tables:
            folder = self.root / table
            if not folder.is_dir() or folder.is_symlink():
                raise StoreError(f"{folder} is missing: {self.root} is not a whole run")
            found[table] = _parts_in(folder, self.spec.n_batches)[0]
        done = set()
        for b, path in found["rounds"].items():
            names = [f"{t}/{part_name(b)}" for t in self.tables if b in found[t]]
            if self._hashes is not None and any(n not in self._hashes for n in names):
                if self._lock is not None or not self.manifest.get("finished"):
                    continue
                raise StoreError(f"{path} is not recorded in {self.root / MANIFEST}: "
                                 f"{self.repair()}")
            if self.spec.games and b not in found["games"]:
                raise StoreError(f"{path} has no games part beside it: {self.repair()}")
            done.add(b)
        return done

    def _part_bytes(self, table: str, b: int) -> bytes:
        """Part b of a table as bytes, their sha256 the manifest's."""
        path = self.root / table / part_name(b)
        if b not in self._done or table not in self.tables:
            raise StoreError(f"{path} is not a finished part of {self.root}")
        try:
            data = read_regular(path)
        except OSError as e:
            raise StoreError(f"cannot read {path}: {e.strerror or e}: {self.repair()}") from None
        if self._hashes is not None and sha256(data) != self._hashes.get(f"{table}/{path.name}"):
            try:
                theirs = pq.ParquetFile(pa.BufferReader(data)).schema_arrow.metadata or {}
            except Exception:                        # noqa: BLE001 - any damage is the same
                raise StoreError(f"{path} is not a readable part: {self.repair()}") from None
            if theirs.get(META_KEY) != self.meta:
                raise StoreError(f"{path} belongs to another run than {self.root / MANIFEST} "
                                 f"describes: {self.repair()}")
            raise StoreError(f"{path} has changed since it was written (its sha256 is not the "
                             f"one {MANIFEST} records): {self.repair()}")
        return data

    def _part(self, table: str, b: int) -> pq.ParquetFile:
        """Part b of a table, its bytes' sha256 checked, then its spec, rows
        and columns (names, types); no row read yet."""
        data = self._part_bytes(table, b)
        path = self.root / table / part_name(b)
        bad = f"{path} is not a part this run can read"
        try:
            part = pq.ParquetFile(pa.BufferReader(data))
            meta, arrow = part.metadata, part.schema_arrow
        except Exception as e:                       # noqa: BLE001 - any damage is the same
            raise StoreError(f"{path} is not a readable part ({_first_line(e)}): "
                             f"{self.repair()}") from None
        if (arrow.metadata or {}).get(META_KEY) != self.meta:
            raise StoreError(f"{path} belongs to another run than {self.root / MANIFEST} "
                             f"describes: {self.repair()}")
        rows = self.spec.batch_range(b)[1]
        at_least = table == "rounds" and self.spec.games
        if meta.num_rows < rows if at_least else meta.num_rows != rows:
            raise StoreError(f"{path} has {meta.num_rows:,} rows where the run spec has "
                             f"{rows:,}: {self.repair()}")
        want = self._columns[table]
        found = {f.name: f.type for f in arrow}
        if list(found) != list(want) or found != want:
            raise StoreError(f"{bad} ({_column_difference(found, want)}): {self.repair()}")
        return part

    def _table(self, table: str, b: int, columns: list[str] | None = None,
               widen: bool = True) -> pa.Table:
        """Part b of a table, checked before any row is used (`_part`), then
        the values of the columns read: no nulls, numbers in their ranges
        (`schema.Field.value_range`); the labels (read always, they are
        tiny) as the spec says; and its rows (`_check_rows`, with the
        columns their checks need; `widen`: a side's whole points group)."""
        part = self._part(table, b)
        path = self.root / table / part_name(b)
        bad = f"{path} is not a part this run can read"
        want = self._columns[table]
        names = list(want) if columns is None else list(columns)
        unknown = [c for c in names if c not in want]
        if unknown:
            raise StoreError(f"{self.root} has no column {', '.join(unknown)} in its {table} table")
        labels = labels_of(self.stored)
        checked = consistent.needed(self.spec.rules, self.spec.games, table, names, widen)
        try:
            out = part.read(columns=names + checked
                            + [c for c in want if c in labels and c not in names + checked])
            out.validate(full=True)
        except Exception as e:                       # noqa: BLE001 - any damage is the same
            raise StoreError(f"{path} is not a readable part ({_first_line(e)}): "
                             f"{self.repair()}") from None
        if (names and out.num_rows != part.metadata.num_rows
                or any(out.schema.field(c).type != want[c] for c in names)):
            raise StoreError(f"{bad} (its columns do not read as declared): {self.repair()}")
        why = _bad_values(out, self.spec.rules, table, labels)
        if why:
            raise StoreError(f"{bad} ({why}): {self.repair()}")
        self._check_rows(table, b, out)
        return out.select(names)

    def _check_rows(self, table: str, b: int, data: pa.Table) -> None:
        """Refuse a part whose rows are not its batch's, or disagree with each
        other (`consistent`): a copied part is named with the part it copies."""
        path = self.root / table / part_name(b)
        cols = _arrays(data.select([c for c in data.column_names if c not in labels_of(
            self.stored)]))
        first, n = self.spec.batch_range(b)
        wrong = consistent.bad_index(cols, first, n, self.spec.games, table)
        if wrong:
            what, start = wrong
            other = start // self.spec.batch_size if start >= 0 else -1
            copied = (f" (those of {table}/{part_name(other)}: a copied part?)"
                      if other != b and other in self._done else "")
            raise StoreError(f"{self.root}: {table}/{path.name} holds {what}{copied}: "
                             f"{self.repair()}")
        why = consistent.bad_rows(cols, self.spec.rules, self.spec.games, table)
        if why:
            raise StoreError(f"{path} is not a part this run can read ({why}): "
                             f"{self.repair()}")
        if self.spec.games:
            self._check_games(table, b, cols)

    def _check_games(self, table: str, b: int, cols: dict) -> None:
        """Refuse a games part whose games' rounds and final scores are not
        those of the rounds part beside it (its scores read for it, if this
        run has not read them yet)."""
        scores = consistent.scores(self.spec.rules)
        if table == "rounds":
            if all(c in cols for c in scores):
                self._ends[b] = consistent.game_ends(cols, self.spec.rules.n_sides, table)
            return
        if b not in self._ends:
            self._table("rounds", b, scores, widen=False)
        if self._ends[b] != consistent.game_ends(cols, self.spec.rules.n_sides, table):
            raise StoreError(f"{self.root}: games/{part_name(b)} does not add up to "
                             f"rounds/{part_name(b)} (its games' rounds or final scores are "
                             f"not theirs): {self.repair()}")

    # -- writing ----------------------------------------------------------
    def save_manifest(self) -> None:
        tmp = self.root / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.manifest, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, self.root / MANIFEST)
        self._dirty, self._saved = False, time.monotonic()

    def done_batches(self) -> list[int]:
        """The finished batches, in order (as checked when the run was opened,
        plus those written since)."""
        return sorted(self._done)

    def missing_batches(self) -> Iterator[int]:
        """The batches still to run, in order (lazily: a run may have billions)."""
        done = set(self._done)
        return (b for b in range(self.spec.n_batches) if b not in done)

    @property
    def n_missing(self) -> int:
        return self.spec.n_batches - len(self._done)

    def partial(self) -> str | None:
        """'partial run: 4 of 10 parts' when parts of the run are missing (it
        was interrupted, or is still being written), for what is read from
        it to say so; None for a whole run."""
        if not self.n_missing:
            return None
        return f"partial run: {len(self._done):,} of {self.spec.n_batches:,} parts"

    def save(self, b: int, part: Part) -> None:
        """Store batch b's part files (games first, then rounds: a rounds part
        marks the batch done) and record their sha256 in the manifest (saved
        at most every SAVE_EVERY seconds, and when the run is closed). A
        batch already stored is left as it is."""
        if self._lock is None:
            raise StoreError(f"{self.root} was opened for reading only")
        if b in self._done:
            return
        for table, data in (("games", part.games), ("rounds", part.rounds)):
            if data is not None:
                write_whole(data, self.root / table / part_name(b))
                self._hashes[f"{table}/{part_name(b)}"] = sha256(data)
        self._done.add(b)
        self._dirty = True
        if time.monotonic() - self._saved >= SAVE_EVERY:
            self.save_manifest()

    def clean_temporaries(self) -> None:
        for p in self.root.glob("*/.part-*.tmp"):
            p.unlink(missing_ok=True)

    def finish(self, elapsed: float, workers: int) -> None:
        """Mark the run finished, adding this session's time to earlier ones'."""
        total = self.manifest.get("elapsed_seconds", 0.0) + elapsed
        self.manifest.update(finished=True, elapsed_seconds=round(total, 3), workers=workers)
        self.save_manifest()

    # -- reading ----------------------------------------------------------
    def columns(self, table: str = "rounds") -> list[str]:
        """The column names of a table (as every part holds them)."""
        if table not in self.tables:
            raise StoreError(f"{self.root} has no {table} table")
        return list(self._columns[table])

    def read(self, table: str = "rounds", columns: list[str] | None = None):
        """The dataset as a pandas DataFrame (only `columns`, if given), every
        part checked as it is read."""
        return self._whole(table, columns).to_pandas()

    def read_arrays(self, table: str = "rounds", columns: list[str] | None = None) -> dict:
        """The dataset as numpy arrays by column (`read`, without pandas)."""
        return _arrays(self._whole(table, columns))

    def _whole(self, table: str, columns: list[str] | None) -> pa.Table:
        if table not in self.tables:
            raise StoreError(f"{self.root} has no {table} table")
        if not self._done:
            raise StoreError(f"{self.root} has no finished batch yet")
        return pa.concat_tables([self._table(table, b, columns) for b in self.done_batches()])

    def read_batch(self, b: int, table: str = "rounds", columns: list[str] | None = None):
        """One finished batch of a table as a pandas DataFrame (only `columns`),
        checked as it is read."""
        return self._table(table, b, columns).to_pandas()

    def batch_arrays(self, b: int, table: str = "rounds",
                     columns: list[str] | None = None) -> dict:
        """One finished batch as numpy arrays by column (`read_batch`, without
        pandas: what the reading commands use)."""
        return _arrays(self._table(table, b, columns))

    def stored_part(self, b: int, table: str = "rounds") -> pa.Table:
        """Part b of a table whole, as stored: its bytes, spec and columns
        checked (`_part`), its rows not (`verify` compares them with a replay)."""
        path = self.root / table / part_name(b)
        try:
            return self._part(table, b).read()
        except StoreError:
            raise
        except Exception as e:                       # noqa: BLE001 - any damage is the same
            raise StoreError(f"{path} is not a readable part ({_first_line(e)}): "
                             f"{self.repair()}") from None

    @property
    def tables(self) -> tuple[str, ...]:
        return tables(self.spec)

    def batches(self, columns: list[str] | None = None):
        """(batch index, its columns: `batch_arrays`) for each part file of the
        rounds table, in order."""
        for b in self.done_batches():
            yield b, self.batch_arrays(b, columns=columns)


def _arrays(data: pa.Table) -> dict:
    """A table's columns as numpy arrays by name (`parts.as_numpy`)."""
    return {name: as_numpy(data.column(name)) for name in data.column_names}


def _bad_values(data: pa.Table, rules: Rules, table: str, labels: dict[str, str]) -> str | None:
    """What is wrong with a part's values, in words (None: nothing): an
    empty value, a label other than the spec's, a number out of its range."""
    fields = (schema.game_fields(rules) if table == "games"      # a run of games has them all
              else {**schema.round_fields(rules, games=True), **schema.taken_fields(rules)})
    for name in data.column_names:
        col = data.column(name)
        if col.null_count:
            return f"column {name} has {col.null_count:,} empty values"
        if not len(col):
            continue
        if name in labels:
            seen = _labels_used(col) - {labels[name]}
            if seen:
                return f"column {name} holds {sorted(seen)[0]!r}, not {labels[name]!r}"
            continue
        low, high = fields[name].value_range(rules)
        found = pc.min_max(col).as_py()
        if found["min"] < low or high is not None and found["max"] > high:
            span = f"{low}..{high}" if high is not None else f"{low} or more"
            value = found["min"] if found["min"] < low else found["max"]
            return f"column {name} holds {value}, not {span}"
    return None


def _labels_used(col: pa.ChunkedArray) -> set:
    """The texts a label column holds: its dictionaries' entries its indices
    use (not every row cast to text, which costs a read as much again)."""
    if not pa.types.is_dictionary(col.type):
        return set(col.cast(pa.string()).unique().to_pylist())
    return {text for chunk in col.chunks
            for text in chunk.dictionary.take(pc.unique(chunk.indices)).to_pylist()}


def _first_line(e: BaseException) -> str:
    return (str(e).splitlines() or [type(e).__name__])[0]


def _column_difference(found: dict, want: dict) -> str:
    """The first way a part's columns differ from the spec's, in words."""
    missing = [c for c in want if c not in found]
    if missing:
        return f"no column {missing[0]}"
    extra = [c for c in found if c not in want]
    if extra:
        return f"a column {extra[0]} the run does not have"
    for c in want:
        if found[c] != want[c]:
            return f"column {c} is {found[c]}, not {want[c]}"
    return "its columns are out of order"


def resume_command(root: Path, stored: StoredSpec) -> str:
    """The command that finishes a run: with its user strategy files, where
    the run recorded them, to confirm (`--strategy-file TEXT=PATH`)."""
    flags = "".join(f" --strategy-file {shlex.quote(f'{s.text}={recorded_file(s)}')}"
                    for s in stored.sources if is_file_text(s.text))
    return f"scopa-sim simulate --resume {root}{flags}"


def recorded_file(s: Source) -> str:
    """The file a source's reference names (PATH if it names none)."""
    return s.reference.rpartition(":")[0] if is_file_text(s.reference) else "PATH"


def tables(spec: RunSpec) -> tuple[str, ...]:
    """The tables (folders of part files) of a run."""
    return ("rounds", "games") if spec.games else ("rounds",)


PART = re.compile(r"part-(\d{6,})\.parquet")
TEMPORARY = re.compile(r"\.part-\d{6,}\.parquet\.tmp")
LOCK = ".lock"


def _batch_of(name: str, n_batches: int) -> int | None:
    m = PART.fullmatch(name)
    if m is None or part_name(int(m[1])) != name or int(m[1]) >= n_batches:
        return None
    return int(m[1])


def _read_manifest(root: Path) -> tuple[StoredSpec, dict]:
    """The stored spec and manifest of the run in `root` (data only: no
    strategy is loaded, so a user strategy's file need not be there)."""
    path = root / MANIFEST
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is a file, not a run folder")
    if not path.exists() and not path.is_symlink():
        raise StoreError(f"{root} is not a scopa-sim run (no {MANIFEST})")
    try:
        manifest = json.loads(read_regular(path))
        stored = StoredSpec.from_dict(manifest)
        _check_hashes(manifest, stored)
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror or e}") from None
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as e:
        raise StoreError(f"{path} is corrupt: {e}") from None
    return stored, manifest


def _check_hashes(manifest: dict, stored: StoredSpec) -> None:
    """Refuse a manifest whose part hashes are not part -> sha256 (format 2 on)."""
    if stored.format < 2:
        return
    hashes = manifest.get(HASHES)
    if not isinstance(hashes, dict):
        raise ValueError(f"{HASHES} must be a JSON object (part -> sha256)")
    for name, digest in hashes.items():
        table, _, part = name.partition("/")
        if table not in tables(stored) or _batch_of(part, stored.n_batches) is None:
            raise ValueError(f"{HASHES} names {name!r}, not a part of this run")
        if not isinstance(digest, str) or not SHA256.fullmatch(digest):
            raise ValueError(f"{HASHES} of {name}: not a sha256 (64 hexadecimal digits)")


def _run_files(root: Path) -> list[Path]:
    """What removing the run in `root` removes (folders before their files),
    after checking that the folder holds a run and nothing else; the lock
    file stays. StoreError names the first thing that is not a run's."""
    not_run = f"{root} is not a scopa-sim run: not overwriting it"
    try:
        spec, _ = _read_manifest(root)
    except StoreError as e:
        raise StoreError(f"{not_run} ({e})") from None
    files = [root / MANIFEST]
    for entry in sorted(root.iterdir()):
        if entry.name in (MANIFEST, LOCK, MANIFEST + ".tmp") and entry.is_file() \
                and not entry.is_symlink():
            files += [entry] if entry.name.endswith(".tmp") else []
        elif entry.name in ("rounds", "games") and entry.is_dir() and not entry.is_symlink():
            try:
                parts, temporaries = _parts_in(entry, spec.n_batches)
            except StoreError as e:
                raise StoreError(f"{not_run}: {e}") from None
            files += [entry, *sorted(parts.values()), *temporaries]
        else:
            raise StoreError(f"{not_run}: {entry} is not part of a run")
    return files


def _parts_in(folder: Path, n_batches: int) -> tuple[dict[int, Path], list[Path]]:
    """The part files of a table folder by batch, and the temporaries a killed
    run left; StoreError for anything else in it (a link, a folder, a stray file)."""
    parts, temporaries = {}, []
    for path in folder.iterdir():
        b = _batch_of(path.name, n_batches)
        if b is None and not TEMPORARY.fullmatch(path.name):
            raise StoreError(f"{path} is not a part of this run: remove it")
        if path.is_symlink() or not path.is_file():
            raise StoreError(f"{path} is not a regular file: remove it")
        if b is None:
            temporaries.append(path)
        else:
            parts[b] = path
    return parts, temporaries


def claimable(root: str | Path, overwrite: bool) -> bool:
    """Whether a new run in `root` replaces one (StoreError if it may not):
    `root` must be a new or empty folder, or with `overwrite` a run folder
    holding nothing else (a run being written is found when it is claimed).
    Changes nothing: a command asks before its work starts."""
    root = Path(root)
    if root.is_symlink():
        raise StoreError(f"{root} is a symbolic link: give the folder it points to")
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is a file, not a folder")
    replacing = root.exists() and any(root.iterdir())
    if replacing and not overwrite:
        raise StoreError(f"{root} already exists: choose another --out, --resume it, "
                         f"or pass --overwrite")
    if replacing and not (root / LOCK).is_file():
        _run_files(root)                        # refuses anything not a run
    return replacing


def _claim(root: Path, overwrite: bool) -> int:
    """Make `root` ready for a new run and take its lock: a new or empty
    folder, or (with `overwrite`) a run folder whose run files are removed,
    after checking it holds nothing else (`claimable`); a writer at work is
    named first."""
    replacing = claimable(root, overwrite)
    if not (root / LOCK).is_file():
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create {root}: {e.strerror}") from None
    lock = _lock(root)
    try:
        if replacing:
            for path in reversed(_run_files(root)):      # files first, then folders
                path.rmdir() if path.is_dir() else path.unlink()
    except BaseException as e:
        os.close(lock)
        if isinstance(e, OSError):
            raise StoreError(f"cannot remove the run in {root}: {e.strerror}") from None
        raise
    return lock


def _lock(root: Path) -> int:
    """Take the run folder's lock (its `.lock` file), or StoreError if another
    process writes to the run. The lock goes with the process."""
    try:
        fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise StoreError(f"cannot write {root}: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreError(f"{root} is being written by another scopa-sim process: "
                         f"wait for it to finish, or stop it") from None
    return fd
