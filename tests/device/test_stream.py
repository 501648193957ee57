"""ZeroMQ streaming through real sockets: last value, gaps, heartbeats, CURVE, bad input."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import zmq
import zmq.auth

from device.stream import (
    CurveClient,
    CurveServer,
    Heartbeat,
    Publisher,
    Subscriber,
    parse_frames,
    write_keypair,
)

FAST = Heartbeat(ivl=100, timeout=400, ttl=400)
REPO = Path(__file__).resolve().parents[2]


def until(pub, sub, timeout=2.0):
    """Pumps the publisher while waiting for the subscriber's next message."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pub.pump()
        msg = sub.recv(timeout=0.05)
        if msg is not None:
            return msg
    return None


@pytest.fixture
def ctx():
    c = zmq.Context()
    yield c
    c.term()


def test_late_subscriber_gets_the_last_value_at_once(ctx):
    pub = Publisher("tcp://127.0.0.1:*", ctx=ctx, heartbeat=FAST)
    try:
        pub.publish("t1", "observation", {"seq": 1, "stable": True}, cache=True)
        pub.publish("t1", "observation", {"seq": 2, "stable": False})
        pub.publish("t2", "observation", {"seq": 9, "stable": True}, cache=True)
        sub = Subscriber(pub.endpoint, ["t1"], ctx=ctx, heartbeat=FAST)
        try:
            msg = until(pub, sub)
            assert msg is not None and msg.topic == "t1" and msg.body == {"seq": 1, "stable": True}
            assert msg.resend and msg.seq == 1
            pub.publish("t1", "observation", {"seq": 3, "stable": True}, cache=True)
            msg = until(pub, sub)
            assert msg.body["seq"] == 3 and not msg.resend and msg.gap == 0
            assert until(pub, sub, timeout=0.3) is None  # nothing of t2
        finally:
            sub.close()
    finally:
        pub.close()


def test_prefix_topics_are_kept_apart(ctx):
    pub = Publisher("inproc://prefix", ctx=ctx)
    sub = Subscriber("inproc://prefix", ["t1"], ctx=ctx)
    try:
        time.sleep(0.05)
        pub.publish("t10", "event", {"n": 10}, cache=True)
        pub.publish("t1", "event", {"n": 1})
        msg = until(pub, sub)
        assert msg.topic == "t1" and msg.body == {"n": 1}
        assert until(pub, sub, timeout=0.2) is None
    finally:
        sub.close()
        pub.close()


def test_reconnect_gets_the_current_value_and_a_gap_is_seen(ctx, caplog):
    pub = Publisher("tcp://127.0.0.1:*", ctx=ctx, heartbeat=FAST)
    sub = Subscriber(pub.endpoint, ["t1"], ctx=ctx, heartbeat=FAST)
    try:
        pub.publish("t1", "observation", {"n": 1}, cache=True)
        assert until(pub, sub).body == {"n": 1}
        sub.sock.disconnect(pub.endpoint)
        time.sleep(0.1)
        pub.publish("t1", "observation", {"n": 2, "stable": True}, cache=True)  # missed
        pub.publish("t1", "observation", {"n": 3, "stable": False})  # missed, not cached
        sub.sock.connect(pub.endpoint)
        msg = until(pub, sub)
        assert msg.body == {"n": 2, "stable": True} and msg.resend  # the current position
        with caplog.at_level(logging.WARNING, logger="tableref.stream"):
            pub.publish("t1", "observation", {"n": 4})
            msg = until(pub, sub)
        assert msg.body == {"n": 4} and msg.gap == 1  # n=3 is lost, and seen to be
        assert "lost 1 message(s) of 't1' before seq 4" in caplog.text
        assert sub.stats["resubscribed"] == 1 and sub.stats["lost"] == 1
        assert until(pub, sub, timeout=0.3) is None  # the resend of n=2 is a duplicate
        assert sub.stats["duplicates"] >= 1
    finally:
        sub.close()
        pub.close()


PUBLISHER = textwrap.dedent("""
    import sys, time
    from device.stream import Heartbeat, Publisher
    pub = Publisher("tcp://127.0.0.1:*", heartbeat=Heartbeat(100, 400, 400))
    print(pub.endpoint, flush=True)
    for _ in range(600):
        pub.pump(0.05)
        pub.publish("t1", "state", {"alive": True}, cache=True)
""")


def test_heartbeat_shows_a_dead_peer_within_a_bounded_time(ctx):
    proc = subprocess.Popen([sys.executable, "-c", PUBLISHER], stdout=subprocess.PIPE,
                            cwd=REPO, text=True)
    try:
        endpoint = proc.stdout.readline().strip()
        sub = Subscriber(endpoint, ["t1"], ctx=ctx, heartbeat=FAST)
        try:
            assert sub.recv(timeout=5.0) is not None
            deadline = time.monotonic() + 2.0
            while not sub.peers.get(endpoint) and time.monotonic() < deadline:
                sub.recv(timeout=0.05)  # the monitor's report may trail the first message
            assert sub.peers.get(endpoint) is True
            os.kill(proc.pid, signal.SIGSTOP)  # frozen: TCP stays open, no pongs
            stopped = time.monotonic()
            while sub.peers.get(endpoint) and time.monotonic() - stopped < 5.0:
                sub.recv(timeout=0.05)
            took = time.monotonic() - stopped
            assert sub.peers.get(endpoint) is False, "the dead publisher was not noticed"
            assert took < 2.0
        finally:
            sub.close()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        os.kill(proc.pid, signal.SIGCONT)
        proc.wait(5)


