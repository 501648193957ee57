"""``python -m bench.tracker_pushes``: the board tracker's corners after each push in the
demo's scripted games (a short Cubes demo, 4 plies: about 5 s)."""

from __future__ import annotations

import math

import pytest

import device.tracker
import vision.track
from bench.tracker_pushes import main, summary


def test_the_short_cubes_demo_is_tracked_within_a_pixel_and_a_half_after_its_pushes(capsys):
    feed, update = device.tracker.Tracker.feed, vision.track.BoardTracker.update
    assert main(["cubes", "20", "--plies", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # the wrappers are taken off again
    assert (device.tracker.Tracker.feed, vision.track.BoardTracker.update) == (feed, update)
    head = lines.index("| seed | reads | pushed | err median px | err max px | over 1.5 px "
                       "| readings | used over 1.5 px |")
    [row] = [line for line in lines[head + 2:] if line.startswith("|")]
    seed, reads, pushed, median, worst, over, readings, used = (
        cell.strip() for cell in row.split("|")[1:-1])
    assert seed == "20"
    assert 0 < int(pushed) < int(reads)
    assert 0 < float(median) <= float(worst) <= 1.5
    assert over == "0"
    assert 0 < int(readings) <= int(reads) and used == "0"


def test_the_summary_counts_only_pushed_reads_and_those_off():
    reads = [{"status": "found", "err": 9.0, "moved": 0.0, "used": 9.0},  # not a push
             {"status": "still", "err": 0.4, "moved": 0.1, "used": 0.4},
             {"status": "found", "err": 1.0, "moved": 5.0, "used": 1.0},
             {"status": "hidden", "err": 4.0, "moved": 4.5, "used": 1.2},
             {"status": "lost", "err": math.inf, "moved": 30.0}]
    row = summary("all", reads)
    assert row["reads"] == 5 and row["pushed"] == 3
    assert row["err median px"] == 4.0 and row["err max px"] == math.inf
    assert row["over 1.5 px"] == 2
    assert row["readings"] == 4 and row["used over 1.5 px"] == 1


@pytest.mark.parametrize("argv, message", [
    (["chess", "1"], "unknown game 'chess'"),
    (["cubes", "20-x"], "seeds '20-x': not FIRST-LAST"),
    (["cubes", "22-20"], "seeds '22-20': not FIRST-LAST"),
    (["cubes", "20", "--plies", "0"], "--plies 0: must be at least 1"),
])
def test_bad_arguments_give_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
