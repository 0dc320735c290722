"""Training the net strategy: `scopa-sim train` (the recipe: docs/STRENGTH.md).

The recipe, one-step rollout targets: rounds are played by `lineup`
(endgame at every seat, a random legal move one time in ten), and at each
decision the network would make every legal move is played on to the end of
the round by `rollout` (endgame) on `worlds` (8) deals of the cards the mover
has not seen, sampled as the searches sample them (`study.selfplay`); a
move's target is its mean margin. The network learns that value from what the
mover sees, so playing its best move is one step of policy improvement over
endgame, the hidden cards averaged over the whole training instead of
sampled at each decision. The loss compares each move's value less its
decision's mean (the deal's luck cancels there), plus a little of the plain
error (`anchor`).

Expert iteration (`teacher`): a pimc or spimc search (e.g.
`pimc:leaf=net,depth=4,samples=40`) values every move of each decision
instead, from what the mover sees, and its values are the targets; `start`
sets the learner's first weights (the shipped network, to refine it; a
narrower one is widened to `hidden`) and `generation` hands each
generation's teacher, and lineup, the network that ended the one before.

Rounds come in chunks (`Settings.chunk`), each generated on all cores and
added to a replay of the last `replay` chunks; after each chunk the learner
takes `passes` passes' worth of minibatch steps on the replay (Adam, cosine
learning rate over the budget). Every chunk is a pure function of (seed,
chunk index), so a resumed training regenerates its replay and goes on with
the same numbers. The folder::

    settings.json   what the training was started with (--resume checks it)
    checkpoint.pt   the learner: model, optimiser, random states, progress
    net.npz         the network of the latest checkpoint (net:weights=OUT/net.npz)
    curve.csv       a row per strength check: seconds, samples, loss, and net's
                    margin over endgame on `check` duplicate deals (`deals=0`), with its interval
    curve.png       the learning curve: strength against wall time
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np

from ..engine import nets
from ..engine.rules import Rules
from ..engine.nets import F_SIZE, features
from ..engine.strategies import parse_strategy
from ..runs.executors import executor
from ..runs.runner import warm_kernels
from .matches import compare
from .selfplay import generate

SETTINGS, CHECKPOINT, NET, CURVE, CHART = ("settings.json", "checkpoint.pt", "net.npz",
                                           "curve.csv", "curve.png")
CURVE_FIELDS = ("chunk", "samples", "seconds", "loss", "margin", "low", "high", "deals")
TORCH = "2.13.0"                    # the pinned version (pyproject's `train` extra)
TEACHERS = ("pimc", "spimc")        # searches that leave every root move's value (`--teacher`)


class TrainError(ValueError):
    """A training that cannot start or resume (one line)."""


@dataclass(frozen=True)
class Settings:
    """What a training is: the rules, the seed, the budget and the recipe."""
    preset: str = "scopa"
    seed: int = 1
    samples: int = 0               # stop after this many samples (0: no limit)
    hours: float = 0.0             # or after this many hours (0: no limit)
    hidden: tuple = (256, 128)     # the hidden layers' widths
    chunk: int = 10_000            # rounds per chunk
    replay: int = 8                # chunks the learner samples from
    passes: float = 4.0            # minibatch steps per chunk: passes x its samples / batch
    batch: int = 1024
    lr: float = 2e-3
    explore: float = 0.1
    worlds: int = 8                # 0: targets in the true deal; k: over k sampled deals
    lineup: str = "endgame"
    rollout: str = "endgame"
    anchor: float = 0.1            # weight of the plain value error beside the move differences
    rank: float = 0.0              # weight of the ranking loss (`ranking`) beside them
    temperature: float = 0.25      # its softmax's temperature, in points
    generation: int = 0            # chunks per generation (0: one generation, endgame's rollouts)
    check: int = 2000              # duplicate deals of each strength check (0: none)
    check_every: int = 4           # chunks between checks
    teacher: str = ""              # a pimc or spimc search: its move values are the targets
    start: str = ""                # the network the learner starts from ("": fresh weights)

    def __post_init__(self):
        Rules.resolve(self.preset)
        if self.samples <= 0 and self.hours <= 0:
            raise TrainError("give a budget: --samples N or --hours H")
        for name in ("chunk", "replay", "batch"):
            if not 0 < getattr(self, name) <= 10**8:
                raise TrainError(f"{name} must be a whole number 1..10**8")
        if not 0 <= self.generation <= 10**8:
            raise TrainError("generation must be a whole number 0..10**8")
        if self.teacher:
            self.teaching(0, Path("."))

    def teaching(self, g: int, out: Path) -> str | None:
        """The teacher of generation g as a strategy spec: with generations,
        its network is the one that ended the generation before; None
        without a teacher."""
        if not self.teacher:
            return None
        try:
            s = parse_strategy(self.teacher)
        except ValueError as e:
            raise TrainError(f"--teacher: {e}") from None
        if s.name not in TEACHERS:
            raise TrainError(f"--teacher is a pimc or spimc search (its move values are the "
                             f"targets), e.g. pimc:leaf=net,depth=4,samples=40, "
                             f"not {self.teacher!r}")
        if s.users():
            raise TrainError("--teacher: self-play plays built-in strategies only, not a "
                             "strategy of yours as its rollout")
        if self.generation and "weights=" in str(s):
            raise TrainError("--teacher: leave its weights out with --generation: each "
                             "generation's teacher plays the network of the one before")
        return f"{s},weights={out / f'gen-{g}.npz'}" if g else str(s)

    def first_weights(self) -> tuple:
        """The arrays of the network the learner starts from, checked; a
        narrower one widened to `hidden` (`widened`: the same function)."""
        try:
            w = (nets.load(self.start) if self.start != "shipped"
                 else nets.resolve(0, Rules.resolve(self.preset)))    # the preset's own, if any
        except (OSError, ValueError) as e:
            raise TrainError(f"--start: {e}") from None
        if any(have > want for have, want in zip(w.shape, self.hidden)):
            raise TrainError(f"--start: {self.start} is a {w.shape[0]}x{w.shape[1]} network, "
                             f"wider than the training's {self.hidden[0]}x{self.hidden[1]}")
        return widened(w.arrays, self.hidden, np.random.default_rng(self.seed))

    def done(self, samples: int, seconds: float) -> bool:
        return (0 < self.samples <= samples) or (0 < self.hours <= seconds / 3600)

    def progress(self, samples: int, seconds: float) -> float:
        """How far through the budget, 0..1 (the larger of the two)."""
        return min(1.0, max(samples / self.samples if self.samples else 0.0,
                            seconds / 3600 / self.hours if self.hours else 0.0))

    @classmethod
    def read(cls, path: Path) -> Settings:
        d = json.loads(path.read_text())
        d["hidden"] = tuple(d["hidden"])
        return cls(**{f.name: d[f.name] for f in fields(cls) if f.name in d})


def _torch():
    try:
        import torch
    except ImportError:
        raise TrainError(f"scopa-sim train needs torch: pip install 'scopa-sim[train]' "
                         f"(torch=={TORCH}, CPU)") from None
    return torch


def model(hidden, torch):
    """The network as torch layers: F -> H1 -> H2 -> 1 with ReLUs."""
    h1, h2 = hidden
    return torch.nn.Sequential(torch.nn.Linear(F_SIZE, h1), torch.nn.ReLU(),
                               torch.nn.Linear(h1, h2), torch.nn.ReLU(), torch.nn.Linear(h2, 1))


def arrays(net) -> tuple:
    """The torch network as the kernel's float32 arrays (w1, b1, w2, b2, w3, b3)."""
    first, second, last = net[0], net[2], net[4]
    out = (first.weight.T, first.bias, second.weight.T, second.bias, last.weight[0], last.bias)
    return tuple(np.ascontiguousarray(t.detach().numpy(), np.float32) for t in out)


