"""Every preset and rule option of the Scopa family (docs/VARIANTS.md), each
from a stacked deck or position where the variant changes what happens
against the default, written from the rule texts in shared/seeds/.

Rounds are played with `Round`: moves the text names are played by hand,
the rest by `play_out` (always the first legal move, so the same deck plays
the same way under any rules that allow it).
"""
import re

import pytest
from click.testing import CliRunner

import scopa_sim
from scopa_sim import Round, Rules, parse_cards
from scopa_sim.engine.rules import DESCRIPTIONS, FLAGS, PRESETS, SETTINGS


def stack(*front):
    """A deck order: these cards first (table, then a card at a time from the
    leader), the others after them in card order."""
    cards = parse_cards(" ".join(front))
    return cards + [c for c in range(40) if c not in cards]


def cards(text):
    return sorted(parse_cards(text))


def play_out(game):
    """Finish the round playing each seat's first legal move; the result."""
    while not game.done:
        game.play(*game.legal_moves()[0])
    return game.result()


def pile(game, side):
    return sorted(game.piles[side])


def option(preset="scopa", **changes):
    return Rules.preset(preset).with_options(**changes)


# ---------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------


def test_presets_are_the_family_and_each_has_a_description():
    assert list(PRESETS) == ["scopa", "scopa-3", "scopa-4", "scopa-4-nine", "scopone-scientifico", "scopa-6"]
    assert set(DESCRIPTIONS) == set(PRESETS)
    shape = {name: (r.players, r.teams, r.hand_size, r.table_size, r.refill, r.target) for name, r in PRESETS.items()}
    assert shape == {
        "scopa": (2, (0, 1), 3, 4, True, 11),
        "scopa-3": (3, (0, 1, 2), 3, 4, True, 11),
        "scopa-4": (4, (0, 1, 0, 1), 3, 4, True, 11),
        "scopa-4-nine": (4, (0, 1, 0, 1), 9, 4, False, 15),
        "scopone-scientifico": (4, (0, 1, 0, 1), 10, 0, False, 11),
        "scopa-6": (6, (0, 1, 2, 0, 1, 2), 3, 4, True, 11),
    }
    for name, r in PRESETS.items():
        assert r.name == name and Rules.preset(name) is r
        assert r.description == DESCRIPTIONS[name] and "\n" not in r.description
        assert not any(getattr(r, f) for f in FLAGS if isinstance(getattr(r, f), bool))
        assert r.primiera_scale == (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)


def deals(game):
    return sum(line.startswith("deal:") for line in game.log().splitlines())


def test_scopa_is_the_two_player_game_of_all_four_seeds():
    # 000: "he deals three to each player, one at a time, beginning with the
    # player on his left"; "four cards face up"; 3 more each until the deck is out.
    assert Rules.preset("scopa") == Rules(name="scopa")
    game = Round("scopa", deck=stack("2c 4h 5s Qd", "7d 3h 7h Kc As Jd"), dealer=1)
    assert game.table == parse_cards("2c 4h 5s Qd")
    assert game.hands == [cards("7d 7h As"), cards("3h Kc Jd")]
    res = play_out(game)
    assert deals(game) == 6 and len(game.moves) == 36
    assert res["cards_0"] + res["cards_1"] == 40


def test_scopa_3_three_players_each_for_themselves():
    # 000: "If two or three are playing, he deals three to each player";
    # 002: "other numbers of players typically play for themselves".
    deck = stack("2c 4h 5s Qd", "Kh Jh 7d Ks Js 3h Kc Jc 3s")
    three = Round("scopa-3", deck=deck, dealer=2)  # leader seat 0, then 1, 2
    assert three.hands == [cards("Kh Ks Kc"), cards("Jh Js Jc"), cards("7d 3h 3s")]
    res3 = play_out(three)
    # seat 2 takes the settebello (7 = 2 + 5) for itself: three sides score apart
    assert three.moves[2] == (2, parse_cards("7d")[0], tuple(cards("2c 5s")))
    assert (res3["settebello_0"], res3["settebello_1"], res3["settebello_2"]) == (0, 0, 1)
    assert sum(res3[f"cards_{t}"] for t in range(3)) == 40
    # the same deck for two players: the 7d is seat 0's, and it takes the 2 + 5 at once
    two = Round("scopa", deck=deck, dealer=1)
    res2 = play_out(two)
    assert two.moves[0] == (0, parse_cards("7d")[0], tuple(cards("2c 5s")))
    assert res2["settebello_0"] == 1 and "cards_2" not in res2


