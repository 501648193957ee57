"""Game records: written while the game runs, resumed after a crash, exported, imported."""

from __future__ import annotations

import json
import signal
import time

import pytest

from rules.observation import parse_observation
from rules.records import (
    Recorder,
    RecordError,
    export_text,
    import_text,
    list_records,
    read_record,
    write_imported,
)
from rules.referee import Referee
from tests.referee.cli import popen, tableref
from tests.referee.fakegame import games, obs

NAMES = {"player_names": ["Ann", "Bob"]}
GAME = [obs(1, ".....", **NAMES), obs(2, "A...."), obs(3, "A...."), obs(4, "A.B.."),
        obs(5, "A.BB."), obs(6, "A.B.."), obs(7, "AAB..")]


def referee_with(directory, warnings=None):
    rec = Recorder(directory, warn=(warnings.append if warnings is not None else print),
                   games=games)
    return Referee(recorder=rec, resume=rec.resume), rec


def feed(referee, observations):
    return [e for o in observations for e in referee.feed(parse_observation(o, games))]


def test_a_game_is_recorded_with_header_observations_and_events(tmp_path):
    referee, rec = referee_with(tmp_path)
    events = feed(referee, GAME)
    rec.close()
    (record,) = list_records(tmp_path)
    h = record.header
    assert (h["game"], h["table"], h["players"], h["options"], h["resumed"]) == (
        "line", "t1", ["Ann", "Bob"], {"colour": "plain"}, False)
    assert h["date"] == "2025-11-22T10:00:01Z"
    # seq 3 repeats seq 2's position: not judged again, so not recorded
    assert [e["observation"]["seq"] for e in record.entries] == [1, 2, 4, 5, 6, 7]
    assert list(record.events) == events
    assert record.moves == ["@0", "@2", "@1"]
    assert record.result == "win 0 two-in-a-row"


def test_a_new_game_on_the_table_gets_a_new_record(tmp_path):
    referee, rec = referee_with(tmp_path)
    feed(referee, [*GAME, obs(8, "....."), obs(9, "A....")])
    rec.close()
    records = list_records(tmp_path)
    assert [r.result for r in records] == ["win 0 two-in-a-row", "*"]
    assert records[1].moves == ["@0"]


def test_a_restarted_referee_resumes_and_skips_what_it_judged(tmp_path):
    whole = feed(Referee(), [parse_observation(o, games).raw for o in GAME])
    referee, rec = referee_with(tmp_path)
    before = feed(referee, GAME[:5])
    rec.close()  # the referee stops (crash): a new one reads the stream from the start
    referee, rec = referee_with(tmp_path)
    after = feed(referee, GAME)
    rec.close()
    assert before + after == whole
    (record,) = list_records(tmp_path)
    assert record.moves == ["@0", "@2", "@1"]
    assert referee.tables["t1"].player_name(1) == "Bob"


def test_a_torn_last_line_is_dropped_with_a_warning(tmp_path):
    referee, rec = referee_with(tmp_path)
    feed(referee, GAME[:4])
    rec.close()
    (path,) = tmp_path.glob("*.jsonl")
    good = path.read_bytes()
    torn = json.dumps({"observation": GAME[4], "events": []}).encode()[:30]
    path.write_bytes(good + torn)
    warnings = []
    referee, rec = referee_with(tmp_path, warnings)
    events = feed(referee, GAME[4:])
    rec.close()
    assert any("incomplete" in w for w in warnings)
    assert [e["event"] for e in events] == ["violation", "corrected", "move", "win"]
    record = read_record(path, warn=warnings.append)
    assert not record.torn
    assert path.read_bytes().startswith(good)
    assert record.moves == ["@0", "@2", "@1"]


def test_a_new_stream_on_the_table_does_not_resume_an_old_record(tmp_path):
    referee, rec = referee_with(tmp_path)
    feed(referee, GAME[:4])
    rec.close()
    # the camera restarted: seq begins again, at other times
    fresh = [{**obs(1, "....."), "time": 1.9e9}, {**obs(2, "....B"), "time": 1.9e9 + 1}]
    referee, rec = referee_with(tmp_path)
    events = feed(referee, fresh)
    rec.close()
    assert [e["event"] for e in events] == ["violation"]
    assert len(list_records(tmp_path)) == 2


def test_a_damaged_record_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text("not a record\n")
    with pytest.raises(RecordError):
        read_record(path)
    warnings = []
    assert list_records(tmp_path, warn=warnings.append) == []
    assert warnings


