"""The house's structure in figures, read from the source (tests/house.py):
import circles, modules outside engine/ importing kernel code, the longest
kernel signature, play-out loops, modules over 500 lines, imports inside
functions and copies of the defaults.

    .venv/bin/python benchmarks/house_figures.py
"""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "house", Path(__file__).resolve().parent.parent / "tests" / "house.py")
house = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(house)

DEFAULTS = {"DEEP_STRATEGY", "DEEP_SAMPLES", "DEEP_BATCH", "DEFAULT_ROLLOUTS", "DEFAULT_STRATEGY",
            "THRESHOLDS"}


def main():
    graph = house.imports(typing=True)
    found = house.circles(graph)
    print(f"import circles (type-only imports too): {len(found)}"
          + "".join(f"\n  {' '.join(c)}" for c in found))
    constants = ("scopa_sim.kernels.layout", "scopa_sim.kernels.registry")
    callers = sorted(m for m, targets in graph.items()
                     if not m.startswith(("scopa_sim.kernels", "scopa_sim.engine"))
                     and any(t.startswith("scopa_sim.kernels") and t not in constants
                             for t in targets))
    print(f"modules outside engine/ importing kernel code: {len(callers)}"
          + (f" ({', '.join(callers)})" if callers else ""))
    longest = max(house.kernel_functions(), key=lambda f: house.parameters(f[1]))
    print(f"longest kernel signature: {house.parameters(longest[1])} parameters "
          f"({longest[0]}.{longest[1].name})")
    loops = house.play_out_loops()
    print(f"play-out loops in kernels: {len(loops)} ({', '.join(loops)})")
    long = house.long_modules()
    print(f"modules over 500 lines: {len(long)} ("
          + ", ".join(f"{m} {n}" for m, n in sorted(long.items(), key=lambda x: -x[1])) + ")")
    inner = house.inner_imports()
    print(f"imports inside functions: {sum(inner.values())} ("
          + ", ".join(f"{m} {n}" for m, n in sorted(inner.items(), key=lambda x: -x[1])[:6])
          + ", ...)")
    copies = {k: v for k, v in house.assignments(DEFAULTS).items() if v}
    print("defaults assigned: " + ", ".join(f"{k} x{len(v)} ({' '.join(v)})"
                                             for k, v in sorted(copies.items())))
    print(f"modules: {len(house.modules())}")


if __name__ == "__main__":
    main()