def test_scopa_3_target_8_of_seed_000_is_a_setting():
    # 000: "In a three-player game, play until one player reaches or exceeds 8 points"
    totals = [8, 6, 3]
    assert not Rules.preset("scopa-3").game_over(totals)
    eight = option("scopa-3", target=8)
    assert eight.game_over(totals) and eight.name == "scopa-3+target=8"
    assert not eight.game_over([8, 8, 3])  # a tie at the top plays on
    assert Rules.preset("scopa-3+target=8") == eight


def test_scopa_4_partners_facing_share_a_pile():
    # 000: "Players sitting opposite become partners ... one partner should
    # collect all the matched cards won by either member of the partnership."
    deck = stack("2c 4h 5s Qd", "Kh Jh 7d 3c", "Ks Js Qh 3s", "Kc Jc Qs 3h")
    partners = Round("scopa-4", deck=deck, dealer=3)
    assert partners.hands == [cards("Kh Ks Kc"), cards("Jh Js Jc"), cards("7d Qh Qs"), cards("3c 3s 3h")]
    res = play_out(partners)
    assert partners.moves[2] == (2, parse_cards("7d")[0], tuple(cards("2c 5s")))
    assert res["settebello_0"] == 1  # seat 2's capture is side 0's
    taken = {side: set() for side in (0, 1)}
    for seat, card, take in partners.moves:
        if take:
            taken[seat % 2] |= {card, *take}
    for side in (0, 1):
        assert taken[side] <= set(pile(partners, side))
    assert res["cards_0"] + res["cards_1"] == 40
    # the same four seats each for themselves: seat 2 scores it alone
    alone = Round(Rules(players=4), deck=deck, dealer=3)
    res = play_out(alone)
    assert (res["settebello_0"], res["settebello_2"]) == (0, 1)
    # 3-card deals: three of them
    assert len([m for m in partners.log().splitlines() if m.startswith("deal:")]) == 3


def test_scopa_4_target_15_of_seed_000_is_a_setting():
    # 000: "play until one partnership reaches or exceeds 15 points"
    assert Rules.preset("scopa-4").game_over([12, 9])
    assert not option("scopa-4", target=15).game_over([12, 9])
    assert option("scopa-4", target=15).game_over([15, 9])


def test_scopa_4_nine_deals_everything_at_once():
    # 000: "If four are playing, he deals nine cards to each ... No more cards
    # are dealt in a four-player game as they have all been dealt before play begins."
    seven = parse_cards("7d")[0]
    deck = [c for c in stack("2c 4h 5s Qd", "Kh Jh 3h Ks") if c != seven] + [seven]  # the 7d dealt last
    nine = Round("scopa-4-nine", deck=deck, dealer=3)
    assert [len(h) for h in nine.hands] == [9, 9, 9, 9] and not nine.deck
    assert seven in nine.hands[3]
    three = Round("scopa-4", deck=deck, dealer=3)
    assert [len(h) for h in three.hands] == [3, 3, 3, 3] and seven not in three.hands[3]
    for game in (nine, three):
        for card in ("Kh", "Jh", "3h"):  # nothing to take: trailed
            game.play(card)
    # seat 3 holds the settebello from the start and takes 2 + 5 with it at once ...
    nine.play("7d", "2c 5s")
    res = play_out(nine)
    assert deals(nine) == 1 and res["settebello_1"] == 1 and res["cards_0"] + res["cards_1"] == 40
    # ... while with 3-card deals the 7d is still in the deck
    with pytest.raises(ValueError, match="cannot play 7d"):
        three.play("7d", "2c 5s")
    res = play_out(three)
    assert deals(three) == 3


