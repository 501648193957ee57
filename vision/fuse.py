"""Two cameras, one position: fuse the observations two cameras made of the same instant.

Each camera is read on its own (``vision.observe.observe``, each with its calibration);
``fuse`` merges the two e-SOLO-e family observations element by element:

- a stack: when both cameras see the same height the cubes are merged one by one (an
  unsure stack keeps the surer camera's other stacks as its alternatives); when they
  differ the one read with the higher confidence is written and listed in ``uncertain``
  with the other as its alternative;
- a player or a face: the reading with the higher confidence; two readings that disagree
  are listed in ``uncertain`` (each with its share of the two confidences, the other one
  as the alternative); two that agree keep the surer camera's entry, its alternatives
  with it; a face one camera left null is filled by the other;
- then each cube's known faces are checked against its set (``rules.cube``, option
  ``cube-set``): where only one orientation shows them, the remaining null faces are filled
  (a front and a back camera together see all four sides).

An element's confidence is its entry in ``uncertain``, or 1.0 when not listed (read at
``LISTED_BELOW`` or more). The observation's confidence is the lowest listed one, at most
the surer camera's own (0 where both saw a hand) but not under ``LISTED_BELOW`` for what
is not listed: each camera's lowest element may be one the other camera read surely.
``fuse_images`` reads two frames and fuses them; a frame the pipeline cannot read (no
board in view...) leaves the other camera's observation alone.
"""

from __future__ import annotations

import copy

from rules.cube import CUBE_SETS, FACES

FAMILY = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")
LISTED_BELOW = 0.9  # an element read with less confidence is listed in ``uncertain``
_OPPOSITE_SIDE = {"north": "south", "south": "north", "east": "west", "west": "east"}


def _confidences(obs: dict) -> dict[str, float]:
    return {u["path"]: float(u["confidence"]) for u in obs.get("uncertain", [])}


def _alternatives(obs: dict) -> dict[str, list]:
    return {u["path"]: u["alternatives"] for u in obs.get("uncertain", [])
            if u.get("alternatives")}


class _Merge:
    def __init__(self, a: dict, b: dict):
        self.ca, self.cb = _confidences(a), _confidences(b)
        self.aa, self.ab = _alternatives(a), _alternatives(b)
        self.uncertain: list[dict] = []

    def pick(self, path: str, va, vb):
        """The better of two readings of ``path`` (None: not read by that camera)."""
        pa, pb = self.ca.get(path, 1.0), self.cb.get(path, 1.0)
        if va is None or vb is None or va == vb:
            value = vb if va is None else va
            if va == vb:  # the surer camera's confidence, and its alternatives
                p, others = (pa, self.aa) if pa >= pb else (pb, self.ab)
            else:
                p, others = (pa, self.aa) if vb is None else (pb, self.ab)
            if value is not None and p < LISTED_BELOW:
                entry = {"path": path, "confidence": round(p, 4)}
                if path in others:
                    entry["alternatives"] = copy.deepcopy(others[path])
                self.uncertain.append(entry)
            return value
        if pb > pa:
            va, pa, vb, pb = vb, pb, va, pa
        share = pa / (pa + pb)
        self.uncertain.append({"path": path, "confidence": round(share, 4),
                               "alternatives": [[vb, round(1 - share, 4)]]})
        return va

    def carry(self, path: str, conf: dict) -> None:
        """Keep the entries under ``path`` of one camera's observation."""
        for p, c in conf.items():
            if p == path or p.startswith(path + "."):
                self.uncertain.append({"path": p, "confidence": round(c, 4)})


def fuse(a: dict, b: dict, cube_set: str | None = None) -> dict:
    """One observation from two of the same instant (see the module doc)."""
    if a.get("game") != b.get("game") or a.get("game") not in FAMILY:
        raise ValueError(f"cannot fuse {a.get('game')!r} with {b.get('game')!r} "
                         f"(both must be one game of {', '.join(FAMILY)})")
    cube_set = cube_set or (a.get("options") or {}).get("cube-set") or "corner"
    m = _Merge(a, b)
    cells = []
    for i, (sa, sb) in enumerate(zip(a["position"]["cells"], b["position"]["cells"],
                                     strict=True)):
        path = f"cells.{i}"
        if len(sa) != len(sb):
            pa, pb = m.ca.get(path, 1.0), m.cb.get(path, 1.0)
            chosen, conf = (sa, m.ca) if pa >= pb else (sb, m.cb)
            m.pick(path, copy.deepcopy(sa), copy.deepcopy(sb))
            for j in range(len(chosen)):
                m.carry(f"{path}.{j}", conf)
            cells.append(copy.deepcopy(chosen))
            continue
        m.pick(path, len(sa), len(sb))  # same height: its confidence, the surer one's others
        others = (m.aa if m.ca.get(path, 1.0) >= m.cb.get(path, 1.0) else m.ab).get(path)
        if others and m.uncertain and m.uncertain[-1]["path"] == path:
            m.uncertain[-1]["alternatives"] = copy.deepcopy(others)
        stack = []
        for j, (ka, kb) in enumerate(zip(sa, sb, strict=True)):
            cp = f"{path}.{j}"
            cube = {"player": m.pick(f"{cp}.player", ka["player"], kb["player"])}
            fa, fb = ka.get("faces") or {}, kb.get("faces") or {}
            if fa or fb:
                cube["faces"] = {d: m.pick(f"{cp}.faces.{d}", fa.get(d), fb.get(d))
                                 for d in FACES}
                _complete(cube["faces"], cube_set)
            stack.append(cube)
        cells.append(stack)
    out = {k: v for k, v in a.items() if k not in ("position", "uncertain", "confidence")}
    out["position"] = {"cells": cells}
    out["uncertain"] = [u for u in m.uncertain if _exists(out["position"], u["path"])]
    named = {u["path"] for u in out["uncertain"] if u.get("alternatives")
             and u["path"].count(".") == 1}
    for u in out["uncertain"]:  # the referee puts a stack in before what lies in it
        if ".".join(u["path"].split(".")[:2]) in named - {u["path"]}:
            u.pop("alternatives", None)
    surer = max(a.get("confidence", 1.0), b.get("confidence", 1.0))
    if surer > 0:  # the elements not listed were read at LISTED_BELOW or more
        surer = max(surer, LISTED_BELOW)
    out["confidence"] = round(min([u["confidence"] for u in out["uncertain"]] + [surer]), 4)
    if "board" in b:
        out["board_second"] = b["board"]
    return out


