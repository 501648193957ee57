"""Tyr 3 gewinnt: target fields, placement, moves, doubles, lines, judging, perft."""

from __future__ import annotations

import copy
import json
import random
import time
from dataclasses import replace
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Board, IllegalMoveError, InvalidMove, InvalidPosition, Judgement
from rules.miwin import DICE, perft
from rules.neunfeld import Turn
from rules.tyr import Place, Shift, Tyr, TyrPosition, TyrState, between, in_line, targets

GAME = Tyr()
COLOURS = ("blue", "red", "black")


def pos(*dice) -> TyrPosition:
    """pos(("blue", (1, 1), 2), ...): dice not named lie beside the board."""
    cells, tops = [None, None, None], [None, None, None]
    for colour, cell, top in dice:
        i = COLOURS.index(colour)
        cells[i], tops[i] = cell, top
    return TyrPosition(tuple(cells), tuple(tops))


def play(*texts, options=None, n_players=2) -> TyrState:
    board = Board(GAME, GAME.initial_state(options, n_players))
    for text in texts:
        board.push_notation(text)
    return board.state


# the rules' own target examples, placed as a game: A blue, B red, A black; B to move
PLACED = ("blue @1,1/2", "red @5,4/3", "black @9,2/6")


# --------------------------------------------------------------------------- targets


def test_the_four_worked_examples():
    assert targets((1, 1), 2) == ((1, 2), (2, 1), (2, 2))
    eight = targets((8, 8), 8)
    assert len(eight) == 16
    assert set(eight) == {(8, c) for c in range(1, 10) if c != 8} | {
        (r, 8) for r in range(1, 10) if r != 8}
    assert len(targets((9, 2), 6)) == 4
    assert set(targets((9, 2), 6)) == {(6, 2), (9, 6), (6, 5), (5, 6)}
    assert len(targets((5, 4), 3)) == 6
    assert set(targets((5, 4), 3)) == {(3, 4), (5, 3), (4, 3), (3, 2), (3, 6), (6, 3)}


def test_targets_lie_on_the_row_or_column_and_on_a_line():
    for r, c, n in product(range(1, 10), range(1, 10), range(1, 10)):
        for tr, tc in targets((r, c), n):
            assert n in (tr, tc) and (tr, tc) != (r, c)
            dr, dc = tr - r, tc - c
            assert dr == 0 or dc == 0 or abs(dr) == abs(dc)


def test_between_and_lines():
    assert between((1, 1), (4, 4)) == ((2, 2), (3, 3))
    assert between((5, 5), (5, 2)) == ((5, 4), (5, 3))
    assert between((1, 1), (1, 2)) == ()
    assert in_line(((1, 1), (1, 5), (1, 9)), adjacent=False)
    assert not in_line(((1, 1), (1, 5), (1, 9)), adjacent=True)
    assert in_line(((3, 3), (4, 4), (5, 5)), adjacent=True)
    assert in_line(((1, 9), (2, 8), (3, 7)), adjacent=True)  # the other diagonal
    assert in_line(((2, 2), (4, 2), (9, 2)), adjacent=False)
    assert not in_line(((1, 1), (2, 2), (3, 4)), adjacent=False)
    assert not in_line(((1, 1), (2, 3), (3, 5)), adjacent=False)  # a knight's line


# --------------------------------------------------------------------------- positions


def test_position_json_round_trip():
    data = {"dice": {"blue": {"top": 5, "cell": [4, 7]}, "red": {"top": None, "cell": None},
                     "black": {"top": 8, "cell": [1, 1]}}}
    position = GAME.position_from_json(data)
    assert position.to_json() == data
    # the top of a die beside the board does not count
    data["dice"]["red"]["top"] = 3
    assert GAME.position_from_json(data) == position


START = {"dice": {"blue": {"top": 5, "cell": [4, 7]}, "red": {"top": 3, "cell": [2, 2]},
                  "black": {"top": 8, "cell": [1, 1]}}}


