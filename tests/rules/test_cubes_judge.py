"""Cubes: the referee's judge, from what the camera sees, for every kind of change."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules.core import Judgement
from tests.rules.cubes_boards import GAME, PAIR, SHIFTS, WIN, make, seen, sq

MOVES, SAME, IN_PROGRESS, VIOLATION = (
    Judgement.MOVES, Judgement.SAME, Judgement.IN_PROGRESS, Judgement.VIOLATION)


def _judge(state, changes=None, **kw):
    return GAME.judge(state, seen(state, changes, **kw))


def _rule(verdict):
    assert verdict.kind == VIOLATION, verdict
    return verdict.illegal.rule


def _moves(verdict):
    assert verdict.kind == MOVES, verdict
    return [str(m) for m in verdict.moves]


# --------------------------------------------------------------------------- basics


def test_nothing_changed_is_same():
    state = make(WIN)
    assert _judge(state).kind == SAME


def test_placement_is_a_move_and_a_win_event_follows():
    state = make(WIN)
    verdict = _judge(state, {"b3": "B6", "c2": "R2"})
    assert _moves(verdict) == ["B6@b3"]
    assert verdict.state.outcome().winners == (1,)


def test_the_update_may_follow_the_action():
    state = make(WIN)
    verdict = _judge(state, {"b3": "B6"})  # red's r2 not yet turned
    assert _moves(verdict) == ["B6@b3"]
    after = verdict.state
    assert _judge(after, {"c2": "r2"}).kind == IN_PROGRESS
    assert _judge(after).kind == SAME


def test_a_flip_still_undone_at_the_next_action_is_a_violation():
    state = make(PAIR, to_move=1)
    verdict = _judge(state, {"c10": "."})  # red takes R2 back; B3 must turn
    assert _moves(verdict) == ["R2^c10"]
    after = verdict.state
    assert after.grid[sq("b9")] == "b3"
    assert _judge(after, {"b9": "B3"}).kind == IN_PROGRESS
    # red's second action (an exchange, told by the operator) with B3 still white side up
    verdict = _judge(after, {"b9": "B3"}, counts=(0, 1))
    assert _rule(verdict) == "unflipped-stone"
    assert "blue 3 on b9" in verdict.illegal.message
    assert _moves(_judge(after, counts=(0, 1))) == ["?R"]


def test_a_flip_undone_is_fine_when_the_next_action_makes_it_right_again():
    state = make(PAIR, to_move=1)
    after = state.apply(GAME.parse_move("R2^c10"))
    # R2 put back before B3 was turned: B3 is right as it lies
    assert _moves(_judge(after, {"c10": "R2", "b9": "B3"})) == ["R2@c10"]


def test_turning_a_stone_whose_condition_holds_is_a_wrong_flip():
    state = make(PAIR)
    verdict = _judge(state, {"b9": "b3"})
    assert _rule(verdict) == "wrong-flip"
    assert "condition holds" in verdict.illegal.message
    # also together with an action: blue places B6 and turns red's R3
    assert _rule(_judge(make(WIN), {"b3": "B6", "i5": "r3"})) == "wrong-flip"


def test_strict_flip_timing_option():
    state = make(PAIR, to_move=1, options={"flip_timing": "with-action"})
    assert _rule(_judge(state, {"c10": "."})) == "unflipped-stone"
    assert _moves(_judge(state, {"c10": ".", "b9": "b3"})) == ["R2^c10"]
    after = state.apply(GAME.parse_move("R2^c10"))
    assert _rule(_judge(after, {"b9": "B3"})) == "unflipped-stone"


def test_reactivation_option_in_the_judge():
    state = make(PAIR, to_move=1).apply(GAME.parse_move("R2^c10"))
    state = replace(state, to_move=1, spent=1)
    assert _moves(_judge(state, {"c10": "R2", "b9": "B3"})) == ["R2@c10"]
    never = make(PAIR, to_move=1, options={"reactivate": "never"})
    never = never.apply(GAME.parse_move("R2^c10"))
    # the turn seen done (b3 lies black side up), red's second action puts R2 back
    never = replace(never, to_move=1, spent=1, flipped=frozenset())
    verdict = _judge(never, {"c10": "R2", "b9": "B3"})
    assert _rule(verdict) == "wrong-flip" and "until it is taken back" in verdict.illegal.message
    assert _moves(_judge(never, {"c10": "R2"})) == ["R2@c10"]


# --------------------------------------------------------------------------- placing


def test_placement_judgements():
    state = make(WIN.replace("B5", "W "))
    assert _rule(_judge(state, {"b3": "B5"})) == "placement-digit"
    assert _rule(_judge(state, {"b3": "b6"})) == "placed-inactive"
    assert _rule(_judge(state, {"a1": "R2"})) == "no-action-point"
    assert _rule(_judge(replace(state, spent=1), {"a1": "R2"})) == "out-of-turn"
    assert _rule(_judge(state, {"b3": "B6", "a1": "W"})) == "several-actions"


def test_taking_judgements():
    state = make(PAIR)
    assert _moves(_judge(state, {"b9": "."})) == ["B3^b9"]
    assert _rule(_judge(state, {"a10": "."})) == "take-white"
    assert _rule(_judge(state, {"c10": "."})) == "no-action-point"
    verdict = _judge(replace(state, spent=1), {"c10": "."})
    assert _rule(verdict) == "not-own-stone" and verdict.illegal.player == 0
    assert _rule(_judge(state, {"a10": "B2"})) == "several-actions"  # a stone replaced


# --------------------------------------------------------------------------- shifting


@pytest.mark.parametrize("changes, result", [
    ({"e9": ".", "e10": "W"}, "e9-e10"),
    ({"e9": ".", "c9": "W"}, "e9-c9"),
    ({"e6": ".", "e8": "W"}, "shift-jump"),
    ({"e9": ".", "b9": "W"}, "shift-too-far"),
    ({"e9": ".", "f7": "W"}, "shift-direction"),
    ({"e9": ".", "d8": "W"}, "shift-direction"),
    ({"f6": ".", "f7": "B2"}, "shift-coloured"),
    ({"f6": ".", "g8": "B2"}, "shift-coloured"),
    ({"e9": ".", "e10": "W", "e7": ".", "e8": "W"}, "several-actions"),
])
def test_shift_judgements(changes, result):
    verdict = _judge(make(SHIFTS), changes)
    got = str(verdict.moves[0]) if verdict.kind == MOVES else verdict.illegal.rule
    assert got == result


def test_shift_from_another_seat_is_any_card_direction():
    state = make(SHIFTS, seats=("east", "west"))
    assert _moves(_judge(state, {"e9": ".", "g9": "W"})) == ["e9-g9"]


# --------------------------------------------------------------------------- cards


def test_dependency_change_cards_are_recognised():
    colours = ("blue", "red", "black")
    state = make(colours=colours, deps=("red", "black", "blue"))
    assert _moves(_judge(state, deps=("blue", "red", "black"))) == ["D<"]
    assert _moves(_judge(state, deps=("black", "blue", "red"))) == ["D>"]
    assert _moves(_judge(state, deps=("black", "red", "blue"))) == ["DS:BR"]
    assert _judge(state, deps=(None, None, None)).kind == SAME
    four = make(colours=("blue", "red", "black", "orange"),
                deps=("red", "black", "orange", "blue"))
    verdict = _judge(four, deps=("orange", "blue", "red", "black"))
    assert _rule(verdict) == "dependency-change"
    assert _rule(_judge(four, {"a1": "W"}, deps=("black", "red", "orange", "blue"))) == (
        "several-actions")


def test_two_player_dependency_change_with_cards_uses_a_card_in_hand():
    from rules.cubes_cards import Cards

    state = make(PAIR)
    state = replace(state, cards=Cards((), (("DS", "F1", "F1", "F1", "F1"), ("F1",) * 5),
                                       ("B1",) * 20, 0))
    assert _moves(_judge(state, {"b9": "b3", "c10": "r2"}, deps=("blue", "red"))) == ["DS:BR"]


def test_unseen_actions_come_from_the_operator_key():
    state = make(PAIR, counts=(0, 0))
    assert _moves(_judge(state, counts=(1, 0))) == ["?B"]
    assert _judge(state, counts=None).kind == SAME  # not given: not known
    assert _rule(_judge(state, counts=(2, 0))) == "several-actions"
    assert _rule(_judge(state, {"b9": "."}, counts=(1, 0))) == "several-actions"
    assert _rule(_judge(state, counts=(0, 1))) == "no-action-point"
    assert _rule(_judge(replace(state, spent=1), counts=(0, 1))) == "out-of-turn"
    later = replace(state, position=replace(state.position, card_actions=(3, 1)))
    assert _rule(_judge(later, counts=(2, 1))) == "card-count"
    # the first count seen starts from zero
    assert _moves(_judge(make(PAIR), counts=(1, 0))) == ["?B"]


def test_dependencies_seen_for_the_first_time_are_dealt():
    state = GAME.state_from_json({
        "grid": [["."] * 10 for _ in range(10)],
        "players": [{"colour": "blue", "seat": "south"}, {"colour": "red", "seat": "north"}],
    })
    verdict = _judge(state, deps=("red", "blue"))
    assert _moves(verdict) == ["deal:RB"]
    assert [p.dependency for p in verdict.state.players] == ["red", "blue"]
    assert _rule(_judge(state, deps=("blue", "red"))) == "dependency-deal"
    partial = _judge(state, deps=("red", None))
    assert _moves(partial) == ["deal:R?"]
    both = _judge(state, {"a1": "W"}, deps=("red", "blue"))
    assert _moves(both) == ["deal:RB", "W@a1"]


def test_unknown_dependency_accepts_any_digit_and_side():
    state = make(PAIR, deps=(None, "blue"))
    assert _moves(_judge(state, {"j1": "B2"})) == ["B2@j1"]
    assert _judge(state, {"b9": "b3"}).kind == IN_PROGRESS


# --------------------------------------------------------------------------- setup


def test_setup_judgements():
    state = GAME.initial_state()
    assert _moves(_judge(state, {"e5": "W"})) == ["W@e5"]
    assert _rule(_judge(state, {"e5": "W", "e6": "W"})) == "several-actions"
    assert _rule(_judge(state, {"e5": "B2"})) == "setup-not-finished"
    assert _rule(_judge(state, counts=(0, 1))) == "setup-not-finished"
    assert _rule(_judge(make(SHIFTS), {"a1": "W"})) == "setup-complete"


# --------------------------------------------------------------------------- the table


def test_other_players_are_another_game():
    state = make(PAIR)
    other = seen(make(PAIR, colours=("blue", "black"), deps=("black", "blue")))
    assert _rule(GAME.judge(state, other)) == "players-changed"


def test_after_the_win_nothing_more_may_change():
    over = make(WIN).apply(GAME.parse_move("B6@b3"))
    assert _judge(over).kind == SAME
    assert _judge(over, {"c2": "r2"}).kind == IN_PROGRESS  # the last update being made
    assert _rule(_judge(over, {"c2": "r2", "i5": "r3"})) == "wrong-flip"
    assert _rule(_judge(over, {"a1": "W"})) == "game-over"


def test_every_violation_has_a_message_and_a_kebab_id():
    state = make(WIN)
    for changes in ({"a10": "."}, {"b3": "B2"}, {"a10": ".", "a1": "W"}, {"b9": "b2"}):
        verdict = _judge(state, changes)
        illegal = verdict.illegal
        assert verdict.kind == VIOLATION
        assert illegal.rule == illegal.rule.lower() and " " not in illegal.rule
        assert illegal.message.endswith(".")


# --------------------------------------------------------------------------- referee


def test_the_referee_follows_a_whole_game_from_the_camera():
    """A seeded full game seen by the camera, with the activity updates seen late, an
    illegal touch put right again, and the win at the end."""
    from rules.observation import parse_observation
    from rules.referee import Referee

    state = GAME.initial_state({"seed": 16})
    rng = random.Random(16)
    frames = [state.position.to_json()]
    actions = 0
    touched = False
    while state.result is None:
        before = state
        state = state.apply(rng.choice(list(state.legal_moves)))
        actions += 1
        if state.flipped:  # first the action alone, then with the update made
            grid = list(state.position.grid)
            for sq_ in state.flipped:
                grid[sq_] = grid[sq_].swapcase()
            frames.append(replace(state.position, grid=tuple(grid)).to_json())
        elif not touched and before.phase == "play":  # someone lifts a white stone...
            touched = True
            grid = list(before.position.grid)
            grid[grid.index("W")] = "."
            frames.append(replace(before.position, grid=tuple(grid)).to_json())
            frames.append(before.position.to_json())  # ...and puts it back
        frames.append(state.position.to_json())
    referee = Referee()
    events = []
    for seq, position in enumerate(frames):
        obs = parse_observation({
            "schema": "tableref/observation/1", "table": "t", "game": "cubes", "seq": seq,
            "time": 1.0 + seq, "stable": True, "confidence": 1.0, "position": position})
        events += referee.feed(obs)
    kinds = [e["event"] for e in events]
    assert kinds.count("move") == actions
    assert kinds.count("violation") == 1 and kinds.count("corrected") == 1
    violation = events[kinds.index("violation")]
    assert violation["rule"] == "take-white"
    assert events[-1]["event"] == "win" and events[-1]["winners"] == [1]
