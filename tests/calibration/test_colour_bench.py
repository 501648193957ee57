"""bench.calibration_bench's light and colour rows: a table's colour file measured on
another frame of it, and the truth's cubes counted."""

import numpy as np

from bench import calibration_bench as cb
from calibration import colour, registration
from vision.render.positions import random_position

GAME, SEED = "esoloe-tictactoe", 102  # a dev table with four cubes


def test_the_table_s_colour_file_undoes_the_cold_light():
    image, truth, base, cal = cb._colour_table(GAME, SEED, cb.COLOUR_LIGHTS["cold light"])
    green, natural = cal.pieces["player 1"]["lab"], cal.pieces["player 0"]["lab"]
    assert green[1] < natural[1] - 5  # the stain below the wood on the green-red axis
    reg = registration.register_manual(base["board"], GAME, (1280, 720))
    white = np.median(colour.board_reference([cal.apply(image)], reg), axis=0)
    # the test frame's board top, through the other frame's file: grey at the target
    assert np.ptp(white) < 12 and abs(white.mean() - colour.TARGET_LEVEL) < 20


def test_a_row_counts_the_truth_s_cubes():
    (row,) = cb.colour_rows(range(SEED, SEED + 1), (GAME,), ("as drawn",))
    cubes = sum(len(stack) for stack in random_position(GAME, SEED)["cells"])
    assert row["n"] == cubes == 4
    assert row["before"].endswith(f"/{cubes}") and row["after"].endswith(f"/{cubes}")
