"""Miwin's dice, shared by Neunfeld and Tyr 3 gewinnt.

Three six-sided dice with the numbers 1..9 (see ../shared/spec/rules-facts.md):

    blue  = die III: 1 2 5 6 7 9, opposite 1-9, 2-7, 5-6
    red   = die IV:  1 3 4 5 8 9, opposite 1-9, 3-8, 4-5
    black = die V:   2 3 4 6 7 8, opposite 2-7, 3-8, 4-6

A *tip* over one of the four bottom edges brings up one of the four side faces, never
the old top or its opposite. That is all the two games need, since the camera sees the
top faces only. The handedness (which side face lies east of which) was inferred from
one picture, so only :meth:`MiwinDie.sides_anticlockwise` and
:meth:`MiwinDie.tip_towards`, where a direction is named, depend on it.

The module also holds :func:`perft`, the move-sequence count that both games' tests and
rules documents use as a regression anchor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.core import State

Vector = tuple[int, int, int]

DIRECTIONS: tuple[str, ...] = ("north", "east", "south", "west")


def _cross(a: Vector, b: Vector) -> Vector:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _neg(a: Vector) -> Vector:
    return (-a[0], -a[1], -a[2])


@dataclass(frozen=True)
class MiwinDie:
    """One die: colour, roman name, opposite pairs and handedness.

    ``ring`` is the published handedness: with ``ring[0]`` on top, the side faces
    ``ring[1:]`` run anticlockwise as seen from above.
    """

    colour: str
    name: str
    pairs: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    ring: tuple[int, int, int, int, int]
    faces: tuple[int, ...] = field(init=False)
    _opposite: dict[int, int] = field(init=False, repr=False, compare=False)
    _vectors: dict[int, Vector] = field(init=False, repr=False, compare=False)
    _at: dict[Vector, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        opposite = {a: b for a, b in self.pairs} | {b: a for a, b in self.pairs}
        top, s1, s2, s3, s4 = self.ring
        if opposite.get(s1) != s3 or opposite.get(s2) != s4 or top in (s1, s2, s3, s4):
            raise ValueError(f"inconsistent handedness for the {self.colour} die")
        # each face as a unit vector: ring[0] up (+z), ring[1] +x, ring[2] +y
        vectors = {top: (0, 0, 1), s1: (1, 0, 0), s2: (0, 1, 0), s3: (-1, 0, 0),
                   s4: (0, -1, 0), opposite[top]: (0, 0, -1)}
        object.__setattr__(self, "faces", tuple(sorted(opposite)))
        object.__setattr__(self, "_opposite", opposite)
        object.__setattr__(self, "_vectors", vectors)
        object.__setattr__(self, "_at", {v: f for f, v in vectors.items()})

    @property
    def faces_text(self) -> str:
        return " ".join(str(f) for f in self.faces)

    def has(self, face: object) -> bool:
        """True when ``face`` is a number on this die (bools are not numbers here)."""
        return isinstance(face, int) and not isinstance(face, bool) and face in self._opposite

    def opposite(self, face: int) -> int:
        """The face opposite ``face``; ValueError when ``face`` is not on this die."""
        if not self.has(face):
            raise ValueError(f"{face} is not a face of the {self.colour} die ({self.faces_text})")
        return self._opposite[face]

    def side_faces(self, top: int) -> frozenset[int]:
        """The four faces a tip can bring up from ``top``."""
        return frozenset(self.faces) - {top, self.opposite(top)}

    def can_tip(self, old_top: int, new_top: int) -> bool:
        return self.has(old_top) and new_top in self.side_faces(old_top)

    def sides_anticlockwise(self, top: int) -> tuple[int, ...]:
        """The side faces with ``top`` up, anticlockwise seen from above, smallest first."""
        v = self._vectors[min(self.side_faces(top))]
        up = self._vectors[top]
        ring = []
        for _ in range(4):
            ring.append(self._at[v])
            v = _cross(up, v)
        return tuple(ring)

    def tip_towards(self, top: int, north: int, direction: str) -> tuple[int, int]:
        """Tip the die over its bottom edge on the ``direction`` side.

        The die lies with ``top`` up and ``north`` facing north; returns the new
        (top, north). Tipping east brings the west face up, tipping north the south face.
        """
        if north not in self.side_faces(top):
            raise ValueError(f"{north} cannot face north while {top} is on top")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}")
        up, n = self._vectors[top], self._vectors[north]
        east = _cross(n, up)
        new_up, new_north = {
            "north": (_neg(n), up),
            "south": (n, _neg(up)),
            "east": (_neg(east), n),
            "west": (east, n),
        }[direction]
        return self._at[new_up], self._at[new_north]


BLUE = MiwinDie("blue", "III", ((1, 9), (2, 7), (5, 6)), (1, 6, 2, 5, 7))
RED = MiwinDie("red", "IV", ((1, 9), (3, 8), (4, 5)), (1, 5, 8, 4, 3))
BLACK = MiwinDie("black", "V", ((2, 7), (3, 8), (4, 6)), (2, 4, 3, 6, 8))

#: The set, in the order the observation spec lists the colours.
DICE: tuple[MiwinDie, ...] = (BLUE, RED, BLACK)
COLOURS: tuple[str, ...] = tuple(d.colour for d in DICE)
BY_COLOUR: dict[str, MiwinDie] = {d.colour: d for d in DICE}


def perft(state: State, depth: int) -> int:
    """The number of legal move sequences of length ``depth`` from ``state``.

    Sequences stop early at a finished game (no moves from a terminal state), as in
    chess perft. Repetition draws are history and not counted here. A state may offer
    ``count_moves()`` (the number of its legal moves, without making them) for speed.
    """
    if depth == 0:
        return 1
    if state.outcome() is not None:
        return 0
    if depth == 1:
        count = getattr(state, "count_moves", None)  # a fast count, where a game has one
        return count() if count is not None else len(state.legal_moves)
    return sum(perft(state._apply(m), depth - 1) for m in state.legal_moves)
