"""e-SOLO-e (1x5): moves, the publisher's counts, the five views, wins, illegal moves,
judging, JSON. Scenarios are legal games written in the move notation."""

from __future__ import annotations

import json
import time

import pytest

from rules import Board, IllegalMoveError, InvalidMove, InvalidPosition, Judgement, get_game
from rules.cube import CUBE_SETS, FACES, turn_half
from rules.esoloe import Cube, EsoloePosition, Place
from rules.miwin import perft

GAME = get_game("esoloe")


def play(moves: str, game=GAME, **options) -> Board:
    """Plays the moves (each checked legal); none but the last may end the game."""
    board = Board(game, options=options or None)
    for text in moves.split():
        assert board.outcome() is None, f"game over before {text}"
        board.push_notation(text)
    return board


def cube(player: int, orientation: str, cube_set: str = "corner") -> Cube:
    """A cube given as 'S/fS' (sakura up, fuji facing south)."""
    move = GAME.parse_move(f"{player}:a:{orientation}")
    s = CUBE_SETS[cube_set]
    return Cube(player, s.orientations[s.find(move.up, move.side, FACES.index(move.facing))])


# --------------------------------------------------------------------------- moves


def test_60_first_moves_and_60_replies_to_each():
    start = GAME.initial_state()
    first = list(start.legal_moves)
    assert len(first) == len(set(first)) == 60
    replies = [len(start.apply(m).legal_moves) for m in first]
    assert replies == [60] * 60
    assert sum(replies) == 3600


def _cells_up_to_mirror(sequence):
    """The publisher's reduction: the board mirrored east-west (cell i -> 4 - i), each
    cube turned to match (the same symbol up, the same quarter turn): a sequence of
    moves and its mirror image count once."""
    mirrored = tuple((4 - cell, o) for cell, o in sequence)
    return min(sequence, mirrored)


def _sequences(depth):
    """Every sequence of ``depth`` first placements as ((cell, orientation index), ...)."""
    out = []

    def walk(state, seq):
        if len(seq) == depth:
            out.append(tuple(seq))
            return
        for move in state.legal_moves:
            o = state.cube_set.find(move.up, move.side, FACES.index(move.facing))
            walk(state.apply(move), [*seq, ("abcde".index(move.cell), o)])

    walk(GAME.initial_state(), [])
    return out


def test_publisher_counts_36_and_1872_by_mirror_reduction():
    one, two = _sequences(1), _sequences(2)
    assert len({_cells_up_to_mirror(s) for s in one}) == 36  # 3 squares x 3 symbols x 4
    assert len({_cells_up_to_mirror(s) for s in two}) == 1872  # 13 x 12 x 12
    # the 13 classes of where the two cubes stand (5 + 5 + 3)
    places = {_cells_up_to_mirror(tuple((c, 0) for c, _ in s)) for s in two}
    assert len(places) == 13


def test_half_turn_is_the_exact_symmetry_and_gives_30_and_1800():
    """Turning the board half round (cell i -> 4 - i, each cube turned with it) is a
    true symmetry of every cube set; up to it there are 30 and 1,800 openings."""
    s = CUBE_SETS["corner"]
    turned = {o: s.orientations.index(turn_half(s.orientations[o])) for o in s.symbol_up}

    def reduce(seq):
        return min(seq, tuple((4 - c, turned[o]) for c, o in seq))

    assert len({reduce(s) for s in _sequences(1)}) == 30
    assert len({reduce(s) for s in _sequences(2)}) == 1800


@pytest.mark.parametrize("depth, count", [(1, 60), (2, 3600), (3, 216_000)])
def test_perft(depth, count):
    assert perft(GAME.initial_state(), depth) == count


def test_notation_round_trips_and_is_documented_form():
    move = GAME.parse_move("0:c:S/fS")
    assert move == Place(0, "c", "sakura", "fuji", "south")
    assert str(move) == "0:c:S/fS"
    for bad in ["c:S/fS", "0:f:S/fS", "0:c:S/sS", "0:c:S/fX", "2:c:S/fS", "0:c", 5]:
        with pytest.raises(InvalidMove):
            GAME.parse_move(bad)
    # another symbol on a side names the same placement; the engine writes the first
    state = GAME.initial_state()
    same = GAME.parse_move("0:c:S/gE")
    assert state.apply(same) == state.apply(move)
    assert next(iter(state.apply(same).legal_moves)).notation().startswith("1:a:S/f")


def test_turn_follows_the_cube_counts():
    board = play("0:c:S/fS 1:c:F/sN")
    assert board.state.turn == 0
    assert board.state.apply(GAME.parse_move("0:a:G/sW")).turn == 1


