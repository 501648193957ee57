"""Crop sources for the registry: the renderer's ``render_crops`` (vision/render/crops.py),
or its frames cut as a reader cuts them, turned into ``source(n, seed) -> (crops, labels
per head)``.

Rendering is the slow part of training (tens of milliseconds a crop), so the crops are made
in chunks by a few worker processes; item ``i`` of a seed depends on ``(seed, i)`` only, so
the result is the same whatever the number of workers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from vision.train.registry import CUBE_PLAYERS, ModelSpec

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "out" / "cache"
TEST_SEED_OFFSET = 1_000_003  # held-out renders come from the training seed + this

RENDER_SIZE = 64  # rendered crop side in pixels; the classifier resizes to its input
CHUNK = 250


def _chunk(args: tuple[str, int, int, int, int]) -> tuple[np.ndarray, list[dict]]:
    from vision.render.crops import render_crops

    kind, count, seed, size, start = args
    return render_crops(kind, count, seed, size=size, start=start)


def rendered(kind: str, n: int, seed: int, size: int = RENDER_SIZE,
             workers: int | None = None) -> tuple[list[np.ndarray], list[dict]]:
    """``n`` crops of ``kind`` with the renderer's label dicts, in item order."""
    jobs = [(kind, min(CHUNK, n - start), seed, size, start) for start in range(0, n, CHUNK)]
    return _in_chunks(_chunk, jobs, workers)


def _in_chunks(work, jobs: list[tuple], workers: int | None) -> tuple[list, list]:
    """``work(job) -> (images, labels)`` over ``jobs`` (in a process per core unless
    ``workers`` says otherwise), the images and labels joined in job order."""
    workers = workers or min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        parts = [work(job) for job in jobs]
    else:
        # workers started afresh (forkserver), not forked from this process: a child forked
        # from a process with threads (OpenCV's, onnxruntime's, ZeroMQ's; a test run has them
        # all) can wait for ever on a lock one of them held at the fork (seen: a full test run
        # hung here)
        with ProcessPoolExecutor(workers, mp_context=get_context("forkserver")) as pool:
            parts = list(pool.map(work, jobs))
    images = [image for part, _ in parts for image in part]
    labels = [label for _, part in parts for label in part]
    return images, labels


DIE_RENDER_SIZE = 80  # the die's top spans 27-40 px, as in a 1280 x 720 frame
TOP_JITTER_MM = 1.2  # the reader's die centre is this far off (sd, each axis)


def _die_top_chunk(args: tuple[int, int, int]) -> tuple[list[np.ndarray], list[dict]]:
    """The renderer's die crops re-cut by ``vision.read_miwin.top_crops``, as the reader
    cuts a die from a frame: the plane of the die's top (the label's ``top_plane``: world
    mm -> crop px), north up, the top centred (give or take ``TOP_JITTER_MM``) and filling
    ``CROP_FILL`` of the crop, the side faces the camera sees stretched beside it."""
    from vision.read_miwin import Die, top_crops
    from vision.render.crops import render_crops
    from vision.render.rng import make_rng

    count, seed, start = args
    images, labels = render_crops("die", count, seed, size=DIE_RENDER_SIZE, start=start)
    out = []
    for j, (label, image) in enumerate(zip(labels, images, strict=True)):
        (u, v), H = label["centre_mm"], np.array(label["top_plane"])
        du, dv = make_rng(seed, "top-jitter", start + j).normal(0, TOP_JITTER_MM, 2)
        out += top_crops(image, H, [Die(label["colour"], u + du, v + dv, 1.0)])
    return out, labels


def die_tops(n: int, seed: int, workers: int | None = None):
    """Miwin dice as the reader cuts them (``_die_top_chunk``): the top's pips and the
    die's colour."""
    jobs = [(min(CHUNK, n - start), seed, start) for start in range(0, n, CHUNK)]
    images, labels = _in_chunks(_die_top_chunk, jobs, workers)
    return images, {"pips": [str(label["top"]) for label in labels],
                    "colour": [label["colour"] for label in labels]}


def cube_faces(n: int, seed: int):
    """Rectified e-SOLO-e cube faces: symbol (or blank), its quarter turns, the cube."""
    images, labels = rendered("face", n, seed)
    return images, {
        "symbol": [label["label"] for label in labels],
        "rotation": [None if label["label"] == "blank" else str(label["rotation"])
                     for label in labels],
        "cube": [CUBE_PLAYERS[label["player"]] for label in labels],
    }


_STONE_KINDS = {"W": "white", "B": "blue", "R": "red", "K": "black", "O": "orange"}


# Cubes fields cut from whole frames as the reader cuts them (``stone_fields``): frame k of
# a source seed is scene seed FIELD_FRAME_BASE + FIELD_FRAME_STRIDE * seed + k (never the
# bench's 7,000,000+ or the dev seeds 100..999 and 8,000,000..8,999,999).
FIELD_FRAME_BASE = 30_000_000
FIELD_FRAME_STRIDE = 100_000
FIELD_CORNER_PX = 1.2  # a found board's corners are this far off (sd, each axis)
FIELD_FRAMES = 8  # frames per job
#: share of each sort of field kept from a frame: the frames are filled more densely than
#: games are (neighbours' side faces), and fewer crops a frame give more frames
FIELD_KEEP = {"colour": 0.5, "white": 0.3, "empty": 0.12}


