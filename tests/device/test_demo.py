"""The README's main command: a scripted game through the referee, recorded."""

from __future__ import annotations

import pytest

from device.cli import main
from device.demo import scripted_observations
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


def test_demo_command_announces_and_records(tmp_path, capsys):
    assert main(["demo", "--record", str(tmp_path), "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "VIOLATION by" in out and "corrected" in out and "GAME OVER" in out
    (record,) = list_records(tmp_path)
    assert record.result.startswith("win")
    assert "[Game \"esoloe\"]" in out
