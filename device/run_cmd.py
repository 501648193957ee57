"""``tableref run``: the whole table in one process, for one Raspberry Pi.

    tableref run --game esoloe-3andc --table t1 --source picamera2 \\
        --web 8080 --record /var/lib/tableref/games --speak

The camera service (``device.camera_service``: source -> tracker -> vision -> stable
observations, published with a last-value cache on ``--observations``) runs in a thread;
the referee service (``device.referee_service``: judging, announcements, live page,
records, events on ``--publish``) runs in the main thread and subscribes to the camera
over ZeroMQ, exactly as the two separate services do. Displays and loggers may subscribe
to either socket. The options are those of ``tableref camera`` and ``tableref referee
--listen`` where they apply; CURVE (``--curve-secret``, ``--curve-allowed``) guards the
events socket, ``--observations`` stays on this machine by default (127.0.0.1).

SIGTERM and SIGINT stop both (exit status 0); a setup failure of either is one line on
standard error and exit status 2; a source that fails while running stops the referee too
and gives exit status 1. Under systemd (Type=notify) the referee sends READY=1 once both
are up and WATCHDOG=1 from its loop (the camera thread sends none: a hung referee must
not be hidden by a live camera; a dead camera stops the whole process). Top-level
imports stay light (argparse only).
"""

from __future__ import annotations

import argparse

CAMERA_OPTIONS = ("game", "table", "source", "path", "device", "size", "fps", "loop", "seed",
                  "plies", "view", "lighting", "settle_s", "settle_frames", "first_seq",
                  "players", "jsonl", "camera_calibration", "board", "colour", "profile",
                  "second_camera", "second_path", "second_device", "second_seat",
                  "second_calibration", "second_view")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from device.camera_service import add_source_arguments
    from device.referee_service import add_judging_arguments, add_output_arguments

    g = parser.add_argument_group("camera")
    add_source_arguments(g)
    g.add_argument("--observations", default="tcp://127.0.0.1:5556", metavar="ADDR",
                   help="publish the observations at ADDR for the referee and any display "
                   "(default tcp://127.0.0.1:5556, this machine only; tcp://127.0.0.1:* "
                   "takes a free port)")
    r = parser.add_argument_group("referee")
    add_output_arguments(r)
    add_judging_arguments(r)


def camera_args(args: argparse.Namespace) -> argparse.Namespace:
    """The camera service's arguments taken from a run's."""
    from device.camera_service import options

    values = {name: getattr(args, name) for name in CAMERA_OPTIONS if name != "game"}
    return options(args.game, **values, publish=args.observations, wait_subscriber=10.0)


def service_config(args: argparse.Namespace):
    """The referee service's configuration taken from a run's (listening to its camera)."""
    from device.referee_service import ServiceConfig

    return ServiceConfig(
        listen=[], publish=args.publish, tables=[args.table], record_dir=args.record,
        min_confidence=args.min_confidence, forced_wins=not args.no_forced_wins,
        json=args.json, quiet=args.quiet, web=args.web, speak=args.speak, voice=args.voice,
        curve_secret=args.curve_secret, curve_allowed=args.curve_allowed,
        heartbeat_ms=args.heartbeat_ms)


def pipeline(camera: argparse.Namespace, config, *, stop=None, ended=None, progress=None,
             ready=None, out=None) -> int:
    """Runs the camera service (a thread) and the referee service (this thread), the
    referee subscribed to the camera's bound address, until ``stop`` is set or a signal
    comes. ``ended``, ``progress``: as ``camera_service.serve``; ``ready(service)`` once
    both are up. Returns the exit status."""
    import logging
    import sys
    import threading
    from dataclasses import replace

    from device.camera_service import serve as serve_camera
    from device.referee_service import serve as serve_referee

    stop = stop or threading.Event()
    bound, result = threading.Event(), {}

    def on_bound(publisher) -> None:
        result["endpoint"] = publisher.endpoint
        bound.set()

    def camera_thread() -> None:
        try:
            result["camera"] = serve_camera(camera, stop=stop, ready=on_bound, ended=ended,
                                            progress=progress, systemd=False)
        except Exception:  # a fault of the camera's own code: logged, the table stops
            logging.getLogger("tableref.camera").exception("the camera service failed")
            result["camera"] = 1
        finally:
            bound.set()
            if result.get("camera"):
                stop.set()  # the camera failed: the whole table stops

    thread = threading.Thread(target=camera_thread, name="tableref-camera", daemon=True)
    thread.start()
    bound.wait()
    if "endpoint" not in result:
        thread.join()
        return result.get("camera", 2)
    status = serve_referee(replace(config, listen=[result["endpoint"]]), stop=stop,
                           out=out or sys.stdout, ready=ready)
    stop.set()
    thread.join(10.0)
    return status or result.get("camera", 0)


def run(args: argparse.Namespace) -> int:
    """``tableref run``: logs to standard error, runs until stopped."""
    import logging
    import sys

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="tableref run: %(levelname)s: %(message)s")
    if (args.curve_allowed or args.curve_secret) and not (
            args.curve_allowed and args.curve_secret):
        print("tableref run: CURVE needs both --curve-secret FILE and --curve-allowed DIR",
              file=sys.stderr)
        return 2
    return pipeline(camera_args(args), service_config(args))
