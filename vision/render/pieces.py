"""The pieces as solids: e-SOLO-e cubes, Miwin dice, Neunfeld pawns, Cubes stones.

Sizes (millimetres; sources in docs/renderer.md): cube 18 (publisher), Miwin die 22
(a Tyr field is "the base of a die", 25 mm; 22 leaves the play a die has in its field),
pawn 18 across, 26 tall, Cubes stone 24 square and 6 thick (a flat two-sided tile).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from rules.cube import CUBE_SETS, DEFAULT_SET, FACES
from rules.miwin import BY_COLOUR
from vision.render import glyphs, materials, symbols
from vision.render.geometry import (
    DIRECTIONS,
    ROTATIONS,
    Solid,
    box_faces,
    direction_of,
    prism_faces,
    sphere_faces,
)

CUBE_MM = 18.0
DIE_MM = 22.0
STONE_MM = 24.0
STONE_THICK_MM = 6.0
FACE_PX = 96  # texture size of a cube or die face

# e-SOLO-e: player 0 natural wood, player 1 green (the rules' "naturfarbene" and "Grün")
CUBE_WOOD = ("natural", "green")
GREEN_STAIN = np.array([0.28, 0.52, 0.25], np.float32)  # BGR
DIE_COLOURS = {  # BGR plastic
    "blue": np.array([0.62, 0.30, 0.07], np.float32),
    "red": np.array([0.12, 0.12, 0.68], np.float32),
    "black": np.array([0.07, 0.07, 0.075], np.float32),
}
PLAYER_COLOURS = {  # Cubes stones, BGR
    "blue": np.array([0.70, 0.35, 0.08], np.float32),
    "red": np.array([0.13, 0.13, 0.72], np.float32),
    "black": np.array([0.08, 0.08, 0.08], np.float32),
    "orange": np.array([0.10, 0.45, 0.93], np.float32),
}
COLOUR_LETTERS = {"B": "blue", "R": "red", "K": "black", "O": "orange"}
PAWN_COLOURS = (np.array([0.55, 0.72, 0.86], np.float32),  # A: natural light wood
                np.array([0.12, 0.16, 0.28], np.float32))  # B: dark stained wood

_BODY_NORMALS = [tuple(int(v) for v in n) for n in DIRECTIONS.values()]


@dataclass(frozen=True)
class PieceSet:
    """How one maker's set of pieces looks. ``default`` is the set the games come with;
    ``other-set`` is a deliberately different one (other woods and stain, symbols drawn
    as thick outlines, other die bodies with gold or black pips, other stone colours and
    digit font), for measuring how the vision side copes with a set it was not trained on.
    """

    name: str
    natural_woods: tuple[str, ...]  # player 0's wood species (materials.WOOD_PALETTES)
    green_stain: np.ndarray  # player 1's stain, BGR
    bevel: tuple[float, float]  # cube edge darkening: width (share of a face), depth
    symbol_style: str  # symbols.STYLES
    die_bodies: dict  # colour -> body BGR
    pip_inks: dict  # colour -> pip BGR
    pip_hollow: bool  # a dark rim up-left of each pip
    stone_colours: dict  # player colour -> tile BGR
    white_stone: np.ndarray  # top and sides of a white stone
    white_side: np.ndarray
    digit_style: str  # glyphs.STYLES: the stones' digits


SETS = {
    "default": PieceSet(
        "default", ("beech", "maple", "pine"), GREEN_STAIN, (0.07, 0.35), "solid",
        DIE_COLOURS, {c: np.array([0.93, 0.93, 0.92], np.float32) for c in DIE_COLOURS},
        True, PLAYER_COLOURS, np.array([0.92, 0.93, 0.93], np.float32),
        np.array([0.85, 0.86, 0.86], np.float32), "heavy"),
    "other-set": PieceSet(
        "other-set", ("oak", "teak", "cherry"), np.array([0.42, 0.50, 0.12], np.float32),
        (0.03, 0.55), "outline",
        {"blue": np.array([0.86, 0.58, 0.30], np.float32),  # light cornflower
         "red": np.array([0.16, 0.07, 0.42], np.float32),  # burgundy
         "black": np.array([0.21, 0.21, 0.22], np.float32)},  # charcoal
        {"blue": np.array([0.05, 0.05, 0.06], np.float32),  # black pips
         "red": np.array([0.25, 0.68, 0.88], np.float32),  # gold pips
         "black": np.array([0.25, 0.68, 0.88], np.float32)},
        False,
        {"blue": np.array([0.55, 0.42, 0.05], np.float32),  # teal
         "red": np.array([0.22, 0.05, 0.58], np.float32),  # crimson
         "black": np.array([0.20, 0.19, 0.17], np.float32),  # slate
         "orange": np.array([0.05, 0.62, 0.96], np.float32)},  # amber
        np.array([0.80, 0.90, 0.95], np.float32),  # cream
        np.array([0.72, 0.82, 0.87], np.float32), "light"),
}


def _bevel(size: int, width: float, depth: float) -> np.ndarray:
    """Darkening towards a face's edges: a rounded edge turns away from the light."""
    t = np.minimum(np.arange(size), np.arange(size)[::-1]).astype(np.float32) / (size * width)
    t = np.clip(t, 0, 1)
    e = np.minimum(t[:, None], t[None, :])
    return (1 - depth * (1 - e) ** 2)[..., None]


