"""The e-SOLO-e cube as a solid: six faces, three symbols, 24 orientations.

A cube *set* says where the three symbols (sakura, Fuji-San, geisha) sit on the cube;
the other three faces are blank. The sets (``../shared/spec/rules-facts.md``):

``corner`` (default)
    The symbols meet at one corner and run sakura, fuji, geisha anticlockwise around it,
    seen from outside that corner: with sakura up and fuji facing south, geisha faces
    east (blank down, north and west).
``corner-mirror``
    The mirror image: sakura up and fuji south put geisha on the west face.
``strip``
    Two opposite faces and one between: sakura and geisha opposite, fuji between them.

Faces are named by the board's fixed directions (``FACES``: up, down, north, south,
east, west); an orientation is the tuple of the six face values in that order. Every set
has 24 orientations, 12 of them with a symbol up (3 symbols x 4 quarter turns).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

FACES: tuple[str, ...] = ("up", "down", "north", "south", "east", "west")
UP, DOWN, NORTH, SOUTH, EAST, WEST = range(6)
SIDES: tuple[int, ...] = (NORTH, EAST, SOUTH, WEST)
OPPOSITE: tuple[int, ...] = (DOWN, UP, SOUTH, NORTH, WEST, EAST)

SYMBOLS: tuple[str, ...] = ("sakura", "fuji", "geisha")
BLANK = "blank"
FACE_VALUES: tuple[str, ...] = (*SYMBOLS, BLANK)

#: notation letters: a symbol up in capitals, a symbol on a side in lower case
SYMBOL_LETTER = {"sakura": "S", "fuji": "F", "geisha": "G"}
DIRECTION_LETTER = {NORTH: "N", EAST: "E", SOUTH: "S", WEST: "W"}

Faces = tuple[str, str, str, str, str, str]
Known = Sequence[str | None]


def _rotations() -> tuple[tuple[int, ...], ...]:
    """The 24 rotations as permutations: the face at direction d moves to p[d]."""
    quarter = (UP, DOWN, EAST, WEST, SOUTH, NORTH)  # about the vertical: north -> east
    tilt = (NORTH, SOUTH, DOWN, UP, EAST, WEST)  # about east-west: up -> north -> down
    seen = {tuple(range(6))}
    todo = [tuple(range(6))]
    while todo:
        p = todo.pop()
        for g in (quarter, tilt):
            q = tuple(g[p[d]] for d in range(6))
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return tuple(sorted(seen))


ROTATIONS = _rotations()


def rotate(faces: Sequence, p: Sequence[int]) -> tuple:
    out = [None] * 6
    for d in range(6):
        out[p[d]] = faces[d]
    return tuple(out)


def mirror_east_west(faces: Sequence) -> tuple:
    """The mirror image in a north-south plane: east and west faces swap."""
    return (faces[UP], faces[DOWN], faces[NORTH], faces[SOUTH], faces[WEST], faces[EAST])


def turn_half(faces: Sequence) -> tuple:
    """The cube turned half round about the vertical: north<->south, east<->west."""
    return (faces[UP], faces[DOWN], faces[SOUTH], faces[NORTH], faces[WEST], faces[EAST])


@dataclass(frozen=True)
class CubeSet:
    """Where the symbols sit; ``home`` is one orientation (sakura up, fuji south)."""

    name: str
    home: Faces
    mirror_name: str
    doc: str
    orientations: tuple[Faces, ...] = field(init=False, repr=False)
    _index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        every = {rotate(self.home, p) for p in ROTATIONS}
        assert len(every) == 24, "a set's symbols must not be symmetric"
        up = sorted((f for f in every if f[UP] != BLANK), key=self._order)
        down = sorted(f for f in every if f[UP] == BLANK)
        object.__setattr__(self, "orientations", tuple(up + down))
        index = {}
        for i, f in enumerate(self.orientations):
            for d in SIDES:
                if f[d] in SYMBOLS:
                    index[(f[UP], f[d], d)] = i
        object.__setattr__(self, "_index", index)

    def _order(self, faces: Faces) -> tuple[int, int]:
        side, facing = self.reference(faces)
        return SYMBOLS.index(faces[UP]), SIDES.index(facing)

    @staticmethod
    def reference(faces: Faces) -> tuple[str, int]:
        """The symbol that names a symbol-up orientation's quarter turn, and its side.

        The first symbol (in the order sakura, fuji, geisha) that is neither up nor down.
        """
        for s in SYMBOLS:
            if s != faces[UP] and s != faces[DOWN]:
                return s, next(d for d in SIDES if faces[d] == s)
        raise ValueError("no symbol on a side face")

    @cached_property
    def symbol_up(self) -> tuple[int, ...]:
        """Indices of the 12 orientations with a symbol up (the first 12)."""
        return tuple(i for i, f in enumerate(self.orientations) if f[UP] != BLANK)

    def find(self, up: str, side: str, facing: int) -> int | None:
        """The orientation with ``up`` on top and ``side`` facing ``facing``, if any."""
        return self._index.get((up, side, facing))

    def matching(self, known: Known) -> tuple[int, ...]:
        """Indices of the orientations that agree with every known face (None: unknown)."""
        return tuple(
            i for i, f in enumerate(self.orientations)
            if all(k is None or k == v for k, v in zip(known, f, strict=True))
        )

    def why_impossible(self, known: Known) -> str | None:
        """None when some orientation shows these faces, else a sentence saying why not."""
        if self.matching(known):
            return None
        for s in SYMBOLS:
            if sum(1 for k in known if k == s) > 1:
                return f"a cube has one {s} face, these faces show it twice"
        blanks = sum(1 for k in known if k == BLANK)
        if blanks > 3:
            return f"a cube has three blank faces, these faces show {blanks}"
        pairs = {frozenset((self.home[d], self.home[OPPOSITE[d]])) for d in range(6)}
        for d in (UP, NORTH, EAST):
            a, b = known[d], known[OPPOSITE[d]]
            if a is not None and b is not None and frozenset((a, b)) not in pairs:
                return (f"{a} on the {FACES[d]} face and {b} opposite it cannot happen "
                        f"on a {self.name} cube ({self.doc})")
        if self.mirror_name == self.name:
            return f"no {self.name} cube shows these faces ({self.doc})"
        return (f"no {self.name} cube shows these faces ({self.doc}); "
                f"the mirror-image set would (rule option cube-set={self.mirror_name})")


def _faces(**named: str) -> Faces:
    return tuple(named.get(f, BLANK) for f in FACES)  # type: ignore[return-value]


CUBE_SETS: dict[str, CubeSet] = {
    s.name: s
    for s in (
        CubeSet("corner", _faces(up="sakura", south="fuji", east="geisha"), "corner-mirror",
                "the symbols meet at a corner, sakura, fuji, geisha anticlockwise"),
        CubeSet("corner-mirror", _faces(up="sakura", south="fuji", west="geisha"), "corner",
                "the symbols meet at a corner, sakura, fuji, geisha clockwise"),
        CubeSet("strip", _faces(up="sakura", south="fuji", down="geisha"), "strip",
                "sakura and geisha on opposite faces, fuji between them"),
    )
}
DEFAULT_SET = "corner"
