"""Frame sources: image folders, video files, the Pi camera's configuration (faked)."""

from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from device.sources import (
    PICAMERA2_MISSING,
    LatestFrame,
    SourceConfig,
    SourceError,
    open_source,
    register_synthetic,
)


def picture(value: int, size=(64, 48)) -> np.ndarray:
    img = np.full((size[1], size[0], 3), value, np.uint8)
    cv2.putText(img, str(value), (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
    return img


def test_folder_in_natural_order_skipping_a_corrupt_file(tmp_path):
    for i in (1, 2, 10):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), picture(i * 10))
    (tmp_path / "frame3.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really a png")
    (tmp_path / "notes.txt").write_text("not an image")
    errors = []
    with open_source({"kind": "folder", "path": str(tmp_path)}, on_error=errors.append) as src:
        frames = list(src)
    assert [f.name for f in frames] == ["frame1.png", "frame2.png", "frame10.png"]
    assert [f.index for f in frames] == [0, 1, 2]
    assert [int(f.image[40, 60, 0]) for f in frames] == [10, 20, 100]
    assert frames[0].image.dtype == np.uint8 and frames[0].image.shape == (48, 64, 3)
    assert frames[0].lores.shape == (240, 320) and frames[0].lores.ndim == 2
    assert errors == ["frame3.png: unreadable frame, skipped"] and src.skipped == 1


def test_too_many_corrupt_frames_in_a_row_is_a_clear_error(tmp_path):
    for i in range(3):
        (tmp_path / f"bad{i}.jpg").write_bytes(b"garbage")
    src = open_source(SourceConfig("folder", path=str(tmp_path), max_failures=3),
                      on_error=lambda m: None)
    with src, pytest.raises(SourceError, match="3 unreadable frames in a row"):
        src.read()


def test_missing_folder_and_empty_folder(tmp_path):
    with pytest.raises(SourceError, match="no such image folder"):
        open_source({"kind": "folder", "path": str(tmp_path / "nope")}).open()
    with pytest.raises(SourceError, match="no images"):
        open_source({"kind": "folder", "path": str(tmp_path)}).open()


def test_unknown_kind_and_single_buffer_are_refused():
    with pytest.raises(SourceError, match="unknown frame source 'webcam'"):
        SourceConfig("webcam")
    with pytest.raises(SourceError, match="buffer_count must be at least 2"):
        SourceConfig("picamera2", buffer_count=1)


