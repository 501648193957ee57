"""Vision end to end, per game, on renders never trained on: a raw 1280 x 720 frame ->
``vision.observe.observe`` -> the observation, compared with the render's truth.

Per game: board found % (corners named right, mean error <= 10 px), element accuracy %
(``vision.measure.elements``: every pawn, die top and holder or cell, e-SOLO-e stack, Cubes
field and dependency card; a frame without a found board counts all its elements wrong),
whole position exactly right %, and on ONE core (``taskset -c 0`` where available) the
median and 95th percentile of the time from the decoded frame to the observation (board
finding, occlusion check, reading, models) and the peak resident memory of the process
that only observes (``resource.getrusage``, frames loaded from PNG one at a time).

Seeds ``SEED_START ..`` (position, camera pose, lighting, effects all drawn from them):
the crop models were trained on ``render_crops`` seeds 1 and 1,000,004, the board finder
tuned on scene seeds 100..139, so none of these frames was seen in training or tuning.

``python -m bench`` runs ``N_DEFAULT`` frames per game (a few minutes on a shared 2-core
machine); the issue's 1,000 per game is ``python -m bench.vision_bench --n 1000`` (or the
environment variable ``TABLEREF_VISION_BENCH_N``); ``--camera overhead|oblique|any``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TITLE = "Vision end to end per game (unseen renders; time on one core)"
N_DEFAULT = 10
SEED_START = 7_000_000
GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc", "neunfeld", "tyr", "cubes")


def _render(job: tuple[str, int, str, str]) -> None:
    import cv2

    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    game, seed, camera, folder = job
    position = random_position(game, seed)
    image, truth = render_scene(game, position, seed,
                                options=RenderOptions(camera_mode=camera))
    cv2.imwrite(f"{folder}/{game}-{seed}.png", image)
    Path(f"{folder}/{game}-{seed}.json").write_text(json.dumps(
        {"position": position, "corners": truth["board"]["corners"]}))


def observe_folder(folder: str, game: str, n: int) -> dict:
    """Observe the first ``n`` frames of ``game`` in ``folder`` (this process: time and
    memory)."""
    import resource
    import time

    import cv2
    import numpy as np

    from vision.board import CORNER_NAMES, BoardFix
    from vision.measure import FOUND_PX, elements
    from vision.observe import ObserveError, observe

    found = right = total = exact = errors = 0
    times = []
    frames = [Path(f"{folder}/{game}-{SEED_START + i}.png") for i in range(n)]
    for path in frames[:1]:  # load the models before the clock runs
        with contextlib.suppress(ObserveError, ValueError, cv2.error):
            observe(cv2.imread(str(path)), game)
    for path in frames:
        truth = json.loads(path.with_suffix(".json").read_text())
        image = cv2.imread(str(path))
        t0 = time.perf_counter()
        try:
            obs = observe(image, game)
        except ObserveError:
            obs = None
        except (ValueError, cv2.error) as err:  # a reader's fault: counted, named once
            if not errors:
                print(f"{path.name}: {type(err).__name__}: {err}", file=sys.stderr)
            errors += 1
            obs = None
        times.append(1000 * (time.perf_counter() - t0))
        want = elements(game, truth["position"])
        total += len(want)
        if obs is None:
            continue
        got = BoardFix(np.array([obs["board"][k] for k in CORNER_NAMES]), None).corners
        true = np.array([truth["corners"][k] for k in CORNER_NAMES])
        if float(np.linalg.norm(got - true, axis=1).mean()) > FOUND_PX:
            continue
        found += 1
        have = elements(game, obs["position"])
        ok = sum(have.get(k) == v for k, v in want.items())
        right += ok
        exact += ok == len(want)
    n = max(len(frames), 1)
    ms = np.array(times) if times else np.zeros(1)
    return {"game": game, "frames": len(frames), "board found %": 100 * found / n,
            "element %": 100 * right / max(total, 1), "exact %": 100 * exact / n,
            "median ms": float(np.median(ms)), "p95 ms": float(np.percentile(ms, 95)),
            "peak MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "errors": errors}


def measure(n: int | None = None, camera: str = "overhead",
            games: tuple[str, ...] = GAMES, frames: str | None = None) -> list[dict]:
    """The table's rows; ``frames``: a folder to render into (kept, frames already there
    are not rendered again) instead of a temporary one."""
    n = n or int(os.environ.get("TABLEREF_VISION_BENCH_N", N_DEFAULT))
    folder = frames or tempfile.mkdtemp(prefix="tableref-vision-bench-")
    Path(folder).mkdir(parents=True, exist_ok=True)
    try:
        jobs = [(g, SEED_START + i, camera, folder) for g in games for i in range(n)
                if not Path(f"{folder}/{g}-{SEED_START + i}.json").is_file()]
        if len(jobs) > 4:
            from multiprocessing import Pool

            with Pool(min(2, os.cpu_count() or 1)) as pool:
                pool.map(_render, jobs, chunksize=4)
        else:
            for job in jobs:
                _render(job)
        rows = []
        pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
        for game in games:
            out = subprocess.run([*pin, sys.executable, "-m", "bench.vision_bench",
                                  "--observe", folder, "--games", game, "--n", str(n)],
                                 capture_output=True, text=True,
                                 cwd=Path(__file__).resolve().parents[1])
            if out.returncode != 0:
                raise RuntimeError(f"observing {game} failed: {out.stderr.strip()[-2000:]}")
            if out.stderr.strip():
                print(f"{game}: {out.stderr.strip().splitlines()[-1]}", file=sys.stderr)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["camera"] = camera
            rows.append(row)
        return rows
    finally:
        if frames is None:
            shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vision_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=None, help=f"frames per game ({N_DEFAULT})")
    parser.add_argument("--camera", default="overhead", choices=("overhead", "oblique", "any"))
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--frames", metavar="FOLDER",
                        help="render into FOLDER and keep it (frames there are reused)")
    parser.add_argument("--observe", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    games = tuple(args.games.split(","))
    if args.observe:  # the child: one game's frames, one JSON line
        print(json.dumps(observe_folder(args.observe, games[0], args.n or N_DEFAULT)))
        return 0
    from bench.__main__ import format_table

    print(format_table(TITLE, measure(args.n, args.camera, games, args.frames)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