def test_scopone_scientifico_starts_on_an_empty_table():
    # Ten cards each, nothing on the table: the leader must trail (002: a card
    # played to an empty middle is placed there), and the next player who
    # matches it sweeps the table for a scopa.
    deck = stack("Ad Ah 2c 3c")  # a card at a time: seat 0 gets Ad, seat 1 Ah, ...
    game = Round("scopone-scientifico", deck=deck, dealer=3)
    assert game.table == [] and [len(h) for h in game.hands] == [10] * 4
    assert game.legal_moves()[0] == (parse_cards("Ad")[0], ())
    game.play("Ad")
    game.play("Ah", "Ad")
    assert game.scopas == [0, 1]
    res = play_out(game)
    assert res["scopas_1"] >= 1 and res["cards_0"] + res["cards_1"] == 40
    # the same deck with nine cards each and four to the table: no such opening
    nine = Round("scopa-4-nine", deck=deck, dealer=3)
    assert nine.table == parse_cards("Ad Ah 2c 3c")
    nine.play(*nine.legal_moves()[0])
    nine.play(*nine.legal_moves()[0])
    assert nine.scopas == [0, 0]


def test_scopa_6_three_teams_of_two():
    # six players, three sides of two partners sitting three seats apart:
    # seat 3's capture goes to the pile of side 0, with seat 0's.
    deck = stack("2c 4h 5s Qd", "Kh Jh 3h 7d 9c 9s")
    results = []
    for rules in ("scopa-6", Rules(players=6)):
        game = Round(rules, deck=deck, dealer=5)  # leader seat 0
        assert [len(h) for h in game.hands] == [3] * 6
        for card in ("Kh", "Jh", "3h"):  # nothing to take: trailed
            game.play(card)
        game.play("7d", "2c 5s")
        results.append(play_out(game))
        assert deals(game) == 2
    teams, alone = results
    assert teams["settebello_0"] == 1 and sum(teams[f"cards_{t}"] for t in range(3)) == 40 and "cards_3" not in teams
    assert (alone["settebello_0"], alone["settebello_3"]) == (0, 1)


# ---------------------------------------------------------------------------
# Flags
# ---------------------------------------------------------------------------


def test_fewest_cards_seed_001_example_2():
    # 001: "When there is more than one possible combination, ... the player
    # must chose the combination with less cards, in this case [ 6 + 2 ]."
    hand, table = "4c 3c Jc", "4d 3h 6s 2h Ad"
    six_two, three_cards = tuple(cards("6s 2h")), tuple(cards("4d 3h Ad"))
    jack = parse_cards("Jc")[0]
    assert (jack, three_cards) in scopa_sim.legal_moves(hand, table)
    fewest = scopa_sim.legal_moves(hand, table, option(fewest_cards=True))
    assert [m for m in fewest if m[0] == jack] == [(jack, six_two)]
    # the player still picks the card: the 4 and the 3 keep their single matches
    assert [c for c, _ in fewest] == parse_cards("3c 4c Jc")


@pytest.mark.parametrize("fewest", [False, True])
def test_fewest_cards_changes_who_wins_cards_and_coins(fewest):
    rules = option(fewest_cards=fewest)
    game = Round.from_position(hands=["Jc", "Kh"], table="6s 2h 5d Ad 4c", rules=rules, dealer=1)
    if fewest:
        with pytest.raises(ValueError, match="cannot take"):
            game.play("Jc", "5d 2h Ad")
        game.play("Jc", "6s 2h")
        game.play("Kh", "5d Ad 4c")  # 5 + 1 + 4
    else:
        game.play("Jc", "5d 2h Ad")
        game.play("Kh", "6s 4c")
    res = game.result()
    winner = 1 if fewest else 0
    assert (res[f"pt_cards_{winner}"], res[f"pt_coins_{winner}"]) == (1, 1)
    assert res[f"coins_{winner}"] == 2