def _field_position(seed: int, frame: int) -> dict:
    """A random Cubes position for a training frame, with its grid refilled: each frame
    its own share of stones (20-80 %) and of coloured ones among them (30-80 %), colours,
    digits and sides uniform."""
    from vision.render.positions import random_position
    from vision.render.rng import make_rng

    scene = FIELD_FRAME_BASE + FIELD_FRAME_STRIDE * seed + frame
    rng = make_rng(seed, "stone-field-grid", frame)
    occupied, coloured = rng.uniform(0.2, 0.8), rng.uniform(0.3, 0.8)
    grid = []
    for _ in range(10):
        row = []
        for _ in range(10):
            if rng.random() >= occupied:
                row.append(".")
            elif rng.random() >= coloured:
                row.append("W")
            else:
                letter = "BRKO"[int(rng.integers(4))]
                row.append((letter if rng.random() < 0.5 else letter.lower())
                           + str(int(rng.integers(2, 7))))
        grid.append(row)
    position = random_position("cubes", scene)
    position["grid"] = grid
    return position


def _field_chunk(args: tuple[int, int, int]) -> tuple[list[np.ndarray], list[str]]:
    """Frames ``start .. start + count - 1`` of ``seed``, rendered whole (any camera) and
    cut as ``vision.read_cubes.read`` cuts a field for the stone model: the planes of its
    board fix (``read_cubes.planes``, the true corners moved by ``FIELD_CORNER_PX``) and
    ``read_cubes.stone_crop`` at the field's centre on the stones' top plane, a player's
    stone turned upright by its owner's seat (``read_cubes.upright``). A share
    (``FIELD_KEEP``) of each sort of field is kept; labels are the grid tokens (``.``
    empty)."""
    from vision.board import CORNER_NAMES, BoardFix, geometry
    from vision.read_cubes import planes, stone_crop, upright
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.rng import make_rng
    from vision.render.scene import stone_turns

    count, seed, start = args
    geom = geometry("cubes")
    crops, tokens = [], []
    for frame in range(start, start + count):
        position = _field_position(seed, frame)
        turns = stone_turns(position)
        scene = FIELD_FRAME_BASE + FIELD_FRAME_STRIDE * seed + frame
        image, truth = render_scene("cubes", position, scene,
                                    options=RenderOptions(camera_mode="any"))
        rng = make_rng(seed, "stone-field-cut", frame)
        corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
        corners = corners + rng.normal(0, FIELD_CORNER_PX, corners.shape)
        H6 = planes(image, BoardFix(corners, corners), geom, None)[1]
        keep = rng.random(100)
        for i, (_, u, v, _) in enumerate(geom.cells):
            token = position["grid"][i // 10][i % 10]
            sort = "empty" if token == "." else "white" if token == "W" else "colour"
            if keep[i] < FIELD_KEEP[sort]:
                crop = stone_crop(image, H6, u, v)  # turned back as the reader turns it
                crops.append(upright(crop, turns.get(token[0].upper(), 0)))
                tokens.append(token)
    return crops, tokens


def stone_fields(n: int, seed: int, workers: int | None = None):
    """Cubes fields as the reader cuts them from frames (``_field_chunk``): white, a
    colour with its digit and side, or empty (the kind ``empty``)."""
    crops, tokens = [], []
    frame = 0
    while len(crops) < n:  # about 30 crops a frame; frames in order, so n decides the set
        frames = math.ceil((n - len(crops)) / 25)
        jobs = [(min(FIELD_FRAMES, frame + frames - f), seed, f)
                for f in range(frame, frame + frames, FIELD_FRAMES)]
        more, more_tokens = _in_chunks(_field_chunk, jobs, workers)
        crops += more
        tokens += more_tokens
        frame += frames
    crops, tokens = crops[:n], tokens[:n]
    return crops, {
        "kind": ["empty" if t == "." else _STONE_KINDS[t[0].upper()] for t in tokens],
        "digit": [t[1:] or None for t in tokens],
        "side": [None if t in ("W", ".") else ("active" if t[0].isupper() else "inactive")
                 for t in tokens],
    }


#: the code that makes the crops: the renderer, these sources and the readers' cuts they use
CROP_CODE = (REPO / "vision" / "render", REPO / "vision" / "train" / "sources.py",
             REPO / "vision" / "read_miwin.py", REPO / "vision" / "read_cubes.py")


def crop_code_digest(paths: tuple[Path, ...] = CROP_CODE) -> str:
    """A short digest of the Python files under ``paths``: crops cached by other code
    (another renderer's glyphs, another cut) are not the crops this code makes."""
    digest = hashlib.sha256()
    for root in paths:
        for path in sorted([root] if root.is_file() else root.rglob("*.py")):
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cached(spec: ModelSpec, n: int, seed: int, cache: Path | None = CACHE):
    """The model's crop source's ``(crops, labels)`` for ``n`` and ``seed``, read from or
    written to ``cache`` when given (``NAME-SOURCE-SEED-N-CODE.npz``: SOURCE the source
    function's name, CODE ``crop_code_digest()``, so a change to the code that makes the
    crops renders them afresh)."""
    source = spec.crop_source().__name__
    path = (cache / f"{spec.name}-{source}-{seed}-{n}-{crop_code_digest()}.npz"
            if cache else None)
    if path is not None and path.is_file():
        with np.load(path) as saved:
            return list(saved["crops"]), json.loads(str(saved["labels"]))
    crops, labels = spec.crop_source()(n, seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, crops=np.stack(crops), labels=json.dumps(labels))
    return crops, labels
