"""The e-SOLO-e family: ``esoloe`` (1x5, stacks, five views), ``esoloe-tictactoe`` and
``esoloe-3andc`` (3x3).

Every reading of the rules below is documented, with the source sentence, in
``docs/rules/esoloe.md``, ``docs/rules/esoloe-tictactoe.md`` and
``docs/rules/esoloe-3andc.md``. The cube as a solid is in :mod:`rules.cube`.

Move notation: ``<player>:<cell>:<UP>/<side><FACING>``, e.g. ``0:c:S/fS`` = player 0
puts a cube on cell c with sakura up and fuji facing south. Cells are ``a``..``e`` (west
to east) on the 1x5 board and ``a1``..``c3`` on the 3x3 boards (file a = west column,
rank 1 = south row, as seen from the front). 3andC moves name no orientation: ``1:b2``.
A placement the camera saw only in part names what was seen: ``0:c:S/?`` (sakura up, the
sides not seen), ``0:c:?`` (no face seen); it stands for every legal orientation that
fits, and the state keeps only the faces they share.
"""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, ClassVar

from rules.core import (
    Game,
    Illegal,
    InvalidMove,
    InvalidPosition,
    Judgement,
    Move,
    Outcome,
    PathBuilder,
    Position,
    RuleOption,
    State,
    resolve_options,
)
from rules.cube import (
    BLANK,
    CUBE_SETS,
    DEFAULT_SET,
    DIRECTION_LETTER,
    EAST,
    FACE_VALUES,
    FACES,
    NORTH,
    SIDES,
    SOUTH,
    SYMBOL_LETTER,
    SYMBOLS,
    UP,
    WEST,
    CubeSet,
)

PLAYERS = (0, 1)
#: what a camera can be shown at all: the box holds 8 cubes a colour, and no stack of
#: more than 4 can arise (a 4th level ends the game)
MAX_CUBES_ON_LOAD = 8
MAX_STACK_ON_LOAD = 4

DIRECTION_NAME = {d: FACES[d] for d in SIDES}
_LETTER_SYMBOL = {v: k for k, v in SYMBOL_LETTER.items()}
_LETTER_DIRECTION = {v: k for k, v in DIRECTION_LETTER.items()}


# --------------------------------------------------------------------------- pieces


@dataclass(frozen=True)
class Cube:
    """One cube: its player (colour) and six faces in ``rules.cube.FACES`` order.

    A face is None where it is not known; ``faces`` is None where the observation gave
    none (allowed in 3andC only).
    """

    player: int
    faces: tuple[str | None, ...] | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player}
        if self.faces is not None:
            out["faces"] = dict(zip(FACES, self.faces, strict=True))
        return out

    def face(self, index: int) -> str | None:
        return None if self.faces is None else self.faces[index]

    def agrees(self, other: Cube) -> bool:
        """Same player, and no face known on both that differs."""
        if self.player != other.player:
            return False
        if self.faces is None or other.faces is None:
            return True
        return all(a is None or b is None or a == b
                   for a, b in zip(self.faces, other.faces, strict=True))