def test_video_file_written_with_videowriter(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for i in range(12):
        writer.write(picture(i * 20))
    writer.release()
    with open_source(SourceConfig("video", path=str(path), lores_size=(32, 24))) as src:
        frames = list(src)
    assert len(frames) == 12
    # MJPG is lossy: the flat grey level comes back within a few steps
    assert all(abs(int(f.image[40, 60].mean()) - i * 20) <= 6 for i, f in enumerate(frames))
    assert frames[0].lores.shape == (24, 32)
    times = [f.time for f in frames]
    assert times == sorted(times) and times[-1] - times[0] == pytest.approx(1.1, abs=0.05)


def test_not_a_video_is_a_clear_error(tmp_path):
    (tmp_path / "x.mp4").write_bytes(b"nothing")
    with pytest.raises(SourceError, match="cannot open video file"):
        open_source({"kind": "video", "path": str(tmp_path / "x.mp4")}).open()


def test_picamera2_missing_gives_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    src = open_source({"kind": "picamera2"})  # creating it imports nothing
    with pytest.raises(SourceError) as err:
        src.open()
    assert str(err.value) == PICAMERA2_MISSING and "\n" not in str(err.value)
    assert "python3-picamera2" in str(err.value)


class FakeRequest:
    def __init__(self, cam):
        self.cam = cam

    def make_array(self, name):
        if name == "main":
            return np.full((720, 1280, 3), 7, np.uint8)
        w, h = self.cam.camera_config["lores"]["size"]
        stride = 384  # rows padded beyond the width
        yuv = np.full((h * 3 // 2, stride), 99, np.uint8)
        yuv[:h, :w] = 42
        return yuv

    def get_metadata(self):
        return {"SensorTimestamp": 123, "ExposureTime": 9000}

    def release(self):
        self.cam.released += 1


class FakePicamera2:
    def __init__(self, num):
        self.num, self.released, self.calls = num, 0, []

    def create_video_configuration(self, **kw):
        self.video = kw
        return kw

    def configure(self, config):
        self.camera_config = {"lores": {"size": config["lores"]["size"]}}

    def start(self):
        self.calls.append("start")

    def capture_metadata(self):
        return {"ExposureTime": 8000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}

    def set_controls(self, controls):
        self.controls = controls

    def capture_request(self, flush=False):
        self.calls.append(("capture", flush))
        return FakeRequest(self)

    def stop(self):
        self.calls.append("stop")

    def close(self):
        self.calls.append("close")


def test_picamera2_configuration_lock_and_lores_crop(monkeypatch):
    made = []
    fake_module = types.SimpleNamespace(Picamera2=lambda n: made.append(FakePicamera2(n))
                                        or made[-1])
    monkeypatch.setitem(sys.modules, "picamera2", fake_module)
    with open_source(SourceConfig("picamera2", settle_s=0.0, lores_size=(320, 240))) as src:
        frame = src.read()
        cam = made[0]
        assert cam.video["main"] == {"size": (1280, 720), "format": "RGB888"}
        assert cam.video["lores"] == {"size": (320, 240), "format": "YUV420"}
        assert cam.video["buffer_count"] >= 2 and cam.video["queue"] is False
        assert cam.controls == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 8000,
                                "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}
        assert ("capture", True) in cam.calls and cam.released == 1
    assert frame.image.shape == (720, 1280, 3)
    assert frame.lores.shape == (240, 320) and np.all(frame.lores == 42)  # padding cut off
    assert frame.metadata["sensor_timestamp_ns"] == 123
    assert cam.calls[-2:] == ["stop", "close"]


def test_picamera2_without_flush_falls_back_to_plain_capture(monkeypatch):
    class OldPicamera2(FakePicamera2):
        def capture_request(self):  # before picamera2 had flush=
            self.calls.append(("capture", None))
            return FakeRequest(self)

    made = []
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(
        Picamera2=lambda n: made.append(OldPicamera2(n)) or made[-1]))
    with open_source(SourceConfig("picamera2", settle_s=0.0)) as src:
        assert src.read() is not None and src.read() is not None
    assert made[0].calls.count(("capture", None)) == 2 and src.skipped == 0


def test_synthetic_source_takes_a_registered_factory():
    register_synthetic(lambda cfg: ((picture(i), f"ply {i}") for i in range(cfg.script)))
    try:
        with open_source(SourceConfig("synthetic", script=3)) as src:
            assert [f.name for f in src] == ["ply 0", "ply 1", "ply 2"]
    finally:
        register_synthetic(None)


def test_synthetic_source_plays_the_renderers_scripted_game():
    from rules.registry import get_game
    from vision.render.frame import RenderOptions
    from vision.render.script import START_TIME

    state = get_game("neunfeld").initial_state()
    positions = [state.position.to_json()]
    positions.append(state.apply(next(iter(state.legal_moves))).position.to_json())
    script = {"game": "neunfeld", "positions": positions, "seed": 3, "fps": 4.0,
              "still_s": 0.5, "move_s": 1.0,
              "options": RenderOptions(camera_mode="oblique", size=(320, 180))}
    with open_source(SourceConfig("synthetic", script=script)) as src:
        frames = list(src)
    assert len(frames) == 10 and frames[0].image.shape == (180, 320, 3)
    assert [f.time for f in frames] == [START_TIME + i / 4.0 for i in range(10)]
    phases = [f.metadata["phase"] for f in frames]
    assert phases[0] == phases[-1] == "still" and "reach" in phases
    assert [frames[0].metadata["position_index"], frames[-1].metadata["position_index"]] == [
        0, 1]
    assert all(isinstance(f.metadata["truth"], dict) for f in frames)


def test_a_second_synthetic_camera_draws_the_same_game_from_the_north():
    """``seat: north``: the same scripted game (frame times, positions, hands, board) seen
    by a camera facing the first: the first camera turned half round the board."""
    from vision.render.frame import RenderOptions

    cube = {"player": 0, "faces": {"up": "fuji", "north": "blank", "east": "sakura",
                                   "south": "fuji", "west": "geisha", "down": "sakura"}}
    positions = [{"cells": [[] for _ in range(5)]},
                 {"cells": [[], [], [cube], [], []]}]
    script = {"game": "esoloe", "positions": positions, "seed": 3, "fps": 4.0,
              "still_s": 0.5, "move_s": 1.0,
              "options": RenderOptions(camera_mode="oblique", size=(320, 180))}
    with open_source(SourceConfig("synthetic", script=script)) as a, open_source(
            SourceConfig("synthetic", script={**script, "seat": "north"})) as b:
        pairs = list(zip(a, b, strict=True))
    assert len(pairs) == 10
    for fa, fb in pairs:
        ta, tb = fa.metadata["truth"], fb.metadata["truth"]
        assert fa.time == fb.time and fa.metadata["phase"] == fb.metadata["phase"]
        assert ta["position"] == tb["position"] and ta["hands"] == tb["hands"]
        assert ta["board"]["pose"] == tb["board"]["pose"]
        assert (tb["camera"]["azimuth_deg"] - ta["camera"]["azimuth_deg"]) % 360 == (
            pytest.approx(180))
        # the board's north-west corner: far side from the south, near side from the north
        assert ta["board"]["corners"]["nw"][1] < ta["board"]["corners"]["sw"][1]
        assert tb["board"]["corners"]["nw"][1] > tb["board"]["corners"]["sw"][1]
    assert any(fa.metadata["truth"]["hands"] for fa, _ in pairs)
    with pytest.raises(SourceError, match="south or north"):
        open_source(SourceConfig("synthetic", script={**script, "seat": "east"})).open()


def test_synthetic_source_without_a_script_says_what_it_needs():
    with pytest.raises(SourceError, match="needs script"):
        open_source(SourceConfig("synthetic")).open()


def test_latest_frame_keeps_only_the_newest(tmp_path):
    for i in range(30):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), picture(i))
    src = open_source({"kind": "folder", "path": str(tmp_path)})
    src.open()
    grabber = LatestFrame(src).start()
    seen = []
    while (frame := grabber.get(timeout=2.0)) is not None:
        seen.append(frame.index)
    grabber.stop()
    src.close()
    assert grabber.ended and grabber.error is None
    assert seen == sorted(seen) and seen[-1] == 29
    assert len(seen) + grabber.dropped == 30


