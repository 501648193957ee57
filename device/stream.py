"""ZeroMQ streaming of observations and referee events, one topic per table.

The camera publishes observations, the referee subscribes to them and publishes its
events and the table's state the same way (for displays and loggers). Every message is
three frames:

    topic   the table id, UTF-8 (a ZeroMQ topic: subscribers filter on it)
    header  JSON {"v": 1, "kind": "observation" | "event" | "state", "seq": n,
                  "stream": "<publisher id>"}  (+ "lvc": true and "head": the topic's
                  latest seq, on a resend from the cache)
    body    JSON object: the observation, the event, or the state

``seq`` counts the messages of one topic from one publisher (``stream``, random per
publisher start) without holes, so a subscriber sees a lost message as a gap. It is the
transport's count, separate from the observation's own ``seq``.

**Late joiners and gaps.** The publisher is an XPUB socket with ``XPUB_VERBOSE``: it sees
every subscription, also a repeated one, and answers it from its last-value cache (the
last cacheable message of each matching topic: the camera's last stable observation, the
referee's last state). So a display that joins mid-game gets the position at once, and a
subscriber that sees a gap subscribes again and gets the current position. (``CONFLATE``
would keep only the last message, but it does not work with multipart messages.) A
subscriber drops duplicates (a resend it already has) and delivers a resend it missed.

**Dead peers.** ZMTP heartbeats (``HEARTBEAT_IVL``/``TIMEOUT``/``TTL``) close a
connection whose peer stopped answering; a socket monitor reports it (``peers``), and
ZeroMQ reconnects by itself.

**CURVE.** With ``CurveServer`` the publisher encrypts and accepts only subscribers
whose public key lies in a directory of allowed keys (``zmq.auth.ThreadAuthenticator``);
``CurveClient`` gives a subscriber its key pair and the server's public key. Key files
come from ``tableref keys`` (``write_keypair``). A refused handshake is logged.

Malformed messages (wrong frame count, a header or body that is not the JSON above) are
refused, logged and counted; the subscriber goes on.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import zmq
import zmq.auth
from zmq.utils.monitor import recv_monitor_message

log = logging.getLogger("tableref.stream")

VERSION = 1
KINDS = ("observation", "event", "state")
MAX_MISSING = 4096  # seqs remembered as missing per topic (a longer gap is just a gap)
MAX_PUMP = 1000  # subscriptions answered per pump() call


class StreamError(RuntimeError):
    """A socket that cannot be set up (bad address, key file, ...). One line."""


@dataclass(frozen=True)
class Heartbeat:
    """ZMTP heartbeats, milliseconds: a ping every ``ivl``; a connection that has not
    answered within ``timeout`` is closed; ``ttl`` tells the peer to do the same."""

    ivl: int = 1000
    timeout: int = 3000
    ttl: int = 3000

    def apply(self, sock: zmq.Socket) -> None:
        sock.setsockopt(zmq.HEARTBEAT_IVL, self.ivl)
        sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, self.timeout)
        sock.setsockopt(zmq.HEARTBEAT_TTL, self.ttl)


HEARTBEAT = Heartbeat()


# --------------------------------------------------------------------------- keys


def write_keypair(directory: Path | str, name: str) -> tuple[Path, Path]:
    """A new CURVE key pair as ``NAME.key`` (public) and ``NAME.key_secret`` (both keys),
    in the certificate format ``zmq.auth`` reads, each created with mode 0600.

    Refuses to overwrite existing files (FileExistsError)."""
    if not name or "/" in name or name.startswith("."):
        raise StreamError(f"bad key name {name!r}: use letters, digits, - and _")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    public, secret = zmq.curve_keypair()
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    paths = (directory / f"{name}.key", directory / f"{name}.key_secret")
    for path, with_secret in zip(paths, (False, True), strict=True):
        lines = [f"#   tableref CURVE {'secret' if with_secret else 'public'} key, {stamp}",
                 "metadata", "curve", f'    public-key = "{public.decode()}"']
        if with_secret:
            lines.insert(1, "#   keep this file private: it proves this machine's identity")
            lines.append(f'    secret-key = "{secret.decode()}"')
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o600)  # whatever the umask
    return paths


def _load(path: Path | str, need_secret: bool) -> tuple[bytes, bytes | None]:
    try:
        public, secret = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as err:
        raise StreamError(f"cannot read the key file {path}: {err}") from None
    if need_secret and not secret:
        raise StreamError(f"{path} holds no secret key (use the NAME.key_secret file)")
    return public, secret


@dataclass(frozen=True)
class CurveServer:
    """The publisher's side: its own key pair and the folder of allowed clients' public
    keys (``*.key`` files)."""

    secret_file: Path
    allowed_dir: Path


@dataclass(frozen=True)
class CurveClient:
    """The subscriber's side: its own key pair and the publisher's public key."""

    secret_file: Path
    server_public_file: Path


def _check_address(address: str) -> None:
    """ZeroMQ cuts an ipc:// path longer than a Unix socket allows; refuse it instead."""
    if address.startswith("ipc://") and len(address[6:].encode()) > 107:
        raise StreamError(f"the ipc path {address[6:]!r} is longer than 107 bytes")


