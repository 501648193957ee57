"""Synthetic renderer speed (single process): training crops per second by kind, full
1280x720 frames per second (a new seed each: new table, board and piece textures), and
scripted-game frames per second (one table, the static scene rendered once per pose).
``tableref dataset`` runs one such process per core."""

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


def measure() -> list[dict]:
    rows = []
    pool_for(SEED)  # the pool is made once per data set, not per crop
    for kind in KINDS:
        render_crops(kind, 2, SEED)
        t = time.perf_counter()
        render_crops(kind, CROPS, SEED, start=100)
        dt = time.perf_counter() - t
        rows.append({"what": f"{kind} crops 64x64", "items": CROPS,
                     "per second": CROPS / dt, "ms each": 1000 * dt / CROPS})
    for game in GAMES:
        positions = [random_position(game, SEED + k) for k in range(FRAMES)]
        t = time.perf_counter()
        for k, pos in enumerate(positions):
            render_scene(game, pos, SEED + k, options=RenderOptions())
        dt = time.perf_counter() - t
        rows.append({"what": f"{game} frames 1280x720", "items": FRAMES,
                     "per second": FRAMES / dt, "ms each": 1000 * dt / FRAMES})
    positions = [random_position("esoloe", SEED, plies) for plies in (2, 3)]
    script = ScriptedGame("esoloe", positions, seed=SEED, fps=12)
    n = min(len(script), 40)
    t = time.perf_counter()
    for i in range(n):
        script.frame(i)
    dt = time.perf_counter() - t
    rows.append({"what": "scripted esoloe frames", "items": n, "per second": n / dt,
                 "ms each": 1000 * dt / n})
    return rows
