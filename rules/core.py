"""The shape every game shares.

Modelled on python-chess (an immutable Move with a text notation, a Board with push/pop,
legal moves that behave like a collection, the outcome as data) and on OpenSpiel's game
API (every game answers the same questions: whose turn, legal actions, apply, terminal,
returns), so that one referee and one test suite serve all six games.

Vocabulary
----------
Position
    What lies on the table: exactly the ``position`` object of an observation
    (``../shared/spec/observation.md``). Immutable and hashable. A camera can see it.
State
    A Position plus what the table does not show but the rules need: whose turn it is,
    which die moved last, how many action points are spent. Immutable and hashable.
    ``State.position`` is what the camera should see after the moves so far.
Move
    One complete turn (or, for Cubes, one action), immutable, with a notation that
    round-trips through ``Game.parse_move``.
Game
    One per game id (variants are subclasses). Makes initial states, parses positions
    and moves, and judges an observed change for the referee.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

# --------------------------------------------------------------------------- errors


class RulesError(ValueError):
    """Base of the errors the rules package raises on bad input."""


class InvalidPosition(RulesError):
    """A position that cannot exist on the table (or is malformed JSON data).

    ``key`` is a dotted path to the offending key inside the position object
    (``"cells.2"``, ``"dice.blue.top"``), so that readers can name it.
    """

    def __init__(self, key: str, message: str):
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message


class InvalidMove(RulesError):
    """A move text that does not parse in the game's notation."""


@dataclass(frozen=True)
class Illegal:
    """Why a move (or an observed change) breaks the rules.

    ``rule`` is a stable short id (kebab-case, documented in docs/rules/<game>.md);
    ``message`` is a sentence a player understands; ``player`` who broke it, if known.
    """

    rule: str
    message: str
    player: int | None = None


class IllegalMoveError(RulesError):
    def __init__(self, illegal: Illegal):
        super().__init__(f"[{illegal.rule}] {illegal.message}")
        self.illegal = illegal


# --------------------------------------------------------------------------- outcome


@dataclass(frozen=True)
class Outcome:
    """The end of a game, as data.

    ``winners`` empty means a draw. ``condition`` is a stable id of what decided it
    (``"four-colour-line"``, ``"reached-far-end"``, ``"threefold-repetition"``...).
    """

    winners: tuple[int, ...]
    condition: str

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "condition": self.condition}


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class RuleOption:
    """One rule option a game's rules document offers: its name, default and choices."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    doc: str


def resolve_options(
    declared: Iterable[RuleOption], given: Mapping[str, Any] | None
) -> tuple[tuple[str, Any], ...]:
    """Check ``given`` against the declared options and fill in defaults.

    Returns a sorted tuple of (name, value) pairs: hashable, so states can carry it.
    Unknown names or values outside the choices raise InvalidPosition on key ``options``.
    """
    declared = {o.name: o for o in declared}
    given = dict(given or {})
    unknown = sorted(set(given) - set(declared))
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise InvalidPosition("options", f"unknown rule option {unknown[0]!r} (known: {known})")
    out = {}
    for name, opt in declared.items():
        value = given.get(name, opt.default)
        if value not in opt.choices:
            choices = ", ".join(repr(c) for c in opt.choices)
            raise InvalidPosition(
                f"options.{name}", f"{value!r} is not one of {choices}"
            )
        out[name] = value
    return tuple(sorted(out.items()))


# --------------------------------------------------------------------------- moves


class Move(ABC):
    """A complete turn. Subclasses are frozen dataclasses; ``str(move)`` is the notation."""

    @abstractmethod
    def notation(self) -> str: ...

    def __str__(self) -> str:
        return self.notation()


class LegalMoves:
    """The legal moves of a state, behaving like a read-only collection.

    Generated lazily and cached; ``move in state.legal_moves`` asks the rules directly
    (no generation), as python-chess does.
    """

    __slots__ = ("_state", "_moves")

    def __init__(self, state: State):
        self._state = state
        self._moves: tuple[Move, ...] | None = None

    def _all(self) -> tuple[Move, ...]:
        if self._moves is None:
            self._moves = tuple(self._state.generate_moves())
        return self._moves

    def __iter__(self) -> Iterator[Move]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:
        return bool(self._all())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._state.why_illegal(move) is None

    def __repr__(self) -> str:
        return f"<LegalMoves {', '.join(m.notation() for m in self._all())}>"


# --------------------------------------------------------------------------- positions


class Position(ABC):
    """What lies on the table. Subclasses are frozen dataclasses (hashable, comparable)."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The observation's ``position`` object."""


# --------------------------------------------------------------------------- states