# --------------------------------------------------------------------------- views


def test_views_as_each_person_sees_them():
    board = play("0:a:S/fS 1:c:F/sN 0:c:G/sE 1:e:S/fW")
    v = GAME.views(board.position)
    # top: one row, west to east, the top cube of each stack
    assert v["top"] == (((0, "sakura"), None, (0, "geisha"), None, (1, "sakura")),)
    # front (from the south): south faces, row 0 the board level
    assert v["front"][0] == ((0, "fuji"), None, (1, "blank"), None, (1, "geisha"))
    assert v["front"][1] == (None, None, (0, "blank"), None, None)
    # back (from the north): east is on the viewer's left
    assert v["back"][0] == ((1, "blank"), None, (1, "sakura"), None, (0, "blank"))
    # left (from the west): per level the westmost cube's west face; c hides e
    assert v["left"][0] == ((0, "blank"),) and v["left"][1] == ((0, "blank"),)
    assert v["right"][0] == ((1, "blank"),) and v["right"][1] == ((0, "sakura"),)
    assert v["left"][2] == (None,)


def _lines_in(grid, k):
    """Independent of the engine: the lines of k equal entries in a view grid."""
    rows, cols = len(grid), len(grid[0])
    found = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(k)]
                if all(0 <= a < rows and 0 <= b < cols and grid[a][b] for a, b in cells):
                    found.append([grid[a][b] for a, b in cells])
    return found


WINS = [
    # (moves, condition, the views it is seen in)
    ("0:e:G/sS 1:a:G/sN 0:c:F/sN 1:c:G/sW 0:b:F/sW 1:c:F/sS 0:d:F/sW",
     "four-colour-line", {"front", "back"}),
    ("0:b:F/sN 1:c:F/sN 0:c:G/sE 1:e:F/sE 0:c:S/fN 1:e:F/sW 0:c:S/fE",
     "four-colour-line", {"left"}),
    ("0:e:S/fN 1:c:G/sS 0:c:G/sN 1:d:G/sW 0:c:G/sS 1:a:G/sN 0:c:F/sW",
     "four-colour-line", {"right"}),
    ("0:c:G/sS 1:e:S/fW 0:b:F/sS 1:d:S/fW 0:a:S/fE 1:d:S/fW 0:d:F/sE",
     "four-colour-line", {"top"}),
    ("0:d:G/sW 1:b:G/sW 0:e:S/fS 1:c:G/sW", "four-symbol-line", {"front"}),
    ("0:c:F/sN 1:e:F/sN 0:b:F/sN 1:d:G/sN", "four-symbol-line", {"back"}),
    ("0:e:G/sS 1:a:G/sN 0:e:F/sN 1:a:G/sN 0:e:S/fW 1:e:S/fW", "four-symbol-line", {"left"}),
    ("0:d:S/fS 1:d:F/sN 0:d:S/fS 1:d:S/fS", "four-symbol-line", {"right"}),
    ("0:b:G/sE 1:a:G/sE 0:d:G/sE 1:c:G/sN", "four-symbol-line", {"top"}),
    # the rules' own example: the second player copies the first one's orientation
    ("0:a:F/sS 1:b:F/sS 0:c:F/sS", "two-three-sets", {"front", "top"}),
    ("0:b:G/sN 1:b:G/sN 0:b:G/sN", "two-three-sets", {"back", "left"}),
    ("0:d:S/fS 1:d:S/fS 0:c:S/fS 1:a:S/fN 0:d:S/fS", "two-three-sets", {"front", "right"}),
    ("0:e:F/sS 1:e:G/sN 0:c:S/fW 1:d:S/fN 0:e:S/fW", "two-three-sets", {"left", "top"}),
    ("0:d:G/sW 1:e:S/fS 0:d:G/sN 1:a:G/sN 0:e:F/sS 1:e:F/sN 0:b:F/sN 1:b:S/fN 0:c:G/sN",
     "two-three-sets", {"back"}),
]