def _print(base: np.ndarray, mask: np.ndarray, ink, rng, opacity=0.92) -> np.ndarray:
    wear = 1 - 0.25 * np.clip(materials.noise(rng, *mask.shape, 6.0), 0, 1)
    a = (mask * opacity * wear)[..., None]
    return base * (1 - a) + np.asarray(ink, np.float32) * a


# --------------------------------------------------------------------------- cubes

# each rotation with the body normal it turns to each board direction
_VIEWS = [(R, {d: tuple(int(round(x)) for x in R.T @ np.array(v, np.float64))
               for d, v in DIRECTIONS.items()}) for R in ROTATIONS]
_VIEWS_BY_ID = {id(R): seen for R, seen in _VIEWS}

def cube_orientation(faces: dict, rng: np.random.Generator, cube_set: str = DEFAULT_SET):
    """A rotation (body -> board frame) of a ``cube_set`` cube that shows ``faces``.

    The body frame is the set's home orientation (rules.cube: sakura up, fuji south).
    Unknown faces (None) match anything; among several matching rotations one is drawn
    from ``rng``. Returns (R, painted) where ``painted`` is None, or, when no real cube
    shows these faces, the faces themselves: then each direction is painted as given.
    """
    ok = _matching_rotations(tuple(sorted(faces.items())), cube_set)
    if not ok:
        return np.eye(3), dict(faces)
    return ok[int(rng.integers(len(ok)))], None


@lru_cache(maxsize=4096)
def _matching_rotations(faces: tuple, cube_set: str) -> tuple:
    body_label = cube_labels(cube_set)
    ok = [R for R, seen in _VIEWS
          if all(want is None or body_label[seen[d]] == want for d, want in faces)]
    if ok and all(v is None for _, v in faces):  # nothing known: a symbol up, as placed
        ok = [R for R in ok if body_label[_VIEWS_BY_ID[id(R)]["up"]] != "blank"]
    return tuple(ok)


def cube_textures(rng: np.random.Generator, player: int, pieceset: PieceSet = SETS["default"]
                  ) -> dict:
    """Six face textures of one wooden cube (wood grain, bevel), keyed by body normal,
    before anything is printed on them."""
    stain = pieceset.green_stain * np.float32(rng.uniform(0.85, 1.1)) \
        if CUBE_WOOD[player] == "green" else None
    palette = None if stain is not None else str(rng.choice(list(pieceset.natural_woods)))
    strip = materials.wood(rng, FACE_PX, FACE_PX * 6, FACE_PX / CUBE_MM, palette=palette,
                           tint=stain)
    bevel = _bevel(FACE_PX, *pieceset.bevel)
    out = {}
    for i, n in enumerate(_BODY_NORMALS):
        tex = strip[:, i * FACE_PX:(i + 1) * FACE_PX]
        if abs(n[2]) > 0:  # end grain on top and bottom: darker, rings across
            tex = cv2.rotate(tex, cv2.ROTATE_90_CLOCKWISE) * 0.9
        out[n] = np.ascontiguousarray(tex * bevel)
    return out


