"""vision.read_cubes on renders, on the render's true board corners (the reader alone).

Dev seeds only (the vision bench's 7_000_000 and up are never used here)."""

import time
from functools import lru_cache

import cv2
import numpy as np
import pytest

import vision.classifier
import vision.read_cubes as read_cubes
from rules.registry import get_game
from tests.vision.reader_check import check, parses, read_render
from vision.board import BoardFix, geometry
from vision.measure import elements, truth_fix
from vision.render.frame import RenderOptions, render_scene
from vision.render.positions import random_position

GEOM = geometry("cubes")


@lru_cache(maxsize=8)
def _render(seed: int, camera: str, table: str | None = None):
    position = random_position("cubes", seed)
    image, truth = render_scene("cubes", position, seed,
                                options=RenderOptions(camera_mode=camera, table=table))
    return image, truth


def _read(seed: int, camera: str, table: str | None = None):
    image, truth = _render(seed, camera, table)
    return read_cubes.read(image, truth_fix(truth), GEOM, None), truth["position"]


def _needs_model():
    if vision.classifier.shared("stone") is None:
        pytest.skip("models/stone.onnx is missing")


@pytest.mark.parametrize("seed", [101, 103])
def test_cubes_reading_is_right_where_sure(seed):
    reading, _ = read_render("cubes", seed)
    check("cubes", seed, parses=parses("cubes", reading.position))


@pytest.mark.parametrize("seed, camera, table", [(211, "oblique", "paper"),
                                                 (224, "oblique", "cloth")])
def test_at_a_slant_every_field_is_right_or_uncertain(seed, camera, table):
    """Seen at 30-60 degrees, a white stone's top lies off its field on the board plane:
    white stones, empty fields and coloured stones are still told apart, and what is
    wrong is listed uncertain with the truth among its alternatives."""
    _needs_model()
    reading, position = _read(seed, camera, table)
    get_game("cubes").position_from_json(reading.position)
    want, have = elements("cubes", position), elements("cubes", reading.position)
    uncertain = {u["path"]: u for u in reading.uncertain}
    wrong = [k for k in want if k.startswith("grid") and have[k] != want[k]]
    assert len(wrong) <= 2, wrong
    for k in wrong:
        alternatives = [a[0] for a in uncertain[k].get("alternatives", [])]
        assert want[k] in alternatives, (k, want[k], uncertain[k])
    # the white stones: all but one right
    whites = [k for k, v in want.items() if v == "W"]
    assert sum(have[k] == "W" for k in whites) >= len(whites) - 1


@pytest.mark.parametrize("camera, table", [("oblique", "paper"), ("oblique", "cloth"),
                                           ("overhead", "wood")])
def test_dependency_cards_are_read_on_light_and_dark_tables(camera, table):
    """A white card with a coloured disc on a paper-white, a cloth or a wooden table."""
    seed = {"paper": 211, "cloth": 224, "wood": 103}[table]
    reading, position = _read(seed, camera, table)
    want = {p["seat"]: p["dependency"] for p in position["players"]}
    got = {p["seat"]: p["dependency"] for p in reading.position["players"]}
    assert got == want


def test_uncertain_fields_name_other_readings():
    """Every uncertain field offers the other token(s) it may be, each a valid token."""
    _needs_model()
    reading, _ = _read(224, "oblique", "cloth")
    for u in reading.uncertain:
        if not u["path"].startswith("grid"):
            continue
        assert u["confidence"] < 0.9
        assert u.get("alternatives"), u
        for token, p in u["alternatives"]:
            assert token in (".", "W") or (token[0].upper() in "BRKO" and token[1] in "23456")
            assert 0.0 <= p <= 1.0


def test_without_the_stone_model_no_digit_is_guessed(monkeypatch):
    monkeypatch.setitem(vision.classifier._SHARED, "stone", None)
    reading, position = _read(101, "overhead")
    unknown = {u["path"]: u for u in reading.uncertain if u["confidence"] == 0.0}
    for r, row in enumerate(reading.position["grid"]):
        for c, token in enumerate(row):
            assert token is None or token in (".", "W")
            if token is None:  # the digit is left open, the five digits its alternatives
                alts = unknown[f"grid.{r}.{c}"]["alternatives"]
                assert sorted(a[0][1] for a in alts) == list("23456")
    truth_stones = sum(t not in (".", "W") for row in position["grid"] for t in row)
    assert sum(t is None for row in reading.position["grid"] for t in row) >= truth_stones - 1


