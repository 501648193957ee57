"""The tracker: stable observations only once a change has settled, one per position."""

from __future__ import annotations

import logging
from dataclasses import replace

import cv2
import numpy as np
import pytest

import vision.observe
from device.sources import Frame, SourceConfig, lores_of, open_source
from device.tracker import CubeMemory, Tracker, TrackerConfig
from vision.board import CORNER_NAMES, find_board

GAME = "esoloe-tictactoe"


def _cube(player: int) -> dict:
    return {"player": player, "faces": {"up": "sakura"}}


POSITIONS = [
    {"cells": [[] for _ in range(9)]},
    {"cells": [[_cube(0)] if i == 4 else [] for i in range(9)]},
    {"cells": [[_cube(0)] if i == 4 else [_cube(1)] if i == 0 else [] for i in range(9)]},
]

# 4 frames a second: a still run must last 1 s, so that a frame the tracker reads is at
# least 0.5 s after the hand left (the script's ``stable``) even where the hand is off the
# board two frames before the script's still phase begins
CONFIG = TrackerConfig(game=GAME, settle_s=1.0)


@pytest.fixture(scope="module")
def frames() -> list[Frame]:
    """The scripted game (three positions, two moves under a hand; the board is pushed
    about a millimetre in the first move) from the synthetic frame source, ground truth
    in each frame's metadata."""
    script = {"game": GAME, "positions": POSITIONS, "seed": 18, "fps": 4.0,
              "still_s": 1.5, "move_s": 2.0}
    with open_source(SourceConfig("synthetic", script=script)) as source:
        return list(source)


def _emitted(tracker: Tracker, stream) -> list[tuple[Frame, dict]]:
    out = []
    for frame in stream:
        obs = tracker.feed(frame)
        if obs is not None:
            out.append((frame, obs))
    return out


def test_one_stable_observation_per_settled_position_none_under_a_hand(frames):
    phases = {f.metadata["phase"] for f in frames}
    assert {"still", "reach", "hold", "leave"} <= phases
    tracker = Tracker(CONFIG)
    emitted = _emitted(tracker, frames)
    assert [f.metadata["position_index"] for f, _ in emitted] == [0, 1, 2]
    for frame, obs in emitted:
        assert frame.metadata["stable"] and frame.metadata["phase"] == "still"
        assert obs["stable"] is True and obs["time"] == frame.time
        assert obs["table"] == "t1" and obs["game"] == GAME
        assert len(obs["position"]["cells"]) == 9
    assert [obs["seq"] for _, obs in emitted] == [1, 2, 3]
    # the vision pipeline ran once per settled position, not on every still frame
    assert tracker.recognised == 3 and tracker.skipped == 0


def test_the_board_is_found_once_then_tracked_and_refitted_when_pushed(frames, monkeypatch):
    finds = []

    def counted(image, geom):
        finds.append(1)
        return find_board(image, geom)

    monkeypatch.setattr(vision.observe, "find_board", counted)
    tracker = Tracker(CONFIG)
    statuses, got, want = [], [], []
    for frame in frames:
        obs = tracker.feed(frame)
        if obs is not None:
            statuses.append(tracker.observer.status)
            got.append([obs["board"][k] for k in CORNER_NAMES])
            want.append([frame.metadata["truth"]["board"]["corners"][k] for k in CORNER_NAMES])
    # found in the first settled scene only; the pushed board re-fitted from its corners
    assert statuses[:2] == ["found", "moved"] and len(statuses) == 3 and len(finds) == 1
    got, want = np.array(got), np.array(want)
    # the corners followed the push (however well the first find fitted them)
    push = np.linalg.norm(want[1] - want[0], axis=1)
    assert push.max() > 1.0
    assert np.linalg.norm((got[1] - got[0]) - (want[1] - want[0]), axis=1).max() < 0.75
    assert np.array_equal(got[2], got[1])  # still: the same fix


