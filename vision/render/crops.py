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
``die``    a Miwin die on the Tyr board or beside it; labels: colour, top, faces.
``stone``  a Cubes stone on its board; label: the grid token (``W``, ``B4``, ``r3``...).

Variants (``variant=``): ``default`` the set the games come with, under room light;
``other-set`` a deliberately different set (pieces.SETS["other-set"]: other woods and
stain, symbols drawn as thick outlines, other die bodies with gold or black pips, other
stone colours and digit font) under one hard, very warm or cold lamp. Same labels and the
same crop geometry: for measuring adaptation to a set the models were not trained on.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from rules.miwin import BY_COLOUR
from vision.render import materials, pieces
from vision.render.camera import Camera, look_at
from vision.render.draw import Painter
from vision.render.effects import Effects, apply_effects
from vision.render.geometry import DIRECTIONS, ROTATIONS
from vision.render.rng import make_rng, sub_seed
from vision.render.scene import (
    BOARD_PX_PER_MM,
    Looks,
    Scene,
    board_spec,
    board_texture,
    build_scene,
)

KINDS = ("cube", "face", "die", "stone")
#: variant -> (pieces.SETS key, scene.LIGHTS key)
VARIANTS = {"default": ("default", "room"), "other-set": ("other-set", "hard")}
POOL = 12  # textures of each sort per pool
CROP_TABLE_PX = (480, 320)


class _PoolLooks(Looks):
    """Piece textures drawn from a pool made once per seed (fast, still deterministic)."""

    def __init__(self, seed: int, variant: str = "default"):
        super().__init__(seed, *VARIANTS[variant])
        self.cubes = [[pieces.cube_textures(make_rng(seed, "pool-cube", p, k), p, self.set)
                       for k in range(POOL)] for p in (0, 1)]
        self.inks = [pieces.ink_colour(make_rng(seed, "pool-ink", k)) for k in range(4)]
        self.dice = {c: [pieces.die_textures(c, make_rng(seed, "pool-die", c, k), self.set)
                         for k in range(4)] for c in BY_COLOUR}
        self._printed: dict = {}
        self._stones: dict = {}
        self.rng = make_rng(seed, "pool-pick")
        labels = pieces.cube_labels()  # every crop's cube is of the default set: print
        for player in (0, 1):  # them all now, not on first use inside a timed run
            for k in range(POOL):
                for ink in range(len(self.inks)):
                    self._print(player, k, ink, labels)

    def _print(self, player: int, k: int, ink: int, labels_by_body: dict) -> dict:
        ck = (player, k, ink, tuple(sorted(labels_by_body.items())))
        if ck not in self._printed:
            self._printed[ck] = pieces.print_faces(self.cubes[player][k], labels_by_body,
                                                   self.inks[ink],
                                                   make_rng(self.seed, "pool-print", *ck[:3]),
                                                   self.set.symbol_style)
        return self._printed[ck]

    def cube(self, player: int, key: tuple, labels_by_body: dict) -> dict:
        k = int(self.rng.integers(POOL))
        ink = int(self.rng.integers(len(self.inks)))
        return self._print(player, k, ink, labels_by_body)

    def die(self, colour: str) -> dict:
        return self.dice[colour][int(self.rng.integers(4))]

    def stone(self, base, yaw_R, token: str, rng):
        k = int(self.rng.integers(4))
        if (token, k) not in self._stones:
            self._stones[token, k] = pieces.stone_top_texture(
                token, make_rng(self.seed, "pool-stone", token, k), self.set)
        return pieces.stone_solid(base, yaw_R, token, rng, self.set, self._stones[token, k])


class CropPool:
    """Tables, boards and piece textures for one seed's crops (of one variant)."""

    def __init__(self, seed: int, variant: str = "default"):
        self.seed = seed
        if variant != "default":  # another set's textures: other grain and wear too
            seed = sub_seed(seed, "variant", variant)
        w, h = CROP_TABLE_PX
        self.tables = []
        for k in range(POOL):
            r = make_rng(seed, "pool-table", k)
            kind, tex = materials.table_texture(r, h, w, 0.8)
            self.tables.append((kind, tex))
        self.floor = materials.floor(make_rng(seed, "pool-floor"), 32, 48)
        self.boards = {}
        for game in ("esoloe", "esoloe-tictactoe", "tyr", "cubes"):
            spec = board_spec(game)
            self.boards[game] = [board_texture(spec, make_rng(seed, "pool-board", game, k),
                                               BOARD_PX_PER_MM[spec.material])
                                 for k in range(3)]
        self.looks = _PoolLooks(seed, variant)

    def env(self, game: str, rng) -> tuple:
        kind, tex = self.tables[int(rng.integers(POOL))]
        board = self.boards[game][int(rng.integers(len(self.boards[game])))]
        return kind, tex, self.floor, board


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
        focus_sigma=float(rng.choice([0.0, rng.uniform(0.3, 1.0)])),
        read_noise=float(rng.uniform(0.002, 0.02)), shot_noise=float(rng.uniform(0.0, 0.004)),
        jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.8 else 0,
        auto_exposure=False)


