"""vision.read_neunfeld on overhead renders (the reader on the true board corners)."""

import pytest

from tests.vision.reader_check import assert_sweep, check, read_render


@pytest.mark.parametrize("seed", [100, 101, 106])
def test_neunfeld_reading_parses_and_is_right_where_sure(seed):
    check("neunfeld", seed)


def test_neunfeld_pawns_and_holders_are_read():
    reading, position = read_render("neunfeld", 100)
    assert reading.position["pawns"] == position["pawns"]
    assert {c: d["holder"] for c, d in reading.position["dice"].items()} == {
        c: d["holder"] for c, d in position["dice"].items()}


def _read_oblique(seed: int):
    return _read(seed, "oblique")


def _read(seed: int, camera: str):
    from vision.measure import elements

    reading, position = _reading(seed, camera)
    return elements("neunfeld", reading.position), elements("neunfeld", position)


def _reading(seed: int, camera: str):
    import importlib

    from vision.board import geometry
    from vision.measure import truth_fix
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    position = random_position("neunfeld", seed)
    image, truth = render_scene("neunfeld", position, seed,
                                options=RenderOptions(camera_mode=camera))
    reader = importlib.import_module("vision.read_neunfeld")
    return reader.read(image, truth_fix(truth), geometry("neunfeld"), None), position


@pytest.mark.parametrize("seed", [101, 105])
def test_neunfeld_oblique_samples_are_read_exactly(seed):
    # 30-60 degrees from vertical: the dice's side faces lie beside their tops
    have, want = _read_oblique(seed)
    assert have == want


@pytest.mark.parametrize("seed", [172, 211])
def test_pawns_seen_obliquely_are_not_named_by_their_look_against_the_empty_field(seed):
    # 56..57 degrees, both pawns on the board: the planes above it show the light table
    # behind them, A's side in its own shade darker than that; so named, A was read on an
    # empty field (172: 9 for 5; 211: 8 for 2, and B on A's field)
    have, want = _read(seed, "any")
    assert [have["pawns.0"], have["pawns.1"]] == [want["pawns.0"], want["pawns.1"]]


