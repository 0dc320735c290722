"""Game records (docs/RECORDS.md), tested as a hostile user would: every
error class of "What reading checks", each a small edit of seed 003's
example record, must be one `RecordError` naming the right line; the
command line gives one `error: line N:` line and exit 2; records written
from runs and traced games read back to the same game."""
from __future__ import annotations

import os
import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from scopa_sim import trace_game
from scopa_sim.engine.records import RecordError, parse_record, read_record
from scopa_sim.runs.export import from_run
from hostile import assert_error, cli, tree

EXAMPLE = """\
# Seed 003's example game
Rules: scopa
Seats: Ada You
First dealer: Ada
Event: an example game, commented play by play

Round 1
Table: 2c 4h 5s Qd
Hand You: 7d 7h As
Hand Ada: 3h Kc Jd
You: 7d takes 2c 5s
Ada: 3h
You: As
Ada: Kc takes Qd As
You: 7h takes 4h 3h scopa
Ada: Jd
Hand You: Js 6d 2h
Hand Ada: 5c 6s Qh
You: Js takes Jd scopa
Ada: Qh
You: 2h
Ada: 5c
You: 6d
Ada: 6s takes 6d
...
Counts You: cards 22 coins 6 settebello 1 primiera 73 scopas 2
Counts Ada: cards 18 coins 4 settebello 0 primiera 78 scopas 0
Points: 1 5
Score: 1 5
End
"""
LINES = EXAMPLE.splitlines()
assert LINES[10] == "You: 7d takes 2c 5s" and LINES[29] == "End"     # line 11, line 30


def edit(text: str = EXAMPLE, **changes) -> str:
    """The record with lines replaced: `L11="You: 7d"` (1-based; "#" blanks
    a line and keeps the numbering; a text with newlines inserts lines)."""
    lines = text.splitlines()
    for key, value in changes.items():
        lines[int(key[1:]) - 1] = value
    return "\n".join(lines) + "\n"


def bad(text: str, line: int, *needles: str) -> str:
    """The record is refused: one RecordError naming `line`, holding `needles`."""
    with pytest.raises(RecordError) as e:
        parse_record(text)
    message = str(e.value)
    assert isinstance(e.value, ValueError)
    assert message.startswith(f"line {line}: "), message
    assert "\n" not in message and " is is " not in message, message
    for needle in needles:
        assert needle.lower() in message.lower(), (needle, message)
    return message


def test_the_example_reads():
    game = parse_record(EXAMPLE)
    assert game.notes.names == ["Ada", "You"]
    assert game.notes.headers["Event"] == "an example game, commented play by play"
    assert game.scores == [1, 5] and not game.done
    assert len(game.rounds) == 1 and len(game.rounds[0].moves) == 12
    assert game.rounds[0].scopa_plays.count(True) == 2


