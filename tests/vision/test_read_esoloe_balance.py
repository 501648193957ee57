"""Cubes no face of which was seen (lower cubes from straight above) take the players that
placing in turn needs, so that the position is one the rules accept and
``most_likely_valid`` does not swap a seen stack for an alternative (an empty field)."""

from rules.core import InvalidPosition
from rules.registry import get_game
from vision.read_esoloe import DIRECTIONS, _balance


def _field(*players: tuple[int, float]) -> dict:
    return {"occupied": True, "cubes": [
        {"player": p, "player_confidence": c, "faces": dict.fromkeys(DIRECTIONS)}
        for p, c in players]}


def _position(fields: list[dict]) -> dict:
    return {"cells": [[{"player": c["player"], "faces": dict(c["faces"])} for c in f["cubes"]]
                      if f["occupied"] else [] for f in fields]}


def _valid(game: str, fields: list[dict]) -> bool:
    try:
        get_game(game).position_from_json(_position(fields))
    except InvalidPosition:
        return False
    return True


def test_unseen_lower_cubes_take_the_players_placing_in_turn_needs():
    # 13 cubes seen from above: the tops seen (0, 1, 0, 1, 1), the 8 lower ones not (the
    # reader's default, player 0 at 0.5, gives player 0 ten cubes: it has 8)
    tops = (0, 1, 0, 1, 1)
    fields = [_field(*[(0, 0.5)] * (n - 1), (top, 0.97)) for n, top in zip(
        (3, 3, 3, 2, 2), tops, strict=True)]
    assert not _valid("esoloe", fields)
    _balance(fields, "esoloe")
    players = [c["player"] for f in fields for c in f["cubes"]]
    assert (players.count(0), players.count(1)) == (7, 6)  # placing in turn, 13 cubes
    assert tuple(f["cubes"][-1]["player"] for f in fields) == tops  # seen: unchanged
    assert all(c["player_confidence"] == 0.5 for f in fields for c in f["cubes"][:-1])
    assert _valid("esoloe", fields)


def test_seen_cubes_that_no_turn_order_gives_are_left_as_read():
    # four cubes seen of player 1 and one unseen: no choice makes the counts right
    fields = [_field((1, 0.9), (1, 0.9)), _field((1, 0.9), (1, 0.9)), _field((0, 0.5)),
              {"occupied": False}, {"occupied": False}]
    _balance(fields, "esoloe")
    assert fields[2]["cubes"][0]["player"] == 0
