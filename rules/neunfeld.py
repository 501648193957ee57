"""Neunfeld (Michael Winkelmann): two pawns race across a 1x9 board past Miwin's dice.

Rules, readings of the open points, notation and rule ids: docs/rules/neunfeld.md.

Player 0 is A (starts off the board at 0, must reach field 9), player 1 is B (starts at
10, must reach field 1). The game opens with a roll of the three dice until a player has
a five; that player takes all three dice and starts. A turn: tip one of the dice you
hold, keep it, push the others to your opponent (tops unchanged), then move your pawn
1, 2 or 3 fields forward or back onto a field whose number shows on no die and where the
opponent's pawn does not stand. Whoever reaches the far end wins; whoever cannot move
loses; a position seen three times is a draw (``Board``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
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

PLAYERS = "AB"
START = (0, 10)  # off the board, A's and B's
GOAL = (9, 1)  # the far end, A's and B's
STEPS = (1, 2, 3)

#: How many plies ahead ``Neunfeld.forced_win`` (the referee's announcement) looks: 2
#: costs about 25 ms a position on average (worst about 130 ms) on the dev machine;
#: 3 would cost about 190 ms on average and up to a second.
FORCED_WIN_DEPTH = 2


def _name(player: int) -> str:
    return PLAYERS[player]


# --------------------------------------------------------------------------- position


@dataclass(frozen=True)
class NeunfeldPosition(Position):
    """Pawns (A's, B's), and the dice in the order blue, red, black: tops and holders."""

    pawns: tuple[int, int]
    tops: tuple[int, int, int]
    holders: tuple[int | None, int | None, int | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "pawns": list(self.pawns),
            "dice": {
                c: {"top": t, "holder": h}
                for c, t, h in zip(COLOURS, self.tops, self.holders, strict=True)
            },
        }

    @property
    def in_opening(self) -> bool:
        """True while the opening roll goes on: no die lies before a player yet."""
        return all(h is None for h in self.holders)

    def held_by(self, player: int) -> tuple[int, ...]:
        """Indices (0 blue, 1 red, 2 black) of the dice lying before ``player``."""
        return tuple(i for i, h in enumerate(self.holders) if h == player)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_position(data: Any) -> NeunfeldPosition:
    """Validate an observation's Neunfeld ``position``; InvalidPosition names the key."""
    root = PathBuilder()
    if not isinstance(data, Mapping):
        raise root.fail("a Neunfeld position is an object with 'pawns' and 'dice'")
    for key in ("pawns", "dice"):
        if key not in data:
            raise (root / key).fail("missing")
    pawns = data["pawns"]
    if not isinstance(pawns, list | tuple) or len(pawns) != 2:
        raise (root / "pawns").fail("a list of two fields, A's pawn then B's")
    for i, f in enumerate(pawns):
        if not _int(f) or not 0 <= f <= 10:
            raise (root / "pawns" / i).fail(
                f"{f!r} is not a field: 0 (A's start), 1..9 or 10 (B's start)")
    if pawns[0] == pawns[1]:
        raise (root / "pawns").fail(f"both pawns stand on field {pawns[0]}")
    dice = data["dice"]
    if not isinstance(dice, Mapping):
        raise (root / "dice").fail("an object with the dice blue, red and black")
    tops, holders = [], []
    for die in DICE:
        where = root / "dice" / die.colour
        entry = dice.get(die.colour)
        if entry is None:
            raise where.fail("missing")
        if not isinstance(entry, Mapping):
            raise where.fail("an object with 'top' and 'holder'")
        for key in ("top", "holder"):
            if key not in entry:
                raise (where / key).fail("missing")
        top, holder = entry["top"], entry["holder"]
        if not die.has(top):
            raise (where / "top").fail(
                f"{top!r} is not a face of the {die.colour} die ({die.faces_text})")
        if holder is not None and (not _int(holder) or holder not in (0, 1)):
            raise (where / "holder").fail(
                f"{holder!r} is not a player: 0 (A), 1 (B) or null (opening roll)")
        tops.append(top)
        holders.append(holder)
    return NeunfeldPosition((pawns[0], pawns[1]), tuple(tops), tuple(holders))


# --------------------------------------------------------------------------- moves


