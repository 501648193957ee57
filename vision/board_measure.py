"""Measure board finding alone on renders against their truth.

    nice -n 10 python -m vision.board_measure --n 40 --start 100

Per game and camera mode: found (corners named right, mean corner error <= 10 px, as
``vision.measure`` counts it), located (the same up to the naming: a quarter or half
turn), the corner error of found boards (mean of the four, px: median and 95th
percentile; and how many have every corner within 1.5 px), and ``find_board``'s time per
frame. Seeds ``start .. start + n - 1`` for both the position and the image.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from vision.board import CORNER_NAMES, find_board, geometry
from vision.render.scene import GAMES

FOUND_PX = 10.0  # vision.measure's threshold


def measure(game: str, camera: str, n: int, start: int) -> str:
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    geom = geometry(game)
    found = located = within = 0
    errors, seconds = [], 0.0
    for seed in range(start, start + n):
        image, truth = render_scene(game, random_position(game, seed), seed,
                                    options=RenderOptions(camera_mode=camera))
        t0 = time.perf_counter()
        fix = find_board(image, geom)
        seconds += time.perf_counter() - t0
        if fix is None:
            continue
        want = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
        dist = np.linalg.norm(fix.corners - want, axis=1)
        located += min(float(np.linalg.norm(np.roll(fix.corners, k, axis=0) - want,
                                            axis=1).mean()) for k in range(4)) <= FOUND_PX
        if dist.mean() <= FOUND_PX:
            found += 1
            errors.append(float(dist.mean()))
            within += bool(dist.max() <= 1.5)
    e = np.asarray(errors) if errors else np.array([np.nan])
    return (f"| {game} | {camera} | {found}/{n} | {located}/{n} | {np.median(e):.2f} / "
            f"{np.percentile(e, 95):.2f} px | {within}/{found} | "
            f"{1000 * seconds / n:.0f} ms |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.board_measure", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--camera", default="overhead,oblique")
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--start", type=int, default=100)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print("| game | camera | found | located | corner error median / p95 | all corners "
          "<= 1.5 px | time |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for game in args.games.split(","):
        for camera in args.camera.split(","):
            print(measure(game, camera, args.n, args.start), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
