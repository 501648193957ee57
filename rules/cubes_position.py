"""Cubes: the board as the camera sees it (``position``), squares and neighbourhoods.

The rules live in ``rules.cubes``; the cards in ``rules.cubes_cards``; the rules document
is ``docs/rules/cubes.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from rules.core import PathBuilder, Position

SIZE = 10
CELLS = SIZE * SIZE
FILES = "abcdefghij"
DIGITS = (2, 3, 4, 5, 6)
COLOURS = ("blue", "red", "black", "orange")
LETTER = {"blue": "B", "red": "R", "black": "K", "orange": "O"}
COLOUR_OF = {letter: colour for colour, letter in LETTER.items()}
#: the four sides of the board, clockwise seen from above (north at the top)
SEATS = ("north", "east", "south", "west")
#: white stones used, by number of players
WHITES = {2: 30, 3: 28, 4: 26}
#: at most this many white stones exist (the box holds 30)
MAX_WHITES = 30
EMPTY, WHITE = ".", "W"
TOKEN = re.compile(r"\.|W|[BRKObrko][2-6]")
#: the direction a player at each seat looks across the board, as (d_row, d_col)
FORWARD = {"south": (-1, 0), "north": (1, 0), "east": (0, -1), "west": (0, 1)}


def reading_turns(seat: str) -> int:
    """Quarter turns, counter-clockwise seen from above, that take a stone laid to be read
    from the south (its digit upright with north up) to one laid to be read from ``seat``:
    its digit's top towards ``FORWARD[seat]``. South 0, east 1, north 2, west 3."""
    d_row, d_col = FORWARD[seat]
    return {(0, 1): 0, (-1, 0): 1, (0, -1): 2, (1, 0): 3}[(d_col, -d_row)]


def square_name(index: int) -> str:
    """``e5`` style: file a..j west to east, rank 1..10 south to north (row 9 is rank 1)."""
    row, col = divmod(index, SIZE)
    return f"{FILES[col]}{SIZE - row}"


def parse_square(text: str) -> int | None:
    m = re.fullmatch(r"([a-j])(10|[1-9])", text)
    if m is None:
        return None
    return (SIZE - int(m.group(2))) * SIZE + FILES.index(m.group(1))


def is_stone(token: str) -> bool:
    """A player's stone (not empty, not white)."""
    return len(token) == 2


def is_active(token: str) -> bool:
    return token[0].isupper()


def stone_name(token: str) -> str:
    """``blue 4`` for ``B4`` or ``b4``."""
    return f"{COLOUR_OF[token[0].upper()]} {token[1]}"


@cache
def neighbours(neighbourhood: str, seat: str) -> tuple[tuple[int, ...], ...]:
    """For each square, the squares that count as adjacent to a stone of a player at
    ``seat``: all eight (``eight``), or the four diagonal ones and the two in the line of
    the player's sight (``six``: the literal "diagonal oder vertikal")."""
    if neighbourhood == "eight":
        steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    else:
        fr, fc = FORWARD[seat]
        steps = [(-1, -1), (-1, 1), (1, -1), (1, 1), (fr, fc), (-fr, -fc)]
    out = []
    for index in range(CELLS):
        row, col = divmod(index, SIZE)
        out.append(tuple(
            (row + dr) * SIZE + col + dc for dr, dc in steps
            if 0 <= row + dr < SIZE and 0 <= col + dc < SIZE
        ))
    return tuple(out)


@dataclass(frozen=True)
class Player:
    """One entry of ``players``: colour, seat, and the colour of its dependency card
    (None where not known)."""

    colour: str
    seat: str
    dependency: str | None = None

    @property
    def letter(self) -> str:
        return LETTER[self.colour]

    def to_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "seat": self.seat, "dependency": self.dependency}


@dataclass(frozen=True)
class CubesPosition(Position):
    """The observation's ``position`` for Cubes.

    ``grid`` holds the 100 tokens row-major from the north-west corner. ``card_actions``
    is the operator extension key (cumulative count of actions the camera cannot see,
    per player); None where the observation does not carry it.
    """

    grid: tuple[str, ...]
    players: tuple[Player, ...]
    card_actions: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "grid": [list(self.grid[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)],
            "players": [p.to_json() for p in self.players],
        }
        if self.card_actions is not None:
            data["card_actions"] = list(self.card_actions)
        return data

    @property
    def dependencies(self) -> tuple[str | None, ...]:
        return tuple(p.dependency for p in self.players)

    def owner(self, letter: str) -> int | None:
        """The player index of a colour letter (either case), None if not playing."""
        letter = letter.upper()
        for i, p in enumerate(self.players):
            if p.letter == letter:
                return i
        return None

    def whites(self) -> int:
        return self.grid.count(WHITE)