def widened(arrays: tuple, hidden, rng: np.random.Generator) -> tuple:
    """The network `arrays` (w1, b1, w2, b2, w3, b3) with its hidden layers
    widened to `hidden`, computing the same function (Net2Net): each new
    unit copies a random old one, and the copies share the old unit's
    outgoing weights in random parts (unequal, so that training tells
    them apart)."""
    w1, b1, w2, b2, w3, b3 = arrays

    def split(width: int, wanted: int) -> tuple[np.ndarray, np.ndarray]:
        """Which old unit each new one copies, and its part of the outgoing weights."""
        copies = np.r_[np.arange(width), rng.integers(0, width, wanted - width)]
        share = np.r_[np.ones(width), rng.uniform(0.2, 0.8, wanted - width)]
        total = np.bincount(copies, share, width)
        return copies, (share / total[copies]).astype(np.float32)

    c1, s1 = split(w1.shape[1], hidden[0])
    c2, s2 = split(w2.shape[1], hidden[1])
    w2 = w2[c1] * s1[:, None]
    return (w1[:, c1], b1[c1], w2[:, c2], b2[c2], w3[c2] * s2, b3)


def _load_weights(net, arrays: tuple, torch) -> None:
    """Set the torch network to the kernel's arrays (the inverse of `arrays`)."""
    w1, b1, w2, b2, w3, b3 = arrays
    first, second, last = net[0], net[2], net[4]
    with torch.no_grad():
        for param, value in ((first.weight, w1.T), (first.bias, b1), (second.weight, w2.T),
                             (second.bias, b2), (last.weight, w3[None, :]),
                             (last.bias, np.reshape(b3, 1))):
            param.copy_(torch.from_numpy(np.ascontiguousarray(value, np.float32)))


