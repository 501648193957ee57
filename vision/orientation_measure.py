"""Measure stacks, faces and orientation of the e-SOLO-e reader on renders.

    python -m vision.orientation_measure --n 12 --cameras overhead,30,45,60,45+back
    python -m vision.orientation_measure --game esoloe-tictactoe --cameras 45,45+back

Per camera set-up: a front camera (seated south, azimuth 0 +- 10 degrees) looking down
(``overhead``: 0..6 degrees from vertical) or tilted 30, 45 or 60 degrees, 350..700 mm from
the board, a Pi lens (53..66 degrees, mild barrel); ``T+back`` adds a second camera at the
same tilt seated north (azimuth 180), its observation turned into the board's frame and
fused (``vision.fuse``). Positions: random playouts of 8..14 placements (``esoloe``:
stacks of 1..4; ``--game`` another of the family); seeds ``start .. start + n - 1`` for
position, lighting and camera.

Counted: stack heights over the occupied fields (and the wrong ones read with >= 0.9
confidence); over the cubes of stacks read at the right height, each cube's six faces
right / null / wrong and the cubes whose six faces are all given (*resolved*; wrong ones
counted apart), and each cube's player. ``--board truth`` reads on the render's true
board corners (what the reader does on a found board), ``--board found`` finds the board
first (``vision.board.find_board``; frames without a board count as missed).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from vision.board import CORNER_NAMES, BoardFix, find_board, geometry
from vision.fuse import fuse, half_turn
from vision.read_esoloe import read

GAME = "esoloe"
FAMILY = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")


@dataclass
class Tally:
    setup: str
    frames: int = 0
    missed: int = 0  # frames whose board was not found (found mode)
    fields: int = 0
    height_ok: int = 0
    height_wrong_sure: int = 0
    cubes: int = 0
    player_ok: int = 0
    faces_right: int = 0
    faces_null: int = 0
    faces_wrong: int = 0
    resolved: int = 0
    resolved_wrong: int = 0
    seconds: float = 0.0

    def row(self) -> str:
        f = max(self.cubes * 6, 1)
        return (f"| {self.setup} | {self.frames - self.missed}/{self.frames} | "
                f"{self.height_ok}/{self.fields} ({self.height_wrong_sure}) | "
                f"{self.player_ok}/{self.cubes} | "
                f"{self.resolved}/{self.cubes} ({self.resolved_wrong}) | "
                f"{100 * self.faces_right / f:.0f} / {100 * self.faces_null / f:.0f} / "
                f"{100 * self.faces_wrong / f:.1f} % | "
                f"{1000 * self.seconds / max(self.frames, 1):.0f} ms |")


HEADER = ("| set-up | boards | height right (wrong, sure) | player | resolved (wrong) | "
          "faces right / null / wrong | time |\n| --- | --- | --- | --- | --- | --- | --- |")


def cameras(setup: str, target, seed: int) -> list:
    """The camera(s) of a set-up: [front] or [front, back]."""
    from vision.render.camera import make_camera
    from vision.render.rng import make_rng

    rng = make_rng(seed, "orientation-measure", setup)
    name, _, back = setup.partition("+")
    out = []
    for azimuth in (0.0, 180.0) if back else (0.0,):
        tilt = float(rng.uniform(0, 6)) if name == "overhead" else float(name)
        out.append(make_camera(target, tilt, azimuth + float(rng.normal(0, 10)),
                               float(rng.uniform(350, 700)), roll=float(rng.normal(0, 2)),
                               hfov=float(rng.uniform(53, 66)),
                               dist=(float(rng.uniform(-0.1, 0.03)), 0, 0, 0, 0)))
    return out


def _observation(image, truth, geom, board: str, north: bool) -> dict | None:
    if board == "truth":
        corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
        if north:  # as the finder names a board seen from the north: turned half round
            corners = np.roll(corners, 2, axis=0)
        fix = BoardFix(corners, corners)
    else:
        fix = find_board(image, geom)
        if fix is None:
            return None
    reading = read(image, fix, geom)
    obs = {"game": geom.game, "position": reading.position, "uncertain": reading.uncertain,
           "confidence": min(reading.confidences, default=1.0)}
    return half_turn(obs) if north else obs


def measure(setup: str, n: int, start: int = 100, board: str = "truth",
            game: str = GAME) -> Tally:
    from vision.render.effects import random_effects
    from vision.render.frame import RenderOptions, photograph
    from vision.render.positions import random_position
    from vision.render.rng import make_rng
    from vision.render.scene import build_scene

    geom = geometry(game)
    tally = Tally(setup)
    for seed in range(start, start + n):
        plies = int(make_rng(seed, "orientation-plies").integers(8, 15))
        position = random_position(game, seed, plies=plies)
        scene = build_scene(game, position, seed)
        fx = random_effects(make_rng(seed, "effects"))
        tally.frames += 1
        observations = []
        for k, cam in enumerate(cameras(setup, scene.target, seed)):
            image, truth = photograph(scene, cam, fx, RenderOptions())
            t0 = time.perf_counter()
            obs = _observation(image, truth, geom, board, north=k == 1)
            tally.seconds += time.perf_counter() - t0
            if obs is not None:
                observations.append(obs)
        if not observations:
            tally.missed += 1
            continue
        obs = observations[0] if len(observations) == 1 else fuse(*observations)
        _count(tally, obs, position)
    return tally


def _count(tally: Tally, obs: dict, position: dict) -> None:
    sure = {u["path"]: u["confidence"] for u in obs["uncertain"]}
    for i, (got, want) in enumerate(zip(obs["position"]["cells"], position["cells"],
                                        strict=True)):
        if not want or not got:
            continue
        tally.fields += 1
        if len(got) != len(want):
            tally.height_wrong_sure += sure.get(f"cells.{i}", 1.0) >= 0.9
            continue
        tally.height_ok += 1
        for cube, true in zip(got, want, strict=True):
            tally.cubes += 1
            tally.player_ok += cube["player"] == true["player"]
            right = wrong = 0
            for d, value in (cube.get("faces") or {}).items():
                if value is None:
                    tally.faces_null += 1
                elif value == true["faces"][d]:
                    right += 1
                else:
                    wrong += 1
            tally.faces_right += right
            tally.faces_wrong += wrong
            if right + wrong == 6:
                tally.resolved += 1
                tally.resolved_wrong += wrong > 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.orientation_measure",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cameras", default="overhead,30,45,60,30+back,45+back,60+back")
    parser.add_argument("--n", type=int, default=12)
    parser.add_argument("--start", type=int, default=100)
    parser.add_argument("--board", choices=("truth", "found"), default="truth")
    parser.add_argument("--game", choices=FAMILY, default=GAME)
    args = parser.parse_args(argv)
    print(HEADER)
    for setup in args.cameras.split(","):
        print(measure(setup, args.n, args.start, args.board, args.game).row(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
