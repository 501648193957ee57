"""Crop sources for the registry: the renderer's ``render_crops`` (vision/render/crops.py)
turned into ``source(n, seed) -> (crops, labels per head)``.

Rendering is the slow part of training (tens of milliseconds a crop), so the crops are made
in chunks by a few worker processes; item ``i`` of a seed depends on ``(seed, i)`` only, so
the result is the same whatever the number of workers.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from vision.train.registry import CUBE_PLAYERS, ModelSpec

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "out" / "cache"
TEST_SEED_OFFSET = 1_000_003  # held-out renders come from the training seed + this

RENDER_SIZE = 64  # rendered crop side in pixels; the classifier resizes to its input
CHUNK = 250
# The renderer frames a piece with its neighbourhood (the piece spans 35-50 % of the crop);
# the pipeline's piece crops are tighter (the piece spans 60-90 %), so the central part is
# kept (stones; dice are re-cut as the reader cuts them, ``die_tops``).
CENTRE = 0.625


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
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(work, jobs))
    images = [image for part, _ in parts for image in part]
    labels = [label for _, part in parts for label in part]
    return images, labels


def _centre(images: list[np.ndarray], keep: float = CENTRE) -> list[np.ndarray]:
    side = images[0].shape[0] if images else 0
    lo = round(side * (1 - keep) / 2)
    return [image[lo:side - lo, lo:side - lo] for image in images]


DIE_RENDER_SIZE = 80  # the die's top spans 27-40 px, as in a 1280 x 720 frame
TOP_JITTER_MM = 1.2  # the reader's die centre is this far off (sd, each axis)


def _die_top_chunk(args: tuple[int, int, int]) -> tuple[np.ndarray, list[dict]]:
    """The renderer's die crops re-cut as ``vision.read_miwin.read_tops`` cuts a die from a
    frame: the plane of the die's top (the label's ``top_plane``: world mm -> crop px),
    north up, the top centred (give or take ``TOP_JITTER_MM``) and filling ``CROP_FILL`` of
    the crop, the side faces the camera sees stretched beside it."""
    from vision.grid import square_crop
    from vision.read_miwin import CROP_FILL, DIE_MM
    from vision.render.crops import render_crops
    from vision.render.rng import make_rng

    count, seed, start = args
    images, labels = render_crops("die", count, seed, size=DIE_RENDER_SIZE, start=start)
    out = np.empty((count, RENDER_SIZE, RENDER_SIZE, 3), np.uint8)
    for j, (label, image) in enumerate(zip(labels, images, strict=True)):
        (u, v), H = label["centre_mm"], np.array(label["top_plane"])
        du, dv = make_rng(seed, "top-jitter", start + j).normal(0, TOP_JITTER_MM, 2)
        out[j] = square_crop(image, H, u + du, v + dv, DIE_MM / 2 / CROP_FILL, RENDER_SIZE)
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


# The digit is a few pixels: stones are rendered larger and cut tighter (the stone spans
# 67-96 % of the crop), so the digit is about a third of the crop's height.
STONE_RENDER_SIZE = 80
STONE_CENTRE = 0.55


def stones(n: int, seed: int):
    """Cubes stones: white, or a colour with a digit shown active (upper case) or not."""
    images, labels = rendered("stone", n, seed, size=STONE_RENDER_SIZE)
    tokens = [label["token"] for label in labels]
    return _centre(images, STONE_CENTRE), {
        "kind": [_STONE_KINDS[t[0].upper()] for t in tokens],
        "digit": [t[1:] or None for t in tokens],
        "side": [None if t == "W" else ("active" if t[0].isupper() else "inactive")
                 for t in tokens],
    }


def cached(spec: ModelSpec, n: int, seed: int, cache: Path | None = CACHE):
    """The model's crop source's ``(crops, labels)`` for ``n`` and ``seed``, read from or
    written to ``cache`` (``NAME-SOURCE-SEED-N.npz``, SOURCE the source function's name)
    when given."""
    source = spec.crop_source().__name__
    path = cache / f"{spec.name}-{source}-{seed}-{n}.npz" if cache else None
    if path is not None and path.is_file():
        with np.load(path) as saved:
            return list(saved["crops"]), json.loads(str(saved["labels"]))
    crops, labels = spec.crop_source()(n, seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, crops=np.stack(crops), labels=json.dumps(labels))
    return crops, labels
