"""Training crops, rendered directly as small patches (not cut from full frames).

``render_crops(kind, n, seed, size=64, start=0)`` returns ``n`` crops (uint8 BGR, shape
(n, size, size, 3)) and one label dict per crop. Item ``i`` depends on ``seed`` and
``start + i`` only, so data sets can be made in parallel chunks and come out the same.

Kinds:
``cube``   an e-SOLO-e cube (maybe on a stack, maybe with neighbours) seen from any side
           at 0..60 degrees from vertical, centred; labels: player, faces by direction,
           the up face's symbol and its angle in the crop, visible directions.
``face``   one visible cube face, rectified to a square as the pipeline would cut it (with
           a few percent of corner error) from a render of its cube framed as in a crop
           three times larger (only a window round the cube is drawn); labels: symbol,
           player, rotation (quarter turns clockwise of the symbol's top from the crop's
           top).
``die``    a Miwin die on the Tyr board or beside it; labels: colour, top, faces, the die's
           centre (``centre_mm``, world) and ``top_plane`` (the homography from the
           plane of its top, world mm, to crop px).
``stone``  a Cubes stone on its board; label: the grid token (``W``, ``B4``, ``r3``...).

Variants (``variant=``): ``default`` the set the games come with, under room light;
``other-set`` a deliberately different set (pieces.SETS["other-set"]: other woods and
stain, symbols drawn as thick outlines, other die bodies with gold or black pips, other
stone colours and digit font) under one hard, very warm or cold lamp. Same labels and the
same crop geometry: for measuring adaptation to a set the models were not trained on.

Each crop is a board on a table with the pieces near the crop's own, drawn by the lean
crop painter (crop_paint.py) at crop size, with textures, boards and tables from pools
made once per seed; the item's own random stream places the pieces, the camera and the
imaging, a second one picks the textures and lamps (so a variant changes the looks only).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from rules.miwin import BY_COLOUR
from vision.render import materials, pieces
from vision.render.camera import Camera, look_at
from vision.render.crop_paint import (
    BOX_NORMALS,
    Box,
    CropPainter,
    Light,
    Plane,
    material,
    mips,
    plain,
)
from vision.render.effects import Effects, apply_effects
from vision.render.geometry import ROTATIONS, direction_of, rot_z
from vision.render.rng import make_rng, sub_seed
from vision.render.scene import (
    BOARD_PX_PER_MM,
    TABLE_MM,
    TABLE_PX_PER_MM,
    Board,
    board_spec,
    board_texture,
    mean_colour,
    random_lamps,
)

KINDS = ("cube", "face", "die", "stone")
#: variant -> (pieces.SETS key, scene.LIGHTS key)
VARIANTS = {"default": ("default", "room"), "other-set": ("other-set", "hard")}
POOL = 12  # textures of each sort per pool
INKS = 4
CROP_TABLE_PX = (480, 320)
TABLE_GLOSS = {"wood": 0.12, "cloth": 0.0, "paper": 0.03}
BOARD_LOOK = {  # material -> gloss, shininess, side darkening (as scene.board_solid)
    "ceramic": (0.9, 180.0, 0.85), "leather": (0.12, 18.0, 0.6), "card": (0.05, 10.0, 0.6)}
NEAR_MM = 60.0  # pieces whose shadows can fall on the crop's own piece


class CropPool:
    """Tables, boards and piece textures (mip pyramids) for one seed's crops of one
    variant."""

    def __init__(self, seed: int, variant: str = "default"):
        self.seed = seed
        set_name, self.light = VARIANTS[variant]
        self.set = pieces.SETS[set_name]
        env_seed = seed if variant == "default" else sub_seed(seed, "variant", variant)
        w, h = CROP_TABLE_PX
        self.tables = []
        for k in range(POOL):
            kind, tex = materials.table_texture(make_rng(env_seed, "pool-table", k), h, w, 0.8)
            self.tables.append((kind, mips(tex, 1)[0]))
        self.boards = {}
        for game in ("esoloe", "esoloe-tictactoe", "tyr", "cubes"):
            spec = board_spec(game)
            self.boards[game] = []
            for k in range(3):
                tex = board_texture(spec, make_rng(env_seed, "pool-board", game, k),
                                    BOARD_PX_PER_MM[spec.material])
                self.boards[game].append((mips(tex), mean_colour(tex)))
        inks = [pieces.ink_colour(make_rng(seed, "pool-ink", k)) for k in range(INKS)]
        labels = pieces.cube_labels()
        self.cubes = []  # [player][k][ink] -> a pyramid per face (BOX_NORMALS order)
        for p in (0, 1):
            per_k = []
            for k in range(POOL):
                wood = pieces.cube_textures(make_rng(seed, "pool-cube", p, k), p, self.set)
                per_k.append([
                    _by_normal(pieces.print_faces(wood, labels, inks[i],
                                                  make_rng(seed, "pool-print", p, k, i),
                                                  self.set.symbol_style))
                    for i in range(INKS)])
            self.cubes.append(per_k)
        self.dice = {}  # colour -> [(pyramids, numbers) per face]
        for c in BY_COLOUR:
            self.dice[c] = []
            for k in range(4):
                tex = pieces.die_textures(c, make_rng(seed, "pool-die", c, k), self.set)
                self.dice[c].append(([mips(tex[n][0]) for n in BOX_NORMALS],
                                     [tex[n][1] for n in BOX_NORMALS]))
        self.stones: dict = {}
        self.stone_materials: dict = {}

    def stone_material(self, token: str) -> np.ndarray:
        """As pieces.stone_solid: a glossier top, sides of the tile's colour."""
        colour = token[0].upper()
        if colour not in self.stone_materials:
            s = self.set
            side = s.white_side if colour == "W" else s.stone_colours[pieces.COLOUR_LETTERS[colour]]
            tint = np.tile(side * np.float32(0.95), (6, 1))
            tint[0] = 1.0
            self.stone_materials[colour] = material([0.25] + [0.2] * 5, [50.0] + [40.0] * 5,
                                                    tint)
        return self.stone_materials[colour]

    def stone_top(self, token: str, k: int):
        if (token, k) not in self.stones:
            self.stones[token, k] = mips(pieces.stone_top_texture(
                token, make_rng(self.seed, "pool-stone", token, k), self.set))
        return self.stones[token, k]


