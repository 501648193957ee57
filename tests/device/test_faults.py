"""Faults, through real processes and sockets: a referee killed and restarted mid-game
resumes; a restarted camera publishes the current position again and a late subscriber
gets it at once; malformed and unauthenticated messages are refused and logged while the
referee goes on."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

from device.demo import scripted_observations
from device.stream import CurveClient, Publisher, Subscriber, write_keypair
from rules.records import list_records
from tests.device.processes import stop_process
from tests.device.service_helpers import FAST, ipc_dir

ROOT = Path(__file__).resolve().parents[2]
GAME = "esoloe-3andc"


class Proc:
    """A ``tableref`` subprocess with its output in files."""

    def __init__(self, args: list[str], log: Path):
        self.out, self.err = log.with_suffix(".out"), log.with_suffix(".err")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "device.cli", *args], cwd=ROOT,
            stdout=open(self.out, "w"), stderr=open(self.err, "w"))  # noqa: SIM115

    def events(self) -> list[dict]:
        return [json.loads(x) for x in self.out.read_text().splitlines() if x.strip()]

    def stop(self) -> int:
        return stop_process(self.proc)


def pumping(publisher: Publisher, check, timeout: float = 60.0):
    """Pumps ``publisher`` (it answers subscriptions) until ``check()`` is truthy; the
    timeout is generous: a process starting on a loaded 2-core machine takes seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        publisher.pump(timeout=0.02)
        value = check()
        if value:
            return value
    return None


@pytest.fixture
def sockets():
    path = ipc_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _referee(sockets: str, tmp_path: Path, name: str, *extra: str) -> Proc:
    return Proc(["referee", "--listen", f"ipc://{sockets}/obs", "--json", "--table", "demo",
                 "--record", str(tmp_path / "games"), "--heartbeat-ms", "200", *extra],
                tmp_path / name)


def test_a_referee_killed_mid_game_and_restarted_resumes(sockets, tmp_path):
    script = [o for o in scripted_observations(GAME, 3) if o["stable"]]
    camera = Publisher(f"ipc://{sockets}/obs", heartbeat=FAST)
    first = _referee(sockets, tmp_path, "first")
    second = None
    try:
        assert pumping(camera, lambda: camera.subscriptions), first.err.read_text()
        for obs in script[:3]:  # the start and two moves
            camera.publish_observation(obs)
        assert pumping(camera, lambda: len(first.events()) >= 2), first.err.read_text()
        first.proc.kill()  # SIGKILL: no goodbye, the record as it was
        first.proc.wait()
        before = first.events()
        second = _referee(sockets, tmp_path, "second")
        # the new referee gets the current position from the camera's cache at once
        assert pumping(camera, lambda: camera.subscriptions >= 2), second.err.read_text()
        for obs in script[3:]:
            camera.publish_observation(obs)
        assert pumping(camera, lambda: any(e["event"] == "win" for e in second.events())), (
            second.err.read_text())
        after = second.events()
    finally:
        camera.close()
        status = second.stop() if second else None
        first.stop()
    assert status == 0
    assert [e["ply"] for e in before] == [1, 2]
    moves_after = [e for e in after if e["event"] == "move"]
    assert moves_after[0]["ply"] == 3  # resumed, not started again
    kinds = [e["event"] for e in after]
    assert kinds.count("violation") == kinds.count("corrected") == 1
    (record,) = list_records(tmp_path / "games")
    assert len(record.moves) == len(before) + len(moves_after)
    assert record.result.startswith("win")


def _render_folder(tmp_path: Path) -> Path:
    from vision.render.effects import Effects
    from vision.render.frame import RenderOptions, render_scene

    script = [o for o in scripted_observations(GAME, 3) if o["stable"]]
    image, _ = render_scene(GAME, script[2]["position"], 3, options=RenderOptions(
        camera_mode="overhead", effects=Effects.clean()))
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(4):
        cv2.imwrite(str(folder / f"frame{i}.png"), image)
    return folder