def test_export_and_import_round_trip(tmp_path):
    referee, rec = referee_with(tmp_path)
    feed(referee, GAME)
    rec.close()
    (record,) = list_records(tmp_path)
    text = export_text(record)
    assert text.splitlines()[:6] == [
        '[Game "line"]', '[Table "t1"]', '[Date "2025-11-22T10:00:01Z"]',
        '[Players ["Ann", "Bob"]]', '[Options {"colour": "plain"}]',
        '[Result "win 0 two-in-a-row"]']
    assert "1. @0  ; Ann" in text and "2. @2  ; Bob" in text
    assert text.rstrip().endswith("win 0 two-in-a-row")
    imported = import_text(text, games)
    assert [m.notation() for m in imported.board.move_stack] == ["@0", "@2", "@1"]
    out = tmp_path / "imported"
    path = write_imported(imported, out)
    again = read_record(path)
    assert again.moves == record.moves and again.result == record.result
    assert export_text(again) == text
    # an imported record replays through the referee to the same events
    replayed = feed(Referee(), [e["observation"] for e in again.entries])
    assert [e["move"] for e in replayed if e["event"] == "move"] == ["@0", "@2", "@1"]


def test_a_resumed_game_exports_its_start_position(tmp_path):
    referee, rec = referee_with(tmp_path)
    feed(referee, [obs(1, "A.B.."), obs(2, "AAB..")])
    rec.close()
    text = export_text(list_records(tmp_path)[0])
    assert '[Position {"cells": ["A", ".", "B", ".", "."]}]' in text
    assert import_text(text, games).result == "win 0 two-in-a-row"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace("2. @2", "2. @0"), "line 10"),
        (lambda t: t.replace("win 0 two-in-a-row\n", "draw board-full\n"), "reach"),
        (lambda t: t.replace('[Game "line"]\n', ""), "Game"),
        (lambda t: t.replace("2. @2", "2. zz"), "line 10"),
        (lambda t: t.replace('"cells": [".",', '"cells": ["X",'), "position.cells.0"),
        (lambda t: t + "hello\n", "neither"),
    ],
)
def test_import_names_what_is_wrong(change, message):
    text = '\n'.join([
        '[Game "line"]', '[Table "t1"]', '[Date "2025-11-22T10:00:01Z"]',
        '[Players ["Ann", "Bob"]]', '[Options {"colour": "plain"}]',
        '[Result "win 0 two-in-a-row"]', '[Position {"cells": [".", ".", ".", ".", "."]}]',
        "", "1. @0  ; Ann", "2. @2  ; Bob", "3. @1  ; Ann",
        "win 0 two-in-a-row", ""])
    assert import_text(text, games).result == "win 0 two-in-a-row"
    with pytest.raises(RecordError, match=message):
        import_text(change(text), games)


def test_games_command_lists_shows_exports_and_imports(tmp_path):
    referee, rec = referee_with(tmp_path)
    feed(referee, GAME)
    rec.close()
    listing = tableref("games", "--data", tmp_path, "list")
    assert listing.returncode == 0
    ident = listing.stdout.decode().split()[0]
    assert "moves: 3" in listing.stdout.decode()
    shown = tableref("games", "--data", tmp_path, "show", ident)
    assert b"ply 2: Bob plays @2" in shown.stdout
    exported = tableref("games", "--data", tmp_path, "export", ident, "-o", tmp_path / "g.txt")
    assert exported.returncode == 0
    imported = tableref("games", "--data", tmp_path / "in", "import", tmp_path / "g.txt")
    assert imported.returncode == 0, imported.stderr
    assert b"imported 3 moves" in imported.stdout
    missing = tableref("games", "--data", tmp_path, "show", "nothing")
    assert missing.returncode == 1 and b"Traceback" not in missing.stderr


def test_sigkill_mid_game_and_restart_loses_no_move(tmp_path):
    """The referee follows a growing file and records; it is killed and restarted."""
    stream, data = tmp_path / "live.jsonl", tmp_path / "games"
    game = [obs(1, "....."), obs(2, "A...."), obs(3, "A.B.."), obs(4, "A.BB."),
            obs(5, "A.B.."), obs(6, "A.B.A"), obs(7, "A.BBA")]

    def write(items):
        with open(stream, "a") as f:
            for o in items:
                f.write(json.dumps(o) + "\n")

    def wait_for_moves(n):
        deadline = time.time() + 15
        while time.time() < deadline:
            records = list_records(data, warn=lambda m: None)
            if records and len(records[-1].moves) >= n:
                return
            time.sleep(0.1)
        pytest.fail(f"the referee did not record {n} moves")

    write(game[:3])
    first = popen("referee", "--replay", stream, "--follow", "--record", data, "--json")
    wait_for_moves(2)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    write(game[3:6])   # played while the referee was down
    second = popen("referee", "--replay", stream, "--follow", "--record", data, "--json")
    wait_for_moves(3)
    write(game[6:])
    wait_for_moves(4)
    time.sleep(1.0)  # the referee records a move before it prints its events
    second.send_signal(signal.SIGINT)
    out, err = second.communicate(timeout=10)
    assert second.returncode == 0, err
    events = [json.loads(line) for line in out.decode().splitlines()]
    assert [(e["event"], e["seq"]) for e in events] == [
        ("violation", 4), ("corrected", 5), ("move", 6), ("move", 7), ("win", 7)]
    (record,) = list_records(data)
    assert record.moves == ["@0", "@2", "@4", "@3"]
    assert record.result == "win 1 two-in-a-row"
    assert [e["observation"]["seq"] for e in record.entries] == [1, 2, 3, 4, 5, 6, 7]