# ---- every error class of "What reading checks" ----------------------------------------
ERRORS = {   # name: (changes to the example, the line named, words of the message)
    # a play out of turn: You leads (Ada deals)
    "out of turn": (dict(L11="Ada: 3h"), 11, ["out of turn", "You"]),
    "out of turn later": (dict(L13="Ada: Kc takes Qd As"), 13, ["out of turn"]),
    # illegal captures
    "wrong sum": (dict(L11="You: 7d takes 2c 4h"), 11, ["cannot take"]),
    "take a card not on the table": (dict(L11="You: 7d takes 7c"), 11, ["cannot take"]),
    "rank on the table, takes a sum": (dict(L9="Hand You: Qs 7h As",
                                            L11="You: Qs takes 4h 5s"), 11, ["Qd"]),
    "could capture, trails": (dict(L11="You: 7d"), 11, ["nothing", "2c"]),
    "trail written as a capture of nothing": (dict(L12="Ada: 3h takes"), 12, ["takes"]),
    # a card twice
    "on the table and in a hand": (dict(L9="Hand You: 7d 7h 2c"), 9, ["2c", "table"]),
    "in two hands": (dict(L10="Hand Ada: 3h Kc 7d"), 10, ["7d", "dealt to You"]),
    "twice in one hand line": (dict(L9="Hand You: 7d 7d As"), 9, ["twice"]),
    "played twice": (dict(L9="Hand You: ? ? ?", L17="Hand You: ? ? ?", L21="You: As"), 21,
                     ["As", "played by You", "line 13"]),
    "taken twice": (dict(L14="Ada: Kc takes Qd 7d"), 14, ["cannot take"]),
    "dealt in the next deal, played in this one": (dict(L13="You: 6d"), 13,
                                                    ["6d", "dealt to You", "line 17"]),
    # a card that cannot be in that hand
    "not in the hand line": (dict(L13="You: Jc"), 13, ["Jc", "7d 7h As"]),
    "dealt to the other seat": (dict(L13="You: Kc"), 13, ["Kc", "Ada"]),
    # scopa, counts, points, score
    "scopa that is not": (dict(L11="You: 7d takes 2c 5s scopa"), 11, ["scopa"]),
    "counts below the plays": (dict(L26="Counts You: cards 5 coins 6 settebello 1 primiera 73 "
                                        "scopas 2"), 26, ["cards 5", "8"]),
    "scopas below the plays": (dict(L26="Counts You: cards 22 coins 6 settebello 1 primiera 73 "
                                        "scopas 1"), 26, ["scopas 1"]),
    "counts that add up wrong": (dict(L27="Counts Ada: cards 19 coins 4 settebello 0 "
                                          "primiera 78 scopas 0"), 27, ["cards", "40"]),
    "points not the counts'": (dict(L28="Points: 2 4"), 28, ["2 4", "1 5"]),
    "score not the points'": (dict(L29="Score: 1 6"), 29, ["1 6", "1 5"]),
    "negative score": (dict(L29="Score: -1 5"), 29, ["Score"]),
    "points of three sides": (dict(L28="Points: 1 5 0"), 28, ["3 numbers"]),
    # unknown cards, rules, seats, lines
    "card 11d": (dict(L11="You: 11d takes 2c 5s"), 11, ["11d"]),
    "card 7x": (dict(L9="Hand You: 7x 7h As"), 9, ["7x"]),
    "card 0s in a take": (dict(L11="You: 7d takes 2c 0s"), 11, ["0s"]),
    "unknown preset": (dict(L2="Rules: briscola"), 2, ["briscola", "scopa"]),
    "no preset": (dict(L2="Rules:"), 2, ["preset ''"]),
    "bad rule option": (dict(L2="Rules: scopa colour=1"), 2, ["colour"]),
    "bad rule option value": (dict(L2="Rules: scopa colour=blue"), 2, ["blue"]),
    "bad rule value": (dict(L2="Rules: scopa+target=many"), 2, ["many"]),
    "unknown seat playing": (dict(L12="Bob: 3h"), 12, ["Bob", "Ada, You"]),
    "unknown seat's hand": (dict(L10="Hand Bob: 3h Kc Jd"), 10, ["Bob"]),
    "unknown seat's counts": (dict(L27="Counts Bob: cards 18"), 27, ["Bob"]),
    "unknown first dealer": (dict(L4="First dealer: Bob"), 4, ["Bob"]),
    "wrong dealer": (dict(L8="Dealer: You\nTable: 2c 4h 5s Qd"), 8, ["dealt by Ada"]),
    "unknown line": (dict(L12="Ada plays 3h"), 12, ["cannot read"]),
    "seats of a wrong number": (dict(L3="Seats: Ada You Bea"), 3, ["3", "2"]),
    "two seats one name": (dict(L3="Seats: Ada ada"), 3, ["same name"]),
    "a seat named like a keyword": (dict(L3="Seats: Ada Round"), 3, ["keyword"]),
    # hand lines elsewhere than before a deal's first play
    "hand line inside a deal": (dict(L10="You: 7d takes 2c 5s", L11="Hand Ada: 3h Kc Jd"), 11,
                                ["before play 1", "play 2"]),
    "hand line at the last play": (dict(L24="Hand Ada: 5c 6s Qh\nAda: 6s takes 6d",
                                        L18="#"), 24, ["play 12"]),
    "a hand written twice": (dict(L10="Hand You: 7d 7h As"), 10, ["twice"]),
    "hand of two cards": (dict(L9="Hand You: 7d 7h"), 9, ["2 cards", "3"]),
    "hand of four cards": (dict(L9="Hand You: 7d 7h As 2d"), 9, ["4 cards"]),
    "table of three cards": (dict(L8="Table: 2c 4h 5s"), 8, ["4 cards", "not 3"]),
    "table written twice": (dict(L9="Table: 2c 4h 5s Qd"), 9, ["once"]),
    # rounds that stop, rounds too many, End
    "'...' twice": (dict(L26="..."), 26, ["twice"]),
    "a play after '...'": (dict(L26="You: 6d"), 26, ["after '...'"]),
    "a play after the counts": (dict(L25="#", L28="Ada: 6s"), 28, ["after the round's counts"]),
    "'...' after the last play": None,              # tested below, on a complete round
    "wrong round number": (dict(L7="Round 2"), 7, ["Round 1"]),
    "round 0": (dict(L7="Round 0"), 7, ["Round 1"]),
    "text after End": (dict(L30="End\nYou: 7d"), 31, ["after 'End'"]),
    "a second End": (dict(L30="End\n# fine\nEnd"), 32, ["after 'End'"]),
    "no End": (dict(L30="#"), 29, ["End", "cut short"]),
    "header given twice": (dict(L5="Rules: scopa"), 5, ["twice"]),
    "header given twice, other case": (dict(L5="seats: Ada You"), 5, ["twice"]),
    "a header that is no Key: value": (dict(L5="Event"), 5, ["cannot read"]),
    "a dealer line before Round 1": (dict(L5="Dealer: You"), 5, ["round's line"]),
    "a hand line before Round 1": (dict(L5="Hand You: 7d 7h As"), 5, ["round's line"]),
    "a table line before Round 1": (dict(L5="Table: 2c 4h 5s Qd"), 5, ["round's line"]),
    "a header key starting End": (dict(L5="End Seats: Ada You"), 5, ["round's line"]),
    "no Rules": (dict(L2="#"), 1, ["Rules"]),
    "no First dealer": (dict(L4="#"), 1, ["First dealer"]),
    "no rounds": ("\n".join(LINES[:5] + ["End"]), 6, ["Round 1"]),
    "score in one word": (dict(L29="Score: 15"), 29, ["1 numbers"]),
    "points not numbers": (dict(L28="Points: one five"), 28, ["whole number"]),
    "counts not pairs": (dict(L26="Counts You: cards"), 26, ["pairs"]),
    "an unknown count": (dict(L26="Counts You: cards 22 trumps 3"), 26, ["trumps"]),
    "a count twice": (dict(L26="Counts You: cards 22 cards 22"), 26, ["twice"]),
    "counts of a side twice": (dict(L27="Counts You: cards 22"), 27, ["twice"]),
    "start score over": (dict(L5="Score: 11 3"), 5, ["over"]),
}


