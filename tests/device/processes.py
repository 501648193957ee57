"""Stopping the ``tableref`` processes the device tests start."""

from __future__ import annotations

import signal
import subprocess


def stop_process(proc: subprocess.Popen, timeout: float = 10.0) -> int:
    """Stops ``proc`` as systemd does and returns its exit status: SIGTERM (where it is
    still running), then its end awaited ``timeout`` seconds; one that has not ended by
    then is killed (its status then says so: -9). Safe to call again in a ``finally``."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
