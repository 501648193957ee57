"""``tableref referee``: judge a stream of observations and print the events.

    tableref referee --replay game.jsonl --json          events as JSONL on stdout
    tableref referee --replay - < game.jsonl             readable announcements
    tableref referee --replay live.jsonl --follow --record   tail a growing file, record
    tableref referee --listen tcp://cam:5556 --publish tcp://*:5557 --web 8080   the service

Malformed lines are reported on stderr (file, line number, key at fault) and skipped.
Exit status: 0 every line read and judged, 1 some lines malformed, 2 the input cannot be
read at all. See docs/referee.md.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--replay", metavar="FILE",
        help="observations, one JSON object a line (JSONL); - reads standard input",
    )
    parser.add_argument("--json", action="store_true", help="print events as JSONL")
    parser.add_argument(
        "--follow", action="store_true",
        help="keep reading as the file grows (like tail -f); stop with Ctrl-C",
    )
    parser.add_argument(
        "--record", metavar="DIR", nargs="?", const="", default=None,
        help="record every game in DIR (default: $XDG_DATA_HOME/tableref/games) and "
        "resume an unfinished game from its record after a restart",
    )
    parser.add_argument(
        "--min-confidence", metavar="P", type=float, default=None,
        help="below this confidence an observation no legal move explains is 'unclear' "
        "rather than a violation (default 0.9)",
    )
    parser.add_argument(
        "--no-forced-wins", action="store_true",
        help="do not announce forced wins seen ahead (Neunfeld)",
    )
    from device.referee_service import add_arguments as add_service_arguments

    add_service_arguments(parser)


def run(args: argparse.Namespace) -> int:
    import signal
    import sys

    if args.listen:
        if args.replay is not None:
            print("tableref referee: give --replay FILE or --listen ADDR, not both",
                  file=sys.stderr)
            return 2
        from device.referee_service import run_service

        return run_service(args)
    if args.replay is None:
        print("tableref referee: nothing to judge: give --replay FILE (or -) or --listen ADDR",
              file=sys.stderr)
        return 2

    from device.announce import announce
    from rules.observation import ObservationError, ObservationReader, event_json
    from rules.referee import MIN_CONFIDENCE, Referee

    name = "<stdin>" if args.replay == "-" else args.replay
    try:
        source = sys.stdin.buffer if args.replay == "-" else open(args.replay, "rb")  # noqa: SIM115
    except OSError as err:
        print(f"tableref referee: cannot read {name}: {err.strerror or err}", file=sys.stderr)
        return 2

    recorder = None
    if args.record is not None:
        from rules.records import Recorder, default_data_dir

        try:
            recorder = Recorder(args.record or default_data_dir(), warn=_warn)
        except OSError as err:
            print(f"tableref referee: cannot record in {args.record or default_data_dir()}: "
                  f"{err.strerror or err}", file=sys.stderr)
            return 2
    referee = Referee(
        MIN_CONFIDENCE if args.min_confidence is None else args.min_confidence,
        forced_wins=not args.no_forced_wins,
        recorder=recorder,
        resume=recorder.resume if recorder else None,
    )
    reader = ObservationReader()
    malformed = 0

    def stop(signum, frame):
        raise KeyboardInterrupt

    if args.follow:
        signal.signal(signal.SIGTERM, stop)
    try:
        for lineno, raw in _lines(source, follow=args.follow and args.replay != "-"):
            if not raw.strip():
                continue  # empty lines are allowed and skipped
            try:
                obs = reader.parse(raw.lstrip(b"\xef\xbb\xbf") if lineno == 1 else raw)
            except ObservationError as err:
                malformed += 1
                where = f"{name}, line {lineno}"
                key = f"key {err.key!r}: " if err.key else ""
                print(f"{where}: {key}{err.message}", file=sys.stderr)
                continue
            try:
                events = referee.feed(obs)
            except Exception as err:  # an engine fault must not end a live referee
                malformed += 1
                print(f"{name}, line {lineno}: the rules engine failed on this observation "
                      f"({type(err).__name__}: {err})", file=sys.stderr)
                continue
            for event in events:
                if args.json:
                    print(event_json(event))
                else:
                    print(announce(event, referee.tables.get(event["table"])))
            if events:
                sys.stdout.flush()
    except KeyboardInterrupt:
        pass  # the way to stop --follow
    except BrokenPipeError:
        raise  # the reader of our output went away (``| head``): tableref's main handles it
    except OSError as err:
        print(f"tableref referee: cannot read {name}: {err.strerror or err}", file=sys.stderr)
        return 2
    finally:
        if recorder is not None:
            recorder.close()
        if source is not sys.stdin.buffer:
            source.close()
    return 1 if malformed else 0


def _warn(message: str) -> None:
    import sys

    print(f"tableref referee: warning: {message}", file=sys.stderr)


def _lines(source, follow: bool):
    """(line number, bytes) for each line; with ``follow`` waits for more at the end.

    A last line without its newline is kept back while following (it may be half
    written) and judged at the end otherwise.
    """
    import time

    lineno, pending = 0, b""
    while True:
        chunk = source.readline()
        if chunk:
            pending += chunk
            if not pending.endswith(b"\n"):
                if not follow:
                    continue
                time.sleep(0.05)
                continue
            lineno += 1
            yield lineno, pending
            pending = b""
        elif follow:
            time.sleep(0.1)
        else:
            if pending:
                yield lineno + 1, pending
            return
