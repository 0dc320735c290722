"""`scopa-sim rules` and `scopa-sim strategies`: what can be chosen."""
from __future__ import annotations

import click

from .options import out as console


@click.command("rules")
def rules_cmd():
    """List the rules presets, their settings, and the rule options.

    \b
    Any option changes any preset: --rule NAME=VALUE (repeatable), e.g.
      scopa-sim simulate --rules scopa-3 --rule target=8 --rounds 10000
    Every preset and option, exactly: docs/VARIANTS.md.
    """
    # imported when the command runs: help and listings stay light
    from rich.table import Table

    from ..engine.rules import DESCRIPTIONS, FLAGS, PRESETS, SETTINGS, Rules
    table = Table(title="rules presets (--rules NAME)", show_lines=True)
    table.add_column("preset", no_wrap=True)
    table.add_column("settings; description")
    for name, r in PRESETS.items():
        table.add_row(name, f"{DESCRIPTIONS.get(name, '')}\n[dim]players={r.players} "
                            f"teams={','.join(map(str, r.teams))} hand_size={r.hand_size} "
                            f"table_size={r.table_size} refill={str(r.refill).lower()} "
                            f"target={r.target}[/dim]")
    out = console()
    out.print(table)
    options = Table(title="rule options (--rule NAME=VALUE, any preset; the rules are then "
                          "named e.g. scopa+fewest_cards)", show_lines=True)
    options.add_column("option", no_wrap=True)
    options.add_column("default", overflow="fold")
    options.add_column("meaning [dim]- source[/dim]")
    default = Rules()
    for name, (meaning, source) in FLAGS.items():
        value = getattr(default, name)
        shown = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value).lower()
        options.add_row(name, shown, f"{meaning} [dim]- {source}[/dim]")
    for name, meaning in SETTINGS.items():
        options.add_row(name, "preset", meaning)
    out.print(options)


@click.command("strategies")
def strategies_cmd():
    """List the strategies, their parameters and defaults.

    \b
    Your own: PATH.py:NAME or package.module:NAME wherever a strategy name
    works, e.g. scopa-sim compare docs/examples/greedy_jit.py:greedy greedy
    (the contract: docs/STRATEGIES.md).
    """
    # imported when the command runs: help and listings stay light
    from rich.table import Table

    from ..engine.strategies import REGISTRY
    table = Table(title="strategies (write name:key=value,key=value)")
    for col in ("strategy", "description", "parameters (defaults)"):
        table.add_column(col)
    for s in REGISTRY.values():
        table.add_row(s.name, s.description, s.defaults())
    out = console()
    out.print(table)
    out.print("Your own strategy: PATH.py:NAME or package.module:NAME wherever a name works "
              "(docs/STRATEGIES.md).", markup=False)


COMMANDS = (rules_cmd, strategies_cmd)
