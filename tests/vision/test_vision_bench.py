"""The vision bench's row from tallies split over processes (``--jobs``) is the row of
the same frames observed in one."""

import math

from bench.vision_bench import summary


def _tally(found, right, total, exact, finds, peak):
    return {"frames": 2, "found": found, "right": right, "total": total, "exact": exact,
            "errors": 0, "times": {"find": finds, "read": [1.0], "track": []},
            "stages": {"reader": finds}, "peak MiB": peak}


def test_parts_add_up_to_one_row():
    row = summary("tyr", [_tally(2, 150, 162, 1, [10.0, 30.0], 90.0),
                          _tally(1, 70, 162, 0, [20.0], 120.0)])
    assert row["frames"] == 4
    assert row["board found %"] == 75.0
    assert math.isclose(row["element %"], 100 * 220 / 324)
    assert row["exact %"] == 25.0
    assert row["find median ms"] == 20.0  # of all three finds, not a median of medians
    assert row["peak MiB"] == 120.0
    assert row["stages"] == {"reader": 20.0}
    assert math.isnan(row["track median ms"])  # no tracked frame: no time, not zero
