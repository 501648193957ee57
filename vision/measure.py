"""Measure the vision pipeline on renders against their ground truth.

    python -m vision.measure --games esoloe,esoloe-tictactoe --n 20 --camera overhead

Per game and camera mode: the board's found rate (corners named right and their mean
error under ``FOUND_PX``; "located": the same up to the corners' naming, a quarter or half
turn), the corner error (mean and median over found boards, px), the
occupancy and player accuracy over the fields of found boards, the up face's accuracy
(``models/symbol.onnx``: over the occupied fields read as occupied; "-" without the model)
and the time per frame.
Seeds are ``start .. start + n - 1`` for both the position and the image.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import numpy as np

from vision.board import CORNER_NAMES, find_board, geometry
from vision.read_esoloe import read_fields

FOUND_PX = 10.0


@dataclass
class Tally:
    game: str
    camera: str
    frames: int = 0
    errors: list[float] = field(default_factory=list)  # mean corner error of found boards
    located: int = 0  # boards whose corners are right up to their naming (a quarter turn)
    fields: int = 0
    occupancy_ok: int = 0
    cubes: int = 0
    player_ok: int = 0
    up_read: int = 0  # cubes whose up face the model read
    up_ok: int = 0
    seconds: float = 0.0

    @property
    def found_rate(self) -> float:
        return len(self.errors) / max(self.frames, 1)

    def line(self) -> str:
        e = np.asarray(self.errors) if self.errors else np.array([np.nan])
        return (f"{self.game:17s} {self.camera:8s} found {len(self.errors)}/{self.frames} "
                f"(located {self.located}) "
                f"corner err mean {np.mean(e):.2f} px median {np.median(e):.2f} px | "
                f"occupancy {self.occupancy_ok}/{self.fields} player {self.player_ok}/"
                f"{self.cubes} up {f'{self.up_ok}/{self.up_read}' if self.up_read else '-'} | "
                f"{1000 * self.seconds / max(self.frames, 1):.0f} ms/frame")


def measure(game: str, camera: str, n: int, start: int = 100) -> Tally:
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    geom = geometry(game)
    tally = Tally(game, camera)
    for seed in range(start, start + n):
        position = random_position(game, seed)
        image, truth = render_scene(game, position, seed,
                                    options=RenderOptions(camera_mode=camera))
        tally.frames += 1
        t0 = time.perf_counter()
        fix = find_board(image, geom)
        fields = read_fields(image, fix, geom) if fix is not None else None
        tally.seconds += time.perf_counter() - t0
        if fix is None:
            continue
        want = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
        err = float(np.linalg.norm(fix.corners - want, axis=1).mean())
        turned = min(float(np.linalg.norm(np.roll(fix.corners, k, axis=0) - want, axis=1).mean())
                     for k in range(4))
        tally.located += turned <= FOUND_PX
        if err > FOUND_PX:
            continue
        tally.errors.append(err)
        for got, stack in zip(fields, position["cells"], strict=True):
            tally.fields += 1
            tally.occupancy_ok += got["occupied"] == bool(stack)
            if stack and got["occupied"]:
                tally.cubes += 1
                tally.player_ok += got["player"] == stack[-1]["player"]
                if got["up"] is not None:
                    tally.up_read += 1
                    tally.up_ok += got["up"].label == stack[-1]["faces"]["up"]
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.measure", description=__doc__)
    parser.add_argument("--games", default="esoloe,esoloe-tictactoe")
    parser.add_argument("--camera", default="overhead,oblique")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--start", type=int, default=100)
    args = parser.parse_args(argv)
    for game in args.games.split(","):
        for camera in args.camera.split(","):
            print(measure(game, camera, args.n, args.start).line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
