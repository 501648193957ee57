"""The camera as a service: frames in, stable observations out over ZeroMQ.

    tableref camera --publish tcp://*:5556 --table t1 --game esoloe-tictactoe \\
        --source picamera2

It opens a frame source (``device.sources``), feeds the frames to the tracker
(``device.tracker``: one stable observation per settled scene) and publishes each
observation on a ZeroMQ PUB socket (``device.stream.Publisher``, topic = the table id,
with a last-value cache so that a referee that joins gets the current position at once;
``--curve-secret`` and ``--curve-allowed`` switch CURVE encryption and authentication on).
``--jsonl FILE`` also appends each observation to a file. ``--camera-calibration``,
``--board``, ``--colour`` and ``--profile`` name the calibration files vision reads the
frames with (``docs/calibration.md``, "Using the calibration"); a bad one is one line
naming the file and key, exit status 2.

A second camera (``--second-camera SOURCE``, the e-SOLO-e family, whose readings
``vision.fuse`` fuses): its own source (``--second-path``, ``--second-device``; the size
and frame rate are the first's), seat (``--second-seat``, north by default: facing the
first) and intrinsics (``--second-calibration``; the board, colour and profile files are
the first camera's, the profile serves both). A frame of each is taken per step (live
cameras: each one's newest, so the two were captured within a frame interval) and the
tracker watches both (``device.tracker``). The synthetic second camera draws the same
scripted game from its seat. Another game with a second camera is refused (exit 2).

The observations' ``seq`` starts at ``--first-seq`` (default: the clock in milliseconds),
so it keeps increasing across restarts, as the referee requires. A finite source
(``folder``, ``video``, ``synthetic``) that comes to its end leaves the service running,
its last observation still answered to late subscribers, until it is stopped.

Under systemd (``Type=notify``) it sends READY=1 once the source and the socket are up
and WATCHDOG=1 from its main loop. SIGTERM and SIGINT stop it cleanly (exit status 0); a
setup failure (a source that cannot be opened, an address that cannot be bound) is one
line on standard error and exit status 2; a source that fails while running is one line
and exit status 1 (systemd's ``Restart=on-failure`` starts it again).

Top-level imports stay light (argparse only).
"""

from __future__ import annotations

import argparse

SOURCES = ("synthetic", "folder", "video", "usb", "picamera2")
LIVE = ("usb", "picamera2")  # captured in their own thread, keeping only the newest frame


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--publish", default="tcp://127.0.0.1:5556", metavar="ADDR",
                        help="publish the observations at ADDR (default tcp://127.0.0.1:5556;"
                        " tcp://*:5556 for every interface)")
    parser.add_argument("--wait-subscriber", type=float, default=0.0, metavar="S",
                        help="wait up to S seconds for a first subscriber before reading the "
                        "source (a finite source played to a referee that starts with it)")
    parser.add_argument("--curve-secret", metavar="FILE",
                        help="this camera's key pair (NAME.key_secret from tableref keys)")
    parser.add_argument("--curve-allowed", metavar="DIR",
                        help="public keys allowed to subscribe (the referee's): CURVE on")