class State(ABC):
    """A position plus the hidden bookkeeping the rules need. Immutable and hashable.

    Subclasses are frozen dataclasses with at least ``position`` and ``options``
    (the resolved options tuple from ``resolve_options``).
    """

    position: Position
    options: tuple[tuple[str, Any], ...]

    # -- the OpenSpiel questions ----------------------------------------------------
    @property
    @abstractmethod
    def turn(self) -> int | None:
        """Index of the player to move; None when the game is over."""

    @abstractmethod
    def generate_moves(self) -> Iterator[Move]:
        """Every legal move, each once."""

    @abstractmethod
    def why_illegal(self, move: Move) -> Illegal | None:
        """None when ``move`` is legal here, else the most fundamental rule it breaks."""

    @abstractmethod
    def _apply(self, move: Move) -> State:
        """The state after a move already known to be legal."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None while the game goes on (history-free conditions only; see Board)."""

    # -- derived ------------------------------------------------------------------
    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    def apply(self, move: Move) -> State:
        """The state after ``move``; raises IllegalMoveError naming the rule broken."""
        illegal = self.why_illegal(move)
        if illegal is not None:
            raise IllegalMoveError(illegal)
        return self._apply(move)

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    def returns(self, n_players: int) -> tuple[float, ...]:
        """OpenSpiel's returns: +1 for a winner, -1 for a loser, 0 in a draw or mid-game."""
        out = self.outcome()
        if out is None or out.is_draw:
            return (0.0,) * n_players
        return tuple(1.0 if p in out.winners else -1.0 for p in range(n_players))

    def option(self, name: str) -> Any:
        return dict(self.options)[name]

    def to_json(self) -> dict[str, Any]:
        return self.position.to_json()


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class Judgement:
    """What an observed position means, from the last legal state.

    kind is one of:
      ``same``        the observed position is the reference position (no event)
      ``in-progress`` a turn made of several steps, seen between its steps (no event)
      ``moves``       legal moves explain it; ``moves`` lists them, ``state`` is the result
                      (more than one only where the game judges several at once)
      ``violation``   ``illegal`` names the rule broken
    """

    kind: str
    moves: tuple[Move, ...] = ()
    state: State | None = None
    illegal: Illegal | None = None

    SAME: ClassVar[str] = "same"
    IN_PROGRESS: ClassVar[str] = "in-progress"
    MOVES: ClassVar[str] = "moves"
    VIOLATION: ClassVar[str] = "violation"


# --------------------------------------------------------------------------- games


class Game(ABC):
    """One game id of the observation spec. Stateless; variants subclass."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    rule_options: ClassVar[tuple[RuleOption, ...]] = ()
    #: Board-level draw by repetition (python-chess style): how many times a state
    #: must recur for a draw, or None when the game has no such rule.
    repetition_draw: ClassVar[int | None] = None

    @abstractmethod
    def initial_state(
        self, options: Mapping[str, Any] | None = None, n_players: int = 2
    ) -> State:
        """The start of a game, before the first move."""

    @abstractmethod
    def position_from_json(
        self, data: Any, options: Mapping[str, Any] | None = None
    ) -> Position:
        """Parse and validate an observation's ``position``; raises InvalidPosition.

        ``options`` are the game's rule options where they decide what can lie on the
        table (e-SOLO-e's cube set); games whose positions do not depend on them ignore
        them.
        """

    @abstractmethod
    def state_from_position(
        self, position: Position, options: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> State:
        """A state for a position seen without its history (resuming mid-game).

        Hidden bookkeeping is inferred where the position allows it. ``extra`` is the
        rest of the observation (player_names, operator keys) for games that need it.
        Raises InvalidPosition when no legal game reaches this position.
        """

    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """Inverse of ``Move.notation``; raises InvalidMove."""

    @abstractmethod
    def judge(self, state: State, observed: Position) -> Judgement:
        """Explain an observed position from the last legal state (see Judgement).

        ``observed`` may hold unknowns (null faces) where the camera could not see;
        they match anything.
        """

    def is_start(self, position: Position) -> bool:
        """True for the empty starting position that begins a new game."""
        return position == self.initial_state().position

    def state_from_json(self, data: Any, options: Mapping[str, Any] | None = None) -> State:
        return self.state_from_position(self.position_from_json(data), options)


class Board:
    """A mutable game in progress with a move stack (python-chess's Board).

    Wraps immutable states; ``push``/``pop`` move along the game; ``outcome`` adds the
    history rules (repetition) to the state's own outcome.
    """

    def __init__(self, game: Game, state: State | None = None, **initial: Any):
        self.game = game
        self.root = state if state is not None else game.initial_state(**initial)
        self.move_stack: list[Move] = []
        self._states: list[State] = [self.root]

    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def position(self) -> Position:
        return self.state.position

    @property
    def turn(self) -> int | None:
        return None if self.outcome() is not None else self.state.turn

    @property
    def legal_moves(self) -> LegalMoves:
        return self.state.legal_moves

    def push(self, move: Move) -> None:
        if self.outcome() is not None:
            raise IllegalMoveError(Illegal("game-over", "The game is already over."))
        self._states.append(self.state.apply(move))
        self.move_stack.append(move)

    def push_notation(self, text: str) -> Move:
        move = self.game.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        if not self.move_stack:
            raise IndexError("pop from an empty move stack")
        self._states.pop()
        return self.move_stack.pop()

    def repetitions(self, state: State | None = None) -> int:
        state = state if state is not None else self.state
        return sum(1 for s in self._states if s == state)

    def outcome(self) -> Outcome | None:
        out = self.state.outcome()
        if out is not None:
            return out
        n = self.game.repetition_draw
        if n is not None and self.repetitions() >= n:
            return Outcome((), "threefold-repetition" if n == 3 else f"{n}-fold-repetition")
        return None


# --------------------------------------------------------------------------- helpers


def canonical_json(data: Any) -> str:
    """A stable text form of JSON data (sorted keys, no spaces): for hashing and tests."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class PathBuilder:
    """Builds dotted key paths for InvalidPosition messages while walking JSON data."""

    parts: tuple[str, ...] = field(default_factory=tuple)

    def __truediv__(self, part: str | int) -> PathBuilder:
        return PathBuilder((*self.parts, str(part)))

    def __str__(self) -> str:
        return ".".join(self.parts)

    def fail(self, message: str) -> InvalidPosition:
        return InvalidPosition(str(self), message)
