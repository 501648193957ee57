"""``tableref demo``: the scripted game, the comparison with it, and the whole pipeline."""

from __future__ import annotations

import json
import re

import pytest

from device.cli import main
from device.demo import compare, scripted_observations, scripted_positions
from rules import GAME_IDS
from rules.observation import ObservationReader
from rules.records import list_records
from rules.referee import Referee


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_scripted_game_gives_one_move_per_ply_and_an_end(game_id):
    observations = scripted_observations(game_id, seed=3)
    referee = Referee()
    reader = ObservationReader()
    events = [e for o in observations for e in referee.feed(reader.parse(o))]
    kinds = [e["event"] for e in events]
    table = referee.tables["demo"]
    assert kinds.count("move") == table.ply > 0
    assert kinds.count("violation") == kinds.count("corrected") <= 1
    if "violation" in kinds:  # the illegal change is put back at once
        assert kinds[kinds.index("violation") + 1] == "corrected"
    assert kinds[-1] in ("win", "draw") or table.ply == 200
    positions = scripted_positions(game_id, 3, 200)
    assert all(a != b for a, b in zip(positions, positions[1:], strict=False))


def _event(kind: str, **extra) -> dict:
    return {"event": kind, "table": "demo", "seq": 0, **extra}


def test_compare_finds_missed_and_false_events_and_ignores_unclear():
    script = [_event("move", move="0:a1"), _event("violation", rule="r"),
              _event("corrected"), _event("move", move="1:b1"),
              _event("win", winners=[1], condition="line")]
    seen = [_event("move", move="0:a1"), _event("unclear"), _event("move", move="1:b1"),
            _event("move", move="0:c3"), _event("win", winners=[1], condition="line")]
    matched, missed, false, late = compare(script, seen)
    assert [e.get("move") for e in matched] == ["0:a1", "1:b1", None]
    assert [e["event"] for e in missed] == ["violation", "corrected"]
    assert false == [seen[3]] and late == []
    assert compare(script, script) == (script, [], [], [])
    # a move named in part (the faces the camera did not see left open) is the scripted one
    partial = [_event("move", move="0:a1:S/?"), _event("move", move="1:b1:?")]
    full = [_event("move", move="0:a1:S/fN"), _event("move", move="1:b1:G/sE")]
    assert compare(full, partial) == (partial, [], [], [])
    assert compare(full, [_event("move", move="0:a1:G/?")])[2]  # a wrong up face is false


def test_moves_announced_in_one_event_are_each_a_scripted_move():
    script = [_event("move", move="0:a1", ply=1, player=0), _event("forced-win"),
              _event("move", move="1:b1", ply=2, player=1),
              _event("move", move="0:c1", ply=3, player=0)]
    both = _event("move", move="0:a1; 1:b1", ply=1, player=0, moves=["0:a1", "1:b1"])
    matched, missed, false, late = compare(script, [both, script[3]])
    assert [e["move"] for e in matched] == ["0:a1", "1:b1", "0:c1"]
    assert [e["event"] for e in missed] == ["forced-win"] and not false and not late
    # the same two in the wrong order are not the script's
    swapped = dict(both, moves=["1:b1", "0:a1"])
    assert compare(script, [swapped])[2]


def test_a_move_unclear_at_first_and_announced_after_the_violation_is_late_not_false():
    # the first move's reading unclear; the illegal change judged from the position
    # before it; the position put back is that move: announced then, late
    move = _event("move", move="0:a1", ply=1, player=0)
    script = [move, _event("violation", rule="r"), _event("corrected"),
              _event("move", move="1:b1", ply=2, player=1)]
    seen = [_event("unclear"), _event("violation", rule="r"), move, script[3]]
    matched, missed, false, late = compare(script, seen)
    assert late == [move] and false == []
    assert [e["event"] for e in matched] == ["violation", "move"]
    assert [e["event"] for e in missed] == ["corrected"]
    # the same move announced again, or another player's, is false
    twice = compare(script, [move, _event("violation", rule="r"), move])
    assert twice[2] == [move] and twice[3] == []
    other = dict(move, player=1)
    assert compare(script, [_event("violation", rule="r"), other])[2] == [other]


def test_demo_runs_the_pipeline_announces_and_records(tmp_path, capsys):
    """Renderer -> tracker -> vision -> ZeroMQ -> referee -> page and record (~10 s)."""
    assert main(["demo", "--record", str(tmp_path), "--plies", "5"]) == 0
    out = capsys.readouterr().out
    assert "Live page: http://127.0.0.1:" in out
    assert "scene settled, vision read it" in out
    assert " 0 false events" in out
    announced = re.search(r"The script's \d+ events: (\d+) announced as scripted", out)
    assert announced and int(announced[1]) >= 2, out  # the default game's moves are seen
    (record,) = list_records(tmp_path)
    assert "[Game \"esoloe\"]" in out and f"written to {record.path}" in out


def test_the_demo_games_are_checked_in_process_and_judged_again_on_saved_readings(
        tmp_path, capsys):
    """``python -m device.demo GAME SEEDS``: the demo's frames read without sockets, judged
    and compared; with ``--saved`` the readings are kept and judged again without vision."""
    from device.demo import main as check_main

    args = ["esoloe-3andc", "3", "--plies", "2", "--saved", str(tmp_path)]
    assert check_main(args) == 0
    first = capsys.readouterr().out
    assert "esoloe-3andc seed 3: script " in first and "false 0" in first
    assert len(list(tmp_path.glob("esoloe-3andc-3-2-overhead.jsonl"))) == 1
    assert check_main(args) == 0
    assert capsys.readouterr().out == first
    with pytest.raises(SystemExit) as err:
        check_main(["esoloe-3andc", "three"])
    assert err.value.code == 2 and "not FIRST-LAST" in capsys.readouterr().err
    with pytest.raises(SystemExit) as err:
        check_main(["cubes", "10", "--second-camera", "oblique"])
    assert err.value.code == 2 and "fused for" in capsys.readouterr().err
    assert main(["demo", "--game", "tyr", "--second-camera", "overhead"]) == 2
    assert "two cameras are fused for" in capsys.readouterr().err


def test_the_demo_reads_two_cameras_in_process(tmp_path, capsys):
    """``--second-camera VIEW``: the same scripted game drawn from a camera facing the
    first, both read and fused; the readings kept apart from one camera's."""
    from device.demo import main as check_main

    assert check_main(["esoloe-3andc", "3", "--plies", "1", "--view", "oblique",
                       "--second-camera", "oblique", "--saved", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "esoloe-3andc seed 3: script " in out and "false 0" in out
    (kept,) = tmp_path.glob("*.jsonl")
    assert kept.name == "esoloe-3andc-3-1-oblique+back-oblique.jsonl"
    readings = [json.loads(line) for line in kept.read_text().splitlines()]
    assert readings and all("board_second" in obs for obs, _ in readings)