def test_bad_frames_are_skipped_with_a_warning_and_the_stream_goes_on(frames, caplog):
    first = frames[0]
    bad = [None,
           replace(first, image=np.zeros((0, 0, 3), np.uint8), name="empty"),
           replace(first, image=cv2.cvtColor(first.image, cv2.COLOR_BGR2GRAY), name="grey"),
           replace(first, image=first.image[:360], name="half")]
    hand = next(i for i, f in enumerate(frames) if f.metadata["phase"] == "hold")
    still = next(i for i, f in enumerate(frames)
                 if i > hand and f.metadata["phase"] == "still")
    stream = frames[:hand] + bad[:2] + frames[hand:still + 1] + bad[2:] + frames[still + 1:]
    tracker = Tracker(replace(CONFIG, first_seq=40))
    with caplog.at_level(logging.WARNING, logger="tableref.tracker"):
        emitted = _emitted(tracker, stream)
    assert [f.metadata["position_index"] for f, _ in emitted] == [0, 1, 2]
    assert all(f.metadata["stable"] for f, _ in emitted)
    assert [obs["seq"] for _, obs in emitted] == [40, 41, 42]
    assert tracker.skipped == 4
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(skipped) == 4
    assert any("no frame" in m for m in skipped) and any("empty" in m for m in skipped)
    assert any("size 1280x360" in m for m in skipped)


# ---------------------------------------------------------------- drawn pictures, no vision

def _table(pieces: tuple[tuple[int, int], ...] = (), hand: int | None = None,
           person: bool = False, size: int = 15) -> np.ndarray:
    """A 320x180 'table': a light board at (100..220, 40..140), dark pieces ``size`` px
    wide, a hand over the board at x = ``hand``, a person at the left edge (outside the
    board)."""
    img = np.full((180, 320, 3), 90, np.uint8)
    cv2.rectangle(img, (100, 40), (220, 140), (220, 220, 220), -1)
    for x, y in pieces:
        cv2.rectangle(img, (x, y), (x + size, y + size), (40, 70, 40), -1)
    if hand is not None:
        cv2.ellipse(img, (hand, 90), (45, 25), 20, 0, 360, (120, 150, 200), -1)
    if person:
        cv2.circle(img, (30, 90), 25, (10, 10, 10), -1)
    return img


class FakeVision:
    """Counts the recognition runs; reports the board's corners; fails when told to."""

    def __init__(self):
        self.calls = 0
        self.fail = False

    def __call__(self, image, seq, time):
        self.calls += 1
        if self.fail:
            raise ValueError("no board in view")
        return {"schema": "tableref/observation/1", "table": "t1", "game": GAME,
                "seq": seq, "time": time, "stable": True, "confidence": 1.0,
                "position": {"cells": [[] for _ in range(9)]},
                "board": {"nw": [100, 40], "ne": [220, 40], "se": [220, 140], "sw": [100, 140]}}


def _hand(n: int) -> list[np.ndarray]:
    """A hand moving over the board for ``n`` frames."""
    return [_table(hand=130 + 15 * i) for i in range(n)]


def _play(tracker: Tracker, pictures: list[np.ndarray], t0: float) -> list[dict]:
    return [obs for i, img in enumerate(pictures)
            if (obs := tracker.feed(Frame(img, img[..., 0], t0 + i * 0.1, i, f"f{i}")))
            is not None]


def test_a_scene_is_read_once_and_again_only_after_a_change_settles(caplog):
    vision = FakeVision()
    tracker = Tracker(TrackerConfig(game=GAME, settle_frames=3, settle_s=0.2), vision)
    empty, one = _table(), _table(((110, 50),))
    assert len(_play(tracker, [empty] * 8, 0.0)) == 1 and vision.calls == 1
    # a hand comes and goes, nothing moved: not read again
    assert _play(tracker, _hand(4) + [empty] * 8, 1.0) == []
    assert vision.calls == 1
    # a piece placed under a hand: read once when it has settled
    obs = _play(tracker, _hand(3) + [one] * 8, 3.0)
    assert [o["seq"] for o in obs] == [2] and vision.calls == 2
    assert obs[0]["time"] == pytest.approx(3.0 + 5 * 0.1)  # the third still frame, 0.2 s on
    # vision cannot read the settled scene: no observation, a warning, seq not used up
    vision.fail = True
    with caplog.at_level(logging.WARNING, logger="tableref.tracker"):
        assert _play(tracker, _hand(2) + [empty] * 8, 5.0) == []
    assert vision.calls == 3 and tracker.failed == 1
    assert "not read: no board in view" in caplog.text
    assert tracker.lores(empty).shape == (90, 160)  # the whole frame again
    vision.fail = False
    obs = _play(tracker, _hand(2) + [one] * 8, 7.0)
    assert [o["seq"] for o in obs] == [3]
    assert obs[0]["unread"] == 1  # the table may have changed unseen: the referee is told
    assert "unread" not in _play(tracker, _hand(2) + [empty] * 8, 9.0)[0]
    assert tracker.lores(empty).shape == (133, 160)  # the board region: 120x100 px, grown