def print_faces(textures: dict, labels_by_body: dict, ink, rng, style: str = "solid") -> dict:
    """Print the symbols on a cube's faces: body normal -> textured face. ``style``: how
    the symbols are drawn (symbols.STYLES)."""
    out = {}
    pad = int(FACE_PX * 0.1)
    for n, tex in textures.items():
        label = labels_by_body.get(n)
        if label in symbols.CUBE_SYMBOLS:
            m = np.zeros((FACE_PX, FACE_PX), np.float32)
            m[pad:-pad, pad:-pad] = symbols.symbol_mask(label, FACE_PX - 2 * pad, style)
            tex = _print(tex, m, ink, rng)
        out[n] = tex
    return out


def cube_solid(center, yaw_R: np.ndarray, R_body: np.ndarray, labels_by_body: dict,
               printed: dict, painted: bool = False, gloss: float = 0.08) -> Solid:
    """A cube centred at ``center``; ``yaw_R`` turns the board frame into the world.

    ``printed``: body normal -> face texture with its symbol; ``labels_by_body`` says
    which. ``painted``: the labels belong to the board's directions (no real cube shows
    these faces), so each is printed upright in the board frame.
    """
    specs = {}
    R = yaw_R @ R_body
    for n in _BODY_NORMALS:
        board_dir = R_body @ np.array(n, np.float64)
        direction = direction_of(board_dir)
        label = labels_by_body[n]
        spec = {"texture": printed[n], "gloss": gloss, "shininess": 25.0,
                "label": label if label is not None else "unknown",
                "direction": direction}
        if painted:  # upright in the board frame: north on top, else up
            up_board = np.array([0, 1, 0.0]) if direction in ("up", "down") \
                else np.array([0, 0, 1.0])
            spec["up"] = R_body.T @ up_board
        specs[n] = spec
    half = np.full(3, CUBE_MM / 2)
    faces = box_faces(center, half, R, specs)
    return Solid("cube", faces, np.asarray(center, np.float64), height=CUBE_MM)


def cube_labels(cube_set: str = DEFAULT_SET) -> dict:
    """Body normal -> symbol of a ``cube_set`` cube (a fresh dict: callers may change it)."""
    return dict(_cube_labels(cube_set))


@lru_cache(maxsize=8)
def _cube_labels(cube_set: str) -> dict:
    home = dict(zip(FACES, CUBE_SETS[cube_set].home, strict=True))
    return {tuple(DIRECTIONS[d]): home[d] for d in FACES}


# --------------------------------------------------------------------------- dice

def die_body_numbers(colour: str) -> dict:
    """Body normal -> number, from the die's published handedness (rules.miwin)."""
    die = BY_COLOUR[colour]
    top, s1, s2, s3, s4 = die.ring
    return {(0, 0, 1): top, (1, 0, 0): s1, (0, 1, 0): s2, (-1, 0, 0): s3, (0, -1, 0): s4,
            (0, 0, -1): die.opposite(top)}


def die_orientation(colour: str, top: int, rng) -> np.ndarray:
    """One of the four rotations (body -> board) that put ``top`` up, drawn from rng."""
    ok = _die_rotations(colour, top)
    return ok[int(rng.integers(len(ok)))]


@lru_cache(maxsize=64)
def _die_rotations(colour: str, top: int) -> tuple:
    numbers = die_body_numbers(colour)
    body_n = next(n for n, v in numbers.items() if v == top)
    return tuple(R for R in ROTATIONS if direction_of(R @ np.array(body_n, np.float64)) == "up")


