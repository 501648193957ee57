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


def test_a_black_stone_under_the_warm_dim_lamp_is_read_black_by_its_measured_colour():
    """Dev Cubes table 100 under the warm dim lamp: the black stone K2 on field 0,1,
    balanced on the paper, looks blue to the fixed hue rule; the four stones measured
    on the table's other frame (``COLOUR_STONES``, on their corners round the disc) name
    it black. Without the measured stones the reader is the fixed rule's."""
    import cv2

    from calibration.files import colour_entries
    from vision import piece_colours, read_cubes
    from vision.board import BoardFix, geometry

    image, truth, base, cal = cb._colour_table("cubes", 100, cb.COLOUR_LIGHTS["warm lamp, dim"])
    assert truth["position"]["grid"][0][1] == "K2"
    seen = cal.apply(image)
    fix = BoardFix(base["board"], base["board"])
    H0, H6, _ = read_cubes.planes(seen, fix, geometry("cubes"), base)
    grey = cv2.cvtColor(seen, cv2.COLOR_BGR2GRAY)
    fixed = read_cubes._fields(seen, grey, H0, H6)["colour"]
    stones = piece_colours.measured(colour_entries(cal), "cubes")
    measured = read_cubes._fields(seen, grey, H0, H6, stones)["colour"]
    assert fixed[1] == "blue" and measured[1] == "black"
    # the other stones keep their colours
    letters = {v: k for k, v in read_cubes.LETTERS.items()}
    for i, token in enumerate(t for row in truth["position"]["grid"] for t in row):
        if len(token) == 2:
            assert measured[i] == letters[token[0]], (i, token)


def test_a_cubes_row_counts_the_truth_s_stones():
    (row,) = cb.colour_rows(range(101, 102), ("cubes",), ("cold light",))
    grid = random_position("cubes", 101)["grid"]
    stones = sum(len(t) == 2 for r in grid for t in r)
    assert row["n"] == stones > 0 and row["after"].endswith(f"/{stones}")


def test_a_tyr_row_counts_the_truth_s_elements():
    from vision.measure import elements

    (row,) = cb.colour_rows(range(112, 113), ("tyr",), ("warm lamp, dim",))
    n = len(elements("tyr", random_position("tyr", 112)))
    assert row["n"] == n and row["before"].endswith(f"/{n}") and row["after"].endswith(f"/{n}")
