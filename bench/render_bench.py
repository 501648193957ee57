"""Synthetic renderer speed (single process): training crops per second by kind, full
1280x720 frames per second (a new seed each: new table, board and piece textures), and
scripted-game frames per second (one table, the static scene rendered once per pose).
``tableref dataset`` runs one such process per core. "cpu ms each" is process time, the
better guide on a shared machine; "per second" is wall-clock."""

from __future__ import annotations

import time

from vision.render.crops import KINDS, pool_for, render_crops
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position
from vision.render.scene import GAMES
from vision.render.script import ScriptedGame

TITLE = "Synthetic renderer (single process)"
SEED = 20261123
CROPS = 60
FRAMES = 2  # per game


def _row(what: str, n: int, wall: float, cpu: float) -> dict:
    return {"what": what, "items": n, "per second": n / wall, "ms each": 1000 * wall / n,
            "cpu ms each": 1000 * cpu / n}


def measure() -> list[dict]:
    rows = []
    pool_for(SEED)  # the pool is made once per data set, not per crop
    for kind in KINDS:
        render_crops(kind, 2, SEED)
        t, c = time.perf_counter(), time.process_time()
        render_crops(kind, CROPS, SEED, start=100)
        rows.append(_row(f"{kind} crops 64x64", CROPS, time.perf_counter() - t,
                         time.process_time() - c))
    for game in GAMES:
        positions = [random_position(game, SEED + k) for k in range(FRAMES)]
        t, c = time.perf_counter(), time.process_time()
        for k, pos in enumerate(positions):
            render_scene(game, pos, SEED + k, options=RenderOptions())
        rows.append(_row(f"{game} frames 1280x720", FRAMES, time.perf_counter() - t,
                         time.process_time() - c))
    positions = [random_position("esoloe", SEED, plies) for plies in (2, 3)]
    script = ScriptedGame("esoloe", positions, seed=SEED, fps=12)
    n = min(len(script), 40)
    t, c = time.perf_counter(), time.process_time()
    for i in range(n):
        script.frame(i)
    rows.append(_row("scripted esoloe frames", n, time.perf_counter() - t,
                     time.process_time() - c))
    return rows