def test_one_small_piece_placed_under_a_hand_is_read():
    """A piece that changes far fewer pixels than ``changed_fraction`` (a Cubes stone) is
    a move all the same: the settled scene is read, not taken for a hand that came and
    went; noise spread over the board is not."""
    vision = FakeVision()
    tracker = Tracker(TrackerConfig(game=GAME, settle_frames=3, settle_s=0.2), vision)
    empty, stone = _table(), _table(((150, 80),), size=5)
    assert len(_play(tracker, [empty] * 8, 0.0)) == 1  # the board is known now
    before, after = tracker.lores(empty), tracker.lores(stone)
    assert not tracker.changed(before, after) and tracker.moved(before, after)
    assert len(_play(tracker, _hand(3) + [stone] * 8, 1.0)) == 1 and vision.calls == 2
    speckled = before.copy()
    speckled[::20, ::20] = 0  # one pixel in 400 changed, none of them together
    assert not tracker.moved(before, speckled)


def test_change_detection_watches_the_board_once_vision_found_it():
    tracker = Tracker(TrackerConfig(game=GAME), FakeVision())
    quiet, person = _table(), _table(person=True)
    small = tracker.lores(quiet)
    assert small.shape == (90, 160)  # the whole frame, 160 px wide
    assert tracker.changed(small, tracker.lores(person))
    _play(tracker, [quiet] * 8, 0.0)  # read once: the board's corners are known now
    board = tracker.lores(quiet)
    assert board.shape[1] == 160 and board.shape != small.shape
    # someone moving beside the board is not a change; a piece on the board is
    assert not tracker.changed(board, tracker.lores(person))
    assert tracker.changed(board, tracker.lores(_table(((110, 50),))))


def _strip(die: tuple[int, int] | None = None, hand: int | None = None,
           person: bool = False) -> np.ndarray:
    """A 400x300 'table' with Neunfeld's 230 x 25 mm strip at 1 px/mm (85..315,
    138..163), a 16 px die at ``die`` (top left) before it, a hand over the strip at x =
    ``hand``, a person at the left edge (more than the dice's 10 cm from the strip)."""
    img = np.full((300, 400, 3), 90, np.uint8)
    cv2.rectangle(img, (85, 138), (315, 163), (40, 40, 60), -1)
    if die is not None:
        cv2.rectangle(img, die, (die[0] + 16, die[1] + 16), (200, 60, 40), -1)
    if hand is not None:
        cv2.ellipse(img, (hand, 150), (45, 25), 20, 0, 360, (120, 150, 200), -1)
    if person:
        cv2.circle(img, (25, 150), 20, (10, 10, 10), -1)
    return img


def test_neunfelds_dice_before_the_players_are_watched_beside_the_strip():
    """A die moved before a player (5 cm from the strip's centre line: far outside the
    25 mm strip grown by 15 %) is a move, read once it settled (before, only the strip was
    watched and the opening roll's dice taken up were never read); someone beyond where
    the reader looks for pieces is not."""
    calls = []

    def vision(image, seq, time):
        calls.append(seq)
        return {"schema": "tableref/observation/1", "table": "t1", "game": "neunfeld",
                "seq": seq, "time": time, "stable": True, "confidence": 1.0,
                "position": {"pawns": [0, 10], "dice": {}},
                "board": {"nw": [85, 138], "ne": [315, 138], "se": [315, 163],
                          "sw": [85, 163]}}

    tracker = Tracker(TrackerConfig(game="neunfeld", settle_frames=3, settle_s=0.2), vision)
    hand = [_strip(hand=150 + 15 * i) for i in range(3)]
    frames = [_strip(die=(190, 80))] * 5 + hand + [_strip(die=(190, 190))] * 5
    out = _play(tracker, frames, 0.0)
    assert [o["seq"] for o in out] == [1, 2] and len(calls) == 2
    watched = tracker.lores(_strip(die=(190, 190)))
    assert watched.shape[0] > watched.shape[1] / 2  # the strip alone: 160 x 22 px
    assert not tracker.moved(watched, tracker.lores(_strip(die=(190, 190), person=True)))