@pytest.mark.parametrize("name", [k for k, v in ERRORS.items() if v])
def test_error(name):
    changes, line, needles = ERRORS[name]
    text = changes if isinstance(changes, str) else edit(**changes)
    bad(text, line, *needles)


def test_error_table_names_lines_of_its_texts():
    """Each row's line is a line of its text (a typo in the table fails here)."""
    for name, row in ERRORS.items():
        if row:
            changes, line, _ = row
            text = changes if isinstance(changes, str) else edit(**changes)
            assert 1 <= line <= len(text.splitlines()), name


# -- rounds that stop early, rounds after the game, a complete round ---------------------
NEXT_ROUND = "Round 2\nTable: 2c 4h 5s Qd\nEnd"


def test_round_stops_early_without_dots_then_another_round():
    text = edit(L25="#", L26="#", L27="#", L28="#", L29="#", L30=NEXT_ROUND)
    bad(text, 30, "round 1 stops after 12 of 36 plays", "...")


def test_round_stops_early_without_dots_with_counts():
    bad(edit(L25="#"), 30, "round 1 stops after 12", "'...'")


def test_round_stopping_at_dots_needs_points_for_the_next():
    text = edit(L26="#", L27="#", L28="#", L29="#", L30=NEXT_ROUND)
    bad(text, 25, "Points")


def test_round_stopping_at_dots_with_points_goes_on():
    game = parse_record(edit(L26="#", L27="#", L29="#", L30=NEXT_ROUND))
    assert game.scores == [1, 5] and len(game.rounds) == 2


