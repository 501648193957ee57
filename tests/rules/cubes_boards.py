"""Boards and states for the Cubes tests, drawn as pictures.

A picture has one line per row from the north (row 0, rank 10), tokens separated by
spaces; rows and cells left out at the end are empty. Crafted states are built directly (not through
``state_from_position``), so they need not hold the setup's number of white stones.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.core import resolve_options
from rules.cubes import Cubes
from rules.cubes_position import CELLS, SIZE, CubesPosition, Player, parse_square
from rules.cubes_state import DEFAULT_SEATS, PLAY, RULE_OPTIONS, CubesState

GAME = Cubes()

#: Blue (south, depends on red) has B2..B5 active and places B6 on b3 next; red (north,
#: depends on blue) has R3..R6 active and r2 inactive on c2, one white stone short, which
#: the blue stone on b3 would give it.
WIN = """
W W . W W W W W W .
. B2 . . B3 . . B4 W .
. . . . . . . . . .
W W W W R5 W . . . .
W B5 W W W W . W W W
. . . . W W W . R3 .
W W W . . R6 . . . .
W . W . W W W W W W
. . r2 . . . . . R4 W
"""

#: Blue's B3 on b9 counts two white stones and red's R2 on c10; R2 counts the white
#: stone on b10 and blue's B3 (red depends on blue). Taking R2 back leaves B3 one short.
PAIR = """
W W R2 . . . . . . .
. B3 . . . . . . . .
"""


#: Blue (south) to move; white stones on e9, e7, e6 and blue's B2 on f6.
SHIFTS = """
. . . . . . . . . .
. . . . W . . . . .
. . . . . . . . . .
. . . . W . . . . .
. . . . W B2 . . . .
"""

def grid_of(picture: str) -> tuple[str, ...]:
    rows = [line.split() for line in picture.strip().splitlines()]
    cells: list[str] = []
    for r in range(SIZE):
        row = rows[r] if r < len(rows) else []
        assert len(row) <= SIZE, f"row {r} has {len(row)} tokens"
        cells += row + ["."] * (SIZE - len(row))
    assert len(cells) == CELLS
    return tuple(cells)


def make(
    picture: str = "",
    deps: tuple[str | None, ...] = ("red", "blue"),
    colours: tuple[str, ...] = ("blue", "red"),
    seats: tuple[str, ...] | None = None,
    options: dict[str, Any] | None = None,
    counts: tuple[int, ...] | None = None,
    **fields: Any,
) -> CubesState:
    """A state in the play phase (unless ``phase`` is given), blue to move."""
    seats = seats or DEFAULT_SEATS[len(colours)]
    players = tuple(Player(c, s, d) for c, s, d in zip(colours, seats, deps, strict=True))
    position = CubesPosition(grid_of(picture), players, counts)
    fields.setdefault("phase", PLAY)
    return CubesState(position, resolve_options(RULE_OPTIONS, options), **fields)


def sq(name: str) -> int:
    index = parse_square(name)
    assert index is not None, name
    return index


def seen(
    state: CubesState,
    changes: dict[str, str] | None = None,
    deps: tuple[str | None, ...] | None = None,
    counts: tuple[int, ...] | None = None,
) -> CubesPosition:
    """What the camera would see: the state's board with fields changed."""
    grid = list(state.position.grid)
    for name, token in (changes or {}).items():
        grid[sq(name)] = token
    players = state.position.players
    if deps is not None:
        players = tuple(replace(p, dependency=d) for p, d in zip(players, deps, strict=True))
    return CubesPosition(tuple(grid), players, counts or state.position.card_actions)


def play(state: CubesState, *moves: str) -> CubesState:
    for text in moves:
        state = state.apply(GAME.parse_move(text))
    return state
