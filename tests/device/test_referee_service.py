"""The referee service: observations over ZeroMQ in, events out, page and notify."""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from device.referee_service import ServiceConfig, serve
from device.stream import Subscriber
from tests.device.processes import stop_process
from tests.device.service_helpers import FAST, ipc_dir, running_service
from tests.referee.fakegame import obs


def get_json(port: int, path: str = "/state.json"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_a_game_over_zeromq_is_judged_announced_published_and_shown(tmp_path):
    sockets = ipc_dir()
    with running_service(sockets, record_dir=str(tmp_path / "games")) as run:
        display = Subscriber(f"ipc://{sockets}/ev", ["t1"], heartbeat=FAST)
        try:
            run.send(obs(1, ".....", player_names=["Ann", "Bob"]))
            run.send(obs(2, "A....", player_names=["Ann", "Bob"]))
            assert run.wait_for(lambda: "Ann plays @0" in run.out.getvalue())
            got = []
            assert run.wait_for(lambda: (m := display.recv(0.05)) and got.append(m) or any(
                m.kind == "event" for m in got))
            event = next(m for m in got if m.kind == "event")
            assert event.topic == "t1" and event.body["event"] == "move"
            assert event.body["move"] == "@0" and event.body["player"] == 0
            port = run.service.web.port
            status, snap = get_json(port)
            table = snap["tables"]["t1"]
            assert status == 200 and table["game"] == "line"
            assert table["moves"] == [{"ply": 1, "move": "@0", "player": 0, "by": "Ann"}]
            assert table["status"] == "Bob to move (ply 2)"
            assert table["events"][-1]["text"] == "ply 1: Ann plays @0"
            run.send(obs(3, "A.B..", player_names=["Ann", "Bob"]))
            assert run.wait_for(lambda: len(get_json(port)[1]["tables"]["t1"]["moves"]) == 2)
        finally:
            display.close()
        # a display that joins now gets the table's state at once, from the cache
        late = Subscriber(f"ipc://{sockets}/ev", ["t1"], heartbeat=FAST)
        try:
            msg = late.recv(2.0)
            assert msg is not None and msg.kind == "state" and msg.resend
            assert [m["move"] for m in msg.body["moves"]] == ["@0", "@2"]
            assert "svg" not in msg.body
        finally:
            late.close()
    records = list((tmp_path / "games").glob("*.jsonl"))
    assert len(records) == 1 and '"move": "@2"' in records[0].read_text()


def test_a_referee_started_mid_game_gets_the_position_at_once(tmp_path):
    from device.stream import Publisher

    sockets = ipc_dir()
    camera = Publisher(f"ipc://{sockets}/obs", heartbeat=FAST)
    try:
        camera.publish("t1", "observation", obs(5, "AB...", player_names=["Ann", "Bob"]),
                       cache=True)
        camera.publish("t1", "observation", obs(6, "ABBBB", stable=False), cache=False)
        import io
        import threading

        out, stop, box = io.StringIO(), threading.Event(), {}
        cfg = ServiceConfig(listen=[f"ipc://{sockets}/obs"], web="127.0.0.1:0",
                            heartbeat_ms=100)
        from tests.referee.fakegame import games

        t = threading.Thread(target=serve, args=(cfg,), kwargs=dict(
            stop=stop, games=games, out=out, ready=lambda s: box.setdefault("s", s)))
        t.start()
        try:
            deadline = time.monotonic() + 5
            table = None
            while table is None and time.monotonic() < deadline:
                camera.pump(0.05)
                if "s" in box:
                    table = get_json(box["s"].web.port)[1]["tables"].get("t1")
            assert table is not None, "the cached position did not arrive"
            assert table["seen"] == {"cells": ["A", "B", ".", ".", "."]}
            assert table["status"] == "Ann to move (ply 1)"  # resumed: A and B placed
            assert "<svg" in table["svg"]
        finally:
            stop.set()
            t.join(5)
    finally:
        camera.close()


def test_malformed_observations_are_refused_logged_and_the_service_goes_on(tmp_path, caplog):
    with caplog.at_level(logging.WARNING), running_service(ipc_dir()) as run:
        run.send(obs(1, "....."))
        bad = obs(2, "A....")
        bad["seq"] = "two"
        run.send(bad)
        run.camera.publish("t1", "observation", obs(3, "A....", table="t9"))  # wrong topic
        run.camera.publish("t1", "observation", {"schema": "nonsense"})
        run.camera.publish("t1", "event", {"event": "move"})
        run.send(obs(4, "AZ..."))
        run.send(obs(5, "A...."))
        assert run.wait_for(lambda: "plays @0" in run.out.getvalue())
        assert run.service.counts["refused"] == 5
    text = caplog.text
    assert "table t1: refused an observation: key 'seq': must be a whole number" in text
    assert "its table 't9' is not its topic" in text
    assert "key 'schema': missing" in text or "key 'table': missing" in text
    assert "an event message is not an observation" in text
    assert "key 'position.cells.1'" in text


def test_curve_from_camera_to_referee_to_display(tmp_path):
    from device.stream import CurveClient, CurveServer, write_keypair

    keys = tmp_path / "keys"
    cam_allowed, ref_allowed = tmp_path / "camera-allowed", tmp_path / "referee-allowed"
    cam_allowed.mkdir()
    ref_allowed.mkdir()
    _, camera_secret = write_keypair(keys, "camera")
    referee_public, referee_secret = write_keypair(keys, "referee")
    display_public, display_secret = write_keypair(keys, "display")
    shutil.copy(referee_public, cam_allowed)
    shutil.copy(display_public, ref_allowed)
    sockets = ipc_dir()
    with running_service(
            sockets, camera_curve=CurveServer(camera_secret, cam_allowed),
            curve_secret=str(referee_secret), camera_key=str(keys / "camera.key"),
            curve_allowed=str(ref_allowed)) as run:
        run.send(obs(1, "....."))
        run.send(obs(2, "A...."))
        assert run.wait_for(lambda: "plays @0" in run.out.getvalue())
        display = Subscriber(f"ipc://{sockets}/ev", ["t1"], heartbeat=FAST,
                             curve=CurveClient(display_secret, keys / "referee.key"))
        try:
            msg = display.recv(3.0)
            assert msg is not None and msg.kind == "state" and msg.body["moves"][0]["move"] == "@0"
        finally:
            display.close()


def test_setup_failures_are_one_line_and_status_2(tmp_path, capsys):
    cfg = ServiceConfig(listen=["ipc://" + str(tmp_path / "x")], curve_allowed=str(tmp_path))
    assert serve(cfg) == 2
    assert "CURVE needs this machine's key pair" in capsys.readouterr().err
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    try:
        port = blocker.getsockname()[1]
        cfg = ServiceConfig(listen=["ipc://" + str(tmp_path / "y")],
                            publish=f"tcp://127.0.0.1:{port}")
        assert serve(cfg) == 2
        err = capsys.readouterr().err
        assert err.startswith("tableref referee: cannot publish on") and err.count("\n") == 1
    finally:
        blocker.close()


def test_systemd_notify_ready_watchdog_stopping(tmp_path, monkeypatch):
    path = tmp_path / "notify.sock"
    sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sink.bind(str(path))
    sink.settimeout(0.1)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")  # ping every 0.1 s
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    got = []
    try:
        with running_service(ipc_dir()):
            deadline = time.monotonic() + 3
            while sum(m == "WATCHDOG=1" for m in got) < 3 and time.monotonic() < deadline:
                with contextlib.suppress(TimeoutError):
                    got.append(sink.recv(4096).decode())
        while True:
            try:
                got.append(sink.recv(4096).decode())
            except TimeoutError:
                break
    finally:
        sink.close()
    assert got[0].startswith("READY=1\nSTATUS=judging the observations from ipc://")
    assert sum(m == "WATCHDOG=1" for m in got) >= 3
    assert got[-1] == "STOPPING=1"


def test_the_module_runs_as_a_command_and_stops_on_sigterm():
    tmp_path = Path(ipc_dir())
    proc = subprocess.Popen(
        [sys.executable, "-m", "device.referee_service", "--listen",
         f"ipc://{tmp_path}/obs", "--publish", f"ipc://{tmp_path}/ev", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.monotonic() + 10
        while not (tmp_path / "ev").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tmp_path / "ev").exists(), proc.stderr.read() if proc.poll() else "slow"
    finally:
        status = stop_process(proc)
        shutil.rmtree(tmp_path, ignore_errors=True)
    err = proc.stderr.read()
    assert status == 0, err
    assert "judging the observations from ipc://" in err


@pytest.mark.parametrize("missing", [True, False])
def test_speech_or_a_clear_note(tmp_path, caplog, missing):
    from device.announce import Speaker, spoken

    assert spoken({"event": "move", "player": 1, "move": "c2:sakura-north"},
                  ["Ann", "Bob"]) == "Bob: c2 sakura north."
    assert spoken({"event": "win", "winners": [0], "condition": "x"}, ["Ann"]) == (
        "Game over. Ann wins.")
    assert spoken({"event": "forced-win", "player": 0, "line": []}) is None
    if missing:
        speaker = Speaker(program="no-such-espeak-here")
        with caplog.at_level(logging.WARNING):
            speaker.say("hello")
            speaker.say("again")
        assert not speaker.available
        assert caplog.text.count("espeak-ng is not installed") == 1
        return
    wav = tmp_path / "said.wav"
    speaker = Speaker(extra_args=["-w", str(wav)])
    if not speaker.available:
        pytest.skip("espeak-ng is not installed here (apt install espeak-ng)")
    speaker.say("Bob, that is not allowed.")
    speaker.close(timeout=20)
    assert wav.read_bytes()[:4] == b"RIFF" and wav.stat().st_size > 4000


def test_tableref_referee_parses_the_service_options_beside_its_own():
    """``tableref referee --listen``: the referee command's parser carries these options."""
    import argparse

    from device import referee_cmd
    from device.referee_service import config_from_args

    parser = argparse.ArgumentParser()
    referee_cmd.add_arguments(parser)
    args = parser.parse_args([
        "--listen", "tcp://cam:5556", "--listen", "ipc:///run/t/obs",
        "--publish", "tcp://*:5557", "--web", "8080", "--record", "--json",
        "--min-confidence", "0.8", "--no-forced-wins", "--table", "t1"])
    cfg = config_from_args(args)
    assert cfg.listen == ["tcp://cam:5556", "ipc:///run/t/obs"] and cfg.tables == ["t1"]
    assert (cfg.record_dir, cfg.json, cfg.min_confidence, cfg.forced_wins) == (
        "", True, 0.8, False)