def test_last_round_may_stop_without_points():
    game = parse_record(edit(L26="#", L27="#", L28="#", L29="#"))
    assert game.scores == [0, 0] and game.notes.rounds[0].complete is False


def test_a_game_in_play_may_stop_without_dots():
    """The last round, written so far (no '...', no counts): a game being played."""
    game = parse_record(edit(L25="#", L26="#", L27="#", L28="#", L29="#"))
    assert len(game.round.moves) == 12 and not game.round.done


@pytest.mark.parametrize("over", [dict(L2="Rules: scopa target=5"),
                                  dict(L2="Rules: scopa+target=3"),
                                  dict(L5="Score: 10 5", L29="Score: 11 10")])
def test_round_after_the_game_is_over(over):
    text = edit(**over, L30=NEXT_ROUND)
    bad(text, 30, "game was over after round 1")
    game = parse_record(edit(**over))                    # without it: a finished game
    assert game.done


def test_tie_at_the_top_plays_on():
    game = parse_record(edit(L5="Score: 10 6", L26="#", L27="#", L29="#", L30=NEXT_ROUND))
    assert game.scores == [11, 11] and not game.done and len(game.rounds) == 2


@pytest.fixture(scope="module")
def complete():
    """A record of a whole traced game (every round played out)."""
    game = trace_game(5, 2, ("random", "greedy"), "scopa")
    return game.record(["Ada", "You"])


def lines_of(text, pattern):
    """1-based numbers of the lines matching a regex."""
    return [i for i, l in enumerate(text.splitlines(), 1) if re.match(pattern, l)]


def test_complete_wrong_counts(complete):
    n = lines_of(complete, r"Counts Ada:")[0]
    line = complete.splitlines()[n - 1]
    cards = int(re.search(r"cards (\d+)", line)[1])
    wrong = line.replace(f"cards {cards}", f"cards {cards + 1}")
    bad(edit(complete, **{f"L{n}": wrong}), n, f"cards {cards + 1}", f"cards {cards}")
    n2 = lines_of(complete, r"Counts You:")[0]
    line = complete.splitlines()[n2 - 1]
    p = int(re.search(r"primiera (\d+)", line)[1])
    bad(edit(complete, **{f"L{n2}": line.replace(f"primiera {p}", f"primiera {p + 3}")}), n2,
        "primiera")


def test_complete_wrong_points_and_score(complete):
    n = lines_of(complete, r"Points:")[1]
    pts = complete.splitlines()[n - 1].split()[1:]
    wrong = f"Points: {int(pts[0]) + 1} {pts[1]}"
    bad(edit(complete, **{f"L{n}": wrong}), n, "points", "round 2")
    n = lines_of(complete, r"Score:")[2]                # [0] is the header
    sc = complete.splitlines()[n - 1].split()[1:]
    bad(edit(complete, **{f"L{n}": f"Score: {sc[0]} {int(sc[1]) + 1}"}), n, "score", "round 2")


def test_complete_dots_after_the_last_play(complete):
    n = lines_of(complete, r"Counts Ada:")[0]
    text = edit(complete, **{f"L{n}": "...\n" + complete.splitlines()[n - 1]})
    bad(text, n, "'...' after the last play of round 1")


def test_complete_a_play_too_many(complete):
    n = lines_of(complete, r"Counts Ada:")[0]
    text = edit(complete, **{f"L{n}": "Ada: 7d\n" + complete.splitlines()[n - 1]})
    bad(text, n, "no play 37")


def test_complete_bad_next_round_names_its_own_line(complete):
    """The next round's deck is read when a round's last play ends it: its
    error names its own line, once (not 'line 57: line 66: ...')."""
    n = lines_of(complete, r"Table:")[1]
    cards = complete.splitlines()[n - 1].split()[1:4]
    message = bad(edit(complete, **{f"L{n}": "Table: " + " ".join(cards)}), n, "not 3")
    assert message.count("line") == 1, message