def test_a_restarted_camera_publishes_the_position_again_and_a_late_subscriber_gets_it(
        sockets, tmp_path):
    folder = _render_folder(tmp_path)
    address = f"ipc://{sockets}/obs"
    camera_args = ["camera", "--game", GAME, "--table", "t1", "--publish", address,
                   "--source", "folder", "--path", str(folder), "--settle-s", "0"]
    sub = Subscriber([address], ["t1"], heartbeat=FAST)
    cameras = []
    try:
        got = []
        for n in range(2):
            cameras.append(Proc(camera_args, tmp_path / f"camera{n}"))
            deadline = time.monotonic() + 30
            while len(got) <= n and time.monotonic() < deadline:
                msg = sub.recv(0.2)
                if msg is not None and msg.kind == "observation":
                    got.append(msg)
            assert len(got) > n, cameras[-1].err.read_text()
            if n == 0:
                cameras[0].proc.kill()  # the camera dies; systemd starts it again
                cameras[0].proc.wait()
        first, again = got
        assert again.stream != first.stream  # a new publisher ...
        assert again.body["position"] == first.body["position"]  # ... the same position
        assert again.body["seq"] > first.body["seq"]  # seq keeps increasing (the clock)
        late = Subscriber([address], ["t1"], heartbeat=FAST)
        try:
            msg = late.recv(5.0)
            assert msg is not None and msg.resend and msg.body == again.body
        finally:
            late.close()
        assert cameras[1].proc.poll() is None
    finally:
        sub.close()
        statuses = [c.stop() for c in cameras]
    assert statuses[1] == 0


def test_malformed_and_unauthenticated_messages_are_refused_logged_and_it_goes_on(
        sockets, tmp_path):
    keys, allowed = tmp_path / "keys", tmp_path / "allowed"
    allowed.mkdir()
    referee_public, referee_secret = write_keypair(keys, "referee")
    display_public, display_secret = write_keypair(keys, "display")
    _, stranger_secret = write_keypair(keys, "stranger")
    shutil.copy(display_public, allowed)
    script = [o for o in scripted_observations(GAME, 3) if o["stable"]]
    camera = Publisher(f"ipc://{sockets}/obs", heartbeat=FAST)
    referee = _referee(sockets, tmp_path, "referee", "--publish", f"ipc://{sockets}/ev",
                       "--curve-secret", str(referee_secret), "--curve-allowed", str(allowed))
    stranger = display = None
    try:
        assert pumping(camera, lambda: camera.subscriptions), referee.err.read_text()
        camera.publish_observation(script[0])
        camera.sock.send_multipart([b"demo", b"not json", b"{}"])  # a malformed header
        camera.sock.send_multipart([b"demo"])  # one frame only
        camera.publish("demo", "observation", {**script[1], "seq": "two"})  # not the spec
        camera.publish_observation(script[1])  # and the game goes on
        assert pumping(camera, lambda: referee.events()), referee.err.read_text()
        # a display without an allowed key gets nothing; the refusal is logged
        stranger = Subscriber(f"ipc://{sockets}/ev", ["demo"], heartbeat=FAST,
                              curve=CurveClient(stranger_secret, referee_public))
        assert stranger.recv(1.5) is None
        display = Subscriber(f"ipc://{sockets}/ev", ["demo"], heartbeat=FAST,
                             curve=CurveClient(display_secret, referee_public))
        state = display.recv(5.0)
        assert state is not None and state.kind == "state" and state.body["ply"] == 1
        assert referee.proc.poll() is None  # still running
    finally:
        camera.close()
        for s in (stranger, display):
            if s is not None:
                s.close()
        status = referee.stop()
    assert status == 0
    err = referee.err.read_text()
    assert err.count("refused a malformed message") == 2
    assert "refused an observation: key 'seq'" in err
    assert "not an allowed key" in err
    assert [e["event"] for e in referee.events()] == ["move"]
    assert "Traceback" not in err
