"""Ground truth of a rendered image, as JSON-ready data (schema tableref/render-truth/1).

Image coordinates are pixels of the delivered (distorted) image, x right, y down, the
centre of the top-left pixel at (0, 0). Visibility is measured on the id buffer of the
render: a face's ``visible_fraction`` is the share of its drawn pixels that nothing
drawn later covers.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from vision.render.camera import Camera
from vision.render.draw import Rendered, _fill
from vision.render.scene import Scene

SCHEMA = "tableref/render-truth/1"


def _r(a, nd=2):
    return np.round(np.asarray(a, np.float64), nd).tolist()


def build_truth(scene: Scene, cam: Camera, canvas_cam: Camera, margin: int,
                rendered: Rendered, extra: dict | None = None) -> dict:
    counts = rendered.visible_counts()
    board = scene.board
    spec = board.spec
    corners = board.corners()
    truth = {
        "schema": SCHEMA,
        "game": scene.game,
        "seed": scene.seed,
        "position": scene.position,
        "camera": cam.to_json(),
        "board": {
            "size_mm": [spec.width, spec.depth, spec.thickness],
            "material": spec.material,
            "pose": {"x_mm": float(board.center[0]), "y_mm": float(board.center[1]),
                     "yaw_deg": board.yaw},
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
        return "board" if s.kind == "board" else s.info.get("piece", f"solid:{s.id}")

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
        key = s.info.get("piece", f"solid:{s.id}")
        p = pieces.setdefault(key, {"key": key, "kind": s.kind,
                                    **{k: v for k, v in s.info.items() if k != "piece"},
                                    "visible_faces": [], "_pts": []})
        for i, rec in face_recs[s.id]:
            poly = cam.project(rec.face.outline)
            p["_pts"].append(poly)
            if rec.face.label is None or rec.face.direction is None:
                continue
            frac = counts[i] / rec.area if rec.area else 0.0
            p["visible_faces"].append({
                "direction": rec.face.direction, "label": rec.face.label,
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
