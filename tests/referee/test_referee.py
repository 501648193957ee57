"""The referee over a small test game: every decision of docs/referee.md."""

from __future__ import annotations

import pytest

from rules.core import Judgement
from rules.observation import parse_observation
from rules.referee import Referee
from tests.referee.fakegame import LineGame, Place, games, obs


def run(*observations, referee=None, **kw):
    referee = referee or Referee(**kw)
    return [
        {k: v for k, v in e.items() if k != "table"}
        for o in observations
        for e in referee.feed(parse_observation(o, games))
    ]


def test_a_complete_game_to_a_win():
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "A.B.."), obs(4, "AAB.."))
    assert events == [
        {"event": "move", "seq": 2, "ply": 1, "player": 0, "move": "@0"},
        {"event": "move", "seq": 3, "ply": 2, "player": 1, "move": "@2"},
        {"event": "move", "seq": 4, "ply": 3, "player": 0, "move": "@1"},
        {"event": "win", "seq": 4, "winners": [0], "condition": "two-in-a-row"},
    ]


def test_a_draw_names_its_reason():
    lines = ["A....", "AB...", "ABA..", "ABAB.", "ABABA"]
    events = run(obs(1, "....."), *(obs(i + 2, c) for i, c in enumerate(lines)))
    assert events[-1] == {"event": "draw", "seq": 6, "reason": "board-full"}
    assert [e["ply"] for e in events if e["event"] == "move"] == [1, 2, 3, 4, 5]


def test_every_event_carries_the_table():
    referee = Referee()
    for o in (obs(1, ".....", table="north"), obs(2, "A....", table="north")):
        events = referee.feed(parse_observation(o, games))
    assert events[0]["table"] == "north"


def test_unstable_observations_are_ignored():
    events = run(
        obs(1, "....."), obs(2, "BBBBB", stable=False), obs(3, "A...."),
        obs(4, "A.B.B", stable=False), obs(5, "A.B.."),
    )
    assert [e["move"] for e in events] == ["@0", "@2"]


def test_the_same_position_again_is_no_event():
    assert run(obs(1, "....."), obs(2, "....."), obs(3, "A...."), obs(4, "A....")) == [
        {"event": "move", "seq": 3, "ply": 1, "player": 0, "move": "@0"}]


def test_violation_then_correction():
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AA..."), obs(4, "A...."))
    assert events[1:] == [
        {"event": "violation", "seq": 3, "player": 0, "rule": "not-your-turn",
         "message": "It is player 1's turn."},
        {"event": "corrected", "seq": 4},
    ]


def test_after_a_violation_a_legal_move_from_the_reference_counts():
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AA..."), obs(4, "A..B."))
    assert events[-1] == {"event": "move", "seq": 4, "ply": 2, "player": 1, "move": "@3"}


def test_after_a_violation_anything_else_is_another_violation():
    events = run(
        obs(1, "....."), obs(2, "A...."),
        obs(3, ".A..."),   # moved: violation
        obs(4, ".A..."),   # the same violating position again: nothing new
        obs(5, "AB.B."),   # something else: another violation
        obs(6, ".A..."),   # the first violating position, after another: announced again
        obs(7, "A...."),
    )
    assert [(e["event"], e.get("rule")) for e in events[1:]] == [
        ("violation", "stone-moved"), ("violation", "one-stone"),
        ("violation", "stone-moved"), ("corrected", None)]
    assert [e["seq"] for e in events[1:]] == [3, 5, 6, 7]


def test_the_player_in_a_violation_is_who_broke_the_rule():
    events = run(obs(1, "....."), obs(2, "....B"))
    assert events == [{"event": "violation", "seq": 2, "player": 1, "rule": "not-your-turn",
                       "message": "It is player 0's turn."}]


def test_low_confidence_gives_unclear_not_a_violation():
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AA...", confidence=0.5))
    assert events[-1]["event"] == "unclear" and events[-1]["seq"] == 3
    # the same position seen clearly is judged
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AA...", confidence=0.5),
                 obs(4, "AA..."))
    assert events[-1]["event"] == "violation"


def test_low_confidence_legal_move_is_a_move():
    events = run(obs(1, "....."), obs(2, "A....", confidence=0.4))
    assert events == [{"event": "move", "seq": 2, "ply": 1, "player": 0, "move": "@0"}]


