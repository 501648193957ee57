"""``tableref observe``: one observation (JSONL on stdout) per camera image.

``--calibration FILE`` is the camera's intrinsics as loose JSON (``K``, ``dist``: the
camera file of ``tableref calibrate camera`` is one); ``--camera-calibration``,
``--board``, ``--colour`` and ``--profile`` take the calibration files
(``docs/calibration.md``, "Using the calibration").

Two cameras: ``--second-camera IMAGE2 ...`` (after the images; paired with them by order)
are the frames a second camera took at the same instants; each pair gives one observation
fused from both (``vision.fuse.fuse_images``; the e-SOLO-e family only). The second camera
stands at ``--second-seat`` (north, default, or south) and has its own intrinsics
(``--second-calibration FILE``, a camera file); the board, colour and profile files are
the first camera's, the profile is used for both.

Exit status: 0 when every image gave an observation; 1 when some image could not be read
(each such image is reported on stderr in one line naming the file and the problem);
2 when a calibration file is unusable (one line naming the file and key) or the arguments
do not fit together.
"""

from __future__ import annotations

import argparse

# the games vision.observe.READERS reads (not imported here: this module stays light)
GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc", "neunfeld", "tyr", "cubes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from device.camera_service import add_calibration_arguments

    parser.add_argument("--game", required=True, choices=GAMES, help="the game on the table")
    parser.add_argument("--calibration", metavar="FILE",
                        help="camera intrinsics as JSON: {\"K\": 3x3, \"dist\": [k1, k2, p1, "
                             "p2, k3]} (default: an assumed Raspberry Pi camera)")
    add_calibration_arguments(parser)
    parser.add_argument("--second-camera", nargs="+", metavar="IMAGE2",
                        help="a second camera's frames of the same instants, paired by order "
                        "with IMAGE (give them after the images)")
    parser.add_argument("--second-calibration", metavar="FILE",
                        help="the second camera's intrinsics (tableref calibrate camera)")
    parser.add_argument("--second-seat", choices=("north", "south"), default="north",
                        help="the side of the board the second camera stands on (default "
                        "north)")
    parser.add_argument("--table", default="t1", help="the table id (default t1)")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="1280x720 camera frames")


def _calibration(path: str) -> dict:
    import json

    import numpy as np

    try:
        with open(path) as f:
            data = json.load(f)
        K = np.asarray(data["K"], np.float64)
        dist = np.asarray(data.get("dist") or [0, 0, 0, 0, 0], np.float64).reshape(-1)
    except OSError as e:
        raise ValueError(f"cannot read it ({e.strerror})") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a calibration ({type(e).__name__}: {e})") from None
    if K.shape != (3, 3) or dist.size not in (4, 5, 8):
        raise ValueError("K must be 3x3 and dist 4, 5 or 8 numbers")
    return {"K": K, "dist": dist}


def _calibrations(args: argparse.Namespace) -> tuple[dict | None, dict | None]:
    """The first and the second camera's calibration dicts; ValueError (one line) for a
    bad file or arguments that do not fit together."""
    from device.camera_service import check_fused, load_calibration, second_calibration

    if args.calibration and args.camera_calibration:
        raise ValueError("give the camera's intrinsics once: --calibration or "
                         "--camera-calibration")
    if args.second_camera is None and args.second_calibration:
        raise ValueError("--second-calibration needs --second-camera")
    if args.second_camera is not None:
        check_fused(args.game)
        if len(args.second_camera) != len(args.images):
            raise ValueError(f"--second-camera: {len(args.second_camera)} images for "
                             f"{len(args.images)} of the first camera")
    first = load_calibration(args) or {}
    if args.calibration:
        try:
            first.update(_calibration(args.calibration))
        except ValueError as e:
            raise ValueError(f"{args.calibration}: {e}") from None
    return first or None, second_calibration(args.second_calibration, first)


def _read(path: str):
    import os

    import cv2

    from vision.observe import ObserveError

    image = cv2.imread(path, cv2.IMREAD_COLOR) if os.path.isfile(path) else None
    if image is None:
        raise ObserveError("missing" if not os.path.exists(path) else "not a readable image")
    return image


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import sys

    from vision.observe import ObserveError, observe

    try:
        calibration, second = _calibrations(args)
    except ValueError as e:  # calibration.files.CalibrationError is one
        print(f"tableref observe: {e}", file=sys.stderr)
        return 2
    status = 0
    pairs = zip(args.images, args.second_camera or [None] * len(args.images), strict=True)
    for seq, (path, path2) in enumerate(pairs):
        where = path
        try:
            image = _read(path)
            if path2 is None:
                obs = observe(image, args.game, calibration=calibration, table=args.table,
                              seq=seq, time=os.path.getmtime(path))
            else:
                from vision.fuse import fuse_images

                where = path2
                image2 = _read(path2)
                where = f"{path} + {path2}"
                obs = fuse_images(image, image2, args.game, calibrations=(calibration, second),
                                  seats=("south", args.second_seat), table=args.table,
                                  seq=seq, time=os.path.getmtime(path))
        except (ObserveError, ValueError, RuntimeError) as e:
            print(f"tableref observe: {where}: {e}", file=sys.stderr)
            status = 1
            continue
        print(json.dumps(obs), flush=True)
    return status