class Replay:
    """The last chunks' samples (afterstates, targets, decisions), by chunk;
    a decision's moves are consecutive rows, `starts`/`ends` each's rows."""

    def __init__(self, keep: int):
        self.keep, self.chunks = keep, {}

    def add(self, k: int, samples: tuple) -> None:
        self.chunks[k] = samples
        for old in [c for c in self.chunks if c <= k - self.keep]:
            del self.chunks[old]
        self.after, self.target, decision = (
            np.concatenate([self.chunks[c][i] for c in sorted(self.chunks)]) for i in range(3))
        self.starts = np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]])
        self.ends = np.r_[self.starts[1:], len(decision)]


def train(out: Path, settings: Settings | dict | None = None, resume: bool = False,
          workers: int | None = None, progress=None, scheduler=None) -> dict:
    """Train a network into folder `out` (see the module docstring); with
    `resume`, go on from its checkpoint, with the folder's settings (and the
    budget, or any setting that agrees, from `settings`: a Settings or a dict
    of options). The rounds run on `workers` threads or on `scheduler` (as
    `simulate` takes it); the learner here, on `workers` threads.
    `progress(state)` after each chunk. Returns the last state: chunk,
    samples, seconds, loss, curve."""
    torch = _torch()
    out = Path(out)
    settings = prepare(out, settings, resume)
    workers = workers or os.cpu_count() or 1
    with executor(workers, scheduler, setup=warm_kernels) as ex:   # before anything is written
        return _train(out, settings, resume, workers, ex, progress, torch)


def _train(out: Path, settings: Settings, resume: bool, workers: int, ex, progress,
           torch) -> dict:
    """`train`, its settings checked, its rounds played on executor `ex`."""
    out.mkdir(parents=True, exist_ok=True)
    rules = Rules.resolve(settings.preset)
    torch.set_num_threads(workers)
    torch.manual_seed(settings.seed)
    net = model(settings.hidden, torch)
    if settings.start and not (resume and (out / CHECKPOINT).exists()):
        _load_weights(net, settings.first_weights(), torch)
    opt = torch.optim.Adam(net.parameters(), lr=settings.lr)
    state = {"chunk": 0, "samples": 0, "seconds": 0.0, "loss": float("nan"), "steps": 0}
    rng = np.random.default_rng(settings.seed)
    if resume and (out / CHECKPOINT).exists():
        try:                            # tensors and plain data only: no pickled code runs
            saved = torch.load(out / CHECKPOINT, weights_only=True)
            net.load_state_dict(saved["model"])
            opt.load_state_dict(saved["optimizer"])
            torch.set_rng_state(saved["torch_rng"])
            rng.bit_generator.state = saved["rng"]
            state = dict(saved["state"])
        except Exception as e:
            raise TrainError(f"{out / CHECKPOINT} is damaged or not a checkpoint of this "
                             f"training ({type(e).__name__}): start a new training") from None
    _keep(out, settings)                # a resume's new budget, once its checkpoint has loaded
    replay = Replay(settings.replay)
    for k in range(max(0, state["chunk"] - settings.replay), state["chunk"]):
        replay.add(k, _chunk(out, rules, settings, k, ex))
    curve = _read_curve(out / CURVE)
    while not settings.done(state["samples"], state["seconds"]):
        started = time.perf_counter()
        k = state["chunk"]
        if settings.generation and k and k % settings.generation == 0:
            _save_net(out, arrays(net), settings, state, f"gen-{k // settings.generation}.npz")
        samples = _chunk(out, rules, settings, k, ex)
        replay.add(k, samples)
        target = samples[1]
        steps = max(1, int(settings.passes * len(target) / settings.batch))
        state["loss"] = _learn(net, opt, replay, steps, settings, state, rng, torch)
        state["chunk"], state["samples"] = k + 1, state["samples"] + len(target)
        state["seconds"] += time.perf_counter() - started
        weights = arrays(net)
        _save_net(out, weights, settings, state)
        finished = settings.done(state["samples"], state["seconds"])
        if settings.check and ((k + 1) % settings.check_every == 0 or finished):
            curve.append(_check(out, rules, settings, state, ex))
            _write_curve(out, curve)
        _checkpoint(out, net, opt, rng, state, torch)
        if progress:
            progress({**state, "curve": curve})
    return {**state, "curve": curve}


