"""systemd's notify protocol with the standard library: READY=1, WATCHDOG=1, STATUS=...

A service of ``Type=notify`` tells systemd it is ready, and with ``WatchdogSec=`` that it
is alive, by datagrams on the socket named in ``$NOTIFY_SOCKET`` (a path, or ``@name``
for the abstract namespace). Outside systemd there is no such socket and every call is a
no-op returning False.
"""

from __future__ import annotations

import os
import socket
import time


def notify(*lines: str) -> bool:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STATUS=...`` lines; False when not under
    systemd (or the socket refused it)."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            # never block the service's loop on a notify socket nobody reads
            sock.sendto("\n".join(lines).encode("utf-8"), socket.MSG_DONTWAIT, address)
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """Seconds between WATCHDOG=1 pings asked by systemd (half of WatchdogSec), or None."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2e6


class Watchdog:
    """Pings systemd's watchdog at most once per interval; call ``tick()`` from the loop
    that must stay alive (if the loop hangs, the pings stop and systemd restarts us)."""

    def __init__(self) -> None:
        self.interval = watchdog_interval()
        self._last = 0.0

    def tick(self) -> None:
        if self.interval is None:
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            notify("WATCHDOG=1")