@pytest.mark.parametrize("change, key, words", [
    (lambda d: d["dice"]["red"].update(cell=[4, 7]), "dice.red.cell", "blue die already"),
    (lambda d: d["dice"]["red"].update(cell=[0, 7]), "dice.red.cell", "not a field"),
    (lambda d: d["dice"]["red"].update(cell=[10, 1]), "dice.red.cell", "not a field"),
    (lambda d: d["dice"]["red"].update(cell=[1, 2, 3]), "dice.red.cell", "not a field"),
    (lambda d: d["dice"]["red"].update(top=2), "dice.red.top", "red die (1 3 4 5 8 9)"),
    (lambda d: d["dice"]["black"].update(top=None), "dice.black.top", "not a face"),
    (lambda d: d["dice"]["black"].pop("cell"), "dice.black.cell", "missing"),
    (lambda d: d["dice"].pop("blue"), "dice.blue", "missing"),
    (lambda d: d.update(dice=None), "dice", "blue, red and black"),
    (lambda d: d.pop("dice"), "dice", "missing"),
])
def test_invalid_positions_name_the_key(change, key, words):
    data = copy.deepcopy(START)
    change(data)
    with pytest.raises(InvalidPosition) as err:
        GAME.position_from_json(data)
    assert err.value.key == key
    assert words in err.value.message


def test_state_from_position():
    # during placement the player is known from the number of dice down
    s = GAME.state_from_position(pos(("blue", (1, 1), 2)))
    assert s.turn == 1 and s.placing
    s = GAME.state_from_position(pos(("blue", (1, 1), 2)), extra={"player_names": ["a"] * 3})
    assert s.n_players == 3
    with pytest.raises(InvalidPosition, match="same number"):
        GAME.state_from_position(pos(("blue", (1, 1), 2), ("black", (3, 3), 2)))
    # after it, the observation may name the player; a double on the board must go
    full = pos(("blue", (1, 1), 2), ("red", (5, 4), 3), ("black", (9, 2), 3))
    s = GAME.state_from_position(full, extra={"turn": 1})
    assert s.turn == 1 and s.pending == {1, 2} and s.last is None
    with pytest.raises(InvalidPosition) as err:
        GAME.state_from_position(full, extra={"turn": 2})
    assert err.value.key == "turn"
    with pytest.raises(InvalidPosition, match="line"):
        GAME.state_from_position(pos(("blue", (1, 1), 2), ("red", (1, 4), 3),
                                     ("black", (1, 9), 4)))
    with pytest.raises(InvalidPosition, match="2 to 4"):
        GAME.initial_state(n_players=5)


# --------------------------------------------------------------------------- notation


def test_notation_round_trips():
    for text, move in [("blue @4,7/5", Place("blue", (4, 7), 5)),
                       ("red 4,7-2,7/9", Shift("red", (4, 7), (2, 7), 9))]:
        assert GAME.parse_move(text) == move
        assert move.notation() == text
    assert GAME.parse_move(" Black 1, 1 - 2, 2 / 3 ") == Shift("black", (1, 1), (2, 2), 3)


@pytest.mark.parametrize("text", ["blue 4,7", "green @1,1/2", "blue @0,1/2", "blue @1,1/3",
                                  "red 1,1-1,10/3", "", "blue:1 @2"])
def test_bad_notation_is_refused(text):
    with pytest.raises(InvalidMove):
        GAME.parse_move(text)


# --------------------------------------------------------------------------- placement


def test_placement_goes_a_b_a_then_b_moves():
    s = GAME.initial_state()
    assert s.turn == 0 and len(s.legal_moves) == 3 * 81 * 6
    s = play(*PLACED[:1])
    assert s.turn == 1
    s = play(*PLACED[:2])
    assert s.turn == 0
    s = play(*PLACED)
    assert s.turn == 1 and not s.placing
    # the die placed last counts as moved last
    assert {m.die for m in s.legal_moves} == {"blue", "red"}


@pytest.mark.parametrize("moves, move, rule", [
    (PLACED[:1], "red @1,1/3", "cell-occupied"),
    (PLACED[:1], "black @2,2/2", "placement-double"),
    (PLACED[:1], "blue @2,2/5", "already-placed"),
    (PLACED[:2], "blue 1,1-1,2/5", "place-first"),
    (PLACED, "blue @2,2/5", "already-placed"),
])
def test_placement_rules(moves, move, rule):
    s = play(*moves)
    illegal = s.why_illegal(GAME.parse_move(move))
    assert illegal is not None and illegal.rule == rule and illegal.player == s.turn
    with pytest.raises(IllegalMoveError):
        s.apply(GAME.parse_move(move))