def _by_normal(textures: dict) -> list:
    return [mips(textures[n]) for n in BOX_NORMALS]


_POOLS: dict[tuple[int, str], CropPool] = {}


def pool_for(seed: int, variant: str = "default") -> CropPool:
    key = (seed, variant)
    if key not in _POOLS:
        _POOLS.clear()
        _POOLS[key] = CropPool(seed, variant)
    return _POOLS[key]


# --------------------------------------------------------------------------- cameras

def crop_camera(rng, center, extent_mm: float, size: int, fill: float,
                tilt_max: float = 60.0) -> Camera:
    """A camera framing ``center`` so that ``extent_mm`` spans ``fill`` of the crop."""
    tilt = float(rng.uniform(0, tilt_max))
    az = float(rng.uniform(-180, 180))
    dist = float(rng.uniform(300, 1000))
    R, t = look_at(center, tilt, az, dist, float(rng.normal(0, 3)))
    f = fill * size * dist / extent_mm
    jx, jy = rng.normal(0, 0.04 * size, 2)
    K = np.array([[f, 0, (size - 1) / 2 + jx], [0, f, (size - 1) / 2 + jy], [0, 0, 1.0]])
    return Camera(K, R, t, (size, size), np.zeros(5), tilt, az, dist)


def crop_effects(rng) -> Effects:
    wb = np.exp(rng.normal(0, 0.07, 3)) * rng.uniform(0.7, 1.25)
    return Effects(
        wb=tuple(float(v) for v in wb), contrast=float(rng.uniform(0.85, 1.15)),
        saturation=float(rng.uniform(0.7, 1.15)),
        focus_sigma=float((0.0, rng.uniform(0.3, 1.0))[int(rng.integers(2))]),
        read_noise=float(rng.uniform(0.002, 0.02)), shot_noise=float(rng.uniform(0.0, 0.004)),
        jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.8 else 0,
        auto_exposure=False)