def prepare(out: Path, settings: Settings | dict | None, resume: bool) -> Settings:
    """The settings to train with, checked, torch at hand: new ones for an
    empty (or new) folder, or, with `resume`, the folder's own, with the
    budget given (`settings`: a Settings, or a dict of the options given; any
    other that differs from the folder's is refused, named). Nothing is
    written: a bad option is refused before anything starts."""
    _torch()
    out = Path(out)
    if str(out) in ("", "."):
        raise TrainError("--out names a folder of its own, not the current one")
    held = out / SETTINGS
    if out.exists() and not out.is_dir():
        raise TrainError(f"{out} is a file: --out names a folder")
    if resume:
        if not held.is_file():
            raise TrainError(f"{out} holds no training to resume (no {SETTINGS})")
        try:
            stored = Settings.read(held)
        except (ValueError, KeyError, TypeError) as e:
            raise TrainError(f"{held} is damaged ({e}): start a new training") from None
        given = asdict(settings) if isinstance(settings, Settings) else dict(settings or {})
        budget = {k: given.pop(k) for k in ("samples", "hours") if k in given}
        changed = [f"{k} {v} (it was started with {getattr(stored, k)})"
                   for k, v in given.items() if getattr(stored, k) != v]
        if changed:
            raise TrainError(f"{out} was started with other settings: {'; '.join(changed)}: "
                             f"resume it with its own (leave them out), or train into "
                             f"another folder")
        return replace(stored, **budget) if any(budget.values()) else stored
    if isinstance(settings, dict):
        settings = Settings(**settings)
    if settings is None:
        raise TrainError("give a budget: --samples N or --hours H")
    if held.exists():
        raise TrainError(f"{out} holds a training: --resume to go on with it, or choose "
                         f"another --out")
    if out.is_dir() and any(out.iterdir()):
        raise TrainError(f"{out} is a folder with other files in it: choose a new or empty --out")
    if settings.start:
        settings.first_weights()
    return settings


def _keep(out: Path, settings: Settings) -> None:
    """Write `settings` to the folder's settings.json, if they are not what it holds."""
    text = json.dumps(asdict(settings), indent=1).encode()
    held = out / SETTINGS
    if not held.is_file() or held.read_bytes() != text:
        _atomic(held, text)


# the network alone, without the sampled endgame `net` plays in the end of multi-seat rounds
ALONE = "deals=0"


def _chunk(out: Path, rules, settings: Settings, k: int, ex) -> tuple:
    """Chunk k's samples: played and rolled out by the recipe's strategies in
    the first generation, by the network that ended the one before after it."""
    g = k // settings.generation if settings.generation else 0
    player = f"net:weights={out / f'gen-{g}.npz'},{ALONE}" if g else None
    return generate(rules, settings.seed, k * settings.chunk, settings.chunk,
                    player or settings.lineup, player or settings.rollout, settings.explore,
                    settings.worlds, teacher=settings.teaching(g, out), scheduler=ex)


