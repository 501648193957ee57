"""Cubes: random play with the full engine, the referee's view of it, perft, timing."""

from __future__ import annotations

import json
import random
import time
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core import Judgement, State
from rules.cubes_position import WHITES, is_stone
from rules.cubes_state import RULE_OPTIONS, CubesState, DependencyChange, Exchange
from tests.rules.cubes_boards import GAME

#: actions of play after the setup in one random game: Cubes has no end of its own
#: (a game can go on for ever), so a playout stops here if nobody has won
PLAY_CAP = 150


def perft(state: State, depth: int) -> int:
    """Leaf count of the move tree (every action is one ply)."""
    if depth == 1:
        return len(state.legal_moves)
    return sum(perft(state._apply(m), depth - 1) for m in state.legal_moves)


def seeded_setup(seed: int = 1, n_players: int = 2) -> CubesState:
    """The full game with deck seed ``seed``, white stones placed by random.Random(seed)."""
    state = GAME.initial_state({"seed": seed}, n_players)
    rng = random.Random(seed)
    while state.phase == "setup":
        state = state.apply(rng.choice(list(state.legal_moves)))
    return state


def check_invariants(state: CubesState) -> None:
    position = state.position
    # what the camera would see is valid and reads back as itself
    assert GAME.position_from_json(json.loads(json.dumps(position.to_json()))) == position
    n = len(state.players)
    if state.phase == "play":
        assert position.whites() == WHITES[n]
    if state.cards is not None:
        cards = state.cards
        assert all(len(hand) == 5 for hand in cards.hands)
        assert len(cards.deck) + len(cards.discard) + 5 * n == 48
    never = state.option("reactivate") == "never"
    for sq, token in enumerate(position.grid):
        if not is_stone(token):
            continue
        holds = state.condition(position.grid, sq)
        if token[0].isupper() or not never:
            assert token[0].isupper() == holds, (sq, token)
    if state.result is None:
        assert state.spent < state.allowance(position.grid, state.to_move, state.third)
    else:
        for winner in state.result.winners:
            letter = state.players[winner].letter
            assert sum(1 for t in position.grid if t[:1] == letter) == 5


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n_players=st.integers(2, 4),
       rng=st.randoms(use_true_random=False),
       options=st.fixed_dictionaries({o.name: st.sampled_from(o.choices) for o in RULE_OPTIONS}))
def test_random_play_stays_valid_and_the_referee_follows_it(seed, n_players, rng, options):
    state = GAME.initial_state({**options, "seed": seed}, n_players)
    # the referee's view: the same table, without the cards
    referee = GAME.state_from_position(state.position, options)
    actions = 0
    while state.result is None and actions < PLAY_CAP:
        moves = list(state.legal_moves)
        assert moves and len(set(moves)) == len(moves)
        move = rng.choice(moves)
        assert GAME.parse_move(move.notation()) == move
        assert state.why_illegal(move) is None
        actions += state.phase == "play"
        state = state.apply(move)
        check_invariants(state)
        verdict = GAME.judge(referee, state.position)
        assert verdict.kind == Judgement.MOVES, (str(move), verdict)
        assert len(verdict.moves) == 1
        seen_move = verdict.moves[0]
        # the camera cannot tell which card: an exchange is "?", and with two players
        # all three dependency-change cards do the same
        if not isinstance(move, Exchange) and not (
                isinstance(move, DependencyChange) and n_players == 2):
            assert seen_move == move
        referee = referee.apply(seen_move)
        assert referee.position.grid == state.position.grid
        assert referee.position.players == state.position.players
        assert (referee.turn, referee.spent, referee.phase, referee.result) == (
            state.turn, state.spent, state.phase, state.result)
        assert GAME.judge(referee, state.position).kind == Judgement.SAME
    assert state.result is not None or actions == PLAY_CAP


#: leaf counts from ``seeded_setup()`` (docs/rules/cubes.md): the full game with its
#: cards, and the referee's view of the same board without cards
PERFT = {1: 109, 2: 11654, 3: 1578248}
PERFT_SEEN = {1: 158, 2: 24188, 3: 3831752}


def test_perft_anchor_start_position():
    state = seeded_setup()
    assert state.phase == "play" and state.turn == 0
    assert [p.dependency for p in state.players] == ["red", "blue"]
    assert state.cards.hands == (("B2", "F2", "L2", "R2", "R2"), ("D<", "F1", "F2", "L2", "R1"))


@pytest.mark.parametrize("depth", [1, 2])
def test_perft(depth):
    state = seeded_setup()
    assert perft(state, depth) == PERFT[depth]
    assert perft(GAME.state_from_position(state.position), depth) == PERFT_SEEN[depth]


@pytest.mark.slow
def test_perft_depth_3():
    state = seeded_setup()
    assert perft(state, 3) == PERFT[3]
    assert perft(GAME.state_from_position(state.position), 3) == PERFT_SEEN[3]


def test_judging_one_action_takes_well_under_a_millisecond():
    state = seeded_setup(seed=4)
    rng = random.Random(4)
    for _ in range(40):
        state = state.apply(rng.choice(list(state.legal_moves)))
    # the referee's view of this table at this turn (the board does not show the turn)
    referee = replace(GAME.state_from_position(state.position), to_move=state.to_move,
                      spent=state.spent, third=state.third)
    pairs = []
    for move in list(state.legal_moves)[:200]:
        after = state._apply(move)
        if not isinstance(move, Exchange):
            pairs.append(after.position)
    start = time.perf_counter()
    for observed in pairs:
        assert GAME.judge(referee, observed).kind == Judgement.MOVES
    mean = (time.perf_counter() - start) / len(pairs)
    assert mean < 1e-3, f"{mean * 1e6:.0f} µs per judgement"