def options(game: str, **overrides) -> argparse.Namespace:
    """``tableref camera --game GAME``'s arguments with its defaults, some replaced (for
    the camera service run from code: ``tableref run``, the demo, the benchmark)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--game", game])
    unknown = set(overrides) - set(vars(args))
    if unknown:
        raise TypeError(f"not an option of tableref camera: {', '.join(sorted(unknown))}")
    vars(args).update(overrides)
    return args


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """The game, table, frame source and tracker options (``tableref camera`` and
    ``tableref run`` share them)."""
    parser.add_argument("--game", required=True, metavar="ID",
                        help="the game on the table (see tableref games)")
    parser.add_argument("--table", default="t1", metavar="ID",
                        help="the table id, also the ZeroMQ topic (default t1)")
    parser.add_argument("--source", choices=SOURCES, default="synthetic",
                        help="where the frames come from (default synthetic: the renderer "
                        "draws the demo's scripted game of --game)")
    parser.add_argument("--path", metavar="PATH",
                        help="folder: the image folder; video: the video file")
    parser.add_argument("--device", default="0", metavar="DEV",
                        help="usb: index or /dev/videoN; picamera2: camera number (default 0)")
    parser.add_argument("--size", default="1280x720", metavar="WxH",
                        help="usb/picamera2 frame size (default 1280x720)")
    parser.add_argument("--fps", type=float, default=10.0, help="frames per second (default 10)")
    parser.add_argument("--loop", action="store_true",
                        help="folder/video: start again at the end")
    parser.add_argument("--seed", type=int, default=3,
                        help="synthetic: the seed of the game and of the picture (default 3)")
    parser.add_argument("--plies", type=int, default=6, metavar="N",
                        help="synthetic: play at most N plies of the scripted game (default 6)")
    parser.add_argument("--view", choices=("overhead", "oblique"), default="overhead",
                        help="synthetic: where the camera looks from (default overhead, "
                        "which vision reads best)")
    parser.add_argument("--lighting", choices=("even", "random"), default="even",
                        help="synthetic: even light and no camera noise, or exposure, "
                        "blur and noise drawn from the seed (default even)")
    parser.add_argument("--settle-s", type=float, default=0.5, metavar="S",
                        help="a scene is read once still this long, in capture time "
                        "(default 0.5; a folder's frames come fast: use 0)")
    parser.add_argument("--settle-frames", type=int, default=3, metavar="N",
                        help="... and for this many frames (default 3)")
    parser.add_argument("--first-seq", type=int, default=None, metavar="N",
                        help="the first observation's seq (default: the clock in ms, so that "
                        "seq keeps increasing across restarts)")
    parser.add_argument("--players", metavar="NAME,NAME",
                        help="the players' names, given with every observation")
    parser.add_argument("--jsonl", metavar="FILE",
                        help="also append each observation to FILE (JSONL)")
    add_calibration_arguments(parser)
    parser.add_argument("--second-camera", choices=SOURCES, metavar="SOURCE",
                        help="a second camera's source (e-SOLO-e family: the two readings "
                        "fused; synthetic: the same scripted game from --second-seat)")
    parser.add_argument("--second-path", metavar="PATH",
                        help="the second camera's folder or video file")
    parser.add_argument("--second-device", default="1", metavar="DEV",
                        help="the second camera's usb index or /dev/videoN, or picamera2 "
                        "camera number (default 1)")
    parser.add_argument("--second-seat", choices=("north", "south"), default="north",
                        help="the side of the board the second camera stands on (default "
                        "north, facing the first)")
    parser.add_argument("--second-calibration", metavar="FILE",
                        help="the second camera's intrinsics (tableref calibrate camera)")
    parser.add_argument("--second-view", choices=("overhead", "oblique"), default=None,
                        help="synthetic second camera: where it looks from (default --view)")


def add_calibration_arguments(parser: argparse.ArgumentParser) -> None:
    """The calibration files vision reads the frames with (``docs/calibration.md``;
    ``tableref camera``, ``run`` and ``observe`` share them)."""
    parser.add_argument("--camera-calibration", metavar="FILE",
                        help="the camera's intrinsics (tableref calibrate camera; default: "
                        "an assumed Raspberry Pi camera)")
    parser.add_argument("--board", metavar="FILE",
                        help="the registered board (tableref calibrate board): its corners "
                        "are used instead of finding the board in each frame; the board "
                        "must not move")
    parser.add_argument("--colour", metavar="FILE",
                        help="the white balance (tableref calibrate colour), applied to each "
                        "frame")
    parser.add_argument("--profile", metavar="FILE",
                        help="the set enrolment (tableref enrol): the pieces are read "
                        "through it")


def load_calibration(args: argparse.Namespace) -> dict | None:
    """The calibration dict of ``add_calibration_arguments``' files (None: none given);
    raises ``calibration.files.CalibrationError`` (one line naming the file and key)."""
    from calibration.files import for_vision

    calibration = for_vision(camera=args.camera_calibration, board=args.board,
                             colour=args.colour, profile=args.profile, game=args.game)
    return calibration or None


def second_calibration(path: str | None, first: dict | None) -> dict | None:
    """The second camera's calibration dict: its intrinsics file (``path``), the first's
    set enrolment (the profile serves both); None when neither. Raises
    ``calibration.files.CalibrationError`` as ``load_calibration``."""
    from calibration.files import for_vision

    second = for_vision(camera=path)
    if first and "profile" in first:
        second["profile"] = first["profile"]
    return second or None


def check_second(args: argparse.Namespace) -> None:
    """ValueError (one line) for second-camera options that do not fit together."""
    if getattr(args, "second_camera", None) is None:
        given = [f"--second-{k}" for k in ("path", "calibration")
                 if getattr(args, f"second_{k}", None)]
        if given:
            raise ValueError(f"{' and '.join(given)} need{'s' * (len(given) == 1)} "
                             "--second-camera SOURCE")
    else:
        check_fused(args.game)


def check_fused(game: str) -> None:
    """ValueError (one line) for a game whose two cameras' readings cannot be fused (only
    ``vision.fuse.FAMILY``'s can)."""
    from vision.fuse import FAMILY

    if game not in FAMILY:
        raise ValueError(f"--second-camera: two cameras are fused for {', '.join(FAMILY)} "
                         f"only, not {game}")


