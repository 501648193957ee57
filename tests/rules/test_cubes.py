"""Cubes: the position format, the notation and every rule of the engine."""

from __future__ import annotations

import json

import pytest

from rules.core import Illegal, InvalidMove, InvalidPosition, Outcome
from rules.cubes_cards import DECKS, Cards, absolute, shift_card
from rules.cubes_position import WHITES, neighbours
from rules.cubes_state import (
    Deal,
    DependencyChange,
    Exchange,
    Hidden,
    Place,
    Shift,
    TakeBack,
)
from tests.rules.cubes_boards import GAME, PAIR, SHIFTS, WIN, make, play, sq

# --------------------------------------------------------------------------- position


def _json(players=None, grid=None, **extra):
    data = {
        "grid": grid or [["."] * 10 for _ in range(10)],
        "players": players or [
            {"colour": "blue", "seat": "south", "dependency": "red"},
            {"colour": "red", "seat": "north", "dependency": "blue"},
        ],
    }
    data.update(extra)
    return data


def _with(cells: dict[tuple[int, int], str]):
    grid = [["."] * 10 for _ in range(10)]
    for (r, c), token in cells.items():
        grid[r][c] = token
    return grid


def test_position_round_trips_with_and_without_the_operator_key():
    data = _json(grid=_with({(1, 1): "W", (1, 4): "b4", (5, 5): "R6"}))
    position = GAME.position_from_json(data)
    assert position.to_json() == data
    assert "card_actions" not in position.to_json()
    counted = GAME.position_from_json(_json(card_actions=[3, 0]))
    assert counted.card_actions == (3, 0)
    assert json.loads(json.dumps(counted.to_json()))["card_actions"] == [3, 0]
    assert GAME.position_from_json(counted.to_json()) == counted


def test_absent_dependency_reads_as_unknown():
    data = _json(players=[{"colour": "blue", "seat": "south"},
                          {"colour": "red", "seat": "north", "dependency": None}])
    position = GAME.position_from_json(data)
    assert position.dependencies == (None, None)


def test_unknown_extension_keys_are_ignored():
    assert GAME.position_from_json(_json(note="hello")) == GAME.position_from_json(_json())


@pytest.mark.parametrize("data, key, words", [
    ([], "", "object"),
    (_json(grid=[["."] * 10] * 9), "grid", "10 rows"),
    (_json(grid=[["."] * 10] * 9 + [["."] * 9]), "grid.9", "10 tokens"),
    (_json(grid=_with({(3, 4): "X4"})), "grid.3.4", "not a token"),
    (_json(grid=_with({(3, 4): "B7"})), "grid.3.4", "not a token"),
    (_json(grid=_with({(3, 4): 5})), "grid.3.4", "not a token"),
    (_json(grid=_with({(2, 2): "B4", (6, 7): "b4"})), "grid.6.7", "second B4"),
    (_json(grid=_with({(0, 0): "O3"})), "grid.0.0", "not playing"),
    (_json(grid=_with({(r, c): "W" for r in range(4) for c in range(8)})), "grid", "only 30"),
    (_json(players=[{"colour": "blue", "seat": "south"}]), "players", "2 to 4"),
    (_json(players=[{"colour": "blue", "seat": "south"}, "red"]), "players.1", "object"),
    (_json(players=[{"colour": "green", "seat": "south"},
                    {"colour": "red", "seat": "north"}]), "players.0.colour", "green"),
    (_json(players=[{"colour": "red", "seat": "south"},
                    {"colour": "red", "seat": "north"}]), "players.1.colour", "twice"),
    (_json(players=[{"colour": "blue", "seat": "top"},
                    {"colour": "red", "seat": "north"}]), "players.0.seat", "top"),
    (_json(players=[{"colour": "blue", "seat": "south"},
                    {"colour": "red", "seat": "south"}]), "players.1.seat", "two players"),
    (_json(players=[{"colour": "blue", "seat": "south"}, {"colour": "red", "seat": "north"},
                    {"colour": "black", "seat": "west"}]), "players.1.seat", "clockwise"),
    (_json(players=[{"colour": "blue", "seat": "south", "dependency": "black"},
                    {"colour": "red", "seat": "north"}]), "players.0.dependency", "black"),
    (_json(players=[{"colour": "blue", "seat": "south", "dependency": "red"},
                    {"colour": "red", "seat": "north", "dependency": "red"}]),
     "players.1.dependency", "twice"),
    (_json(card_actions=[1]), "card_actions", "2 counts"),
    (_json(card_actions=[1, -1]), "card_actions.1", "not a count"),
    (_json(card_actions=[1, True]), "card_actions.1", "not a count"),
])
def test_invalid_positions_name_the_key(data, key, words):
    with pytest.raises(InvalidPosition) as err:
        GAME.position_from_json(data)
    assert err.value.key == key
    assert words in str(err.value)


