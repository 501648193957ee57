"""``tableref run``: camera and referee in one process, over a real ZeroMQ socket."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rules.records import list_records
from tests.device.processes import stop_process

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "device.cli", "run", *args], cwd=ROOT,
                            stdout=open(tmp_path / "out", "w"),  # noqa: SIM115
                            stderr=open(tmp_path / "err", "w"))  # noqa: SIM115


def test_run_judges_the_synthetic_camera_serves_the_page_records_and_stops(tmp_path):
    proc = _run("--game", "esoloe-3andc", "--table", "t7", "--plies", "2", "--fps", "4",
                "--settle-s", "1", "--observations", "tcp://127.0.0.1:*", "--json",
                "--web", "127.0.0.1:0", "--record", str(tmp_path / "games"),
                "--players", "Ann,Bob", tmp_path=tmp_path)
    err, out = tmp_path / "err", tmp_path / "out"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and (
                "the source ended" not in err.read_text()):
            time.sleep(0.2)
        time.sleep(1.0)
        assert proc.poll() is None, err.read_text()
        url = re.search(r"live page at (http://\S+)", err.read_text())[1]
        state = json.load(urllib.request.urlopen(url + "state.json", timeout=5))
        assert stop_process(proc, 15) == 0
    finally:
        stop_process(proc)
    # the wiring, whatever vision makes of each frame: observations published by the
    # camera thread reached the referee over ZeroMQ, which judged, showed and recorded them
    # (the readings' accuracy is test_demo's and test_end_to_end's matter)
    published = re.findall(r"table t7: observation seq (\d+)", err.read_text())
    assert published, err.read_text()
    table = state["tables"]["t7"]
    assert table["seen"] is not None and table["game"] == "esoloe-3andc"
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(e["table"] == "t7" and str(e["seq"]) in published for e in events)
    moves = [e for e in events if e["event"] == "move"]
    if moves:  # the page's move list ends with the announced moves
        assert [m["move"] for m in table["moves"]][-len(moves):] == [m["move"] for m in moves]
    if table["ply"]:  # a game was followed: the names came with the observations, recorded
        assert table["players"] == ["Ann", "Bob"]
        (record,) = list_records(tmp_path / "games")
        assert len(record.moves) == table["ply"]
    assert "Traceback" not in err.read_text()


def test_a_setup_failure_is_one_line_and_status_2(tmp_path):
    proc = _run("--game", "esoloe-3andc", "--observations", "bogus://x", tmp_path=tmp_path)
    assert proc.wait(30) == 2
    err = (tmp_path / "err").read_text().strip().splitlines()
    assert len(err) == 1 and "cannot publish on bogus://x" in err[0]
    proc = _run("--game", "esoloe-3andc", "--curve-secret", "k", tmp_path=tmp_path)
    assert proc.wait(30) == 2
    assert "CURVE needs both" in (tmp_path / "err").read_text()
    proc = _run("--game", "tyr", "--second-camera", "synthetic", tmp_path=tmp_path)
    assert proc.wait(30) == 2
    err = (tmp_path / "err").read_text().strip().splitlines()
    assert len(err) == 1 and "two cameras are fused for" in err[0] and "not tyr" in err[0]


def test_the_systemd_unit_passes_options_tableref_run_takes():
    import shlex

    from device.cli import build_parser

    env = dict(line.split("=", 1) for line in (ROOT / "systemd/tableref.env").read_text()
               .splitlines() if line and not line.startswith("#"))
    unit = (ROOT / "systemd/tableref-table.service").read_text()
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    command = re.sub(r"\$\{?([A-Z_]+)\}?", lambda m: env[m.group(1)], exec_start)
    command = command.replace("%S", "/var/lib")
    args = build_parser().parse_args(shlex.split(command.removeprefix("ExecStart="))[1:])
    assert args.command == "run" and args.source == "picamera2"
    assert (args.table, args.game, args.observations, args.publish, args.web) == (
        env["TABLEREF_TABLE"], env["TABLEREF_GAME"], env["TABLEREF_CAMERA_PUBLISH"],
        env["TABLEREF_PUBLISH"], env["TABLEREF_WEB"])
    assert args.record == "/var/lib/tableref/games"