def test_with_the_stone_model_the_tokens_are_read():
    _needs_model()
    reading, position = _read(101, "overhead")
    assert reading.position["grid"] == position["grid"]
    assert parses("cubes", reading.position)


def _colour_unseen(monkeypatch):
    """The classical look sees no colour on any field (the model's colour alone)."""
    fields = read_cubes._fields

    def colourless(*args):
        out = fields(*args)
        out["colour"] = [None] * 100
        return out

    monkeypatch.setattr(read_cubes, "_fields", colourless)


def test_a_stone_whose_colour_is_not_seen_is_not_sure(monkeypatch):
    """When the classical look finds no colour on an uneven top, the model's colour is
    taken at most at UNSEEN_COLOUR, with the empty field as an alternative."""
    _needs_model()
    image, truth = _render(101, "overhead")
    _colour_unseen(monkeypatch)
    reading = read_cubes.read(image, truth_fix(truth), GEOM, None)
    uncertain = {u["path"]: u for u in reading.uncertain}
    grid = truth["position"]["grid"]
    coloured = [(r, c) for r in range(10) for c in range(10) if grid[r][c] not in ".W"]
    read_coloured = [(r, c) for r, c in coloured
                     if reading.position["grid"][r][c] not in (".", "W")]
    assert len(read_coloured) >= len(coloured) - 1
    for r, c in read_coloured:
        u = uncertain[f"grid.{r}.{c}"]
        assert u["confidence"] <= read_cubes.UNSEEN_COLOUR
        assert "." in [a[0] for a in u["alternatives"]]


@pytest.mark.slow
@pytest.mark.parametrize("camera, start, bar", [("overhead", 400, 98.8),
                                                ("oblique", 400, 98.3),
                                                ("any", 500, 98.3)])
def test_accuracy_sweep_on_dev_renders(camera, start, bar):
    """20 dev renders a camera mode (not those the occupancy model was fitted on):
    element accuracy at least ``bar`` % (a little under what the reader measured on
    seeds 600-639: overhead 99.6, oblique 99.1, any 99.3; most errors are digits of
    blurred or far stones, read with low confidence), and under one confident (>= 0.9)
    wrong element a frame."""
    right = total = confident_wrong = 0
    for seed in range(start, start + 20):
        reading, position = _read(seed, camera)
        want, have = elements("cubes", position), elements("cubes", reading.position)
        sure = {u["path"] for u in reading.uncertain}
        for i, p in enumerate(reading.position["players"]):
            if f"players.{i}.dependency" in sure:
                sure.add(f"dependency.{p['seat']}")
        for k, v in want.items():
            total += 1
            right += have.get(k) == v
            confident_wrong += have.get(k) != v and k not in sure
    assert 100 * right / total >= bar
    assert confident_wrong < 20


