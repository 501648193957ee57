"""Referee events for people: sentences for a terminal, speech, and the web page.

``announce`` is the one-line text of an event (the terminal, the web page's event list);
``spoken`` the sentence said aloud by ``Speaker`` (espeak-ng, where installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def player_label(index: Any, names: Sequence[str] | None) -> str:
    if not isinstance(index, int):
        return "someone"
    if names and 0 <= index < len(names):
        return names[index]
    return f"player {index}"


def announce(event: dict[str, Any], game: Any = None) -> str:
    """One line for an event. ``game`` (a ``TableGame`` or None) gives player names."""
    names = getattr(game, "player_names", None)
    kind, seq = event.get("event"), event.get("seq")

    def who(i: Any) -> str:
        return player_label(i, names)

    if kind == "move":
        return f"ply {event['ply']}: {who(event['player'])} plays {event['move']}"
    if kind == "violation":
        return (f"VIOLATION by {who(event['player'])} ({event['rule']}): {event['message']}"
                f" Put the table back.")
    if kind == "corrected":
        return "corrected: the table is back at the last legal position."
    if kind == "win":
        winners = [who(i) for i in event["winners"]]
        verb = "wins" if len(winners) == 1 else "win"
        return f"GAME OVER: {' and '.join(winners)} {verb} ({event['condition']})."
    if kind == "draw":
        return f"GAME OVER: draw ({event['reason']})."
    if kind == "unclear":
        return f"unclear (observation {seq}): {event['message']}"
    if kind == "forced-win":
        return (f"{who(event['player'])} can force a win: {' '.join(event['line'])}")
    return f"{kind}: {event}"


# --------------------------------------------------------------------------- speech


def spoken(event: dict[str, Any], names: Sequence[str] | None = None) -> str | None:
    """What to say aloud for an event, or None for events that are not spoken.

    Short sentences without rule ids; a move's notation is read with its punctuation
    as pauses. ``unclear`` is not spoken (the camera retries by itself), nor is
    ``forced-win`` (it would tell the players how to win).
    """
    kind = event.get("event")

    def who(i: Any) -> str:
        return player_label(i, names)

    if kind == "move":
        notation = str(event.get("move", "")).replace(":", " ").replace("-", " ")
        return f"{who(event.get('player'))}: {notation.replace(';', ',')}."
    if kind == "violation":
        return f"{who(event.get('player'))}, that is not allowed. {event.get('message', '')}"
    if kind == "corrected":
        return "Corrected. Play on."
    if kind == "win":
        winners = [who(i) for i in event.get("winners") or []]
        verb = "wins" if len(winners) == 1 else "win"
        return f"Game over. {' and '.join(winners) or 'Nobody'} {verb}."
    if kind == "draw":
        return "Game over. It is a draw."
    return None


class Speaker:
    """Says sentences with espeak-ng in the background, one after the other.

    Where espeak-ng is not installed, ``available`` is False and the first ``say`` logs
    one line saying so. The queue holds at most ``backlog`` sentences; older ones are
    dropped when the table moves faster than speech.
    """

    def __init__(self, voice: str = "en", speed: int = 150, backlog: int = 5,
                 program: str = "espeak-ng", extra_args: Sequence[str] = ()):
        import logging
        import queue
        import shutil
        import threading

        self.log = logging.getLogger("tableref.announce")
        self.command = shutil.which(program)
        self.args = ["-v", voice, "-s", str(speed), *extra_args]
        self.available = self.command is not None
        self._warned = False
        self._queue: queue.Queue[str | None] = queue.Queue(maxsize=backlog)
        self._thread = None
        if self.available:
            self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
            self._thread.start()

    def say(self, text: str) -> None:
        import contextlib
        import queue

        if not self.available:
            if not self._warned:
                self._warned = True
                self.log.warning("espeak-ng is not installed: announcements are not spoken "
                                 "(sudo apt install espeak-ng)")
            return
        while True:
            try:
                self._queue.put_nowait(text)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()  # drop the oldest

    def _run(self) -> None:
        import subprocess

        while (text := self._queue.get()) is not None:
            try:
                subprocess.run([self.command, *self.args, "--", text], timeout=30,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
            except (OSError, subprocess.SubprocessError) as err:
                self.log.warning("espeak-ng failed: %s", err)

    def close(self, timeout: float = 5.0) -> None:
        """Lets the sentences already queued be said (up to ``timeout``), then stops."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None