def test_clockwise_turn_order_of_three_and_four():
    three = [{"colour": "blue", "seat": "south"}, {"colour": "red", "seat": "west"},
             {"colour": "black", "seat": "east"}]
    assert len(GAME.position_from_json(_json(players=three)).players) == 3
    four = [{"colour": c, "seat": s} for c, s in
            zip(("blue", "red", "black", "orange"), ("east", "south", "west", "north"),
                strict=True)]
    assert len(GAME.position_from_json(_json(players=four)).players) == 4


def test_state_from_position_checks_the_white_stones():
    many = _with({(r, c): "W" for r in range(3) for c in range(10)})
    three = [{"colour": "blue", "seat": "south"}, {"colour": "red", "seat": "west"},
             {"colour": "black", "seat": "north"}]
    with pytest.raises(InvalidPosition) as err:
        GAME.state_from_json(_json(players=three, grid=many))
    assert err.value.key == "grid" and "3 players use 28" in str(err.value)
    few = _with({(0, 0): "W", (5, 5): "B2"})
    with pytest.raises(InvalidPosition) as err:
        GAME.state_from_json(_json(grid=few))
    assert "before all 30" in str(err.value)
    own = _json(players=[{"colour": "blue", "seat": "south", "dependency": "blue"},
                         {"colour": "red", "seat": "north"}])
    with pytest.raises(InvalidPosition) as err:
        GAME.state_from_json(own)
    assert err.value.key == "players.0.dependency"


def test_state_from_position_infers_the_phase_and_turn():
    setup = GAME.state_from_json(_json(grid=_with({(0, 0): "W", (0, 1): "W", (0, 2): "W"})))
    assert setup.phase == "setup" and setup.turn == 1
    full = _with({(r, c): "W" for r in range(3) for c in range(10)})
    state = GAME.state_from_json(_json(grid=full))
    assert state.phase == "play" and state.turn == 0 and state.cards is None


def test_resumed_stones_on_the_wrong_side_are_due_to_turn():
    grid = _with({(r, c): "W" for r in range(3) for c in range(10)})
    grid[3][0] = "B3"  # a3..: touches W on rows 2 only: a8 has 2 white neighbours
    state = GAME.state_from_json(_json(grid=grid))
    assert state.grid[sq("a7")] == "b3"
    assert state.flipped == {sq("a7")}


def test_is_start_is_the_empty_board():
    assert GAME.is_start(GAME.position_from_json(_json()))
    assert not GAME.is_start(GAME.position_from_json(_json(grid=_with({(0, 0): "W"}))))


# --------------------------------------------------------------------------- notation


@pytest.mark.parametrize("text, move", [
    ("W@a10", Place("W", 0)),
    ("B4@e5", Place("B4", sq("e5"))),
    ("b4@j1", Place("b4", 99)),
    ("R6^c3", TakeBack("R6", sq("c3"))),
    ("W^c3", TakeBack("W", sq("c3"))),
    ("e5-e7", Shift(sq("e5"), sq("e7"))),
    ("D<", DependencyChange("D<")),
    ("D>", DependencyChange("D>")),
    ("DS:BK", DependencyChange("DS", ("B", "K"))),
    ("X:D<,F1,F1,L2", Exchange(("D<", "F1", "F1", "L2"))),
    ("?O", Hidden("O")),
    ("deal:RB", Deal(("R", "B"))),
    ("deal:R?KB", Deal(("R", None, "K", "B"))),
])
def test_notation_round_trips(text, move):
    assert GAME.parse_move(text) == move
    assert move.notation() == text
    assert str(move) == text


def test_notation_normalises_swaps_and_exchanges():
    assert GAME.parse_move("DS:KB").notation() == "DS:BK"
    assert GAME.parse_move("X:L2,F1").notation() == "X:F1,L2"