@dataclass(frozen=True)
class EsoloePosition(Position):
    """The observation's ``{"cells": [...]}``: one stack per cell, bottom cube first."""

    cells: tuple[tuple[Cube, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {"cells": [[cube.to_json() for cube in stack] for stack in self.cells]}

    @cached_property
    def heights(self) -> tuple[int, ...]:
        return tuple(len(stack) for stack in self.cells)

    @cached_property
    def counts(self) -> tuple[int, int]:
        n = [0, 0]
        for stack in self.cells:
            for cube in stack:
                n[cube.player] += 1
        return n[0], n[1]

    def placed(self, cell: int, cube: Cube) -> EsoloePosition:
        cells = list(self.cells)
        cells[cell] = (*cells[cell], cube)
        return EsoloePosition(tuple(cells))


@dataclass(frozen=True)
class Place(Move):
    """A player puts one cube on a cell, with ``up`` on top and ``side`` facing
    ``facing`` (None for 3andC, where only colours count). A ``partial`` move (symbol
    games) is a placement the camera saw only in part: ``up`` (None: not seen either)
    and nothing else is known of the cube's orientation; ``side`` and ``facing`` are None."""

    player: int
    cell: str
    up: str | None = None
    side: str | None = None
    facing: str | None = None
    partial: bool = False

    def notation(self) -> str:
        head = f"{self.player}:{self.cell}"
        if self.partial:
            return f"{head}:?" if self.up is None else f"{head}:{SYMBOL_LETTER[self.up]}/?"
        if self.up is None or self.side is None or self.facing is None:
            return head
        facing = DIRECTION_LETTER[FACES.index(self.facing)]
        return f"{head}:{SYMBOL_LETTER[self.up]}/{SYMBOL_LETTER[self.side].lower()}{facing}"


# --------------------------------------------------------------------------- boards


@dataclass(frozen=True)
class Grid:
    """Cells, their names, neighbours and the lines of sight of the side views."""

    cols: int
    rows: int
    levels: int  # the highest stack a view can show
    names: tuple[str, ...]

    @cached_property
    def index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}

    def cell(self, x: int, y: int) -> int:
        return y * self.cols + x

    @cached_property
    def sides(self) -> tuple[tuple[str, int, tuple[tuple[int, ...], ...]], ...]:
        """(view, face shown, columns): each column, the viewer's left to right, lists
        the cells along the line of sight, nearest first."""
        xs, ys = range(self.cols), range(self.rows)
        c = self.cell
        return (
            ("front", SOUTH, tuple(tuple(c(x, y) for y in reversed(ys)) for x in xs)),
            ("back", NORTH, tuple(tuple(c(x, y) for y in ys) for x in reversed(xs))),
            ("left", WEST, tuple(tuple(c(x, y) for x in xs) for y in ys)),
            ("right", EAST, tuple(tuple(c(x, y) for x in reversed(xs)) for y in reversed(ys))),
        )

    def neighbours(self, cell: int, diagonal: bool) -> tuple[int, ...]:
        x, y = cell % self.cols, cell // self.cols
        steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        if diagonal:
            steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        return tuple(self.cell(x + dx, y + dy) for dx, dy in steps
                     if 0 <= x + dx < self.cols and 0 <= y + dy < self.rows)


ROW = Grid(5, 1, 4, ("a", "b", "c", "d", "e"))
SQUARE = Grid(3, 3, 1, tuple(f"{f}{r}" for r in (3, 2, 1) for f in "abc"))


@dataclass(frozen=True)
class _View:
    """Which cube (cell, level) a view shows at each of its places (row, column)."""

    name: str
    face: int
    shape: tuple[int, int]
    at: dict[tuple[int, int], tuple[int, int]]

    @cached_property
    def where(self) -> dict[tuple[int, int], tuple[int, int]]:
        return {cube: place for place, cube in self.at.items()}


@lru_cache(maxsize=8192)
def _views(grid: Grid, heights: tuple[int, ...]) -> tuple[_View, ...]:
    """The five views of a board whose stacks have these heights (nearer hides farther).

    Top: rows north to south, columns west to east, the top cube of each stack. Side
    views: row = level (0 the board), column = the viewer's left to right.
    """
    top = {(c // grid.cols, c % grid.cols): (c, h - 1) for c, h in enumerate(heights) if h}
    views = [_View("top", UP, (grid.rows, grid.cols), top)]
    for name, face, columns in grid.sides:
        at = {}
        for a, column in enumerate(columns):
            for level in range(grid.levels):
                nearest = next((c for c in column if heights[c] > level), None)
                if nearest is not None:
                    at[(level, a)] = (nearest, level)
        views.append(_View(name, face, (grid.levels, len(columns)), at))
    return tuple(views)


@lru_cache(maxsize=64)
def _lines(shape: tuple[int, int], k: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every line of k places in a grid: horizontal, vertical and both diagonals."""
    rows, cols = shape
    out = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                line = tuple((r + i * dr, c + i * dc) for i in range(k))
                if all(0 <= lr < rows and 0 <= lc < cols for lr, lc in line):
                    out.append(line)
    return tuple(out)


@lru_cache(maxsize=64)
def _lines_through(shape: tuple[int, int], k: int) -> dict:
    out: dict[tuple[int, int], list] = {}
    for line in _lines(shape, k):
        for place in line:
            out.setdefault(place, []).append(line)
    return {place: tuple(lines) for place, lines in out.items()}


# --------------------------------------------------------------------------- 3andC board


@dataclass(frozen=True)
class PointsBoard:
    """The 3andC board: points (black dots) per cell and the three blue fields."""

    source: str
    points: tuple[int, ...]
    blue: frozenset[int]


DEFAULT_BOARD = Path(__file__).with_name("data") / "3andc-board.json"


class _BoardChoices(tuple):
    """The ``board`` option's choices: ``default`` or a path to a JSON board file.

    ``core.resolve_options`` checks ``value in choices``; the file itself is read and
    checked when a game begins (InvalidPosition on ``options.board``).
    """

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and (value == "default" or value.endswith(".json"))


def load_board(value: str) -> PointsBoard:
    """Read a 3andC board file (``default``: the shipped one); InvalidPosition if bad."""
    path = DEFAULT_BOARD if value == "default" else Path(value)
    key = PathBuilder(("options", "board"))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise key.fail(f"cannot read the board file {str(path)!r}: {err.strerror}") from None
    except ValueError as err:
        raise key.fail(f"the board file {str(path)!r} is not JSON: {err}") from None

    def bad(where: str, message: str) -> InvalidPosition:
        return key.fail(f"{path}: {where}: {message}")

    if not isinstance(data, dict):
        raise bad("(top)", "must be an object with keys points and blue")
    points = data.get("points")
    if not (isinstance(points, list) and len(points) == 3
            and all(isinstance(r, list) and len(r) == 3 for r in points)):
        raise bad("points", "must be 3 rows (north first) of 3 numbers (west first)")
    flat = []
    for r, row in enumerate(points):
        for c, v in enumerate(row):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise bad(f"points.{r}.{c}", f"must be a whole number of points >= 0, not {v!r}")
            flat.append(v)
    blue = data.get("blue")
    if not isinstance(blue, list) or len(blue) != 3:
        raise bad("blue", "must list the 3 blue fields by name (a1..c3)")
    for i, name in enumerate(blue):
        if name not in SQUARE.index:
            raise bad(f"blue.{i}", f"{name!r} is not a cell (a1..c3)")
    if len(set(blue)) != 3:
        raise bad("blue", "names a field twice; there are 3 different blue fields")
    return PointsBoard(str(path), tuple(flat), frozenset(SQUARE.index[n] for n in blue))


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class EsoloeState(State):
    """A position, the resolved options and the cell of the last placement."""

    position: EsoloePosition
    options: tuple[tuple[str, Any], ...]
    last: int | None = None
    board: PointsBoard | None = None
    game: EsoloeFamily = field(default=None, compare=False, repr=False)  # type: ignore

    @cached_property
    def cube_set(self) -> CubeSet:
        return CUBE_SETS[self.option("cube-set")]

    @cached_property
    def to_move(self) -> int | None:
        """Whose placement is next by the cube counts (ignoring the outcome)."""
        return self.game.next_player(self.position.counts)

    @property
    def turn(self) -> int | None:
        return None if self.outcome() is not None else self.to_move

    @cached_property
    def _moves(self) -> tuple[Place, ...]:
        return tuple(self.game.candidate_moves(self)) if self.to_move is not None else ()

    def generate_moves(self) -> Iterator[Move]:
        return iter(() if self.outcome() is not None else self._moves)

    def why_illegal(self, move: Move) -> Illegal | None:
        return self.game.why_illegal(self, move)

    def _apply(self, move: Move) -> EsoloeState:
        assert isinstance(move, Place)
        cell = self.game.grid.index[move.cell]
        if move.partial:
            legal, _ = self.game.fitting(self, cell, self.game.seen_faces(move.up))
            return self.placed(cell, self.game.settled(self, cell, move.player, legal))
        faces = None
        if move.up is not None:
            o = self.cube_set.find(move.up, move.side, FACES.index(move.facing))
            faces = self.cube_set.orientations[o]
        return self.placed(cell, Cube(move.player, faces))

    def placed(self, cell: int, cube: Cube) -> EsoloeState:
        return EsoloeState(self.position.placed(cell, cube), self.options, cell, self.board,
                           self.game)

    @cached_property
    def _outcome(self) -> Outcome | None:
        return self.game.evaluate(self)

    def outcome(self) -> Outcome | None:
        return self._outcome

    @cached_property
    def memo(self) -> dict:
        """Results the game works out on demand for this (immutable) state."""
        return {}

    @cached_property
    def compliant_exists(self) -> bool:
        """TicTacToe: can some cube be placed next to no identical top symbol?"""
        game = self.game
        assert isinstance(game, EsoloeTicTacToe)
        return any(not game.touches_same(self, c, s)
                   for c, h in enumerate(self.position.heights) if h == 0 for s in SYMBOLS)


# --------------------------------------------------------------------------- games


_CUBE_SET_OPTION = RuleOption(
    "cube-set", DEFAULT_SET, tuple(CUBE_SETS),
    "Where the symbols sit on the cubes: corner (default; sakura, fuji, geisha "
    "anticlockwise round a corner), corner-mirror, or strip.",
)


class EsoloeFamily(Game):
    """What the three games share: cubes, cells, placing, judging."""

    grid: ClassVar[Grid]
    #: cubes per player (player 0 moves first)
    allowance: ClassVar[tuple[int, int]]
    #: False in 3andC, where only the colours count
    symbols: ClassVar[bool] = True

    # -- hooks ----------------------------------------------------------------------
    def next_player(self, counts: tuple[int, int]) -> int | None:
        """Whose placement is next after ``counts`` cubes; None when all are placed."""
        placed = counts[0] + counts[1]
        if placed >= sum(self.allowance):
            return None
        player = placed % 2
        return player if counts[player] < self.allowance[player] else 1 - player

    @abstractmethod
    def placement_problem(self, state: EsoloeState, cell: int, o: int | None) -> Illegal | None:
        """Where and how the mover's cube may go (orientation index ``o``)."""

    @abstractmethod
    def allowed(self, state: EsoloeState, cell: int) -> tuple[int | None, ...]:
        """The orientations (None in 3andC) the player to move may place on ``cell``:
        ``placement_problem`` for all of them at once."""

    @abstractmethod
    def evaluate(self, state: EsoloeState) -> Outcome | None:
        """The outcome after the last placement (see the game's rules document)."""

    @abstractmethod
    def lines_made(self, state: EsoloeState) -> list[Line]:
        """The lines that count for the outcome (by game; see its rules document)."""

    # -- options and states -----------------------------------------------------------
    def resolve(self, options: Mapping[str, Any] | None) -> tuple[tuple, PointsBoard | None]:
        resolved = resolve_options(self.rule_options, options)
        board = dict(resolved).get("board")
        return resolved, (load_board(board) if board is not None else None)

    def initial_state(
        self, options: Mapping[str, Any] | None = None, n_players: int = 2
    ) -> EsoloeState:
        if n_players != 2:
            raise InvalidPosition("player_names", f"{self.title} is for 2 players, not {n_players}")
        resolved, board = self.resolve(options)
        empty = EsoloePosition(tuple(() for _ in self.grid.names))
        return EsoloeState(empty, resolved, None, board, self)

    def position_from_json(
        self, data: Any, options: Mapping[str, Any] | None = None
    ) -> EsoloePosition:
        """Parse and check an observation's position. ``options`` (this module's
        addition) names the cube set to check the faces against; default: corner."""
        cube_set = CUBE_SETS[dict(resolve_options(self.rule_options, options))["cube-set"]]
        root = PathBuilder()
        if not isinstance(data, dict) or "cells" not in data:
            raise root.fail("must be an object with the key cells")
        cells = data["cells"]
        n = len(self.grid.names)
        if not isinstance(cells, list) or len(cells) != n:
            raise (root / "cells").fail(f"must be a list of {n} stacks, one per cell")
        stacks = []
        counts = [0, 0]
        for c, stack in enumerate(cells):
            where = root / "cells" / c
            if not isinstance(stack, list):
                raise where.fail("must be a list of cubes, bottom first")
            if len(stack) > MAX_STACK_ON_LOAD:
                raise where.fail(f"{len(stack)} cubes in one stack; at most "
                                 f"{MAX_STACK_ON_LOAD} can stand there in any game")
            cubes = tuple(self._cube(item, where / i, cube_set) for i, item in enumerate(stack))
            for i, cube in enumerate(cubes):
                counts[cube.player] += 1
                if counts[cube.player] > MAX_CUBES_ON_LOAD:
                    raise (where / i).fail(f"player {cube.player} has only "
                                           f"{MAX_CUBES_ON_LOAD} cubes; this is a 9th")
            stacks.append(cubes)
        return EsoloePosition(tuple(stacks))

    def _cube(self, item: Any, where: PathBuilder, cube_set: CubeSet) -> Cube:
        if not isinstance(item, dict):
            raise where.fail("must be a cube object with player and faces")
        player = item.get("player")
        if isinstance(player, bool) or player not in PLAYERS:
            raise (where / "player").fail(f"must be 0 or 1, not {player!r}")
        if "faces" not in item and not self.symbols:
            return Cube(player, None)
        faces = item.get("faces")
        if not isinstance(faces, dict):
            raise (where / "faces").fail("must be an object with the six faces " + ", ".join(FACES))
        unknown = sorted(set(faces) - set(FACES))
        if unknown:
            raise (where / "faces" / unknown[0]).fail(f"is not a face (faces: {', '.join(FACES)})")
        values = []
        for name in FACES:
            if name not in faces:
                raise (where / "faces" / name).fail("is missing (null if not known)")
            v = faces[name]
            if v is not None and v not in FACE_VALUES:
                raise (where / "faces" / name).fail(
                    f"{v!r} is not one of {', '.join(FACE_VALUES)} or null")
            values.append(v)
        why = cube_set.why_impossible(values)
        if why is not None:
            raise (where / "faces").fail(why)
        return Cube(player, tuple(values))

    def state_from_position(
        self, position: Position, options: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> EsoloeState:
        """The state for a position seen mid-game: a search over the orders in which the
        cubes could have been placed (the last placement matters for the outcome)."""
        if not isinstance(position, EsoloePosition) or len(position.cells) != len(
                self.grid.names):
            raise InvalidPosition("cells", f"not a {self.id} position")
        start = self.initial_state(options)
        n0, n1 = position.counts
        expected = [0, 0]
        for _ in range(n0 + n1):
            p = self.next_player(tuple(expected))
            if p is None:
                break
            expected[p] += 1
        if (n0, n1) != tuple(expected):
            raise InvalidPosition("cells", (
                f"player 0 has {n0} cubes and player 1 has {n1}; placing in turn "
                f"({self.allowance[0]} and {self.allowance[1]} cubes) never gives that"))
        for c, stack in enumerate(position.cells):
            for level, cube in enumerate(stack):
                if level and not self.grid.levels > 1:
                    raise InvalidPosition(f"cells.{c}", "cubes are never stacked in this game")
                if self.symbols and not any(
                        start.cube_set.orientations[o][UP] != BLANK
                        for o in start.cube_set.matching(cube.faces)):
                    raise InvalidPosition(f"cells.{c}.{level}.faces",
                                          "shows no symbol on top; every cube is placed "
                                          "with a symbol up")
        found = self._last_placements(start, position)
        if not found:
            raise InvalidPosition("cells", "no legal game reaches this position (it would "
                                  "have ended earlier, or a cube stands where it may not)")
        return found[0]

    def _last_placements(self, start: EsoloeState, position: EsoloePosition) -> list:
        """The states (one per possible last cell) that reach ``position``, the
        game-continues ones first, then by outcome condition: order-independent."""
        cells = position.cells
        memo: dict[tuple[int, ...], list[EsoloeState]] = {}

        def reach(heights: tuple[int, ...]) -> list[EsoloeState]:
            if heights in memo:
                return memo[heights]
            if not any(heights):
                return [start]
            out = []
            for c, h in enumerate(heights):
                if not h:
                    continue
                before = (*heights[:c], h - 1, *heights[c + 1:])
                live = [s for s in reach(before) if s.outcome() is None]
                if not live:
                    continue
                move, _, _ = self.explain(live[0], c, cells[c][h - 1])
                if move is not None:
                    out.append(live[0].placed(c, cells[c][h - 1]))
            memo[heights] = out
            return out

        def rank(state: EsoloeState) -> tuple:
            outcome = state.outcome()
            return (outcome is not None, outcome.condition if outcome else "", state.last)

        return sorted(reach(position.heights), key=rank)

    # -- moves ------------------------------------------------------------------------
    def parse_move(self, text: str) -> Place:
        if not isinstance(text, str):
            raise InvalidMove(f"a move is text, not {type(text).__name__}")
        cells = "|".join(self.grid.names)
        form = rf"([01]):({cells})" + (r":([SFG])/([sfg])([NESW])" if self.symbols else "")
        m = re.fullmatch(form, text.strip())
        if m is None and self.symbols:  # a placement seen only in part
            seen = re.fullmatch(rf"([01]):({cells}):(?:([SFG])/)?\?", text.strip())
            if seen is not None:
                up = _LETTER_SYMBOL[seen[3]] if seen[3] else None
                return Place(int(seen[1]), seen[2], up, partial=True)
        if m is None:
            example = "0:b2:S/fS" if self.grid is SQUARE else "0:c:S/fS"
            raise InvalidMove(
                f"{text!r} is not a move: write player:cell" + (
                    ":UP/sideFACING, e.g. " + example if self.symbols else ", e.g. 0:b2"))
        if not self.symbols:
            return Place(int(m[1]), m[2])
        up, side = _LETTER_SYMBOL[m[3]], _LETTER_SYMBOL[m[4].upper()]
        if up == side:
            raise InvalidMove(f"{text!r}: {up} cannot be both up and on a side")
        return Place(int(m[1]), m[2], up, side, DIRECTION_NAME[_LETTER_DIRECTION[m[5]]])

    def place(self, player: int, cell: int, cube_set: CubeSet | None, o: int | None) -> Place:
        """The move that puts orientation ``o`` of ``cube_set`` on ``cell``."""
        return _place(self.grid.names[cell], player, cube_set, o)

    def candidate_moves(self, state: EsoloeState) -> Iterator[Place]:
        p = state.to_move
        cube_set = state.cube_set if self.symbols else None
        for cell in range(len(self.grid.names)):
            for o in self.allowed(state, cell):
                yield self.place(p, cell, cube_set, o)

    def why_illegal(self, state: EsoloeState, move: Move) -> Illegal | None:
        if not isinstance(move, Place) or (move.partial and not self.symbols) or (
                not move.partial and (move.up is None) == self.symbols):
            form = "player:cell:UP/sideFACING" if self.symbols else "player:cell"
            return Illegal("wrong-move-form", f"A move in {self.title} is written {form}.")
        if state.outcome() is not None:
            return Illegal("game-over", "The game is already over.", move.player)
        cell = self.grid.index.get(move.cell)
        if cell is None:
            return Illegal("no-such-cell", f"There is no cell {move.cell!r} in {self.title}.",
                           move.player)
        if move.player not in PLAYERS:
            return Illegal("no-such-player", f"There is no player {move.player!r}; players "
                           "are 0 and 1.")
        problem = self.player_problem(state, move.player)
        if problem is not None:
            return problem
        if move.partial:
            return self.fitting(state, cell, self.seen_faces(move.up))[1]
        o = None
        if self.symbols:
            facing = FACES.index(move.facing) if move.facing in FACES else None
            o = state.cube_set.find(move.up, move.side, facing)
            if o is None:
                return Illegal("impossible-orientation", (
                    f"A {state.cube_set.name} cube cannot show {move.up} up with {move.side} "
                    f"facing {move.facing}."), move.player)
        return self.placement_problem(state, cell, o)

    def player_problem(self, state: EsoloeState, player: int) -> Illegal | None:
        if state.position.counts[player] >= self.allowance[player]:
            return Illegal("no-cubes-left", (
                f"Player {player} has placed all {self.allowance[player]} cubes and has "
                "none left."), player)
        if player != state.to_move:
            return Illegal("wrong-player", (
                f"It is player {state.to_move}'s turn, not player {player}'s."), player)
        return None

    def explain(self, state: EsoloeState, cell: int, cube: Cube) -> tuple[
            Place | None, Illegal | None, Cube | None]:
        """How ``cube`` (faces maybe partly unknown) came onto ``cell``: (move, None,
        known) or (None, why not, None).

        When unknown faces let several legal orientations fit, the move is ``partial``
        (it names only the up face seen) and ``known`` keeps only the faces they all
        share, so that no move names a guess and no line is built on one (see
        ``settled`` for the one exception).
        """
        problem = self.player_problem(state, cube.player)
        if problem is not None:
            return None, problem, None
        if not self.symbols:
            problem = self.placement_problem(state, cell, None)
            if problem is not None:
                return None, problem, None
            return self.place(cube.player, cell, None, None), None, Cube(cube.player, None)
        cube_set = state.cube_set
        legal, problem = self.fitting(state, cell, cube.faces)
        if not legal:
            return None, problem, None
        known = self.settled(state, cell, cube.player, legal)
        if len(legal) == 1 or known == cube_set.orientations[legal[0]]:
            return self.place(cube.player, cell, cube_set, legal[0]), None, known
        return Place(cube.player, self.grid.names[cell], known.face(UP), partial=True), None, known

    def settled(self, state: EsoloeState, cell: int, player: int, legal: list[int]) -> Cube:
        """The cube the state records for a placement that fits the ``legal`` orientations:
        only the faces they all share. The exception: a 4th-level cube is legal only as a
        win, so when the shared faces alone do not show the win, the first legal
        orientation (in the engine's move order) is taken."""
        faces = [state.cube_set.orientations[o] for o in legal]
        known = Cube(player, tuple(faces[0][d] if all(f[d] == faces[0][d] for f in faces)
                                   else None for d in range(6)))
        if len(legal) > 1 and state.position.heights[cell] >= 3 and state.placed(
                cell, known).outcome() is None:
            return Cube(player, faces[0])
        return known

    def fitting(self, state: EsoloeState, cell: int, faces: tuple) -> tuple[
            list[int], Illegal | None]:
        """The legal orientations of the mover's cube on ``cell`` that show ``faces`` (None:
        unknown), and when there is none, why not."""
        cube_set = state.cube_set
        fits = cube_set.matching(faces)
        if not fits:
            return [], Illegal("impossible-cube", (
                f"That cube cannot exist: {cube_set.why_impossible(faces)}."), state.to_move)
        legal, first = [], None
        for o in fits:
            problem = self.placement_problem(state, cell, o)
            if problem is None:
                legal.append(o)
            first = first or problem
        return legal, (None if legal else first)

    @staticmethod
    def seen_faces(up: str | None) -> tuple:
        """The faces of a cube of which only ``up`` (or nothing) was seen."""
        return tuple(up if d == UP else None for d in range(6))

    # -- judging ----------------------------------------------------------------------
    def judge(self, state: EsoloeState, observed: Position) -> Judgement:
        if not isinstance(observed, EsoloePosition) or len(observed.cells) != len(
                self.grid.names):
            raise InvalidPosition("cells", f"not a {self.id} position")
        old = state.position.cells
        added: list[tuple[int, Cube]] = []
        broken: list[int] = []
        for c, (was, now) in enumerate(zip(old, observed.cells, strict=True)):
            if len(now) < len(was) or not all(
                    a.agrees(b) for a, b in zip(was, now[:len(was)], strict=True)):
                broken.append(c)
            else:
                added.extend((c, cube) for cube in now[len(was):])
        actor = state.to_move
        if broken:
            return _violation(self._disturbed(state, observed, broken, actor))
        if not added:
            return Judgement(Judgement.SAME)
        players = {cube.player for _, cube in added}
        if len(added) > 1:
            return _violation(Illegal("one-cube-per-turn", (
                f"{len(added)} cubes appeared; a turn places exactly one cube."),
                players.pop() if len(players) == 1 else actor))
        cell, cube = added[0]
        if state.outcome() is not None:
            none_left = state.position.counts[cube.player] >= self.allowance[cube.player]
            return _violation(self.player_problem(state, cube.player) if none_left else Illegal(
                "game-over", "The game is already over; no more cubes are placed.",
                cube.player))
        move, problem, known = self.explain(state, cell, cube)
        if move is None:
            return _violation(problem)
        after = state.placed(cell, known)
        return Judgement(Judgement.MOVES, (move,), after)

    def _disturbed(self, state: EsoloeState, observed: EsoloePosition, broken: list[int],
                   actor: int | None) -> Illegal:
        """The rule broken when cubes already placed are not where they were."""
        before, after = state.position.counts, observed.counts
        for p in PLAYERS:
            if after[p] < before[p]:
                return Illegal("cube-removed", (
                    f"A cube of player {p} was taken off the board; placed cubes stay."),
                    actor)
        old = state.position.cells
        if all(len(observed.cells[c]) >= len(old[c]) and all(
                a.player == b.player for a, b in zip(old[c], observed.cells[c], strict=False))
                for c in broken):
            names = ", ".join(self.grid.names[c] for c in broken)
            return Illegal("cube-turned", (
                f"A cube already placed on {names} was turned; placed cubes stay as they are."),
                actor)
        return Illegal("cube-moved", (
            "A cube already placed was moved to another place; placed cubes stay."), actor)

    # -- views ------------------------------------------------------------------------
    def views(self, position: EsoloePosition) -> dict[str, tuple[tuple, ...]]:
        """What a person sees from each side: {view: rows of (player, face) or None}.

        Top: rows north to south, columns west to east. Side views (front = from the
        south, back, left = from the west, right): row 0 is the lowest level, columns
        run from the viewer's left to right; nearer cubes hide farther ones.
        """
        out = {}
        for view in _views(self.grid, position.heights):
            rows, cols = view.shape
            grid = []
            for r in range(rows):
                row = []
                for c in range(cols):
                    spot = view.at.get((r, c))
                    cube = position.cells[spot[0]][spot[1]] if spot else None
                    row.append(None if cube is None else (cube.player, cube.face(view.face)))
                grid.append(tuple(row))
            out[view.name] = tuple(grid)
        return out


@lru_cache(maxsize=4096)
def _place(cell: str, player: int, cube_set: CubeSet | None, o: int | None) -> Place:
    if cube_set is None or o is None:
        return Place(player, cell)
    faces = cube_set.orientations[o]
    side, facing = cube_set.reference(faces)
    return Place(player, cell, faces[UP], side, FACES[facing])


@dataclass(frozen=True)
class Line:
    """A line found in a view: which view, what kind, its cubes as (cell, level)."""

    view: str
    kind: str
    spots: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class _Need:
    """A line a new cube completes when it shows ``symbol`` on ``face`` (None: any)."""

    line: Line
    face: int
    symbol: str | None

    def met_by(self, cube: Cube) -> bool:
        return self.symbol is None or cube.face(self.face) == self.symbol


def _violation(illegal: Illegal | None) -> Judgement:
    assert illegal is not None
    return Judgement(Judgement.VIOLATION, illegal=illegal)


def _same_symbol(faces: list[str | None]) -> bool:
    return faces[0] in SYMBOLS and all(f == faces[0] for f in faces)


# --------------------------------------------------------------------------- e-SOLO-e


class Esoloe(EsoloeFamily):
    """e-SOLO-e: 1x5 board, 8 cubes each, stacks of 3 (a 4th only to win), five views."""

    id = "esoloe"
    title = "e-SOLO-e"
    grid = ROW
    allowance = (8, 8)
    rule_options = (
        _CUBE_SET_OPTION,
        RuleOption(
            "standing-set", False, (False, True),
            "False (default): both 3-sets of a two-set win arise in the winning move. "
            "True: a 3-set standing before the move, with the mover's majority, counts "
            "together with one new 3-set.",
        ),
    )

    def placement_problem(self, state: EsoloeState, cell: int, o: int | None) -> Illegal | None:
        p = state.to_move
        if o not in state.cube_set.symbol_up:
            return Illegal("blank-up", "A cube must be placed with a symbol on top, not a "
                           "blank face.", p)
        height = state.position.heights[cell]
        if height < 3 or (height == 3 and self._wins_on(state, cell, o)):
            return None
        return Illegal("fourth-level", "Stacks are at most 3 cubes high; a cube may go on "
                       "the 4th level only when it wins the game.", p)

    def allowed(self, state: EsoloeState, cell: int) -> tuple[int | None, ...]:
        height = state.position.heights[cell]
        if height < 3:
            return state.cube_set.symbol_up
        if height > 3:
            return ()
        return tuple(o for o in state.cube_set.symbol_up if self._wins_on(state, cell, o))

    def _wins_on(self, state: EsoloeState, cell: int, o: int) -> bool:
        """Would the player to move win with orientation ``o`` on ``cell``?"""
        key = ("needs", cell)
        if key not in state.memo:
            state.memo[key] = self._needs(state.position, cell, state.to_move)
        cube = Cube(state.to_move, state.cube_set.orientations[o])
        made = [n.line for n in state.memo[key] if n.met_by(cube)]
        return bool(made) and self._verdict(state.placed(cell, cube), made) is not None

    def evaluate(self, state: EsoloeState) -> Outcome | None:
        won = self.win(state)
        if won is not None:
            return won
        if all(h >= 3 for h in state.position.heights) and not state._moves:
            return Outcome((), "board-full")
        return None

    def _needs(self, position: EsoloePosition, cell: int, mover: int) -> list[_Need]:
        """Every line through the place a new cube of ``mover`` on ``cell`` takes, in
        every view, that this cube can complete: four-colour-line (4 cubes of its
        colour), four-symbol-line (4 same symbols) and three-set (3 same symbols with a
        majority of the mover's colour), each with the face the new cube must show."""
        cells = position.cells
        heights = list(position.heights)
        heights[cell] += 1
        new = (cell, heights[cell] - 1)
        out = []
        for view in _views(self.grid, tuple(heights)):
            place = view.where.get(new)
            for k in (4, 3):
                for line in _lines_through(view.shape, k).get(place, ()):
                    spots = tuple(view.at.get(q) for q in line)
                    if None in spots:
                        continue
                    others = [cells[c][lv] for c, lv in spots if (c, lv) != new]
                    mine = sum(q.player == mover for q in others) + 1
                    faces = {q.face(view.face) for q in others}
                    symbol = faces.pop() if len(faces) == 1 else None
                    if k == 4 and mine == 4:
                        out.append(_Need(Line(view.name, "four-colour-line", spots), view.face,
                                         None))
                    if symbol in SYMBOLS and (k == 4 or mine >= 2):
                        kind = "four-symbol-line" if k == 4 else "three-set"
                        out.append(_Need(Line(view.name, kind, spots), view.face, symbol))
        return out

    def lines_made(self, state: EsoloeState) -> list[Line]:
        """The lines the cube placed last made, in every view (see ``_needs``)."""
        if state.last is None:
            return []
        cells = list(state.position.cells)
        cube = cells[state.last][-1]
        cells[state.last] = cells[state.last][:-1]
        needs = self._needs(EsoloePosition(tuple(cells)), state.last, cube.player)
        return [n.line for n in needs if n.met_by(cube)]

    def win(self, state: EsoloeState) -> Outcome | None:
        """The win the last placement made, if any (see docs/rules/esoloe.md)."""
        made = self.lines_made(state)
        return self._verdict(state, made) if made else None

    def _verdict(self, state: EsoloeState, made: list[Line]) -> Outcome | None:
        """The outcome of the lines ``made`` by the last placement of ``state``."""
        kinds = [line.kind for line in made]
        cells = state.position.cells
        mover = cells[state.last][-1].player
        for kind in ("four-colour-line", "four-symbol-line"):
            if kind in kinds:
                return Outcome((mover,), kind)
        fresh = kinds.count("three-set")
        if fresh == 1 and state.option("standing-set"):
            fresh += self._standing_sets(state, mover, (state.last, len(cells[state.last]) - 1))
        return Outcome((mover,), "two-three-sets") if fresh >= 2 else None

    def _standing_sets(self, state: EsoloeState, mover: int, new: tuple[int, int]) -> int:
        """3-sets with the mover's majority that do not contain the new cube."""
        cells = state.position.cells
        n = 0
        for view in _views(self.grid, state.position.heights):
            for line in _lines(view.shape, 3):
                spots = [view.at.get(q) for q in line]
                if None in spots or new in spots:
                    continue
                three = [cells[c][lv] for c, lv in spots]
                if (_same_symbol([q.face(view.face) for q in three])
                        and sum(q.player == mover for q in three) >= 2):
                    n += 1
        return n


# --------------------------------------------------------------------------- 3x3 games


class _Square(EsoloeFamily):
    grid = SQUARE
    allowance = (4, 5)

    def placement_problem(self, state: EsoloeState, cell: int, o: int | None) -> Illegal | None:
        p = state.to_move
        if state.position.heights[cell]:
            return Illegal("no-stacking", f"In {self.title} a cube goes on a free field, "
                           "never on another cube.", p)
        if o is None:
            return None
        if o not in state.cube_set.symbol_up:
            return Illegal("blank-up", "A cube must be placed with a symbol on top, not a "
                           "blank face.", p)
        return self.adjacency_problem(state, cell, state.cube_set.orientations[o][UP])

    def adjacency_problem(self, state: EsoloeState, cell: int, up: str) -> Illegal | None:
        return None

    def allowed(self, state: EsoloeState, cell: int) -> tuple[int | None, ...]:
        if state.position.heights[cell]:
            return ()
        if not self.symbols:
            return (None,)
        up = [s for s in SYMBOLS if self.adjacency_problem(state, cell, s) is None]
        return tuple(o for o in state.cube_set.symbol_up
                     if state.cube_set.orientations[o][UP] in up)


class EsoloeTicTacToe(_Square):
    """e-SOLO-e TicTacToe: 3x3, no stacking, no cube next to an identical top symbol."""

    id = "esoloe-tictactoe"
    title = "e-SOLO-e TicTacToe"
    rule_options = (
        _CUBE_SET_OPTION,
        RuleOption(
            "adjacency", "orthogonal", ("orthogonal", "diagonal"),
            "Which fields are 'angrenzend' for the placement rule: orthogonal (default; "
            "sharing an edge) or diagonal (sharing an edge or a corner).",
        ),
    )

    def touches_same(self, state: EsoloeState, cell: int, up: str) -> bool:
        """The placement rule: is ``cell`` next to a cube with ``up`` on top?"""
        cells = state.position.cells
        diagonal = state.option("adjacency") == "diagonal"
        return any(cells[n] and cells[n][-1].face(UP) == up
                   for n in self.grid.neighbours(cell, diagonal))

    def adjacency_problem(self, state: EsoloeState, cell: int, up: str) -> Illegal | None:
        if self.touches_same(state, cell, up) and state.compliant_exists:
            return Illegal("adjacent-same-symbol", (
                f"A cube may not be placed next to a cube showing {up} on top while it can "
                "go somewhere else by the rules."), state.to_move)
        return None

    def lines_made(self, state: EsoloeState) -> list[Line]:
        """Every line that wins: three-colour-line and three-symbol-line seen from above,
        side-view-line (3 same faces, blanks too) from any of the four sides."""
        cells = state.position.cells
        out = []
        for view in _views(self.grid, state.position.heights):
            for line in _lines(view.shape, 3):
                spots = tuple(view.at.get(q) for q in line)
                if None in spots:
                    continue
                cubes = [cells[c][lv] for c, lv in spots]
                faces = [q.face(view.face) for q in cubes]
                if view.name == "top":
                    if len({q.player for q in cubes}) == 1:
                        out.append(Line(view.name, "three-colour-line", spots))
                    if _same_symbol(faces):
                        out.append(Line(view.name, "three-symbol-line", spots))
                elif faces[0] is not None and all(f == faces[0] for f in faces):
                    out.append(Line(view.name, "side-view-line", spots))
        return out

    def evaluate(self, state: EsoloeState) -> Outcome | None:
        made = self.lines_made(state)
        if made:
            cells = state.position.cells
            mover = cells[state.last][-1].player
            order = ("three-colour-line", "three-symbol-line", "side-view-line")
            line = min(made, key=lambda found: order.index(found.kind))
            if line.kind == "three-colour-line":
                return Outcome((cells[line.spots[0][0]][0].player,), line.kind)
            return Outcome((mover,), line.kind)
        if state.to_move is None:
            return Outcome((), "board-full")
        return None


class Esoloe3andC(_Square):
    """e-SOLO-e 3andC: 3x3, only colours count; lines of 3, else points, else blue."""

    id = "esoloe-3andc"
    title = "e-SOLO-e 3andC"
    symbols = False
    rule_options = (
        _CUBE_SET_OPTION,
        RuleOption(
            "board", "default",
            _BoardChoices(("default", "<path to a .json board file>")),
            "The points (black dots) and the 3 blue fields: default (the shipped "
            "rules/data/3andc-board.json, an invented board) or a path to such a file.",
        ),
    )

    def lines_made(self, state: EsoloeState) -> list[Line]:
        """Every line of 3 cubes of one colour (seen from above)."""
        cells = state.position.cells
        top = _views(self.grid, state.position.heights)[0]
        out = []
        for line in _lines(top.shape, 3):
            spots = tuple(top.at.get(q) for q in line)
            if None not in spots and len({cells[c][0].player for c, _ in spots}) == 1:
                out.append(Line("top", "three-colour-line", spots))
        return out

    def evaluate(self, state: EsoloeState) -> Outcome | None:
        cells = state.position.cells
        made = self.lines_made(state)
        if made:
            return Outcome((cells[made[0].spots[0][0]][0].player,), made[0].kind)
        if state.to_move is not None:
            return None
        board = state.board
        assert board is not None
        for condition, value in (("points", board.points),
                                 ("blue-fields", [int(c in board.blue) for c in range(9)])):
            score = [0, 0]
            for c, stack in enumerate(cells):
                for cube in stack:
                    score[cube.player] += value[c]
            if score[0] != score[1]:
                return Outcome((0 if score[0] > score[1] else 1,), condition)
        return Outcome((), "tie")
