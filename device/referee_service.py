"""The referee as a service: observations in over ZeroMQ, events out, announced live.

    tableref referee --listen tcp://camera-t1:5556 --publish tcp://*:5557 --web 8080 \\
        --record /var/lib/tableref/games --speak

(also ``python -m device.referee_service ...`` with the same options). It subscribes to
the camera's observations (``device.stream``; one topic per table), judges them with
``rules.referee.Referee`` exactly as ``--replay`` does, and for each table:

- publishes every event, then the table's state (cached: a display that joins gets it
  at once), on the ``--publish`` socket, topic = table id;
- prints the events (``--json`` as JSONL, else readable lines), says them (``--speak``,
  espeak-ng), and shows them on the live web page (``--web``, ``device.web``);
- records every game (``--record``), resuming unfinished games after a restart.

A malformed or unjudgeable observation is refused and logged, and the service goes on.
Under systemd (``Type=notify``) it sends READY=1 once its sockets are up and WATCHDOG=1
from its main loop. SIGTERM and SIGINT stop it cleanly (exit status 0); a setup failure
(an address in use, an unreadable key, a record folder that cannot be made) is one line
on standard error and exit status 2.

Top-level imports stay light (argparse only): ``device.referee_cmd`` may import this
module to add the options to ``tableref referee``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ServiceConfig:
    """Everything the service needs, as plain data."""

    listen: list[str]
    publish: str | None = None
    bind: bool = False  # bind the listen addresses (cameras connect) instead of connecting
    tables: list[str] | None = None
    record_dir: str | None = None  # "" = the default data folder
    min_confidence: float | None = None
    forced_wins: bool = True
    json: bool = False
    quiet: bool = False
    web: str | None = None  # [HOST:]PORT
    speak: bool = False
    voice: str = "en"
    curve_secret: str | None = None  # this machine's NAME.key_secret
    camera_key: str | None = None  # the camera's public key: encrypt the subscription
    curve_allowed: str | None = None  # allowed subscribers' public keys: encrypt --publish
    heartbeat_ms: int = 1000
    events_kept: int = 20  # last events shown per table
    extra: dict[str, Any] = field(default_factory=dict)


def add_output_arguments(group) -> None:
    """Where the service's events go: socket, live page, speech, terminal, CURVE and
    heartbeats (``tableref referee --listen`` and ``tableref run`` alike)."""
    group.add_argument("--publish", metavar="ADDR",
                       help="publish events and table states at ADDR (e.g. tcp://*:5557)")
    group.add_argument("--web", metavar="[HOST:]PORT",
                       help="serve the live page (board, events, moves) on this port")
    group.add_argument("--speak", action="store_true", help="say the events with espeak-ng")
    group.add_argument("--voice", default="en", help="espeak-ng voice (default en)")
    group.add_argument("--quiet", action="store_true", help="print no events")
    group.add_argument("--curve-secret", metavar="FILE",
                       help="this machine's key pair (NAME.key_secret from tableref keys)")
    group.add_argument("--curve-allowed", metavar="DIR",
                       help="public keys allowed to subscribe to --publish (CURVE on)")
    group.add_argument("--heartbeat-ms", type=int, default=1000, metavar="MS",
                       help="ZMTP heartbeat interval; a peer silent for 3 of them is dead")


def add_judging_arguments(group) -> None:
    """How the games are judged and kept: --json, --record, --min-confidence,
    --no-forced-wins."""
    group.add_argument("--json", action="store_true", help="print events as JSONL")
    group.add_argument("--record", metavar="DIR", nargs="?", const="", default=None,
                       help="record every game (default folder: $XDG_DATA_HOME/tableref/games)")
    group.add_argument("--min-confidence", metavar="P", type=float, default=None,
                       help="below this confidence an unexplained position is 'unclear' "
                       "rather than a violation (default 0.9)")
    group.add_argument("--no-forced-wins", action="store_true",
                       help="do not announce forced wins seen ahead (Neunfeld)")


def add_arguments(parser: argparse.ArgumentParser, shared: bool = False) -> None:
    """The service's options; ``shared`` also adds those ``tableref referee`` already has
    (--json, --record, --min-confidence, --no-forced-wins)."""
    g = parser.add_argument_group("service (--listen)")
    g.add_argument("--listen", metavar="ADDR", action="append",
                   help="judge the observations published at ADDR (ZeroMQ, e.g. "
                   "tcp://camera-t1:5556 or ipc:///run/tableref/obs); may be repeated")
    g.add_argument("--bind", action="store_true",
                   help="bind the --listen addresses and let cameras connect")
    g.add_argument("--table", metavar="ID", action="append",
                   help="only these tables (default: every table heard)")
    g.add_argument("--camera-key", metavar="FILE",
                   help="the camera's public key: subscribe with CURVE encryption")
    add_output_arguments(g)
    if shared:
        add_judging_arguments(parser)


def config_from_args(args: argparse.Namespace) -> ServiceConfig:
    return ServiceConfig(
        listen=list(args.listen or []), publish=args.publish, bind=args.bind,
        tables=args.table, record_dir=getattr(args, "record", None),
        min_confidence=getattr(args, "min_confidence", None),
        forced_wins=not getattr(args, "no_forced_wins", False),
        json=getattr(args, "json", False), quiet=args.quiet, web=args.web,
        speak=args.speak, voice=args.voice, curve_secret=args.curve_secret,
        camera_key=args.camera_key, curve_allowed=args.curve_allowed,
        heartbeat_ms=args.heartbeat_ms,
    )


def run_service(args: argparse.Namespace) -> int:
    """``tableref referee --listen ...``: logs to standard error, runs until stopped."""
    import logging
    import sys

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="tableref referee: %(levelname)s: %(message)s")
    return serve(config_from_args(args))


def serve(config: ServiceConfig, *, stop=None, games=None, out=None, ready=None) -> int:
    """Runs the service until ``stop`` (a threading.Event) is set, or SIGTERM/SIGINT
    when running in the main thread. ``games`` maps game ids to games (the registry);
    ``out`` receives the printed events (standard output); ``ready(service)`` is called
    once everything is up. Returns the exit status."""
    import sys
    import threading

    from device.stream import StreamError

    stop = stop or threading.Event()
    service = RefereeService(config, games=games, out=out or sys.stdout)
    try:
        service.setup()
    except (StreamError, OSError, ValueError) as err:
        service.close()
        print(f"tableref referee: {err}", file=sys.stderr)
        return 2
    restore = stop_on_signals(stop)
    try:
        if ready is not None:
            ready(service)
        service.loop(stop)
    finally:
        restore()
        service.close()
    return 0


def stop_on_signals(stop):
    """SIGTERM and SIGINT set the ``stop`` event (services share this); returns a function
    that puts the old handlers back. Outside the main thread it changes nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    for s in old:
        signal.signal(s, lambda *_: stop.set())

    def restore():
        for s, handler in old.items():
            signal.signal(s, handler)

    return restore


