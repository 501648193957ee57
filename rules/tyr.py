"""Tyr 3 gewinnt (Michael Winkelmann): bring Miwin's three dice into a line on a 9x9 board.

Rules, readings of the open points, notation and rule ids: docs/rules/tyr.md.

The players (2 to 4, in turn) first place the three dice one by one (no two tops equal),
then move them: the top number n of a die names the row and the column it may move to,
along one of the eight straight lines through its field; after the move the die is turned
to any other number. The die moved last may not move next. A move that makes a double
(two tops equal) obliges the same player to move the other die of the double, up to three
moves a turn. Whoever brings the three dice into one line (row, column, diagonal) wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache, cached_property
from itertools import permutations
from typing import Any

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
from rules.miwin import BY_COLOUR, COLOURS, DICE

Cell = tuple[int, int]
SIZE = 9
MAX_MOVES_A_TURN = 3
LINES8 = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cell_text(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


def _on_board(r: int, c: int) -> bool:
    return 1 <= r <= SIZE and 1 <= c <= SIZE


@cache
def targets(cell: Cell, top: int) -> tuple[Cell, ...]:
    """The target fields of a die showing ``top`` on ``cell`` on an empty board.

    The fields of row ``top`` or column ``top`` that lie on one of the eight straight
    lines through ``cell`` (rules-facts.md: a 2 on [1,1] has [1,2], [2,2] and [2,1]).
    """
    r0, c0 = cell
    out = []
    for dr, dc in LINES8:
        r, c = r0 + dr, c0 + dc
        while _on_board(r, c):
            if r == top or c == top:
                out.append((r, c))
            r, c = r + dr, c + dc
    return tuple(sorted(out))


def between(a: Cell, b: Cell) -> tuple[Cell, ...]:
    """The fields strictly between two fields on one straight line."""
    dr, dc = b[0] - a[0], b[1] - a[1]
    n = max(abs(dr), abs(dc))
    step = (dr // n, dc // n) if n else (0, 0)
    return tuple((a[0] + k * step[0], a[1] + k * step[1]) for k in range(1, n))


def in_line(cells: tuple[Cell, ...], adjacent: bool) -> bool:
    """True when the three fields lie on one row, column or diagonal.

    With ``adjacent`` they must also stand next to each other (no gap).
    """
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    if len(cells) != 3 or len(set(cells)) != 3:
        return False
    straight = (
        len(rows) == 1 or len(cols) == 1
        or len({r - c for r, c in cells}) == 1 or len({r + c for r, c in cells}) == 1
    )
    if not straight or not adjacent:
        return straight
    span = max(max(rows) - min(rows), max(cols) - min(cols))
    return span == 2


# --------------------------------------------------------------------------- position


@dataclass(frozen=True)
class TyrPosition(Position):
    """The dice in the order blue, red, black: cell (None beside the board) and top.

    The top of a die beside the board does not count and is kept as None.
    """

    cells: tuple[Cell | None, Cell | None, Cell | None]
    tops: tuple[int | None, int | None, int | None]

    def to_json(self) -> dict[str, Any]:
        return {"dice": {
            colour: {"top": top, "cell": list(cell) if cell else None}
            for colour, cell, top in zip(COLOURS, self.cells, self.tops, strict=True)
        }}

    @property
    def placed(self) -> tuple[int, ...]:
        return tuple(i for i, c in enumerate(self.cells) if c is not None)

    def at(self, cell: Cell) -> int | None:
        """Index of the die on ``cell``, or None."""
        return self.cells.index(cell) if cell in self.cells else None

    def with_die(self, i: int, cell: Cell, top: int) -> TyrPosition:
        cells, tops = list(self.cells), list(self.tops)
        cells[i], tops[i] = cell, top
        return TyrPosition(tuple(cells), tuple(tops))


def parse_position(data: Any) -> TyrPosition:
    """Validate an observation's Tyr ``position``; InvalidPosition names the key."""
    root = PathBuilder()
    if not isinstance(data, Mapping):
        raise root.fail("a Tyr position is an object with 'dice'")
    if "dice" not in data:
        raise (root / "dice").fail("missing")
    dice = data["dice"]
    if not isinstance(dice, Mapping):
        raise (root / "dice").fail("an object with the dice blue, red and black")
    cells: list[Cell | None] = []
    tops: list[int | None] = []
    for die in DICE:
        where = root / "dice" / die.colour
        entry = dice.get(die.colour)
        if entry is None:
            raise where.fail("missing")
        if not isinstance(entry, Mapping):
            raise where.fail("an object with 'top' and 'cell'")
        for key in ("top", "cell"):
            if key not in entry:
                raise (where / key).fail("missing")
        cell, top = entry["cell"], entry["top"]
        if cell is None:
            cells.append(None)
            tops.append(None)
            continue
        if (not isinstance(cell, list | tuple) or len(cell) != 2
                or not all(_int(x) and 1 <= x <= SIZE for x in cell)):
            raise (where / "cell").fail(
                f"{cell!r} is not a field: [row, column], each 1..9, or null beside the board")
        if not die.has(top):
            raise (where / "top").fail(
                f"{top!r} is not a face of the {die.colour} die ({die.faces_text})")
        cell = (cell[0], cell[1])
        if cell in cells:
            other = COLOURS[cells.index(cell)]
            raise (where / "cell").fail(
                f"the {other} die already stands on {_cell_text(cell)}")
        cells.append(cell)
        tops.append(top)
    return TyrPosition(tuple(cells), tuple(tops))