def test_a_corrupt_frame_or_a_fault_in_vision_does_not_end_the_stream(caplog):
    calls = []

    def vision(image, seq, time):
        calls.append(seq)
        if len(calls) == 2:
            raise RuntimeError("a reader tripped over this frame")
        return FakeVision()(image, seq, time)

    tracker = Tracker(TrackerConfig(game=GAME, settle_frames=3, settle_s=0.2), vision)
    empty, one = _table(), _table(((110, 50),))
    noise = np.random.default_rng(1).integers(0, 255, empty.shape, dtype=np.uint8)
    assert len(_play(tracker, [empty] * 5, 0.0)) == 1
    # a garbled frame among still ones: a change, nothing read, the scene read no more
    assert _play(tracker, [empty, noise] + [empty] * 6, 1.0) == []
    with caplog.at_level(logging.WARNING, logger="tableref.tracker"):
        assert _play(tracker, _hand(2) + [one] * 5, 2.0) == []  # vision failed
    assert "vision failed" in caplog.text and "RuntimeError" in caplog.text
    assert tracker.failed == 1
    obs = _play(tracker, _hand(2) + [empty] * 5, 3.0)
    assert [o["seq"] for o in obs] == [2] and len(calls) == 3


def test_the_frames_small_picture_stands_for_the_frame():
    tracker = Tracker(TrackerConfig(game=GAME), FakeVision())
    quiet, piece = _table(), _table(((110, 50),))
    size = (240, 150)  # not the frame's shape: a Pi camera's lores stream may differ
    small = tracker.lores(quiet, lores_of(quiet, size))
    assert small.shape == tracker.lores(quiet).shape == (90, 160)
    _play(tracker, [quiet] * 8, 0.0)  # the board is known now
    board = tracker.lores(quiet)
    from_small = tracker.lores(quiet, lores_of(quiet, size))
    # the same region (only its edges a little softer)
    assert from_small.shape == board.shape
    assert np.median(cv2.absdiff(board, from_small)) <= 2
    assert tracker.changed(from_small, tracker.lores(piece, lores_of(piece, size)))


# ---------------------------------------------------------------- the cubes' memory

def _cells(*stacks) -> dict:
    return {"position": {"cells": [list(s) for s in stacks]}}


def _c(player: int, **faces) -> dict:
    return {"player": player, "faces": {d: faces.get(d) for d in
                                        ("up", "down", "north", "south", "east", "west")}}


def test_faces_unseen_now_are_carried_from_when_the_cube_was_seen():
    memory = CubeMemory("esoloe")
    first = memory.apply(_cells([_c(0, up="sakura", south="fuji")], []))
    assert first["position"]["cells"][0][0]["faces"]["up"] == "sakura"
    # a cube put on top hides the first one's up face; its south side is seen now
    later = memory.apply(_cells([_c(0, south="fuji"), _c(1, up="geisha")], []))
    bottom, top = later["position"]["cells"][0]
    assert bottom["faces"]["up"] == "sakura" and bottom["faces"]["south"] == "fuji"
    assert top["faces"]["up"] == "geisha" and top["faces"]["north"] is None  # never seen
    assert bottom["faces"]["east"] is None
    # the same field, another colour: another cube, nothing carried
    other = memory.apply(_cells([_c(1), _c(1)], []))
    assert other["position"]["cells"][0][0]["faces"]["up"] is None
    assert other["position"]["cells"][0][1]["faces"]["up"] == "geisha"  # still the top cube


def test_a_face_seen_otherwise_now_means_a_new_cube_and_an_emptied_field_forgets():
    memory = CubeMemory("esoloe")
    memory.apply(_cells([_c(0, up="sakura", north="fuji")]))
    turned = memory.apply(_cells([_c(0, up="geisha")]))
    assert turned["position"]["cells"][0][0]["faces"] == _c(0, up="geisha")["faces"]
    memory.apply(_cells([]))
    again = memory.apply(_cells([_c(0)]))
    assert again["position"]["cells"][0][0]["faces"]["up"] is None
    # faces no one cube of the set shows together (blank up and blank down): another
    # cube, nothing carried (the observation would be refused as malformed)
    memory.apply(_cells([_c(0, down="blank")]))
    again = memory.apply(_cells([_c(0, up="blank")]))
    assert again["position"]["cells"][0][0]["faces"] == _c(0, up="blank")["faces"]
    memory.apply(_cells([_c(0, down="blank")]))
    fits = memory.apply(_cells([_c(0, up="sakura")]))  # one cube may show both
    assert fits["position"]["cells"][0][0]["faces"]["down"] == "blank"