class TableView:
    """What the page and the displays show of one table, kept beside the referee."""

    def __init__(self, table: str, kept: int):
        from collections import deque

        self.table = table
        self.events: deque[dict[str, Any]] = deque(maxlen=kept)
        self.game_ref: Any = None  # the referee's TableGame this view follows
        self.seen: Any = None  # the last stable observation's position
        self.game_id: str | None = None

    def state(self, tg: Any) -> dict[str, Any]:
        """The table's state as plain JSON (without the diagrams)."""
        from device.announce import player_label

        names = list(tg.player_names) if tg and tg.player_names else None
        moves, state = [], tg.board.root if tg else None
        for ply, move in enumerate(tg.board.move_stack if tg else (), 1):
            moves.append({"ply": ply, "move": str(move), "player": state.turn,
                          "by": player_label(state.turn, names)})
            state = state.apply(move)
        position = tg.board.position.to_json() if tg else None
        violation = next((e for e in reversed(self.events) if e["event"] == "violation"),
                         None) if tg and tg.in_violation else None
        if tg is None:
            status = self.events[-1]["text"] if self.events else "waiting for a game"
        elif tg.over:
            result = next((e for e in reversed(self.events)
                           if e["event"] in ("win", "draw")), None)
            status = result["text"] if result else "GAME OVER."
        elif violation is not None:
            status = violation["text"]
        else:
            status = f"{player_label(tg.state.turn, names)} to move (ply {tg.ply + 1})"
        return {
            "table": self.table, "game": tg.game_id if tg else self.game_id,
            "players": names, "turn": None if tg is None or tg.over else tg.state.turn,
            "ply": tg.ply if tg else 0, "over": bool(tg and tg.over),
            "violation": violation, "status": status, "position": position,
            "seen": self.seen, "moves": moves, "events": list(self.events),
        }


