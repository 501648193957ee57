"""The referee's live web page: the board, the last events and the move list, per table.

Standard library only: ``http.server`` in a thread. A player or arbiter opens
``http://<referee>:8080/`` on a phone; the page updates itself live.

    GET /             the page (device/static/index.html)
    GET /state.json   every table's state (below), with ``version``
    GET /events       the same as Server-Sent Events, one ``data:`` line per change
    GET /healthz      "ok"

A table's state (``LiveState.update``) is plain JSON: game, players, whose turn, the
position the referee holds as legal, the moves, the last events (each with its ``text``),
and ``svg``, the board diagram drawn here from the position (``board_svg``) for each of
the six games: e-SOLO-e's five stacks, the 3x3 stacks of its two variants, Neunfeld's
nine fields with pawns and three dice, Tyr's 9x9 board with dice, Cubes' 10x10 grid.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

log = logging.getLogger("tableref.web")

STATIC = Path(__file__).resolve().parent / "static"
MAX_STREAMS = 64  # live pages served at once (each holds a thread)
KEEPALIVE_S = 15.0

# --------------------------------------------------------------------------- drawing

CUBE_FILL = ("#e3c58f", "#6aa84f")  # player 0 natural wood, player 1 green
FACE_LETTER = {"sakura": "S", "fuji": "F", "geisha": "G", "blank": "", None: "?"}
DIE_FILL = {"blue": "#2f6fd6", "red": "#d33a2c", "black": "#222222"}
STONE_FILL = {"B": "#2f6fd6", "R": "#d33a2c", "K": "#222222", "O": "#f08a1c", "W": "#ffffff"}
INK = "#333333"


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{escape(label)}" class="board">'
            + "".join(body) + "</svg>")


def _rect(x, y, w, h, fill, stroke=INK, extra="") -> str:
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" '
            f'stroke="{stroke}" {extra}/>')


def _text(x, y, text, size=14, fill=INK, extra="") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" fill="{fill}" text-anchor="middle" '
            f'dominant-baseline="central" font-family="sans-serif" {extra}>'
            f"{escape(str(text))}</text>")


def _cube(x, y, w, h, cube: Any, faces: bool) -> list[str]:
    """One cube of a stack as a band, coloured by its owner, its up face written."""
    player = cube.get("player") if isinstance(cube, dict) else None
    fill = CUBE_FILL[player] if player in (0, 1) else "#cccccc"
    out = [_rect(x, y, w, h, fill, extra=f'class="cube" data-player="{player}"')]
    if faces and h >= 12:
        up = (cube.get("faces") or {}).get("up") if isinstance(cube, dict) else None
        out.append(_text(x + w / 2, y + h / 2, FACE_LETTER.get(up, "?"), size=min(h * 0.7, 16)))
    return out


def _stack(x, y, w, h, stack: Any, faces: bool, max_band: float) -> list[str]:
    """A cell's stack (w by h), bottom cube at the bottom of the cell, its height written
    in the corner."""
    cubes = stack if isinstance(stack, list) else []
    out = []
    if cubes:
        band = min(max_band, (h - 16) / len(cubes))
        for i, cube in enumerate(cubes):
            out += _cube(x + 6, y + h - 4 - band * (i + 1), w - 12, band, cube, faces)
        if len(cubes) > 1:
            out.append(_text(x + w - 9, y + 9, len(cubes), size=11, extra='class="height"'))
    return out


def _esoloe(pos: dict, game: str) -> str:
    cells = pos.get("cells") or []
    faces = game != "esoloe-3andc"
    if game == "esoloe":
        size, body = 80, []
        for i, stack in enumerate(cells[:5]):
            x = 10 + i * size
            body.append(_rect(x, 10, size, size * 2, "#f7f1e3", extra=f'class="cell" data-i="{i}"'))
            body += _stack(x, 10, size, size * 2, stack, faces, 24)
            body.append(_text(x + size / 2, size * 2 + 24, f"{i + 1}", size=12))
        return _svg(5 * size + 20, size * 2 + 36, body, "e-SOLO-e: five stacks, west to east")
    size, body = 90, []
    for i, stack in enumerate(cells[:9]):
        x, y = 10 + (i % 3) * size, 10 + (i // 3) * size
        body.append(_rect(x, y, size, size, "#f7f1e3", extra=f'class="cell" data-i="{i}"'))
        body += _stack(x, y, size, size, stack, faces, 20)
    return _svg(3 * size + 20, 3 * size + 20, body, f"{game}: 3 by 3 stacks, north at the top")


def _die(x, y, s, colour: str, top: Any) -> list[str]:
    fill = DIE_FILL.get(colour, "#888888")
    return [_rect(x, y, s, s, fill, extra=f'rx="{s // 6}" class="die" data-colour="{colour}"'),
            _text(x + s / 2, y + s / 2, "?" if top is None else top, size=s * 0.55, fill="#fff")]


def _neunfeld(pos: dict) -> str:
    size, body = 44, []
    pawns = pos.get("pawns") or [None, None]
    for f in range(11):  # 0 and 10 are the players' start areas, off the board
        x = 10 + f * size
        fill = "#f7f1e3" if 1 <= f <= 9 else "#dddddd"
        body.append(_rect(x, 10, size, size, fill, extra=f'class="field" data-f="{f}"'))
        body.append(_text(x + size / 2, size + 22, f if 1 <= f <= 9 else "start", size=11))
    for player, (field, mark, fill) in enumerate(zip(
            pawns, ("A", "B"), ("#f3e0b5", "#5b4636"), strict=False)):
        if not isinstance(field, int):
            continue
        cx = 10 + field * size + size / 2 + (-7 if player == 0 else 7) * (pawns[0] == pawns[1])
        body.append(f'<circle cx="{cx}" cy="{10 + size / 2}" r="{size * 0.3}" fill="{fill}" '
                    f'stroke="{INK}" class="pawn" data-player="{player}"/>')
        body.append(_text(cx, 10 + size / 2, mark, size=14,
                          fill="#fff" if player else INK))
    dice = pos.get("dice") or {}
    slots = {0: 0, None: 1, 1: 2}  # in front of A, not yet held, in front of B
    used = [0, 0, 0]
    for colour in ("blue", "red", "black"):
        die = dice.get(colour) or {}
        holder = die.get("holder")
        slot = slots.get(holder, 1)
        x = 10 + slot * 4 * size + used[slot] * 46 + (size if slot == 1 else 0)
        used[slot] += 1
        body += _die(x, size + 40, 40, colour, die.get("top"))
    body.append(_text(60, size * 2 + 52, "A's dice", size=11))
    body.append(_text(10 + 9 * size, size * 2 + 52, "B's dice", size=11))
    return _svg(11 * size + 20, size * 2 + 64, body,
                "Neunfeld: fields 1 to 9, pawn A from the left, pawn B from the right")


def _tyr(pos: dict) -> str:
    size, body = 34, []
    for r in range(9):
        for c in range(9):
            body.append(_rect(10 + c * size, 10 + r * size, size, size,
                              "#f7f1e3" if (r + c) % 2 else "#ece3cc"))
    off = 0
    for colour in ("blue", "red", "black"):
        die = (pos.get("dice") or {}).get(colour) or {}
        cell = die.get("cell")
        if isinstance(cell, list) and len(cell) == 2 and all(isinstance(v, int) for v in cell):
            x, y = 10 + (cell[1] - 1) * size + 3, 10 + (cell[0] - 1) * size + 3
        else:  # not yet on the board: beside it
            x, y = 10 + 9 * size + 14, 10 + off * (size + 8)
            off += 1
        body += _die(x, y, size - 6, colour, die.get("top"))
    return _svg(9 * size + 20 + size + 14, 9 * size + 20, body,
                "Tyr: 9 by 9 board, row 1 at the top, column 1 at the left")


def _cubes(pos: dict) -> str:
    size, margin, body = 32, 26, []
    grid = pos.get("grid") or []
    for r, row in enumerate(grid[:10]):
        for c, token in enumerate((row or [])[:10]):
            x, y = margin + c * size, margin + r * size
            body.append(_rect(x, y, size, size, "#f7f1e3"))
            if not isinstance(token, str) or token in (".", ""):
                continue
            letter, digit = token[0], token[1:]
            active = letter.isupper()
            fill = STONE_FILL.get(letter.upper(), "#999999")
            style = "" if active else 'fill-opacity="0.35" stroke-dasharray="3 2"'
            body.append(_rect(x + 3, y + 3, size - 6, size - 6, fill,
                              extra=f'rx="4" class="stone" data-token="{escape(token)}" {style}'))
            dark = letter.upper() in ("B", "R", "K") and active
            body.append(_text(x + size / 2, y + size / 2, digit, size=15,
                              fill="#fff" if dark else INK))
    end = margin + 10 * size
    mid = end / 2 + margin / 2
    where = {"north": (mid, 13, 0), "south": (mid, end + 13, 0),  # x, y, text rotation
             "west": (13, mid, -90), "east": (end + 13, mid, 90)}
    for i, player in enumerate(pos.get("players") or []):
        if isinstance(player, dict) and player.get("seat") in where:
            x, y, turn = where[player["seat"]]
            body.append(_text(x, y, f"{i + 1}: {player.get('colour', '?')}", size=11,
                              extra=f'transform="rotate({turn} {x} {y})"' if turn else ""))
    return _svg(end + margin, end + margin, body, "Cubes: 10 by 10 grid, north at the top")


def board_svg(game: str, position: dict[str, Any] | None) -> str:
    """The board diagram of a position (the observation's ``position`` object) as SVG."""
    if not isinstance(position, dict):
        return _svg(300, 40, [_text(150, 20, "no position yet")], "no position")
    if game in ("esoloe", "esoloe-tictactoe", "esoloe-3andc"):
        return _esoloe(position, game)
    if game == "neunfeld":
        return _neunfeld(position)
    if game == "tyr":
        return _tyr(position)
    if game == "cubes":
        return _cubes(position)
    return _svg(300, 40, [_text(150, 20, f"no diagram for {game}")], str(game))


# --------------------------------------------------------------------------- state


class LiveState:
    """The tables' states, shared between the referee loop and the page's threads."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, Any]] = {}
        self.version = 0
        self._cond = threading.Condition()
        self.closing = False

    def update(self, table: str, state: dict[str, Any]) -> None:
        with self._cond:
            self.tables[table] = state
            self.version += 1
            self._cond.notify_all()

    def snapshot(self) -> dict[str, Any]:
        with self._cond:
            return {"version": self.version, "time": time.time(),
                    "tables": dict(self.tables)}

    def wait(self, version: int, timeout: float) -> bool:
        """True when the state is newer than ``version`` (waits up to ``timeout``)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self.version != version or self.closing, timeout) and not self.closing

    def close(self) -> None:
        with self._cond:
            self.closing = True
            self._cond.notify_all()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug("%s " + fmt, self.address_string(), *args)

    def _send(self, status: int, ctype: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            # the current state goes into the page, so that it shows before any update;
            # "</" is escaped so that no text in it can end the script element
            state = json.dumps(self.server.live.snapshot(), ensure_ascii=False)
            page = self.server.page.replace(
                b"__STATE__", state.replace("</", "<\\/").encode("utf-8"), 1)
            self._send(200, "text/html; charset=utf-8", page)
        elif path == "/state.json":
            body = json.dumps(self.server.live.snapshot(), ensure_ascii=False).encode()
            self._send(200, "application/json; charset=utf-8", body)
        elif path == "/events":
            self._stream()
        elif path == "/healthz":
            self._send(200, "text/plain; charset=utf-8", b"ok\n")
        else:
            self._send(404, "text/plain; charset=utf-8", b"not found\n")

    def _stream(self) -> None:
        if not self.server.streams.acquire(blocking=False):
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
                       b"too many live pages; reload later\n")
            return
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            live, version = self.server.live, -1
            while not live.closing:
                if version != live.version or live.wait(version, KEEPALIVE_S):
                    snap = live.snapshot()
                    version = snap["version"]
                    data = json.dumps(snap, ensure_ascii=False)
                    self.wfile.write(f"id: {version}\ndata: {data}\n\n".encode())
                elif not live.closing:
                    self.wfile.write(b": keepalive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the page was closed
        finally:
            self.server.streams.release()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, live: LiveState, page: bytes):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.live = live
        self.page = page
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)


class WebServer:
    """Serves the page for ``live`` on ``host:port`` (port 0: any free port) in a thread."""

    def __init__(self, live: LiveState, host: str = "127.0.0.1", port: int = 8080):
        self.live = live
        page = (STATIC / "index.html").read_bytes()
        self.httpd = _Server((host, port), live, page)
        self.host, self.port = self.httpd.server_address[:2]
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.2}, name="web", daemon=True)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> WebServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.live.close()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(2.0)


def parse_hostport(text: str, default_host: str = "0.0.0.0") -> tuple[str, int]:
    """``8080``, ``:8080``, ``0.0.0.0:8080`` or ``[::1]:8080`` -> (host, port)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or default_host
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r} is not HOST:PORT")
    return host, int(port)