def test_the_tracker_applies_the_memory_to_what_vision_reads():
    readings = iter([_c(0, up="fuji", west="blank"), _c(0)])

    def vision(image, seq, time):
        return {"schema": "tableref/observation/1", "table": "t1", "game": GAME, "seq": seq,
                "time": time, "stable": True, "confidence": 1.0,
                "position": {"cells": [[next(readings)]] + [[] for _ in range(8)]}}

    tracker = Tracker(TrackerConfig(game=GAME, settle_frames=3, settle_s=0.2), vision)
    empty, one = _table(), _table(((110, 50),))
    out = _play(tracker, [empty] * 4 + _hand(3) + [one] * 4, 0.0)
    assert [o["position"]["cells"][0][0]["faces"]["up"] for o in out] == ["fuji", "fuji"]
    assert out[1]["position"]["cells"][0][0]["faces"]["west"] == "blank"


def test_a_reading_vision_marks_not_still_is_not_published_and_costs_no_seq():
    vision = FakeVision()
    stable = iter([False, True])

    def reading(image, seq, time):
        obs = vision(image, seq, time)
        obs["stable"] = next(stable)
        return obs

    tracker = Tracker(TrackerConfig(game=GAME, settle_frames=3, settle_s=0.2), reading)
    empty, one = _table(), _table(((110, 50),))
    assert _play(tracker, [empty] * 5, 0.0) == []  # a hand vision saw at the edge
    out = _play(tracker, _hand(3) + [one] * 4, 1.0)
    assert [o["seq"] for o in out] == [1] and out[0]["stable"] is True
    assert vision.calls == 2 and tracker.failed == 1


# ---------------------------------------------------------------- two cameras

def _play_pairs(tracker: Tracker, pairs: list[tuple[np.ndarray, np.ndarray]],
                t0: float) -> list[dict]:
    out = []
    for i, (a, b) in enumerate(pairs):
        t = t0 + i * 0.1
        obs = tracker.feed(Frame(a, a[..., 0], t, i, f"a{i}"), Frame(b, b[..., 0], t, i, f"b{i}"))
        if obs is not None:
            out.append(obs)
    return out


class FakePairVision(FakeVision):
    """Both cameras' frames: the first's board where FakeVision puts it, the second's
    elsewhere (each camera's own corners)."""

    def __init__(self):
        super().__init__()
        self.images: list = []

    def __call__(self, images, seq, time):
        self.images.append(images)
        obs = super().__call__(images[0], seq, time)
        obs["board_second"] = {"nw": [60, 30], "ne": [260, 30], "se": [260, 150],
                               "sw": [60, 150]}
        return obs


PAIR = TrackerConfig(game=GAME, settle_frames=3, settle_s=0.2, second_seat="north")


def test_two_cameras_a_hand_in_either_view_unsettles_and_a_change_in_either_is_read():
    vision = FakePairVision()
    tracker = Tracker(PAIR, vision)
    empty, one = _table(), _table(((110, 50),))
    assert len(_play_pairs(tracker, [(empty, empty)] * 8, 0.0)) == 1 and vision.calls == 1
    assert len(vision.images[0]) == 2  # vision gets both frames of the instant
    # each camera's change detection watches its own board
    first, second = tracker.views
    assert first.board_json["nw"] == [100, 40] and second.board_json["nw"] == [60, 30]
    assert tracker.lores(empty, view=first).shape != tracker.lores(empty, view=second).shape
    # a piece placed before the first camera while a hand stays in the second's view:
    # never read under the hand, read once both views have settled
    hands = _hand(8)
    pairs = [(one, h) for h in hands + hands[::-1]] + [(one, empty)] * 8
    obs = _play_pairs(tracker, pairs, 1.0)
    assert [o["seq"] for o in obs] == [2] and vision.calls == 2
    assert obs[0]["time"] > 1.0 + 0.1 * (len(hands) * 2)  # after the hand left
    # a hand came and went; nothing moved in either view: not read again
    assert _play_pairs(tracker, [(one, h) for h in _hand(3)] + [(one, empty)] * 8, 4.0) == []
    # a piece only the second camera sees (behind a stack from the first): read
    two = _table(((110, 50), (180, 100)))
    obs = _play_pairs(tracker, [(one, h) for h in _hand(3)] + [(one, two)] * 8, 6.0)
    assert [o["seq"] for o in obs] == [3] and vision.calls == 3