@pytest.mark.slow
def test_a_full_board_is_read_in_under_60_ms_of_cpu():
    """30 white and 20 coloured stones; CPU time of the process with OpenCV on one
    thread (onnxruntime runs on the calling thread), the median of 10 reads: 28-34 ms
    pinned to one core of this 2-core VM at a load of 16 (shared by seven helpers); the
    bound guards against a slide back to the earlier 100+ ms."""
    _needs_model()
    rng = np.random.default_rng(5)
    tokens = ["W"] * 30 + [c + d for c in "BRKO" for d in "23456"]
    grid = [["."] * 10 for _ in range(10)]
    for token, i in zip(tokens, rng.permutation(100)[:50], strict=False):
        grid[i // 10][i % 10] = token
    position = {"grid": grid, "players": [{"colour": "blue", "seat": "south"},
                                          {"colour": "red", "seat": "north"}]}
    image, truth = render_scene("cubes", position, 5, options=RenderOptions(
        camera_mode="oblique"))
    fix = truth_fix(truth)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one core: OpenCV's own pool would add its threads' time
    try:
        read_cubes.read(image, fix, GEOM, None)
        times = []
        for _ in range(10):
            t = time.process_time()
            read_cubes.read(image, fix, GEOM, None)
            times.append(time.process_time() - t)
    finally:
        cv2.setNumThreads(threads)
    assert 1000 * float(np.median(times)) < 60.0


def _kind(**probabilities):
    top = tuple(sorted(probabilities.items(), key=lambda kv: -kv[1]))
    return vision.classifier.Prediction(top[0][0], top[0][1], top)


def test_the_stone_model_and_the_classical_test_decide_a_doubted_field_together():
    decide = read_cubes._white_or_empty
    # agreeing: surer than either (the reading caps it at SECOND_CAP, the count of white
    # stones orders by it)
    assert decide(_kind(white=0.995, empty=0.004), 0.8, False) > 0.996
    assert decide(_kind(empty=0.98, white=0.01), 0.2, False) < 0.01
    # a model sure of white on a field the test all but calls empty (white paper): white,
    # short of the cap, and from above in doubt
    sure_white = _kind(white=0.95, empty=0.02)
    assert 0.5 < decide(sure_white, 0.04, False) < read_cubes.SECOND_CAP
    assert 0.4 < decide(sure_white, 0.04, True) < 0.7
    # an unsure model moves the test's reading towards its own, not past it
    assert 0.3 < decide(_kind(white=0.6, empty=0.39), 0.3, False) < 0.6
    assert decide(_kind(blue=0.7, white=0.2, empty=0.1), 0.3, False) is None
    # from above, where the model calls empty fields amid white stones white, a field
    # the test leans to empty and the model to white reads empty
    likely_white = _kind(white=0.8, empty=0.2)
    assert decide(likely_white, 0.3, True) < 0.5 < decide(likely_white, 0.3, False)


def test_doubted_white_or_empty_fields_are_read_right_and_surely_by_the_model_too():
    """Overhead, white on white paper: where the classical test doubts, the reading now
    says what lies there at the model's confidence (dev seeds 100..105: 7 such fields).
    One is read wrong and sure: dev 105's grid.1.9, an empty field under the lamp between
    the shadows of the stones north and west of it, which the test (0.81) and the model
    (white 0.98) both take for a stone."""
    _needs_model()
    decided = wrong = 0
    for seed in range(100, 106):
        reading, _ = _read(seed, "overhead")
        image, truth = _render(seed, "overhead")
        fields = read_cubes._fields(image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                                    *read_cubes.planes(image, truth_fix(truth), GEOM, None)[:2])
        unsure = {u["path"] for u in reading.uncertain}
        for i in range(100):
            r, c = divmod(i, 10)
            doubted = (fields["colour"][i] is None
                       and read_cubes.DOUBT[0] <= fields["white"][i] < read_cubes.DOUBT[1])
            if doubted and f"grid.{r}.{c}" not in unsure:
                decided += 1
                wrong += reading.position["grid"][r][c] != truth["position"]["grid"][r][c]
    assert decided >= 3
    assert wrong <= 1


def _demo_frame(corners_off: float):
    """A frame as the Cubes demo sees it (``device.demo``: even light, no camera noise,
    from above; demo seed 10's position after 35 plies) with the board's corners moved
    ``corners_off`` times the way the demo's tracked board's were (nw, ne, se, sw: 3..5 px
    out, the board a little scaled and shifted after a nudge), and its truth."""
    from device.demo import scripted_positions
    from vision.render.effects import Effects

    position = scripted_positions("cubes", 10, 60)[35]
    image, truth = render_scene("cubes", position, 10, options=RenderOptions(
        camera_mode="overhead", effects=Effects.clean()))
    fix = truth_fix(truth)
    moved = fix.corners + corners_off * np.array([[3.8, -3.5], [4.0, 4.1], [-2.0, 4.5],
                                                  [-4.0, -1.6]])
    return image, BoardFix(moved, moved), position


@pytest.mark.parametrize("frame", ["cluttered dev 174", "the demo's clean light"])
def test_white_stones_and_empty_fields_are_told_apart_on_cluttered_and_clean_renders(frame):
    """A cluttered dev render (any camera, true corners) whose empty grid.2.6 read white
    at 0.9 and more with the outline's fixed strips: no field wrong and sure (since the
    board's lines are painted where its geometry has them, b07447b, that field, amid white
    stones seen from above, reads white at 0.77, in doubt with the empty field as its
    alternative; every field was right on the renders before), and a frame in the demo's
    clean light from above, its corners 3 px off, whose white stones read empty with an
    occupancy model fitted on cluttered renders alone (its tops' spread was taken in a
    square at the field's centre, over the edge of a stone lying off it): every field
    right."""
    _needs_model()
    if frame == "the demo's clean light":
        image, fix, position = _demo_frame(0.75)
        reading = read_cubes.read(image, fix, GEOM, {"players": position["players"]})
        assert reading.position["grid"] == position["grid"]
        return
    reading, position = _read(174, "any")
    want, have = position["grid"], reading.position["grid"]
    unsure = {u["path"]: u for u in reading.uncertain}
    wrong = [f"grid.{r}.{c}" for r in range(10) for c in range(10) if have[r][c] != want[r][c]]
    assert len(wrong) <= 1, wrong
    for path in wrong:
        r, c = map(int, path.split(".")[1:])
        assert path in unsure, path
        assert want[r][c] in [a[0] for a in unsure[path]["alternatives"]]


@lru_cache(maxsize=1)
def _four_players_stones():
    """An oblique frame of all 20 player stones (active and inactive), each laid to be
    read from its owner's seat (four players: blue south, red east, black north, orange
    west), and the grid."""
    position = random_position("cubes", 42)
    position["players"] = [{"colour": c, "seat": s, "dependency": None} for c, s in
                           zip(("blue", "red", "black", "orange"),
                               ("south", "east", "north", "west"), strict=True)]
    grid = [["."] * 10 for _ in range(10)]
    for k, token in enumerate(f"{letter}{d}" for letter in "BRKO" for d in "23456"):
        r, c = divmod(5 * k + 3, 10)
        grid[r][c] = token if k % 2 else token.lower()
    position["grid"] = grid
    image, truth = render_scene("cubes", position, 42,
                                options=RenderOptions(camera_mode="oblique"))
    return image, truth, position


def _stones_right(reading, grid) -> int:
    have = reading.position["grid"]
    return sum(have[r][c] == grid[r][c] for r in range(10) for c in range(10)
               if grid[r][c] != ".")


def test_stones_laid_for_each_seat_are_read_upright():
    _needs_model()
    image, truth, position = _four_players_stones()
    calibration = {"players": position["players"]}
    reading = read_cubes.read(image, truth_fix(truth), GEOM, calibration)
    assert _stones_right(reading, position["grid"]) == 20


def test_stones_whose_colour_is_not_seen_are_read_turned_by_their_owner(monkeypatch):
    # the classical look sees no colour on any stone: the model's colour names the owner,
    # whose seat the crop is turned for (13 of 20 right when read as cut: dev 169's
    # orange 4 seen without its colour read 2)
    _needs_model()
    image, truth, position = _four_players_stones()
    _colour_unseen(monkeypatch)
    reading = read_cubes.read(image, truth_fix(truth), GEOM, {"players": position["players"]})
    assert _stones_right(reading, position["grid"]) == 20


def test_stones_not_laid_for_their_owner_are_tried_at_the_other_turns(monkeypatch):
    # the table's seating a quarter turn off what the stones were laid for: where the
    # owner's turn leaves the digit in doubt the other turns are read, and some are sure
    _needs_model()
    image, truth, position = _four_players_stones()
    off = {"players": [{"colour": p["colour"], "seat": s} for p, s in
                       zip(position["players"], ("east", "north", "west", "south"),
                           strict=True)]}
    right = _stones_right(read_cubes.read(image, truth_fix(truth), GEOM, off),
                          position["grid"])
    monkeypatch.setattr(read_cubes, "DIGIT_DOUBT", 0.0)  # the owner's turn only
    only_owners = _stones_right(read_cubes.read(image, truth_fix(truth), GEOM, off),
                                position["grid"])
    assert right > only_owners


def test_a_checked_cloth_shows_no_dependency_card():
    # dev 140, two players: a dark square of a blue-checked cloth amid light ones looked
    # like a blue card at the east and west seats (read as four players); a card's ring is
    # card stock, about as light as the board's paper (CARD_DARKER)
    reading, position = _read(140, "any")
    assert reading.position["players"] == position["players"]


def test_an_empty_field_seen_black_seats_no_player_and_turns_no_stone():
    # dev 2964, two players (blue south, red north): an empty field seen black made black
    # a third player at the north seat and red moved west; the model reads no black stone,
    # so its seating (two players) holds and the stones are read again turned for it (red
    # 3 and 6 read a quarter turn off as 6 and 5 before, and the count of white stones for
    # three gave up two of the 30)
    _needs_model()
    reading, position = _read(2964, "any")
    assert reading.position["players"] == position["players"]
    assert reading.position["grid"] == position["grid"]


def test_too_many_white_stones_give_up_those_the_model_reads_empty():
    # dev 10067, three players and 28 white stones: two empty fields the test read white
    # at 0.9995 and more, not doubted so not read by the model, outranked two white stones
    # at 0.983 and 0.996 for the count (too many read), which gave those up
    _needs_model()
    reading, position = _read(10067, "any")
    assert reading.position["grid"] == position["grid"]


def test_no_dependency_cards_on_the_table_leave_no_doubt():
    # in the setup no card is dealt: the cards read null, and nothing of theirs is in doubt
    # (a doubted card would leave every observation of the setup unjudged)
    position = random_position("cubes", 130)
    for p in position["players"]:
        p["dependency"] = None
    image, truth = render_scene("cubes", position, 130,
                                options=RenderOptions(camera_mode="overhead"))
    reading = read_cubes.read(image, truth_fix(truth), GEOM, None)
    assert [p["dependency"] for p in reading.position["players"]] == [None] * len(
        position["players"])
    assert not [u for u in reading.uncertain if u["path"].endswith(".dependency")]


def test_other_turns_are_tried_for_the_stones_only_not_for_the_doubted_fields(monkeypatch):
    # the frame's one model run holds the stones' readings, then the doubted colourless
    # fields'; a doubted field read as a coloured stone with a doubtful digit has no crop
    # among the stones' and is left as it is (a scripted Cubes frame raised IndexError)
    doubtful = {"kind": _kind(blue=0.9, white=0.1), "digit": _kind(**{"3": 0.4, "5": 0.35})}
    sure = {"kind": _kind(blue=0.9, white=0.1), "digit": _kind(**{"5": 0.95, "3": 0.05})}
    runs = []

    def predict(calibration, name, model, crops, top_k):
        runs.append(len(crops))
        return [sure] * len(crops)

    monkeypatch.setattr(read_cubes, "predict", predict)
    predictions = [doubtful, doubtful]  # a stone, then a doubted field
    read_cubes._best_turns(None, None, [np.zeros((40, 40, 3), np.uint8)], predictions)
    assert runs == [3]  # the stone's three other turns, in one run
    assert predictions == [sure, doubtful]


def test_a_card_beyond_the_frame_is_the_colour_the_others_leave():
    # dev 160, four players: the north card lies almost wholly above the frame's edge
    # (null before); the other three are seen, so it is the fourth playing colour
    reading, position = _read(160, "any")
    assert reading.position["players"] == position["players"]
    north = [i for i, p in enumerate(position["players"]) if p["seat"] == "north"]
    assert north and f"players.{north[0]}.dependency" not in {
        u["path"] for u in reading.uncertain}


def test_only_a_single_card_not_seen_is_named():
    players = [{"colour": c, "seat": s, "dependency": d} for c, s, d in
               (("blue", "south", "red"), ("red", "west", None), ("black", "north", None))]
    cards = {"south": ("red", 0.95), "west": (None, 0.0), "north": (None, 0.0),
             "east": (None, 0.0)}
    assert read_cubes._last_card(players, cards) == cards  # two not seen: both unknown
    players[2]["dependency"], cards["north"] = "blue", ("blue", 0.7)
    named = read_cubes._last_card(players, cards)
    assert players[1]["dependency"] == "black" and named["west"] == ("black", 0.7)
    players[1]["dependency"], players[2]["dependency"] = None, "red"  # red shown twice
    assert read_cubes._last_card(players, cards) == cards
    assert players[1]["dependency"] is None


def test_a_stone_seen_in_another_colour_is_read_turned_for_the_models_colour():
    # dev 1167 (any camera, warm light): black stones the classical look saw orange were
    # turned for orange's seat, and four digits read wrong; the model reads them black,
    # so they are read again turned for black's seat
    _needs_model()
    reading, position = _read(1167, "any")
    want, have = position["grid"], reading.position["grid"]
    black = [(r, c) for r in range(10) for c in range(10) if want[r][c][0] in "Kk"]
    assert len(black) >= 4
    assert [have[r][c] for r, c in black] == [want[r][c] for r, c in black]


def test_in_play_too_few_white_stones_are_made_up_by_the_likeliest_empty_fields():
    grid = [["."] * 10 for _ in range(10)]
    grid[0][0] = "B4"  # a player's stone: the setup is over, 30 white stones for two
    p_white = {i: 0.9 for i in range(1, 28)}  # 27 read white
    p_white.update({40: 0.3, 41: 0.01, 42: 0.2, 43: 0.001, 44: 1e-5})
    assert read_cubes._whites_in_play(grid, p_white, 2) == {40: True, 42: True, 41: True}
    assert read_cubes._whites_in_play(grid, p_white, 3) == {40: True}  # 28 for three
    grid[0][0] = "."  # no player's stone: the setup may go on, any count of white stones
    assert read_cubes._whites_in_play(grid, p_white, 2) == {}


def test_in_play_too_many_white_stones_give_up_the_least_likely():
    grid = [["."] * 10 for _ in range(10)]
    grid[0][0] = "B4"  # in play: 26 white stones for four players
    p_white = {i: 0.99 for i in range(1, 26)}  # 25 sure
    p_white.update({30: 0.6, 31: 0.97, 32: 0.55, 40: 0.3})  # 28 read white
    assert read_cubes._whites_in_play(grid, p_white, 4) == {32: False, 30: False}
    assert read_cubes._whites_in_play(grid, p_white, 3) == {}  # 28 for three
    grid[0][0] = "."  # in the setup any count up to 30
    assert read_cubes._whites_in_play(grid, p_white, 4) == {}


def test_too_many_white_stones_give_up_the_least_likely_before_the_cap():
    grid = [["."] * 10 for _ in range(10)]
    grid[0][0] = "B4"  # in play: 30 white stones for two players
    p_white = {i: 0.99 for i in range(1, 30)}  # 29 sure
    p_white.update({30: 0.97, 31: 0.97})  # two doubted fields, both capped: 31 white
    likely = {**p_white, 30: 0.9999, 31: 0.976}
    assert read_cubes._whites_in_play(grid, p_white, 2) == {30: False}  # the field order
    assert read_cubes._whites_in_play(grid, p_white, 2, likely) == {31: False}


def test_a_white_stone_and_an_empty_field_both_capped_keep_the_surer_white():
    # dev 1993 (overhead, blurred, in play): an empty field (1,7) the stone model read white
    # at 0.99 against the test's 0.07, and a white stone (0,2) both read white, were both
    # capped at SECOND_CAP; the count gave up the white stone, the first in field order
    _needs_model()
    reading, position = _read(1993, "any")
    assert reading.position["grid"] == position["grid"]
    assert {"path": "grid.1.7", "confidence": 0.5, "alternatives": [["W", 0.5]]} in (
        reading.uncertain)


def test_an_empty_field_read_white_by_the_model_gives_way_to_the_count():
    # dev 837 (any camera, two players, in play): an empty field's uneven top (1,3) read
    # white by the stone model at 0.58 made 31 white stones; the count of 30 reads it
    # empty (in doubt), not the least likely white stone of the test's (8,3, at 0.99)
    _needs_model()
    reading, position = _read(837, "any")
    have = reading.position["grid"]
    assert have == position["grid"]
    assert {"path": "grid.1.3", "confidence": 0.5, "alternatives": [["W", 0.5]]} in (
        reading.uncertain)


def test_white_stones_missed_on_a_lamp_lit_slanted_board_are_made_up_in_doubt():
    # dev 1254 (any camera, 52 degrees, wood, a lamp): the side faces as light as the
    # tops, 7 of the 28 white stones read empty, 4 of them sure; in play the count fills
    # them in, in doubt
    _needs_model()
    reading, position = _read(1254, "any")
    want, have = position["grid"], reading.position["grid"]
    whites = [(r, c) for r in range(10) for c in range(10) if want[r][c] == "W"]
    assert sum(have[r][c] == "W" for r, c in whites) >= len(whites) - 1
    unsure = {u["path"] for u in reading.uncertain}
    assert all(f"grid.{r}.{c}" in unsure for r in range(10) for c in range(10)
               if have[r][c] != want[r][c])


def test_too_few_white_stones_are_made_up_where_test_and_model_together_say():
    # dev 1187 (any camera, 58 degrees, wood, lamp-lit): white stones read empty, most in
    # doubt; the count of too few had made up the empty fields the test alone found
    # likeliest (one white stone at (0,6) left empty, (3,7) read white); the fields the
    # model had not read are read by it then, and the count takes the right ones
    _needs_model()
    reading, position = _read(1187, "any")
    assert reading.position["grid"] == position["grid"]


def test_a_coloured_stone_seen_off_its_top_is_asked_of_the_model():
    # dev 1887 (any camera, 53 degrees, far): the blue 5 at (1,4) shows its top off the
    # crop's centre, no colour seen and a spread of 0.082 (under 0.09 it read white, surely)
    _needs_model()
    reading, position = _read(1887, "any")
    assert position["grid"][1][4] == "B5"
    assert reading.position["grid"][1][4] == "B5"


def test_one_colour_at_two_seats_is_one_card():
    cards = {"south": ("red", 1.0), "north": ("blue", 1.0), "west": ("blue", 0.77),
             "east": ("red", 0.52)}
    assert read_cubes._one_card_per_colour(cards) == {
        "south": ("red", 1.0), "north": ("blue", 1.0), "west": (None, 0.0),
        "east": (None, 0.0)}
    # on a tie the seat fewer players take keeps it; a surer card elsewhere wins
    tie = {"south": ("red", 1.0), "north": (None, 0.0), "west": ("black", 0.9),
           "east": ("black", 0.9)}
    assert read_cubes._one_card_per_colour(tie)["east"] == (None, 0.0)
    tie["east"] = ("black", 0.95)
    assert read_cubes._one_card_per_colour(tie)["west"] == (None, 0.0)


def test_a_card_read_at_an_empty_seat_makes_no_player():
    # dev 1213 (any camera, wood, three players): the table at the east seat read as a
    # blue card, as west's is (four players before)
    reading, position = _read(1213, "any")
    assert reading.position["players"] == position["players"]


def test_a_black_card_lit_brownish_by_a_warm_lamp_is_black():
    # dev 340 (any camera, green cloth, a warm lamp): the west card's black disc, balanced
    # on its card, brownish (0.22 bright, 0.44 saturated), was named orange: a fourth
    # player at the west seat and two right white stones given up to its count
    reading, position = _read(340, "any")
    assert reading.position["players"] == position["players"]
    assert reading.position["grid"] == position["grid"]


def test_card_discs_are_named_by_their_colour_balanced_on_the_card():
    card = [200.0, 210.0, 230.0]  # white card stock under a warm light (BGR)
    discs = [[40.0, 50.0, 70.0], [25.0, 40.0, 70.0], [170.0, 80.0, 40.0],
             [40.0, 40.0, 200.0], [40.0, 130.0, 220.0], [190.0, 205.0, 228.0]]
    names, _ = read_cubes._colours(np.array(discs), np.array([card] * len(discs)))
    assert names == ["black", "black", "blue", "red", "orange", None]
