"""Cubes: moves, their notation and the state of the game (``docs/rules/cubes.md``).

One State serves two uses. With ``cards`` (a seeded deck and the hands) it is the full
game for simulation and tests: every card is known, exchanges are moves. Without cards
(``cards is None``: what the referee follows) only the board is known; a shift or a
dependency change may use any card the deck holds, and an action the camera cannot see
(exchanging cards) is the move ``?B``, told by the operator key ``card_actions``.

The activity update ("Änderungen vornehmen") is applied by ``_apply``: the state is the
table as it must look once the action is complete. ``flipped`` remembers which stones
that update turned, so that the judge can tell a flip still to be made (in progress)
from a wrong one.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from rules.core import (
    Illegal,
    InvalidMove,
    Move,
    Outcome,
    RuleOption,
    State,
)
from rules.cubes_cards import (
    DECKS,
    DEPENDENCY_CARDS,
    Cards,
    absolute,
    card_name,
    shift_card,
    shift_kinds,
)
from rules.cubes_position import (
    CELLS,
    COLOUR_OF,
    COLOURS,
    DIGITS,
    EMPTY,
    LETTER,
    SIZE,
    WHITE,
    WHITES,
    CubesPosition,
    Player,
    is_active,
    is_stone,
    neighbours,
    parse_square,
    square_name,
    stone_name,
)

SETUP, PLAY = "setup", "play"
#: seats by number of players, in turn order (clockwise from south)
DEFAULT_SEATS = {2: ("south", "north"), 3: ("south", "west", "north"),
                 4: ("south", "west", "north", "east")}
#: a third action point while the own active stones add up to this much
THIRD_POINT_SUM = 10
ALL_CARDS = tuple(sorted({code for deck in DECKS.values() for code in deck}))

RULE_OPTIONS = (
    RuleOption("neighbourhood", "eight", ("eight", "six"),
               "Adjacent fields: all eight around a stone, or 'six': the four diagonal "
               "ones and the two in the owner's line of sight (\"diagonal oder vertikal\")."),
    RuleOption("reactivate", "auto", ("auto", "never"),
               "An inactive stone whose condition holds again turns active ('auto'), or "
               "stays inactive until taken back ('never')."),
    RuleOption("third_point", "while-sum", ("while-sum", "rest-of-turn"),
               "The third action point is there while the own active stones add up to 10 "
               "or more, or once reached it stays for the rest of the turn."),
    RuleOption("shift_directions", "orthogonal", ("orthogonal", "eight"),
               "Shift cards point forward, back, left or right; or also diagonally."),
    RuleOption("flip_timing", "before-next-action", ("before-next-action", "with-action"),
               "Stones to turn after an action may be turned until the next action is "
               "seen, or must be turned in the same observation as the action."),
)


# --------------------------------------------------------------------------- moves


@dataclass(frozen=True)
class Place(Move):
    """``B4@e5``: a stone from the supply onto a field; ``W@e5`` a white stone in setup."""

    token: str
    square: int

    def notation(self) -> str:
        return f"{self.token}@{square_name(self.square)}"


@dataclass(frozen=True)
class TakeBack(Move):
    """``B4^e5``: a stone taken back from the board into the supply."""

    token: str
    square: int

    def notation(self) -> str:
        return f"{self.token}^{square_name(self.square)}"


@dataclass(frozen=True)
class Shift(Move):
    """``e5-e7``: a shift card moves the white stone on e5 to e7."""

    source: int
    target: int

    def notation(self) -> str:
        return f"{square_name(self.source)}-{square_name(self.target)}"


@dataclass(frozen=True)
class DependencyChange(Move):
    """``D<`` all pass their dependency card left, ``D>`` right, ``DS:BR`` the player
    swaps the cards in front of blue and red."""

    card: str
    pair: tuple[str, ...] = ()

    def notation(self) -> str:
        return f"{self.card}:{''.join(self.pair)}" if self.pair else self.card


@dataclass(frozen=True)
class Exchange(Move):
    """``X:F1,L2``: these hand cards go to the discard pile, as many are drawn."""

    cards: tuple[str, ...]

    def notation(self) -> str:
        return "X:" + ",".join(self.cards)


@dataclass(frozen=True)
class Hidden(Move):
    """``?B``: blue made an action the camera cannot see (exchanging cards)."""

    colour: str

    def notation(self) -> str:
        return f"?{self.colour}"


@dataclass(frozen=True)
class Deal(Move):
    """``deal:RB?``: dependency cards seen for the first time (``?`` still unknown), by
    player. Not a player's action: the referee's record of what the cards show."""

    dependencies: tuple[str | None, ...]

    def notation(self) -> str:
        return "deal:" + "".join(d or "?" for d in self.dependencies)


_SQ = r"([a-j](?:10|[1-9]))"
_CARD = "|".join(re.escape(c) for c in ALL_CARDS)
_PATTERNS = (
    (re.compile(rf"(W|[BRKObrko][2-6])@{_SQ}"), lambda m: Place(m[1], _sq(m[2]))),
    (re.compile(rf"(W|[BRKO][2-6])\^{_SQ}"), lambda m: TakeBack(m[1], _sq(m[2]))),
    (re.compile(rf"{_SQ}-{_SQ}"), lambda m: Shift(_sq(m[1]), _sq(m[2]))),
    (re.compile(r"D[<>]"), lambda m: DependencyChange(m[0])),
    (re.compile(r"DS:([BRKO])([BRKO])"), lambda m: _swap(m[1], m[2])),
    (re.compile(rf"X:((?:{_CARD})(?:,(?:{_CARD}))*)"),
     lambda m: Exchange(tuple(sorted(m[1].split(","))))),
    (re.compile(r"\?([BRKO])"), lambda m: Hidden(m[1])),
    (re.compile(r"deal:([BRKO?]{2,4})"),
     lambda m: Deal(tuple(None if c == "?" else c for c in m[1]))),
)


def _sq(text: str) -> int:
    square = parse_square(text)
    assert square is not None  # the pattern admits only squares
    return square


def _swap(a: str, b: str) -> DependencyChange:
    if a == b:
        raise InvalidMove(f"DS:{a}{b}: a swap names two different players")
    order = "".join(LETTER[c] for c in COLOURS)
    return DependencyChange("DS", tuple(sorted((a, b), key=order.index)))


def parse_move(text: str) -> Move:
    if not isinstance(text, str):
        raise InvalidMove(f"{text!r} is not a move text")
    for pattern, build in _PATTERNS:
        m = pattern.fullmatch(text.strip())
        if m is not None:
            return build(m)
    raise InvalidMove(
        f"{text!r} is not a Cubes move (B4@e5, B4^e5, e5-e7, D<, D>, DS:BR, X:F1,L2, ?B, "
        "W@e5, deal:RB)")


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class CubesState(State):
    """The table after the last action with its activity update done, and the hidden
    bookkeeping: phase, whose turn, action points spent, cards (None: not known)."""

    position: CubesPosition
    options: tuple[tuple[str, Any], ...]
    phase: str = SETUP
    to_move: int = 0
    spent: int = 0
    #: the third action point was reached during this turn (rule option rest-of-turn)
    third: bool = False
    #: the stones the last action's activity update turned over
    flipped: frozenset[int] = frozenset()
    cards: Cards | None = None
    result: Outcome | None = None

    # -- basics -----------------------------------------------------------------------
    @property
    def turn(self) -> int | None:
        return None if self.result is not None else self.to_move

    @property
    def players(self) -> tuple[Player, ...]:
        return self.position.players

    @property
    def grid(self) -> tuple[str, ...]:
        return self.position.grid

    def outcome(self) -> Outcome | None:
        return self.result

    @cached_property
    def _option_map(self) -> dict[str, Any]:
        return dict(self.options)

    def option(self, name: str) -> Any:
        return self._option_map[name]

    def _colour(self, player: int) -> str:
        return self.players[player].colour

    def _neighbours(self, player: int) -> tuple[tuple[int, ...], ...]:
        return neighbours(self.option("neighbourhood"), self.players[player].seat)

    def count(self, grid: tuple[str, ...] | list[str], square: int, player: int,
              dependency: str | None) -> int:
        """White stones (and stones of the dependency colour) adjacent to ``square``
        as they count for ``player``'s stones."""
        dep = LETTER[dependency] if dependency else WHITE
        return _count(grid, self._neighbours(player)[square], dep)

    def condition(self, grid: tuple[str, ...] | list[str], square: int,
                  players: tuple[Player, ...] | None = None) -> bool | None:
        """Whether the stone on ``square`` may lie active; None where its owner's
        dependency is not known."""
        players = players or self.players
        token = grid[square]
        owner = self.position.owner(token[0])
        dependency = players[owner].dependency
        if dependency is None:
            return None
        return self.count(grid, square, owner, dependency) == int(token[1])

    def active_sum(self, grid: tuple[str, ...] | list[str], player: int) -> int:
        letter = self.players[player].letter
        return sum(d for d in DIGITS if f"{letter}{d}" in grid)

    def allowance(self, grid: tuple[str, ...] | list[str], player: int, third: bool) -> int:
        if self.active_sum(grid, player) >= THIRD_POINT_SUM:
            return 3
        return 3 if third and self.option("third_point") == "rest-of-turn" else 2

    def _shift_kinds(self, player: int) -> tuple[str, ...]:
        if self.cards is None:
            return shift_kinds(self.option("shift_directions"))
        return tuple(sorted({c for c in self.cards.hands[player] if c[0] != "D"}))

    def _dependency_kinds(self, player: int) -> tuple[str, ...]:
        if self.cards is None:
            return DEPENDENCY_CARDS
        return tuple(sorted({c for c in self.cards.hands[player] if c[0] == "D"}))

    def _at_start(self) -> bool:
        """No action of the play yet: dependency cards may still be dealt."""
        return self.phase == SETUP or (
            self.to_move == 0 and self.spent == 0
            and not any(is_stone(t) for t in self.grid)
            and not any(self.position.card_actions or ()))

    # -- moves ------------------------------------------------------------------------
    def generate_moves(self) -> Iterator[Move]:
        if self.result is not None:
            return
        grid = self.grid
        if self.phase == SETUP:
            yield from (Place(WHITE, sq) for sq in range(CELLS) if grid[sq] == EMPTY)
            return
        p = self.to_move
        player = self.players[p]
        letter = player.letter
        mine = [sq for sq in range(CELLS) if len(grid[sq]) == 2 and grid[sq][0].upper() == letter]
        supply = set(DIGITS) - {int(grid[sq][1]) for sq in mine}
        if supply:
            for sq in range(CELLS):
                if grid[sq] != EMPTY:
                    continue
                if player.dependency is None:
                    yield from (Place(f"{letter}{d}", sq) for d in sorted(supply))
                    continue
                c = self.count(grid, sq, p, player.dependency)
                if c in supply:
                    yield Place(f"{letter}{c}", sq)
        yield from (TakeBack(grid[sq].upper(), sq) for sq in mine)
        kinds = self._shift_kinds(p)
        if kinds:
            whites = [sq for sq in range(CELLS) if grid[sq] == WHITE]
            for code in kinds:
                dr, dc = absolute(player.seat, code[:-1])
                distance = int(code[-1])
                for sq in whites:
                    row, col = divmod(sq, SIZE)
                    path = [(row + dr * k, col + dc * k) for k in range(1, distance + 1)]
                    if all(0 <= r < SIZE and 0 <= c < SIZE and grid[r * SIZE + c] == EMPTY
                           for r, c in path):
                        r, c = path[-1]
                        yield Shift(sq, r * SIZE + c)
        for code in self._dependency_kinds(p):
            if code != "DS":
                yield DependencyChange(code)
                continue
            for a, b in itertools.combinations(self.players, 2):
                yield DependencyChange("DS", (a.letter, b.letter))
        if self.cards is None:
            yield Hidden(letter)
            return
        hand = self.cards.hands[p]
        choices = {c for k in range(1, len(hand) + 1) for c in itertools.combinations(hand, k)}
        yield from (Exchange(c) for c in sorted(choices))

    def why_illegal(self, move: Move) -> Illegal | None:
        if self.result is not None:
            return Illegal("game-over", "The game is over.")
        if isinstance(move, Deal):
            return self._why_not_deal(move)
        if isinstance(move, Place) and move.token == WHITE:
            return self._why_not_setup(move)
        if self.phase == SETUP:
            return Illegal("setup-not-finished", (
                f"The white stones are still being placed ({self.position.whites()} of "
                f"{WHITES[len(self.players)]}); the game begins after that."), self.to_move)
        if isinstance(move, Place):
            return self._why_not_place(move)
        if isinstance(move, TakeBack):
            return self._why_not_take(move)
        if isinstance(move, Shift):
            return self._why_not_shift(move)
        if isinstance(move, DependencyChange):
            return self._why_not_dependency(move)
        if isinstance(move, Exchange):
            if self.cards is None:
                return Illegal("cards-unknown", (
                    "The cards are not known here; an exchange is told by the operator key "
                    "card_actions (move ?B)."), self.to_move)
            if not move.cards:
                return Illegal("exchange-empty", (
                    "An exchange lays down at least one card; exchanging none is no "
                    "action."), self.to_move)
            if not self.cards.holds(self.to_move, move.cards):
                return Illegal("card-not-in-hand", (
                    f"{self._colour(self.to_move)} does not hold the cards "
                    f"{', '.join(move.cards)}."), self.to_move)
            return None
        if isinstance(move, Hidden):
            owner = self.position.owner(move.colour)
            if owner is None:
                return _not_playing(move.colour)
            if owner != self.to_move:
                return self._wrong_player(owner)
            if self.cards is not None:
                return Illegal("hidden-action", (
                    "The cards are known here: the exchange or the card itself is the "
                    "move, not an unseen action."), owner)
            return None
        return Illegal("not-a-move", f"{move!r} is not a Cubes move.")

    def _wrong_player(self, player: int) -> Illegal:
        """``player`` acted in another's turn: just after their own turn ended, that is
        an action without an action point."""
        mover, n = self.to_move, len(self.players)
        who = self._colour(player)
        if player == (mover - 1) % n and self.spent == 0:
            return Illegal("no-action-point", (
                f"{who} has used all action points this turn (a third one needs {who}'s "
                f"active stones to add up to {THIRD_POINT_SUM} or more); it is now "
                f"{self._colour(mover)}'s turn."), player)
        return Illegal("out-of-turn", (
            f"It is {self._colour(mover)}'s turn; {who} may not act now."), player)

    def _why_not_setup(self, move: Place) -> Illegal | None:
        needed = WHITES[len(self.players)]
        if self.phase != SETUP:
            return Illegal("setup-complete", (
                f"All {needed} white stones are already on the board; no more may be "
                "placed."), self.to_move)
        if self.grid[move.square] != EMPTY:
            return _occupied(move.square, self.to_move)
        return None

    def _why_not_place(self, move: Place) -> Illegal | None:
        owner = self.position.owner(move.token[0])
        if owner is None:
            return _not_playing(move.token[0].upper())
        if owner != self.to_move:
            return self._wrong_player(owner)
        if self.grid[move.square] != EMPTY:
            return _occupied(move.square, owner)
        stone = move.token.upper()
        grid = self.grid
        for token in (stone, stone.lower()):
            if token in grid:
                return Illegal("stone-on-board", (
                    f"{stone_name(stone)} already lies on {square_name(grid.index(token))}; "
                    "stones are placed from the supply."), owner)
        if not is_active(move.token):
            return Illegal("placed-inactive", (
                f"{stone_name(stone)} was placed inactive side up; a stone always comes "
                "into play active (white side up)."), owner)
        dependency = self.players[owner].dependency
        if dependency is None:
            return None
        have = self.count(self.grid, move.square, owner, dependency)
        if have != int(stone[1]):
            return Illegal("placement-digit", (
                f"{stone_name(stone)} on {square_name(move.square)} needs exactly {stone[1]} "
                f"adjacent white stones ({dependency} stones count as white for "
                f"{self._colour(owner)}); it has {have}."), owner)
        return None

    def _why_not_take(self, move: TakeBack) -> Illegal | None:
        there = self.grid[move.square]
        if there.upper() != move.token:
            what = "white stone" if move.token == WHITE else stone_name(move.token)
            return Illegal("no-stone", (
                f"There is no {what} on {square_name(move.square)}."), self.to_move)
        if move.token == WHITE:
            return Illegal("take-white", (
                f"The white stone on {square_name(move.square)} was taken away; white "
                "stones stay on the board (they may only be shifted by a card)."),
                self.to_move)
        owner = self.position.owner(move.token[0])
        if owner != self.to_move:
            wrong = self._wrong_player(owner)
            if wrong.rule == "no-action-point":
                return wrong
            return Illegal("not-own-stone", (
                f"{stone_name(move.token)} was taken back in {self._colour(self.to_move)}'s "
                f"turn; only the owner takes back a stone, in the owner's own turn."),
                self.to_move)
        return None

    def _why_not_shift(self, move: Shift) -> Illegal | None:
        p, grid = self.to_move, self.grid
        source, target = square_name(move.source), square_name(move.target)
        if grid[move.source] == EMPTY:
            return Illegal("no-stone", f"There is no stone on {source} to shift.", p)
        if grid[move.source] != WHITE:
            return Illegal("shift-coloured", (
                f"{stone_name(grid[move.source])} was moved from {source} to {target}; only "
                "white stones may be shifted, other stones never."), p)
        (r0, c0), (r1, c1) = divmod(move.source, SIZE), divmod(move.target, SIZE)
        dr, dc = r1 - r0, c1 - c0
        diagonal = dr != 0 and dc != 0
        if (diagonal and abs(dr) != abs(dc)) or (
                diagonal and self.option("shift_directions") == "orthogonal"):
            allowed = "straight forward, back, left or right" + (
                " or diagonally" if self.option("shift_directions") == "eight" else "")
            return Illegal("shift-direction", (
                f"A shift card moves a stone {allowed}; {source} to {target} is no such "
                "line."), p)
        distance = max(abs(dr), abs(dc))
        if distance > 2:
            return Illegal("shift-too-far", (
                f"A shift card moves a stone one or two fields; {source} to {target} is "
                f"{distance}."), p)
        if grid[move.target] != EMPTY:
            return Illegal("shift-blocked", (
                f"{target} is taken; a stone cannot be shifted onto another, so the card "
                "cannot be played."), p)
        step = (dr // distance, dc // distance)
        if distance == 2:
            middle = move.source + step[0] * SIZE + step[1]
            if grid[middle] != EMPTY:
                return Illegal("shift-jump", (
                    f"The stone on {square_name(middle)} is in the way; stones cannot be "
                    "jumped over."), p)
        code = shift_card(self.players[p].seat, step, distance)
        if self.cards is not None and not self.cards.holds(p, (code,)):
            return Illegal("card-not-in-hand", (
                f"{self._colour(p)} holds no card {card_name(code)}, which this shift needs "
                f"from the {self.players[p].seat} side."), p)
        return None

    def _why_not_dependency(self, move: DependencyChange) -> Illegal | None:
        p = self.to_move
        if move.pair:
            for letter in move.pair:
                if self.position.owner(letter) is None:
                    return _not_playing(letter)
        if self.cards is not None and not self.cards.holds(p, (move.card,)):
            return Illegal("card-not-in-hand", (
                f"{self._colour(p)} holds no card {card_name(move.card)}."), p)
        return None

    def _why_not_deal(self, move: Deal) -> Illegal | None:
        players = self.players
        if len(move.dependencies) != len(players):
            return Illegal("dependency-change", (
                f"{len(players)} players have {len(players)} dependency cards."))
        shown = [d for d in move.dependencies if d is not None]
        if len(shown) != len(set(shown)):
            return Illegal("dependency-change", "Each dependency card is there only once.")
        for i, (player, letter) in enumerate(zip(players, move.dependencies, strict=True)):
            if letter is None:
                continue
            if self.position.owner(letter) is None:
                return _not_playing(letter)
            colour = COLOUR_OF[letter]
            if player.dependency is not None and player.dependency != colour:
                return Illegal("dependency-change", (
                    f"{player.colour}'s dependency card is {player.dependency}, not {colour}; "
                    "cards change only by a dependency-change card."), i)
            if colour == player.colour and self._at_start():
                return Illegal("dependency-deal", (
                    f"{player.colour} was dealt the own colour; at the start nobody may "
                    "depend on the own colour (swap cards with another player)."), i)
        return None

    # -- applying -----------------------------------------------------------------------
    def _apply(self, move: Move) -> CubesState:
        p = self.to_move
        grid = list(self.grid)
        players = self.players
        counts = self.position.card_actions
        cards = self.cards
        card: str | None = None
        if isinstance(move, Place):
            grid[move.square] = move.token
        elif isinstance(move, TakeBack):
            grid[move.square] = EMPTY
        elif isinstance(move, Shift):
            grid[move.source], grid[move.target] = EMPTY, WHITE
            (r0, c0), (r1, c1) = divmod(move.source, SIZE), divmod(move.target, SIZE)
            distance = max(abs(r1 - r0), abs(c1 - c0))
            step = ((r1 - r0) // distance, (c1 - c0) // distance)
            card = shift_card(players[p].seat, step, distance)
        elif isinstance(move, DependencyChange):
            players = _changed(players, move)
            card = move.card
        elif isinstance(move, Exchange | Hidden):
            counts = tuple(c + (i == p) for i, c in enumerate(counts or (0,) * len(players)))
            if isinstance(move, Exchange):
                cards = cards.replace_cards(p, move.cards)
        elif isinstance(move, Deal):
            players = tuple(
                replace(pl, dependency=COLOUR_OF[d]) if d else pl
                for pl, d in zip(players, move.dependencies, strict=True))
        if cards is not None and card is not None:
            cards = cards.replace_cards(p, (card,))
        flipped = self._settle(grid, players)
        position = CubesPosition(tuple(grid), players, counts)
        state = replace(self, position=position, flipped=flipped, cards=cards)
        if isinstance(move, Deal):
            return replace(state, result=state._winners(None))
        if self.phase == SETUP:
            whites = position.whites()
            if whites < WHITES[len(players)]:
                return replace(state, to_move=whites % len(players))
            return replace(state, phase=PLAY, to_move=0, spent=0,
                           third=state.active_sum(grid, 0) >= THIRD_POINT_SUM)
        result = state._winners(p)
        if result is not None:
            return replace(state, result=result, spent=self.spent + 1)
        spent = self.spent + 1
        third = self.third or state.active_sum(grid, p) >= THIRD_POINT_SUM
        if spent < state.allowance(grid, p, third):
            return replace(state, spent=spent, third=third)
        nxt = (p + 1) % len(players)
        return replace(state, to_move=nxt, spent=0,
                       third=state.active_sum(grid, nxt) >= THIRD_POINT_SUM)

    def _settle(self, grid: list[str], players: tuple[Player, ...]) -> frozenset[int]:
        """Phase 2, "Änderungen vornehmen": turns every stone whose condition says so, in
        place; returns the squares turned."""
        auto = self.option("reactivate") == "auto"
        hood = self.option("neighbourhood")
        rules = {p.letter: (neighbours(hood, p.seat), LETTER[p.dependency])
                 for p in players if p.dependency is not None}
        flipped = []
        for sq in range(CELLS):
            token = grid[sq]
            if len(token) != 2 or token[0].upper() not in rules:
                continue
            table, dep = rules[token[0].upper()]
            holds = _count(grid, table[sq], dep) == int(token[1])
            active = token[0].isupper()
            if active != (holds and (active or auto)):
                grid[sq] = token.swapcase()
                flipped.append(sq)
        return frozenset(flipped)

    def _winners(self, actor: int | None) -> Outcome | None:
        """All five stones of a colour active on the board wins; if the acting player's
        action makes another player win too, the other (or both others) win instead."""
        grid = self.grid
        full = tuple(i for i, p in enumerate(self.players)
                     if all(f"{p.letter}{d}" in grid for d in DIGITS))
        if not full:
            return None
        others = tuple(i for i in full if i != actor)
        if actor in full and others:
            return Outcome(others, "all-stones-active-other")
        return Outcome(full, "all-stones-active")


def _count(grid: tuple[str, ...] | list[str], squares: tuple[int, ...], dep: str) -> int:
    """How many of ``squares`` hold a white stone or a stone of colour letter ``dep``."""
    n = 0
    for sq in squares:
        token = grid[sq]
        if token == WHITE or (token != EMPTY and token[0].upper() == dep):
            n += 1
    return n


def _changed(players: tuple[Player, ...], move: DependencyChange) -> tuple[Player, ...]:
    deps = [p.dependency for p in players]
    n = len(players)
    if move.card == "D<":  # to the left neighbour: the next player clockwise
        new = [deps[(i - 1) % n] for i in range(n)]
    elif move.card == "D>":
        new = [deps[(i + 1) % n] for i in range(n)]
    else:
        letters = [p.letter for p in players]
        a, b = (letters.index(x) for x in move.pair)
        new = list(deps)
        new[a], new[b] = deps[b], deps[a]
    return tuple(replace(p, dependency=d) for p, d in zip(players, new, strict=True))


def _occupied(square: int, player: int) -> Illegal:
    return Illegal("field-occupied", (
        f"{square_name(square)} is taken; only one stone may lie on a field."), player)


def _not_playing(letter: str) -> Illegal:
    return Illegal("colour-not-playing", f"{COLOUR_OF[letter]} is not playing in this game.")
