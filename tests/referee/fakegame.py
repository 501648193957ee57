"""A tiny game for the referee's tests, independent of the six real engines.

Five cells in a row; the players take turns placing one stone of their own ("A" for
player 0, "B" for player 1) on an empty cell ("."). Two adjacent stones of one player
win; a full board with no such pair is a draw. ``null`` in an observed cell is unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rules.core import (
    Game,
    Illegal,
    InvalidMove,
    InvalidPosition,
    Judgement,
    Move,
    Outcome,
    Position,
    RuleOption,
    State,
    resolve_options,
)


def position_matches(expected: Any, observed: Any) -> bool:
    """Compare two JSON trees where None in ``observed`` (not known) matches anything."""
    if observed is None:
        return True
    if isinstance(expected, dict) and isinstance(observed, dict):
        return expected.keys() == observed.keys() and all(
            position_matches(expected[k], observed[k]) for k in expected
        )
    if isinstance(expected, list | tuple) and isinstance(observed, list | tuple):
        return len(expected) == len(observed) and all(
            position_matches(e, o) for e, o in zip(expected, observed, strict=True)
        )
    return expected == observed


STONES = ("A", "B")
N = 5


@dataclass(frozen=True)
class LinePosition(Position):
    cells: tuple[str | None, ...]

    def to_json(self) -> dict[str, Any]:
        return {"cells": list(self.cells)}


@dataclass(frozen=True)
class Place(Move):
    cell: int

    def notation(self) -> str:
        return f"@{self.cell}"


@dataclass(frozen=True)
class LineState(State):
    position: LinePosition
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def turn(self) -> int | None:
        if self.outcome() is not None:
            return None
        return sum(c != "." for c in self.position.cells) % 2

    def generate_moves(self) -> Iterator[Move]:
        if self.outcome() is None:
            for i, c in enumerate(self.position.cells):
                if c == ".":
                    yield Place(i)

    def why_illegal(self, move: Move) -> Illegal | None:
        if self.outcome() is not None:
            return Illegal("game-over", "The game is over.")
        if not isinstance(move, Place) or not 0 <= move.cell < N:
            return Illegal("no-such-cell", "There is no such cell.", self.turn)
        if self.position.cells[move.cell] != ".":
            return Illegal("cell-taken", "That cell is taken.", self.turn)
        return None

    def _apply(self, move: Move) -> State:
        cells = list(self.position.cells)
        cells[move.cell] = STONES[self.turn]
        return LineState(LinePosition(tuple(cells)), self.options)

    def outcome(self) -> Outcome | None:
        c = self.position.cells
        for i in range(N - 1):
            if c[i] != "." and c[i] == c[i + 1]:
                return Outcome((STONES.index(c[i]),), "two-in-a-row")
        if "." not in c:
            return Outcome((), "board-full")
        return None


class LineGame(Game):
    id = "line"
    title = "Line (test game)"
    rule_options = (RuleOption("colour", "plain", ("plain", "fancy"), "test option"),)

    def initial_state(self, options=None, n_players=2) -> State:
        return LineState(LinePosition((".",) * N), resolve_options(self.rule_options, options))

    def position_from_json(self, data: Any, options: Any = None) -> Position:
        if not isinstance(data, dict) or "cells" not in data:
            raise InvalidPosition("cells", "missing")
        cells = data["cells"]
        if not isinstance(cells, list) or len(cells) != N:
            raise InvalidPosition("cells", f"must be a list of {N} cells")
        for i, c in enumerate(cells):
            if c is not None and c not in (".", *STONES):
                raise InvalidPosition(f"cells.{i}", f"{c!r} is not '.', 'A' or 'B'")
        return LinePosition(tuple(cells))

    def state_from_position(self, position, options=None, extra=None) -> State:
        if None in position.cells:
            raise InvalidPosition("cells", "unknown cells")
        n_a, n_b = position.cells.count("A"), position.cells.count("B")
        if n_a - n_b not in (0, 1):
            raise InvalidPosition("cells", "no legal game reaches this position")
        return LineState(position, resolve_options(self.rule_options, options))

    def parse_move(self, text: str) -> Move:
        if not text.startswith("@") or not text[1:].isdigit():
            raise InvalidMove(text)
        return Place(int(text[1:]))

    def judge(self, state: State, observed: Position) -> Judgement:
        before = state.position.cells
        if position_matches(state.position.to_json(), observed.to_json()):
            return Judgement(Judgement.SAME)
        mover = state.turn
        changed = [
            i for i, (b, o) in enumerate(zip(before, observed.cells, strict=True))
            if o is not None and b != o
        ]
        if any(before[i] != "." for i in changed):
            return Judgement(Judgement.VIOLATION, illegal=Illegal(
                "stone-moved", "A stone on the board was moved or taken away.", mover))
        if len(changed) > 1:
            return Judgement(Judgement.VIOLATION, illegal=Illegal(
                "one-stone", "Place one stone a turn.", mover))
        (cell,) = changed
        owner = STONES.index(observed.cells[cell])
        if mover is None:
            return Judgement(Judgement.VIOLATION, illegal=Illegal(
                "game-over", "The game is over.", owner))
        if owner != mover:
            return Judgement(Judgement.VIOLATION, illegal=Illegal(
                "not-your-turn", f"It is player {mover}'s turn.", owner))
        move = Place(cell)
        return Judgement(Judgement.MOVES, moves=(move,), state=state.apply(move))


def games(game_id: str) -> Game:
    """A registry for tests: the line game besides the real ones."""
    from rules.registry import get_game

    return LineGame() if game_id == "line" else get_game(game_id)


def obs(seq: int, cells, *, table="t1", stable=True, confidence=1.0, **extra) -> dict:
    """An observation object of the line game."""
    if isinstance(cells, str):
        cells = list(cells)
    return {"schema": "tableref/observation/1", "table": table, "game": "line", "seq": seq,
            "time": 1763805600.0 + seq, "stable": stable, "confidence": confidence,
            "position": {"cells": cells}, **extra}
