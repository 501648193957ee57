"""The device (``tableref run``'s pipeline, one process): how long from the frame in which
the scene settles (the first frame of the still run the tracker then reads,
``Tracker.still_since``) to the referee's event, and
how much CPU the camera service takes while the board is idle.

Latency: the scripted e-SOLO-e 3andC game (``device.demo``'s script, seed 4) drawn by the
renderer beforehand (JPEG in memory, decoded as they are delivered) and played at 10 frames
a second in real time to the camera service (tracker, vision, ZeroMQ publisher) and the
referee service (subscriber, judging), exactly as ``tableref run`` wires them. Per event:
``total`` = event printed - settle frame's capture, split into ``wait`` (the tracker's
debounce, ``--settle-s`` 0.5 s and 3 frames, until the frame it reads) and ``work`` (vision,
ZeroMQ, judging). Idle: the same still frame delivered at 10 frames a second for a few
seconds to the camera service alone; process CPU time over wall time.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

TITLE = "Device pipeline: settle-to-event latency and idle camera CPU"
GAME, SEED, PLIES, FPS = "esoloe-3andc", 4, 12, 10.0
IDLE_S = 8.0


def _frames():
    """(JPEG bytes, metadata) of the scripted game at FPS, and the settle frame indices."""
    import cv2

    from device.demo import scripted_positions
    from vision.render.effects import Effects
    from vision.render.frame import RenderOptions
    from vision.render.script import ScriptedGame

    script = ScriptedGame(GAME, scripted_positions(GAME, SEED, PLIES), seed=SEED, fps=FPS,
                          options=RenderOptions(camera_mode="overhead",
                                                effects=Effects.clean()))
    frames, settles = [], {}
    for frame in script:
        ok, jpeg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        frames.append((jpeg, frame.phase, frame.position_index))
        if frame.phase == "still" and frame.position_index not in settles:
            settles[frame.position_index] = frame.index
    return frames, settles


class Paced:
    """Delivers frames in real time at FPS (decoding each as a camera driver would hand
    over a buffer), stamping each with the wall clock."""

    def __init__(self, frames, repeat: int = 1, decoded=None):
        self.frames, self.repeat, self.decoded = frames, repeat, decoded
        self.delivered = 0

    def __iter__(self):
        import cv2

        from vision.render.script import Frame

        start = time.time()
        n = 0
        for _ in range(self.repeat):
            for i, (jpeg, phase, position) in enumerate(self.frames):
                due = start + n / FPS
                time.sleep(max(0.0, due - time.time()))
                image = (self.decoded.copy() if self.decoded is not None
                         else cv2.imdecode(jpeg, cv2.IMREAD_COLOR))
                now = time.time()
                self.delivered += 1
                n += 1
                yield Frame(i, now, image, {}, position, phase, phase == "still")


def _camera_args(**extra) -> argparse.Namespace:
    from device.camera_service import options

    return options(GAME, seed=SEED, plies=PLIES, fps=FPS, first_seq=1,
                   publish="tcp://127.0.0.1:*", **{"wait_subscriber": 10.0, **extra})


def _latency(frames, settles) -> list[dict]:
    import json

    from device.referee_service import ServiceConfig
    from device.run_cmd import pipeline
    from device.sources import register_synthetic

    paced = Paced(frames)
    register_synthetic(lambda config: iter(paced))
    read_at: dict[int, float] = {}  # observation seq -> capture time of the frame read
    settled_at: dict[int, float] = {}  # observation seq -> capture time the scene settled
    printed: list[tuple[float, dict]] = []
    stop, ended = threading.Event(), threading.Event()

    class Stamp:
        def write(self, text: str) -> None:
            if text.strip():
                printed.append((time.time(), json.loads(text)))

        def flush(self) -> None:
            pass

    def progress(tracker, obs) -> None:
        if obs is not None:
            read_at[obs["seq"]] = obs["time"]
            settled_at[obs["seq"]] = tracker.still_since

    def ready(service) -> None:
        def finish():
            ended.wait()
            time.sleep(1.0)
            stop.set()
        threading.Thread(target=finish, daemon=True).start()

    try:
        status = pipeline(_camera_args(), ServiceConfig(listen=[], json=True), stop=stop,
                          ended=ended, progress=progress, ready=ready, out=Stamp())
    finally:
        register_synthetic(None)
    if status != 0:
        raise RuntimeError(f"the pipeline stopped with status {status}")
    rows = []
    for t_event, event in printed:
        seq = event["seq"]
        rows.append({"event": event["event"], "total": t_event - settled_at[seq],
                     "wait": read_at[seq] - settled_at[seq], "work": t_event - read_at[seq]})
    return rows


def _idle(frames, settles) -> dict:
    import cv2

    from device.camera_service import serve
    from device.sources import register_synthetic

    still = [frames[settles[0] + 1]]
    paced = Paced(still, repeat=int(IDLE_S * FPS),
                  decoded=cv2.imdecode(still[0][0], cv2.IMREAD_COLOR))
    register_synthetic(lambda config: iter(paced))
    stop = threading.Event()
    box = {}

    def measured(tracker, obs) -> None:
        box["tracker"] = tracker
        if tracker.frames == int(FPS):  # after a second: the board is read, then idle
            box["t0"], box["c0"] = time.perf_counter(), time.process_time()
            box["r0"] = tracker.recognised

    def ended_watch():
        ended.wait()
        box["t1"], box["c1"] = time.perf_counter(), time.process_time()
        box["r1"] = box["tracker"].recognised
        stop.set()

    ended = threading.Event()
    threading.Thread(target=ended_watch, daemon=True).start()
    try:
        serve(_camera_args(wait_subscriber=0.0), stop=stop, ended=ended, progress=measured)
    finally:
        register_synthetic(None)
    wall, cpu = box["t1"] - box["t0"], box["c1"] - box["c0"]
    return {"wall": wall, "cpu": cpu, "frames": round(wall * FPS),
            "read": box["r1"] - box["r0"]}


def measure() -> list[dict]:
    import cv2

    frames, settles = _frames()
    rows = []
    lat = _latency(frames, settles)
    for name in ("total", "wait", "work"):
        values = sorted(r[name] for r in lat)
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        rows.append({"measure": f"settle frame -> event: {name}", "n": len(values),
                     "median ms": 1000 * statistics.median(values), "p95 ms": 1000 * p95,
                     "max ms": 1000 * values[-1]})
    idle = _idle(frames, settles)
    rows.append({"measure": f"idle camera service, {FPS:.0f} frames/s, % of one core "
                 f"(vision runs: {idle['read']})",
                 "n": idle["frames"], "median ms": 100 * idle["cpu"] / idle["wall"],
                 "p95 ms": "", "max ms": ""})
    rows.append({"measure": f"(OpenCV threads {cv2.getNumThreads()}; events: "
                 f"{', '.join(r['event'] for r in lat)})", "n": "", "median ms": "",
                 "p95 ms": "", "max ms": ""})
    return rows


if __name__ == "__main__":
    from bench.__main__ import format_table

    print(format_table(TITLE, measure()))
