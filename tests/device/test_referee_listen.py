"""``tableref referee --listen`` runs the ZeroMQ referee service."""

from __future__ import annotations

import subprocess
import sys
import time

from tests.device.processes import stop_process


def _referee(*args: str) -> subprocess.Popen:
    code = "import sys; from device.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.Popen([sys.executable, "-c", code, "referee", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_listen_starts_the_service_and_stops_cleanly(tmp_path):
    addr = f"ipc://{tmp_path}/obs"
    proc = _referee("--listen", addr, "--bind", "--quiet")
    try:
        time.sleep(1.5)
        assert proc.poll() is None, proc.communicate()
    finally:
        status = stop_process(proc)
    err = proc.stderr.read()
    assert status == 0, err
    assert "Traceback" not in err


def test_replay_and_listen_together_is_a_clear_error():
    proc = _referee("--listen", "ipc:///tmp/x", "--replay", "-")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "not both" in err and "Traceback" not in err