def _window(cam: Camera, pts: np.ndarray, pad: float) -> Camera:
    """``cam`` with its canvas cut down to the box round ``pts`` (world) plus ``pad``
    pixels: the same pixels where they overlap, far fewer to draw."""
    P = cam.project(pts, distort=False)
    x0, y0 = np.floor(P.min(0) - pad).astype(int)
    x1, y1 = np.ceil(P.max(0) + pad).astype(int) + 1
    K = cam.K.copy()
    K[0, 2] -= x0
    K[1, 2] -= y0
    return Camera(K, cam.R, cam.t, (int(x1 - x0), int(y1 - y0)), cam.dist, cam.tilt,
                  cam.azimuth, cam.distance)


# --------------------------------------------------------------------------- the table

class _Table:
    """One crop's board on its table and the pieces on and by it."""

    def __init__(self, pool: CropPool, game: str, pose, looks):
        self.pool, self.looks = pool, looks
        self.spec = board_spec(game)
        self.board = Board(self.spec, np.array(pose[:2], np.float64), float(pose[2]))
        self.table_kind, self.table_tex = pool.tables[int(looks.integers(POOL))]
        boards = pool.boards[game]
        self.board_tex, mean = boards[int(looks.integers(len(boards)))]
        gloss, shin, side = BOARD_LOOK[self.spec.material]
        self.board_look = (gloss, shin)
        t = self.spec.thickness
        n = len(BOX_NORMALS)
        self.R = self.board.R
        self.board_box = Box(self.world(0, 0, t / 2), self.R,
                             (self.spec.width / 2, self.spec.depth / 2, t / 2),
                             [plain()] * n, material(gloss * 0.3, shin, mean * side), 0.0,
                             group="board", skip=(0,))
        self.on_board: list[Box] = []
        self.on_table: list[Box] = []
        self.contact: list[Box] = []  # boxes standing on their rest plane

    def world(self, u: float, v: float, z: float) -> np.ndarray:
        """Board (u, v) at height ``z`` over the table, in the world (mm)."""
        p = self.R @ (u, v, z)
        p[:2] += self.board.center
        return p

    def put(self, box: Box, on_board: bool, contact: bool = True) -> Box:
        (self.on_board if on_board else self.on_table).append(box)
        if contact:
            self.contact.append(box)
        return box

    def paint(self, cam: Camera, target: Box, ids: bool = True) -> CropPainter:
        """The crop of ``cam`` (``ids``: count what of ``target`` is seen)."""
        lamps, ambient = random_lamps(self.looks, self.board.center, self.pool.light)
        p = CropPainter(cam, Light(lamps, ambient, (*self.board.center, 0.0), cam.center))
        boxes = [b for b in self.on_board + self.on_table if b.group != target.group]
        near = []
        if boxes:
            d = np.array([b.center for b in boxes]) - target.center
            near = [b for b, ok in zip(boxes, ((d * d).sum(1) < NEAR_MM ** 2).tolist(),
                                       strict=True) if ok]
        p.paint(Plane(TABLE_PX_PER_MM, TABLE_GLOSS[self.table_kind], 12.0, self.table_tex,
                      (-TABLE_MM[0] / 2, TABLE_MM[1] / 2)),
                self.board_box,
                Plane(BOARD_PX_PER_MM[self.spec.material], *self.board_look,
                      pyramid=self.board_tex, quad=self.board_box.quads[0]),
                self.on_table, self.on_board, self.contact, target, near, ids)
        return p


def _shoot(table: _Table, cam: Camera, target: Box, rng,
           ids: bool = True) -> tuple[np.ndarray, CropPainter]:
    p = table.paint(cam, target, ids)
    return apply_effects(p.image(), crop_effects(rng), rng), p


_DIRECTIONS: dict[bytes, list[str]] = {}