def _shoot(scene: Scene, cam: Camera, rng) -> tuple[np.ndarray, Painter]:
    p = Painter(scene, cam)
    p.scene_pass()
    img = apply_effects(p.canvas, crop_effects(rng), rng)
    return img, p


# --------------------------------------------------------------------------- positions

def _random_cube(rng, player: int, set_faces) -> dict:
    return {"player": player, "faces": dict(set_faces[int(rng.integers(len(set_faces)))])}


def _symbol_up_rotations() -> list[dict]:
    """The faces by direction of each rotation of the default set with a symbol up."""
    labels = pieces.cube_labels()
    out = []
    for R in ROTATIONS:
        faces = {d: labels[tuple(int(round(x)) for x in R.T @ np.array(v, np.float64))]
                 for d, v in DIRECTIONS.items()}
        if faces["up"] != "blank":
            out.append(faces)
    return out


_SYMBOL_UP = _symbol_up_rotations()


def _cube_scene(pool: CropPool, item_seed: int, rng):
    game = "esoloe" if rng.random() < 0.5 else "esoloe-tictactoe"
    n = 5 if game == "esoloe" else 9
    cells = [[] for _ in range(n)]
    target = int(rng.integers(n))
    below = int(rng.choice(4, p=[0.55, 0.25, 0.12, 0.08]))
    for _ in range(below + 1):
        cells[target].append(_random_cube(rng, int(rng.integers(2)), _SYMBOL_UP))
    for c in range(n):
        if c != target and rng.random() < 0.3:
            for _ in range(int(rng.integers(1, 3))):
                cells[c].append(_random_cube(rng, int(rng.integers(2)), _SYMBOL_UP))
    position = {"cells": cells}
    pose = (float(rng.normal(0, 10)), float(rng.normal(0, 10)), float(rng.uniform(-180, 180)))
    scene = build_scene(game, position, item_seed, board_pose=pose,
                        env=pool.env(game, rng), looks=pool.looks)
    key = f"cube:{target}:{below}"
    solid = next(s for s in scene.solids if s.info.get("piece") == key)
    return scene, solid


def _labels_of_view(p: Painter, solid) -> list[str]:
    counts = p.result().visible_counts()
    seen = []
    for i, rec in enumerate(p.records):
        if (rec.solid == solid.id and rec.face is not None and rec.area > 0
                and counts[i] / rec.area > 0.3):
            seen.append(rec.face.direction)
    return seen


def _up_angle(cam: Camera, solid) -> float:
    """Angle in the crop (degrees, 0 = up, clockwise) of the up face's print's top."""
    up = next(f for f in solid.faces if f.direction == "up")
    q = cam.project(up.quad, distort=False)
    top_mid, bottom_mid = (q[0] + q[1]) / 2, (q[2] + q[3]) / 2
    v = top_mid - bottom_mid
    return float(math.degrees(math.atan2(v[0], -v[1])))


def _cube_item(pool, item_seed, rng, size):
    scene, solid = _cube_scene(pool, item_seed, rng)
    cam = crop_camera(rng, solid.center, pieces.CUBE_MM * 1.6, size, rng.uniform(0.55, 0.8))
    img, p = _shoot(scene, cam, rng)
    info = solid.info
    return img, {"kind": "cube", "player": info["player"], "up": info["faces"]["up"],
                 "faces": info["faces"], "level": info["level"],
                 "visible": _labels_of_view(p, solid),
                 "up_angle_deg": round(_up_angle(cam, solid), 2),
                 "tilt_deg": round(cam.tilt, 2)}


def _order_clockwise_from_top_left(q: np.ndarray) -> list[int]:
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    order = list(np.argsort(ang))  # clockwise in image coordinates (y down)
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    k = order.index(start)
    return order[k:] + order[:k]


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