@dataclass(frozen=True)
class Opening(Move):
    """The opening roll's result: ``starter`` rolled a five and took the dice as they lie.

    Notation ``opening A 1 5 2``: the starter, then the tops of blue, red and black.
    """

    starter: int
    tops: tuple[int, int, int]

    def __post_init__(self) -> None:
        if self.starter not in (0, 1):
            raise InvalidMove(f"{self.starter!r} is not a player (0 = A, 1 = B)")
        if len(self.tops) != 3:
            raise InvalidMove("an opening names the tops of blue, red and black")
        for die, top in zip(DICE, self.tops, strict=True):
            if not die.has(top):
                raise InvalidMove(
                    f"{top!r} is not a face of the {die.colour} die ({die.faces_text})")

    def notation(self) -> str:
        return f"opening {_name(self.starter)} {' '.join(str(t) for t in self.tops)}"


@dataclass(frozen=True)
class Turn(Move):
    """One turn: tip ``die`` so that ``top`` comes up, push the others, pawn to ``to``.

    Notation ``blue:7 @3`` (tip blue to 7, pawn to field 3).
    """

    die: str
    top: int
    to: int

    def __post_init__(self) -> None:
        if self.die not in BY_COLOUR:
            raise InvalidMove(f"{self.die!r} is not a die (blue, red or black)")
        if not BY_COLOUR[self.die].has(self.top):
            die = BY_COLOUR[self.die]
            raise InvalidMove(f"{self.top!r} is not a face of the {die.colour} die "
                              f"({die.faces_text})")
        if not _int(self.to) or not 0 <= self.to <= 10:
            raise InvalidMove(f"{self.to!r} is not a field (0..10)")

    def notation(self) -> str:
        return f"{self.die}:{self.top} @{self.to}"


_OPENING = re.compile(r"opening\s+([ab])\s+(\d)\s+(\d)\s+(\d)", re.IGNORECASE)
_TURN = re.compile(r"([a-z]+)\s*:\s*(\d)\s*@\s*(\d{1,2})", re.IGNORECASE)


def parse_move(text: str) -> Move:
    """``opening A 1 5 2`` or ``blue:7 @3``; raises InvalidMove."""
    if not isinstance(text, str):
        raise InvalidMove(f"a move is text, not {type(text).__name__}")
    if m := _OPENING.fullmatch(text.strip()):
        return Opening(PLAYERS.index(m[1].upper()), (int(m[2]), int(m[3]), int(m[4])))
    if m := _TURN.fullmatch(text.strip()):
        return Turn(m[1].lower(), int(m[2]), int(m[3]))
    raise InvalidMove(
        f"{text!r} is not a Neunfeld move: 'blue:7 @3' (tip blue to 7, pawn to field 3) "
        "or 'opening A 1 5 2'")


# --------------------------------------------------------------------------- options

OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "strict", False, (False, True),
        "Rule 5, the strict variant: while the pawns face each other on the board, at "
        "least one free field must stay between them."),
    RuleOption(
        "return_to_start", False, (False, True),
        "A pawn may move back off the board onto its own start (0 for A, 10 for B)."),
)

# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class NeunfeldState(State):
    """Everything the rules need is on the table: the mover is whoever holds two or
    three dice. Equality is the position's (and the options'), which is what threefold
    repetition compares."""

    position: NeunfeldPosition
    options: tuple[tuple[str, Any], ...] = resolve_options(OPTIONS, None)

    @property
    def mover(self) -> int:
        """The player on turn (0 by convention during the opening roll)."""
        if self.position.in_opening:
            return 0
        return 0 if len(self.position.held_by(0)) >= 2 else 1

    @property
    def turn(self) -> int | None:
        return None if self.outcome() is not None else self.mover

    # -- rules ----------------------------------------------------------------------
    def _pawn_illegal(self, player: int, to: int, tops: tuple[int, ...]) -> Illegal | None:
        """Why ``player``'s pawn may not go to ``to`` with the dice showing ``tops``."""
        pawns = self.position.pawns
        here, other = pawns[player], pawns[1 - player]
        who = _name(player)
        if abs(to - here) not in STEPS:
            return Illegal("pawn-one-to-three", (
                f"{who}'s pawn must move 1, 2 or 3 fields, not {abs(to - here)} "
                f"(from {here} to {to})."), player)
        on_board = 1 <= to <= 9 or (self.option("return_to_start") and to == START[player])
        if not on_board:
            return Illegal("stay-on-board", (
                f"{who}'s pawn must stay on the fields 1 to 9"
                + (f" or go back to its start {START[player]}"
                   if self.option("return_to_start") else "")
                + f"; {to} is not allowed."), player)
        if to == other:
            return Illegal("opponent-field", (
                f"{who} may not move onto field {to}: {_name(1 - player)}'s pawn stands "
                "there."), player)
        if to in tops:
            return Illegal("forbidden-field", (
                f"{who} may not move onto field {to}: a die shows {to}."), player)
        if self.option("strict"):
            a, b = (to, other) if player == 0 else (other, to)
            if 1 <= a < b <= 9 and b - a < 2:
                return Illegal("strict-gap", (
                    "Strict variant: while the pawns face each other, at least one free "
                    f"field must stay between them; {who} may not move to {to}."), player)
        return None

    def why_illegal(self, move: Move) -> Illegal | None:
        pos = self.position
        if self.outcome() is not None:
            return Illegal("game-over", "The game is already over.")
        if pos.in_opening:
            if not isinstance(move, Opening):
                return Illegal("opening-roll-first", (
                    "The opening roll comes first: roll the three dice until a player has "
                    "a five; that player takes all three dice and starts."))
            if 5 not in move.tops:
                return Illegal("opening-five", (
                    f"{_name(move.starter)} may start only after rolling a five; roll "
                    "again."), move.starter)
            return None
        if not isinstance(move, Turn):
            return Illegal("opening-over", "The opening roll is over; the game is on.")
        p = self.mover
        i = COLOURS.index(move.die)
        die = DICE[i]
        if pos.holders[i] != p:
            return Illegal("tip-held-die", (
                f"{_name(p)} may tip only a die lying before {_name(p)}; the {move.die} die "
                f"lies before {_name(1 - p)}."), p)
        old = pos.tops[i]
        if not die.can_tip(old, move.top):
            return Illegal("tip-side-face", (
                f"A tip brings up one of the four side faces: the {move.die} die showing "
                f"{old} can show {', '.join(map(str, sorted(die.side_faces(old))))}, "
                f"not {move.top}."), p)
        tops = pos.tops[:i] + (move.top,) + pos.tops[i + 1:]
        return self._pawn_illegal(p, move.to, tops)

    def generate_moves(self) -> Iterator[Move]:
        return iter(self._moves)

    @cached_property
    def _moves(self) -> tuple[Move, ...]:
        pos = self.position
        if pos.in_opening:
            return tuple(
                Opening(p, (b, r, k))
                for p in (0, 1) for b in DICE[0].faces for r in DICE[1].faces
                for k in DICE[2].faces if 5 in (b, r, k))
        if self._finished is not None:
            return ()
        p = self.mover
        here = pos.pawns[p]
        moves = []
        for i in pos.held_by(p):
            die = DICE[i]
            for top in sorted(die.side_faces(pos.tops[i])):
                tops = pos.tops[:i] + (top,) + pos.tops[i + 1:]
                for to in sorted(here + s * d for s in STEPS for d in (-1, 1)):
                    if 0 <= to <= 10 and self._pawn_illegal(p, to, tops) is None:
                        moves.append(Turn(die.colour, top, to))
        return tuple(moves)

    @cached_property
    def _finished(self) -> Outcome | None:
        """A pawn at its far end (history-free, before asking for moves)."""
        for p in (0, 1):
            if self.position.pawns[p] == GOAL[p]:
                return Outcome((p,), "reached-far-end")
        return None

    def outcome(self) -> Outcome | None:
        if self.position.in_opening:
            return None
        if self._finished is not None:
            return self._finished
        if not self._moves:
            return Outcome((1 - self.mover,), "cannot-move")
        return None

    def _apply(self, move: Move) -> NeunfeldState:
        pos = self.position
        if isinstance(move, Opening):
            return replace(self, position=NeunfeldPosition(
                pos.pawns, move.tops, (move.starter,) * 3))
        assert isinstance(move, Turn)
        p, i = self.mover, COLOURS.index(move.die)
        tops = pos.tops[:i] + (move.top,) + pos.tops[i + 1:]
        holders = tuple(p if j == i else 1 - p for j in range(3))
        pawns = (move.to, pos.pawns[1]) if p == 0 else (pos.pawns[0], move.to)
        return replace(self, position=NeunfeldPosition(pawns, tops, holders))


# --------------------------------------------------------------------------- search


