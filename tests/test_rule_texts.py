"""The examples and FAQ of the rule texts in shared/seeds, move by move."""
import pytest

from scopa_sim import Round, legal_captures, legal_moves, parse_cards


def cards(text):
    return tuple(sorted(parse_cards(text)))


def moves(text_pairs):
    """[(card, captured)] from ("7d", "2c 5s") pairs."""
    return sorted((parse_cards(c)[0], cards(t)) for c, t in text_pairs)


# ---- seed 003: the worked example game, first two deals ----------------
YOU, ADA = 0, 1
TABLE = "2c 4h 5s Qd"
DEAL_1 = {YOU: "7d 7h As", ADA: "3h Kc Jd"}
DEAL_2 = {YOU: "Js 6d 2h", ADA: "5c 6s Qh"}


def stacked_deck():
    """Table first, then a card at a time from the leader (you), per deal."""
    order = parse_cards(TABLE)
    for deal in (DEAL_1, DEAL_2):
        mine, hers = parse_cards(deal[YOU]), parse_cards(deal[ADA])
        for a, b in zip(mine, hers):
            order += [a, b]
    return order + [c for c in range(40) if c not in order]


# (seat, card, captured, legal alternatives the text names or implies,
#  table after the move, scopa)
SCRIPT = [
    (YOU, "7d", "2c 5s", [("7d", "2c 5s"), ("7h", "2c 5s"), ("As", "")], "4h Qd", False),
    (ADA, "3h", "", [("3h", ""), ("Kc", ""), ("Jd", "")], "4h Qd 3h", False),
    (YOU, "As", "", [("7h", "4h 3h"), ("As", "")], "4h Qd 3h As", False),
    (ADA, "Kc", "Qd As", [("Jd", "4h 3h As"), ("Kc", "Qd As")], "4h 3h", False),
    (YOU, "7h", "4h 3h", [("7h", "4h 3h")], "", True),
    (ADA, "Jd", "", [("Jd", "")], "Jd", False),
    (YOU, "Js", "Jd", [("Js", "Jd"), ("6d", ""), ("2h", "")], "", True),
    (ADA, "Qh", "", [("5c", ""), ("6s", ""), ("Qh", "")], "Qh", False),
    (YOU, "2h", "", [("6d", ""), ("2h", "")], "Qh 2h", False),
    (ADA, "5c", "", [("5c", ""), ("6s", "")], "Qh 2h 5c", False),
    (YOU, "6d", "", [("6d", "")], "Qh 2h 5c 6d", False),
    (ADA, "6s", "6d", [("6s", "6d")], "Qh 2h 5c", False),
]


def test_seed_003_worked_example_two_deals():
    game = Round("scopa", deck=stacked_deck(), dealer=ADA)
    assert sorted(game.table) == list(cards(TABLE))
    assert game.hands[YOU] == sorted(parse_cards(DEAL_1[YOU]))
    assert game.hands[ADA] == sorted(parse_cards(DEAL_1[ADA]))
    scopas = [0, 0]
    for seat, card, take, legal, table_after, scopa in SCRIPT:
        assert game.turn == seat
        assert sorted(game.legal_moves()) == moves(legal)
        game.play(card, take.split())
        scopas[seat] += scopa
        assert sorted(game.table) == list(cards(table_after))
        assert game.scopas == scopas
        if (seat, card) == (ADA, "Jd"):      # the second deal, as the text gives it
            assert game.hands[YOU] == sorted(parse_cards(DEAL_2[YOU]))
            assert game.hands[ADA] == sorted(parse_cards(DEAL_2[ADA]))
    assert game.scopas == [2, 0]
    assert parse_cards("7d")[0] in game.piles[YOU]          # the settebello secured


def test_seed_003_last_play_clearing_the_table_is_no_scopa():
    game = Round.from_position(hands=["7h", ""], table="4c 3s", dealer=0)  # seat 1 has played
    game.play("7h", "4c 3s")
    assert game.done and game.scopas == [0, 0]
    assert game.result()["scopas_0"] == 0


# ---- seed 000: the rulebook's example ------------------------------------
def test_seed_000_example_has_exactly_the_three_listed_choices():
    assert sorted(legal_moves("5d 7s 2h", "As 6c 5h")) == moves(
        [("2h", ""), ("7s", "As 6c"), ("5d", "5h")])


def test_seed_000_must_match_rule():
    # a 2 and 5 on the table: a 7 must take them, never be trailed
    assert legal_moves("7c", "2d 5h") == moves([("7c", "2d 5h")])
    # the 1 and 8 of clubs cannot be played together for the 9 of coins
    assert legal_moves("Ac Jc", "Qd") == moves([("Ac", ""), ("Jc", "")])


def test_seed_000_single_card_capture():
    # a 7 on the table: the 7 of cups must take it, not 4 + 3
    assert legal_captures("4c 3h 7s", "7h") == [cards("7s")]
    assert legal_captures("4c 3h", "7h") == [cards("4c 3h")]


# ---- seed 002: the FAQ ---------------------------------------------------
def test_seed_002_single_card_beats_a_sum():
    assert legal_captures("7s 3c 4h", "7d") == [cards("7s")]


def test_seed_002_priority_denies_the_sweep():
    game = Round.from_position(hands=["7d 2c", "Kc 3d"], table="7s 3c 4h", dealer=1)
    game.play("7d", "7s")
    assert sorted(game.table) == list(cards("3c 4h")) and game.scopas == [0, 0]
    with pytest.raises(ValueError, match="cannot take"):
        Round.from_position(hands=["7d", "Kc"], table="7s 3c 4h", dealer=1).play("7d", "3c 4h")


def test_seed_002_leftovers_go_to_the_last_capturer_without_scopa():
    game = Round.from_position(hands=["5d 2c", "3h 6h"], table="5s 4c", dealer=1)
    for card, take in (("5d", "5s"), ("3h", ""), ("2c", ""), ("6h", "4c 2c")):
        game.play(card, take.split())
    res = game.result()
    assert game.last_capturer == 1 and res["leftover"] == 1     # the 3h
    assert res["cards_1"] == 4 and res["scopas_1"] == 0


def test_seed_002_empty_table_forces_a_trail():
    assert legal_moves("7d 3c", "") == moves([("7d", ""), ("3c", "")])


def test_seed_002_tied_coins_score_nobody():
    game = Round.from_position(hands=["5d 4h", "4d 5c"], table="5h 4s", dealer=1)
    for card in ("5d", "4d", "4h", "5c"):
        game.play(card)
    res = game.result()
    assert res["coins_0"] == res["coins_1"] == 1
    assert res["pt_coins_0"] == res["pt_coins_1"] == 0
