"""A referee service running in a thread, fed by a camera publisher of the test."""

from __future__ import annotations

import io
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager

from device.referee_service import ServiceConfig, serve
from device.stream import Heartbeat, Publisher
from tests.referee.fakegame import games

FAST = Heartbeat(100, 400, 400)


class Running:
    def __init__(self, camera: Publisher, service, out: io.StringIO):
        self.camera, self.service, self.out = camera, service, out

    def send(self, observation: dict) -> None:
        self.camera.publish_observation(observation)

    def wait_for(self, check, timeout: float = 5.0):
        """Pumps the camera until ``check()`` is truthy; returns its value (or None)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.camera.pump()
            value = check()
            if value:
                return value
            time.sleep(0.02)
        return None


def ipc_dir() -> str:
    """A short folder for ipc:// sockets (a socket path holds at most 107 bytes, less
    than pytest's tmp_path may take)."""
    return tempfile.mkdtemp(prefix="tr-", dir="/tmp")


@contextmanager
def running_service(sockets: str, camera_curve=None, **overrides):
    camera = Publisher(f"ipc://{sockets}/obs", heartbeat=FAST, curve=camera_curve)
    config = ServiceConfig(listen=[f"ipc://{sockets}/obs"], publish=f"ipc://{sockets}/ev",
                           web="127.0.0.1:0", heartbeat_ms=100, **overrides)
    out, stop, ready = io.StringIO(), threading.Event(), threading.Event()
    box = {}

    def on_ready(service):
        box["service"] = service
        ready.set()

    thread = threading.Thread(target=lambda: box.setdefault("rc", serve(
        config, stop=stop, games=games, out=out, ready=on_ready)), daemon=True)
    thread.start()
    try:
        assert ready.wait(5.0), f"the service did not start: {box}"
        run = Running(camera, box["service"], out)
        # the service subscribes asynchronously: what is sent before it is connected is
        # lost (only the cached last value would reach it)
        assert run.wait_for(lambda: camera.pump() or camera.subscriptions, timeout=10), (
            f"no subscriber: camera {camera.monitor.events}, service {run.service.sub.peers}, "
            f"thread alive {thread.is_alive()}, {box}, out {out.getvalue()!r}")
        yield run
    finally:
        stop.set()
        thread.join(5.0)
        camera.close()
        shutil.rmtree(sockets, ignore_errors=True)
    assert not thread.is_alive() and box.get("rc") == 0
