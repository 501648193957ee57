"""``tableref camera``: frames from a folder -> a stable observation, in the JSONL file and
on the ZeroMQ socket; a clean stop on SIGTERM; a bad source is one line and exit 2."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

from device.stream import CurveClient, Subscriber, write_keypair
from rules.observation import ObservationReader
from tests.device.processes import stop_process
from tests.device.service_helpers import FAST, ipc_dir

GAME = "esoloe-tictactoe"
ROOT = Path(__file__).resolve().parents[2]
CUBE = {"player": 0, "faces": {"up": "sakura"}}
POSITION = {"cells": [[CUBE] if i == 4 else [] for i in range(9)]}


def _camera(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "device.cli", "camera", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The same rendered position four times: a scene that settles."""
    from vision.render.frame import render_scene

    image, _ = render_scene(GAME, POSITION, 3)
    out = tmp_path_factory.mktemp("frames")
    for i in range(4):
        cv2.imwrite(str(out / f"frame{i}.png"), image)
    return out


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "curve"])
def test_a_settled_scene_is_written_and_published_and_sigterm_stops_cleanly(
        folder, tmp_path, encrypted):
    sockets = ipc_dir()
    address = f"ipc://{sockets}/obs"
    jsonl = tmp_path / "obs.jsonl"
    curve_args, client = [], None
    if encrypted:
        camera_public, camera_secret = write_keypair(tmp_path / "keys", "camera")
        referee_public, referee_secret = write_keypair(tmp_path / "keys", "referee")
        (tmp_path / "allowed").mkdir()
        shutil.copy(referee_public, tmp_path / "allowed")
        curve_args = ["--curve-secret", str(camera_secret),
                      "--curve-allowed", str(tmp_path / "allowed")]
        client = CurveClient(referee_secret, camera_public)
    # the subscriber connects before the camera binds: ZeroMQ retries until it is there
    sub = Subscriber([address], ["t1"], heartbeat=FAST, curve=client)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # systemd's side
    notify.bind(f"{sockets}/notify")
    proc = _camera("--source", "folder", "--path", str(folder), "--game", GAME,
                   "--table", "t1", "--jsonl", str(jsonl), "--publish", address,
                   "--settle-s", "0", "--first-seq", "500", *curve_args,
                   env={"NOTIFY_SOCKET": f"{sockets}/notify"})
    try:
        got = None
        deadline = time.monotonic() + 20
        while got is None and time.monotonic() < deadline and proc.poll() is None:
            msg = sub.recv(timeout=0.2)
            if msg is not None and msg.kind == "observation":
                got = msg
        if got is None:
            proc.kill()
            pytest.fail(f"nothing received; camera said: {proc.communicate()[1]}")
        assert got.topic == "t1" and got.body["seq"] == 500 and got.body["stable"] is True
        # the JSONL line: a valid observation of the rendered position
        lines = jsonl.read_text().splitlines()
        assert len(lines) == 1  # one settled scene, read once
        obs = ObservationReader().parse(lines[0])
        assert obs.table == "t1" and obs.seq == 500 and obs.stable
        cells = obs.raw["position"]["cells"]
        assert [len(c) for c in cells] == [0, 0, 0, 0, 1, 0, 0, 0, 0]
        assert cells[4][0]["player"] == 0
        assert got.body == obs.raw
        assert stop_process(proc) == 0
        assert "Traceback" not in proc.stderr.read()
        notify.settimeout(0.5)
        said = []
        with contextlib.suppress(TimeoutError):
            while True:
                said.append(notify.recv(4096).decode())
        # between them maybe STATUS=source ended (the folder's four frames)
        assert said[0].startswith("READY=1\n") and said[-1] == "STOPPING=1", said
    finally:
        notify.close()
        stop_process(proc)
        sub.close()
        shutil.rmtree(sockets, ignore_errors=True)


def test_two_cameras_front_and_back_are_read_together_and_fused(tmp_path):
    """``--second-camera folder``: a frame of each folder per step, the two readings fused
    into one observation with each camera's board corners."""
    from vision.render.script import ScriptedGame

    for seat in ("south", "north"):
        image = ScriptedGame(GAME, [POSITION], seed=3, seat=seat).frame(0).image
        (tmp_path / seat).mkdir()
        for i in range(4):
            cv2.imwrite(str(tmp_path / seat / f"frame{i}.png"), image)
    address = f"ipc://{ipc_dir()}/obs"
    jsonl = tmp_path / "obs.jsonl"
    proc = _camera("--source", "folder", "--path", str(tmp_path / "south"), "--game", GAME,
                   "--second-camera", "folder", "--second-path", str(tmp_path / "north"),
                   "--jsonl", str(jsonl), "--publish", address, "--settle-s", "0")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None and not (
                jsonl.exists() and jsonl.read_text()):
            time.sleep(0.2)
        assert stop_process(proc) == 0
    finally:
        stop_process(proc)
    err = proc.stderr.read()
    assert "the folder source and the folder source (north)" in err and "Traceback" not in err
    (line,) = jsonl.read_text().splitlines()  # one settled scene of both, read once
    obs = ObservationReader().parse(line).raw
    assert [len(c) for c in obs["position"]["cells"]] == [0, 0, 0, 0, 1, 0, 0, 0, 0]
    assert obs["position"]["cells"][4][0]["player"] == 0
    # each camera's corners: the north camera sees the board elsewhere in its frame
    assert set(obs["board"]) >= {"nw", "ne", "se", "sw"} and obs["board_second"] != obs["board"]