@pytest.mark.parametrize("text", ["", "B4", "B4@k1", "B4@a11", "B7@a1", "b4^a1", "e5e7",
                                  "DS:BB", "D?", "X:", "X:Q1", "?b", "deal:R", 5])
def test_bad_notation_is_a_clear_error(text):
    with pytest.raises(InvalidMove):
        GAME.parse_move(text)


# --------------------------------------------------------------------------- geometry


def test_neighbourhoods():
    assert len(neighbours("eight", "south")[sq("e5")]) == 8
    assert len(neighbours("eight", "south")[0]) == 3
    six_south = set(neighbours("six", "south")[sq("e5")])
    assert six_south == {sq(n) for n in ("d6", "f6", "d4", "f4", "e6", "e4")}
    six_east = set(neighbours("six", "east")[sq("e5")])
    assert six_east == {sq(n) for n in ("d6", "f6", "d4", "f4", "d5", "f5")}


@pytest.mark.parametrize("seat, forward, left", [
    ("south", (-1, 0), (0, -1)), ("north", (1, 0), (0, 1)),
    ("east", (0, -1), (1, 0)), ("west", (0, 1), (-1, 0)),
])
def test_card_directions_turn_with_the_seat(seat, forward, left):
    assert absolute(seat, "F") == forward
    assert absolute(seat, "L") == left
    assert absolute(seat, "B") == (-forward[0], -forward[1])
    assert shift_card(seat, forward, 2) == "F2"


def test_decks_hold_40_shift_and_8_dependency_cards():
    for deck in DECKS.values():
        assert sum(n for c, n in deck.items() if c[0] != "D") == 40
        assert sum(n for c, n in deck.items() if c[0] == "D") == 8


def test_initial_state_deals_by_seed():
    for n in (2, 3, 4):
        state = GAME.initial_state({"seed": 7}, n)
        assert state.phase == "setup" and state.turn == 0
        assert all(p.dependency != p.colour for p in state.players)
        assert sorted(p.dependency for p in state.players) == sorted(
            p.colour for p in state.players)
        cards = state.cards
        assert all(len(h) == 5 for h in cards.hands)
        assert len(cards.deck) + 5 * n == 48
        assert state == GAME.initial_state({"seed": 7}, n)
    assert GAME.initial_state({"seed": 1}).cards != GAME.initial_state({"seed": 2}).cards
    assert GAME.initial_state().cards is None
    with pytest.raises(InvalidPosition):
        GAME.initial_state({"seed": "x"})
    with pytest.raises(InvalidPosition):
        GAME.initial_state(n_players=5)


def test_exchange_reshuffles_the_discard_pile_when_the_draw_pile_is_empty():
    cards = Cards(deck=("F1",), hands=(("B1", "B2", "L1", "L2", "R1"),), discard=("D<",),
                  seed=3)
    after = cards.replace_cards(0, ("B1", "B2"))
    assert after.shuffles == 1 and after.discard == ()
    assert sorted(after.hands[0] + after.deck) == sorted(
        ("F1", "L1", "L2", "R1", "D<", "B1", "B2"))
    assert len(after.hands[0]) == 5


# --------------------------------------------------------------------------- setup


def test_setup_places_the_white_stones_in_turn_then_play_begins():
    for n in (2, 3, 4):
        state = GAME.initial_state(n_players=n)
        for k in range(WHITES[n]):
            assert state.phase == "setup" and state.turn == k % n
            assert all(isinstance(m, Place) and m.token == "W" for m in state.legal_moves)
            state = state.apply(Place("W", k))
        assert state.phase == "play" and state.turn == 0 and state.spent == 0


def test_setup_rules():
    state = GAME.initial_state()
    assert state.why_illegal(Place("B2", 5)).rule == "setup-not-finished"
    assert state.why_illegal(Hidden("B")).rule == "setup-not-finished"
    assert state.why_illegal(DependencyChange("D<")).rule == "setup-not-finished"
    after = state.apply(Place("W", 5))
    assert after.why_illegal(Place("W", 5)).rule == "field-occupied"
    full = make("W W W")
    assert full.why_illegal(Place("W", 50)).rule == "setup-complete"


# --------------------------------------------------------------------------- placing