def forced_win(state: NeunfeldState, depth: int) -> tuple[int, tuple[Move, ...]] | None:
    """A player who wins within ``depth`` plies whatever the other does, with a line.

    The line is the shortest win against the longest defence. Returns None when neither
    player can force a win so soon (or during the opening roll, which is chance).
    Repetition draws (history) are not considered.
    """
    if state.position.in_opening:
        return None
    memo: dict[tuple[NeunfeldState, int, int], tuple[Move, ...] | None] = {}

    def force(s: NeunfeldState, player: int, d: int) -> tuple[Move, ...] | None:
        key = (s, player, d)
        if key in memo:
            return memo[key]
        out = s.outcome()
        if out is not None:
            line = () if out.winners == (player,) else None
        elif d == 0:
            line = None
        elif s.mover == player:
            line = next((
                (m, *rest) for m in s.legal_moves
                if (rest := force(s._apply(m), player, d - 1)) is not None), None)
        else:
            line = ()
            for m in s.legal_moves:
                rest = force(s._apply(m), player, d - 1)
                if rest is None:
                    line = None
                    break
                if not line or len(rest) + 1 > len(line):
                    line = (m, *rest)
        memo[key] = line
        return line

    for d in range(depth + 1):
        for player in (state.mover, 1 - state.mover):
            line = force(state, player, d)
            if line is not None:
                return player, line
    return None


# --------------------------------------------------------------------------- game


def _violation(rule: str, message: str, player: int | None) -> Judgement:
    return Judgement(Judgement.VIOLATION, illegal=Illegal(rule, message, player))


