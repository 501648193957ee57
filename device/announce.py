"""Referee events as sentences for a terminal (and later for speech)."""

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