def test_placement_counts_white_and_dependency_stones():
    state = make(WIN)
    assert state.why_illegal(GAME.parse_move("B6@b3")) is None
    illegal = state.why_illegal(GAME.parse_move("B5@j10"))
    assert illegal.rule == "stone-on-board"
    illegal = make(WIN.replace("B5", "W ")).why_illegal(GAME.parse_move("B5@b3"))
    assert illegal.rule == "placement-digit"
    assert "has 6" in illegal.message and "red stones count" in illegal.message
    # the inactive red r2 counts for blue: without it b3 has only 5
    no_red = make(WIN.replace("r2", "."), colours=("blue", "red"))
    assert no_red.why_illegal(GAME.parse_move("B6@b3")).rule == "placement-digit"


def test_placement_generation_matches_the_counts():
    state = make(WIN)
    places = [m for m in state.legal_moves if isinstance(m, Place)]
    assert Place("B6", sq("b3")) in places
    assert all(m.token == "B6" for m in places)
    assert all(state.why_illegal(m) is None for m in state.legal_moves)


def test_placing_inactive_and_out_of_turn():
    state = make(WIN.replace("B5", "W "))
    assert state.why_illegal(Place("b5", sq("b3"))).rule == "placed-inactive"
    assert state.why_illegal(Place("R2", sq("a1"))).rule == "no-action-point"
    assert make(WIN, spent=1).why_illegal(Place("R2", sq("a1"))).rule == "out-of-turn"
    assert state.why_illegal(Place("O2", sq("a1"))).rule == "colour-not-playing"
    assert state.why_illegal(Place("B6", sq("a10"))).rule == "field-occupied"


def test_six_neighbourhood_option():
    # b9 has white on a10, b10, c10 and a9: four of eight, three of the six
    picture = "W W W\nW . ."
    eight = make(picture)
    six = make(picture, options={"neighbourhood": "six"})
    assert eight.why_illegal(Place("B4", sq("b9"))) is None
    assert eight.why_illegal(Place("B3", sq("b9"))).rule == "placement-digit"
    assert six.why_illegal(Place("B3", sq("b9"))) is None
    # for the east player "vertical" runs east-west: a10, c10 and a9
    east = make(picture, seats=("east", "west"), options={"neighbourhood": "six"})
    assert east.why_illegal(Place("B3", sq("b9"))) is None


def test_placement_with_the_own_colour_as_dependency():
    # blue depends on blue: the own b2 on a10 counts for b9, and B3 there lets b2 count 2
    state = make("b2 W W", deps=("blue", "red"))
    assert state.why_illegal(Place("B3", sq("b9"))) is None
    after = state.apply(Place("B3", sq("b9")))
    assert after.grid[sq("a10")] == "B2" and after.flipped == {sq("a10")}


# --------------------------------------------------------------------------- taking back


def test_taking_back():
    state = make(PAIR)
    assert state.why_illegal(TakeBack("B3", sq("b9"))) is None
    assert state.why_illegal(TakeBack("W", sq("a10"))).rule == "take-white"
    assert state.why_illegal(TakeBack("B4", sq("b9"))).rule == "no-stone"
    assert state.why_illegal(TakeBack("R2", sq("c10"))).rule == "no-action-point"
    assert make(PAIR, spent=1).why_illegal(TakeBack("R2", sq("c10"))).rule == "not-own-stone"
    after = state.apply(TakeBack("B3", sq("b9")))
    assert after.grid[sq("b9")] == "." and after.turn == 0 and after.spent == 1


# --------------------------------------------------------------------------- activity


def test_activity_update_turns_stones_both_ways():
    state = make(PAIR, to_move=1)
    after = state.apply(TakeBack("R2", sq("c10")))
    assert after.grid[sq("b9")] == "b3" and after.flipped == {sq("b9")}
    back = after.apply(Place("R2", sq("c10")))
    assert back.grid[sq("b9")] == "B3" and back.flipped == {sq("b9")}


def test_reactivate_never_option():
    state = make(PAIR, to_move=1, options={"reactivate": "never"})
    back = play(state, "R2^c10", "R2@c10")
    assert back.grid[sq("b9")] == "b3" and back.flipped == frozenset()


