"""Ground truth of a rendered image, as JSON-ready data (schema tableref/render-truth/1).

Image coordinates are pixels of the delivered (distorted) image, x right, y down, the
centre of the top-left pixel at (0, 0). Visibility is measured on the id buffer of the
render: a face's ``visible_fraction`` is the share of its drawn pixels that nothing
drawn later covers.

Naming (``board.naming``): a board with marks that name its sides (3andC's blue fields,
Cubes' shaded fields, the e-SOLO-e maker's mark, Neunfeld's numbers) is named as it was
built: the position's north is the board's. A board without any (``NAMED_BY_CAMERA``:
the tic-tac-toe tile, Tyr's leather) has no north of its own; the observation's
convention for it is the camera's: its north is the side that shows farthest up the
image (``camera_turn``, from the true camera and board pose), and the whole truth
(position, corners, cells, pieces, face directions) is named that way: the board as
built turned by ``quarter_turns`` (docs/vision.md, "Naming"). The image does not change.
"""

from __future__ import annotations

import copy
from collections import defaultdict

import numpy as np

from vision.render.camera import Camera
from vision.render.draw import Rendered, _fill
from vision.render.geometry import DIRECTIONS, direction_of, rot_z
from vision.render.scene import Board, Scene

SCHEMA = "tableref/render-truth/1"
#: games whose board carries no mark naming its sides: named by the camera convention
NAMED_BY_CAMERA = frozenset({"esoloe-tictactoe", "tyr"})


def _r(a, nd=2):
    return np.round(np.asarray(a, np.float64), nd).tolist()


def camera_turn(board: Board, cam: Camera) -> int:
    """The camera convention for a square board without marks: quarter turns (-1..2,
    anticlockwise seen from above) from the board's north as built to the side whose
    midpoint lies most nearly straight up the image from the board's centre, both
    projected by ``cam`` (1: the built west side is named north)."""
    spec = board.spec
    if spec.width != spec.depth:
        raise ValueError(f"{spec.game}: only a square board is named by a quarter turn")
    h = spec.width / 2
    sides = {0: (0.0, h), 1: (-h, 0.0), 2: (0.0, -h), -1: (h, 0.0)}  # N, W, S, E as built
    px = cam.project(np.array([board.world(u, v, board.z_top)
                               for u, v in [(0.0, 0.0), *sides.values()]]))
    d = px[1:] - px[0]
    up = -d[:, 1] / np.maximum(np.linalg.norm(d, axis=1), 1e-9)
    return list(sides)[int(np.argmax(up))]


class Naming:
    """The board as built, renamed by ``turn`` quarter turns (``camera_turn``): the named
    board (its yaw ``turn`` x 90 degrees on), and built names, indices, directions and
    board vectors to named ones."""

    def __init__(self, board: Board, turn: int):
        self.turn = turn
        self.board = Board(board.spec, board.center, board.yaw + 90.0 * turn)
        self.R = rot_z(-90.0 * turn)  # built board frame -> named board frame
        named = {(round(c.u, 6), round(c.v, 6)): i for i, c in enumerate(board.spec.cells)}
        self.index = [named[tuple(np.round(self.vector((c.u, c.v)), 6))]
                      for c in board.spec.cells]  # built cell index -> named one
        self.names = {c.name: board.spec.cells[self.index[i]].name
                      for i, c in enumerate(board.spec.cells)}

    def vector(self, uv) -> np.ndarray:
        return (self.R[:2, :2] @ np.asarray(uv, np.float64)).round(9) + 0.0

    def direction(self, d: str | None) -> str | None:
        return None if d is None else direction_of(self.R @ np.array(DIRECTIONS[d]))

    def faces(self, faces: dict | None) -> dict | None:
        return None if faces is None else {self.direction(d): v for d, v in faces.items()}

    def position(self, game: str, position: dict) -> dict:
        """``position`` (the observation's object, as built) as named."""
        out = copy.deepcopy(position)
        if self.turn == 0:
            return out
        if game == "tyr":
            for die in out["dice"].values():
                if die.get("cell") is not None:
                    r, c = self.names["{},{}".format(*die["cell"])].split(",")
                    die["cell"] = [int(r), int(c)]
            return out
        cells = [None] * len(out["cells"])
        for i, stack in enumerate(out["cells"]):
            cells[self.index[i]] = [{**cube, "faces": self.faces(cube["faces"])}
                                    if "faces" in cube else cube for cube in stack]
        out["cells"] = cells
        return out

    def info(self, kind: str, info: dict) -> dict:
        """A piece's truth (``Solid.info``) as named."""
        out = dict(info)
        if self.turn == 0:
            return out
        if out.get("cell_name") is not None:
            out["cell_name"] = self.names[out["cell_name"]]
        if kind == "cube":
            out["cell"] = self.index[out["cell"]]
            out["piece"] = f"cube:{out['cell']}:{out['level']}"
            out["yaw_deg"] = out["yaw_deg"] - 90.0 * self.turn  # on the named board
            out["offset_mm"] = self.vector(out["offset_mm"]).tolist()
        elif out.get("cell") is not None:  # a die on Tyr's board
            out["cell"] = [int(x) for x in out["cell_name"].split(",")]
        if "faces" in out:
            out["faces"] = self.faces(out["faces"])
        return out