def _start_authenticator(ctx: zmq.Context, allowed_dir: Path):
    from zmq.auth.thread import ThreadAuthenticator

    if not Path(allowed_dir).is_dir():
        raise StreamError(f"no folder of allowed client keys: {allowed_dir}")
    auth = ThreadAuthenticator(ctx, log=logging.getLogger("tableref.stream.auth"))
    auth.start()
    auth.configure_curve(domain="*", location=str(allowed_dir))
    return auth


# --------------------------------------------------------------------------- messages


def _dumps(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


@dataclass
class Message:
    """One received message. ``gap`` is the number of messages of this topic lost just
    before it (0 normally); ``resend`` marks a last-value-cache copy."""

    topic: str
    kind: str
    seq: int
    stream: str
    body: dict[str, Any]
    resend: bool = False
    gap: int = 0
    head: int = 0  # on a resend: the topic's latest seq when it was sent


class MalformedMessage(ValueError):
    pass


def parse_frames(frames: list[bytes]) -> Message:
    """The three frames of a message -> Message; raises MalformedMessage saying why."""
    from rules.observation import ObservationError, load_json

    if len(frames) != 3:
        raise MalformedMessage(f"{len(frames)} frames, not 3 (topic, header, body)")
    try:
        topic = frames[0].decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedMessage("the topic is not UTF-8") from None
    try:
        header, body = load_json(frames[1]), load_json(frames[2])
    except ObservationError as err:
        raise MalformedMessage(f"not JSON: {err.message}") from None
    if not isinstance(header, dict) or header.get("v") != VERSION:
        raise MalformedMessage(f"the header is not a version {VERSION} header")
    kind, seq, stream = header.get("kind"), header.get("seq"), header.get("stream")
    if kind not in KINDS:
        raise MalformedMessage(f"unknown kind {kind!r}")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise MalformedMessage(f"seq {seq!r} is not a positive whole number")
    if not isinstance(stream, str) or not stream:
        raise MalformedMessage("no stream id")
    if not isinstance(body, dict):
        raise MalformedMessage("the body is not a JSON object")
    head = header.get("head")
    msg = Message(topic, kind, seq, stream, body, resend=header.get("lvc") is True)
    if msg.resend and isinstance(head, int) and not isinstance(head, bool) and head >= seq:
        msg.head = head
    return msg


# --------------------------------------------------------------------------- publisher


class Publisher:
    """An XPUB socket with a last-value cache, bound (or connected) to ``address``.

    ``publish`` sends; ``pump`` answers new subscriptions from the cache and must be
    called regularly (each turn of the owner's loop; it never blocks unless asked to).
    Not thread-safe: one thread owns it.
    """

    def __init__(
        self, address: str | Iterable[str], *, ctx: zmq.Context | None = None,
        curve: CurveServer | None = None, heartbeat: Heartbeat = HEARTBEAT,
        bind: bool = True, stream_id: str | None = None,
    ):
        self.ctx = ctx or zmq.Context.instance()
        self.stream = stream_id or secrets.token_hex(4)
        self.seq: dict[str, int] = {}
        self.cache: dict[str, tuple[bytes, dict[str, Any], bytes]] = {}
        self.subscriptions = 0
        self.auth = None
        self.sock = self.ctx.socket(zmq.XPUB)
        self.sock.setsockopt(zmq.XPUB_VERBOSE, 1)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.SNDHWM, 10000)
        heartbeat.apply(self.sock)
        try:
            if curve is not None:
                self.auth = _start_authenticator(self.ctx, curve.allowed_dir)
                public, secret = _load(curve.secret_file, need_secret=True)
                self.sock.curve_server = True
                self.sock.curve_publickey = public
                self.sock.curve_secretkey = secret
            self.monitor = _Monitor(self.sock, "subscriber")
            for addr in [address] if isinstance(address, str) else address:
                _check_address(addr)
                (self.sock.bind if bind else self.sock.connect)(addr)
        except (zmq.ZMQError, StreamError) as err:
            self.close()
            raise StreamError(f"cannot publish on {address}: {err}") from None
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)

    def publish(self, topic: str, kind: str, body: dict[str, Any], cache: bool = False) -> int:
        """Sends one message on ``topic``; ``cache`` keeps it as the topic's last value.
        Returns its seq."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}")
        seq = self.seq.get(topic, 0) + 1
        self.seq[topic] = seq
        header = {"v": VERSION, "kind": kind, "seq": seq, "stream": self.stream}
        frames = [topic.encode("utf-8"), _dumps(header), _dumps(body)]
        self.sock.send_multipart(frames)
        if cache:
            self.cache[topic] = (frames[0], header, frames[2])
        return seq

    def publish_observation(self, observation: dict[str, Any]) -> int:
        """An observation on its table's topic; a stable one becomes the cached current
        position (an unstable one, a hand over the board, is not worth resending)."""
        return self.publish(observation["table"], "observation", observation,
                            cache=observation.get("stable") is True)

    def pump(self, timeout: float = 0.0) -> int:
        """Answers the subscriptions that arrived (waiting up to ``timeout`` seconds for
        the first); returns how many."""
        n = 0
        self.monitor.drain()
        for i in range(MAX_PUMP):  # bounded: a flood of subscriptions cannot hold us here
            if not self.sock.poll(int(timeout * 1000) if i == 0 else 0, zmq.POLLIN):
                break
            msg = self.sock.recv()
            if msg[:1] == b"\x01":
                self.subscriptions += 1
                n += 1
                prefix = msg[1:]
                for topic, (name, header, body) in list(self.cache.items()):
                    if name.startswith(prefix):
                        # "head": this topic's latest seq, sent or not cached, so that a
                        # subscriber starting here does not count what came before as lost
                        resend = {**header, "lvc": True, "head": self.seq[topic]}
                        self.sock.send_multipart([name, _dumps(resend), body])
                        log.debug("sent the last value of %r to a subscriber", topic)
        return n

    def close(self) -> None:
        monitor = getattr(self, "monitor", None)
        if monitor is not None:
            monitor.close()
        self.sock.close(0)
        if self.auth is not None:
            self.auth.stop()
            self.auth = None


# --------------------------------------------------------------------------- subscriber


@dataclass
class _Track:
    stream: str
    first: int
    last: int
    missing: set[int] = field(default_factory=set)


class Subscriber:
    """A SUB socket connected to one or more publishers, for ``topics`` (None: all).

    ``recv(timeout)`` returns the next new, well-formed message (or None when none came
    in time): duplicates are dropped, malformed messages refused and logged, a gap is
    reported on the message after it (``Message.gap``) and answered by subscribing to
    the topic again, which makes the publisher resend its current value.
    """

    def __init__(
        self, addresses: str | Iterable[str], topics: Iterable[str] | None = None, *,
        ctx: zmq.Context | None = None, curve: CurveClient | None = None,
        heartbeat: Heartbeat = HEARTBEAT, bind: bool = False,
        reconnect_ms: tuple[int, int] = (100, 2000),
    ):
        self.ctx = ctx or zmq.Context.instance()
        self.topics = None if topics is None else {t for t in topics}
        self.tracks: dict[str, _Track] = {}
        self.stats = {"received": 0, "duplicates": 0, "malformed": 0, "lost": 0,
                      "resubscribed": 0}
        self.sock = self.ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.RCVHWM, 10000)
        self.sock.setsockopt(zmq.RECONNECT_IVL, reconnect_ms[0])
        self.sock.setsockopt(zmq.RECONNECT_IVL_MAX, reconnect_ms[1])
        heartbeat.apply(self.sock)
        try:
            if curve is not None:
                public, secret = _load(curve.secret_file, need_secret=True)
                server, _ = _load(curve.server_public_file, need_secret=False)
                self.sock.curve_publickey = public
                self.sock.curve_secretkey = secret
                self.sock.curve_serverkey = server
            self.monitor = _Monitor(self.sock, "publisher")
            for topic in self.topics if self.topics is not None else [""]:
                self.sock.setsockopt(zmq.SUBSCRIBE, topic.encode("utf-8"))
            self.addresses = [addresses] if isinstance(addresses, str) else list(addresses)
            for addr in self.addresses:
                _check_address(addr)
                (self.sock.bind if bind else self.sock.connect)(addr)
        except (zmq.ZMQError, StreamError) as err:
            self.close()
            raise StreamError(f"cannot subscribe to {addresses}: {err}") from None

    @property
    def peers(self) -> dict[str, bool]:
        """endpoint -> connected, as the socket monitor last said."""
        return self.monitor.peers

    def recv(self, timeout: float = 1.0) -> Message | None:
        deadline = time.monotonic() + timeout
        while True:
            self.monitor.drain()
            left = max(0.0, deadline - time.monotonic())
            if not self.sock.poll(int(left * 1000), zmq.POLLIN):
                self.monitor.drain()
                return None
            frames = self.sock.recv_multipart()
            msg = self._accept(frames)
            if msg is not None:
                return msg
            if time.monotonic() >= deadline:
                return None

    def _accept(self, frames: list[bytes]) -> Message | None:
        try:
            msg = parse_frames(frames)
        except MalformedMessage as err:
            self.stats["malformed"] += 1
            log.warning("refused a malformed message: %s", err)
            return None
        if self.topics is not None and msg.topic not in self.topics:
            return None  # a longer topic that only shares our prefix
        track = self.tracks.get(msg.topic)
        if track is None or track.stream != msg.stream:
            if track is not None:
                log.warning("the publisher of %r restarted (stream %s -> %s)",
                            msg.topic, track.stream, msg.stream)
            self.tracks[msg.topic] = _Track(msg.stream, msg.seq, max(msg.seq, msg.head))
        elif msg.seq > track.last:
            msg.gap = msg.seq - track.last - 1
            if msg.gap:
                self.stats["lost"] += msg.gap
                log.warning("lost %d message(s) of %r before seq %d; asking for the current "
                            "value", msg.gap, msg.topic, msg.seq)
                if len(track.missing) < MAX_MISSING:
                    track.missing.update(range(track.last + 1, min(
                        msg.seq, track.last + 1 + MAX_MISSING - len(track.missing))))
                self.resubscribe(msg.topic)
            track.last = msg.seq
        elif msg.seq in track.missing:
            track.missing.discard(msg.seq)
        elif msg.resend and msg.seq < track.first:
            track.first = msg.seq  # an older value this subscriber never had
        else:
            self.stats["duplicates"] += 1
            return None
        self.stats["received"] += 1
        return msg

    def resubscribe(self, topic: str) -> None:
        """Subscribes again: the publisher answers with its last value of the topic."""
        self.stats["resubscribed"] += 1
        sub = topic if self.topics is not None else ""
        self.sock.setsockopt(zmq.SUBSCRIBE, sub.encode("utf-8"))

    def close(self) -> None:
        monitor = getattr(self, "monitor", None)
        if monitor is not None:
            monitor.close()
        self.sock.close(0)


# --------------------------------------------------------------------------- monitor

_EVENTS = {
    zmq.EVENT_CONNECTED: "connected", zmq.EVENT_ACCEPTED: "accepted",
    zmq.EVENT_DISCONNECTED: "disconnected",
    zmq.EVENT_HANDSHAKE_SUCCEEDED: "handshake", zmq.EVENT_HANDSHAKE_FAILED_AUTH: "refused",
    zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL: "protocol-error",
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL: "handshake-failed",
}


_MONITORS = itertools.count()


class _Monitor:
    """A socket's connection events: who is connected, refused handshakes logged."""

    def __init__(self, sock: zmq.Socket, peer: str):
        self.peer = peer
        self.peers: dict[str, bool] = {}
        self.events: list[tuple[float, str, str]] = []  # (monotonic time, event, endpoint)
        # a name of its own: pyzmq's default names the socket's file descriptor, which a
        # new socket may get again while the old monitor endpoint is still bound
        addr = f"inproc://tableref-monitor-{next(_MONITORS)}-{secrets.token_hex(4)}"
        self.sock = sock.get_monitor_socket(sum(_EVENTS), addr)

    def drain(self) -> None:
        while self.sock is not None and self.sock.poll(0, zmq.POLLIN):
            try:
                event = recv_monitor_message(self.sock, zmq.NOBLOCK)
            except zmq.Again:
                return
            name = _EVENTS.get(event["event"])
            if name is None:
                continue
            endpoint = (event.get("endpoint") or b"").decode("utf-8", "replace")
            self.events.append((time.monotonic(), name, endpoint))
            del self.events[:-100]
            if name == "handshake":
                self.peers[endpoint] = True
                log.info("%s at %s connected", self.peer, endpoint)
            elif name == "disconnected":
                if self.peers.get(endpoint):
                    log.warning("%s at %s went away (closed, or no heartbeat)", self.peer,
                                endpoint)
                self.peers[endpoint] = False
            elif name in ("refused", "protocol-error", "handshake-failed"):
                log.warning("refused a %s at %s: %s (status %s)", self.peer, endpoint,
                            "not an allowed key" if name == "refused" else name,
                            event.get("value"))

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close(0)
            self.sock = None
