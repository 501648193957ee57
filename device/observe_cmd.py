"""``tableref observe``: one observation (JSONL on stdout) per camera image.

Exit status: 0 when every image gave an observation; 1 when some image could not be read
(each such image is reported on stderr in one line naming the file and the problem);
2 when the calibration file is unusable.
"""

from __future__ import annotations

import argparse

# the games vision.observe.READERS reads (not imported here: this module stays light)
GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc", "neunfeld", "tyr", "cubes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=GAMES, help="the game on the table")
    parser.add_argument("--calibration", metavar="FILE",
                        help="camera intrinsics as JSON: {\"K\": 3x3, \"dist\": [k1, k2, p1, "
                             "p2, k3]} (default: an assumed Raspberry Pi camera)")
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


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import sys

    import cv2

    from vision.observe import ObserveError, observe

    calibration = None
    if args.calibration:
        try:
            calibration = _calibration(args.calibration)
        except ValueError as e:
            print(f"tableref observe: {args.calibration}: {e}", file=sys.stderr)
            return 2
    status = 0
    for seq, path in enumerate(args.images):
        image = cv2.imread(path, cv2.IMREAD_COLOR) if os.path.isfile(path) else None
        try:
            if image is None:
                raise ObserveError("missing" if not os.path.exists(path)
                                   else "not a readable image")
            obs = observe(image, args.game, calibration=calibration, table=args.table,
                          seq=seq, time=os.path.getmtime(path))
        except (ObserveError, ValueError, RuntimeError) as e:
            print(f"tableref observe: {path}: {e}", file=sys.stderr)
            status = 1
            continue
        print(json.dumps(obs), flush=True)
    return status