# --------------------------------------------------------------------------- moves


def _check_die(die: str) -> None:
    if die not in BY_COLOUR:
        raise InvalidMove(f"{die!r} is not a die (blue, red or black)")


def _check_cell(cell: Any) -> None:
    if (not isinstance(cell, tuple) or len(cell) != 2
            or not all(_int(x) and 1 <= x <= SIZE for x in cell)):
        raise InvalidMove(f"{cell!r} is not a field (row, column), each 1..9")


def _check_top(die: str, top: Any) -> None:
    if not BY_COLOUR[die].has(top):
        d = BY_COLOUR[die]
        raise InvalidMove(f"{top!r} is not a face of the {die} die ({d.faces_text})")


@dataclass(frozen=True)
class Place(Move):
    """Set a die on the board during the placement: notation ``blue @4,7/5``."""

    die: str
    cell: Cell
    top: int

    def __post_init__(self) -> None:
        _check_die(self.die)
        _check_cell(self.cell)
        _check_top(self.die, self.top)

    def notation(self) -> str:
        return f"{self.die} @{_cell_text(self.cell)}/{self.top}"


@dataclass(frozen=True)
class Shift(Move):
    """Move a die and turn it: notation ``blue 4,7-2,7/5`` (from, to, new top)."""

    die: str
    frm: Cell
    to: Cell
    top: int

    def __post_init__(self) -> None:
        _check_die(self.die)
        _check_cell(self.frm)
        _check_cell(self.to)
        _check_top(self.die, self.top)

    def notation(self) -> str:
        return f"{self.die} {_cell_text(self.frm)}-{_cell_text(self.to)}/{self.top}"


_CELL = r"(\d)\s*,\s*(\d)"
_PLACE = re.compile(rf"([a-z]+)\s*@\s*{_CELL}\s*/\s*(\d)", re.IGNORECASE)
_SHIFT = re.compile(rf"([a-z]+)\s+{_CELL}\s*-\s*{_CELL}\s*/\s*(\d)", re.IGNORECASE)


def parse_move(text: str) -> Move:
    """``blue @4,7/5`` (placement) or ``blue 4,7-2,7/5`` (move); raises InvalidMove."""
    if not isinstance(text, str):
        raise InvalidMove(f"a move is text, not {type(text).__name__}")
    if m := _PLACE.fullmatch(text.strip()):
        return Place(m[1].lower(), (int(m[2]), int(m[3])), int(m[4]))
    if m := _SHIFT.fullmatch(text.strip()):
        return Shift(m[1].lower(), (int(m[2]), int(m[3])), (int(m[4]), int(m[5])), int(m[6]))
    raise InvalidMove(
        f"{text!r} is not a Tyr move: 'blue @4,7/5' (place blue on row 4, column 7 with "
        "5 up) or 'blue 4,7-2,7/5' (move blue from 4,7 to 2,7 and turn it to 5)")