def build_truth(scene: Scene, cam: Camera, canvas_cam: Camera, margin: int,
                rendered: Rendered, extra: dict | None = None) -> dict:
    counts = rendered.visible_counts()
    by_camera = scene.game in NAMED_BY_CAMERA
    naming = Naming(scene.board, camera_turn(scene.board, cam) if by_camera else 0)
    board = naming.board
    spec = board.spec
    corners = board.corners()
    infos = {s.id: naming.info(s.kind, s.info) for s in scene.solids}
    truth = {
        "schema": SCHEMA,
        "game": scene.game,
        "seed": scene.seed,
        "position": naming.position(scene.game, scene.position),
        "camera": cam.to_json(),
        "board": {
            "size_mm": [spec.width, spec.depth, spec.thickness],
            "material": spec.material,
            "pose": {"x_mm": float(board.center[0]), "y_mm": float(board.center[1]),
                     "yaw_deg": board.yaw},
            "naming": {"by": "camera" if by_camera else "board",
                       "quarter_turns": naming.turn},
            "corners_world_mm": {k: _r(v, 3) for k, v in corners.items()},
            "corners": {k: _r(cam.project(v[None])[0], 3) for k, v in corners.items()},
        },
        "table": scene.table_kind,
        "lamps": [lp.to_json() for lp in scene.lamps],
    }
    # what covers what: solid id -> piece key, hands as "hand"
    def owner(rec_index: int) -> str:
        rec = rendered.records[rec_index]
        if rec.solid == -2:
            return "hand"
        if rec.solid < 0:
            return "table" if rec.solid == -1 else "floor"
        s = scene.solids[rec.solid]
        return "board" if s.kind == "board" else infos[s.id].get("piece", f"solid:{s.id}")

    owners = [owner(i) for i in range(len(rendered.records))]
    # ---- pieces and their faces
    pieces: dict[str, dict] = {}
    face_recs = defaultdict(list)
    for i, rec in enumerate(rendered.records):
        if rec.solid >= 0:
            face_recs[rec.solid].append((i, rec))
    for s in scene.solids:
        if s.kind == "board":
            continue
        info = infos[s.id]
        key = info.get("piece", f"solid:{s.id}")
        p = pieces.setdefault(key, {"key": key, "kind": s.kind,
                                    **{k: v for k, v in info.items() if k != "piece"},
                                    "visible_faces": [], "_pts": []})
        for i, rec in face_recs[s.id]:
            poly = cam.project(rec.face.outline)
            p["_pts"].append(poly)
            if rec.face.label is None or rec.face.direction is None:
                continue
            frac = counts[i] / rec.area if rec.area else 0.0
            p["visible_faces"].append({
                "direction": naming.direction(rec.face.direction), "label": rec.face.label,
                "polygon": _r(poly), "visible_fraction": round(float(frac), 3),
                "pixels": int(counts[i])})
    for p in pieces.values():
        pts = np.vstack(p.pop("_pts")) if p["_pts"] else np.zeros((0, 2))
        p["bbox"] = _r([*pts.min(0), *pts.max(0)]) if len(pts) else None
    truth["pieces"] = list(pieces.values())
    # ---- cells
    by_cell = defaultdict(list)
    for p in truth["pieces"]:
        if p.get("cell_name") is not None:
            by_cell[p["cell_name"]].append(p)
    cells = []
    H, W = rendered.ids.shape
    for cell in spec.cells:
        poly_w = board.cell_polygon(cell)
        poly = cam.project(poly_w)
        center = cam.project(board.world(cell.u, cell.v, board.z_top)[None])[0]
        content = by_cell.get(cell.name, [])
        own = {p["key"] for p in content}
        pc = canvas_cam.project(poly_w, distort=False)
        x0, y0 = np.maximum(np.floor(pc.min(0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(pc.max(0)).astype(int) + 2, (W, H))
        seen = {}
        if x1 > x0 and y1 > y0:
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            _fill(m, pc - (x0, y0))
            ids = rendered.ids[y0:y1, x0:x1][m > 127]
            for idx, n in zip(*np.unique(ids, return_counts=True), strict=True):
                o = owners[idx]
                seen[o] = seen.get(o, 0) + int(n)
        total = sum(seen.values())
        inside = total > 0 and min(x0, y0) >= 0 and x1 <= W and y1 <= H
        if content:
            top = max(content, key=lambda p: p.get("level", 0))
            ups = [f for f in top["visible_faces"] if f["direction"] == "up"]
            visible = ups[0]["visible_fraction"] if ups else 0.0
        else:
            visible = seen.get("board", 0) / total if total else 0.0
        occl = {k: v / total for k, v in seen.items() if k not in own and k != "board"} \
            if total else {}
        hidden_by = None
        if visible < 0.5 and occl:
            worst = max(occl, key=occl.get)
            hidden_by = "hand" if worst == "hand" else worst
        cells.append({
            "name": cell.name, "polygon": _r(poly), "center": _r(center),
            "pieces": sorted(own), "visible_fraction": round(float(visible), 3),
            "in_frame": bool(inside), "hidden_by": hidden_by,
            "occluders": {k: round(v, 3) for k, v in sorted(occl.items()) if v >= 0.02}})
    truth["cells"] = cells
    truth["hands"] = (extra or {}).get("hands", [])
    if extra:
        truth.update({k: v for k, v in extra.items() if k != "hands"})
    return truth
