"""`scopa-sim train`: train the net strategy's network. Thin: the work is in
`scopa_sim.study.train` (needs the `train` extra: torch)."""
from __future__ import annotations

import click
from click.core import ParameterSource

from .options import (QUIET, check_out, cluster_options, note, OutPath, parse_seed, progress,
                      results, where, workers_option)


@click.command()
@click.option("--out", "out_dir", type=OutPath(folder=True), required=True,
              help="A new folder for the network (net.npz), its checkpoint, and its learning "
                   "curve (curve.csv, curve.png); with --resume, the folder to go on with.")
@click.option("--preset", default="scopa", show_default=True,
              help="The rules to train for (a preset, see `scopa-sim rules`).")
@click.option("--samples", type=click.IntRange(1, 10**12),
              help="Stop after this many training samples (a sample: one legal move played "
                   "on to the end of its round).")
@click.option("--hours", type=click.FloatRange(0, 1000, min_open=True),
              help="Stop after this much training time.")
@click.option("--seed", type=str, default="1", show_default=True,
              help="Seed, 0..2**64-1: the same seed and settings give the same network.")
@click.option("--check", type=click.IntRange(0, 10**7), default=2000, show_default=True,
              help="Duplicate deals of each strength check against endgame (0: none, and "
                   "so no curve.csv or curve.png).")
@click.option("--chunk", type=click.IntRange(1, 10**7), default=10_000, show_default=True,
              help="Rounds per chunk: the learner trains after each, and a checkpoint is "
                   "written.")
@click.option("--teacher", default="", metavar="SPEC",
              help="Expert iteration: a pimc or spimc search whose values of a decision's "
                   "moves are their targets, instead of endgame's rollouts (e.g. "
                   "pimc:leaf=net,depth=4,samples=40, or spimc:samples=100).")
@click.option("--start", default="", metavar="WEIGHTS",
              help="The network the learner starts from: a weights file, or `shipped` "
                   "(default: fresh weights).")
@click.option("--generation", type=click.IntRange(0, 10**8), default=0, show_default=True,
              help="Chunks per generation: after each, the network so far plays the rounds "
                   "and is the teacher's (or the rollouts') net (0: one generation).")
@click.option("--hidden", default="256,128", show_default=True, metavar="H1,H2",
              callback=lambda ctx, param, text: _widths(text),
              help="The hidden layers' widths; a narrower --start network is widened to "
                   "them, computing the same function (Net2Net).")
@click.option("--lr", type=click.FloatRange(0, 1, min_open=True), default=2e-3,
              show_default=True,
              help="The learning rate at its peak (it warms up, then falls as a cosine over "
                   "the budget); lower to refine a --start network.")
@click.option("--resume", is_flag=True,
              help="Go on with the training in --out, with its own settings (after Ctrl-C, "
                   "a kill, or to a larger budget: --samples or --hours); an option given "
                   "that differs from the training's is refused.")
@workers_option
@cluster_options
@QUIET
def train(out_dir, preset, samples, hours, seed, check, chunk, teacher, start, generation,
          hidden, lr, resume, workers, scheduler, cluster, quiet):
    """Train the `net` strategy's network by self-play (docs/STRENGTH.md).

    Rounds are played by endgame; every legal move of the decisions the
    network makes is played on to the end of the round, and the network
    learns each move's mean margin from what the mover sees. After every
    fourth chunk of rounds (10,000 each) the network plays endgame on the
    same duplicate deals: curve.csv and curve.png show its strength against
    training time. With --teacher, a search's values of the moves are the
    targets instead (expert iteration; --start and --generation let the
    network it makes drive the next search). The rounds run on the cores
    here, or on a Dask cluster (--scheduler, --cluster): the same network
    for the same seed, wherever they run; the learner trains here.
    Needs torch: pip install 'scopa-sim[train]'.

    \b
    Examples:
      scopa-sim train --out mynet --samples 20000000      # the shipped network: this,
      scopa-sim train --out mynet --resume --samples 30000000   # then this
      scopa-sim train --out mynet --resume                # go on after Ctrl-C
      scopa-sim train --out s3 --preset scopa-3 --hours 1
      scopa-sim train --out ex --start shipped --teacher pimc:leaf=net,depth=4 --hours 1
      scopa-sim train --out wide --start shipped --hidden 384,128 --teacher spimc:samples=100 \
          --lr 3e-4 --hours 1
      scopa-sim simulate --strategies net:weights=mynet/net.npz,endgame
    """
    check_out([out_dir], folder=True)
    scheduler = where(scheduler, cluster)
    # imported when the command runs: help and listings stay light
    from ..engine.compiled import training_needs_compile
    from ..runs.executors import executor
    from ..runs.runner import warm_kernels
    from ..study.train import prepare, train as run
    options = dict(preset=preset, seed=parse_seed(seed), samples=samples or 0,
                   hours=hours or 0.0, check=check, chunk=chunk, teacher=teacher, start=start,
                   generation=generation, hidden=hidden, lr=lr)
    ctx = click.get_current_context()
    given = {k: v for k, v in options.items()
             if ctx.get_parameter_source(k) is not ParameterSource.DEFAULT}
    settings = prepare(out_dir, given if resume else options if samples or hours else None,
                       resume)
    compiling = training_needs_compile()
    if compiling and not quiet:
        note("train: compiling the self-play kernels first (first run only: minutes)")
    bar = progress(quiet, "train", False)
    with executor(workers, scheduler, setup=warm_kernels) as ex, bar:      # a cluster reached
        task = bar.add_task("", total=None, note="compiling, then generating the first chunk"
                            if compiling else "generating the first chunk")

        def show(state):
            last = state["curve"][-1] if state["curve"] else None
            strength = (f", vs endgame {last['margin']:+.3f} [{last['low']:+.3f}, "
                        f"{last['high']:+.3f}]" if last else "")
            bar.update(task, completed=state["samples"],
                       note=f"{state['samples'] / max(state['seconds'], 1e-9):,.0f} samples/s, "
                            f"loss {state['loss']:.3f}{strength}")
        state = run(out_dir, settings, resume=resume, workers=workers, progress=show,
                    scheduler=ex)
    if not quiet:
        note(f"train: {state['samples']:,} samples in {state['seconds'] / 60:.1f} min; "
             f"play it with net:weights={out_dir / 'net.npz'}")
    click.echo(str(out_dir / "net.npz"), file=results())


def _widths(text: str) -> tuple[int, int]:
    """--hidden's two widths, each 1..nets.MAX_WIDTH."""
    from ..engine.nets import MAX_WIDTH
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and 0 < int(p) <= MAX_WIDTH
                                  for p in parts):
        raise click.BadParameter(f"two widths 1..{MAX_WIDTH}, as 256,128; not {text!r}",
                                 param_hint="--hidden")
    return int(parts[0]), int(parts[1])


COMMANDS = (train,)