def _directions(R_body: np.ndarray) -> list[str]:
    """The board direction each face (BOX_NORMALS order) of a box turned by ``R_body``
    (one of the 24 rotations) faces."""
    key = R_body.tobytes()
    if key not in _DIRECTIONS:
        _DIRECTIONS[key] = [direction_of(R_body @ np.array(n, np.float64))
                            for n in BOX_NORMALS]
    return _DIRECTIONS[key]


def _clip(x, lo, hi):
    return float(min(max(x, lo), hi))


# --------------------------------------------------------------------------- cubes

def _symbol_up_rotations() -> list[np.ndarray]:
    """The rotations (body -> board) of the default set's cube with a symbol up."""
    labels = pieces.cube_labels()
    return [R for R in ROTATIONS
            if labels[tuple(int(round(x)) for x in R.T @ np.array([0.0, 0.0, 1.0]))]
            != "blank"]


_SYMBOL_UP = _symbol_up_rotations()
_CUBE_LABELS = [pieces.cube_labels()[n] for n in BOX_NORMALS]
_CUBE_HALF = (pieces.CUBE_MM / 2,) * 3
_CUBE_MATERIAL = material(0.08, 25.0)  # as pieces.cube_solid


def _cube_table(pool: CropPool, rng, looks):
    """An e-SOLO-e board (1x5 or 3x3) with stacks; returns (table, target box, info)."""
    game = "esoloe" if rng.random() < 0.5 else "esoloe-tictactoe"
    n = 5 if game == "esoloe" else 9
    target = int(rng.integers(n))
    below = int(rng.choice(4, p=[0.55, 0.25, 0.12, 0.08]))
    heights = [0] * n
    heights[target] = below + 1
    for c in range(n):
        if c != target and rng.random() < 0.3:
            heights[c] = int(rng.integers(1, 3))
    pose = (float(rng.normal(0, 10)), float(rng.normal(0, 10)), float(rng.uniform(-180, 180)))
    table = _Table(pool, game, pose, looks)
    board = table.board
    R_board, z_top = table.R, board.z_top
    found = None
    for c in range(n):
        cell = table.spec.cells[c]
        du = dv = 0.0
        for level in range(heights[c]):
            player = int(rng.integers(2))
            R_body = _SYMBOL_UP[int(rng.integers(len(_SYMBOL_UP)))]
            slack = cell.half - pieces.CUBE_MM / 2
            sigma = 1.1 if level == 0 else 0.7
            du = _clip(du + rng.normal(0, sigma), -slack, slack)
            dv = _clip(dv + rng.normal(0, sigma), -slack, slack)
            yaw = _clip(rng.normal(0, 6.0), -18, 18)
            center = table.world(cell.u + du, cell.v + dv,
                                 z_top + (level + 0.5) * pieces.CUBE_MM)
            faces = pool.cubes[player][int(looks.integers(POOL))][int(looks.integers(INKS))]
            box = table.put(Box(center, R_board @ rot_z(yaw) @ R_body, _CUBE_HALF, faces,
                                _CUBE_MATERIAL, z_top, group=c), True, contact=level == 0)
            if c == target and level == below:
                directions = _directions(R_body)
                found = (box, {"player": player, "level": level, "directions": directions,
                               "faces": dict(zip(directions, _CUBE_LABELS, strict=True))})
    return table, *found


def _up_angle(cam: Camera, box: Box, up: int) -> float:
    """Angle in the crop (degrees, 0 = up, clockwise) of the up face's print's top."""
    q = cam.project(box.quads[up], distort=False)
    v = (q[0] + q[1]) / 2 - (q[2] + q[3]) / 2
    return float(math.degrees(math.atan2(v[0], -v[1])))


def _cube_item(pool, rng, looks, size):
    table, box, info = _cube_table(pool, rng, looks)
    cam = crop_camera(rng, box.center, pieces.CUBE_MM * 1.6, size, rng.uniform(0.55, 0.8))
    img, p = _shoot(table, cam, box, rng)
    directions = info["directions"]
    return img, {"kind": "cube", "player": info["player"], "up": info["faces"]["up"],
                 "faces": info["faces"], "level": info["level"],
                 "visible": [directions[f] for f, seen, area in p.seen()
                             if seen / area > 0.3],
                 "up_angle_deg": round(_up_angle(cam, box, directions.index("up")), 2),
                 "tilt_deg": round(cam.tilt, 2)}