def test_ace_takes_all_seed_001():
    # 001: "'Asso piglia tutto' (Ace takes all), where the player that plays an
    # Ace draws all cards on the table." The sweep is no scopa (VARIANTS.md).
    for ace in (False, True):
        game = Round.from_position(hands=["As", "Kc"], table="2c 4h 7d Qd",
                                  rules=option(ace_takes_all=ace), dealer=1)
        if ace:
            assert game.legal_moves() == [(parse_cards("As")[0], tuple(cards("2c 4h 7d Qd")))]
            game.play("As")
            assert game.table == [] and game.scopas == [0, 0]  # cleared, but no scopa
            game.play("Kc")  # trailed on the empty table, then the leftover goes to seat 0
        else:
            game.play("As")  # an ace takes nothing: trailed
            game.play("Kc", "2c 7d As")  # K = 2 + 7 + 1 (on the last play: no scopa)
        res = game.result()
        taker = 0 if ace else 1
        assert res[f"settebello_{taker}"] == 1 and res[f"cards_{taker}"] == 6


def test_ace_takes_all_with_an_ace_on_the_table_and_on_an_empty_table():
    rules = option(ace_takes_all=True)
    # an ace on the table: single-card priority, the ace takes an ace only
    assert scopa_sim.legal_captures("Ad Ah 7c", "As", rules) == [tuple(parse_cards("Ad")), tuple(parse_cards("Ah"))]
    # a lone ace taken by an ace is a scopa like any other
    game = Round.from_position(hands=["As 2h", "3c 4c"], table="Ad", rules=rules, dealer=1)
    game.play("As", "Ad")
    assert game.scopas == [1, 0]
    # an empty table: the ace is trailed, and the next ace takes it (a scopa)
    game = Round.from_position(hands=["As 2h", "Ac 4c"], table="", rules=rules, dealer=1)
    game.play("As")
    game.play("Ac", "As")
    assert game.scopas == [0, 1]


@pytest.mark.parametrize("on", [False, True])
def test_scopa_on_last_play(on):
    # 003: "The last card of the hand does not count as a scopa even if it
    # empties the table." 000 says nothing against it: the option counts it.
    game = Round.from_position(hands=["2h", "7c"], table="5s", rules=option(scopa_on_last_play=on), dealer=1)
    game.play("2h")
    game.play("7c", "5s 2h")
    res = game.result()
    assert res["scopas_1"] == int(on)
    assert res["points_1"] == res["pt_cards_1"] + res["pt_coins_1"] + res["pt_primiera_1"] + int(on)


def play_primiera_round(rules):
    """Seat 0 ends with the sevens of coins, swords and cups but no club;
    seat 1 with the four kings."""
    game = Round.from_position(hands=["7d 7h", "Kd Kc"], table="7s Kh Ks 4s 3h", rules=rules, dealer=1)
    game.play("7d", "7s")
    game.play("Kd", "Kh")
    game.play("7h", "4s 3h")
    game.play("Kc", "Ks")
    assert pile(game, 0) == cards("7d 7s 7h 4s 3h") and pile(game, 1) == cards("Kd Kh Kc Ks")
    return game.result()


def test_primiera_forfeit():
    # 002's FAQ: a missing suit counts 0 (the default): 63 beats 40.
    res = play_primiera_round(Rules.preset("scopa"))
    assert (res["primiera_0"], res["primiera_1"], res["pt_primiera_0"]) == (63, 40, 1)
    # forfeit: a side missing a suit has 0 and cannot win it
    res = play_primiera_round(option(primiera_forfeit=True))
    assert (res["primiera_0"], res["primiera_1"], res["pt_primiera_0"], res["pt_primiera_1"]) == (0, 40, 0, 1)


