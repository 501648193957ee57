"""``tableref dataset``: labelled training crops or full frames, on all cores."""

from __future__ import annotations

import argparse

KINDS = ("cube", "face", "die", "stone", "frames")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, choices=KINDS,
                        help="crops of a piece (cube, face, die, stone) or full frames")
    parser.add_argument("--n", type=int, required=True, help="how many items")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=0, help="data set seed (default 0)")
    parser.add_argument("--size", type=int, default=64, help="crop side in pixels (64)")
    parser.add_argument("--game", help="frames: only this game (default: all, in turn)")
    parser.add_argument("--workers", type=int, help="processes (default: all cores)")
    parser.add_argument("--variant", default="default", choices=("default", "other-set"),
                        help="crops: the default set, or 'other-set' (other woods, symbol "
                             "drawings, dice, stones and light; same labels)")


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    from vision.render.dataset import write_dataset

    if args.n < 1:
        print("tableref dataset: --n must be at least 1", file=sys.stderr)
        return 2
    try:
        summary = write_dataset(args.kind, args.n, Path(args.out), seed=args.seed,
                                size=args.size, workers=args.workers, game=args.game,
                                variant=args.variant)
    except ValueError as e:
        print(f"tableref dataset: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0