@pytest.mark.parametrize("moves, condition, views", WINS)
def test_each_win_condition_in_each_view(moves, condition, views):
    board = play(moves)
    mover = board.move_stack[-1].player
    outcome = board.outcome()
    assert outcome is not None and outcome.condition == condition
    assert outcome.winners == (mover,)
    kind = "three-set" if condition == "two-three-sets" else condition
    made = {line.view for line in GAME.lines_made(board.state) if line.kind == kind}
    assert made == views
    # the same lines, found by a plain scan of what each person sees
    seen = GAME.views(board.position)
    for view in views:
        if condition == "four-colour-line":
            grid = [[e and f"player {e[0]}" for e in row] for row in seen[view]]
            assert any(len(set(line)) == 1 for line in _lines_in(grid, 4))
        else:
            grid = [[e and e[1] != "blank" and e[1] for e in row] for row in seen[view]]
            k = 4 if condition == "four-symbol-line" else 3
            assert any(len(set(line)) == 1 for line in _lines_in(grid, k))
    # one move earlier the game was still on
    board.pop()
    assert board.outcome() is None


def test_a_set_with_the_opponents_majority_does_not_count():
    # player 1's third fuji makes two 3-sets in which player 0 holds 2 of 3 cubes
    board = play("0:a:F/sS 1:e:G/sN 0:b:F/sS 1:c:F/sS")
    assert board.outcome() is None
    assert [line.kind for line in GAME.lines_made(board.state)] == []


def test_two_sets_must_arise_in_one_move_unless_standing_set_is_chosen():
    moves = "0:b:S/fW 1:c:S/fW 0:a:F/sE 1:c:F/sW 0:b:F/sE"
    assert play(moves).outcome() is None  # one new set and one standing: no win
    board = play(moves, **{"standing-set": True})
    assert board.outcome().condition == "two-three-sets"
    assert board.outcome().winners == (0,)


def test_fourth_level_only_with_a_win():
    board = play("0:c:S/fN 1:c:F/sN 0:c:G/sE 1:a:S/fN")
    state = board.state
    assert not any(m.cell == "c" for m in state.legal_moves)
    illegal = state.why_illegal(GAME.parse_move("0:c:F/sE"))
    assert illegal.rule == "fourth-level" and illegal.player == 0
    # the left-view colour win above reaches the 4th level legally
    assert play(WINS[1][0]).position.heights[2] == 4


def test_board_full_is_a_draw():
    """15 cubes fill every stack to 3; the 16th may go up only to win, and here no
    4th-level placement wins: player 1 cannot move and the game is drawn."""
    board = play("0:a:S/fS 1:b:F/sS 0:d:G/sN 1:e:S/fN 0:a:G/sE 1:c:F/sE 0:b:G/sW 1:d:F/sS "
                 "0:d:G/sN 1:a:F/sS 0:e:F/sE 1:e:F/sW 0:c:F/sW 1:b:S/fN 0:c:G/sN")
    state = board.state
    assert state.position.heights == (3, 3, 3, 3, 3)
    assert state.outcome().condition == "board-full"
    assert state.outcome().is_draw and state.turn is None and not state.legal_moves
    assert state.why_illegal(GAME.parse_move("1:a:S/fN")).rule == "game-over"


# --------------------------------------------------------------------------- illegal


def test_illegal_moves_have_rule_ids():
    state = play("0:c:S/fS").state
    cases = {
        "0:a:S/fS": "wrong-player",
        "1:c:S/fN": None,
        "1:a:S/sN": InvalidMove,
    }
    for text, rule in cases.items():
        if rule is InvalidMove:
            with pytest.raises(InvalidMove):
                GAME.parse_move(text)
            continue
        got = state.why_illegal(GAME.parse_move(text))
        assert (got and got.rule) == rule, text
    with pytest.raises(IllegalMoveError) as err:
        state.apply(GAME.parse_move("0:a:S/fS"))
    assert err.value.illegal.rule == "wrong-player"
    assert "player 1's turn" in err.value.illegal.message
    # a rotation the set cannot make (strip: geisha is opposite sakura, never beside it)
    strip = GAME.initial_state({"cube-set": "strip"})
    assert strip.why_illegal(GAME.parse_move("0:a:S/gN")).rule == "impossible-orientation"
    assert strip.why_illegal(Place(0, "a")).rule == "wrong-move-form"
    assert state.why_illegal(Place(1, "z", "sakura", "fuji", "south")).rule == "no-such-cell"
    assert state.why_illegal(Place(7, "a", "sakura", "fuji", "south")).rule == "no-such-player"
    over = play(WINS[4][0]).state
    assert over.why_illegal(GAME.parse_move("0:a:S/fN")).rule == "game-over"


def _seen(state, cell, new):
    cells = list(getattr(state, "position", state).cells)
    cells["abcde".index(cell)] = (*cells["abcde".index(cell)], new)
    return EsoloePosition(tuple(cells))