# --------------------------------------------------------------------------- options

OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "pass_over", True, (True, False),
        "A die may pass over another on its way to a target field (false: a die in "
        "between blocks the way)."),
    RuleOption(
        "line", "any", ("any", "adjacent"),
        "'any': three dice on one row, column or diagonal win, gaps allowed; 'adjacent': "
        "they must stand next to each other."),
    RuleOption(
        "placement_win", True, (True, False),
        "A line made by placing the third die wins (false: it does not count and the "
        "game goes on)."),
)

# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class TyrState(State):
    """The dice plus what the table does not show: whose turn, the die moved last, the
    dice one of which must move next to resolve a double, the moves made this turn, and
    the winner once someone has made a line."""

    position: TyrPosition
    options: tuple[tuple[str, Any], ...] = resolve_options(OPTIONS, None)
    n_players: int = 2
    player: int = 0
    last: int | None = None
    pending: frozenset[int] = frozenset()
    moves_in_turn: int = 0
    winner: int | None = None

    @property
    def turn(self) -> int | None:
        return None if self.outcome() is not None else self.player

    @property
    def placing(self) -> bool:
        return len(self.position.placed) < 3

    def outcome(self) -> Outcome | None:
        if self.winner is not None:
            return Outcome((self.winner,), "three-in-a-line")
        if not self.placing and next(self._destinations(), None) is None:
            return Outcome((), "no-legal-move")
        return None

    # -- rules ----------------------------------------------------------------------
    def why_illegal(self, move: Move) -> Illegal | None:
        if self.winner is not None:
            return Illegal("game-over", "The game is already over.")
        if isinstance(move, Place):
            return self._place_illegal(move)
        if isinstance(move, Shift):
            return self._shift_illegal(move)
        return Illegal("not-a-move", f"{move!r} is not a Tyr move.")

    def _place_illegal(self, move: Place) -> Illegal | None:
        pos, p = self.position, self.player
        i = COLOURS.index(move.die)
        if pos.cells[i] is not None:
            return Illegal("already-placed", (
                f"The {move.die} die is already on the board: the three dice are placed "
                "once, then moved."), p)
        if pos.at(move.cell) is not None:
            return Illegal("cell-occupied", (
                f"Field {_cell_text(move.cell)} is taken by the "
                f"{COLOURS[pos.at(move.cell)]} die."), p)
        if move.top in pos.tops:
            return Illegal("placement-double", (
                f"While the dice are being placed no two may show the same number: "
                f"{move.top} is up already."), p)
        return None

    def _shift_illegal(self, move: Shift) -> Illegal | None:
        pos, p = self.position, self.player
        i = COLOURS.index(move.die)
        if self.placing:
            return Illegal("place-first", (
                "All three dice must be placed before a die moves."), p)
        if pos.cells[i] != move.frm:
            return Illegal("die-not-there", (
                f"The {move.die} die stands on {_cell_text(pos.cells[i])}, not on "
                f"{_cell_text(move.frm)}."), p)
        if self.pending and i not in self.pending:
            names = " or ".join(COLOURS[j] for j in sorted(self.pending))
            return Illegal("resolve-double", (
                f"Two dice show {pos.tops[min(self.pending)]}: the double must be resolved "
                f"by moving the {names} die."), p)
        if i == self.last:
            return Illegal("change-die", (
                f"The {move.die} die moved last: the next move must be with another die."), p)
        top = pos.tops[i]
        if move.to not in targets(move.frm, top):
            return Illegal("target-field", (
                f"The {move.die} die shows {top}: from {_cell_text(move.frm)} it may only "
                f"move along a straight line to row {top} or column {top}, not to "
                f"{_cell_text(move.to)}."), p)
        if pos.at(move.to) is not None:
            return Illegal("cell-occupied", (
                f"Field {_cell_text(move.to)} is taken by the "
                f"{COLOURS[pos.at(move.to)]} die."), p)
        if not self.option("pass_over"):
            block = next((c for c in between(move.frm, move.to) if pos.at(c) is not None),
                         None)
            if block is not None:
                return Illegal("pass-over", (
                    f"The {COLOURS[pos.at(block)]} die on {_cell_text(block)} blocks the "
                    "way: dice may not pass over each other."), p)
        if move.top == top:
            return Illegal("turn-top", (
                f"After its move the {move.die} die must be turned to another number "
                f"than {top}."), p)
        return None

    def generate_moves(self) -> Iterator[Move]:
        return iter(self._moves)

    @cached_property
    def _moves(self) -> tuple[Move, ...]:
        if self.winner is not None:
            return ()
        pos = self.position
        if self.placing:
            free = [(r, c) for r in range(1, SIZE + 1) for c in range(1, SIZE + 1)
                    if pos.at((r, c)) is None]
            return tuple(
                Place(d.colour, cell, top)
                for i, d in enumerate(DICE) if pos.cells[i] is None
                for cell in free for top in d.faces if top not in pos.tops)
        return tuple(
            Shift(COLOURS[i], pos.cells[i], to, t)
            for i, to in self._destinations() for t in DICE[i].faces if t != pos.tops[i])

    def count_moves(self) -> int:
        """``len(self.legal_moves)`` without making the moves (for perft)."""
        if self.winner is not None:
            return 0
        pos = self.position
        if self.placing:
            free = SIZE * SIZE - len(pos.placed)
            return free * sum(len(set(d.faces) - set(pos.tops))
                              for i, d in enumerate(DICE) if pos.cells[i] is None)
        return 5 * sum(1 for _ in self._destinations())  # any of the 5 other numbers

    def _destinations(self) -> Iterator[tuple[int, Cell]]:
        """(die, field) for every legal move before its turning."""
        pos = self.position
        movers = self.pending or frozenset(pos.placed) - {self.last}
        for i in sorted(movers):
            frm = pos.cells[i]
            for to in targets(frm, pos.tops[i]):
                if pos.at(to) is not None:
                    continue
                if not self.option("pass_over") and any(
                        pos.at(c) is not None for c in between(frm, to)):
                    continue
                yield i, to

    def _apply(self, move: Move) -> TyrState:
        pos, p = self.position, self.player
        i = COLOURS.index(move.die)
        cell = move.cell if isinstance(move, Place) else move.to
        after = pos.with_die(i, cell, move.top)
        nxt = (p + 1) % self.n_players
        lined = len(after.placed) == 3 and in_line(after.cells,
                                                   self.option("line") == "adjacent")
        if lined and (isinstance(move, Shift) or self.option("placement_win")):
            return replace(self, position=after, last=i, pending=frozenset(), winner=p)
        if isinstance(move, Place):
            return replace(self, position=after, last=i, player=nxt, moves_in_turn=0)
        doubles = frozenset(j for j in after.placed if j != i and after.tops[j] == move.top)
        made = self.moves_in_turn + 1
        if doubles and made < MAX_MOVES_A_TURN:
            return replace(self, position=after, last=i, pending=doubles, moves_in_turn=made)
        # A third move cannot make a double: that would need a number on all three dice,
        # and Miwin's dice have none in common (docs/rules/tyr.md). ``doubles`` is empty.
        return replace(self, position=after, last=i, pending=doubles, player=nxt,
                       moves_in_turn=0)