def test_dependency_change_updates_activity():
    # blue's B3 relies on red's R2; after a swap blue depends on blue: B3 sees only 2
    state = make(PAIR)
    after = state.apply(DependencyChange("DS", ("B", "R")))
    assert [p.dependency for p in after.players] == ["blue", "red"]
    assert after.grid[sq("b9")] == "b3"
    # red now depends on red: R2 counts only b10
    assert after.grid[sq("c10")] == "r2"


def test_dependency_cards_pass_left_and_right():
    colours = ("blue", "red", "black")
    state = make(colours=colours, deps=("red", "black", "blue"))
    left = state.apply(DependencyChange("D<"))
    assert [p.dependency for p in left.players] == ["blue", "red", "black"]
    right = state.apply(DependencyChange("D>"))
    assert [p.dependency for p in right.players] == ["black", "blue", "red"]
    swap = state.apply(DependencyChange("DS", ("B", "K")))
    assert [p.dependency for p in swap.players] == ["blue", "black", "red"]
    assert state.why_illegal(DependencyChange("DS", ("B", "O"))).rule == "colour-not-playing"


# --------------------------------------------------------------------------- shifting


@pytest.mark.parametrize("move, rule", [
    ("e9-e10", None), ("e9-e8", None), ("e9-c9", None), ("e9-g9", None),
    ("e7-e8", None), ("e7-e9", "shift-blocked"), ("e6-e8", "shift-jump"),
    ("e9-e6", "shift-too-far"), ("e9-f7", "shift-direction"), ("e9-f8", "shift-direction"),
    ("f6-f7", "shift-coloured"), ("a1-a2", "no-stone"),
])
def test_shift_rules(move, rule):
    illegal = make(SHIFTS).why_illegal(GAME.parse_move(move))
    assert (illegal.rule if illegal else None) == rule


def test_diagonal_shifts_with_the_eight_direction_deck():
    state = make(SHIFTS, options={"shift_directions": "eight"})
    assert state.why_illegal(GAME.parse_move("e9-f8")) is None
    assert state.why_illegal(GAME.parse_move("e9-g7")) is None
    assert state.why_illegal(GAME.parse_move("e9-f7")).rule == "shift-direction"


def test_shift_generation_without_cards_gives_every_free_direction():
    state = make(SHIFTS)
    targets = {m.target for m in state.legal_moves if isinstance(m, Shift)
               and m.source == sq("e9")}
    assert targets == {sq(n) for n in ("e10", "e8", "d9", "c9", "f9", "g9")}


# --------------------------------------------------------------------------- cards


def _with_cards(state, hands):
    return type(state)(**{**state.__dict__, "cards": Cards((), hands, ("F1",) * 10, 0)})


def test_cards_must_be_held():
    state = _with_cards(make(SHIFTS), (("F1", "F1", "L2", "D<", "B1"), ("R1",) * 5))
    # blue sits south: forward is north, left is west
    assert state.why_illegal(GAME.parse_move("e9-e10")) is None
    assert state.why_illegal(GAME.parse_move("e9-c9")) is None
    illegal = state.why_illegal(GAME.parse_move("e9-g9"))
    assert illegal.rule == "card-not-in-hand" and "right 2" in illegal.message
    assert state.why_illegal(DependencyChange("D<")) is None
    assert state.why_illegal(DependencyChange("D>")).rule == "card-not-in-hand"
    assert state.why_illegal(Exchange(("F1", "F1"))) is None
    assert state.why_illegal(Exchange(("F1", "F1", "F1"))).rule == "card-not-in-hand"
    assert state.why_illegal(Exchange(())).rule == "exchange-empty"
    assert state.why_illegal(Hidden("B")).rule == "hidden-action"
    assert make(SHIFTS).why_illegal(Exchange(("F1",))).rule == "cards-unknown"
    after = state.apply(GAME.parse_move("e9-e10"))
    assert after.cards.hands[0] == ("B1", "D<", "F1", "F1", "L2")  # drew the discarded F1
    assert after.cards.shuffles == 1


def test_generated_card_moves_follow_the_hand():
    state = _with_cards(make(SHIFTS), (("F1", "F1", "L2", "D<", "B1"), ("R1",) * 5))
    moves = list(state.legal_moves)
    shifts = {str(m) for m in moves if isinstance(m, Shift)}
    assert "e9-e10" in shifts and "e9-c9" in shifts and "e9-g9" not in shifts
    exchanges = [m for m in moves if isinstance(m, Exchange)]
    assert len(exchanges) == len(set(exchanges)) == 23  # sub-multisets of FFLDB, not empty
    assert [str(m) for m in moves if isinstance(m, DependencyChange)] == ["D<"]