def _learn(net, opt, replay: Replay, steps: int, settings: Settings, state: dict, rng,
           torch) -> float:
    """`steps` minibatch steps on the replay; the mean loss. A minibatch is
    whole decisions (about `batch` moves); the loss is the error in each
    move's value less its decision's mean (the deal's luck, shared by every
    move of a decision on the same cards, cancels there) plus `anchor` times
    the plain error."""
    total = 0.0
    decisions = max(1, settings.batch // 4)
    mse = torch.nn.functional.mse_loss
    for _ in range(steps):
        frac = settings.progress(state["samples"], state["seconds"])
        warm = min(1.0, (state["steps"] + 1) / 200)
        for group in opt.param_groups:
            group["lr"] = settings.lr * warm * 0.5 * (1 + math.cos(math.pi * frac))
        pick = rng.integers(0, len(replay.starts), decisions)
        sizes = replay.ends[pick] - replay.starts[pick]
        rows = np.repeat(replay.ends[pick] - sizes.cumsum(), sizes) + np.arange(sizes.sum())
        group = torch.from_numpy(np.repeat(np.arange(decisions), sizes))
        x = torch.from_numpy(features(replay.after[rows]))
        y = torch.from_numpy(replay.target[rows])
        v = net(x)[:, 0]
        count = torch.from_numpy(sizes.astype(np.float32))

        def centred(t):
            return t - (torch.zeros(decisions).index_add_(0, group, t) / count)[group]
        loss = mse(centred(v), centred(y)) + settings.anchor * mse(v, y)
        if settings.rank:
            loss = loss + settings.rank * ranking(v, y, group, decisions,
                                                  settings.temperature, torch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        state["steps"] += 1
        total += float(loss.detach())
    return total / steps


def ranking(v, y, group, decisions: int, temperature: float, torch):
    """The listwise ranking loss: over each decision's moves, the cross-
    entropy of the softmax of the values `v` against the softmax of the
    targets `y` (both over `temperature`), averaged over the decisions. It
    weighs the few best moves, which the squared error of every move's
    difference hardly tells apart."""
    def log_softmax(t):
        t = t / temperature
        top = torch.full((decisions,), -math.inf).scatter_reduce(0, group, t, "amax")
        shifted = t - top[group]
        total = torch.zeros(decisions).index_add_(0, group, shifted.exp())
        return shifted - total.log()[group]
    return -(log_softmax(y).exp() * log_softmax(v)).sum() / decisions


def _check(out: Path, rules, settings: Settings, state: dict, ex) -> dict:
    """The network alone against endgame on the check's duplicate deals (always the same ones)."""
    r = compare(f"net:weights={out / NET},{ALONE}", "endgame", rules=rules, seed=settings.seed + 1,
                deals=settings.check, scheduler=ex)
    m = r["margin"]
    return {"chunk": state["chunk"], "samples": state["samples"],
            "seconds": round(state["seconds"], 1), "loss": round(state["loss"], 4),
            "margin": m["estimate"], "low": m["low"], "high": m["high"],
            "deals": settings.check}


@contextmanager
def _replacing(path: Path, suffix: str = ".tmp"):
    """A temporary file beside `path`, to write in the block, then renamed
    to `path` (removed if the block fails). An OSError names `path`, never
    the temporary file."""
    tmp = path.with_name(path.name + suffix)
    try:
        yield tmp
        os.replace(tmp, path)
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from None
    finally:
        tmp.unlink(missing_ok=True)


def _save_net(out: Path, weights, settings: Settings, state: dict, name: str = NET) -> None:
    with _replacing(out / name) as tmp:
        nets.save(tmp, weights, {"preset": settings.preset, "seed": settings.seed,
                                 "samples": state["samples"], "chunk": state["chunk"],
                                 "settings": asdict(settings)})


def _checkpoint(out: Path, net, opt, rng, state: dict, torch) -> None:
    with _replacing(out / CHECKPOINT) as tmp:
        torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(),
                    "torch_rng": torch.get_rng_state(), "rng": rng.bit_generator.state,
                    "state": dict(state)}, tmp)


def _atomic(path: Path, data: bytes) -> None:
    with _replacing(path) as tmp:
        tmp.write_bytes(data)


def _read_curve(path: Path) -> list[dict]:
    if not path.exists():
        return []
    whole = ("chunk", "samples", "deals")
    with path.open() as f:
        return [{k: int(v) if k in whole else float(v) for k, v in row.items()}
                for row in csv.DictReader(f)]


def _write_curve(out: Path, curve: list[dict]) -> None:
    """curve.csv and curve.png."""
    text = io.StringIO()
    w = csv.DictWriter(text, CURVE_FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(curve)
    _atomic(out / CURVE, text.getvalue().encode())
    chart(curve, out / CHART)


def chart(curve: list[dict], path: Path) -> None:
    """The learning curve: net's margin over endgame against wall time."""
    import matplotlib                   # when the curve is drawn: the import is heavy
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    minutes = [r["seconds"] / 60 for r in curve]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.fill_between(minutes, [r["low"] for r in curve], [r["high"] for r in curve],
                    alpha=0.25, label="95% interval")
    ax.plot(minutes, [r["margin"] for r in curve], marker="o", label="net − endgame")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("training time (minutes, 2 cores)")
    ax.set_ylabel("points a round over endgame")
    ax.set_title("net against endgame on duplicate deals")
    ax.legend(loc="lower right")
    fig.tight_layout()
    try:
        with _replacing(path, ".tmp.png") as tmp:
            fig.savefig(tmp, dpi=110)
    finally:
        plt.close(fig)