def test_primiera_scale():
    # a custom scale where kings are best: the four kings now win the primiera
    scale = (16, 12, 13, 14, 15, 18, 21, 10, 10, 30)
    res = play_primiera_round(option(primiera_scale=scale))
    assert (res["primiera_0"], res["primiera_1"], res["pt_primiera_1"]) == (63, 120, 1)
    assert option(primiera_scale=scale).name == "scopa+primiera_scale=16,12,13,14,15,18,21,10,10,30"


def test_re_bello():
    res = play_primiera_round(Rules.preset("scopa"))
    assert "pt_re_bello_1" not in res
    points = res["points_1"]
    res = play_primiera_round(option(re_bello=True))
    assert (res["pt_re_bello_0"], res["pt_re_bello_1"]) == (0, 1)  # the king of coins
    assert res["points_1"] == points + 1


@pytest.mark.parametrize("napola", [False, True])
def test_napola(napola):
    game = Round.from_position(hands=["5h 5c", "Kc Qc"], table="Ad 4d 2d 3d", rules=option(napola=napola), dealer=1)
    game.play("5h", "Ad 4d")
    game.play("Kc")
    game.play("5c", "2d 3d")
    game.play("Qc")
    res = game.result()
    assert set(cards("Ad 2d 3d 4d")) <= set(pile(game, 0))
    if napola:
        assert (res["pt_napola_0"], res["pt_napola_1"]) == (4, 0)  # A-2-3-4 of coins
    else:
        assert "pt_napola_0" not in res
    base = res["pt_cards_0"] + res["pt_coins_0"] + res["pt_settebello_0"] + res["pt_primiera_0"]
    assert res["points_0"] == base + 4 * napola


@pytest.mark.parametrize("held, run", [("Ad 2d 4d 5d", 0), ("Ad 2d 3d 5d", 3), ("Ad 2d 3d 4d 5d 6d 7d Jd Qd", 9),
                                       ("Ad 2d 3d 4d 5d 6d 7d Jd Qd Kd", 10), ("2d 3d 4d 5d", 0)])
def test_napola_runs_from_the_ace_and_stops_at_the_first_gap(held, run):
    # seat 0's one card takes Kc on the last play, and the leftovers with it
    game = Round.from_position(hands=["Kh", ""], table=held + " Kc", rules=option(napola=True), dealer=0)
    game.play("Kh", "Kc")
    assert set(parse_cards(held)) <= set(pile(game, 0))
    assert game.result()["pt_napola_0"] == run


@pytest.mark.parametrize("target", [11, 16, 21])
def test_target_seed_001(target):
    # 001: "the maximum score choosen at the begining of the match (11, 16 or 21 points)"
    rules = option(target=target)
    res = play_primiera_round(rules)  # seat 0: cards, settebello, primiera (coins tie 1-1)
    totals = [13 + res["points_0"], 10 + res["points_1"]]
    assert totals == [16, 10]
    assert rules.game_over(totals) == (target <= 16)
    df = scopa_sim.simulate(games=60, strategies=("greedy", "greedy"), rules=rules, seed=5)
    last = df.groupby("game").tail(1)
    assert (last[["score_0", "score_1"]].max(axis=1) >= target).all()


# ---------------------------------------------------------------------------
# Names, options, validation
# ---------------------------------------------------------------------------


def test_changed_rules_are_named_after_the_preset_and_read_back():
    r = Rules.preset("scopa").with_options(fewest_cards=True)
    assert r.name == "scopa+fewest_cards" and r.fewest_cards
    both = r.with_options(target=21)
    assert both.name == "scopa+target=21+fewest_cards"
    assert Rules.preset("scopa").with_options(target=21, fewest_cards=True).name == both.name
    assert Rules.preset(both.name) == both and Rules.resolve(both.name) == both
    assert both.with_options(fewest_cards=False, target=11).name == "scopa"
    assert option("scopa-4", ace_takes_all=True).name == "scopa-4+ace_takes_all"
    assert option("scopa", players=3) == Rules.preset("scopa+players=3")
    assert option("scopa", players=3).teams == (0, 1, 2)
    assert "changed: target=21, fewest_cards" in both.description
    # named rules round-trip through the settings stored with a run
    assert Rules(**both.settings()) == both
    # a custom rule set keeps its own name
    assert Rules(players=3).with_options(napola=True).name == "custom+napola"


