"""Scenes in millimetres: the table, the board of each game, the pieces of a position,
the lamps. Everything random comes from named sub-streams of the seed (rng.make_rng).

Board frame: the board's centre is its origin, u east, v north, z up from the table;
a board lies on the table turned by ``yaw`` degrees (anticlockwise seen from above) and
shifted by ``center``. The observation's directions (north, east...) are the board's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from rules.core import InvalidPosition
from vision.render import glyphs, materials, pieces
from vision.render.geometry import Solid, box_faces, direction_of, rot_z
from vision.render.rng import make_rng

GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc", "neunfeld", "tyr", "cubes")
ESOLOE_FAMILY = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")

TABLE_MM = (1800.0, 1200.0)  # the table top, centred on the world origin
TABLE_PX_PER_MM = 0.8


# --------------------------------------------------------------------------- boards

@dataclass(frozen=True)
class Cell:
    name: str  # "0".."4" (e-SOLO-e), "0".."8" (3x3), "1".."9" (Neunfeld), "r,c" (Tyr, Cubes)
    u: float
    v: float
    half: float  # half the side of the square field


@dataclass(frozen=True)
class BoardSpec:
    game: str
    material: str  # ceramic, leather, card
    width: float  # east-west, mm
    depth: float  # north-south, mm
    thickness: float
    cells: tuple[Cell, ...]


@lru_cache(maxsize=16)
def board_spec(game: str) -> BoardSpec:
    if game == "esoloe":  # ceramic 6 x 13 cm, five fields in a row
        cells = tuple(Cell(str(i), (i - 2) * 24.0, 0.0, 10.5) for i in range(5))
        return BoardSpec(game, "ceramic", 130.0, 60.0, 7.0, cells)
    if game in ESOLOE_FAMILY:  # 3x3 ceramic tile, same field pitch
        cells = tuple(Cell(str(3 * r + c), (c - 1) * 24.0, (1 - r) * 24.0, 10.5)
                      for r in range(3) for c in range(3))
        return BoardSpec(game, "ceramic", 88.0, 88.0, 7.0, cells)
    if game == "neunfeld":  # leather 2.5 x 23 cm, fields 1..9 west to east
        pitch = 230.0 / 9
        cells = tuple(Cell(str(i + 1), (i - 4) * pitch, 0.0, pitch / 2 - 0.4)
                      for i in range(9))
        return BoardSpec(game, "leather", 230.0, 25.0, 3.0, cells)
    if game == "tyr":  # leather 28 x 28 cm, 9 x 9 fields of 2.5 cm; row 1 north, col 1 west
        cells = tuple(Cell(f"{r},{c}", (c - 5) * 25.0, (5 - r) * 25.0, 12.1)
                      for r in range(1, 10) for c in range(1, 10))
        return BoardSpec(game, "leather", 280.0, 280.0, 3.0, cells)
    if game == "cubes":  # printed board, 10 x 10 fields of 3 cm; row 0 north
        cells = tuple(Cell(f"{r},{c}", (c - 4.5) * 30.0, (4.5 - r) * 30.0, 14.4)
                      for r in range(10) for c in range(10))
        return BoardSpec(game, "card", 330.0, 330.0, 2.5, cells)
    raise InvalidPosition("game", f"unknown game {game!r} (known: {', '.join(GAMES)})")


def named_games(text: str) -> list[str]:
    """The games of ``text``, comma-separated (a measuring command's ``--games``);
    ``ValueError`` naming each unknown one and the known ones."""
    games = text.split(",")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise ValueError(f"--games: unknown {', '.join(map(repr, unknown))} (known: "
                         f"{', '.join(GAMES)})")
    return games


def three_and_c_marks() -> tuple[dict[int, int], set[int]]:
    """({cell index: number of points}, {blue cell indices}) of the 3andC board: the rules'
    board file (``rules.esoloe.load_board``, ``rules/data/3andc-board.json``), the one
    vision's ``mark_turn`` reads too."""
    from rules.esoloe import load_board

    board = load_board("default")
    return {i: n for i, n in enumerate(board.points) if n}, set(board.blue)


@dataclass
class Board:
    spec: BoardSpec
    center: np.ndarray  # (x, y) on the table, mm
    yaw: float  # degrees

    @property
    def R(self) -> np.ndarray:
        return rot_z(self.yaw)

    @property
    def z_top(self) -> float:
        return self.spec.thickness

    def world(self, u, v, z) -> np.ndarray:
        return self.R @ np.array([u, v, z], np.float64) + np.array([*self.center, 0.0])

    def corners(self) -> dict[str, np.ndarray]:
        """The top face's corners by compass name."""
        w, d = self.spec.width / 2, self.spec.depth / 2
        return {"nw": self.world(-w, d, self.z_top), "ne": self.world(w, d, self.z_top),
                "se": self.world(w, -d, self.z_top), "sw": self.world(-w, -d, self.z_top)}

    def cell_polygon(self, cell: Cell) -> np.ndarray:
        h = cell.half
        return np.array([self.world(cell.u + du, cell.v + dv, self.z_top)
                         for du, dv in ((-h, h), (h, h), (h, -h), (-h, -h))])


def _px(u, v, spec: BoardSpec, ppm: float):
    """Texture pixel coordinates of the board point (u, v) mm: pixel i's centre is at i,
    as in OpenCV's drawing and the face's warp (``draw._tex_corners``), so the texture's
    edge is at -0.5."""
    return ((u + spec.width / 2) * ppm - 0.5, (spec.depth / 2 - v) * ppm - 0.5)


def _cover(lo: float, hi: float, start: int, stop: int) -> np.ndarray:
    """How much of each pixel start..stop - 1 (pixel i spans i - 0.5 .. i + 0.5) the
    interval lo..hi covers."""
    i = np.arange(start, stop, dtype=np.float32)
    return np.clip(np.minimum(i + 0.5, hi) - np.maximum(i - 0.5, lo), 0.0, 1.0)


def _draw_rect(img, spec, ppm, u0, v0, u1, v1, colour, width_mm, filled=False):
    """The rectangle u0..u1 x v0..v1 (mm) painted on the texture ``img``: its outline
    ``width_mm`` wide centred on its sides, or (``filled``) the whole of it, each pixel
    blended by the share of its area covered (exact at any width and position: a line
    is where the board's geometry has it, not rounded onto whole pixels)."""
    (x0, y0), (x1, y1) = _px(u0, v0, spec, ppm), _px(u1, v1, spec, ppm)
    x0, x1, y0, y1 = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
    h = 0.0 if filled else width_mm * ppm / 2
    rows = max(int(np.floor(y0 - h + 0.5)), 0), min(int(np.ceil(y1 + h + 0.5)), img.shape[0])
    cols = max(int(np.floor(x0 - h + 0.5)), 0), min(int(np.ceil(x1 + h + 0.5)), img.shape[1])
    if rows[0] >= rows[1] or cols[0] >= cols[1]:
        return
    a = np.outer(_cover(y0 - h, y1 + h, *rows), _cover(x0 - h, x1 + h, *cols))
    if not filled:  # the outline: the outer rectangle less the inner one
        a -= np.outer(_cover(y0 + h, y1 - h, *rows), _cover(x0 + h, x1 - h, *cols))
    sub = img[rows[0]:rows[1], cols[0]:cols[1]]
    sub += a[..., None] * (np.asarray(colour, np.float32) - sub)


# the painted lines' widths (mm): the tiles' frame line and fields' outlines, leather's
# grooves and lips, the card's grid (as OpenCV's rectangles drew them before
# session 9: a line of n px came out n + 1 px wide)
LINE_MM = {"ceramic": 1.0, "leather": 0.75, "card": 0.85}


def board_texture(spec: BoardSpec, rng: np.random.Generator, ppm: float) -> np.ndarray:
    """The board's top face, north edge at the top row."""
    h, w = int(round(spec.depth * ppm)), int(round(spec.width * ppm))
    if spec.material == "ceramic":
        img = materials.ceramic(rng, h, w, ppm)
        ink = np.array([0.55, 0.30, 0.12], np.float32) * np.float32(rng.uniform(0.8, 1.1))
        m = 3.5
        _draw_rect(img, spec, ppm, -spec.width / 2 + m, spec.depth / 2 - m,
                   spec.width / 2 - m, -spec.depth / 2 + m, ink, LINE_MM["ceramic"])
        points, blue = three_and_c_marks() if spec.game == "esoloe-3andc" else ({}, set())
        for i, c in enumerate(spec.cells):
            if i in blue:
                _draw_rect(img, spec, ppm, c.u - c.half, c.v + c.half, c.u + c.half,
                           c.v - c.half, np.array([0.75, 0.45, 0.15], np.float32), 0, True)
            _draw_rect(img, spec, ppm, c.u - c.half, c.v + c.half, c.u + c.half,
                       c.v - c.half, ink, LINE_MM["ceramic"])
            for k in range(points.get(i, 0)):  # black dots, on the diagonal
                off = 0.0 if points[i] == 1 else (k - (points[i] - 1) / 2) * 7.0
                x, y = _px(c.u + off, c.v - off, spec, ppm)
                cv2.circle(img, (round(x * 16), round(y * 16)), round(2.0 * ppm * 16),
                           (0.08, 0.08, 0.08), -1, cv2.LINE_AA, shift=4)
        if spec.game == "esoloe":  # the maker's mark in the south margin
            x, y = _px(-14, -spec.depth / 2 + 7.5, spec, ppm)
            _text(img, "e-SOLO-e", x, y, 2.4 * ppm, "light", 1.0, ink)
        return img
    if spec.material == "leather":
        img = materials.leather(rng, h, w, ppm)
        dark = img.mean((0, 1)) * 0.45
        light = np.minimum(img.mean((0, 1)) * 1.5 + 0.1, 1)
        for c in spec.cells:  # embossed field borders: dark groove, light lip
            for off, col in ((0.0, dark), (0.35, light)):
                _draw_rect(img, spec, ppm, c.u - c.half - off, c.v + c.half + off,
                           c.u + c.half - off, c.v - c.half + off, col, LINE_MM["leather"])
        if spec.game == "neunfeld":  # each field's number, below its centre (as before)
            for c in spec.cells:
                x, y = _px(c.u - glyphs.text_width(c.name, 4.2, "heavy") / 2, c.v - 4.3,
                           spec, ppm)
                _text(img, c.name, x, y, 4.2 * ppm, "heavy", 0.75,
                      np.array([0.55, 0.78, 0.86], np.float32))
        # the stitching round the edge: a stitch 0.6 mm wide, 2.4 mm long, every 3 mm,
        # clockwise from the north-west corner (one round a corner drawn on both sides)
        m = 1.6 if spec.game == "neunfeld" else 6.0
        thread = np.array([0.75, 0.85, 0.9], np.float32)
        per = 3.0
        sides = _sides(spec, m)
        at = np.cumsum([0.0] + [math.dist(a, b) for a, b in sides])
        for k in range(int(at[-1] / per)):
            for (a, b), s0, s1 in zip(sides, at, at[1:], strict=False):
                t0, t1 = max(k * per, s0) - s0, min(k * per + 2.4, s1) - s0
                if t1 > t0:  # the stitch's piece on this side, a filled rectangle
                    along = np.subtract(b, a) / (s1 - s0)
                    across = np.array([-along[1], along[0]]) * 0.3
                    _draw_rect(img, spec, ppm, *(np.add(a, along * t0) - across),
                               *(np.add(a, along * t1) + across), thread, 0, True)
        return img
    # printed card (Cubes): a margin band round a 10x10 grid
    img = materials.paper(rng, h, w, ppm, colour=str(rng.choice(["#ece6d6", "#e6e8e4",
                                                                 "#efe4c8"])))
    band = np.array(rng.choice([[0.35, 0.22, 0.12], [0.2, 0.3, 0.15], [0.15, 0.15, 0.45]]),
                    np.float32)
    _draw_rect(img, spec, ppm, -spec.width / 2, spec.depth / 2, spec.width / 2,
               -spec.depth / 2, band, 15.0 - 0.5)
    line = np.array([0.25, 0.25, 0.25], np.float32)
    shade = (img[h // 2, w // 2] * np.array([0.86, 0.9, 0.92])).astype(np.float32)
    for c in spec.cells:
        r, col = (int(x) for x in c.name.split(","))
        if (r + col) % 2:
            _draw_rect(img, spec, ppm, c.u - 15, c.v + 15, c.u + 15, c.v - 15, shade, 0, True)
    for k in range(11):
        _draw_rect(img, spec, ppm, -150 + 30 * k, 150, -150 + 30 * k, -150, line,
                   LINE_MM["card"])
        _draw_rect(img, spec, ppm, -150, 150 - 30 * k, 150, 150 - 30 * k, line, LINE_MM["card"])
    return img


def _text(img, text, x, y, height, style, weight, colour) -> None:
    """Prints ``text`` in the renderer's glyphs (``glyphs.draw_text``: baseline from
    ``(x, y)``, ``height`` px capitals): an 8-bit mask, blended in."""
    m = glyphs.draw_text(np.zeros(img.shape[:2], np.uint8), text, (x, y), height, style,
                         weight=weight)
    a = (m.astype(np.float32) / 255)[..., None]
    img *= 1 - a
    img += a * colour


def _sides(spec: BoardSpec, m: float) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The sides (mm) of the rectangle ``m`` mm inside the board's edge, clockwise from
    its north-west corner."""
    w, d = spec.width / 2 - m, spec.depth / 2 - m
    return [((-w, d), (w, d)), ((w, d), (w, -d)), ((w, -d), (-w, -d)), ((-w, -d), (-w, d))]


BOARD_PX_PER_MM = {"ceramic": 5.0, "leather": 4.0, "card": 3.5}


_MEANS: dict = {}


def mean_colour(texture: np.ndarray) -> np.ndarray:
    """The texture's mean BGR (remembered: board textures are reused scene after scene)."""
    hit = _MEANS.get(id(texture))
    if hit is not None and hit[0] is texture:
        return hit[1]
    if len(_MEANS) > 64:
        _MEANS.clear()
    mean = np.array(cv2.mean(texture)[:3], np.float32)
    _MEANS[id(texture)] = (texture, mean)
    return mean


def board_solid(board: Board, texture: np.ndarray) -> Solid:
    spec = board.spec
    half = np.array([spec.width / 2, spec.depth / 2, spec.thickness / 2])
    c = board.world(0, 0, spec.thickness / 2)
    side = mean_colour(texture) * np.float32(
        0.85 if spec.material == "ceramic" else 0.6)
    gloss = {"ceramic": 0.9, "leather": 0.12, "card": 0.05}[spec.material]
    shin = {"ceramic": 180.0, "leather": 18.0, "card": 10.0}[spec.material]
    grid = int(np.clip(max(spec.width, spec.depth) / 5, 8, 48))
    specs = {(0, 0, 1): {"texture": texture, "gloss": gloss, "shininess": shin,
                         "shade_grid": grid, "up": (0, 1, 0)}}
    for n in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)):
        specs[n] = {"colour": side, "gloss": gloss * 0.3, "shininess": shin}
    faces = box_faces(c, half, board.R, specs)
    footprint = np.array([board.world(u, v, 0.0) for u, v in
                          ((-half[0], half[1]), (half[0], half[1]), (half[0], -half[1]),
                           (-half[0], -half[1]))])
    return Solid("board", faces, c, rest_z=0.0, height=spec.thickness, footprint=footprint)


# --------------------------------------------------------------------------- lamps

def kelvin_bgr(k: float) -> np.ndarray:
    """Rough colour of a lamp of ``k`` kelvin, BGR, brightest channel 1."""
    table = [(2000, (0.22, 0.55, 1.0)), (2700, (0.42, 0.72, 1.0)), (3500, (0.62, 0.82, 1.0)),
             (4500, (0.82, 0.92, 1.0)),
             (5500, (0.94, 0.97, 1.0)), (6500, (1.0, 0.99, 0.97)),
             (8000, (1.0, 0.92, 0.84))]
    ks = [t[0] for t in table]
    cols = np.array([t[1] for t in table])
    return np.array([np.interp(k, ks, cols[:, i]) for i in range(3)], np.float32)


@dataclass
class Lamp:
    position: np.ndarray
    colour: np.ndarray  # BGR, includes power
    radius: float  # mm, for soft shadows

    def to_json(self) -> dict:
        return {"position_mm": self.position.tolist(), "colour_bgr": self.colour.tolist(),
                "radius_mm": self.radius}


LIGHTS = ("room", "hard")


def random_lamps(rng, target, light: str = "room") -> tuple[list[Lamp], np.ndarray]:
    """Lamps round ``target`` and the ambient. ``room``: one or two lamps of 2700..6500 K,
    large and small. ``hard``: one small lamp, very warm (2000..2900 K) or cold
    (6500..8000 K), over a dim ambient: crisp shadows, strong colour casts."""
    if light == "hard":
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(150, 700)
        pos = np.array([target[0] + r * math.cos(a), target[1] + r * math.sin(a),
                        rng.uniform(450, 1100)])
        k = rng.uniform(2000, 2900) if rng.random() < 0.5 else rng.uniform(6500, 8000)
        ambient = kelvin_bgr(rng.uniform(5000, 8000)) * np.float32(rng.uniform(0.1, 0.22))
        return [Lamp(pos, kelvin_bgr(k), float(rng.uniform(3, 10)))], ambient
    if light != "room":
        raise ValueError(f"unknown light {light!r} (known: {', '.join(LIGHTS)})")
    n = 1 if rng.random() < 0.55 else 2
    lamps = []
    for i in range(n):
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(80, 900)
        z = rng.uniform(500, 1400)
        pos = np.array([target[0] + r * math.cos(a), target[1] + r * math.sin(a), z])
        power = 1.0 if i == 0 else rng.uniform(0.3, 0.8)
        col = kelvin_bgr(rng.uniform(2700, 6500)) * np.float32(power)
        lamps.append(Lamp(pos, col, float(rng.uniform(15, 90))))
    ambient = kelvin_bgr(rng.uniform(4500, 7500)) * np.float32(rng.uniform(0.22, 0.5))
    return lamps, ambient


# --------------------------------------------------------------------------- scene

@dataclass
class Scene:
    game: str
    position: dict
    seed: int
    board: Board
    solids: list[Solid]
    table_kind: str
    table_texture: np.ndarray
    floor_texture: np.ndarray
    lamps: list[Lamp]
    ambient: np.ndarray
    table_gloss: float = 0.05
    extras: dict = field(default_factory=dict)

    @property
    def target(self) -> np.ndarray:
        return np.array([*self.board.center, self.board.z_top])

    @property
    def extent(self) -> float:
        """Diameter (mm) of what the camera should frame: the board and what lies by it."""
        pts = [s.center[:2] for s in self.solids if s.kind != "board"]
        pts += [c[:2] for c in self.board.corners().values()]
        d = np.linalg.norm(np.array(pts) - self.board.center, axis=1).max()
        return float(2 * d + 20)


@lru_cache(maxsize=6)
def environment(seed: int, game: str, table_kind: str | None):
    """Textures that stay fixed for one seed (one table), so scripted frames share them."""
    rng = make_rng(seed, "table")
    w, h = (int(v * TABLE_PX_PER_MM) for v in TABLE_MM)
    kind, tex = materials.table_texture(rng, h, w, TABLE_PX_PER_MM, table_kind)
    floor = materials.floor(make_rng(seed, "floor"), 96, 160)
    spec = board_spec(game)
    btex = board_texture(spec, make_rng(seed, "board", game), BOARD_PX_PER_MM[spec.material])
    for a in (tex, floor, btex):
        a.setflags(write=False)
    return kind, tex, floor, btex


class Looks:
    """Where a scene's piece textures and lamps come from: all made from its seed (the
    games' own set, pieces.SETS["default"], under room light)."""

    def __init__(self, seed: int):
        self.seed = seed
        self.set = pieces.SETS["default"]
        self.ink = pieces.ink_colour(make_rng(seed, "look"))

    def cube(self, player: int, key: tuple, labels_by_body: dict) -> dict:
        tex = pieces.cube_textures(make_rng(self.seed, "cube-wood", *key, player), player,
                                   self.set)
        return pieces.print_faces(tex, labels_by_body, self.ink,
                                  make_rng(self.seed, "cube-ink", *key), self.set.symbol_style)

    def die(self, colour: str) -> dict:
        return pieces.die_textures(colour, make_rng(self.seed, "die-look", colour), self.set)

    def stone(self, base, yaw_R, token: str, rng) -> Solid:
        return pieces.stone_solid(base, yaw_R, token, rng, self.set)

    def lamps(self, target) -> tuple[list[Lamp], np.ndarray]:
        """The scene's lamps, aimed at ``target``."""
        return random_lamps(make_rng(self.seed, "lamps"), target, "room")


def _clip(x, lo, hi):
    return float(min(max(x, lo), hi))


def build_scene(game: str, position: dict, seed: int, *, table: str | None = None,
                board_pose: tuple[float, float, float] | None = None,
                cube_set: str = "corner") -> Scene:
    """The scene for ``position`` (the observation's position object) of ``game``.

    ``board_pose`` = (x, y, yaw degrees) overrides the random placement of the board.
    """
    spec = board_spec(game)
    kind, ttex, floor, btex = environment(seed, game, table)
    if board_pose is None:
        r = make_rng(seed, "board-pose")
        board_pose = (float(r.normal(0, 15)), float(r.normal(0, 15)), float(r.normal(0, 6)))
    board = Board(spec, np.array(board_pose[:2], np.float64), float(board_pose[2]))
    solids = [board_solid(board, btex)]
    looks = Looks(seed)
    if game in ESOLOE_FAMILY:
        solids += _esoloe_pieces(board, position, seed, looks, cube_set)
    elif game == "neunfeld":
        solids += _neunfeld_pieces(board, position, seed, looks)
    elif game == "tyr":
        solids += _tyr_pieces(board, position, seed, looks)
    else:
        solids += _cubes_pieces(board, position, seed, looks)
        solids += _dependency_cards(board, position, seed)
    lamps, ambient = looks.lamps(board.center)
    gloss = {"wood": 0.12, "cloth": 0.0, "paper": 0.03}[kind]
    for i, s in enumerate(solids):
        s.id = i
    return Scene(game, position, seed, board, solids, kind, ttex, floor, lamps, ambient,
                 gloss)


def _key(*parts) -> str:
    return json.dumps(parts, sort_keys=True, separators=(",", ":"))


def _esoloe_pieces(board: Board, position: dict, seed: int, looks: Looks,
                   cube_set: str) -> list[Solid]:
    cells = position.get("cells") if isinstance(position, dict) else None
    n = len(board.spec.cells)
    if not isinstance(cells, list) or len(cells) != n:
        raise InvalidPosition("cells", f"expected a list of {n} stacks")
    out = []
    for i, stack in enumerate(cells):
        if not isinstance(stack, list) or len(stack) > 4:
            raise InvalidPosition(f"cells.{i}", "expected a stack of at most 4 cubes")
        cell = board.spec.cells[i]
        du = dv = 0.0
        for level, cube in enumerate(stack):
            key = f"cells.{i}.{level}"
            if not isinstance(cube, dict) or cube.get("player") not in (0, 1):
                raise InvalidPosition(f"{key}.player", "expected player 0 or 1")
            faces = cube.get("faces") or {}
            if not isinstance(faces, dict):
                raise InvalidPosition(f"{key}.faces", "expected an object of six faces")
            for d, v in faces.items():
                if v not in (None, "sakura", "fuji", "geisha", "blank"):
                    raise InvalidPosition(f"{key}.faces.{d}", f"unknown face value {v!r}")
            jit = make_rng(seed, "cube-place", i, level)
            slack = cell.half - pieces.CUBE_MM / 2
            sigma = 1.1 if level == 0 else 0.7
            du = _clip(du + jit.normal(0, sigma), -slack, slack)
            dv = _clip(dv + jit.normal(0, sigma), -slack, slack)
            yaw = _clip(jit.normal(0, 6.0), -18, 18)
            player = cube["player"]
            orient_rng = make_rng(seed, "cube-orient", i, level, _key(faces))
            R_body, painted = pieces.cube_orientation(faces, orient_rng, cube_set)
            if painted is None:
                labels = pieces.cube_labels(cube_set)
            else:  # body normal -> the label asked for the direction it faces
                labels = {n: painted[direction_of(R_body @ np.array(n, np.float64))]
                          for n in pieces.cube_labels()}
            printed = looks.cube(player, (i, level), labels)
            z = board.z_top + (level + 0.5) * pieces.CUBE_MM
            center = board.world(cell.u + du, cell.v + dv, z)
            yaw_R = board.R @ rot_z(yaw)
            s = pieces.cube_solid(center, yaw_R, R_body, labels, printed, painted is not None)
            s.rest_z = board.z_top
            s.height = (level + 1) * pieces.CUBE_MM
            if level == 0:
                s.footprint = _square(center - (0, 0, pieces.CUBE_MM / 2), yaw_R,
                                      pieces.CUBE_MM / 2)
            drawn = {f.direction: f.label for f in s.faces}
            s.info = {"piece": f"cube:{i}:{level}", "cell_name": cell.name, "cell": i,
                      "level": level, "player": player, "faces": drawn,
                      "rotation": (yaw_R @ R_body).tolist(), "yaw_deg": yaw,
                      "center_world_mm": center.tolist(),
                      "offset_mm": [du, dv], "painted": painted is not None}
            out.append(s)
    return out


def _square(center, R, half) -> np.ndarray:
    return np.array([center + R @ np.array([a, b, 0.0]) * half
                     for a, b in ((-1, 1), (1, 1), (1, -1), (-1, -1))])


def _die(board: Board, colour: str, top, u, v, yaw, seed, where, looks: Looks) -> Solid:
    if top is None:  # not known (a die beside the board): any face, from the seed
        top = int(make_rng(seed, "die-top", colour).choice(sorted(
            pieces.die_body_numbers(colour).values())))
    elif top not in pieces.die_body_numbers(colour).values():
        raise InvalidPosition(f"dice.{colour}.top",
                              f"{top!r} is not a face of the {colour} die")
    R_body = pieces.die_orientation(colour, top, make_rng(seed, "die-orient", colour, where))
    tex = looks.die(colour)
    z_rest = board.z_top if where[0] == "cell" else 0.0
    yaw_R = rot_z(board.yaw + yaw)
    center = board.world(u, v, 0.0)
    center[2] = z_rest + pieces.DIE_MM / 2
    s = pieces.die_solid(center, yaw_R, R_body, tex)
    s.rest_z = z_rest
    s.footprint = _square(center - (0, 0, pieces.DIE_MM / 2), yaw_R, pieces.DIE_MM / 2)
    s.info = {"piece": f"die:{colour}", "colour": colour, "top": top,
              "faces": {f.direction: int(f.label) for f in s.faces},
              "rotation": (yaw_R @ R_body).tolist(), "yaw_deg": board.yaw + yaw}
    return s


def _dice_position(position, key="dice") -> dict:
    dice = position.get(key) if isinstance(position, dict) else None
    if not isinstance(dice, dict) or set(dice) != {"blue", "red", "black"}:
        raise InvalidPosition(key, "expected the blue, red and black dice")
    for c, d in dice.items():
        if not isinstance(d, dict):
            raise InvalidPosition(f"{key}.{c}", "expected an object")
    return dice


def _neunfeld_pieces(board: Board, position: dict, seed: int, looks: Looks) -> list[Solid]:
    pawns = position.get("pawns") if isinstance(position, dict) else None
    if not isinstance(pawns, list) or len(pawns) != 2 or not all(
            isinstance(p, int) and 0 <= p <= 10 for p in pawns):
        raise InvalidPosition("pawns", "expected two fields 0..10")
    out = []
    spec = board.spec
    pitch = spec.width / 9
    for player, p in enumerate(pawns):
        jit = make_rng(seed, "pawn", player, p)
        if 1 <= p <= 9:
            u, v = spec.cells[p - 1].u, 0.0
        else:
            u, v = (-1 if p == 0 else 1) * (spec.width / 2 + pitch * 0.75), 0.0
        u += _clip(jit.normal(0, 1.0), -3, 3)
        v += _clip(jit.normal(0, 1.0), -3, 3)
        z = board.z_top if 1 <= p <= 9 else 0.0
        base = board.world(u, v, 0.0)
        base[2] = z
        for s in pieces.pawn_solids(base, player, jit):
            s.rest_z = z
            s.info = {"piece": f"pawn:{player}", "player": player, "field": p,
                      "cell_name": str(p) if 1 <= p <= 9 else None}
            out.append(s)
        out[-3].footprint = _square(base, rot_z(0), 8.5)
    dice = _dice_position(position)
    for k, (colour, d) in enumerate(dice.items()):
        holder = d.get("holder")
        if holder not in (None, 0, 1):
            raise InvalidPosition(f"dice.{colour}.holder", "expected 0, 1 or null")
        jit = make_rng(seed, "die-place", colour, holder)
        if holder is None:  # just rolled, in the middle in front of the board
            u = (k - 1) * 34 + jit.normal(0, 8)
            v = -(spec.depth / 2 + 40 + jit.normal(0, 8))
            yaw = jit.uniform(-45, 45)
        else:
            side = -1 if holder == 0 else 1
            order = [c for c in dice if dice[c].get("holder") == holder].index(colour)
            u = (order - 0.5) * 36 + jit.normal(0, 4)
            v = side * (spec.depth / 2 + 32 + jit.normal(0, 4))
            yaw = jit.normal(0, 10)
        s = _die(board, colour, d.get("top"), u, v, yaw, seed,
                 ("holder", holder, d.get("top")), looks)
        s.info["holder"] = holder
        out.append(s)
    return out


def _tyr_pieces(board: Board, position: dict, seed: int, looks: Looks) -> list[Solid]:
    dice = _dice_position(position)
    out = []
    for k, (colour, d) in enumerate(dice.items()):
        cell = d.get("cell")
        jit = make_rng(seed, "die-place", colour, _key(cell))
        if cell is None:
            u = (k - 1) * 40 + jit.normal(0, 5)
            v = -(board.spec.depth / 2 + 28 + jit.normal(0, 4))
            yaw = jit.normal(0, 15)
        else:
            if (not isinstance(cell, list) or len(cell) != 2
                    or not all(isinstance(x, int) and 1 <= x <= 9 for x in cell)):
                raise InvalidPosition(f"dice.{colour}.cell", "expected [row, column], 1..9")
            c = board.spec.cells[(cell[0] - 1) * 9 + cell[1] - 1]
            slack = c.half - pieces.DIE_MM / 2
            u = c.u + _clip(jit.normal(0, 0.7), -slack, slack)
            v = c.v + _clip(jit.normal(0, 0.7), -slack, slack)
            yaw = _clip(jit.normal(0, 3), -5, 5)
        s = _die(board, colour, d.get("top"), u, v, yaw, seed,
                 ("cell" if cell else "off", _key(cell), d.get("top")), looks)
        s.info["cell"] = cell
        s.info["cell_name"] = f"{cell[0]},{cell[1]}" if cell else None
        out.append(s)
    return out


SEATS = {"south": (0.0, -1.0, 0.0), "north": (0.0, 1.0, 180.0), "east": (1.0, 0.0, 90.0),
         "west": (-1.0, 0.0, -90.0)}  # direction from the board, card turn (degrees)


def _dependency_cards(board: Board, position: dict, seed: int) -> list[Solid]:
    """Each player's dependency card, face up on the table before their seat (Cubes)."""
    players = position.get("players") or []
    if not isinstance(players, list):
        raise InvalidPosition("players", "expected a list of players")
    out = []
    for i, pl in enumerate(players):
        if not isinstance(pl, dict):
            raise InvalidPosition(f"players.{i}", "expected an object")
        seat, dep = pl.get("seat"), pl.get("dependency")
        if seat not in SEATS:
            raise InvalidPosition(f"players.{i}.seat", f"unknown seat {seat!r}")
        if dep is None:
            continue
        if dep not in pieces.PLAYER_COLOURS:
            raise InvalidPosition(f"players.{i}.dependency", f"unknown colour {dep!r}")
        jit = make_rng(seed, "card", seat, dep)
        dx, dy, turn = SEATS[seat]
        reach = board.spec.width / 2 + 60 + jit.normal(0, 6)
        along = jit.normal(0, 35)
        u = dx * reach - dy * along
        v = dy * reach + dx * along
        R = board.R @ rot_z(turn + jit.normal(0, 8))
        s = pieces.card_solid(board.world(u, v, 0.0), R,
                              pieces.dependency_card_texture(dep, jit))
        s.footprint = None
        s.info = {"piece": f"card:{seat}", "seat": seat, "dependency": dep, "player": i}
        out.append(s)
    return out


def stone_turns(position: dict) -> dict[str, int]:
    """Stone letter (upper case) -> the quarter turns (``rules.cubes_position.
    reading_turns``) at which a stone of that colour lies: laid to be read from the seat of
    the player of its colour; a colour no player has lies as if read from the south."""
    from rules.cubes_position import SEATS, reading_turns

    letters = {colour: letter for letter, colour in pieces.COLOUR_LETTERS.items()}
    players = position.get("players")
    return {letters[p["colour"]]: reading_turns(p["seat"]) for p in players
            if isinstance(p, dict) and p.get("colour") in letters
            and p.get("seat") in SEATS} if isinstance(players, list) else {}


def _cubes_pieces(board: Board, position: dict, seed: int, looks: Looks) -> list[Solid]:
    """The stones, each a little off its field's centre and turned a few degrees; a
    player's stone laid to be read from the player's seat (``stone_turns``)."""
    grid = position.get("grid") if isinstance(position, dict) else None
    if not isinstance(grid, list) or len(grid) != 10:
        raise InvalidPosition("grid", "expected 10 rows")
    turns = stone_turns(position)
    out = []
    for r, row in enumerate(grid):
        if not isinstance(row, list) or len(row) != 10:
            raise InvalidPosition(f"grid.{r}", "expected 10 tokens")
        for c, tok in enumerate(row):
            if tok == ".":
                continue
            ok = tok == "W" or (isinstance(tok, str) and len(tok) == 2
                                and tok[0].upper() in pieces.COLOUR_LETTERS
                                and tok[1] in "23456")
            if not ok:
                raise InvalidPosition(f"grid.{r}.{c}", f"unknown token {tok!r}")
            cell = board.spec.cells[r * 10 + c]
            jit = make_rng(seed, "stone", r, c, tok)
            slack = cell.half - pieces.STONE_MM / 2
            u = cell.u + _clip(jit.normal(0, 1.2), -slack, slack)
            v = cell.v + _clip(jit.normal(0, 1.2), -slack, slack)
            yaw = _clip(jit.normal(0, 5), -12, 12)
            yaw += 90 * turns.get(tok[0].upper(), 0)
            yaw_R = board.R @ rot_z(yaw)
            base = board.world(u, v, board.z_top)
            s = looks.stone(base, yaw_R, tok, jit)
            s.rest_z = board.z_top
            s.footprint = _square(base, yaw_R, pieces.STONE_MM / 2)
            s.info = {"piece": f"stone:{r},{c}", "cell_name": cell.name, "cell": [r, c],
                      "token": tok, "yaw_deg": board.yaw + yaw}
            out.append(s)
    return out