def test_from_above_a_pawns_look_against_the_empty_field_still_counts():
    # overhead, both pawns at their starts and a dark shade on field 1: without the look
    # (A lighter than the leather), A was read on field 1 (and the roll's holders with it)
    have, want = _read(260, "any")
    assert want["pawns.0"] == 0 and have["pawns.0"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("camera,element,exact", [("overhead", 97.0, 85.0),
                                                  ("oblique", 90.0, 55.0)])
def test_neunfeld_reader_sweep(camera, element, exact):
    # the levels measured in session 4 (docs/history/vision.md) less a margin
    assert_sweep("neunfeld", camera, element, exact)


def test_pawns_at_their_starts_are_not_read_on_the_end_fields():
    # seed 226: both pawns beside the board, the light falling off along the strip (the
    # end fields departed most from the nine fields' median: read as 1 and 9 before)
    reading, position = read_render("neunfeld", 226)
    assert position["pawns"] == [0, 10]
    assert reading.position["pawns"] == [0, 10]


@pytest.mark.parametrize("seed", [214, 260])
def test_a_light_pawn_at_its_start_on_a_wooden_table_is_read_there(seed):
    # its top is the table's colour; the 4 mm disc at the start read it at field 4 or 5
    # (0.52, 0.68), the wider disc sees its rim and foot. Sure until b07447b's renderer
    # (the painted lines in place), since then 0.88 (an end field departs 15..25 Lab from
    # the look fitted along the strip): its place is still the reading, by a clear lead
    reading, position = read_render("neunfeld", seed)
    assert position["pawns"] == [0, 10]
    assert reading.position["pawns"] == [0, 10]
    assert all(u["confidence"] >= 0.85 for u in reading.uncertain
               if u["path"].startswith("pawns"))


def test_a_fields_empty_look_follows_the_light_along_the_strip():
    import numpy as np

    from vision.read_neunfeld import _empty_look

    ramp = np.arange(9, dtype=np.float32)[:, None, None, None] * np.array([6.0, 1.0, -2.0])
    crops = np.broadcast_to(100 + ramp, (9, 4, 4, 3)).copy()
    crops[2] += 60.0  # two pawns
    crops[7] -= 50.0
    empty = _empty_look(crops, np.ones(9, bool))
    far = np.abs(crops - empty).max(axis=(1, 2, 3))
    assert np.allclose(np.delete(far, [2, 7]), 0.0, atol=1e-3)
    assert far[2] > 50 and far[7] > 40


def _dice(v: float, missing: str | None = None):
    from vision.read_miwin import Die

    return {c: None if c == missing else Die(c, u, v, 0.95)
            for c, u in (("blue", -30.0), ("red", 0.0), ("black", 30.0))}


def test_three_dice_on_one_side_are_the_roll_without_a_five_and_taken_with_one():
    # halfway between the roll's and the taker's distance from the board: the tops decide
    from vision.board import geometry
    from vision.read_neunfeld import OPENING_MM, _holders

    geom = geometry("neunfeld")
    found = _dice(-(geom.depth / 2 + OPENING_MM))
    no_five = {"blue": (1, 0.97, [[5, 0.01]]), "red": (3, 0.96, [[5, 0.02]]),
               "black": (2, 0.99, [])}
    held = _holders(found, no_five, [0, 10], geom)
    assert {h for h, _, _ in held.values()} == {None}
    assert all(conf > 0.9 for _, conf, _ in held.values())
    five = dict(no_five, red=(5, 0.97, [[4, 0.02]]))
    held = _holders(found, five, [0, 10], geom)
    assert {h for h, _, _ in held.values()} == {0}
    assert all(alts == [[None, round(1 - conf, 4)]] for _, conf, alts in held.values())


def test_a_die_not_seen_is_placed_before_the_player_holding_one_with_the_rest_as_alternatives():
    from vision.board import geometry
    from vision.read_neunfeld import _holders

    geom = geometry("neunfeld")
    found = _dice(-45.0, missing="red")
    found["black"] = found["black"].__class__("black", 30.0, 45.0, 0.95)
    held = _holders(found, {}, [3, 7], geom)
    assert held["blue"][0] == 0 and held["black"][0] == 1
    holder, conf, alts = held["red"]
    assert conf <= 0.5 and {holder, *(a[0] for a in alts)} == {0, 1, None}


def _lean(pose) -> float:
    """Degrees between the camera's axis and the board's normal."""
    import numpy as np

    return float(np.degrees(np.arccos(min(1.0, -pose.R[2, 2]))))


@pytest.mark.parametrize("camera,seed,shift", [("overhead", 106, 1.5), ("oblique", 101, 1.5),
                                               ("oblique", 105, 0.0)])
def test_the_pose_leans_the_camera_as_it_leans_though_the_corners_are_a_little_off(
        camera, seed, shift):
    # the strip's south corners found ``shift`` px towards its north edge (as the board
    # finder does): the best fit to the corners leans an overhead camera 18 degrees;
    # the reader's pose stays with the camera (0..6 degrees overhead, 30..60 oblique)
    import numpy as np

    from vision.board import BoardFix, geometry
    from vision.grid import board_pose
    from vision.measure import truth_fix
    from vision.read_neunfeld import pose
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    image, truth = render_scene("neunfeld", random_position("neunfeld", seed), seed,
                                options=RenderOptions(camera_mode=camera))
    corners = truth_fix(truth).corners.copy()
    north = (corners[0] - corners[3]) / np.linalg.norm(corners[0] - corners[3])
    corners[2:] += shift * north
    fix, geom = BoardFix(corners, corners), geometry("neunfeld")
    want = truth["camera"]["tilt_deg"]
    if camera == "overhead":
        assert _lean(board_pose(fix, geom, (1280, 720))) > want + 10  # the ill fit
        assert abs(_lean(pose(fix, geom, image, None)) - want) < 6
    else:
        assert abs(_lean(pose(fix, geom, image, None)) - want) < 2


def test_the_pose_keeps_the_camera_upright_where_the_corners_fit_one_turned_over():
    # dev 173 (camera any, 48 degrees from the south), the corners as vision.board's
    # find_board gave them, 4..8 px off: the best fit to them put the camera across the
    # board, upside down (every die's holder and both pawns read wrong); the upright pose
    # fits them nearly as well
    import numpy as np

    from vision.board import BoardFix, geometry
    from vision.measure import truth_fix
    from vision.read_neunfeld import pose
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    image, truth = render_scene("neunfeld", random_position("neunfeld", 173), 173,
                                options=RenderOptions(camera_mode="any"))
    corners = np.array([[441.72, 335.04], [874.24, 405.59], [858.51, 434.58],
                        [432.54, 361.75]])
    geom = geometry("neunfeld")
    got = pose(BoardFix(corners, corners), geom, image, None)
    true = pose(truth_fix(truth), geom, image, None)
    assert abs(_lean(got) - truth["camera"]["tilt_deg"]) < 6
    centre, want = -got.R.T @ got.t, -true.R.T @ true.t
    assert want[1] < -200 and centre[1] < -200  # south of the board, as it stands


@pytest.mark.parametrize("seed,corners", [
    (117, [[470.73, 311.84], [775.85, 379.16], [760.51, 399.92], [461.07, 331.54]]),
    (111, [[437.83, 447.97], [882.28, 278.03], [901.8, 312.68], [462.95, 487.83]])])
def test_the_pose_finds_the_upright_camera_where_the_best_fit_is_turned_over(seed, corners):
    # dev 117 and 111 (camera any, 51 and 45 degrees from the south), the corners as
    # find_board gave them (1.5..10 px off): the best fit to them puts the camera across
    # the board, upside down, and the square-on start reached a camera straight above
    # (0.6 and 1.7 degrees: every plane above the board a few mm off, 117's blue top and
    # both of 111's pawns read wrong); IPPE's other pose starts the upright fit
    import numpy as np

    from vision.board import BoardFix, geometry
    from vision.read_neunfeld import pose
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    image, truth = render_scene("neunfeld", random_position("neunfeld", seed), seed,
                                options=RenderOptions(camera_mode="any"))
    corners = np.array(corners)
    got = pose(BoardFix(corners, corners), geometry("neunfeld"), image, None)
    assert abs(_lean(got) - truth["camera"]["tilt_deg"]) < 10
    assert (-got.R.T @ got.t)[1] < -200  # south of the board, as it stands


def test_a_pawn_in_doubt_lists_the_likeliest_other_places_without_claiming_all_the_doubt():
    import math

    from vision.read_neunfeld import ALT_SCALE, _elsewhere

    # (score, A's place, B's place), best first; -1 a start. A at field 3 (index 2) best,
    # then A at 4, A at 5, A at its start a little behind
    ranked = [(2.0, 2, 8), (1.9, 3, 8), (1.85, 4, 8), (1.8, -1, 8), (0.0, 5, 8)]
    places = _elsewhere(ranked, 0, 2)
    assert [p for p, _ in places] == [3, 4]
    shares = [s for _, s in places]
    assert shares[0] > shares[1] > 0 and sum(shares) < 0.9  # the start keeps its share
    assert shares[0] / shares[1] == pytest.approx(math.exp(0.05 / ALT_SCALE))
    # one other place far ahead of the rest takes nearly all the doubt
    assert _elsewhere([(2.0, 2, 8), (1.9, 3, 8), (0.0, 4, 8)], 0, 2)[0][1] > 0.99


def test_a_die_not_seen_shows_any_of_its_faces_at_a_sixth_each():
    """The observation spec has no null top for Neunfeld (a reading with one was refused
    as malformed by the referee)."""
    from rules.miwin import BY_COLOUR
    from vision.read_neunfeld import _unseen_top

    top, conf, alts = _unseen_top("red")
    assert [top, *(a[0] for a in alts)] == list(BY_COLOUR["red"].faces)
    assert conf == pytest.approx(1 / 6, abs=1e-4) and all(
        p == pytest.approx(1 / 6, abs=1e-4) for _, p in alts)


def test_a_top_read_against_its_centre_pip_is_in_doubt():
    # any camera, 41 degrees: the black die's 8, cut 7.6 mm off its centre onto a pip, is
    # read 6 by models/pips.onnx (at 0.67 by the 23 Nov file); the crop's centre shows a pip
    # (read_miwin.centre_pips 0.75), which no even face has, so the top is listed
    # uncertain, the true face among its alternatives (seeds 250 and 281, which this test
    # took before, read right since their tops are no longer cut on the board's stitched
    # edge: the test below). Read where find_dice placed it (read_miwin.dice_tops without
    # the camera: with it the top is read again on crops moved towards it, and right, the
    # next test)
    from vision.board import geometry
    from vision.measure import truth_fix
    from vision.read_miwin import dice_tops
    from vision.read_neunfeld import _dice
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    position = random_position("neunfeld", 169)
    image, truth = render_scene("neunfeld", position, 169,
                                options=RenderOptions(camera_mode="any"))
    _, H, _, found = _dice(image, truth_fix(truth), geometry("neunfeld"), None)
    [(top, conf, alternatives)] = dice_tops(image, H, [found["black"]])
    assert top != position["dice"]["black"]["top"] and conf <= 0.5
    assert position["dice"]["black"]["top"] in [a[0] for a in alternatives]


@pytest.mark.parametrize("seed", [163, 169, 195])
def test_a_black_top_placed_off_towards_the_boards_edge_is_read_on_crops_moved(seed):
    # any camera, 33..45 degrees, the black die before the board: its top was placed 5..12
    # mm away from the camera, towards the board's dark edge, its crop cut off the top's
    # near half (163 and 195: a 2 read 3, 169: an 8 read 6, none sure); read again on
    # crops moved along the line to the camera's foot (read_miwin.dice_tops, MOVED_MM), one
    # reads it surely, and right
    reading, position = _reading(seed, "any")
    assert reading.position["dice"]["black"]["top"] == position["dice"]["black"]["top"]
    assert all(u["path"] != "dice.black.top" for u in reading.uncertain)


@pytest.mark.parametrize("seed", [172, 281, 296])
def test_a_black_die_beside_the_boards_stitched_edge_is_read_on_its_top(seed):
    # any camera, 32..57 degrees, the black die just beside the board: the stitched edge's
    # light thread showed in the pip mask, so its top was placed 9..15 mm onto the edge
    # and read 6 (172: a 4, sure; 281: a 3, in doubt; 296: a 7, sure); a thread longer
    # than a die's top and thin is no pip (read_miwin._no_lines)
    have, want = _read(seed, "any")
    assert have["dice.black.top"] == want["dice.black.top"]


def test_no_dies_top_is_placed_on_the_board_where_it_would_hide_a_pawn():
    # any camera, 5 degrees, a checked cloth: the black die (a lit grey top) was not seen
    # and its top was fitted, then pulled by the pips' centroid, onto A's light pawn on
    # field 9, inside the board where no top lies (``no_dice``); the fields behind that
    # "die" counted as hidden, so A was read at its start, sure
    have, want = _read(179, "any")
    assert have["pawns.0"] == want["pawns.0"] == 9


@pytest.mark.parametrize("seed", [469, 2042, 2170])
def test_a_black_die_is_not_picked_by_the_boards_light_spots_beside_a_pawn(seed):
    # any camera, 34..49 degrees: the black die was found 55..90 mm off, at the board's near
    # edge beside a pawn (its dark foot, the board's dark side face), picked by the light
    # spots of the leather's grain and the field dots there (2042: a 7 read 6 and its
    # holder wrong; 2170: a 2 read 6, sure; 469: a 4 read 6); light spots where no top
    # lies (``no_dice``) are no black die's pips
    have, want = _read(seed, "any")
    assert have["dice.black.top"] == want["dice.black.top"]
    assert have["dice.black.holder"] == want["dice.black.holder"]


@pytest.mark.parametrize("seed", [218, 236])
def test_a_black_die_seen_at_a_slant_is_read_on_its_top_not_its_side_face(seed):
    # any camera, 49 and 44 degrees: the black die's side face towards the camera is as
    # black as its top and shows pips too; the top's square was fitted onto it (218: a 2
    # read 6 at 0.75, 236: an 8 read 3 at 0.76). The whole die's outline (read_miwin.
    # _die_kernel) leaves the top outside it there
    have, want = _read(seed, "any")
    assert have["dice.black.top"] == want["dice.black.top"]


def test_a_black_top_is_not_fitted_on_a_side_face_darker_than_itself():
    # any camera, 46 degrees: the black die's top was placed 21 mm towards the camera, on
    # its side face (as black, showing pips), and read 7 for a 3, sure; that face is darker
    # than the top above it (read_miwin.LIGHT_CAP: a fit there loses by how much)
    have, want = _read(289, "any")
    assert have["dice.black.top"] == want["dice.black.top"]


def test_a_black_top_is_not_fitted_onto_the_pips_of_a_die_beside_it():
    # dev 2638 (any camera, 5 degrees): a black 2 beside a red 9 on a paper table; its
    # top was fitted and its pips' centroid pulled 19 mm onto the red die's pips, read 6
    # in doubt (read_miwin.APART: no top on a die found before it, nor fitted or centred
    # by its pips)
    have, want = _read(2638, "any")
    assert have["dice.black.top"] == want["dice.black.top"]


def test_a_dark_blue_die_blacker_than_blue_on_a_grey_table_is_found():
    # dev 299 (any camera, 4 degrees): a navy die on a grey table scores black 35 over
    # blue 22, so blue was not sought there and the die was not found (its holder guessed,
    # its top any face); the black die elsewhere scores 109 (read_miwin.BLACK_ELSEWHERE)
    have, want = _read(299, "any")
    assert have["dice.blue.holder"] == want["dice.blue.holder"]
    assert have["dice.blue.top"] == want["dice.blue.top"]


@pytest.mark.parametrize("seed, pawn", [(123, "pawns.0"), (141, "pawns.1")])
def test_a_die_before_a_field_hides_only_the_heights_it_covers(seed, pawn):
    # any camera, 54 and 59 degrees: a die on the table before fields 4 (123) and 4 and 5
    # (141) covered the pawns' discs at the body's height, so those fields were hidden at
    # every height and a pawn placed there at 0.5 (123: A on 4 for 2, whose shaded foot
    # matches the leather; 141: B on 5 for 4, both fields hidden, its head showing above
    # the die)
    have, want = _read(seed, "any")
    assert have[pawn] == want[pawn]


@pytest.mark.parametrize("seed", [1897, 1904])
def test_a_pawns_field_is_judged_on_its_foot_and_body_not_its_head(seed):
    # any camera, A's light pawn on field 9 (1897) and 7 (1904): on the head's plane,
    # 21.5 mm up, its field departed 9.7 and 9.5 from the empty look (under PAWN_DEV), its
    # neighbour's 23.5 (1904): with the smallest departure over the three heights A was
    # read on 5 and on 3
    have, want = _read(seed, "any")
    assert [have["pawns.0"], have["pawns.1"]] == [want["pawns.0"], want["pawns.1"]]
