"""The live page: board diagrams of the six games, the JSON state and the live stream."""

from __future__ import annotations

import http.client
import json
import threading
import time
import xml.etree.ElementTree as ET

import pytest

from device.web import LiveState, WebServer, board_svg, parse_hostport

NS = "{http://www.w3.org/2000/svg}"


def cube(player, up="sakura"):
    return {"player": player, "faces": {"up": up, "down": "blank", "north": "fuji",
                                        "south": "blank", "east": "geisha", "west": "blank"}}


def parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == f"{NS}svg" and root.get("viewBox")
    return root


def of_class(root, cls):
    return [e for e in root.iter() if e.get("class") == cls]


def texts(root):
    return [e.text for e in root.iter(f"{NS}text")]


def test_esoloe_five_stacks():
    pos = {"cells": [[cube(0), cube(1, "fuji")], [], [cube(0, "geisha")], [], [cube(1, None)]]}
    root = parsed(board_svg("esoloe", pos))
    assert len(of_class(root, "cell")) == 5
    cubes = of_class(root, "cube")
    assert [c.get("data-player") for c in cubes] == ["0", "1", "0", "1"]
    assert {"S", "F", "G", "?", "2"} <= set(texts(root))  # faces up; a stack of two


def test_three_by_three_games():
    cells = [[] for _ in range(9)]
    cells[4] = [cube(0), cube(1), cube(0, "geisha")]
    root = parsed(board_svg("esoloe-tictactoe", {"cells": cells}))
    assert len(of_class(root, "cell")) == 9 and len(of_class(root, "cube")) == 3
    colours_only = [[{"player": 1}] if i == 0 else [] for i in range(9)]
    root = parsed(board_svg("esoloe-3andc", {"cells": colours_only}))
    assert len(of_class(root, "cube")) == 1 and "S" not in texts(root)


def test_neunfeld_fields_pawns_and_dice():
    pos = {"pawns": [3, 8], "dice": {"blue": {"top": 7, "holder": 0},
                                     "red": {"top": 5, "holder": 1},
                                     "black": {"top": 6, "holder": None}}}
    root = parsed(board_svg("neunfeld", pos))
    assert len(of_class(root, "field")) == 11  # nine fields and the two starts
    assert [p.get("data-player") for p in of_class(root, "pawn")] == ["0", "1"]
    assert [d.get("data-colour") for d in of_class(root, "die")] == ["blue", "red", "black"]
    assert {"7", "5", "6", "A", "B"} <= set(texts(root))


def test_tyr_dice_on_and_off_the_board():
    pos = {"dice": {"blue": {"top": 5, "cell": [4, 7]}, "red": {"top": 2, "cell": None},
                    "black": {"top": 9, "cell": [1, 1]}}}
    root = parsed(board_svg("tyr", pos))
    dice = {d.get("data-colour"): d for d in of_class(root, "die")}
    assert set(dice) == {"blue", "red", "black"}
    assert float(dice["black"].get("x")) < float(dice["blue"].get("x"))
    assert float(dice["red"].get("x")) > 9 * 34  # beside the board
    assert {"5", "2", "9"} <= set(texts(root))


def test_cubes_grid_with_active_and_inactive_stones():
    grid = [["."] * 10 for _ in range(10)]
    grid[1][1], grid[1][4], grid[9][9] = "W", "b4", "R6"
    pos = {"grid": grid, "players": [
        {"colour": "blue", "seat": "south", "dependency": "red"},
        {"colour": "red", "seat": "north", "dependency": None}]}
    root = parsed(board_svg("cubes", pos))
    stones = {s.get("data-token"): s for s in of_class(root, "stone")}
    assert set(stones) == {"W", "b4", "R6"}
    assert stones["b4"].get("fill-opacity") == "0.35" and stones["R6"].get("fill-opacity") is None
    assert {"1: blue", "2: red"} <= set(texts(root))


def test_unknown_game_and_no_position_do_not_fail():
    assert "no diagram for line" in board_svg("line", {"cells": []})
    assert "no position yet" in board_svg("tyr", None)
    assert "&lt;b&gt;" in board_svg("<b>", {})  # names are escaped


def test_parse_hostport():
    assert parse_hostport("8080") == ("0.0.0.0", 8080)
    assert parse_hostport("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_hostport("[::1]:9000") == ("::1", 9000)
    with pytest.raises(ValueError):
        parse_hostport("localhost:http")


@pytest.fixture
def server():
    live = LiveState()
    web = WebServer(live, "127.0.0.1", 0).start()
    yield web
    web.stop()


def get(web, path):
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=5)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type"), resp.read()
    finally:
        conn.close()


def test_page_state_health_and_404(server):
    status, ctype, body = get(server, "/")
    assert status == 200 and ctype.startswith("text/html") and b"EventSource" in body
    server.live.update("t1", {"table": "t1", "moves": []})
    status, ctype, body = get(server, "/state.json")
    snap = json.loads(body)
    assert status == 200 and snap["version"] == 1 and snap["tables"]["t1"]["moves"] == []
    assert get(server, "/healthz")[0] == 200
    assert get(server, "/../etc/passwd")[0] == 404


def test_server_sent_events_bring_each_change(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/events")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"

    def next_data():
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            line = resp.fp.readline().decode()
            if line.startswith("data: "):
                return json.loads(line[6:])
        raise AssertionError("no event")

    assert next_data()["tables"] == {}
    threading.Timer(0.1, server.live.update, ("t1", {"moves": [{"move": "@0"}]})).start()
    assert next_data()["tables"]["t1"]["moves"] == [{"move": "@0"}]
    conn.close()


def test_the_page_carries_the_current_state_safely(server):
    server.live.update("t1", {"table": "</script><b>bold</b>", "moves": []})
    body = get(server, "/")[2].decode()
    start = body.index('<script id="initial" type="application/json">')
    embedded = body[start:body.index("</script>", start)]
    assert "<\\/script><b>bold<\\/b>" in embedded
    assert json.loads(embedded.split(">", 1)[1])["tables"]["t1"]["table"] == (
        "</script><b>bold</b>")