def die_textures(colour: str, rng, pieceset: PieceSet = SETS["default"]) -> dict:
    body = pieceset.die_bodies[colour] * np.float32(rng.uniform(0.9, 1.1))
    pip_ink = pieceset.pip_inks[colour]
    numbers = die_body_numbers(colour)
    grain = materials.noise(rng, FACE_PX, FACE_PX * 6, 8.0)
    bevel = _bevel(FACE_PX, 0.09, 0.45)
    out = {}
    for i, (n, number) in enumerate(numbers.items()):
        tex = np.empty((FACE_PX, FACE_PX, 3), np.float32)
        tex[:] = body
        tex *= (1 + 0.03 * grain[:, i * FACE_PX:(i + 1) * FACE_PX])[..., None]
        m = symbols.pip_mask(number, FACE_PX, 0.085 if pieceset.pip_hollow else 0.1)
        if pieceset.pip_hollow:  # a pip is a little hollow: a dark rim left/up of the paint
            rim = np.roll(np.roll(m, -2, 0), -2, 1) * (1 - m)
            tex = tex * (1 - 0.5 * rim[..., None])
        tex = tex * (1 - m[..., None]) + pip_ink * m[..., None]
        out[n] = (np.ascontiguousarray(tex * bevel), number)
    return out


def die_solid(center, R: np.ndarray, R_body: np.ndarray, textures: dict) -> Solid:
    specs = {}
    for n, (tex, number) in textures.items():
        board_dir = R_body @ np.array(n, np.float64)
        direction = direction_of(board_dir)
        specs[n] = {"texture": tex, "gloss": 0.35, "shininess": 60.0,
                    "label": str(number), "direction": direction}
    faces = box_faces(center, np.full(3, DIE_MM / 2), R @ R_body, specs)
    return Solid("die", faces, np.asarray(center, np.float64), height=DIE_MM)


# --------------------------------------------------------------------------- pawns

def pawn_solids(base, player: int, rng) -> list[Solid]:
    """A turned wooden pawn: a base, a tapering body and a ball head (three solids)."""
    col = PAWN_COLOURS[player] * np.float32(rng.uniform(0.92, 1.06))
    base = np.asarray(base, np.float64)
    yaw = float(rng.uniform(0, 30))
    parts = [
        (prism_faces(base, 9.0, 8.0, 3.0, 16, col, gloss=0.1, yaw=yaw), 1.5),
        (prism_faces(base + (0, 0, 3.0), 6.8, 3.2, 15.0, 16, col * 0.97, gloss=0.1, yaw=yaw),
         10.0),
        (sphere_faces(base + (0, 0, 21.5), 5.0, col, gloss=0.15), 21.5),
    ]
    out = []
    for faces, zc in parts:
        out.append(Solid("pawn", faces, base + (0, 0, zc), height=26.5))
    return out


# --------------------------------------------------------------------------- stones

@lru_cache(maxsize=4)
def _stone_disc(size: int) -> np.ndarray:
    disc = np.zeros((size * 4, size * 4), np.uint8)
    cv2.circle(disc, (size * 2, size * 2), int(size * 1.62), 255, -1, cv2.LINE_AA)
    d = cv2.resize(disc, (size, size), interpolation=cv2.INTER_AREA)[..., None] / 255.0
    d.setflags(write=False)
    return d


#: a stone's print, drawn for each stone (symbols.digit_mask's arguments): no two prints of
#: a digit alike, so that what is learnt from renders is the digit, not one font
PRINT_JITTER = {"height": (0.355, 0.375, 0.395), "weight": (0.9, 1.0, 1.1),
                "slant": (-0.05, 0.0, 0.05), "stretch": (0.92, 1.0, 1.08)}


