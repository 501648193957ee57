"""``tableref demo``: a scripted game judged by the referee, announced, and recorded.

The script is a seeded random legal game of the chosen game, seen the way a camera sees
a table: a hand over the board between moves (unstable observations), one illegal
change put back at once, and the game played to its end. The observations go through
the same referee and record as ``tableref referee``; at the end the record is exported
as a move list.
"""

from __future__ import annotations

import argparse

DEFAULT_GAME = "esoloe"
DEMO_PLAYERS = {
    "esoloe": ["natural", "green"], "esoloe-tictactoe": ["natural", "green"],
    "esoloe-3andc": ["natural", "green"], "neunfeld": ["A", "B"], "tyr": ["A", "B"],
    "cubes": ["blue", "red"],
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default=DEFAULT_GAME,
                        help=f"game id (default {DEFAULT_GAME})")
    parser.add_argument("--seed", type=int, default=7, help="seed of the scripted game")
    parser.add_argument("--record", metavar="DIR", default=None,
                        help="where the game record is written (default: a new folder "
                        "under the system's temporary directory)")
    parser.add_argument("--delay", type=float, default=0.0, metavar="S",
                        help="seconds to wait between observations (default 0)")
    parser.add_argument("--save-observations", metavar="FILE", default=None,
                        help="also write the scripted observations as JSONL")


def scripted_observations(game_id: str, seed: int, table: str = "demo",
                          start_time: float = 1763805600.0, max_plies: int = 200) -> list[dict]:
    """Observations of a seeded random legal game, with hands passing and one illegal
    change put back.

    The illegal change is two moves at once from the same position (for games where the
    rules refuse that); each real move is preceded by an unstable observation (a hand
    over the board, showing the old position).
    """
    import random

    from rules import Board, Judgement, get_game

    game = get_game(game_id)
    rng = random.Random(seed)
    board = Board(game)
    positions = [board.state.to_json()]
    illegal_at = None  # index in positions after which the illegal change is shown
    illegal_position = None
    while board.outcome() is None and len(board.move_stack) < max_plies:
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        if illegal_position is None and len(board.move_stack) >= 2:
            candidate = _two_moves_at_once(board, move, rng)
            if candidate is not None and game.judge(board.state, candidate).kind == (
                Judgement.VIOLATION
            ):
                illegal_at, illegal_position = len(positions) - 1, candidate.to_json()
        board.push(move)
        positions.append(board.state.to_json())

    names = DEMO_PLAYERS.get(game_id, [f"player {i}" for i in range(game.min_players)])
    observations: list[dict] = []

    def observe(position: dict, stable: bool = True) -> None:
        obs = {
            "schema": "tableref/observation/1", "table": table, "game": game_id,
            "seq": len(observations) + 1, "time": start_time + len(observations) / 2,
            "stable": stable, "confidence": 1.0, "position": position,
        }
        if not observations:
            obs["player_names"] = names
        observations.append(obs)

    for i, position in enumerate(positions):
        if i > 0:
            observe(positions[i - 1], stable=False)  # a hand over the board
        observe(position)
        if i == illegal_at:
            observe(illegal_position)
            observe(position)  # put back
    return observations


def _two_moves_at_once(board, move, rng):
    """The position after ``move`` and a reply, or None when there is no reply."""
    after = board.state.apply(move)
    replies = list(after.legal_moves)
    if not replies or after.outcome() is not None:
        return None
    return after.apply(rng.choice(replies)).position


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    import tempfile
    import time

    from device.announce import announce
    from rules import GAME_IDS
    from rules.observation import ObservationReader
    from rules.records import Recorder, export_text, list_records
    from rules.referee import Referee

    if args.game not in GAME_IDS:
        print(f"tableref demo: unknown game {args.game!r} (known: {', '.join(GAME_IDS)})",
              file=sys.stderr)
        return 2
    record_dir = args.record or tempfile.mkdtemp(prefix="tableref-demo-")
    observations = scripted_observations(args.game, args.seed, start_time=time.time())
    if args.save_observations:
        with open(args.save_observations, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(o) + "\n" for o in observations)

    print(f"tableref demo: a scripted {args.game} game (seed {args.seed}), "
          f"{len(observations)} observations, judged by the referee\n")
    recorder = Recorder(record_dir)
    referee = Referee(recorder=recorder)
    reader = ObservationReader()
    try:
        for obs_json in observations:
            obs = reader.parse(obs_json)
            tag = "" if obs.stable else "   (hand over the board: not judged)"
            if tag:
                print(f"seq {obs.seq:3d}{tag}")
            for event in referee.feed(obs):
                print(f"seq {obs.seq:3d}   {announce(event, referee.tables.get(obs.table))}")
            if args.delay:
                time.sleep(args.delay)
    finally:
        recorder.close()
    records = list_records(recorder.directory)
    print(f"\nGame record written to {records[-1].path}\n")
    print(export_text(records[-1]))
    return 0