def parse_position(data: Any) -> CubesPosition:
    """Validate an observation's ``position`` object; raises InvalidPosition."""
    root = PathBuilder()
    if not isinstance(data, dict):
        raise root.fail("the position must be an object with 'grid' and 'players'")
    players = _parse_players(data.get("players"), root / "players")
    grid = _parse_grid(data.get("grid"), root / "grid", players)
    counts = None
    if data.get("card_actions") is not None:
        counts = _parse_counts(data["card_actions"], root / "card_actions", len(players))
    return CubesPosition(grid, players, counts)


def _parse_players(data: Any, path: PathBuilder) -> tuple[Player, ...]:
    if not isinstance(data, list) or not 2 <= len(data) <= 4:
        raise path.fail("must be a list of 2 to 4 players")
    players: list[Player] = []
    for i, entry in enumerate(data):
        here = path / i
        if not isinstance(entry, dict):
            raise here.fail("must be an object with 'colour', 'seat' and 'dependency'")
        colour, seat = entry.get("colour"), entry.get("seat")
        if colour not in COLOURS:
            raise (here / "colour").fail(f"{colour!r} is not one of {', '.join(COLOURS)}")
        if any(p.colour == colour for p in players):
            raise (here / "colour").fail(f"{colour} plays twice")
        if seat not in SEATS:
            raise (here / "seat").fail(f"{seat!r} is not one of {', '.join(SEATS)}")
        if any(p.seat == seat for p in players):
            raise (here / "seat").fail(f"two players sit at the {seat} side")
        players.append(Player(colour, seat, entry.get("dependency")))
    playing = [p.colour for p in players]
    for i, p in enumerate(players):
        here = path / i / "dependency"
        if p.dependency is None:
            continue
        if p.dependency not in playing:
            raise here.fail(
                f"{p.dependency!r} is not a playing colour ({', '.join(playing)})")
        if any(q.dependency == p.dependency for q in players[:i]):
            raise here.fail(f"there is one {p.dependency} dependency card, shown twice")
    _check_clockwise(players, path)
    return tuple(players)


def _check_clockwise(players: list[Player], path: PathBuilder) -> None:
    """Turn order goes clockwise: each player's successor sits at the next occupied
    side clockwise (north, east, south, west)."""
    taken = {SEATS.index(p.seat) for p in players}
    for i, p in enumerate(players[:-1]):
        k = SEATS.index(p.seat)
        nxt = next(SEATS[(k + j) % 4] for j in range(1, 4) if (k + j) % 4 in taken)
        if players[i + 1].seat != nxt:
            raise (path / (i + 1) / "seat").fail(
                f"turn order goes clockwise: after {p.colour} at the {p.seat} side comes "
                f"the player at the {nxt} side, not {players[i + 1].seat}")


def _parse_grid(data: Any, path: PathBuilder, players: tuple[Player, ...]) -> tuple[str, ...]:
    if not isinstance(data, list) or len(data) != SIZE:
        raise path.fail(f"must be a list of {SIZE} rows")
    letters = {p.letter for p in players}
    grid: list[str] = []
    seen: dict[str, str] = {}
    for r, row in enumerate(data):
        if not isinstance(row, list) or len(row) != SIZE:
            raise (path / r).fail(f"must be a list of {SIZE} tokens")
        for c, token in enumerate(row):
            here = path / r / c
            if not isinstance(token, str) or not TOKEN.fullmatch(token):
                raise here.fail(
                    f"{token!r} is not a token ('.', 'W', or B/R/K/O in either case "
                    "with a digit 2..6)")
            if is_stone(token):
                key = token.upper()
                if key[0] not in letters:
                    raise here.fail(
                        f"{token} is {COLOUR_OF[key[0]]}, which is not playing")
                if key in seen:
                    raise here.fail(f"a second {key} (the first is at {seen[key]})")
                seen[key] = str(here)
            grid.append(token)
    whites = grid.count(WHITE)
    if whites > MAX_WHITES:
        raise path.fail(f"{whites} white stones; the game has only {MAX_WHITES}")
    return tuple(grid)


def _parse_counts(data: Any, path: PathBuilder, n: int) -> tuple[int, ...]:
    if not isinstance(data, list) or len(data) != n:
        raise path.fail(f"must be a list of {n} counts, one per player")
    for i, value in enumerate(data):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise (path / i).fail(f"{value!r} is not a count (an integer 0 or more)")
    return tuple(data)