def _face_item(pool, item_seed, rng, size):
    scene, solid = _cube_scene(pool, item_seed, rng)
    big = size * 3
    cam = crop_camera(rng, solid.center, pieces.CUBE_MM * 1.6, big,
                      rng.uniform(0.25, 0.6), tilt_max=60)
    # the face is cut from a render of the cube framed as in a 3x larger crop; only the
    # cube's surroundings are drawn (the corner error stays well inside the pad)
    cam = _window(cam, solid.points(), 0.25 * cam.K[0, 0] * pieces.CUBE_MM / cam.distance)
    p = Painter(scene, cam)
    p.scene_pass()
    counts = p.result().visible_counts()
    # the largest face seen whole; where a neighbour hides part of every face (a stacked
    # or crowded cube seen steeply), the face with the most pixels in view
    faces = [(counts[i] / rec.area > 0.95, counts[i], rec)
             for i, rec in enumerate(p.records)
             if rec.solid == solid.id and rec.face is not None and rec.area > 0]
    face = max(faces, key=lambda f: f[:2])[2].face
    img = apply_effects(p.canvas, crop_effects(rng), rng)
    q = cam.project(face.quad, distort=False)
    order = _order_clockwise_from_top_left(q)
    side = float(np.sqrt(cv2.contourArea(q.astype(np.float32))))
    src = (q[order] + rng.normal(0, 0.03 * side, (4, 2))).astype(np.float32)
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    crop = cv2.warpPerspective(img, H, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return crop, {"kind": "face", "label": face.label, "player": solid.info["player"],
                  "direction": face.direction, "rotation": int(order.index(0)),
                  "pixels": round(side, 1)}


def _die_item(pool, item_seed, rng, size):
    colours = list(BY_COLOUR)
    target = colours[int(rng.integers(3))]
    dice = {}
    used = set()
    for c in colours:
        top = int(rng.choice(BY_COLOUR[c].faces))
        on_board = rng.random() < 0.8
        cell = None
        if on_board:
            while True:
                cell = [int(rng.integers(1, 10)), int(rng.integers(1, 10))]
                if tuple(cell) not in used:
                    used.add(tuple(cell))
                    break
        dice[c] = {"top": top, "cell": cell}
    pose = (0.0, 0.0, float(rng.uniform(-180, 180)))
    scene = build_scene("tyr", {"dice": dice}, item_seed, board_pose=pose,
                        env=pool.env("tyr", rng), looks=pool.looks)
    solid = next(s for s in scene.solids if s.info.get("piece") == f"die:{target}")
    cam = crop_camera(rng, solid.center, pieces.DIE_MM * 1.6, size, rng.uniform(0.55, 0.8))
    img, p = _shoot(scene, cam, rng)
    return img, {"kind": "die", "colour": target, "top": dice[target]["top"],
                 "faces": solid.info["faces"], "visible": _labels_of_view(p, solid),
                 "tilt_deg": round(cam.tilt, 2)}


def _stone_item(pool, item_seed, rng, size):
    grid = [["."] * 10 for _ in range(10)]
    r, c = int(rng.integers(10)), int(rng.integers(10))

    def token():
        if rng.random() < 0.4:
            return "W"
        t = "BRKO"[int(rng.integers(4))] + str(int(rng.integers(2, 7)))
        return t if rng.random() < 0.5 else t.lower()

    tok = token()
    grid[r][c] = tok
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < 10 and 0 <= cc < 10 and rng.random() < 0.35:
                grid[rr][cc] = token()
    pose = (0.0, 0.0, float(rng.uniform(-180, 180)))
    scene = build_scene("cubes", {"grid": grid}, item_seed, board_pose=pose,
                        env=pool.env("cubes", rng), looks=pool.looks)
    solid = next(s for s in scene.solids if s.info.get("piece") == f"stone:{r},{c}")
    cam = crop_camera(rng, solid.center, pieces.STONE_MM * 1.5, size, rng.uniform(0.55, 0.8))
    img, _ = _shoot(scene, cam, rng)
    return img, {"kind": "stone", "token": tok, "tilt_deg": round(cam.tilt, 2)}


_ITEMS = {"cube": _cube_item, "face": _face_item, "die": _die_item, "stone": _stone_item}


def render_crops(kind: str, n: int, seed: int, size: int = 64, start: int = 0,
                 variant: str = "default"):
    """``n`` labelled crops of ``kind`` (see the module doc): (images, labels)."""
    if kind not in _ITEMS:
        raise ValueError(f"unknown crop kind {kind!r} (known: {', '.join(KINDS)})")
    if variant not in VARIANTS:
        raise ValueError(f"unknown crop variant {variant!r} (known: {', '.join(VARIANTS)})")
    pool = pool_for(seed, variant)
    images = np.empty((n, size, size, 3), np.uint8)
    labels = []
    for j in range(n):
        item_seed = sub_seed(seed, kind, start + j)
        rng = make_rng(item_seed, "crop")
        pool.looks.rng = make_rng(item_seed, "crop-looks")
        img, label = _ITEMS[kind](pool, item_seed, rng, size)
        images[j] = img
        label["index"] = start + j
        labels.append(label)
    return images, labels