# --------------------------------------------------------------------------- points


def test_two_action_points_then_the_turn_passes():
    state = make(PAIR)
    after = play(state, "B3^b9")
    assert after.turn == 0 and after.spent == 1
    after = play(after, "B3@b9")
    assert after.turn == 1 and after.spent == 0


def test_third_point_while_the_active_stones_add_up_to_ten():
    state = make(WIN.replace("B5", "W ").replace("r2", "W "))
    # blue's active stones add up to 2 + 3 + 4 = 9: two actions
    assert play(state, "?B", "?B").turn == 1
    # placing B6 brings 15: a third action, in the same turn
    after = play(state, "?B", "B6@b3")
    assert after.turn == 0 and after.spent == 2
    assert play(after, "?B").turn == 1


def test_third_point_lost_when_the_sum_drops():
    state = make(WIN)  # blue: 2 + 3 + 4 + 5 = 14
    after = play(state, "B5^b6")  # 9 left
    assert after.turn == 0 and after.spent == 1
    assert play(after, "?B").turn == 1
    keep = make(WIN, third=True, options={"third_point": "rest-of-turn"})
    after = play(keep, "B5^b6", "?B")
    assert after.turn == 0 and after.spent == 2
    assert play(after, "?B").turn == 1


def test_third_point_reached_in_another_players_turn():
    # blue: b3 inactive (two white stones), B4, B5: 9; red's R2 on c10 completes b3
    picture = """
    W W . . . . . . . .
    . b3 . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . W W W . . .
    . . . . W B4 . . . .
    . . . . . . . . . .
    W W W . . . . . . .
    W B5 W . . . . . . .
    """
    state = make(picture, to_move=1, spent=1)
    after = play(state, "R2@c10")
    assert after.grid[sq("b9")] == "B3"
    assert after.turn == 0 and after.third
    assert play(after, "?B", "?B").turn == 0  # blue has three points this turn
    assert play(after, "?B", "?B", "?B").turn == 1


# --------------------------------------------------------------------------- winning


def test_all_five_active_wins():
    state = make(WIN.replace("r2", "W "))
    after = state.apply(Place("B6", sq("b3")))
    assert after.outcome().winners == (0,) and after.outcome().condition == "all-stones-active"
    assert after.turn is None
    assert after.why_illegal(Hidden("R")).rule == "game-over"
    assert list(after.legal_moves) == []
    assert after.returns(2) == (1.0, -1.0)


def test_a_constellation_that_makes_another_win_lets_the_other_win():
    after = make(WIN).apply(Place("B6", sq("b3")))
    assert after.grid[sq("c2")] == "R2"
    assert after.outcome().winners == (1,)
    assert after.outcome().condition == "all-stones-active-other"


def test_two_others_both_win():
    """The winners rule on its own: everyone with five active stones counts."""
    picture = "B2 B3 B4 B5 B6 . . . . .\nR2 R3 R4 R5 R6 . . . . .\nK2 K3 K4 K5 K6 . . . . ."
    state = make(picture, colours=("blue", "red", "black"), deps=("red", "black", "blue"))
    assert state._winners(0) == Outcome((1, 2), "all-stones-active-other")
    assert state._winners(1) == Outcome((0, 2), "all-stones-active-other")
    lone = make(picture.replace("K6", "k6"), colours=("blue", "red", "black"),
                deps=("red", "black", "blue"))
    assert lone._winners(2) == Outcome((0, 1), "all-stones-active")


def test_a_move_of_another_game_is_no_cubes_move():
    from dataclasses import dataclass

    from rules.core import Move

    @dataclass(frozen=True)
    class Other(Move):
        def notation(self) -> str:
            return "other"

    assert make(PAIR).why_illegal(Other()).rule == "not-a-move"


def test_illegal_is_data():
    illegal = make(SHIFTS).why_illegal(GAME.parse_move("e9-e6"))
    assert isinstance(illegal, Illegal) and illegal.player == 0
    assert "one or two fields" in illegal.message