def test_two_cameras_one_failing_view_watches_its_whole_frame_again():
    vision = FakePairVision()
    tracker = Tracker(PAIR, vision)
    empty, one = _table(), _table(((110, 50),))
    _play_pairs(tracker, [(empty, empty)] * 8, 0.0)
    original = vision.__call__

    def second_lost(images, seq, time):
        obs = original(images, seq, time)
        del obs["board_second"]  # the second camera found no board in this frame
        return obs

    tracker.recognise = second_lost
    assert len(_play_pairs(tracker, [(one, one)] * 8, 1.0)) == 1
    assert tracker.views[0].board is not None and tracker.views[1].board is None
    assert tracker.lores(empty, view=tracker.views[1]).shape == (90, 160)


def test_a_second_camera_is_refused_for_games_vision_cannot_fuse():
    with pytest.raises(ValueError, match="fused for esoloe"):
        Tracker(TrackerConfig(game="neunfeld", second_seat="north"), FakeVision())
    with pytest.raises(ValueError, match="seated north or south"):
        Tracker(TrackerConfig(game=GAME, second_seat="east"), FakeVision())


def test_two_real_cameras_front_and_back_give_one_fused_observation_per_position():
    """The synthetic game drawn from the south and, facing it, from the north (the same
    frames' times, hands and board), read by two Observers and fused: one observation
    per settled position, never under a hand, each camera's board tracked."""
    script = {"game": GAME, "positions": POSITIONS, "seed": 18, "fps": 4.0,
              "still_s": 1.5, "move_s": 2.0}
    with open_source(SourceConfig("synthetic", script=script)) as a, open_source(
            SourceConfig("synthetic", script={**script, "seat": "north"})) as b:
        pairs = list(zip(a, b, strict=True))
    assert all(fa.time == fb.time for fa, fb in pairs)
    tracker = Tracker(replace(CONFIG, second_seat="north"))
    emitted = [(fa, obs) for fa, fb in pairs if (obs := tracker.feed(fa, fb)) is not None]
    assert [f.metadata["position_index"] for f, _ in emitted] == [0, 1, 2]
    assert all(f.metadata["stable"] for f, _ in emitted)
    assert [obs["seq"] for _, obs in emitted] == [1, 2, 3]
    for frame, obs in emitted:  # where the cubes stand, and whose (the fusion's)
        truth = frame.metadata["truth"]["position"]["cells"]
        assert [[c["player"] for c in s] for s in obs["position"]["cells"]] == [
            [c["player"] for c in s] for s in truth]
        assert obs["board"] != obs["board_second"]  # each camera's own corners
    assert len(tracker.observers) == 2 and tracker.recognised == 3


class FakeObserver:
    """One camera's Observer: a cube on field 4 (or nothing), a hand when told, or no
    board."""

    def __init__(self, corners: list, cube: bool = True):
        self.corners, self.cube, self.hand, self.lost = corners, cube, False, False

    def observe(self, image, *, seq, time):
        if self.lost:
            raise vision.observe.ObserveError("no board in view")
        cells = [[_cube(0)] if i == 4 and self.cube else [] for i in range(9)]
        return {"schema": "tableref/observation/1", "table": "t1", "game": GAME,
                "seq": seq, "time": time, "stable": not self.hand, "confidence": 1.0,
                "position": {"cells": cells}, "uncertain": [],
                "board": dict(zip(CORNER_NAMES, self.corners, strict=True))}


def test_a_camera_that_sees_a_hand_is_left_out_and_both_seeing_one_is_not_still():
    tracker = Tracker(PAIR)
    south = FakeObserver([[100, 40], [220, 40], [220, 140], [100, 140]])
    north = FakeObserver([[60, 30], [260, 30], [260, 150], [60, 150]], cube=False)
    tracker.observers = [south, north]
    image = _table()
    both = tracker._observe_pair((image, image), 1, 0.0)  # disagreeing: fused
    assert both["stable"] and both["board_second"]["nw"] == [60, 30]
    assert any(u["path"] == "cells.4" for u in both["uncertain"])
    north.hand = True  # the north camera sees a hand: the south camera's reading alone
    alone = tracker._observe_pair((image, image), 2, 0.0)
    assert alone["stable"] and alone["position"]["cells"][4] == [_cube(0)]
    assert not alone["uncertain"] and alone["board_second"]["nw"] == [60, 30]
    south.hand = True  # both see one: not still
    assert tracker._observe_pair((image, image), 3, 0.0)["stable"] is False
    north.lost = True  # one sees a hand, the other no board: not still either
    assert tracker._observe_pair((image, image), 4, 0.0)["stable"] is False
    south.lost = True  # neither finds the board: not read
    with pytest.raises(vision.observe.ObserveError):
        tracker._observe_pair((image, image), 5, 0.0)