def _complete(faces: dict, cube_set: str) -> None:
    """Fill the null faces where the known ones leave one orientation of the set."""
    known = [faces.get(d) for d in FACES]
    fits = CUBE_SETS[cube_set].matching(known)
    if len(fits) == 1:
        for d, value in zip(FACES, CUBE_SETS[cube_set].orientations[fits[0]], strict=True):
            faces[d] = value


def _exists(position: dict, path: str) -> bool:
    node = position
    for key in path.split("."):
        if isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                return False
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return False
    return True


def _turn_cube(cube: dict) -> dict:
    out = dict(cube)
    if isinstance(cube.get("faces"), dict):
        out["faces"] = {_OPPOSITE_SIDE.get(d, d): v for d, v in cube["faces"].items()}
    return out


def _turn_path(path: str, n: int) -> str:
    keys = path.split(".")
    if len(keys) > 1 and keys[0] == "cells" and keys[1].isdigit():
        keys[1] = str(n - 1 - int(keys[1]))
    if len(keys) > 4 and keys[3] == "faces":
        keys[4] = _OPPOSITE_SIDE.get(keys[4], keys[4])
    return ".".join(keys)


def half_turn(obs: dict) -> dict:
    """The observation of a camera seated on the board's north side, in the board's frame.

    The board finder names the side nearest the image's bottom south, so a camera seated
    north reads the board turned half round: cell i is cell n - 1 - i (both the 1x5 row
    and the 3x3 grid, row-major), north and south, east and west faces swap."""
    cells = obs["position"]["cells"]
    n = len(cells)
    out = dict(obs)
    out["position"] = {**obs["position"],
                       "cells": [[_turn_cube(c) for c in stack] for stack in cells[::-1]]}
    turned = []
    for u in obs.get("uncertain", []):
        entry = {**u, "path": _turn_path(u["path"], n)}
        if "alternatives" in u:
            entry["alternatives"] = [
                [[_turn_cube(c) for c in v] if isinstance(v, list) else v, p]
                for v, p in u["alternatives"]]
        turned.append(entry)
    out["uncertain"] = turned
    return out


def fuse_images(image_a, image_b, game: str, calibrations=(None, None),
                seats=("south", "north"), cube_set: str | None = None, readers=None,
                **observe_args) -> dict:
    """Read two frames of the same instant and fuse them. ``calibrations``: one per camera
    (None: the assumed camera); ``seats``: the side of the board each camera stands on
    (south or north; the board finder names the nearer long side south, see ``half_turn``).
    ``readers``: one ``read(image, **observe_args)`` per camera in place of
    ``vision.observe.observe`` (a stream's ``Observer.observe``, tracking each camera's
    board; ``calibrations`` are then theirs). A frame that cannot be read is left out;
    when neither can, the first frame's ``ObserveError`` is raised. ``observe_args``:
    table, seq, time."""
    from vision.observe import ObserveError, observe

    if readers is None:
        readers = [lambda image, cal=cal, **kw: observe(image, game, calibration=cal, **kw)
                   for cal in calibrations]
    got, errors = [], []
    for image, read, seat in zip((image_a, image_b), readers, seats, strict=True):
        if seat not in ("south", "north"):
            raise ValueError(f"seat {seat!r}: a camera stands south or north of the board")
        try:
            obs = read(image, **observe_args)
        except ObserveError as err:
            errors.append(err)
            continue
        got.append(half_turn(obs) if seat == "north" else obs)
    if not got:
        raise errors[0]
    if len(got) == 1:
        return got[0]
    return fuse(got[0], got[1], cube_set)
