"""Contact sheets of every game from overhead and oblique cameras: ``docs/gallery/``.

Rebuild with ``python -m vision.render.gallery`` (or ``make gallery`` where the Makefile
has the target). Each sheet is a JPEG of six renders of random legal positions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position
from vision.render.scene import GAMES

OUT = Path(__file__).resolve().parents[2] / "docs" / "gallery"
TILE = (424, 238)
COLS, ROWS = 3, 2
#: positions from the middle of a game look like a game; plies by game
PLIES = {"esoloe": (5, 14), "esoloe-tictactoe": (4, 9), "esoloe-3andc": (4, 9),
         "neunfeld": (2, 16), "tyr": (4, 14), "cubes": (30, 60)}


def sheet(game: str, mode: str, seed: int = 0) -> np.ndarray:
    tiles = []
    for k in range(COLS * ROWS):
        s = seed * 1000 + GAMES.index(game) * 100 + k + (50 if mode == "oblique" else 0)
        rng = np.random.default_rng(s)
        plies = int(rng.integers(*PLIES[game]))
        position = random_position(game, s, plies)
        opt = RenderOptions(camera_mode=mode, max_distance=650.0)
        image, _ = render_scene(game, position, s, options=opt)
        tiles.append(cv2.resize(image, TILE, interpolation=cv2.INTER_AREA))
    rows = [np.hstack(tiles[r * COLS:(r + 1) * COLS]) for r in range(ROWS)]
    return np.vstack(rows)


def hands_sheet(seed: int = 0) -> np.ndarray:
    """Frames of scripted games with a hand in the frame (reaching, placing, leaving)."""
    from vision.render.script import ScriptedGame

    tiles = []
    for k, game in enumerate(("esoloe", "esoloe-tictactoe", "tyr", "neunfeld", "cubes",
                              "esoloe")):
        s = seed * 1000 + 900 + k
        lo, hi = PLIES[game]
        plies = (lo + hi) // 2
        positions = [random_position(game, s, plies), random_position(game, s, plies + 1)]
        script = ScriptedGame(game, positions, seed=s, fps=10,
                              options=RenderOptions(camera_mode="any", max_distance=650.0))
        phases = [i for i, st in enumerate(script.steps) if st.phase in ("reach", "hold")]
        frame = script.frame(phases[int(len(phases) * (0.55 + 0.08 * k)) % len(phases)])
        tiles.append(cv2.resize(frame.image, TILE, interpolation=cv2.INTER_AREA))
    rows = [np.hstack(tiles[r * COLS:(r + 1) * COLS]) for r in range(ROWS)]
    return np.vstack(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.render.gallery",
                                     description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=GAMES)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for game in args.games:
        for mode in ("overhead", "oblique"):
            path = args.out / f"{game}-{mode}.jpg"
            cv2.imwrite(str(path), sheet(game, mode, args.seed),
                        [cv2.IMWRITE_JPEG_QUALITY, 82])
            print(path, file=sys.stderr)
    if set(args.games) == set(GAMES):
        path = args.out / "hands.jpg"
        cv2.imwrite(str(path), hands_sheet(args.seed), [cv2.IMWRITE_JPEG_QUALITY, 82])
        print(path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
