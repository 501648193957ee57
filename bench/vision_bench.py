"""Vision end to end, per game, on renders never trained on: a raw 1280 x 720 frame ->
``vision.observe.Observer`` -> the observation, compared with the render's truth.

Per game: board found % (the board found from scratch in each seed's frame: corners named
right, mean error <= 10 px), element accuracy % (``vision.measure.elements``: every pawn,
die top and holder or cell, e-SOLO-e stack, Cubes field and dependency card; a frame
without a found board counts all its elements wrong), whole position exactly right %, and
on ONE core (``taskset -c 0`` where available) the median and 95th percentile of three
times per frame whose board was found:

- ``find``: finding the board anew (``vision.board.find_board``), what the first frame
  and a moved board cost on top of a read;
- ``read tracked``: the frame read again with the board tracked, from the decoded frame
  to the observation (frame check, the board's still check, occlusion, reader and models,
  the rules' check): what a settled scene costs;
- ``track``: what a frame costs when nothing changed: the source's small grey picture
  (``device.sources.lores_of``, free on a Pi camera), the device tracker's change
  detection (``device.tracker.Tracker.feed``, the frame fed again once the scene was read)
  and the board's still check (``vision.track``; the tracker runs it only when a scene
  settles, so this is an upper bound);

and the peak resident memory of the process that only observes (``resource.getrusage``,
frames loaded from PNG one at a time). ``--clock cpu`` takes the process's CPU time in
place of the wall clock: on a machine shared with other work it is what one free core
would take, near enough; ``--split`` prints where ``read tracked``'s time goes
(``Observer.timing``'s stages, medians); ``--profile`` profiles the tracked reads of the
first game's frames in this process (``cProfile``, the functions taking most time, with
what they call; pin it yourself: ``taskset -c 0``).

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
        {"position": truth["position"], "corners": truth["board"]["corners"]}))


def _tracking(game: str, obs: dict, image):
    """(A device tracker (``device.tracker.Tracker``) that has read the scene of ``obs``
    in ``image``: its board known, its anchor set; a function of the index making the
    frame again as a file or USB source does, with its small grey picture, which a Pi
    camera's ISP makes for free): feeding it the frame again is the cost of a frame in
    which nothing changed."""
    from device.sources import Frame, SourceConfig, lores_of
    from device.tracker import Tracker, TrackerConfig

    config = TrackerConfig(game=game, settle_frames=2, settle_s=0.0, remember=False)
    tracker = Tracker(config, lambda image, seq, time: dict(obs))
    size = SourceConfig("folder").lores_size

    def frame(i: int) -> Frame:
        return Frame(image, lores_of(image, size), float(i), i, f"frame {i}")

    for i in range(3):
        tracker.feed(frame(i))
    return tracker, frame


def observe_folder(folder: str, game: str, first: int, n: int,
                   clock_name: str = "wall") -> dict:
    """Observe ``n`` frames of ``game`` in ``folder`` from seed ``SEED_START + first``
    (this process: time and memory), the tallies ``summary`` makes a row of: per frame a
    new ``Observer`` finds the board (``find``) and reads the frame (the accuracy counts);
    the frame read again with the board tracked (``read``: the still check, occlusion,
    reader, rules' check); and the frame fed again to a device tracker that has read it
    plus the board's still check (``track``)."""
    import resource
    import time

    import cv2
    import numpy as np

    from vision.board import CORNER_NAMES, BoardFix
    from vision.measure import FOUND_PX, elements
    from vision.observe import ObserveError, Observer

    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    found = right = total = exact = errors = 0
    times: dict[str, list[float]] = {"find": [], "read": [], "track": []}
    stages: dict[str, list[float]] = {}
    frames = [Path(f"{folder}/{game}-{SEED_START + i}.png") for i in range(first, first + n)]
    for path in frames[:1]:  # load the models before the clock runs
        with contextlib.suppress(ObserveError, ValueError, cv2.error):
            Observer(game).observe(cv2.imread(str(path)))

    def timed_find(finder):
        def find(image, geom):
            t0 = clock()
            try:
                return finder(image, geom)
            finally:
                times["find"].append(1000 * (clock() - t0))
        return find

    for path in frames:
        truth = json.loads(path.with_suffix(".json").read_text())
        image = cv2.imread(str(path))
        observer = Observer(game)
        observer.clock = clock
        observer.tracker.find = timed_find(observer.tracker.find)
        try:
            obs = observer.observe(image)
        except ObserveError:
            obs = None
        except (ValueError, cv2.error) as err:  # a reader's fault: counted, named once
            if not errors:
                print(f"{path.name}: {type(err).__name__}: {err}", file=sys.stderr)
            errors += 1
            obs = None
        want = elements(game, truth["position"])
        total += len(want)
        if obs is None:
            continue
        t0 = clock()
        with contextlib.suppress(ObserveError, ValueError, cv2.error):
            observer.observe(image)  # the board tracked: still
        times["read"].append(1000 * (clock() - t0))
        for stage, seconds in observer.timing.items():
            stages.setdefault(stage, []).append(1000 * seconds)
        tracker, frame = _tracking(game, obs, image)
        for i in range(3, 8):
            t0 = clock()
            tracker.feed(frame(i))
            observer.board(image)  # the still check
            times["track"].append(1000 * (clock() - t0))
        got = BoardFix(np.array([obs["board"][k] for k in CORNER_NAMES]), None).corners
        true = np.array([truth["corners"][k] for k in CORNER_NAMES])
        if float(np.linalg.norm(got - true, axis=1).mean()) > FOUND_PX:
            continue
        found += 1
        have = elements(game, obs["position"])
        ok = sum(have.get(k) == v for k, v in want.items())
        right += ok
        exact += ok == len(want)
    return {"frames": len(frames), "found": found, "right": right, "total": total,
            "exact": exact, "errors": errors, "times": times, "stages": stages,
            "peak MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def summary(game: str, parts: list[dict]) -> dict:
    """One game's row from the tallies of ``observe_folder`` over its frames (one part,
    or one part per process where ``--jobs`` split them); the row's ``stages``: the
    median ms of each stage of the tracked read."""
    import numpy as np

    def total(key: str) -> int:
        return sum(part[key] for part in parts)

    def joined(key: str, name: str) -> list[float]:
        return [ms for part in parts for ms in part[key].get(name, [])]

    n = max(total("frames"), 1)
    row = {"game": game, "frames": total("frames"), "board found %": 100 * total("found") / n,
           "element %": 100 * total("right") / max(total("total"), 1),
           "exact %": 100 * total("exact") / n}
    for name, label in (("find", "find"), ("read", "read tracked"), ("track", "track")):
        ms = np.array(joined("times", name) or [np.nan])
        row[f"{label} median ms"] = float(np.median(ms))
        row[f"{label} p95 ms"] = float(np.percentile(ms, 95))
    row["peak MiB"] = max(part["peak MiB"] for part in parts)
    row["errors"] = total("errors")
    names = dict.fromkeys(name for part in parts for name in part["stages"])
    row["stages"] = {name: float(np.median(joined("stages", name))) for name in names}
    return row


def profile_folder(folder: str, game: str, n: int, top: int = 30) -> str:
    """The tracked reads of the first ``n`` frames of ``game`` in ``folder`` (each read
    three times) under ``cProfile``: the ``top`` functions by cumulative time."""
    import cProfile
    import io
    import pstats

    import cv2

    from vision.observe import ObserveError, Observer

    observers = []
    for i in range(n):
        image = cv2.imread(f"{folder}/{game}-{SEED_START + i}.png")
        observer = Observer(game)
        with contextlib.suppress(ObserveError, ValueError, cv2.error):
            observer.observe(image)
            observers.append((observer, image))
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(3):
        for observer, image in observers:
            with contextlib.suppress(ObserveError, ValueError, cv2.error):
                observer.observe(image)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(top)
    return f"{game}: {3 * len(observers)} tracked reads of {n} frames\n{out.getvalue()}"


def _observed(folder: str, game: str, first: int, n: int, clock: str, core: int | None) -> dict:
    """``observe_folder``'s tallies from a child process (its own memory; pinned to
    ``core`` with ``taskset`` where there is one)."""
    pin = ["taskset", "-c", str(core)] if core is not None and shutil.which("taskset") else []
    out = subprocess.run([*pin, sys.executable, "-m", "bench.vision_bench",
                          "--observe", folder, "--games", game, "--first", str(first),
                          "--n", str(n), "--clock", clock],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    if out.returncode != 0:
        raise RuntimeError(f"observing {game} failed: {out.stderr.strip()[-2000:]}")
    if out.stderr.strip():
        print(f"{game}: {out.stderr.strip().splitlines()[-1]}", file=sys.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _observed_all(folder: str, games: tuple[str, ...], n: int, clock: str,
                  jobs: int) -> dict[str, list[dict]]:
    """Each game's tallies: one child a game on core 0 (``jobs`` 1), or each game's frames
    in parts of at most 25 over ``jobs`` children at once, each pinned to a core of its
    own (cores 0 .. jobs - 1)."""
    if jobs <= 1:
        return {game: [_observed(folder, game, 0, n, clock, 0)] for game in games}
    import queue
    from concurrent.futures import ThreadPoolExecutor

    cores: queue.Queue[int] = queue.Queue()
    for core in range(jobs):
        cores.put(core)

    def part(job: tuple[str, int, int]) -> dict:
        core = cores.get()
        try:
            return _observed(folder, *job, clock, core)
        finally:
            cores.put(core)

    parts = [(game, first, min(25, n - first)) for game in games for first in range(0, n, 25)]
    with ThreadPoolExecutor(jobs) as pool:
        tallies = list(pool.map(part, parts))
    done = {game: [] for game in games}
    for (game, _, _), tally in zip(parts, tallies, strict=True):
        done[game].append(tally)
    return done


def measure(n: int | None = None, camera: str = "overhead",
            games: tuple[str, ...] = GAMES, frames: str | None = None,
            clock: str = "wall", split: list | None = None, jobs: int = 1) -> list[dict]:
    """The table's rows; ``frames``: a folder to render into (kept, frames already there
    are not rendered again) instead of a temporary one; ``clock``: wall or cpu; ``split``:
    a list to add each game's row of ``read tracked``'s stages to; ``jobs``: processes
    rendering and observing at once (1: two render, one observes)."""
    n = n or int(os.environ.get("TABLEREF_VISION_BENCH_N", N_DEFAULT))
    folder = frames or tempfile.mkdtemp(prefix="tableref-vision-bench-")
    Path(folder).mkdir(parents=True, exist_ok=True)
    try:
        renders = [(g, SEED_START + i, camera, folder) for g in games for i in range(n)
                   if not Path(f"{folder}/{g}-{SEED_START + i}.json").is_file()]
        if len(renders) > 4:
            from multiprocessing import Pool

            with Pool(max(jobs, min(2, os.cpu_count() or 1))) as pool:
                pool.map(_render, renders, chunksize=4)
        else:
            for render in renders:
                _render(render)
        rows = []
        for game, parts in _observed_all(folder, games, n, clock, jobs).items():
            row = summary(game, parts)
            stages = row.pop("stages")
            if split is not None:
                split.append({"game": game, **{f"{k} ms": v for k, v in stages.items()}})
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
    parser.add_argument("--clock", default="wall", choices=("wall", "cpu"),
                        help="time by the wall clock (default) or the process's CPU time")
    parser.add_argument("--split", action="store_true",
                        help="also print where the tracked read's time goes, per stage")
    parser.add_argument("--profile", action="store_true",
                        help="profile the first game's tracked reads (needs --frames)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="render and observe in this many processes at once, each "
                             "observer on a core of its own (1: the frames observed on "
                             "core 0)")
    parser.add_argument("--observe", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    games = tuple(args.games.split(","))
    if args.profile:
        if not args.frames:
            parser.error("--profile needs --frames FOLDER (render it first with --frames)")
        print(profile_folder(args.frames, games[0], args.n or N_DEFAULT))
        return 0
    if args.observe:  # the child: one game's frames, one JSON line
        print(json.dumps(observe_folder(args.observe, games[0], args.first,
                                        args.n or N_DEFAULT, args.clock)))
        return 0
    from bench.__main__ import format_table

    split: list[dict] = []
    rows = measure(args.n, args.camera, games, args.frames, args.clock, split, args.jobs)
    title = TITLE if args.clock == "wall" else TITLE.replace("time on", "CPU time on")
    print(format_table(title, rows), flush=True)
    if args.split:
        print(format_table("Where the tracked read's time goes (medians)", split), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