def test_simulate_stores_the_changed_name():
    df = scopa_sim.simulate(rounds=5, rules=option(ace_takes_all=True), seed=1)
    assert len(df) == 5
    spec = scopa_sim.runs.plan.RunSpec.make(rounds=5, rules="scopa+napola+re_bello", seed=1)
    assert spec.rules.name == "scopa+re_bello+napola" and spec.rules.napola and spec.rules.re_bello


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("flag", ["fewest_cards", "ace_takes_all", "scopa_on_last_play", "primiera_forfeit",
                                  "re_bello", "napola"])
def test_every_flag_on_every_preset(preset, flag):
    L = scopa_sim.kernels.layout
    slot = {"fewest_cards": L.R_FEWEST_CARDS, "ace_takes_all": L.R_ACE_TAKES_ALL,
            "scopa_on_last_play": L.R_SCOPA_ON_LAST_PLAY, "primiera_forfeit": L.R_PRIMIERA_FORFEIT,
            "re_bello": L.R_RE_BELLO, "napola": L.R_NAPOLA}
    r = option(preset, **{flag: True})
    assert getattr(r, flag) and r.name == f"{preset}+{flag}"
    assert r.pack()[slot[flag]] == 1 and Rules.preset(preset).pack()[slot[flag]] == 0
    assert Rules.preset(r.name) == r


@pytest.mark.parametrize("changes, why", [
    (dict(hand_size=5), r"deals of 5 to 2 players .* do not divide .* hand sizes that divide them: 1, 2, 3, 6, 9, 18"),
    (dict(players=3, hand_size=5), "do not divide"),
    (dict(players=5), "do not divide"),
    (dict(players=7), "players must be 2 to 6"),
    (dict(refill=False), r"without new deals, .* must use all 40 cards \(they use 10\)"),
    (dict(players=4, teams=(0, 1)), r"names a side for 2 seats but there are 4 players"),
    (dict(players=4, teams=(0, 0, 1, 1)), "partners sit apart"),
    (dict(players=3, teams=(0, 0, 1)), "cannot share 3 seats equally"),
    (dict(players=4, teams=(0, 2, 0, 2)), "none skipped"),
    (dict(players=4, teams=(0, 0, 0, 0)), "at least two sides"),
    (dict(target=0), "target must be 1 to 1000"),
    (dict(napola=3), "napola is on or off"),
    (dict(fewest_cards="yes"), "fewest_cards is on or off"),
    (dict(primiera_scale=(16, 12, 13)), "ten numbers, not 3"),
    (dict(primiera_scale=(0, 12, 13, 14, 15, 18, 21, 10, 10, 10)), "holding a suit always beats missing it"),
    (dict(primiera_scale=(16, 12, 13, 14, 15, 18, 21, 10, 10, 5000)), "1..1000"),
    (dict(primiera_scale="high"), "ten whole numbers"),
    (dict(hand_size="3"), "hand_size must be a whole number"),
])
def test_impossible_rules_are_refused_with_the_reason(changes, why):
    with pytest.raises(ValueError, match=why):
        Rules.preset("scopa").with_options(**changes)


def test_preset_specific_refusals():
    # scopone with a table: ten cards each and four on the table is 44 cards
    with pytest.raises(ValueError, match=r"they use 44\); with 4 on the table that is 9 cards each"):
        option("scopone-scientifico", table_size=4)
    assert option("scopone-scientifico", table_size=4, hand_size=9).name == \
        "scopone-scientifico+hand_size=9+table_size=4"
    # a partnership preset with the players changed alone
    with pytest.raises(ValueError, match=r"teams 0,1,0,1 names a side for 4 seats but there are 6 players"):
        option("scopa-4", players=6)
    assert option("scopa-4", players=6, teams=(0, 1, 2, 0, 1, 2)).n_sides == 3
    with pytest.raises(ValueError, match="unknown rule option.*choose from"):
        option(colour="red")
    with pytest.raises(ValueError, match="unknown rules preset 'scopetta'"):
        Rules.preset("scopetta+napola")


