"""The plan of a run, shared by the runner and the store (a leaf: it imports
only the game face): what to simulate (`RunSpec`), checked once, and its
batches (batch `b` covers units `b*size .. (b+1)*size - 1`); what a stored
run says it was (`StoredSpec`: strategies as labels, never code); and both
as the plain data a manifest and every part hold (`spec_dict`, `as_dict`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import defaults as sizes
from ..engine.checks import MAX_SEED, MAX_WIDE_SEED, SEED_SPAN, WIDE_SPAN, whole
from ..engine.rules import Rules
from ..engine.strategies import Strategy, StrategySpec, net_slots, seats_of, user_slots
from ..engine.user import is_reference
from ..kernels import registry

DEFAULT_BATCH = sizes.ROUNDS    # rounds per batch (defaults.py sets every batch size)
MAX_UNITS = 10**13              # rounds or games in one run: a cluster-year, not a typo
MAX_BATCH = sizes.MAX           # rounds (or games) per batch: a batch is held in memory
FORMAT = 2                      # 2: each part's sha256 recorded; every deck dealt from the seed
READABLE = (1, 2)               # format 1 is read with a warning, never resumed


class Planned:
    """What a run spec shares with a stored run's (`StoredSpec`, whose
    strategies are labels): the rules, seed, units and batches, checked once
    (`_check_plan`, on construction)."""
    rules: Rules
    seed: int
    units: int
    games: bool
    batch_size: int
    isolate: bool

    def _check_plan(self) -> None:
        if (not isinstance(self.games, bool) or not isinstance(self.rules, Rules)
                or not isinstance(self.isolate, bool)):
            raise ValueError("a run spec needs Rules, and games and isolate true or false")
        unit = "games" if self.games else "rounds"
        seeds = (MAX_WIDE_SEED, WIDE_SPAN) if self.isolate else (MAX_SEED, SEED_SPAN)
        for name, title, low, high, span in (("units", f"the number of {unit}", 1, MAX_UNITS, None),
                                             ("seed", "seed", 0, *seeds),
                                             ("batch_size", "batch size", 1, MAX_BATCH, None)):
            object.__setattr__(self, name, whole(getattr(self, name), title, low, high, span))

    @property
    def n_batches(self) -> int:
        return -(-self.units // self.batch_size)

    def batch_range(self, b: int) -> tuple[int, int]:
        first = b * self.batch_size
        return first, min(self.units, first + self.batch_size) - first


@dataclass(frozen=True)
class RunSpec(Planned):
    """What to simulate: validated on construction, packed for the kernel."""
    rules: Rules
    strategies: tuple[Strategy, ...]
    seed: int
    units: int
    games: bool = False
    batch_size: int = DEFAULT_BATCH
    keep_taken: bool = False        # store each side's captured cards too (`taken`)
    isolate: bool = False           # user strategies in processes of their own; 128-bit seeds

    def __post_init__(self):
        self._check_plan()
        if not isinstance(self.keep_taken, bool):
            raise ValueError("keep_taken must be true or false")

    @classmethod
    def make(cls, rounds=None, games=None, strategies=("random", "greedy"), rules="scopa",
             seed=0, batch_size=DEFAULT_BATCH, keep_taken=False, isolate=False) -> RunSpec:
        """`batch_size` None: `defaults.default` for the kind of unit."""
        if (rounds is None) == (games is None):
            raise ValueError("give either rounds or games")
        rules = Rules.resolve(rules)
        if batch_size is None:
            batch_size = sizes.default(games is not None)
        return cls(rules, tuple(seats_of(strategies, rules)), seed, rounds if games is None else games,
                   games is not None, batch_size, keep_taken, isolate)


def spec_dict(spec: RunSpec) -> dict:
    """The run spec as plain data (what the manifest and part metadata hold)."""
    sources = _sources(spec)
    nets = nets_played(spec.strategies, spec.rules)
    return {"format": FORMAT, "kind": "games" if spec.games else "rounds",
            "units": spec.units, "seed": spec.seed, "batch_size": spec.batch_size,
            "n_batches": spec.n_batches, "rules": _plain(spec.rules.settings()),
            "strategies": [str(s) for s in spec.strategies],
            **({"sources": sources} if sources else {}),
            **({"nets": nets} if nets else {}),
            **({"revisions": played} if (played := revisions(spec.strategies, spec.rules))
               else {}),
            **({"keep_taken": True} if spec.keep_taken else {}),
            **({"isolate": True} if spec.isolate else {})}


def revisions(seats, rules) -> dict:
    """The built-ins the seats play whose play at the same parameters has
    changed for these rules (`registry.Builtin.revision`): name -> how many
    times. A run records them; one made at others plays otherwise (`revised`)."""
    out = {}
    for s in seats:
        b = registry.BUILTINS[s.spec.id] if isinstance(s.spec, StrategySpec) else None
        if b and b.revision and rules.players >= b.revision[1]:
            out[b.name] = b.revision[0]
    return out


def revised(stored: StoredSpec, spec: RunSpec) -> str:
    """What tells a stored run from `spec` (made of its labels) in the play
    of its built-ins: "" if nothing, else a sentence naming the first."""
    then, now = dict(stored.revisions), revisions(spec.strategies, spec.rules)
    for name in sorted(then.keys() | now.keys()):
        if then.get(name, 0) != now.get(name, 0):
            return (f"it was made when {name} played otherwise (revision {then.get(name, 0)} "
                    f"of its play, this scopa-sim's {now.get(name, 0)}: docs/STRATEGIES.md)")
    return ""


def nets_played(seats, rules) -> dict:
    """The networks the seats play under `rules`, as a manifest records
    them: weights as written ("shipped" for the preset's) -> sha256."""
    return {w.text or "shipped": w.sha256 for w in net_slots(seats, rules)}


def _sources(spec: RunSpec) -> dict:
    """Where each user strategy of the run is loaded from, and its file's
    sha256: what played, exactly (empty without user strategies)."""
    out = {}
    for u in user_slots(spec.strategies):
        if u.reference() is None:
            raise ValueError(f"strategy {u.text} is a function passed in Python: a stored "
                             f"run needs strategies written PATH.py:NAME or module:NAME")
        out[u.text] = {"reference": u.reference(), "sha256": u.digest}
    return out


@dataclass(frozen=True)
class Source:
    """A user strategy a stored run records: as written (`text`), where its
    file was (`reference`) and the sha256 of that file (None if unknown)."""
    text: str
    reference: str
    sha256: str | None


SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class StoredSpec(Planned):
    """A stored run's spec, as data: rules, seed, units and batches, checked
    as a run spec's are, and one strategy label per seat, as stored (text,
    never loaded: reading a run runs none of its code; `sources.runnable`
    makes the RunSpec that resumes it)."""
    rules: Rules
    strategies: tuple[str, ...]
    seed: int
    units: int
    games: bool
    batch_size: int
    sources: tuple[Source, ...] = ()
    format: int = FORMAT
    keep_taken: bool = False
    nets: tuple[tuple[str, str], ...] = ()     # the networks that played: (weights, sha256)
    isolate: bool = False
    revisions: tuple[tuple[str, int], ...] = ()    # built-ins whose play changed (`revisions`)

    def __post_init__(self):
        self._check_plan()
        if not isinstance(self.keep_taken, bool):
            raise ValueError("keep_taken must be true or false")
        if (not isinstance(self.strategies, tuple) or len(self.strategies) != self.rules.players
                or not all(isinstance(x, str) and x for x in self.strategies)):
            raise ValueError(f"strategies must be {self.rules.players} texts, one per seat")

    @classmethod
    def from_dict(cls, d) -> StoredSpec:
        """The spec of a manifest (or of a part's metadata); ValueError names
        what is missing or wrong. Nothing in it is imported or run."""
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        missing = [k for k in ("format", "kind", "units", "seed", "batch_size", "rules",
                               "strategies") if k not in d]
        if missing:
            raise ValueError(f"no {', '.join(missing)}")
        fmt = d["format"]
        if type(fmt) is not int or fmt not in READABLE:
            newer = type(fmt) is int and fmt > FORMAT
            raise ValueError(f"store format {fmt!r} is " + (
                "of a newer scopa-sim: upgrade it to read this run" if newer else
                f"unknown (this scopa-sim reads {', '.join(map(str, READABLE))})"))
        if d["kind"] not in ("rounds", "games"):
            raise ValueError(f"kind must be rounds or games, not {d['kind']!r}")
        if not isinstance(d["rules"], dict):
            raise ValueError("rules must be a JSON object")
        rules = Rules(**{k: tuple(v) if isinstance(v, list) else v for k, v in d["rules"].items()})
        if not isinstance(d["strategies"], list):
            raise ValueError("strategies must be a list")
        return cls(rules, tuple(d["strategies"]), d["seed"], d["units"], d["kind"] == "games",
                   d["batch_size"], _sources_of(d.get("sources", {})), fmt,
                   d.get("keep_taken", False), _nets_of(d.get("nets", {})),
                   d.get("isolate", False), _revisions_of(d.get("revisions", {})))

    def as_dict(self) -> dict:
        """The spec as plain data, as `spec_dict` writes a run spec's."""
        sources = {s.text: {"reference": s.reference, "sha256": s.sha256} for s in self.sources}
        return {"format": self.format, "kind": "games" if self.games else "rounds",
                "units": self.units, "seed": self.seed, "batch_size": self.batch_size,
                "n_batches": self.n_batches, "rules": _plain(self.rules.settings()),
                "strategies": list(self.strategies), **({"sources": sources} if sources else {}),
                **({"nets": dict(self.nets)} if self.nets else {}),
                **({"revisions": dict(self.revisions)} if self.revisions else {}),
                **({"keep_taken": True} if self.keep_taken else {}),
                **({"isolate": True} if self.isolate else {})}


def shipped_before(played) -> str:
    """What to tell of a run whose shipped network (`played`: weights ->
    sha256, as its manifest's `nets`) is one shipped before
    (`engine.nets.EARLIER`): how to play it again; "" if it is not."""
    from ..engine import nets        # the kernels' net module only where nets played
    sha = dict(played).get("shipped")
    names = [name for name in nets.EARLIER if nets.earlier(name).sha256 == sha]
    return (f" (its network is {names[0]}, shipped before: net:weights={names[0]} plays it)"
            if names else "")


def _nets_of(d) -> tuple[tuple[str, str], ...]:
    """The manifest's `nets`, checked as data (weights -> sha256)."""
    if not isinstance(d, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and SHA256.fullmatch(v) for k, v in d.items()):
        raise ValueError("nets must be a JSON object: weights -> sha256 (64 hexadecimal digits)")
    return tuple(d.items())


def _revisions_of(d) -> tuple[tuple[str, int], ...]:
    """The manifest's `revisions`, checked as data (strategy -> a whole number)."""
    if not isinstance(d, dict) or not all(
            isinstance(k, str) and type(v) is int and 0 < v < 1000 for k, v in d.items()):
        raise ValueError("revisions must be a JSON object: strategy -> a whole number 1..999")
    return tuple(d.items())


def _sources_of(d) -> tuple[Source, ...]:
    """The manifest's `sources`, checked as data (text -> reference, sha256)."""
    if not isinstance(d, dict):
        raise ValueError("sources must be a JSON object")
    out = []
    for text, s in d.items():
        if not is_reference(text) or not text.rpartition(":")[2].isidentifier():
            raise ValueError(f"sources names {text!r}, not a user strategy PATH.py:NAME "
                             f"or module:NAME")
        if (not isinstance(s, dict) or not isinstance(s.get("reference"), str)
                or not (s.get("sha256") is None
                        or isinstance(s["sha256"], str) and SHA256.fullmatch(s["sha256"]))):
            raise ValueError(f"sources of {text}: give a reference (text) and a sha256 "
                             f"(64 hexadecimal digits)")
        out.append(Source(text, s["reference"], s.get("sha256")))
    return tuple(out)


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    return x