def test_header_values_round_trip_or_are_refused():
    game = parse_record(EXAMPLE)
    text = game.record(headers={"Date": "1 May 2026", "Event": "club  night\n2"})
    assert parse_record(text).notes.headers["Event"] == "club night 2"
    assert parse_record(text).record() == text
    with pytest.raises(ValueError, match="#"):           # read back, '#' starts a comment
        game.record(headers={"Event": "C# night"})
    for key in ("Round 3", "End", "End date", "Hand You", "Counts", "Dealer", "Score", "Seats",
                "a:b", "", "Zoë"):
        with pytest.raises(ValueError, match="header key"):
            game.record(headers={key: "x"})


def test_complete_round_after_end(complete):
    game = parse_record(complete)
    assert game.done
    end = lines_of(complete, r"End$")[0]
    k = len(game.rounds) + 1
    bad(edit(complete, **{f"L{end}": f"Round {k}\nTable: 2c 4h 5s Qd\nEnd"}), end,
        f"game was over after round {k - 1}")


# -- cut short anywhere --------------------------------------------------------------------
@pytest.mark.parametrize("text", ["EXAMPLE", "complete"])
def test_cut_anywhere_reads_or_is_one_record_error(text, complete):
    text = EXAMPLE if text == "EXAMPLE" else complete
    lines = text.splitlines(keepends=True)
    rng = random.Random(7)
    cuts = sorted(set(range(0, len(lines), max(1, len(lines) // 25))) |
                  set(rng.sample(range(len(lines)), min(15, len(lines)))))
    for cut in cuts:
        part = "".join(lines[:cut])
        try:
            parse_record(part)
        except RecordError as e:
            assert re.match(r"line \d+: ", str(e)), (cut, str(e))
        for mid in (part + lines[cut][: len(lines[cut]) // 2],):      # cut inside a line
            try:
                parse_record(mid)
            except RecordError as e:
                assert re.match(r"line \d+: ", str(e)), (cut, str(e))


def test_every_line_dropped_reads_or_is_one_record_error():
    for n in range(1, 31):
        try:
            parse_record(edit(**{f"L{n}": ""}))
        except RecordError as e:
            assert re.match(r"line \d+: ", str(e)), (n, str(e))


def test_line_numbers_count_only_newlines():
    """A form feed or a line separator inside a comment is no new line: the
    line numbers are an editor's."""
    text = edit(L1="# Seed 003's\x0cexample\u2028game\x1c!", L11="Ada: 3h")
    bad(text, 11, "out of turn")
    text = edit(L1="# old Mac\r# line ends", L11="Ada: 3h")
    bad(text, 12, "out of turn")          # a lone CR ends a line, as in editors


def test_crlf_and_comments_anywhere():
    text = edit(L11="You: 7d takes 2c 5s   # the settebello is safe").replace("\n", "\r\n")
    assert parse_record(text).record() == parse_record(EXAMPLE).record().replace(
        "You: 7d takes 5s 2c\n", "You: 7d takes 5s 2c  # the settebello is safe\n")


def test_a_plays_comment_is_kept_and_written_back():
    """A comment after a play belongs to it, with the comment lines aligned
    under it; other comments (headers, hands, lines apart) are only read."""
    text = edit(L1="# a header comment", L9="Hand You: 7d 7h As   # a hand's",
                L11="You: 7d takes 2c 5s   # the settebello\n" + " " * 22 + "#   is safe\n"
                    "   # not aligned: no more of it",
                L13="You: As  # one\n\n        # after a blank line: not it")
    game = parse_record(text)
    comments = game.notes.rounds[0].comments
    assert comments[:3] == ["the settebello is safe", "", "one"] and not any(comments[3:])
    assert game.notes.comment(0, 0) == "the settebello is safe"
    assert game.notes.comment(0, 99) == game.notes.comment(5, 0) == ""
    again = parse_record(game.record())
    assert again.notes.rounds[0].comments == comments and again.record() == game.record()
    assert "You: As  # one\n" in game.record()


# ---- the command line ---------------------------------------------------------------
def write(path, data):
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return path


@pytest.mark.parametrize("name", ["out of turn", "could capture, trails", "card 11d",
                                  "no End", "unknown preset", "header given twice"])
def test_cli_bad_record(tmp_path, name):
    changes, line, needles = ERRORS[name]
    f = write(tmp_path / "bad.scopa", edit(**changes))
    r = cli("record", f)
    assert_error(r, f"error: line {line}: ", *needles)


def test_cli_in_a_process(tmp_path):
    """The installed command: one line on stderr, exit 2."""
    import subprocess
    import sys
    exe = os.path.join(os.path.dirname(sys.executable), "scopa-sim")
    f = write(tmp_path / "bad.scopa", edit(L13="You: Jc"))
    p = subprocess.run([exe, "record", str(f)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stderr)
    assert p.stderr.splitlines() == [
        "error: line 13: You cannot play Jc: the hand dealt holds 7d 7h As"]


def test_cli_checks_and_rewrites_the_example(tmp_path):
    f = write(tmp_path / "game.scopa", EXAMPLE)
    r = cli("record", f, "--format", "record")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == parse_record(EXAMPLE).record()
    r = cli("record", f, "--names", "Bea,Cid")
    assert r.exit_code == 0 and "Seats: Bea Cid" in r.stdout and "Bea: 3h" in r.stdout


HOSTILE_FILES = {   # name: (content, words of the error)
    "empty": (b"", ["line 1", "End"]),
    "blank lines": (b"\n\n  \n", ["line 1", "End"]),
    "random bytes": (random.Random(1).randbytes(4096), ["UTF-8"]),
    "NUL bytes": (b"\0" * 100, ["line 1"]),
    "one long line": (b"x" * 500_000, ["line 1", "..."]),
    "5 MB": (EXAMPLE.encode() * (5_000_000 // len(EXAMPLE)), ["kB", "not a game record"]),
    "a record of another program": (b"[Event \"chess\"]\n1. e4 e5\n", ["line 1"]),
    "only End": (b"End\n", ["line 1", "Rules"]),
}


@pytest.mark.parametrize("name", list(HOSTILE_FILES))
def test_cli_hostile_file(tmp_path, name):
    data, needles = HOSTILE_FILES[name]
    f = write(tmp_path / "x.scopa", data)
    r = cli("record", f)
    assert_error(r, *needles)
    assert len(r.stderr) < 600                   # never the file again


def test_cli_not_a_file(tmp_path):
    assert_error(cli("record", tmp_path / "nothing.scopa"), "nothing.scopa")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    assert_error(cli("record", folder), "folder")
    assert_error(cli("record", folder, "--game", 0), "folder")


def test_cli_symlink_bom_crlf(tmp_path):
    f = write(tmp_path / "game.scopa", EXAMPLE)
    link = tmp_path / "link.scopa"
    link.symlink_to(f)
    want = cli("record", f, "--format", "record").stdout
    r = cli("record", link, "--format", "record")
    assert r.exit_code == 0 and r.stdout == want
    g = write(tmp_path / "bom.scopa", b"\xef\xbb\xbf" + EXAMPLE.replace("\n", "\r\n").encode())
    r = cli("record", g, "--format", "record")
    assert r.exit_code == 0 and r.stdout == want
    assert read_record(g).record() == want


@pytest.mark.parametrize("name", ["Zoë", "<script>", "a#b", "Ada,", "Round", "end"])
def test_cli_hostile_seat_names(tmp_path, name):
    """A seat name is one word of ASCII letters, digits and _ . - ' that is no
    keyword: anything else is refused (docs/RECORDS.md, Seats)."""
    f = write(tmp_path / "x.scopa", edit(L3=f"Seats: {name} You",
                                         **{f"L{n}": LINES[n - 1].replace("Ada", name)
                                            for n in range(4, 29) if "Ada" in LINES[n - 1]}))
    assert_error(cli("record", f), "error: line 3: ")
    ok = write(tmp_path / "ok.scopa", EXAMPLE)
    assert_error(cli("record", ok, "--names", f"{name},You"),
                 "seat" if name != "Ada," else "3 seats")


def test_cli_apostrophe_and_dots_in_names_round_trip(tmp_path):
    game = parse_record(EXAMPLE)
    text = game.record(["O'Neil", "j.r-2_"])
    assert parse_record(text).record() == text


def test_cli_out_refuses_an_existing_file(tmp_path):
    f = write(tmp_path / "game.scopa", EXAMPLE)
    out = write(tmp_path / "out.scopa", "mine")
    before = tree(tmp_path)
    assert_error(cli("record", f, "--out", out), "already exists", "--overwrite")
    assert tree(tmp_path) == before
    r = cli("record", f, "--out", out, "--overwrite")
    assert r.exit_code == 0 and out.read_text() == parse_record(EXAMPLE).record()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.scopa", "out.scopa"]


def test_cli_bad_record_writes_nothing(tmp_path):
    f = write(tmp_path / "bad.scopa", edit(L11="Ada: 3h"))
    before = tree(tmp_path)
    assert_error(cli("record", f, "--out", tmp_path / "new.scopa"), "line 11")
    assert tree(tmp_path) == before


# ---- runs: export, and read back -------------------------------------------------------
PRESETS = ("scopa", "scopa-3", "scopone-scientifico")
SIDES = {"scopa": 2, "scopa-3": 3, "scopone-scientifico": 2}


GAMES = 334                       # a run per preset: 1,002 games in all


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for rules in PRESETS:
        out[rules] = root / rules
        plays = ",".join(("heuristic", "endgame", "heuristic")[:SIDES[rules]])
        r = cli("simulate", "--games", GAMES, "--strategies", plays, "--rules", rules,
                "--out", out[rules], "--seed", 3, "-q")
        assert r.exit_code == 0, r.stderr
    return out


def same_game(a, b):
    assert a.rules == b.rules and a.start == b.start and a.scores == b.scores
    assert a.done == b.done and a.winner == b.winner and a.unplayed == b.unplayed
    assert len(a.rounds) == len(b.rounds)
    for ra, rb in zip(a.rounds, b.rounds):
        assert ra.dealer == rb.dealer and ra.moves == rb.moves
        assert ra.scopa_plays == rb.scopa_plays
        assert ra.done == rb.done
        if ra.done:
            assert ra.result() == rb.result()


def test_example_round_trip():
    game = parse_record(EXAMPLE)
    text = game.record()
    again = parse_record(text)
    assert again.record() == text
    same_game(game, again)


@pytest.mark.parametrize("rules", PRESETS)
def test_run_round_trip(runs, rules):
    names = {"scopa": ["Ada", "You"], "scopa-3": ["Ada", "Bea", "Cid"],
             "scopone-scientifico": None}[rules]
    for g in (0, 13, 29):
        game = from_run(runs[rules], game=g)
        assert game.done
        text = game.record(names)
        again = parse_record(text)
        same_game(game, again)
        assert again.record() == text
        assert again.notes.headers["Seed"] == "3" and again.notes.headers["Index"] == f"game {g}"


def test_a_thousand_games_exported_from_runs_round_trip(runs):
    """Every game of the three runs (1,002): written, read back and replayed
    to the same plays, points and scores, and written again the same."""
    for rules, root in runs.items():
        for g in range(GAMES):
            game = from_run(root, game=g)
            text = game.record()
            again = parse_record(text)
            same_game(game, again)
            assert again.record() == text


def test_cli_run_export(runs, tmp_path):
    out = tmp_path / "g.scopa"
    r = cli("record", runs["scopa"], "--game", 4, "--names", "Ada,You", "--out", out)
    assert r.exit_code == 0, r.stderr
    same_game(read_record(out), from_run(runs["scopa"], game=4))
    r = cli("record", out, "--format", "record")
    assert r.exit_code == 0 and r.stdout == out.read_text()


def test_cli_run_refusals(runs, tmp_path):
    run = runs["scopa"]
    before = tree(run)
    assert_error(cli("record", run), "--game")
    assert_error(cli("record", run, "--game", GAMES), f"0..{GAMES - 1}")
    assert_error(cli("record", run, "--round", 0), "--game")
    assert_error(cli("record", run, "--game", 1, "--out", run / "g.scopa"),
                 "inside the scopa-sim run")
    assert_error(cli("record", run, "--game", 1, "--names", "Ada"), "2")
    assert tree(run) == before
    f = write(tmp_path / "game.scopa", EXAMPLE)
    assert_error(cli("record", f, "--game", 1), "--game")


# ---- property: traced games written and read back -----------------------------------------
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), index=st.integers(0, 10_000), rules=st.sampled_from(PRESETS))
def test_traced_games_round_trip(seed, index, rules):
    game = trace_game(seed, index, ("random", "greedy", "random")[:SIDES[rules]], rules)
    text = game.record()
    again = parse_record(text)
    same_game(game, again)
    assert again.record() == text


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), index=st.integers(0, 10_000), rules=st.sampled_from(PRESETS),
       where=st.floats(0, 1), cut=st.integers(0, 40),
       keep=st.sampled_from(["Points", "Counts", "both"]))
def test_rounds_cut_at_dots_score_as_played(seed, index, rules, where, cut, keep):
    """A traced game's record with one round stopped at '...' after `cut`
    plays, its points kept as a Points line, or every side's Counts (the
    reader's own scoring from counts, against the kernel's), or both: the
    same score after it, and every other round the same."""
    game = trace_game(seed, index, ("random", "greedy", "random")[:SIDES[rules]], rules)
    names = [f"p{s}" for s in range(game.rules.players)]
    lines = game.record(names).splitlines()
    starts = lines_of("\n".join(lines), r"Round \d+$")
    k = min(int(where * len(starts)), len(starts) - 1)
    begin = starts[k] - 1
    stop = starts[k + 1] - 1 if k + 1 < len(starts) else lines.index("End")
    section = lines[begin:stop]
    plays = [i for i, l in enumerate(section) if re.match(r"p\d+: ", l)]
    cut = min(cut, len(plays) - 1)                     # at least the last play is left out
    head = section[:plays[cut - 1] + 1] if cut else section[:plays[0]]
    ending = [l for l in section if l.startswith(("Points:", "Score:"))
              if keep != "Counts" or l.startswith("Score:")]
    if keep != "Points":
        ending = [l for l in section if l.startswith("Counts ")] + ending
    text = "\n".join(lines[:begin] + head + ["..."] + ending + lines[stop:])
    again = parse_record(text)
    assert again.scores == game.scores and again.done == game.done
    assert again.unplayed == {k: [game.rounds[k].result()[f"points_{t}"]
                                  for t in range(game.rules.n_sides)]}
    assert [r.moves for r in again.rounds[:k]] == [r.moves for r in game.rounds[:k]]
    assert [r.moves for r in again.rounds[k + 1:]] == [r.moves for r in game.rounds[k + 1:]]
    assert again.rounds[k].moves == game.rounds[k].moves[:cut]
    assert parse_record(again.record(names)).record(names) == again.record(names)


# ---- what a player's own record knows ----------------------------------------------------
def test_unknown_hands_read_the_same_game():
    """Hand lines of '?', or none at all: the plays show every card played."""
    want = parse_record(EXAMPLE)
    for hidden in (dict(L10="Hand Ada: ? ? ?", L18="Hand Ada: ? Qh ?"),
                   dict(L9="#", L10="#", L17="#", L18="#")):
        game = parse_record(edit(**hidden))
        assert game.rounds[0].moves == want.rounds[0].moves and game.scores == [1, 5]
    game = parse_record(edit(L10="Hand Ada: ? ? ?"))
    assert all(game.notes.rounds[0].known)          # every hand is played out: all shown


def test_a_hidden_hand_cut_inside_a_deal():
    """Ada's second hand is never all seen: stand-ins fill it, from cards no line names."""
    text = edit(L18="#", L22="...", L23="#", L24="#", L25="#", L26="#", L27="#")
    game = parse_record(text)
    assert len(game.round.moves) == 9 and game.scores == [1, 5]
    assert game.notes.rounds[0].known == [True] * 6 + [True, False, True]
    from scopa_sim.engine.cards import card_name
    stand_ins = [card_name(c) for c in game.round.hands[0]]     # Ada's two cards left
    assert len(stand_ins) == 2 and not any(re.search(rf"\b{c}\b", text) for c in stand_ins)


def test_suit_symbols_and_aliases():
    game = parse_record(edit(L11="You: 7♦ takes 2♣ 5♠", L14="Ada: 10c takes 9d As"))
    assert game.record() == parse_record(EXAMPLE).record()


def test_seats_default():
    text = edit(L3="#", L4="First dealer: seat0").replace("Ada", "seat0").replace("You", "seat1")
    assert parse_record(text).notes.names == ["seat0", "seat1"]