class RefereeService:
    """The parts of the running service; ``serve`` drives it."""

    def __init__(self, config: ServiceConfig, games=None, out=None):
        import logging

        from rules.registry import get_game

        self.config = config
        self.games = games or get_game
        self.out = out
        self.log = logging.getLogger("tableref.referee")
        self.views: dict[str, TableView] = {}
        self.counts = {"observations": 0, "refused": 0, "events": 0}
        from collections import deque

        self.history: deque[dict[str, Any]] = deque(maxlen=1000)  # the last events, all tables
        self._games: dict[str, Any] = {}
        self._seq_warned: set[tuple[str, str]] = set()
        self.sub = self.pub = self.web = self.live = self.speaker = self.recorder = None
        self.ctx = None

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        from pathlib import Path

        from device.sdnotify import Watchdog, notify
        from device.stream import CurveClient, CurveServer, Heartbeat, Publisher, Subscriber
        from rules.referee import MIN_CONFIDENCE, Referee

        cfg = self.config
        if not cfg.listen:
            raise ValueError("--listen needs at least one address")
        if (cfg.camera_key or cfg.curve_allowed) and not cfg.curve_secret:
            raise ValueError("CURVE needs this machine's key pair: --curve-secret FILE")
        if cfg.record_dir is not None:
            from rules.records import Recorder, default_data_dir

            self.recorder = Recorder(cfg.record_dir or default_data_dir(),
                                     warn=self.log.warning, games=self.games)
        self.referee = Referee(
            MIN_CONFIDENCE if cfg.min_confidence is None else cfg.min_confidence,
            forced_wins=cfg.forced_wins, recorder=self.recorder,
            resume=self.recorder.resume if self.recorder else None)
        import zmq

        self.ctx = zmq.Context()  # its own: sockets, authenticator and I/O thread
        ivl = max(10, cfg.heartbeat_ms)
        beat = Heartbeat(ivl, 3 * ivl, 3 * ivl)
        self.sub = Subscriber(
            cfg.listen, cfg.tables, ctx=self.ctx, heartbeat=beat, bind=cfg.bind,
            curve=CurveClient(Path(cfg.curve_secret), Path(cfg.camera_key))
            if cfg.camera_key else None)
        if cfg.publish:
            self.pub = Publisher(
                cfg.publish, ctx=self.ctx, heartbeat=beat,
                curve=CurveServer(Path(cfg.curve_secret), Path(cfg.curve_allowed))
                if cfg.curve_allowed else None)
        if cfg.web is not None:
            from device.web import LiveState, WebServer, parse_hostport

            self.live = LiveState()
            host, port = parse_hostport(cfg.web)
            self.web = WebServer(self.live, host, port).start()
            self.log.info("live page at http://%s:%d/", host, self.web.port)
        if cfg.speak:
            from device.announce import Speaker

            self.speaker = Speaker(voice=cfg.voice)
            if not self.speaker.available:
                self.speaker.say("")  # logs the one-line note now, not at the first event
        self.watchdog = Watchdog()
        where = ", ".join(cfg.listen)
        notify("READY=1", f"STATUS=judging the observations from {where}")
        self.log.info("judging the observations from %s%s", where,
                      f"; events at {self.pub.endpoint}" if self.pub else "")

    # ------------------------------------------------------------------ running
    def loop(self, stop) -> None:
        while not stop.is_set():
            msg = self.sub.recv(timeout=0.2)
            if msg is not None:
                self.handle(msg)
            if self.pub is not None:
                self.pub.pump()
            self.watchdog.tick()

    def handle(self, msg) -> list[dict[str, Any]]:
        """One received message -> the events it yielded (also published and shown)."""
        from rules.observation import ObservationError, parse_observation

        if msg.kind != "observation":
            article = "an" if msg.kind[0] in "aeiou" else "a"
            return self._refuse(msg.topic, f"{article} {msg.kind} message is not an observation")
        try:
            obs = parse_observation(msg.body, self._game)
        except ObservationError as err:
            key = f"key {err.key!r}: " if err.key else ""
            return self._refuse(msg.topic, f"{key}{err.message}")
        if obs.table != msg.topic:
            return self._refuse(msg.topic, f"its table {obs.table!r} is not its topic")
        self.counts["observations"] += 1
        before = self.referee.tables.get(obs.table)
        if (before is not None and obs.stable and obs.seq <= before.seq and not msg.resend
                and (obs.table, msg.stream) not in self._seq_warned):
            self._seq_warned.add((obs.table, msg.stream))
            self.log.warning("table %s: observation seq %d is not beyond %d, the last judged;"
                             " ignored (a camera must keep seq increasing across restarts)",
                             obs.table, obs.seq, before.seq)
        try:
            events = self.referee.feed(obs)
        except Exception as err:  # an engine fault must not end a live referee
            self.log.error("table %s: the rules engine failed on observation seq %d (%s: %s)",
                           obs.table, obs.seq, type(err).__name__, err)
            return []
        self._show(obs, events)
        return events

    def _game(self, game_id: str):
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = self.games(game_id)
        return game

    def _refuse(self, table: str, why: str) -> list[dict[str, Any]]:
        self.counts["refused"] += 1
        self.log.warning("table %s: refused an observation: %s", table, why)
        return []

    def _show(self, obs, events: list[dict[str, Any]]) -> None:
        from device.announce import announce, spoken
        from rules.observation import event_json

        table = obs.table
        view = self.views.get(table)
        if view is None:
            view = self.views[table] = TableView(table, self.config.events_kept)
        tg = self.referee.tables.get(table)
        changed = bool(events) or tg is not view.game_ref
        if tg is not view.game_ref:
            view.events.clear()  # a new game (or the first one) at this table
            view.game_ref = tg
        if obs.stable and obs.raw["position"] != view.seen:
            view.seen = obs.raw["position"]
            changed = True
        view.game_id = obs.game_id
        names = tg.player_names if tg else obs.player_names
        for event in events:
            self.counts["events"] += 1
            self.history.append(event)
            text = announce(event, tg)
            if not self.config.quiet and self.out is not None:
                print(event_json(event) if self.config.json else text, file=self.out,
                      flush=True)
            if self.pub is not None:
                self.pub.publish(table, "event", event)
            if event["event"] == "forced-win":
                continue  # information for the log, not for the players' page or ears
            view.events.append({**event, "text": text})
            if self.speaker is not None and (sentence := spoken(event, names)):
                self.speaker.say(sentence)
        if not changed:
            return
        state = view.state(tg)
        if self.pub is not None:
            self.pub.publish(table, "state", state, cache=True)
        if self.live is not None:
            from device.web import board_svg

            shown = dict(state)
            shown["svg"] = board_svg(state["game"], state["position"] or state["seen"])
            if state["violation"] is not None and state["seen"] != state["position"]:
                shown["seen_svg"] = board_svg(state["game"], state["seen"])
            self.live.update(table, shown)

    # ------------------------------------------------------------------ stopping
    def close(self) -> None:
        from device.sdnotify import notify

        notify("STOPPING=1")
        for part in (self.web, self.sub, self.pub, self.speaker, self.recorder):
            if part is not None:
                try:
                    part.stop() if part is self.web else part.close()
                except Exception as err:  # closing must go on with the other parts
                    self.log.warning("while stopping: %s", err)
        if self.ctx is not None:
            self.ctx.term()
            self.ctx = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m device.referee_service",
        description="The referee as a service (same options as tableref referee --listen).")
    add_arguments(parser, shared=True)
    return run_service(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