class _Flaky:
    """A scripted game (``frame(i)``, ``len``) of ``n`` frames whose drawing fails at
    ``bad`` (all of them: None), as the renderer's did for a hand at the frame's edge."""

    def __init__(self, n: int, bad: set | None):
        self.n, self.bad = n, bad

    def __len__(self) -> int:
        return self.n

    def frame(self, i: int):
        if self.bad is None or i in self.bad:
            raise cv2.error("OpenCV(5.0.0) resize.cpp:4220: error: (-215:Assertion failed) "
                            "inv_scale_x > 0 in function 'resize'\n")
        return picture(i), f"frame {i}"


def test_a_frame_the_synthetic_game_fails_to_draw_is_one_line_and_skipped():
    register_synthetic(lambda cfg: _Flaky(4, {1}))
    errors = []
    try:
        with open_source(SourceConfig("synthetic", script=0), on_error=errors.append) as src:
            frames = list(src)
    finally:
        register_synthetic(None)
    assert [f.name for f in frames] == ["frame 0", "frame 2", "frame 3"]  # the game goes on
    assert [f.index for f in frames] == [0, 1, 2] and src.skipped == 1
    assert errors == ["synthetic source, frame 1 (error: OpenCV(5.0.0) resize.cpp:4220: "
                      "error: (-215:Assertion failed) inv_scale_x > 0 in function 'resize'):"
                      " unreadable frame, skipped"]


def test_a_source_that_always_raises_gives_up_with_one_line_naming_the_error():
    register_synthetic(lambda cfg: _Flaky(10, None))
    try:
        src = open_source(SourceConfig("synthetic", script=0, max_failures=3),
                          on_error=lambda m: None)
        with src, pytest.raises(SourceError) as caught:
            src.read()
    finally:
        register_synthetic(None)
    message = str(caught.value)
    assert message.startswith("synthetic source: 3 unreadable frames in a row (the last: "
                              "synthetic source, frame 2 (error: OpenCV")
    assert message.endswith("); giving up") and "\n" not in message