def test_judge_names_each_violation():
    board = play("0:c:S/fS 1:a:F/sN")
    state = board.state  # player 0 to move
    blank_up = Cube(0, ("blank", "geisha", "blank", None, None, None))
    cases = [
        (_seen(state, "b", blank_up), "blank-up", 0),
        (_seen(state, "b", cube(1, "S/fS")), "wrong-player", 1),
        (_seen(_seen(state, "b", cube(0, "S/fS")), "d", cube(0, "S/fS")),
         "one-cube-per-turn", 0),
        (EsoloePosition(((), (), state.position.cells[2], (), ())), "cube-removed", 0),
        (EsoloePosition(((), state.position.cells[0], state.position.cells[2], (), ())),
         "cube-moved", 0),
        (EsoloePosition(((cube(1, "G/sN"),), (), state.position.cells[2], (), ())),
         "cube-turned", 0),
    ]
    for seen, rule, player in cases:
        verdict = GAME.judge(state, seen)
        assert verdict.kind == Judgement.VIOLATION, rule
        assert (verdict.illegal.rule, verdict.illegal.player) == (rule, player)
        assert verdict.illegal.message.endswith(".")
    # a 4th level that does not win
    full = play("0:c:S/fN 1:c:F/sN 0:c:G/sE 1:a:S/fN").state
    verdict = GAME.judge(full, _seen(full, "c", cube(0, "F/sE")))
    assert verdict.illegal.rule == "fourth-level"
    # a 9th cube of one colour cannot even be shown to the referee
    nine = {"cells": [[{"player": 0, "faces": cube(0, "S/fS").to_json()["faces"]}] * 3] * 3
            + [[], []]}
    with pytest.raises(InvalidPosition) as err:
        GAME.position_from_json(nine)
    assert err.value.key == "cells.2.2" and "9th" in err.value.message


def test_judge_same_and_moves_with_unknown_faces():
    state = play("0:c:S/fS").state
    assert GAME.judge(state, state.position).kind == Judgement.SAME
    # the camera saw only the top and the south face of the old cube
    partly = Cube(0, ("sakura", None, None, "fuji", None, None))
    assert GAME.judge(state, EsoloePosition(((), (), (partly,), (), ()))).kind == "same"
    # a new cube with sakura up and nothing else known: 4 legal moves fit, so the move
    # names only what was seen (no guessed side facing)
    new = Cube(1, ("sakura", None, None, None, None, None))
    verdict = GAME.judge(state, _seen(state, "a", new))
    assert verdict.kind == Judgement.MOVES
    assert [str(m) for m in verdict.moves] == ["1:a:S/?"]
    # the state keeps what all four share (sakura up, blank down), not a guess
    assert verdict.state.position.cells[0] == (Cube(1, ("sakura", "blank") + (None,) * 4),)
    assert verdict.state.last == 0 and verdict.state.turn == 0
    # the partly seen move round-trips and, applied, gives the judged state
    move = GAME.parse_move("1:a:S/?")
    assert move == verdict.moves[0] and state.apply(move) == verdict.state
    # a cube whose faces were all missed: only that a cube of player 1 was placed
    unseen = GAME.judge(state, _seen(state, "a", Cube(1, (None,) * 6)))
    assert [str(m) for m in unseen.moves] == ["1:a:?"]
    assert state.apply(GAME.parse_move("1:a:?")) == unseen.state
    # enough faces seen to leave one orientation: the full move
    two = Cube(1, ("sakura", None, None, "fuji", None, None))
    assert [str(m) for m in GAME.judge(state, _seen(state, "a", two)).moves] == ["1:a:S/fS"]
    # so a later, clearer look at the same cube is no violation
    clear = _seen(state, "a", cube(1, "S/fW"))
    assert GAME.judge(verdict.state, clear).kind == Judgement.SAME
    # a cube no corner cube can be (the mirror set's) is named
    mirror = cube(1, "S/fS", "corner-mirror")
    verdict = GAME.judge(state, _seen(state, "a", mirror))
    assert verdict.illegal.rule == "impossible-cube"


def test_a_camera_that_sees_only_colours_makes_no_symbol_wins():
    """The rules' two-set example, seen with every face unknown: three legal moves,
    but no win is built on guessed faces."""
    board = play("0:a:F/sS 1:b:F/sS 0:c:F/sS")
    assert board.outcome() is not None
    state = GAME.initial_state()
    for move in board.move_stack:
        cell = "abcde".index(move.cell)
        blind = Cube(move.player, (None,) * 6)
        verdict = GAME.judge(state, _seen(state, move.cell, blind))
        assert verdict.kind == Judgement.MOVES and verdict.moves[0].cell == move.cell
        state = verdict.state
        # a symbol is up, so the face down is blank; nothing else is known
        assert state.position.cells[cell][-1] == Cube(move.player, (None, "blank") + (None,) * 4)
    assert state.outcome() is None
    assert GAME.judge(state, board.position).kind == Judgement.SAME