def run(args: argparse.Namespace) -> int:
    """``tableref camera``: logs to standard error, runs until stopped."""
    import logging
    import sys

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="tableref camera: %(levelname)s: %(message)s")
    return serve(args)


def _size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit():
        raise ValueError(f"--size {text!r} is not WIDTHxHEIGHT (e.g. 1280x720)")
    return int(w), int(h)


def _synthetic_script(args: argparse.Namespace) -> dict:
    """The renderer's scripted game for ``--game``: the settled positions of the demo's
    seeded game (``device.demo.scripted_positions``: hands between the moves, an illegal
    change put back), the first ``--plies`` plies only (each is seconds of frames). A
    second synthetic camera draws it with ``seat`` set to ``--second-seat``."""
    import time

    from device.demo import scripted_positions
    from vision.render.effects import Effects
    from vision.render.frame import RenderOptions

    effects = Effects.clean() if args.lighting == "even" else None
    return {"game": args.game, "positions": scripted_positions(args.game, args.seed, args.plies),
            "seed": args.seed, "fps": args.fps, "start_time": time.time(),
            "options": RenderOptions(camera_mode=args.view, effects=effects)}


def _second_script(script: dict, args: argparse.Namespace) -> dict:
    """The first camera's scripted game drawn from the second camera's seat (the same
    game, frame times, board, nudges and hands), from ``--second-view`` where given."""
    from dataclasses import replace

    view = args.second_view or args.view
    return {**script, "seat": args.second_seat,
            "options": replace(script["options"], camera_mode=view)}