def stone_top_texture(token: str, rng, pieceset: PieceSet = SETS["default"]) -> np.ndarray:
    """The top of a Cubes stone: ``W`` white; a player stone shows a disc, white with a
    black digit (active, upper-case letter) or black with a white digit (inactive), in a
    rim of the player's colour."""
    size = FACE_PX
    if token == "W":
        tex = np.empty((size, size, 3), np.float32)
        tex[:] = pieceset.white_stone * np.float32(rng.uniform(0.95, 1.02))
        return tex * _bevel(size, 0.06, 0.25)
    colour = pieceset.stone_colours[COLOUR_LETTERS[token[0].upper()]]
    active = token[0].isupper()
    tex = np.empty((size, size, 3), np.float32)
    tex[:] = colour
    d = _stone_disc(size)
    face_col = np.array([0.93, 0.93, 0.92] if active else [0.09, 0.09, 0.09], np.float32)
    digit_col = np.array([0.05, 0.05, 0.05] if active else [0.92, 0.92, 0.92], np.float32)
    tex = tex * (1 - d) + face_col * d
    # each stone's print a little different: weight, lean, width and size
    digit = symbols.digit_mask(token[1], size, style=pieceset.digit_style,
                               **{k: float(rng.choice(v)) for k, v in PRINT_JITTER.items()})
    tex = _print(tex.astype(np.float32), digit, digit_col, rng, opacity=0.97)
    return (tex * _bevel(size, 0.06, 0.25)).astype(np.float32)


def stone_solid(center_bottom, yaw_R: np.ndarray, token: str, rng,
                pieceset: PieceSet = SETS["default"], top: np.ndarray | None = None) -> Solid:
    """A stone; ``top``: its top texture when made already (else from ``rng``)."""
    side = pieceset.stone_colours[COLOUR_LETTERS[token[0].upper()]] if token != "W" \
        else pieceset.white_side
    if top is None:
        top = stone_top_texture(token, rng, pieceset)
    c = np.asarray(center_bottom, np.float64) + (0, 0, STONE_THICK_MM / 2)
    specs = {(0, 0, 1): {"texture": top, "gloss": 0.25, "shininess": 50.0, "label": token,
                         "direction": "up"}}
    for n in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)):
        specs[n] = {"colour": side * 0.95, "gloss": 0.2, "shininess": 40.0}
    half = np.array([STONE_MM / 2, STONE_MM / 2, STONE_THICK_MM / 2])
    faces = box_faces(c, half, yaw_R, specs)
    return Solid("stone", faces, c, height=STONE_THICK_MM)


def ink_colour(rng) -> np.ndarray:
    """Printed symbols: near-black, dark brown or dark indigo ink (BGR)."""
    choices = np.array([[0.08, 0.08, 0.09], [0.06, 0.10, 0.16], [0.25, 0.10, 0.07]],
                       np.float32)
    return choices[int(rng.integers(len(choices)))] * np.float32(rng.uniform(0.7, 1.3))


# --------------------------------------------------------------------------- cards

CARD_MM = (62.0, 88.0)  # a playing card, short side facing the player


def dependency_card_texture(colour: str, rng) -> np.ndarray:
    """A Cubes dependency card ("Abhängigkeit") face up: a white card with a large disc
    of the colour its holder depends on, and its title."""
    w, h = 124, 176
    tex = np.empty((h, w, 3), np.float32)
    tex[:] = np.array([0.93, 0.94, 0.94], np.float32) * np.float32(rng.uniform(0.94, 1.02))
    big = np.zeros((h * 4, w * 4), np.uint8)
    cv2.circle(big, (w * 2, int(h * 2.1)), int(w * 1.45), 255, -1, cv2.LINE_AA)
    disc = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)[..., None] / 255.0
    tex = tex * (1 - disc) + PLAYER_COLOURS[colour] * disc
    title = np.zeros((h, w), np.uint8)
    glyphs.draw_text(title, "ABHAENGIGKEIT", (9, 20), 8, "light")
    tex = _print(tex.astype(np.float32), title.astype(np.float32) / 255,
                 np.array([0.15, 0.15, 0.15], np.float32), rng)
    cv2.rectangle(tex, (3, 3), (w - 4, h - 4), (0.3, 0.3, 0.3), 1, cv2.LINE_AA)
    return tex.astype(np.float32)


def card_solid(center_bottom, R: np.ndarray, texture: np.ndarray) -> Solid:
    c = np.asarray(center_bottom, np.float64) + (0, 0, 0.2)
    specs = {(0, 0, 1): {"texture": texture, "gloss": 0.15, "shininess": 30.0}}
    half = np.array([CARD_MM[0] / 2, CARD_MM[1] / 2, 0.2])
    return Solid("card", box_faces(c, half, R, specs), c, height=0.4)
