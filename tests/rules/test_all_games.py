"""One suite for all six games: the questions every game answers the same way."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import GAME_IDS, Board, Illegal, IllegalMoveError, InvalidPosition, Judgement, get_game

# plies of random play per example; games with a placement bound end sooner
PLAYOUT_PLIES = 60


@pytest.fixture(params=GAME_IDS)
def game(request):
    return get_game(request.param)


def test_registry_ids_match_games(game):
    assert game.id in GAME_IDS
    assert get_game(game.id).id == game.id


def test_unknown_game_is_a_clear_error():
    with pytest.raises(InvalidPosition) as err:
        get_game("chess")
    assert err.value.key == "game"
    assert "chess" in str(err.value)


def test_initial_state_round_trips_through_json(game):
    state = game.initial_state()
    data = json.loads(json.dumps(state.to_json()))
    assert game.position_from_json(data) == state.position
    assert game.is_start(state.position)
    assert state.outcome() is None
    assert state.turn is not None
    assert len(state.legal_moves) > 0


def _playout(game, draw, plies=PLAYOUT_PLIES):
    """Random legal play; checks every step and yields (state, move) pairs."""
    board = Board(game)
    for _ in range(plies):
        if board.outcome() is not None:
            break
        moves = list(board.legal_moves)
        assert moves, f"{game.id}: no legal move but no outcome at {board.state.to_json()}"
        move = draw(st.sampled_from(moves))
        before = board.state
        board.push(move)
        yield before, move, board.state


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game_id=st.sampled_from(GAME_IDS))
def test_random_play_stays_valid_and_round_trips(data, game_id):
    game = get_game(game_id)
    for before, move, after in _playout(game, data.draw):
        # the notation round-trips and the move is in the collection
        assert game.parse_move(move.notation()) == move
        assert move in before.legal_moves
        assert before.why_illegal(move) is None
        # what the camera would see is a valid position and parses back to itself
        seen = json.loads(json.dumps(after.to_json()))
        assert game.position_from_json(seen) == after.position
        # the referee's question: the new position is explained as a legal move, or,
        # for an action the camera cannot see (a Cubes card with no visible effect),
        # it is the same position
        verdict = game.judge(before, after.position)
        if after.position == before.position:
            assert verdict.kind == Judgement.SAME, (game_id, str(move), verdict)
        else:
            assert verdict.kind == Judgement.MOVES, (game_id, str(move), verdict)
            assert verdict.state.position == after.position
        # the same position seen again is nothing new
        assert game.judge(after, after.position).kind == Judgement.SAME
        # the returns are +1/-1/0 once over, zero before
        n = len(before.returns(game.max_players))
        assert n == game.max_players


def test_push_pop_restores_the_state(game):
    board = Board(game)
    start = board.state
    first = next(iter(board.legal_moves))
    board.push(first)
    assert board.state != start
    second = next(iter(board.legal_moves))
    board.push(second)
    assert board.move_stack == [first, second]
    assert board.pop() == second
    assert board.pop() == first
    assert board.state == start
    with pytest.raises(IndexError):
        board.pop()


def test_apply_refuses_an_illegal_move_with_a_rule_id(game):
    """A legal move of the start, replayed from a state where it no longer fits."""
    board = Board(game)
    for move in board.legal_moves:
        after = board.state.apply(move)
        if after.why_illegal(move) is not None:
            illegal = after.why_illegal(move)
            assert isinstance(illegal, Illegal)
            assert illegal.rule == illegal.rule.lower() and " " not in illegal.rule
            assert illegal.message.strip()
            with pytest.raises(IllegalMoveError) as err:
                after.apply(move)
            assert err.value.illegal == illegal
            return
    pytest.fail(f"{game.id}: every start move is legal again after itself")