def test_the_threshold_is_an_option():
    o = (obs(1, "....."), obs(2, "A...."), obs(3, "AA...", confidence=0.8))
    assert run(*o)[-1]["event"] == "unclear"
    assert run(*o, min_confidence=0.7)[-1]["event"] == "violation"


def test_an_alternative_reading_that_explains_a_legal_move_is_taken():
    misread = [{"path": "cells.1", "confidence": 0.55, "alternatives": [["B", 0.4]]}]
    events = run(obs(1, "....."), obs(2, "A...."),
                 obs(3, "AA...", confidence=0.55, uncertain=misread))
    assert events[-1] == {"event": "move", "seq": 3, "ply": 2, "player": 1, "move": "@1"}


def test_two_legal_readings_neither_sure_enough_are_unclear():
    """A piece read at 0.58 whose absence is legal too (no change): the rules cannot say
    which it is, so no move is announced on it."""
    phantom = [{"path": "cells.1", "confidence": 0.58, "alternatives": [[".", 0.42]]}]
    events = run(obs(1, "....."), obs(2, "A...."),
                 obs(3, "AB...", confidence=0.58, uncertain=phantom))
    assert [e["event"] for e in events] == ["move", "unclear"]
    # read surely enough, the same piece is the move
    sure = [{"path": "cells.1", "confidence": 0.95, "alternatives": [[".", 0.05]]}]
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AB...", uncertain=sure))
    assert events[-1] == {"event": "move", "seq": 3, "ply": 2, "player": 1, "move": "@1"}


def test_a_far_less_likely_reading_does_not_explain_a_violation_away():
    """Two pieces appeared at once; one of them could be absent only at 0.02 against 0.98:
    that is no reason to announce the one-piece move."""
    faint = [{"path": "cells.2", "confidence": 0.98, "alternatives": [[".", 0.02]]}]
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "ABB..", uncertain=faint))
    assert events[-1]["event"] == "violation"
    # at 0.2 against 0.8 the legal reading is weighed (and taken: it is the only legal one)
    even = [{"path": "cells.2", "confidence": 0.8, "alternatives": [[".", 0.2]]}]
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "ABB..", uncertain=even))
    assert events[-1] == {"event": "move", "seq": 3, "ply": 2, "player": 1, "move": "@1"}


def test_uncertain_elements_lower_the_confidence():
    unsure = [{"path": "cells.4", "confidence": 0.3, "alternatives": [[".", 0.2]]}]
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AA..B", uncertain=unsure))
    assert events[-1]["event"] == "unclear"


def test_unknown_cells_match_anything():
    events = run(obs(1, "....."), obs(2, ["A", None, ".", ".", "."]))
    assert [e["event"] for e in events] == ["move"]


def test_a_mid_game_first_observation_resumes_from_it():
    events = run(obs(1, "A.B.."), obs(2, "AAB.."))
    assert events == [
        {"event": "move", "seq": 2, "ply": 1, "player": 0, "move": "@1"},
        {"event": "win", "seq": 2, "winners": [0], "condition": "two-in-a-row"},
    ]


def test_a_position_no_game_reaches_is_unclear_once_then_retried():
    events = run(obs(1, "BB..."), obs(2, "BB..."), obs(3, "....."), obs(4, "A...."))
    assert [e["event"] for e in events] == ["unclear", "move"]


def test_after_a_win_no_moves_until_the_start_position():
    events = run(
        obs(1, "....."), obs(2, "A...."), obs(3, "A.B.."), obs(4, "AAB.."),
        obs(5, "AABB."), obs(6, "....."), obs(7, "....A"),
    )
    assert [(e["event"], e["seq"]) for e in events] == [
        ("move", 2), ("move", 3), ("move", 4), ("win", 4), ("move", 7)]
    assert events[-1]["ply"] == 1


def test_options_and_names_are_taken_from_the_first_observation():
    referee = Referee()
    run(obs(1, ".....", options={"colour": "fancy"}, player_names=["Ann", "Bob"]),
        referee=referee)
    tg = referee.tables["t1"]
    assert tg.options == {"colour": "fancy"}
    assert tg.player_name(1) == "Bob" and tg.player_name(2) == "player 2"