# --------------------------------------------------------------------------- game


def _violation(rule: str, message: str, player: int | None) -> Judgement:
    return Judgement(Judgement.VIOLATION, illegal=Illegal(rule, message, player))


class Tyr(Game):
    id = "tyr"
    title = "Tyr 3 gewinnt"
    min_players = 2
    max_players = 4
    rule_options = OPTIONS

    def initial_state(
        self, options: Mapping[str, Any] | None = None, n_players: int = 2
    ) -> TyrState:
        if not self.min_players <= n_players <= self.max_players:
            raise InvalidPosition("player_names", "Tyr 3 gewinnt is for 2 to 4 players")
        empty = TyrPosition((None, None, None), (None, None, None))
        return TyrState(empty, resolve_options(OPTIONS, options), n_players)

    def position_from_json(
        self, data: Any, options: Mapping[str, Any] | None = None
    ) -> TyrPosition:
        return parse_position(data)

    def state_from_position(
        self, position: Position, options: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> TyrState:
        """Placement: the players place in turn from player 0. Later the history is
        unknown: player ``extra["turn"]`` (default 0) moves, any die may move, and a
        double on the board must be resolved first."""
        assert isinstance(position, TyrPosition)
        extra = extra or {}
        names = extra.get("player_names")
        n = len(names) if isinstance(names, list | tuple) else 2
        state = self.initial_state(options, n)
        placed = position.placed
        tops = [position.tops[i] for i in placed]
        if len(placed) < 3:
            if len(set(tops)) < len(tops):
                raise InvalidPosition("dice", (
                    "two dice show the same number before all three are placed"))
            return replace(state, position=position, player=len(placed) % n)
        if in_line(position.cells, state.option("line") == "adjacent"):
            raise InvalidPosition("dice", "the three dice stand in a line: that game is over")
        turn = extra.get("turn", 0)
        if not _int(turn) or not 0 <= turn < n:
            raise InvalidPosition("turn", f"{turn!r} is not a player (0..{n - 1})")
        doubles = frozenset(i for i in placed if tops.count(position.tops[i]) > 1)
        return replace(state, position=position, player=turn, pending=doubles)

    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    # -- judging ----------------------------------------------------------------------
    def judge(self, state: TyrState, observed: Position) -> Judgement:
        assert isinstance(observed, TyrPosition)
        ref = state.position
        if observed == ref:
            return Judgement(Judgement.SAME)
        if state.outcome() is not None:
            return _violation("game-over", "The game is already over.", None)
        p = state.player
        changed = [i for i in range(3)
                   if (ref.cells[i], ref.tops[i]) != (observed.cells[i], observed.tops[i])]
        for i in changed:
            if ref.cells[i] is not None and observed.cells[i] is None:
                return _violation("die-left-board", (
                    f"The {COLOURS[i]} die must stay on the board."), p)
            if ref.cells[i] == observed.cells[i]:
                return _violation("move-then-turn", (
                    f"The {COLOURS[i]} die was turned without moving: first move a die to "
                    "a target field, then turn it."), p)
        found = []
        for order in permutations(changed):
            result = _explain(state, order, observed)
            if isinstance(result, Illegal):
                if len(changed) == 1:
                    return Judgement(Judgement.VIOLATION, illegal=result)
                continue
            found.append(result)
        one_turn = [f for f in found if f[2]]
        if len(found) == 1 or len(one_turn) == 1:
            moves, after, _, in_progress = (found if len(found) == 1 else one_turn)[0]
            if in_progress:
                return Judgement(Judgement.IN_PROGRESS)
            return Judgement(Judgement.MOVES, tuple(moves), after)
        names = " and ".join(COLOURS[i] for i in changed)
        why = ("no order of legal moves explains it" if not found
               else "it cannot be told in which order they moved")
        return _violation("one-move-at-a-time", (
            f"The {names} dice changed at once and {why}: move one die at a time."), p)


def _explain(
    state: TyrState, order: tuple[int, ...], seen: TyrPosition
) -> Illegal | tuple[list[Move], TyrState, bool, bool]:
    """Moves taking ``state`` to ``seen``, each changed die once in ``order``.

    Returns (moves, state after them, whether one player made them all, whether the
    last die is still to be turned), or the rule the first illegal step breaks.
    """
    s, moves, players = state, [], set()
    for k, i in enumerate(order):
        colour, cell, top = COLOURS[i], seen.cells[i], seen.tops[i]
        frm = s.position.cells[i]
        players.add(s.player)
        if frm is None:
            move: Move = Place(colour, cell, top)
        elif top == s.position.tops[i] and k == len(order) - 1:
            # moved but not yet turned: legal so far when a turn to any number would be
            probe = Shift(colour, frm, cell, next(t for t in DICE[i].faces if t != top))
            illegal = s.why_illegal(probe)
            if illegal is not None:
                return illegal
            return moves, s, len(players) == 1, True
        else:
            move = Shift(colour, frm, cell, top)
        illegal = s.why_illegal(move)
        if illegal is not None:
            return illegal
        s = s._apply(move)
        moves.append(move)
    return moves, s, len(players) == 1, False