def _order_clockwise_from_top_left(q: np.ndarray) -> list[int]:
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    order = list(np.argsort(ang))  # clockwise in image coordinates (y down)
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    k = order.index(start)
    return order[k:] + order[:k]


def _face_item(pool, rng, looks, size):
    table, box, info = _cube_table(pool, rng, looks)
    big = size * 3
    cam = crop_camera(rng, box.center, pieces.CUBE_MM * 1.6, big,
                      rng.uniform(0.25, 0.6), tilt_max=60)
    # the face is cut from a render of the cube framed as in a 3x larger crop; only the
    # cube's surroundings are drawn (the corner error stays well inside the pad)
    cam = _window(cam, box.corners(), 0.25 * cam.K[0, 0] * pieces.CUBE_MM / cam.distance)
    p = table.paint(cam, box)
    # the largest face seen whole; where a neighbour hides part of every face (a stacked
    # or crowded cube seen steeply), the face with the most pixels in view
    f = max(p.seen(), key=lambda s: (s[1] / s[2] > 0.95, s[1]))[0]
    img = apply_effects(p.image(), crop_effects(rng), rng)
    q = cam.project(box.quads[f], distort=False)
    order = _order_clockwise_from_top_left(q)
    side = float(np.sqrt(cv2.contourArea(q.astype(np.float32))))
    src = (q[order] + rng.normal(0, 0.03 * side, (4, 2))).astype(np.float32)
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    crop = cv2.warpPerspective(img, H, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return crop, {"kind": "face", "label": _CUBE_LABELS[f], "player": info["player"],
                  "direction": info["directions"][f], "rotation": int(order.index(0)),
                  "pixels": round(side, 1)}


# --------------------------------------------------------------------------- dice

_DIE_HALF = (pieces.DIE_MM / 2,) * 3
_DIE_MATERIAL = material(0.35, 60.0)  # as pieces.die_solid


def _die_item(pool, rng, looks, size):
    colours = list(BY_COLOUR)
    target = colours[int(rng.integers(3))]
    table = _Table(pool, "tyr", (0.0, 0.0, float(rng.uniform(-180, 180))), looks)
    board, spec = table.board, table.spec
    used = set()
    found = None
    for k, c in enumerate(colours):
        tops = BY_COLOUR[c].faces
        top = int(tops[int(rng.integers(len(tops)))])  # (rng.choice's draw, cheaper)
        if rng.random() < 0.8:  # in a field of the board
            while True:
                cell = (int(rng.integers(1, 10)), int(rng.integers(1, 10)))
                if cell not in used:
                    used.add(cell)
                    break
            field = spec.cells[(cell[0] - 1) * 9 + cell[1] - 1]
            slack = field.half - pieces.DIE_MM / 2
            u = field.u + _clip(rng.normal(0, 0.7), -slack, slack)
            v = field.v + _clip(rng.normal(0, 0.7), -slack, slack)
            yaw, rest = _clip(rng.normal(0, 3), -5, 5), board.z_top
        else:  # beside it, south
            u = (k - 1) * 40 + rng.normal(0, 5)
            v = -(spec.depth / 2 + 28 + rng.normal(0, 4))
            yaw, rest = float(rng.normal(0, 15)), 0.0
        R_body = pieces.die_orientation(c, top, rng)
        center = table.world(u, v, rest + pieces.DIE_MM / 2)
        textures, numbers = pool.dice[c][int(looks.integers(4))]
        box = table.put(Box(center, rot_z(board.yaw + yaw) @ R_body, _DIE_HALF, textures,
                            _DIE_MATERIAL, rest, group=c), rest > 0)
        if c == target:
            directions = _directions(R_body)
            found = (box, top, directions, dict(zip(directions, numbers, strict=True)))
    box, top, directions, faces = found
    cam = crop_camera(rng, box.center, pieces.DIE_MM * 1.6, size, rng.uniform(0.55, 0.8))
    img, p = _shoot(table, cam, box, rng)
    z_top = box.center[2] + pieces.DIE_MM / 2
    top_plane = cam.K @ np.column_stack([cam.R[:, 0], cam.R[:, 1], z_top * cam.R[:, 2] + cam.t])
    return img, {"kind": "die", "colour": target, "top": top, "faces": faces,
                 "visible": [directions[f] for f, seen, area in p.seen()
                             if seen / area > 0.3],
                 "tilt_deg": round(cam.tilt, 2),
                 "centre_mm": box.center[:2].tolist(),
                 "top_plane": (top_plane / top_plane[2, 2]).tolist()}


# --------------------------------------------------------------------------- stones

_STONE_HALF = (pieces.STONE_MM / 2, pieces.STONE_MM / 2, pieces.STONE_THICK_MM / 2)


def _stone(pool, table: _Table, r: int, c: int, tok: str, rng, looks) -> Box:
    board = table.board
    cell = table.spec.cells[r * 10 + c]
    slack = cell.half - pieces.STONE_MM / 2
    u = cell.u + _clip(rng.normal(0, 1.2), -slack, slack)
    v = cell.v + _clip(rng.normal(0, 1.2), -slack, slack)
    yaw = _clip(rng.normal(0, 5), -12, 12)
    textures = [plain()] * 6
    textures[0] = pool.stone_top(tok, int(looks.integers(4)))
    return table.put(Box(table.world(u, v, board.z_top + pieces.STONE_THICK_MM / 2),
                         table.R @ rot_z(yaw), _STONE_HALF, textures, pool.stone_material(tok),
                         board.z_top, group=(r, c)), True)


def _stone_item(pool, rng, looks, size):
    r, c = int(rng.integers(10)), int(rng.integers(10))

    def token():
        if rng.random() < 0.4:
            return "W"
        t = "BRKO"[int(rng.integers(4))] + str(int(rng.integers(2, 7)))
        return t if rng.random() < 0.5 else t.lower()

    tok = token()
    table = _Table(pool, "cubes", (0.0, 0.0, float(rng.uniform(-180, 180))), looks)
    target = _stone(pool, table, r, c, tok, rng, looks)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < 10 and 0 <= cc < 10 and rng.random() < 0.35:
                _stone(pool, table, rr, cc, token(), rng, looks)
    cam = crop_camera(rng, target.center, pieces.STONE_MM * 1.5, size, rng.uniform(0.55, 0.8))
    img, _ = _shoot(table, cam, target, rng, ids=False)
    return img, {"kind": "stone", "token": tok, "tilt_deg": round(cam.tilt, 2)}


_ITEMS = {"cube": _cube_item, "face": _face_item, "die": _die_item, "stone": _stone_item}


def render_crops(kind: str, n: int, seed: int, size: int = 64, start: int = 0,
                 variant: str = "default"):
    """``n`` labelled crops of ``kind`` (see the module doc): (images, labels).

    Each OpenCV call here works on a few thousand pixels, where OpenCV's threads only
    cost (about a fifth more CPU time): a process that makes many crops is best run with
    ``cv2.setNumThreads(1)``, as ``tableref dataset``'s workers are (set in the parent
    before the fork: called in a forked child, it can wait for the parent's threads for
    ever). This function leaves the setting alone."""
    if kind not in _ITEMS:
        raise ValueError(f"unknown crop kind {kind!r} (known: {', '.join(KINDS)})")
    if variant not in VARIANTS:
        raise ValueError(f"unknown crop variant {variant!r} (known: {', '.join(VARIANTS)})")
    pool = pool_for(seed, variant)
    images = np.empty((n, size, size, 3), np.uint8)
    labels = []
    for j in range(n):
        rng = make_rng(seed, "crop", kind, start + j)
        looks = np.random.Generator(rng.bit_generator.jumped())  # textures and lamps
        img, label = _ITEMS[kind](pool, rng, looks, size)
        images[j] = img
        label["index"] = start + j
        labels.append(label)
    return images, labels