def test_tables_are_judged_apart():
    events = run(obs(1, ".....", table="a"), obs(1, ".....", table="b"),
                 obs(2, "A....", table="b"), obs(3, "A....", table="a"))
    assert [(e["seq"], e["move"]) for e in events] == [(2, "@0"), (3, "@0")]


def test_several_moves_at_once_are_one_event(monkeypatch):
    def judge_two(self, state, observed):
        if observed == state.position:
            return Judgement(Judgement.SAME)
        a, b = (Place(observed.cells.index(s)) for s in "AB")
        after = state.apply(a).apply(b)
        return Judgement(Judgement.MOVES, moves=(a, b), state=after)

    monkeypatch.setattr(LineGame, "judge", judge_two)
    events = run(obs(1, "....."), obs(2, "A.B.."))
    assert events[0] == {"event": "move", "seq": 2, "ply": 1, "player": 0, "move": "@0; @2",
                         "moves": ["@0", "@2"]}


@pytest.mark.parametrize("conf", [0.0, 0.89])
def test_start_with_low_confidence_still_begins(conf):
    assert run(obs(1, ".....", confidence=conf), obs(2, "A...."))[-1]["event"] == "move"


def test_a_violation_every_listed_reading_shows_is_announced_in_doubt():
    """Two pieces appeared at once; one of them is A's or B's at 0.6 / 0.4: illegal either
    way, and the listed readings hold all the doubt, so the violation is announced."""
    either = [{"path": "cells.2", "confidence": 0.6, "alternatives": [["A", 0.4]]}]
    events = run(obs(1, "....."), obs(2, "A...."),
                 obs(3, "ABB..", confidence=0.6, uncertain=either))
    assert events[-1]["event"] == "violation"
    # the same doubt with part of it not listed (0.6 + 0.2): unclear
    partly = [{"path": "cells.2", "confidence": 0.6, "alternatives": [["A", 0.2]]}]
    events = run(obs(1, "....."), obs(2, "A...."),
                 obs(3, "ABB..", confidence=0.6, uncertain=partly))
    assert events[-1]["event"] == "unclear"
    # an element in more doubt than any listed one (the stated confidence lower): unclear
    events = run(obs(1, "....."), obs(2, "A...."),
                 obs(3, "ABB..", confidence=0.5, uncertain=either))
    assert events[-1]["event"] == "unclear"


def test_readings_under_the_floor_complete_a_violation_whose_doubt_is_listed_whole():
    """Two stones appeared (one A's or B's at 0.6 / 0.4) and the cell beside them is read
    empty at 0.86, a stone of either player at 0.07 each: every reading breaks the rule,
    those under a tenth of the written one too, so the violation is announced."""
    either = {"path": "cells.2", "confidence": 0.6, "alternatives": [["A", 0.4]]}
    beside = {"path": "cells.3", "confidence": 0.86, "alternatives": [["A", 0.07], ["B", 0.07]]}
    events = run(obs(1, "....."), obs(2, "A...."),
                 obs(3, "ABB..", confidence=0.6, uncertain=[either, beside]))
    assert events[-1]["event"] == "violation" and events[-1]["rule"] == "one-stone"
    # the empty cell's doubt not listed, or not all of it: unclear
    for alternatives in ([], [["A", 0.07]]):
        partly = {**beside, "alternatives": alternatives}
        events = run(obs(1, "....."), obs(2, "A...."),
                     obs(3, "ABB..", confidence=0.6, uncertain=[either, partly]))
        assert events[-1]["event"] == "unclear"


def test_while_a_violation_is_outstanding_readings_under_the_floor_make_no_other():
    """A violation announced and not put right; the next picture is the doubtful one of
    the test above: the table is being put back, so it is unclear, not a second violation."""
    either = {"path": "cells.2", "confidence": 0.6, "alternatives": [["A", 0.4]]}
    beside = {"path": "cells.3", "confidence": 0.86, "alternatives": [["A", 0.07], ["B", 0.07]]}
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AA..."),
                 obs(4, "ABB..", confidence=0.6, uncertain=[either, beside]))
    assert [e["event"] for e in events] == ["move", "violation", "unclear"]