def serve(args: argparse.Namespace, *, stop=None, ready=None, ended=None,
          progress=None, systemd: bool = True) -> int:
    """Runs until ``stop`` (a threading.Event) is set, or SIGTERM/SIGINT in the main
    thread. Returns the exit status. ``ready(publisher)`` is called once the source and the
    socket are up; ``ended`` (an Event) is set when a finite source comes to its end;
    ``progress(tracker, observation or None)`` is called after every frame. ``systemd``
    False: no READY/WATCHDOG/STOPPING (``tableref run``: the referee speaks for both)."""
    import json
    import logging
    import sys
    import threading
    import time
    from pathlib import Path

    from device.referee_service import stop_on_signals
    from device.sdnotify import Watchdog
    from device.sdnotify import notify as sd_notify
    from device.sources import LatestFrame, SourceConfig, SourceError, open_source
    from device.stream import CurveServer, Publisher, StreamError
    from device.tracker import Tracker, TrackerConfig

    log = logging.getLogger("tableref.camera")
    stop = stop or threading.Event()
    source = second = publisher = jsonl = None
    from rules.core import RulesError
    from rules.registry import get_game

    try:
        get_game(args.game)  # an unknown game id: one line now, not at the first read
        check_second(args)
        calibration = load_calibration(args)
        script = _synthetic_script(args) if "synthetic" in (
            args.source, args.second_camera) else None
        config = SourceConfig(
            args.source, path=args.path, device=args.device, size=_size(args.size),
            fps=args.fps, loop=args.loop, script=script if args.source == "synthetic" else None)
        source = open_source(config)
        source.open()
        second_cal = None
        if args.second_camera is not None:
            second_cal = second_calibration(args.second_calibration, calibration)
            second = open_source(SourceConfig(
                args.second_camera, path=args.second_path, device=args.second_device,
                size=config.size, fps=args.fps, loop=args.loop,
                script=_second_script(script, args) if (
                    args.second_camera == "synthetic") else None))
            second.open()
        curve = None
        if args.curve_allowed or args.curve_secret:
            if not (args.curve_allowed and args.curve_secret):
                raise ValueError("CURVE needs both --curve-secret FILE and --curve-allowed DIR")
            curve = CurveServer(Path(args.curve_secret), Path(args.curve_allowed))
        publisher = Publisher(args.publish, curve=curve)
        if args.jsonl:
            jsonl = open(args.jsonl, "a", encoding="utf-8")  # noqa: SIM115 (closed below)
    except (SourceError, StreamError, RulesError, OSError, ValueError) as err:
        for part in (source, second, publisher, jsonl):
            if part is not None:
                part.close()
        print(f"tableref camera: {err}", file=sys.stderr)
        return 2
    first_seq = args.first_seq if args.first_seq is not None else int(time.time() * 1000)
    tracker = Tracker(TrackerConfig(game=args.game, table=args.table, settle_s=args.settle_s,
                                    settle_frames=args.settle_frames, first_seq=first_seq,
                                    calibration=calibration,
                                    second_seat=args.second_seat if second else None,
                                    second_calibration=second_cal))
    names = [n.strip() for n in args.players.split(",")] if getattr(args, "players", None) else None
    notify = sd_notify if systemd else (lambda *lines: False)
    watchdog = Watchdog() if systemd else None
    notify("READY=1", f"STATUS=publishing table {args.table} at {publisher.endpoint}")
    log.info("table %s: publishing the observations of the %s source%s at %s (first seq %d)",
             args.table, args.source, "" if second is None else
             f" and the {args.second_camera} source ({args.second_seat})",
             publisher.endpoint, first_seq)
    if ready is not None:
        ready(publisher)
    restore = stop_on_signals(stop)
    status, finished = 0, False
    cameras = [(source, None)] + ([] if second is None else [(second, None)])
    try:
        deadline = time.monotonic() + getattr(args, "wait_subscriber", 0.0)
        while not stop.is_set() and not publisher.subscriptions and time.monotonic() < deadline:
            publisher.pump(timeout=0.05)
            if watchdog is not None:
                watchdog.tick()
        cameras = [(source, LatestFrame(source).start() if args.source in LIVE else None)]
        if second is not None:
            cameras.append((second, LatestFrame(second).start()
                            if args.second_camera in LIVE else None))
        while not stop.is_set():
            publisher.pump()
            if watchdog is not None:
                watchdog.tick()
            if finished:
                stop.wait(0.1)
                continue
            try:  # one frame of each camera, in step
                frames = [latest.get(timeout=0.2) if latest is not None else src.read()
                          for src, latest in cameras]
            except SourceError as err:
                log.error("%s", err)
                status = 1
                break
            if any(frame is None for frame in frames):
                gone = [latest for (_, latest), frame in zip(cameras, frames, strict=True)
                        if frame is None and (latest is None or latest.ended)]
                error = next((lt.error for lt in gone if lt is not None and lt.error), None)
                if error is not None:
                    log.error("%s", error)
                    status = 1
                    break
                if gone:
                    finished = True
                    if ended is not None:
                        ended.set()
                    log.info("the source ended after %d frames; still serving the last "
                             "observation until stopped", tracker.frames)
                    notify("STATUS=source ended; serving the last observation")
                continue
            obs = tracker.feed(*frames)
            if progress is not None:
                progress(tracker, obs)
            if obs is None:
                continue
            if names:
                obs["player_names"] = names
            if jsonl is not None:  # the file first: a subscriber that has it finds it there
                jsonl.write(json.dumps(obs, separators=(",", ":")) + "\n")
                jsonl.flush()
            publisher.publish_observation(obs)
            log.info("table %s: observation seq %d", args.table, obs["seq"])
    finally:
        restore()
        notify("STOPPING=1")
        for src, latest in cameras:
            if latest is not None:
                latest.stop()
            src.close()
        publisher.close()
        if jsonl is not None:
            jsonl.close()
    return status