class Neunfeld(Game):
    id = "neunfeld"
    title = "Neunfeld"
    rule_options = OPTIONS
    repetition_draw = 3

    def initial_state(
        self, options: Mapping[str, Any] | None = None, n_players: int = 2
    ) -> NeunfeldState:
        if n_players != 2:
            raise InvalidPosition("player_names", "Neunfeld is a game for two players")
        pos = NeunfeldPosition(START, (1, 1, 2), (None, None, None))
        return NeunfeldState(pos, resolve_options(OPTIONS, options))

    def is_start(self, position: Position) -> bool:
        """Pawns off the board and no die held: the opening roll, whatever the dice show."""
        return (isinstance(position, NeunfeldPosition) and position.pawns == START
                and position.in_opening)

    def position_from_json(
        self, data: Any, options: Mapping[str, Any] | None = None
    ) -> NeunfeldPosition:
        return parse_position(data)

    def state_from_position(
        self, position: Position, options: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> NeunfeldState:
        assert isinstance(position, NeunfeldPosition)
        resolved = resolve_options(OPTIONS, options)
        held = [len(position.held_by(p)) for p in (0, 1)]
        if position.in_opening:
            if position.pawns != START:
                raise InvalidPosition("pawns", (
                    "the pawns stay on their starts (0 and 10) until the opening roll "
                    "has found a starter"))
        elif None in position.holders:
            raise InvalidPosition("dice", (
                "every die lies before a player once the opening roll is over"))
        elif sorted(held) == [0, 3] and position.pawns != START:
            raise InvalidPosition("dice", (
                "a player holds all three dice only after the opening roll, before any "
                "pawn has moved"))
        for p in (0, 1):
            if position.pawns[p] == START[1 - p]:
                raise InvalidPosition(f"pawns.{p}", (
                    f"{_name(p)}'s pawn cannot stand on {_name(1 - p)}'s start "
                    f"({START[1 - p]})"))
        if position.pawns == GOAL:
            raise InvalidPosition("pawns", "both pawns cannot have reached their far ends")
        return NeunfeldState(position, resolved)

    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def forced_win(
        self, state: NeunfeldState, depth: int = FORCED_WIN_DEPTH
    ) -> tuple[int, tuple[Move, ...]] | None:
        """The referee's announcement: see the module function ``forced_win``."""
        return forced_win(state, depth)

    # -- judging ----------------------------------------------------------------------
    def judge(self, state: NeunfeldState, observed: Position) -> Judgement:
        assert isinstance(observed, NeunfeldPosition)
        ref = state.position
        if observed == ref:
            return Judgement(Judgement.SAME)
        if state.outcome() is not None:
            return _violation("game-over", "The game is already over.", None)
        if ref.in_opening:
            verdict = self._judge_opening(state, observed)
        else:
            verdict = self._judge_turn(state, observed)
        if verdict.kind == Judgement.VIOLATION:
            return self._two_moves(state, observed) or verdict
        return verdict

    def _two_moves(self, state: NeunfeldState, seen: NeunfeldPosition) -> Judgement | None:
        """Two moves seen at once (the stable picture between them was missed): a turn by
        each player, or the opening roll and the starter's first turn; the judgement of the
        one pair of legal moves that makes ``seen``, None where no pair does or more than
        one (docs/rules/neunfeld.md)."""
        found = []
        for first in state.legal_moves:
            after = state._apply(first)
            if after.outcome() is not None:
                continue
            second = self._judge_turn(after, seen)
            if second.kind == Judgement.MOVES:
                found.append(Judgement(Judgement.MOVES, (first, *second.moves), second.state))
        return found[0] if len(found) == 1 else None

    def _judge_opening(self, state: NeunfeldState, seen: NeunfeldPosition) -> Judgement:
        if seen.pawns != START:
            return _violation("opening-roll-first", (
                "The pawns stay off the board until the opening roll has found a starter: "
                "roll until a player has a five."), None)
        players = {h for h in seen.holders if h is not None}
        if not players:
            return Judgement(Judgement.IN_PROGRESS)  # the dice are being rolled
        if len(players) > 1:
            return _violation("opening-dice-together", (
                "After the opening roll all three dice go to the player who rolled the "
                "five."), None)
        (p,) = players
        if 5 not in seen.tops:
            return _violation("opening-five", (
                f"{_name(p)} took the dice, but no five shows: roll again until a player "
                "has a five."), p)
        if None in seen.holders:
            return Judgement(Judgement.IN_PROGRESS)  # the starter gathers the dice
        move = Opening(p, seen.tops)
        return Judgement(Judgement.MOVES, (move,), state._apply(move))

    def _judge_turn(self, state: NeunfeldState, seen: NeunfeldPosition) -> Judgement:
        ref = state.position
        p = state.mover
        q = 1 - p
        me, you = _name(p), _name(q)
        if None in seen.holders:
            c = COLOURS[seen.holders.index(None)]
            return _violation("die-not-held", (
                f"The {c} die must lie before a player: the mover keeps the tipped die "
                "and pushes the others to the opponent."), p)
        if seen.pawns[q] != ref.pawns[q]:
            return _violation("turn-order", (
                f"It is {me}'s turn: {you}'s pawn must stay on field {ref.pawns[q]}."), q)
        changed = [ref.tops[i] != seen.tops[i] for i in range(3)]
        for i in ref.held_by(q):
            if seen.holders[i] == p:
                return _violation("push-held-dice", (
                    f"Only the dice lying before {me} can be pushed; the {COLOURS[i]} die "
                    f"lay before {you}."), p)
            if changed[i]:
                return _violation("turn-order", (
                    f"It is {me}'s turn: {you} may not tip the {COLOURS[i]} die."), q)
        tipped = [i for i in ref.held_by(p) if changed[i]]
        if len(tipped) > 1:
            return _violation("tip-one-die", (
                f"{me} may tip only one die a turn; "
                f"{' and '.join(COLOURS[i] for i in tipped)} changed."), p)
        pawn_moved = seen.pawns[p] != ref.pawns[p]
        pushed = {i for i in ref.held_by(p) if seen.holders[i] == q}
        if not tipped:
            step = "move your pawn" if pawn_moved else "push the other dice"
            return _violation("step-order", (
                f"{me}: tip a die before you {step} (rule 1: tip, push, then move)."), p)
        (i,) = tipped
        colour, die = COLOURS[i], DICE[i]
        if not die.can_tip(ref.tops[i], seen.tops[i]):
            return Judgement(Judgement.VIOLATION, illegal=state.why_illegal(
                Turn(colour, seen.tops[i], ref.pawns[p])))
        if i in pushed:
            return _violation("keep-tipped-die", (
                f"{me} keeps the tipped die ({colour}) and pushes the others."), p)
        if pawn_moved and pushed != set(ref.held_by(p)) - {i}:
            return _violation("step-order", (
                f"{me}: push the other dice to {you} before you move your pawn (rule 1: "
                "tip, push, then move)."), p)
        if not pawn_moved:
            return Judgement(Judgement.IN_PROGRESS)
        move = Turn(colour, seen.tops[i], seen.pawns[p])
        illegal = state.why_illegal(move)
        if illegal is not None:
            return Judgement(Judgement.VIOLATION, illegal=illegal)
        return Judgement(Judgement.MOVES, (move,), state._apply(move))
