"""``tableref referee`` as a process: events on stdout, errors on stderr, exit codes."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.referee.cli import popen, tableref
from tests.referee.fakegame import obs

GAME = [obs(1, "....."), obs(2, "A...."), obs(3, "A.B.."), obs(4, "AAB..")]


def jsonl(items) -> bytes:
    return b"".join(
        (i if isinstance(i, bytes) else json.dumps(i).encode()) + b"\n" for i in items)


def events(stdout: bytes) -> list[dict]:
    return [json.loads(line) for line in stdout.decode().splitlines()]


def test_replay_prints_events_as_jsonl(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_bytes(jsonl(GAME))
    done = tableref("referee", "--replay", path, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert [(e["event"], e["seq"]) for e in events(done.stdout)] == [
        ("move", 2), ("move", 3), ("move", 4), ("win", 4)]
    assert all(e["table"] == "t1" for e in events(done.stdout))


def test_standard_input_and_readable_text():
    names = {"player_names": ["Ann", "Bob"]}
    lines = [obs(1, ".....", **names), obs(2, "A...."), obs(3, "AA..."), obs(4, "A...."),
             obs(5, "A.B.."), obs(6, "AAB..")]
    done = tableref("referee", "--replay", "-", stdin=jsonl(lines))
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert "ply 1: Ann plays @0" in text
    assert "VIOLATION by Ann (not-your-turn)" in text
    assert "corrected" in text
    assert "Ann wins (two-in-a-row)" in text


def test_malformed_lines_are_reported_with_line_and_key_and_skipped(tmp_path):
    lines = [
        GAME[0],
        b'{"schema": "tableref/observation/1", "table": ',   # 2: bad JSON
        {**GAME[1], "game": "chess"},                          # 3: unknown game
        {**GAME[1], "schema": "other/1"},                      # 4: schema
        {k: v for k, v in GAME[1].items() if k != "time"},     # 5: missing key
        b"",                                                   # 6: empty: skipped
        GAME[1],                                               # 7: fine
        {**GAME[2], "seq": 2},                                 # 8: seq not increasing
        obs(9, "A.X.."),                                       # 9: bad cell
        b"\xff\xfe\x00",                                       # 10: not text
        GAME[2], GAME[3],
    ]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(jsonl(lines))
    done = tableref("referee", "--replay", path, "--json")
    assert done.returncode == 1
    err = done.stderr.decode()
    assert "Traceback" not in err
    report = {line.split(":")[0].rsplit(" ", 1)[1]: line for line in err.splitlines()}
    assert sorted(report, key=int) == ["2", "3", "4", "5", "8", "9", "10"]
    assert "JSON" in report["2"]
    for n, key in [("3", "game"), ("4", "schema"), ("5", "time"), ("8", "seq"),
                   ("9", "position.cells.2")]:
        assert f"key {key!r}" in report[n], report[n]
    # the good lines were judged
    assert [e["event"] for e in events(done.stdout)] == ["move", "move", "move", "win"]


@pytest.mark.parametrize("kind", ["missing", "directory", "unreadable"])
def test_input_that_cannot_be_read_exits_2(tmp_path, kind):
    path = tmp_path / "x.jsonl"
    if kind == "directory":
        path.mkdir()
    elif kind == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root reads everything")
        path.write_bytes(jsonl(GAME))
        path.chmod(0)
    done = tableref("referee", "--replay", path, "--json")
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr
    assert b"cannot read" in done.stderr


def test_an_empty_file_is_read_and_judged():
    done = tableref("referee", "--replay", "-", "--json", stdin=b"")
    assert (done.returncode, done.stdout) == (0, b"")


def test_a_last_line_without_newline_is_judged():
    data = jsonl(GAME).rstrip(b"\n")
    done = tableref("referee", "--replay", "-", "--json", stdin=data)
    assert [e["event"] for e in events(done.stdout)][-1] == "win"


def test_follow_reads_a_growing_file_until_interrupted(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_bytes(jsonl(GAME[:2]))
    proc = popen("referee", "--replay", path, "--follow", "--json")
    try:
        time.sleep(1.5)
        with open(path, "ab") as f:
            f.write(jsonl(GAME[2:3]))
            f.write(json.dumps(GAME[3]).encode()[:20])   # half a line for now
            f.flush()
            time.sleep(0.5)
            f.write(json.dumps(GAME[3]).encode()[20:] + b"\n")
        time.sleep(1.5)
    finally:
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 0, stderr
    assert [(e["event"], e["seq"]) for e in events(stdout)] == [
        ("move", 2), ("move", 3), ("move", 4), ("win", 4)]


# valid lines of the test game and of a real one (Neunfeld), to be mutated
VALID = [json.dumps(o).encode() for o in GAME] + (
    Path(__file__).parent / "games" / "neunfeld-example.jsonl").read_bytes().splitlines()[:8]

line_strategy = st.one_of(
    st.binary(max_size=80),
    st.sampled_from(VALID).flatmap(
        lambda b: st.tuples(st.integers(0, len(b)), st.binary(max_size=3)).map(
            lambda t: b[: t[0]] + t[1] + b[t[0]:])
    ),
    st.sampled_from(VALID),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line_strategy, max_size=8))
def test_fuzz_never_a_traceback(lines):
    done = tableref("referee", "--replay", "-", "--json", stdin=b"\n".join(lines))
    assert done.returncode in (0, 1, 2)
    assert b"Traceback" not in done.stderr


def test_a_reader_that_goes_away_is_not_an_error(tmp_path):
    """``tableref referee ... | head -1``: no traceback, no "cannot read"."""
    import subprocess
    import sys

    from tests.referee.cli import REPO

    lines = (Path(__file__).parent / "games" / "neunfeld-example.jsonl").read_text().splitlines()
    # the same game on 400 tables: far more output than a pipe holds
    path = tmp_path / "many.jsonl"
    path.write_text("".join(
        line.replace('"table": "t1"', f'"table": "t{i}"') + "\n"
        for i in range(400) for line in lines))
    proc = subprocess.Popen(
        [sys.executable, "-m", "device.cli", "referee", "--replay", path, "--no-forced-wins"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    assert proc.stdout.readline().startswith(b"ply 1")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert b"Traceback" not in err and b"cannot read" not in err
