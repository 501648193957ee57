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
# The renderer frames a die or stone with its neighbourhood (the piece spans 35-50 % of
# the crop); the pipeline's piece crops, like the real-dice crops, are tighter (the piece
# spans 60-90 %), so the central part is kept.
CENTRE = 0.625


def _chunk(args: tuple[str, int, int, int, int]) -> tuple[np.ndarray, list[dict]]:
    from vision.render.crops import render_crops

    kind, count, seed, size, start = args
    return render_crops(kind, count, seed, size=size, start=start)


def rendered(kind: str, n: int, seed: int, size: int = RENDER_SIZE,
             workers: int | None = None) -> tuple[list[np.ndarray], list[dict]]:
    """``n`` crops of ``kind`` with the renderer's label dicts, in item order."""
    jobs = [(kind, min(CHUNK, n - start), seed, size, start) for start in range(0, n, CHUNK)]
    workers = workers or min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        parts = [_chunk(job) for job in jobs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_chunk, jobs))
    images = [image for part, _ in parts for image in part]
    labels = [label for _, part in parts for label in part]
    return images, labels


def _centre(images: list[np.ndarray], keep: float = CENTRE) -> list[np.ndarray]:
    side = images[0].shape[0] if images else 0
    lo = round(side * (1 - keep) / 2)
    return [image[lo:side - lo, lo:side - lo] for image in images]


def die_faces(n: int, seed: int):
    """Miwin dice seen from above: the top face's pips and the die's colour."""
    images, labels = rendered("die", n, seed)
    return _centre(images), {"pips": [str(label["top"]) for label in labels],
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
    written to ``cache`` (``NAME-SEED-N.npz``) when given."""
    path = cache / f"{spec.name}-{seed}-{n}.npz" if cache else None
    if path is not None and path.is_file():
        with np.load(path) as saved:
            return list(saved["crops"]), json.loads(str(saved["labels"]))
    crops, labels = spec.crop_source()(n, seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, crops=np.stack(crops), labels=json.dumps(labels))
    return crops, labels
