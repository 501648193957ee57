"""Synthetic renderer speed: training crops per second by kind (one process, the pool made
beforehand as a data set makes it once, OpenCV on one thread as in its workers; the lean
crop painter, vision/render/crop_paint.py),
full 1280x720 frames per second by game (a new seed each: new table, board and piece
textures), scripted-game frames per second (one table, the static scene rendered once per
pose, a hand drawn over it), and ``tableref dataset`` itself: crops written as PNG by one
worker per core, the number the issue's bar is about (100,000 crops of a kind in under 5
minutes on 2 cores = 333/s; the row says how long 100,000 would take at its rate).

"cpu ms each" is the process's CPU time, the better guide on a shared machine; "per
second" is wall-clock. ``python -m bench render_bench``.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from pathlib import Path

import cv2

from vision.render.crops import KINDS, pool_for, render_crops
from vision.render.dataset import write_dataset
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position
from vision.render.scene import GAMES
from vision.render.script import ScriptedGame

TITLE = "Synthetic renderer"
SEED = 20261123
CROPS = 200  # per kind
FRAMES = 2  # per game
SCRIPTED = 40
DATASET = 3000  # cube crops written by `tableref dataset` (the pool is made once, shared)


def _row(what: str, n: int, wall: float, cpu: float) -> dict:
    return {"what": what, "items": n, "per second": n / wall, "ms each": 1000 * wall / n,
            "cpu ms each": 1000 * cpu / n}


def measure() -> list[dict]:
    rows = []
    pool_for(SEED)  # the pool is made once per data set, not per crop
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # as in a data set's workers (dataset._one_thread)
    for kind in KINDS:
        render_crops(kind, 30, SEED, start=10_000)  # fill the pool's caches
        t, c = time.perf_counter(), time.process_time()
        render_crops(kind, CROPS, SEED, start=100)
        rows.append(_row(f"{kind} crops 64x64, 1 process", CROPS, time.perf_counter() - t,
                         time.process_time() - c))
    cv2.setNumThreads(threads)
    for game in GAMES:
        positions = [random_position(game, SEED + k) for k in range(FRAMES)]
        t, c = time.perf_counter(), time.process_time()
        for k, pos in enumerate(positions):
            render_scene(game, pos, SEED + k, options=RenderOptions())
        rows.append(_row(f"{game} frames 1280x720", FRAMES, time.perf_counter() - t,
                         time.process_time() - c))
    positions = [random_position("esoloe", SEED, plies) for plies in (2, 3)]
    script = ScriptedGame("esoloe", positions, seed=SEED, fps=12)
    n = min(len(script), SCRIPTED)
    script.frame(0)  # the static scene
    t, c = time.perf_counter(), time.process_time()
    for i in range(n):
        script.frame(i)
    rows.append(_row("scripted esoloe frames (hands in some)", n, time.perf_counter() - t,
                     time.process_time() - c))
    workers = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as out:
        c = _cpu_with_children()
        summary = write_dataset("cube", DATASET, Path(out), seed=SEED, workers=workers,
                                progress=False)
        cpu = _cpu_with_children() - c
    minutes = 100_000 / summary["per_second"] / 60
    rows.append(_row(f"tableref dataset --kind cube, {workers} workers (PNG): 100,000 in "
                     f"{minutes:.1f} min", DATASET, summary["seconds"], cpu))
    return rows


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
