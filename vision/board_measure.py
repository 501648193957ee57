"""Measure board finding alone on renders against their truth.

    nice -n 10 python -m vision.board_measure --n 40 --start 100
    nice -n 10 python -m vision.board_measure --games esoloe,neunfeld --camera any \\
        --n 100 --start 8000000 --frames /tmp/dev --clock cpu

Per game and camera mode: found (corners named right, mean corner error <= 10 px, as
``vision.measure`` counts it), located (the same up to the naming: a quarter or half
turn), the corner error of found boards (mean of the four, px: median and 95th
percentile; and how many have every corner within 1.5 px), and ``find_board``'s time per
frame (median and 95th percentile; ``--clock cpu``: the process's CPU time, what one free
core would take on a shared machine). Seeds ``start .. start + n - 1`` for both the
position and the image; ``--frames FOLDER``: the frames rendered into (and read back
from) FOLDER as ``bench.vision_bench`` keeps them (``GAME-SEED.png`` and ``.json``; or
as ``tableref render --position random --seed SEED --camera C`` writes them, the same
images with the whole truth), so that runs before and after a change see the same
images; ``--save FILE``: every frame's result as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.board import CORNER_NAMES, find_board, geometry
from vision.render.scene import GAMES, named_games

FOUND_PX = 10.0  # vision.measure's threshold


def frame(game: str, seed: int, camera: str, folder: str | None):
    """(image, the true corners nw, ne, se, sw) of ``game``'s render for ``seed``, from
    ``folder`` when it holds it (rendered into it first otherwise)."""
    png = Path(f"{folder}/{game}-{seed}.png") if folder else None
    if png is not None and png.is_file() and png.with_suffix(".json").is_file():
        truth = json.loads(png.with_suffix(".json").read_text())
        corners = truth["corners"] if "corners" in truth else truth["board"]["corners"]
        return cv2.imread(str(png)), np.array([corners[k] for k in CORNER_NAMES])
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    position = random_position(game, seed)
    image, truth = render_scene(game, position, seed,
                                options=RenderOptions(camera_mode=camera))
    corners = truth["board"]["corners"]
    if png is not None:
        png.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(png), image)
        png.with_suffix(".json").write_text(json.dumps({"position": position,
                                                        "corners": corners}))
    return image, np.array([corners[k] for k in CORNER_NAMES])


def measure(game: str, camera: str, n: int, start: int, folder: str | None = None,
            clock_name: str = "wall", save=None) -> str:
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    geom = geometry(game)
    found = located = within = 0
    errors, ms = [], []
    for seed in range(start, start + n):
        image, want = frame(game, seed, camera, folder)
        t0 = clock()
        fix = find_board(image, geom)
        ms.append(1000 * (clock() - t0))
        row = {"game": game, "seed": seed, "ms": round(ms[-1], 1), "found": False}
        if fix is not None:
            dist = np.linalg.norm(fix.corners - want, axis=1)
            turned = min(float(np.linalg.norm(np.roll(fix.corners, k, axis=0) - want,
                                              axis=1).mean()) for k in range(4))
            located += turned <= FOUND_PX
            row.update(error=round(float(dist.mean()), 2), turned=round(turned, 2),
                       corners=np.round(fix.corners, 2).tolist())
            if dist.mean() <= FOUND_PX:
                found += 1
                errors.append(float(dist.mean()))
                within += bool(dist.max() <= 1.5)
                row["found"] = True
        if save is not None:
            save.write(json.dumps(row) + "\n")
    e = np.asarray(errors) if errors else np.array([np.nan])
    return (f"| {game} | {camera} | {found}/{n} | {located}/{n} | {np.median(e):.2f} / "
            f"{np.percentile(e, 95):.2f} px | {within}/{found} | "
            f"{np.median(ms):.0f} / {np.percentile(ms, 95):.0f} ms |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.board_measure", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--camera", default="overhead,oblique",
                        help="camera modes, comma-separated: overhead, oblique, any")
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--start", type=int, default=100)
    parser.add_argument("--frames", metavar="FOLDER",
                        help="render into FOLDER and read frames back from it (one camera)")
    parser.add_argument("--clock", default="wall", choices=("wall", "cpu"))
    parser.add_argument("--save", metavar="FILE", help="each frame's result, JSON lines")
    args = parser.parse_args(argv)
    try:
        games = named_games(args.games)
    except ValueError as error:
        parser.error(str(error))
    cameras = args.camera.split(",")
    if args.frames and len(cameras) > 1:
        parser.error("--frames holds one camera mode's frames: name one --camera")
    cv2.setNumThreads(1)
    save = open(args.save, "w") if args.save else None  # noqa: SIM115
    try:
        print("| game | camera | found | located | corner error median / p95 | all corners "
              "<= 1.5 px | find median / p95 |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for game in games:
            for camera in cameras:
                print(measure(game, camera, args.n, args.start, args.frames, args.clock,
                              save), flush=True)
    finally:
        if save is not None:
            save.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