def test_readings_under_the_floor_that_break_other_rules_leave_the_violation_unclear():
    """Two stones appeared (one A's or B's: one-stone either way), and each stone placed
    before may be the other player's at 0.08 (under a tenth of the reading: a stone moved):
    every reading is illegal, but the one rule the event would name holds only 0.85."""
    either = {"path": "cells.1", "confidence": 0.6, "alternatives": [["B", 0.4]]}
    moved = [{"path": "cells.0", "confidence": 0.92, "alternatives": [["B", 0.08]]},
             {"path": "cells.2", "confidence": 0.92, "alternatives": [["A", 0.08]]}]
    start = [obs(1, "....."), obs(2, "A...."), obs(3, "A.B..")]
    events = run(*start, obs(4, "AAB.A", confidence=0.6, uncertain=[either, *moved]))
    assert events[-1]["event"] == "unclear"
    # the same doubt under the floor, in stones that keep the rule (three stones): violation
    more = {"path": "cells.3", "confidence": 0.84, "alternatives": [["A", 0.08], ["B", 0.08]]}
    events = run(*start, obs(4, "AAB.A", confidence=0.6, uncertain=[either, more]))
    assert events[-1]["event"] == "violation" and events[-1]["rule"] == "one-stone"


#: a stone read at 0.58 whose absence (no change) is legal too: the move is unclear
DOUBTFUL_A = [{"path": "cells.0", "confidence": 0.58, "alternatives": [[".", 0.42]]}]


def test_a_move_in_doubt_is_announced_with_the_next_one_that_only_it_explains():
    """The first stone unclear; the next picture shows it and B's reply, read surely: from
    the last sure position two stones appeared (a violation), but the way through the
    doubtful picture's move explains it, so both moves are announced, in one event."""
    events = run(obs(1, "....."), obs(2, "A....", confidence=0.58, uncertain=DOUBTFUL_A),
                 obs(3, "AB..."), obs(4, "AB.A."))
    assert events[0]["event"] == "unclear"
    assert events[1] == {"event": "move", "seq": 3, "ply": 1, "player": 0, "move": "@0; @1",
                         "moves": ["@0", "@1"]}
    assert events[2] == {"event": "move", "seq": 4, "ply": 3, "player": 0, "move": "@3"}


def test_ways_through_the_doubt_that_announce_different_moves_are_unclear():
    """The doubtful stone again in doubt in the next picture, and the new stone A's or B's:
    A's stone and B's reply, or no stone at first and A's move now; two ways, neither
    sure, so nothing is announced."""
    again = [{"path": "cells.0", "confidence": 0.5, "alternatives": [[".", 0.5]]},
             {"path": "cells.1", "confidence": 0.5, "alternatives": [["A", 0.5]]}]
    events = run(obs(1, "....."), obs(2, "A....", confidence=0.58, uncertain=DOUBTFUL_A),
                 obs(3, "AB...", confidence=0.5, uncertain=again))
    assert [e["event"] for e in events] == ["unclear", "unclear"]


def test_a_violation_after_a_move_in_doubt_is_unclear_and_its_correction_the_move():
    """After a picture that may hold a move the referee could not read, a position no way
    explains is not announced as a violation (the table may have moved on unseen); put
    back, the doubtful move is announced."""
    events = run(obs(1, "....."), obs(2, "A....", confidence=0.58, uncertain=DOUBTFUL_A),
                 obs(3, "A.BB."), obs(4, "A...."))
    assert [e["event"] for e in events] == ["unclear", "unclear", "move"]
    assert events[2]["move"] == "@0"


def test_after_pictures_no_move_explains_a_violation_waits_for_a_position_seen_again():
    """Unclear pictures that no legal reading explains (a misread, or moves not followed):
    another position seen surely is not judged against the last sure one; the same
    position seen surely is (the low-confidence test above)."""
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AAB..", confidence=0.5),
                 obs(4, "AABB."))
    assert [e["event"] for e in events] == ["move", "unclear", "unclear"]
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AAB..", confidence=0.5),
                 obs(4, "AAB.."))
    assert [e["event"] for e in events] == ["move", "unclear", "violation"]


