"""One reader of rule options (issue 25): `--rules preset+a+b=1` and
`--rule a --rule b=1` give the same rules, or the same error, for the same
options however they are written."""
import pytest

from scopa_sim.cli.options import parse_rules

OPTIONS = [
    ["target=21"], ["napola"], ["napola=true"], ["napola=1"], ["re-bello"],
    ["target=8", "target=8"],                               # repeated, one value
    ["target=8", "target=9"],                               # contradictory
    ["napola", "napola=false"],                             # contradictory, bare and written
    ["fewest_cards", "fewest-cards=yes"],
    ["primiera_scale=16,12,13,14,15,18,21,10,10,10"],
    ["target=21", "napola", "re_bello=on", "scopa_on_last_play"],
    ["players=3"], ["players=5"],                           # a bad combination
    ["tagret=21"],                                          # unknown
    ["target=21.5"], ["target="], ["=3"], ["target=٣"],     # bad values, a bad name
    ["ace_takes_all", "target=16", "target=16"],
    ["hand_size=10", "table_size=0", "refill=false", "players=4", "teams=0,1,0,1"],
]


def outcome(rules, options):
    try:
        return parse_rules(rules, tuple(options))
    except ValueError as e:
        return f"error: {e}"


@pytest.mark.parametrize("options", OPTIONS, ids="+".join)
def test_rules_and_rule_agree(options):
    written = outcome("scopa+" + "+".join(options), ())
    assert written == outcome("scopa", options)
    assert written == outcome("scopa+" + options[0], options[1:])        # and mixed


def test_a_contradiction_names_the_option_and_both_values():
    assert outcome("scopa+target=8", ["target=9"]) == (
        "error: rule option target is given twice, as 8 and 9: give it once")
