"""Labelled data sets on disk, made in parallel on all cores.

Crops (``cube``, ``face``, ``die``, ``stone``): ``OUT/images/NNNNNN.png`` and one JSON
label a line in ``OUT/labels.jsonl`` (with its ``file``). Frames (``frames``): full
1280x720 renders of random legal positions, ``OUT/frames/NNNNNN.png`` with the truth in
``OUT/frames/NNNNNN.json`` and a line per frame in ``OUT/labels.jsonl``. Item ``i`` depends
on the seed and ``i`` only, so the result is the same whatever the number of workers.
"""

from __future__ import annotations

import json
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import cv2

from vision.render.crops import KINDS, VARIANTS, pool_for, render_crops
from vision.render.rng import sub_seed
from vision.render.scene import GAMES

CHUNK = 64  # crops per task
FRAME_KINDS = ("frames",)


def _crop_chunk(args):
    kind, start, n, seed, size, variant = args
    images, labels = render_crops(kind, n, seed, size=size, start=start, variant=variant)
    return start, [cv2.imencode(".png", im)[1].tobytes() for im in images], labels


def _frame_item(args):
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    index, seed, game = args
    item = sub_seed(seed, "frame", index)
    g = game or GAMES[item % len(GAMES)]
    position = random_position(g, item)
    image, truth = render_scene(g, position, item, options=RenderOptions())
    return index, cv2.imencode(".png", image)[1].tobytes(), truth


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, what: str, stream=None):
        self.total, self.what, self.done = total, what, 0
        self.t0 = time.perf_counter()
        self.stream = stream or sys.stderr

    def add(self, k: int) -> None:
        self.done += k
        rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
        bar = "#" * int(30 * self.done / max(self.total, 1))
        self.stream.write(f"\r[{bar:<30}] {self.done}/{self.total} {self.what} "
                          f"({rate:.1f}/s)")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def write_dataset(kind: str, n: int, out: Path, seed: int = 0, size: int = 64,
                  workers: int | None = None, game: str | None = None,
                  progress: bool = True, variant: str = "default") -> dict:
    """Write ``n`` items of ``kind``; returns a summary (count, seconds, per second).
    ``variant``: crops of the default set or of another (crops.VARIANTS)."""
    if kind not in KINDS + FRAME_KINDS:
        raise ValueError(f"unknown kind {kind!r} (known: {', '.join(KINDS + FRAME_KINDS)})")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    if kind in FRAME_KINDS and variant != "default":
        raise ValueError("--variant is for crops; frames show the default set")
    if game is not None and game not in GAMES:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    out = Path(out)
    sub = out / ("frames" if kind == "frames" else "images")
    sub.mkdir(parents=True, exist_ok=True)
    workers = workers or os.cpu_count() or 1
    bar = Progress(n, "frames" if kind == "frames" else f"{kind} crops") if progress else None
    t0 = time.perf_counter()
    ctx = get_context("fork") if sys.platform != "win32" else get_context()
    if kind in KINDS and ctx.get_start_method() == "fork":
        pool_for(seed, variant)  # made once here: the forked workers share it
    # the workers' OpenCV on one thread (one worker a core; a crop's images are too small
    # for threads to pay), set here before the fork: set in a forked child it can wait for
    # the parent's threads for ever
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        _write(kind, n, out, sub, seed, size, game, variant, workers, bar, ctx)
    finally:
        cv2.setNumThreads(threads)
    dt = time.perf_counter() - t0
    return {"kind": kind, "variant": variant, "count": n, "seconds": round(dt, 2),
            "per_second": round(n / dt, 1),
            "workers": workers, "out": str(out)}


def _write(kind, n, out, sub, seed, size, game, variant, workers, bar, ctx) -> None:
    with open(out / "labels.jsonl", "w") as labels_file, ctx.Pool(workers) as pool:
        if kind == "frames":
            tasks = [(i, seed, game) for i in range(n)]
            for i, png, truth in pool.imap(_frame_item, tasks):
                name = f"{i:06d}"
                (sub / f"{name}.png").write_bytes(png)
                (sub / f"{name}.json").write_text(json.dumps(truth))
                line = {"file": f"frames/{name}.png", "truth": f"frames/{name}.json",
                        "game": truth["game"], "position": truth["position"]}
                labels_file.write(json.dumps(line) + "\n")
                if bar:
                    bar.add(1)
        else:
            tasks = [(kind, s, min(CHUNK, n - s), seed, size, variant)
                     for s in range(0, n, CHUNK)]
            for start, pngs, labels in pool.imap(_crop_chunk, tasks):
                for j, (png, label) in enumerate(zip(pngs, labels, strict=True)):
                    name = f"images/{start + j:06d}.png"
                    (out / name).write_bytes(png)
                    labels_file.write(json.dumps({"file": name, **label}) + "\n")
                if bar:
                    bar.add(len(pngs))