def test_neunfeld_opening_in_doubt_then_the_first_turn():
    """Neunfeld demo seed 5 (26 Nov): the dice gathered before A after the opening roll,
    each holder read at 0.86 with the roll still lying (null) as its alternative, so the
    opening is unclear; A's first turn, read surely, is legal only after that opening:
    both are announced (before: a violation 'opening-roll-first' on every later picture)."""
    def nf(seq, pawns, dice, confidence=1.0, uncertain=()):
        return {"schema": "tableref/observation/1", "table": "t1", "game": "neunfeld",
                "seq": seq, "time": 1763805600.0 + seq, "stable": True,
                "confidence": confidence, "uncertain": list(uncertain),
                "position": {"pawns": pawns, "dice": {
                    c: {"top": top, "holder": holder}
                    for c, (top, holder) in zip(("blue", "red", "black"), dice, strict=True)}}}

    held = [{"path": f"dice.{c}.holder", "confidence": 0.8624, "alternatives": [[None, 0.1376]]}
            for c in ("blue", "red", "black")]
    events = run(nf(1, [0, 10], [(1, None), (1, None), (2, None)], 0.95),
                 nf(2, [0, 10], [(9, 0), (5, 0), (8, 0)], 0.8624, held),
                 nf(3, [3, 10], [(9, 1), (5, 1), (2, 0)], 0.93))
    assert events[0]["event"] == "unclear"
    assert events[1]["event"] == "move"
    assert events[1]["moves"] == ["opening A 9 5 8", "black:2 @3"]



def test_a_violation_after_scenes_the_camera_could_not_read_is_unclear():
    """The camera tells how many settled scenes it could not read since its previous
    observation (``unread``): the table may have moved on unseen, so a position no move
    explains is not a violation; without unread scenes it is."""
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "AAB..", unread=1))
    assert [e["event"] for e in events] == ["move", "unclear"]
    assert run(obs(1, "....."), obs(2, "A...."), obs(3, "AAB.."))[-1]["event"] == "violation"
    # a legal move is a move all the same
    assert run(obs(1, "....."), obs(2, "A....", unread=2))[-1]["move"] == "@0"


def test_a_game_lost_unseen_is_followed_again_from_two_sure_readings_a_move_apart():
    """Two scenes the camera could not read, then a position no move explains (unclear),
    then one a legal move on from it, both read surely: the game is followed again from
    the first (as a referee begun there would), that move announced; plies count on from
    the last one announced (the unseen moves are not counted)."""
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "A.B.A", unread=2),
                 obs(4, "ABB.A"))
    assert [e["event"] for e in events] == ["move", "unclear", "move", "win"]
    assert (events[2]["ply"], events[2]["player"], events[2]["move"]) == (2, 1, "@1")
    # the first of the two read in doubt: not followed again
    events = run(obs(1, "....."), obs(2, "A...."), obs(3, "A.B.A", unread=2, confidence=0.6),
                 obs(4, "ABB.A"))
    assert [e["event"] for e in events] == ["move", "unclear", "unclear"]


def test_a_game_is_not_begun_mid_way_from_a_position_read_in_doubt():
    """Begun on a misread, every later position would be judged against it (Neunfeld demo
    seed 30: begun on a die's top read at 0.44, three false violations followed); the
    start itself begins a game at any confidence (above)."""
    events = run(obs(1, "A.B..", confidence=0.5), obs(2, "A.B.."), obs(3, "AAB.."))
    assert [e["event"] for e in events] == ["unclear", "move", "win"]
    assert "read in doubt (0.50)" in events[0]["message"]


def test_past_the_doubts_kept_no_way_is_followed_through_them():
    """A move in doubt, then misread pictures (no reading legal): with five doubtful
    pictures (MAX_DOUBTS 4 kept) a way through the last four could skip the move in the
    first, so a position only such a way explains is unclear; with four it is judged
    through them."""
    misread = [obs(i, cells, confidence=0.5)
               for i, cells in zip(range(3, 7), ("AAB..", "AABB.", "BBB..", "AAAA."), strict=True)]
    first = obs(2, "A....", confidence=0.58, uncertain=DOUBTFUL_A)
    events = run(obs(1, "....."), first, *misread, obs(7, "AB..."))
    assert [e["event"] for e in events] == ["unclear"] * 6
    events = run(obs(1, "....."), first, *misread[:3], obs(7, "AB..."))
    assert [e["event"] for e in events] == ["unclear"] * 4 + ["move"]
    assert events[-1]["moves"] == ["@0", "@1"]
