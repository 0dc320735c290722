"""The layers, read from the source (`house`, AST): no import circle, and each
layer imports only those below it (docs/DEVELOPING.md, "Layers")."""
import pytest

import house

GRAPH = house.imports()                 # imports anywhere, inside functions too
LAYERS = {                              # a layer -> what it may import of the package
    "scopa_sim.kernels": ("scopa_sim.kernels",),
    "scopa_sim.engine": ("scopa_sim.engine", "scopa_sim.kernels", "scopa_sim.observation",
                         "scopa_sim.defaults", "scopa_sim.data"),
    "scopa_sim.runs": ("scopa_sim.runs", "scopa_sim.engine", "scopa_sim.kernels",
                       "scopa_sim.observation", "scopa_sim.defaults", "scopa_sim.analysis.summary"),
    "scopa_sim.analysis": ("scopa_sim.analysis", "scopa_sim.engine", "scopa_sim.kernels",
                           "scopa_sim.runs.store", "scopa_sim.runs.parts", "scopa_sim.runs.plan",
                           "scopa_sim.runs.taken", "scopa_sim.defaults"),
    "scopa_sim.study": ("scopa_sim.study", "scopa_sim.runs", "scopa_sim.engine",
                        "scopa_sim.analysis", "scopa_sim.kernels", "scopa_sim.defaults",
                        "scopa_sim.data"),
}


def _in(module, prefixes):
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_house_reads_every_layer():
    for layer in (*LAYERS, "scopa_sim.cli"):
        assert any(_in(m, (layer,)) for m in GRAPH), layer


def test_no_import_circle():
    assert house.circles(GRAPH) == []


def test_the_circle_finder_finds_one():
    assert house.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_those_below_it(layer):
    wrong = {f"{m} -> {t}" for m, targets in GRAPH.items() if _in(m, (layer,))
             for t in targets if t != "scopa_sim" and not _in(t, LAYERS[layer])}
    assert not wrong, sorted(wrong)


def test_the_store_does_not_import_the_runner():
    assert "scopa_sim.runs.runner" not in house.reaches(GRAPH, "scopa_sim.runs.store")


def test_analysis_never_runs_games():
    for m in GRAPH:
        if _in(m, ("scopa_sim.analysis",)):
            loaded = house.reaches(GRAPH, m)
            assert not {"scopa_sim.runs.runner", "scopa_sim.runs.executors"} & loaded, m


def test_only_the_command_line_imports_the_command_line():
    assert not [m for m, t in GRAPH.items() if not _in(m, ("scopa_sim.cli",))
                and any(_in(x, ("scopa_sim.cli",)) for x in t)]


def test_the_defaults_are_set_once():
    names = {"DEEP_STRATEGY", "DEEP_SAMPLES", "DEEP_BATCH", "DEFAULT_ROLLOUTS",
             "DEFAULT_STRATEGY", "THRESHOLDS"}
    assert {k: v for k, v in house.assignments(names).items()} == {
        n: ["scopa_sim.defaults"] for n in names}