def test_a_line_made_by_placing_the_third_die():
    s = play("blue @1,1/2", "red @5,5/3", "black @9,9/4")
    assert s.outcome().winners == (0,) and s.outcome().condition == "three-in-a-line"
    s = play("blue @1,1/2", "red @5,5/3", "black @9,9/4", options={"placement_win": False})
    assert s.outcome() is None and s.turn == 1


# --------------------------------------------------------------------------- moves


@pytest.mark.parametrize("move, rule", [
    ("black 9,2-6,2/2", "change-die"),  # black was placed last
    ("blue 2,2-2,1/5", "die-not-there"),
    ("blue 1,1-3,3/5", "target-field"),  # a 2 reaches row or column 2 only
    ("red 5,4-3,4/3", "turn-top"),  # not turned
    ("red 5,4-3,4/8", None),
])
def test_move_rules(move, rule):
    s = play(*PLACED)
    illegal = s.why_illegal(GAME.parse_move(move))
    assert (illegal.rule if illegal else None) == rule
    if illegal:
        assert illegal.player == 1 and illegal.message.strip()


def test_no_move_onto_another_die():
    s = play("blue @1,1/2", "red @2,2/3", "black @9,8/6")
    illegal = s.why_illegal(Shift("blue", (1, 1), (2, 2), 5))
    assert illegal.rule == "cell-occupied"


def test_passing_over_another_die_is_an_option():
    s = play("blue @1,1/5", "red @3,3/3", "black @9,8/6")  # blue to 5,5 passes red
    assert Shift("blue", (1, 1), (5, 5), 2) in s.legal_moves
    s = play("blue @1,1/5", "red @3,3/3", "black @9,8/6", options={"pass_over": False})
    assert s.why_illegal(Shift("blue", (1, 1), (5, 5), 2)).rule == "pass-over"
    assert Shift("blue", (1, 1), (1, 5), 2) in s.legal_moves


def test_a_double_is_resolved_by_the_other_double_die():
    s = play(*PLACED, "blue 1,1-2,2/6")  # blue now shows 6 like black: a double
    assert s.turn == 1 and s.pending == {2} and s.moves_in_turn == 1
    assert s.why_illegal(Shift("red", (5, 4), (3, 4), 8)).rule == "resolve-double"
    assert {m.die for m in s.legal_moves} == {"black"}
    s2 = s.apply(Shift("black", (9, 2), (6, 2), 7))  # no new double: B's turn ends
    assert s2.turn == 0 and not s2.pending and s2.moves_in_turn == 0
    assert s2.why_illegal(Shift("black", (6, 2), (6, 7), 2)).rule == "change-die"


def test_at_most_three_moves_a_turn():
    # B: blue makes a double with black (6), black one with red (3), red moves third
    s = play(*PLACED, "blue 1,1-2,2/6", "black 9,2-6,2/3")
    assert s.turn == 1 and s.pending == {1} and s.moves_in_turn == 2
    after = s.apply(Shift("red", (5, 4), (3, 4), 8))
    assert after.turn == 0 and after.moves_in_turn == 0 and not after.pending
    # the third move can never make a double: no number is on all three dice
    assert not set.intersection(*(set(d.faces) for d in DICE))


def test_three_or_four_players_take_turns():
    s = play("blue @1,1/2", "red @5,4/3", "black @9,2/6", n_players=3)
    assert s.turn == 0  # players 0, 1, 2 placed; player 0 moves first
    s = play("blue @1,1/2", "red @5,4/3", "black @9,2/6", "red 5,4-3,4/8", n_players=4)
    assert s.turn == 0  # 0, 1, 2 placed, 3 moved


LINE_GAPS = ("blue @1,1/2", "red @5,5/1", "black @9,1/6", "red 5,5-5,1/4")


def test_a_line_wins_gaps_allowed_unless_adjacent_is_asked():
    s = play(*PLACED, "red 5,4-3,4/8", "blue 1,1-1,2/6")
    assert s.outcome() is None
    s = play(*LINE_GAPS)
    assert s.outcome().winners == (1,)  # column 1: 1,1 5,1 9,1 with gaps
    assert s.outcome().condition == "three-in-a-line"
    assert s.turn is None and s.why_illegal(Shift("blue", (1, 1), (1, 2), 5)).rule == (
        "game-over")
    assert s.returns(2) == (-1.0, 1.0)
    s = play(*LINE_GAPS, options={"line": "adjacent"})
    assert s.outcome() is None