@pytest.mark.parametrize("args, says", [
    (["--source", "folder", "--path", "/nonexistent/frames"], "no such image folder"),
    (["--source", "folder", "--publish", "bogus://x"], "cannot publish on bogus://x"),
    (["--source", "folder", "--curve-secret", "camera.key_secret"], "CURVE needs both"),
    (["--source", "folder", "--game", "chess"], "unknown game 'chess'"),
    (["--source", "folder", "--game", "neunfeld", "--second-camera", "folder"],
     "two cameras are fused for esoloe, esoloe-tictactoe, esoloe-3andc only, not neunfeld"),
    (["--source", "folder", "--second-calibration", "cam2.json"],
     "--second-calibration needs --second-camera SOURCE"),
    (["--source", "folder", "--second-camera", "folder",
      "--second-path", "/nonexistent/back"], "no such image folder"),
])
def test_a_setup_failure_is_one_line_and_exit_status_2(folder, args, says):
    if "--path" not in args:
        args = [*args, "--path", str(folder)]
    proc = _camera("--game", GAME, *args, "--table", "t1")
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 2
    assert err.count("\n") == 1 and says in err and "Traceback" not in err


def test_the_systemd_unit_passes_options_tableref_camera_takes():
    from device.cli import build_parser

    env = dict(line.split("=", 1) for line in (ROOT / "systemd/tableref.env").read_text()
               .splitlines() if line and not line.startswith("#"))
    unit = (ROOT / "systemd/tableref-camera.service").read_text()
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    command = re.sub(r"\$\{?([A-Z_]+)\}?", lambda m: env[m.group(1)], exec_start)
    argv = shlex.split(command.removeprefix("ExecStart="))[1:]
    args = build_parser().parse_args(argv)
    assert args.command == "camera" and args.source == "picamera2"
    assert (args.table, args.game, args.publish) == (
        env["TABLEREF_TABLE"], env["TABLEREF_GAME"], env["TABLEREF_CAMERA_PUBLISH"])


@pytest.mark.parametrize("bad, status", [({1}, 0), (None, 1)], ids=["one", "always"])
def test_a_frame_the_source_fails_to_make_is_one_line_and_skipped_one_that_always_fails_stops(
        caplog, bad, status):
    """A source raising on one frame (the renderer's cv2.error): one warning naming the
    source, the frame and the error, and the service reads on; raising on every frame:
    one error line after ``max_failures`` in a row and exit status 1. No traceback."""
    import threading

    from device.camera_service import options, serve
    from device.sources import register_synthetic
    from tests.device.test_sources import _Flaky

    sockets = ipc_dir()
    stop, ended, fed = threading.Event(), threading.Event(), []
    threading.Thread(target=lambda: ended.wait(20) and stop.set(), daemon=True).start()
    register_synthetic(lambda cfg: _Flaky(4 if bad else 60, bad))
    try:
        rc = serve(options(GAME, source="synthetic", publish=f"ipc://{sockets}/obs"),
                   stop=stop, ended=ended, systemd=False,
                   progress=lambda tracker, obs: fed.append(tracker.frames))
    finally:
        register_synthetic(None)
        stop.set()
        shutil.rmtree(sockets, ignore_errors=True)
    assert rc == status
    assert not any(r.exc_info for r in caplog.records)
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    if bad:
        assert fed == [1, 2, 3] and not errors  # frames 0, 2 and 3
        assert warned == ["synthetic source, frame 1 (error: OpenCV(5.0.0) resize.cpp:4220: "
                          "error: (-215:Assertion failed) inv_scale_x > 0 in function "
                          "'resize'): unreadable frame, skipped"]
    else:
        assert fed == [] and len(warned) == 50
        assert errors == ["synthetic source: 50 unreadable frames in a row (the last: "
                          "synthetic source, frame 49 (error: OpenCV(5.0.0) resize.cpp:4220: "
                          "error: (-215:Assertion failed) inv_scale_x > 0 in function "
                          "'resize')); giving up"]