def test_rules_command_lists_presets_and_flags():
    from scopa_sim.cli import main

    result = CliRunner().invoke(main, ["rules"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = re.sub(r"\s+", " ", result.output)
    for name in PRESETS:
        assert name in text
    for flag in [*FLAGS, *SETTINGS]:
        assert flag in text
    assert "asso piglia tutto" in text          # the ace_takes_all option's meaning
    assert "--rule" in text


# -- the rules, declared once (kernels/rule_table.py) ----------------------------------
def test_the_rule_table_makes_the_rules_fields_and_the_kernel_slots():
    """Every option of the rule table is a `Rules` field, in its order, with its
    default; every record with slots has an `R_<NAME>` slot, the one-slot
    records first; nothing else in the layout is an R_ slot but R_SIZE."""
    import dataclasses

    from scopa_sim.kernels import layout as L
    from scopa_sim.kernels.rule_table import OPTIONS, RULES
    fields = [f for f in dataclasses.fields(Rules) if f.name != "name"]
    assert [(f.name, f.default) for f in fields] == [(r.name, r.default) for r in OPTIONS]
    assert len({r.name for r in RULES}) == len(RULES)
    at = 0
    for name, size in L.RULE_FIELDS:
        assert getattr(L, "R_" + name.upper()) == L.RULE_SLOTS[name] == at, name
        at += size
    assert L.R_SIZE == at
    assert {k for k in vars(L) if k.startswith("R_")} == {
        "R_SIZE", *("R_" + r.name.upper() for r in RULES if r.size)}
    from scopa_sim.kernels.rule_table import APPENDED
    first = [size for name, size in L.RULE_FIELDS if name not in APPENDED]
    assert first == sorted(first, key=lambda s: s > 1)      # the one-slot records first
    assert [name for name, _ in L.RULE_FIELDS[len(first):]] == list(APPENDED)   # the later last
    # the slots users' strategies were written against stay where they were
    assert (L.R_PLAYERS, L.R_SCOPA_ON_LAST_PLAY, L.R_ACE_TAKES_ALL, L.R_NAPOLA, L.R_TEAMS,
            L.R_PRIMIERA_SCALE, L.R_BEST, L.R_RANKS, L.R_SIZE) == (0, 6, 8, 11, 12, 18, 28, 1052,
                                                                  1053)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_pack_puts_every_option_at_its_slot(preset):
    from scopa_sim.kernels import layout as L
    from scopa_sim.kernels.rule_table import OPTIONS
    r = option(preset, target=21, napola=True, primiera_scale=tuple(range(1, 11)))
    v = r.pack()
    for o in OPTIONS:
        value = tuple(getattr(r, o.name)) if o.type == "tuple" else (int(getattr(r, o.name)),)
        at = getattr(L, "R_" + o.name.upper())
        assert tuple(v[at:at + len(value)]) == value, o.name
    assert v[L.R_SIDES] == r.n_sides
    assert list(v[L.R_BEST:L.R_BEST + 1024]) == list(L.primiera_table(r.primiera_scale))


def test_the_options_table_of_variants_md_is_the_rule_tables():
    """docs/VARIANTS.md's options table is what scripts/variants_doc.py writes
    from the rule table (regenerate: .venv/bin/python scripts/variants_doc.py)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    check = subprocess.run([sys.executable, str(root / "scripts" / "variants_doc.py"),
                            "--check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    text = (root / "docs" / "VARIANTS.md").read_text()
    for name in [*FLAGS, *SETTINGS]:
        assert f"| `{name}` |" in text