def test_adjacent_line_wins():
    s = play("blue @1,1/2", "red @2,5/1", "black @3,1/6", "red 2,5-2,1/3",
             options={"line": "adjacent"})
    assert s.outcome().winners == (1,)


def test_no_legal_move_is_a_draw():
    # blue on the corner showing 1 may go along row 1 or column 1 only; red and black
    # block both with pass_over off, and the double (red shows 1) obliges blue to move
    s = play(*PLACED, options={"pass_over": False})
    blocked = replace(s, position=pos(("blue", (1, 1), 1), ("red", (1, 2), 1),
                                      ("black", (2, 1), 6)), last=1, pending=frozenset({0}))
    assert not list(blocked.legal_moves) and blocked.count_moves() == 0
    assert blocked.outcome().is_draw and blocked.outcome().condition == "no-legal-move"
    # with passing over allowed blue can still leave
    assert list(replace(blocked, options=play(*PLACED).options).legal_moves)


def test_only_tyr_moves():
    assert GAME.initial_state().why_illegal(Turn("blue", 7, 3)).rule == "not-a-move"


# --------------------------------------------------------------------------- judging


def test_judge_a_move_in_its_steps():
    s = play(*PLACED)
    moved = pos(("blue", (1, 1), 2), ("red", (3, 4), 3), ("black", (9, 2), 6))
    assert GAME.judge(s, s.position).kind == Judgement.SAME
    assert GAME.judge(s, moved).kind == Judgement.IN_PROGRESS
    turned = pos(("blue", (1, 1), 2), ("red", (3, 4), 8), ("black", (9, 2), 6))
    verdict = GAME.judge(s, turned)
    assert verdict.kind == Judgement.MOVES
    assert verdict.moves == (Shift("red", (5, 4), (3, 4), 8),)
    assert verdict.state.turn == 0


def test_judge_placements():
    s = GAME.initial_state()
    verdict = GAME.judge(s, pos(("red", (5, 5), 4)))
    assert verdict.kind == Judgement.MOVES and verdict.moves == (Place("red", (5, 5), 4),)
    placed = verdict.state
    verdict = GAME.judge(placed, pos(("red", (5, 5), 4), ("blue", (1, 1), 2),
                                     ("black", (9, 8), 3)))
    assert verdict.kind == Judgement.VIOLATION
    assert verdict.illegal.rule == "one-move-at-a-time"  # who placed which?


@pytest.mark.parametrize("seen, rule", [
    (pos(("blue", (1, 1), 2), ("red", (5, 4), 8), ("black", (9, 2), 6)), "move-then-turn"),
    (pos(("blue", (1, 1), 2), ("black", (9, 2), 6)), "die-left-board"),
    (pos(("blue", (1, 1), 2), ("red", (5, 4), 3), ("black", (6, 2), 6)), "change-die"),
    (pos(("blue", (3, 3), 2), ("red", (5, 4), 3), ("black", (9, 2), 6)), "target-field"),
    # red and blue both moved: either could have gone first
    (pos(("blue", (2, 2), 5), ("red", (3, 4), 8), ("black", (9, 2), 6)), "one-move-at-a-time"),
    # no order explains it: blue cannot reach 3,3
    (pos(("blue", (3, 3), 5), ("red", (3, 4), 8), ("black", (9, 2), 6)), "one-move-at-a-time"),
])
def test_judge_violations(seen, rule):
    verdict = GAME.judge(play(*PLACED), seen)
    assert verdict.kind == Judgement.VIOLATION
    assert verdict.illegal.rule == rule and verdict.illegal.player == 1


def test_judge_two_moves_of_one_turn_seen_at_once():
    s = play(*PLACED)
    # blue to 2,2 showing 6 (a double with black), then black resolves it: 6,2 with 7
    both = pos(("blue", (2, 2), 6), ("red", (5, 4), 3), ("black", (6, 2), 7))
    verdict = GAME.judge(s, both)
    assert verdict.kind == Judgement.MOVES
    assert verdict.moves == (Shift("blue", (1, 1), (2, 2), 6),
                             Shift("black", (9, 2), (6, 2), 7))
    assert verdict.state.turn == 0
    # the second die moved but not yet turned: still B's turn in progress
    half = pos(("blue", (2, 2), 6), ("red", (5, 4), 3), ("black", (6, 2), 6))
    assert GAME.judge(s, half).kind == Judgement.IN_PROGRESS


