"""The ``tableref`` command: one entry point, one subcommand per job.

Each subcommand lives in its own module with two functions, ``add_arguments(parser)``
and ``run(args) -> int``. Those modules keep their top-level imports light (argparse
only) and import their real work inside ``run``, so that ``tableref referee`` never
loads OpenCV or onnxruntime.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

# name -> (module, one-line help). Order is the order of ``tableref --help``.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("device.demo", "a synthetic game seen by the camera, judged, announced, recorded"),
    "referee": ("device.referee_cmd", "judge a stream of observations and print events"),
    "games": ("device.games_cmd", "list, show and export recorded games"),
    "keys": ("device.keys_cmd", "make a CURVE key pair for encrypted, authenticated streaming"),
    "render": ("device.render_cmd", "render a synthetic photo of a game with its ground truth"),
    "dataset": ("device.dataset_cmd", "write labelled synthetic training crops or frames"),
    "observe": ("device.observe_cmd", "read camera images into observations (JSONL)"),
    "camera": ("device.camera_service", "the camera service: frames to observations, published"),
    "run": ("device.run_cmd", "the whole table in one process: camera, referee, page, record"),
    "faces": ("device.faces_cmd", "read one die, cube face or stone per photo with a crop model"),
    "calibrate": ("device.calibrate_cmd", "camera intrinsics, board registration, colours"),
    "enrol": ("device.enrol_cmd", "adapt the piece classifier to this set from a few captures"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tableref",
        description="A camera referee for physical cube and dice games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return import_module(args._module).run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (``| head``): not an error of ours
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
