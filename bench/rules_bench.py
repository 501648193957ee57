"""Rules engines and referee speed, per game.

- moves/s: legal-move generation over the states of random playouts (moves generated per
  second of ``State.generate_moves``, on copies of the states without cached moves);
- judge/s: ``Game.judge`` calls per second on (state, position after a legal move);
- obs/s: observations judged per second by the Referee, end to end from JSON lines
  (parse, judge, events) on a 200-move game: one stable observation per move plus one
  repeat of it, with new games begun from the start position whenever one ends;
  ``obs/s (forced wins)`` the same with the forced-win search on (games that offer it).
"""

from __future__ import annotations

import dataclasses
import json
import random
import time

from rules.core import Board, Game
from rules.observation import SCHEMA, ObservationReader
from rules.referee import Referee
from rules.registry import GAME_IDS, get_game

TITLE = "Rules engines and referee (single core)"

SEED = 20261123
SECONDS = 1.0  # per measurement
GAME_PLIES = 200


def available_games() -> list[Game]:
    """The games whose engine module is present (the others are left out of the table)."""
    out = []
    for gid in GAME_IDS:
        try:
            out.append(get_game(gid))
        except ImportError:
            continue
    return out


def random_game(game: Game, rng: random.Random, plies: int) -> list[list]:
    """Random legal play, restarting when a game ends: a list of games, each the list
    of states from its start."""
    games, board, total = [], Board(game), 0
    states = [board.state]
    while total < plies:
        moves = list(board.legal_moves) if board.outcome() is None else []
        if not moves:
            games.append(states)
            board = Board(game)
            states = [board.state]
            continue
        board.push(rng.choice(moves))
        states.append(board.state)
        total += 1
    games.append(states)
    return games


def fresh(state):
    """A copy of a state without the moves it has cached, so that work is measured."""
    try:
        return dataclasses.replace(state)
    except (TypeError, ValueError):
        return state


def move_generation_rate(game: Game, states: list) -> float:
    generated, spent = 0, 0.0
    while spent < SECONDS:
        batch = [fresh(s) for s in states]
        start = time.perf_counter()
        for state in batch:
            generated += sum(1 for _ in state.generate_moves())
        spent += time.perf_counter() - start
    return generated / spent


def judge_rate(game: Game, pairs: list) -> float:
    calls, spent = 0, 0.0
    while spent < SECONDS:
        batch = [(fresh(s), p) for s, p in pairs]
        start = time.perf_counter()
        for state, position in batch:
            game.judge(state, position)
        spent += time.perf_counter() - start
        calls += len(batch)
    return calls / spent


def observation_lines(game: Game, played: list[list]) -> list[str]:
    lines, seq = [], 0
    for states in played:
        for state in states:
            for _ in range(2):  # each position seen twice: the repeat is no event
                seq += 1
                lines.append(json.dumps({
                    "schema": SCHEMA, "table": "bench", "game": game.id, "seq": seq,
                    "time": 1.7e9 + seq, "stable": True, "confidence": 1.0,
                    "position": state.position.to_json(),
                }))
    return lines


def referee_rate(game: Game, lines: list[str], forced_wins: bool) -> tuple[float, int]:
    start = time.perf_counter()
    reader, referee = ObservationReader(), Referee(forced_wins=forced_wins)
    events = 0
    for line in lines:
        events += len(referee.feed(reader.parse(line)))
    return len(lines) / (time.perf_counter() - start), events


def measure() -> list[dict]:
    rows = []
    for game in available_games():
        played = random_game(game, random.Random(SEED), GAME_PLIES)
        states = [s for states in played for s in states]
        pairs = [(a, b.position) for states in played
                 for a, b in zip(states, states[1:], strict=False)]
        lines = observation_lines(game, played)
        obs_rate, events = referee_rate(game, lines, forced_wins=False)
        has_search = callable(getattr(game, "forced_win", None))
        rows.append({
            "game": game.id,
            "moves/s": move_generation_rate(game, states),
            "judge/s": judge_rate(game, pairs),
            "observations": len(lines),
            "events": events,
            "obs/s": obs_rate,
            "obs/s (forced wins)": (
                referee_rate(game, lines, forced_wins=True)[0] if has_search else "-"),
        })
    return rows