def test_judge_two_moves_of_two_players_when_only_one_order_fits():
    # B moves red (no double), then A moves black: black could not have gone first
    seen = pos(("blue", (1, 1), 2), ("red", (3, 4), 8), ("black", (6, 2), 7))
    verdict = GAME.judge(play(*PLACED), seen)
    assert verdict.kind == Judgement.MOVES
    assert [m.die for m in verdict.moves] == ["red", "black"]
    assert verdict.state.turn == 1


def test_judge_after_the_end():
    s = play(*LINE_GAPS)
    assert GAME.judge(s, s.position).kind == Judgement.SAME
    moved = pos(("blue", (1, 2), 2), ("red", (5, 1), 4), ("black", (9, 1), 6))
    assert GAME.judge(s, moved).illegal.rule == "game-over"


def test_judge_is_fast():
    s = play(*PLACED)
    both = pos(("blue", (2, 2), 6), ("red", (5, 4), 3), ("black", (6, 2), 7))
    one = pos(("blue", (1, 1), 2), ("red", (3, 4), 8), ("black", (9, 2), 6))
    n = 1000
    for seen in (one, both):
        t = time.perf_counter()
        for _ in range(n):
            GAME.judge(s, seen)
        assert (time.perf_counter() - t) / n < 1e-3


# --------------------------------------------------------------------------- perft


def test_perft_from_the_empty_board():
    start = GAME.initial_state()
    assert [perft(start, d) for d in (1, 2)] == [1458, 1283040]


def test_perft_depth_three_agrees_with_counting_by_hand():
    """The third placement: 79 free fields and the faces not yet up, summed."""
    total = 0
    for i, j in product(range(3), repeat=2):
        if i == j:
            continue
        (k,) = {0, 1, 2} - {i, j}
        for t1 in DICE[i].faces:
            for t2 in set(DICE[j].faces) - {t1}:
                total += 81 * 80 * 79 * len(set(DICE[k].faces) - {t1, t2})
    assert total == 497_586_240


@pytest.mark.slow
def test_perft_depth_three_from_the_empty_board():
    assert perft(GAME.initial_state(), 3) == 497_586_240


def test_perft_after_the_placement():
    assert [perft(play(*PLACED), d) for d in (1, 2, 3)] == [45, 1710, 60700]


def test_count_moves_matches_the_moves():
    rng = random.Random(7)
    board = Board(GAME)
    for _ in range(40):
        if board.outcome() is not None:
            break
        assert board.state.count_moves() == len(board.legal_moves)
        board.push(rng.choice(list(board.legal_moves)))


# --------------------------------------------------------------------------- random play

# Tyr has no draw rule and no bound: dice can wander for ever. Random games (300 seeds,
# default options) end with a line after 3 to about 350 moves, median 41; with adjacent
# lines the median is about 350 and the longest near 1,900. The cap bounds the test, and
# with default options a game that runs into it would be a near-impossible fluke.
PLAYOUT_CAP = 1000


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4),
       pass_over=st.booleans(), placement_win=st.booleans())
def test_random_play_stays_valid(seed, players, pass_over, placement_win):
    rng = random.Random(seed)
    options = {"pass_over": pass_over, "placement_win": placement_win}
    board = Board(GAME, GAME.initial_state(options, players))
    for _ in range(PLAYOUT_CAP):
        if board.outcome() is not None:
            break
        before = board.state
        move = rng.choice(list(board.legal_moves))
        board.push(move)
        after = board.state
        assert after.moves_in_turn < 3 and after.player in range(players)
        data = json.loads(json.dumps(after.to_json()))
        assert GAME.position_from_json(data) == after.position
        assert GAME.parse_move(move.notation()) == move
        verdict = GAME.judge(before, after.position)
        assert verdict.kind == Judgement.MOVES and verdict.moves == (move,)
        assert verdict.state == after
    assert board.outcome() is not None