def test_keypair_files(tmp_path):
    public, secret = write_keypair(tmp_path / "keys", "referee")
    assert public.name == "referee.key" and secret.name == "referee.key_secret"
    for path in (public, secret):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    pub_key, none = zmq.auth.load_certificate(public)
    pub_key2, sec_key = zmq.auth.load_certificate(secret)
    assert none is None and pub_key == pub_key2 and len(sec_key) == 40
    with pytest.raises(FileExistsError):
        write_keypair(tmp_path / "keys", "referee")


def test_curve_only_allowed_clients_get_data(ctx, tmp_path, caplog):
    keys, allowed = tmp_path / "keys", tmp_path / "allowed"
    allowed.mkdir()
    _, server_secret = write_keypair(keys, "server")
    good_public, good_secret = write_keypair(keys, "good")
    _, bad_secret = write_keypair(keys, "bad")
    (allowed / "good.key").write_bytes(good_public.read_bytes())
    server_public = keys / "server.key"
    with caplog.at_level(logging.WARNING, logger="tableref.stream"):
        pub = Publisher("tcp://127.0.0.1:*", ctx=ctx, heartbeat=FAST,
                        curve=CurveServer(server_secret, allowed))
        good = Subscriber(pub.endpoint, ["t1"], ctx=ctx, heartbeat=FAST,
                          curve=CurveClient(good_secret, server_public))
        bad = Subscriber(pub.endpoint, ["t1"], ctx=ctx, heartbeat=FAST,
                         curve=CurveClient(bad_secret, server_public))
        plain = Subscriber(pub.endpoint, ["t1"], ctx=ctx, heartbeat=FAST)
        try:
            pub.publish("t1", "state", {"secret": "position"}, cache=True)
            msg = until(pub, good)
            assert msg is not None and msg.body == {"secret": "position"}
            deadline = time.monotonic() + 0.8
            got = []
            while time.monotonic() < deadline:
                pub.publish("t1", "state", {"n": 1}, cache=True)
                pub.pump()
                for s in (bad, plain):
                    m = s.recv(timeout=0.02)
                    if m is not None:
                        got.append(m)
            assert got == []
            pub.pump()
        finally:
            for s in (good, bad, plain):
                s.close()
            pub.close()
    assert "not an allowed key" in caplog.text  # the refusal is logged


def test_malformed_messages_are_refused_and_logged(ctx, caplog):
    raw = ctx.socket(zmq.PUB)
    port = raw.bind_to_random_port("tcp://127.0.0.1")
    sub = Subscriber(f"tcp://127.0.0.1:{port}", None, ctx=ctx)
    good = [b"t1", b'{"v":1,"kind":"event","seq":1,"stream":"x"}', b'{"ok":true}']
    try:
        bad = [
            [b"t1"],
            [b"t1", b"{not json", b"{}"],
            [b"t1", b'{"v":2,"kind":"event","seq":1,"stream":"x"}', b"{}"],
            [b"t1", b'{"v":1,"kind":"gossip","seq":1,"stream":"x"}', b"{}"],
            [b"t1", b'{"v":1,"kind":"event","seq":0,"stream":"x"}', b"{}"],
            [b"t1", b'{"v":1,"kind":"event","seq":1,"stream":"x"}', b"[1]"],
            [b"\xff", b'{"v":1,"kind":"event","seq":1,"stream":"x"}', b"{}"],
            [b"t1", b'{"v":1,"kind":"event","seq":1,"stream":"x"}', b'{"x":NaN}'],
        ]
        deadline = time.monotonic() + 3
        msg = None
        with caplog.at_level(logging.WARNING, logger="tableref.stream"):
            while msg is None and time.monotonic() < deadline:
                for frames in bad:
                    raw.send_multipart(frames)
                raw.send_multipart(good)
                msg = sub.recv(timeout=0.1)
        assert msg is not None and msg.body == {"ok": True}
        assert sub.stats["malformed"] >= len(bad)
        assert "refused a malformed message: 1 frames, not 3" in caplog.text
        assert "unknown kind 'gossip'" in caplog.text
    finally:
        sub.close()
        raw.close(0)


def test_parse_frames_accepts_the_format():
    msg = parse_frames([b"t1", b'{"v":1,"kind":"observation","seq":3,"stream":"a","lvc":true}',
                        b'{"seq":17}'])
    assert (msg.topic, msg.kind, msg.seq, msg.stream, msg.body, msg.resend) == (
        "t1", "observation", 3, "a", {"seq": 17}, True)


def test_keys_command_writes_a_pair_and_never_overwrites(tmp_path, capsys):
    import argparse

    from device import keys_cmd

    def main(argv):
        parser = argparse.ArgumentParser()
        keys_cmd.add_arguments(parser)
        return keys_cmd.run(parser.parse_args(argv[1:]))

    assert main(["keys", "table-1", "--dir", str(tmp_path)]) == 0
    assert "table-1.key_secret" in capsys.readouterr().out
    assert stat.S_IMODE((tmp_path / "table-1.key_secret").stat().st_mode) == 0o600
    before = (tmp_path / "table-1.key_secret").read_bytes()
    assert main(["keys", "table-1", "--dir", str(tmp_path)]) == 1
    assert "exists; not overwritten" in capsys.readouterr().err
    assert (tmp_path / "table-1.key_secret").read_bytes() == before
    assert main(["keys", "../evil", "--dir", str(tmp_path)]) == 2


def test_an_ipc_path_too_long_for_a_socket_is_refused(ctx):
    from device.stream import StreamError

    with pytest.raises(StreamError, match="longer than 107 bytes"):
        Publisher("ipc:///tmp/" + "x" * 120, ctx=ctx)
