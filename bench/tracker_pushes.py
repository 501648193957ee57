"""``python -m bench.tracker_pushes GAME SEEDS [--plies N]``: the board tracker's corners
right after each push in the demo's scripted games.

Each seed's demo game is read in process (``device.demo.read_in_process``: the demo's
frames, tracker and readings); every settled scene's ``vision.track.BoardTracker.update``
(before the Observer's hand check, ``Observer._anew``) is compared with the truth of the
frame it was given: the error of its fix is the largest corner distance (px). A read is
*pushed* where the true board moved over ``PUSHED_PX`` since the read before. Prints a
table: per seed (and all together) reads, pushed reads, the pushed reads' corner error
median / max and how many are over ``OFF_PX``; and of all readings published, how many
used corners (the observation's ``board``, after the hand check) over ``OFF_PX``.

It lives in bench/, not in ``python -m vision.track`` (which measures the tracker on
vision's own scripts): the demo's scripts are device's, and device imports vision, never
the other way round (bench -> device -> vision). Not one of ``python -m bench``'s tables
(it takes a game and seeds; Cubes 20..22 at 60 plies take about 100 s).
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from unittest import mock

import numpy as np

PUSHED_PX = 0.5  # the true board moved more than this since the last read: a push
OFF_PX = 1.5  # a fix off by more than this (max corner) counts as off


def tracked_reads(game: str, seed: int, plies: int | None = None) -> list[dict]:
    """Per settled scene of the demo game, in order: the tracker's ``status``, ``err``
    (px, max corner; inf where it has no fix), ``moved`` (px, how far the true board's
    corners moved since the read before, max corner; 0 for the first) and, where the read
    was published, ``used`` (px, the observation's corners against the truth)."""
    import device.tracker
    import vision.track
    from device.demo import read_in_process
    from vision.board import CORNER_NAMES

    truth: list[np.ndarray] = []  # corners of the frame last fed to the device tracker
    reads: list[dict] = []
    feed, update = device.tracker.Tracker.feed, vision.track.BoardTracker.update

    def fed(self, frame, second=None):
        board = ((frame.metadata.get("truth") or {}).get("board") or {}).get("corners")
        truth[:] = [] if board is None else [np.array([board[k] for k in CORNER_NAMES],
                                                      np.float64)]
        before = len(reads)
        obs = feed(self, frame, second)
        if obs is not None and len(reads) > before:  # published from this frame's read
            used = np.array([obs["board"][k] for k in CORNER_NAMES], np.float64)
            reads[-1]["used"] = float(np.linalg.norm(used - truth[0], axis=1).max())
        return obs

    def updated(self, image):
        track = update(self, image)
        if not truth:
            raise ValueError(f"{game} seed {seed}: a frame without the board's true corners")
        now = truth[0]
        err = (np.inf if track.fix is None
               else float(np.linalg.norm(track.fix.corners - now, axis=1).max()))
        before = reads[-1]["truth"] if reads else now
        reads.append({"status": track.status, "err": err, "truth": now,
                      "moved": float(np.linalg.norm(now - before, axis=1).max())})
        return track

    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(device.tracker.Tracker, "feed", fed))
        stack.enter_context(mock.patch.object(vision.track.BoardTracker, "update", updated))
        read_in_process(game, seed, plies)
    return [{k: v for k, v in r.items() if k != "truth"} for r in reads]


def summary(label: str, reads: list[dict]) -> dict:
    """One table row: reads, pushed reads and their corner error (median, max, over);
    readings published and those whose corners are over ``OFF_PX``."""
    err = np.array([r["err"] for r in reads if r["moved"] > PUSHED_PX])
    used = [r["used"] for r in reads if "used" in r]
    return {"seed": label, "reads": len(reads), "pushed": len(err),
            "err median px": float(np.median(err)) if len(err) else float("nan"),
            "err max px": float(err.max()) if len(err) else float("nan"),
            f"over {OFF_PX} px": int(np.sum(err > OFF_PX)), "readings": len(used),
            f"used over {OFF_PX} px": sum(u > OFF_PX for u in used)}


def measure(game: str, seeds: list[int], plies: int | None = None) -> list[dict]:
    """``summary`` rows: one a seed, then all seeds together."""
    rows, every = [], []
    for seed in seeds:
        reads = tracked_reads(game, seed, plies)
        rows.append(summary(str(seed), reads))
        every += reads
    if len(seeds) > 1:
        rows.append(summary("all", every))
    return rows


def _seeds(text: str) -> list[int]:
    """``20-22`` or ``20,21,22``; ValueError otherwise."""
    if "-" in text:
        first, last = (int(s) for s in text.split("-", 1))
        seeds = list(range(first, last + 1))
    else:
        seeds = [int(s) for s in text.split(",")]
    if not seeds:
        raise ValueError(text)
    return seeds


def main(argv: list[str] | None = None) -> int:
    import cv2

    from bench.__main__ import format_table
    from rules import GAME_IDS

    parser = argparse.ArgumentParser(prog="python -m bench.tracker_pushes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("seeds", help="e.g. 20-22 or 3,5,20")
    parser.add_argument("--plies", type=int, default=None, metavar="N",
                        help="play at most N plies (default the demo's: 12; cubes 60)")
    args = parser.parse_args(argv)
    if args.game not in GAME_IDS:
        parser.error(f"unknown game {args.game!r} (known: {', '.join(GAME_IDS)})")
    try:
        seeds = _seeds(args.seeds)
    except ValueError:
        parser.error(f"seeds {args.seeds!r}: not FIRST-LAST or a comma-separated list")
    if args.plies is not None and args.plies < 1:
        parser.error(f"--plies {args.plies}: must be at least 1")
    cv2.setNumThreads(1)
    rows = measure(args.game, seeds, args.plies)
    plies = f"{args.plies} plies" if args.plies else "the demo's plies"
    print(format_table(f"Board tracker after a push: {args.game} demo, {plies}", rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