def test_judging_is_fast():
    board = play("0:c:S/fS 1:c:F/sN 0:a:G/sE 1:e:S/fW 0:b:S/fN 1:d:F/sE 0:c:G/sW")
    state = board.state
    after = state.apply(GAME.parse_move("1:b:S/fS"))
    seen = GAME.position_from_json(json.loads(json.dumps(after.to_json())))
    GAME.judge(state, seen)
    best = min(_timed(lambda: GAME.judge(state, seen)) for _ in range(200))
    assert best < 0.001


def _timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


# --------------------------------------------------------------------------- JSON


def test_position_json_round_trips_exactly():
    board = play("0:c:S/fS 1:c:F/sN 0:a:G/sE")
    data = board.state.to_json()
    assert data["cells"][2][0] == {"player": 0, "faces": {
        "up": "sakura", "down": "blank", "north": "blank", "south": "fuji",
        "east": "geisha", "west": "blank"}}
    text = json.dumps(data)
    assert GAME.position_from_json(json.loads(text)) == board.position
    assert GAME.position_from_json(json.loads(text)).to_json() == data
    assert hash(board.state) == hash(play("0:c:S/fS 1:c:F/sN 0:a:G/sE").state)


def _faces(**named):
    base = dict.fromkeys(("up", "down", "north", "south", "east", "west"))
    base.update(named)
    return base


@pytest.mark.parametrize("cells, key, words", [
    ([[{"player": 0, "faces": _faces(up="sakura", down="sakura")}], [], [], [], []],
     "cells.0.0.faces", "twice"),
    ([[], [], [{"player": 0, "faces": _faces(up="sakura", south="fuji", west="geisha")}],
      [], []], "cells.2.0.faces", "corner-mirror"),
    ([[], [], [{"player": 0, "faces": _faces(top="sakura")}], [], []],
     "cells.2.0.faces.top", "not a face"),
    ([[], [], [{"player": 2, "faces": _faces()}], [], []], "cells.2.0.player", "0 or 1"),
    ([[], [], [{"player": 0, "faces": _faces(up="lotus")}], [], []],
     "cells.2.0.faces.up", "lotus"),
    ([[{"player": 0, "faces": _faces()}] * 11, [], [], [], []], "cells.0", "11 cubes"),
    ([[], []], "cells", "5 stacks"),
    ([[], [], [{"player": 0}], [], []], "cells.2.0.faces", "six faces"),
])
def test_impossible_positions_are_rejected_with_the_key(cells, key, words):
    with pytest.raises(InvalidPosition) as err:
        GAME.position_from_json({"cells": cells})
    assert err.value.key == key
    assert words in err.value.message


def test_mirror_set_cubes_load_with_the_option():
    data = {"cells": [[], [], [{"player": 0, "faces": _faces(
        up="sakura", south="fuji", west="geisha")}], [], []]}
    position = GAME.position_from_json(data, {"cube-set": "corner-mirror"})
    state = GAME.state_from_position(position, {"cube-set": "corner-mirror"})
    assert state.turn == 1


def test_state_from_position_resumes_and_refuses_what_play_cannot_reach():
    board = play(WINS[9][0])  # the publisher's two-set example, won by player 0
    resumed = GAME.state_from_position(board.position)
    assert resumed.outcome() == board.outcome()
    mid = play("0:c:S/fS 1:c:F/sN 0:a:G/sE")
    assert GAME.state_from_position(mid.position) == mid.state
    with pytest.raises(InvalidPosition) as err:  # player 1 placed first
        GAME.state_from_position(EsoloePosition(((cube(1, "S/fS"),), (), (), (), ())))
    assert "player 1 has 1" in err.value.message
    with pytest.raises(InvalidPosition) as err:  # a blank up
        GAME.state_from_position(EsoloePosition((
            (Cube(0, ("blank", "geisha", None, None, None, None)),), (), (), (), ())))
    assert err.value.key == "cells.0.0.faces"
    stack = tuple(cube(p, "S/fN") for p in (0, 1, 0, 1))  # a 4th level that won nothing
    with pytest.raises(InvalidPosition) as err:
        GAME.state_from_position(EsoloePosition((stack, (), (), (), ())))
    assert "no legal game" in err.value.message
