"""A scripted game as a frame source: a camera watching a game being played.

``ScriptedGame(game, positions, seed)`` iterates ``Frame`` objects at ``fps``: the table
still, a hand coming in from the mover's side, the position changing under the hand,
the hand leaving, the table still again; now and then the board or the camera is nudged
between moves. The camera, table, lamps and pieces stay the same for the whole game
(one seed); noise differs per frame. The static scene is rendered once per position and
pose, hands are drawn over a copy, so a frame costs little more than its noise and JPEG.
``seat="north"`` draws the same game (board, nudges, hands, frame times) from a second
camera facing the first: the first camera turned half round the board's centre.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from vision.render.camera import Camera, Distorter
from vision.render.draw import Painter, Rendered
from vision.render.effects import Effects, apply_effects, random_effects
from vision.render.frame import RenderOptions, camera_for
from vision.render.hands import draw_hands, hand_reach
from vision.render.rng import make_rng
from vision.render.scene import Scene, build_scene
from vision.render.truth import build_truth

START_TIME = 1763805600.0  # capture time of frame 0, seconds since the epoch
SHUTTER = 0.35  # share of the frame interval the shutter is open (motion blur)


@dataclass
class Frame:
    index: int
    time: float  # capture time, seconds since the epoch
    image: np.ndarray  # BGR uint8
    truth: dict
    position_index: int  # which of the script's positions lies on the table
    phase: str  # still, reach, hold, leave
    stable: bool  # still, no hand, and long enough since the last change


@dataclass(frozen=True)
class _Step:
    phase: str
    position: int
    pose: int
    move: int | None  # which move's hand, if any
    progress: float  # hand: 0 outside .. 1 at the target
    since: int  # frames since this phase began


class ScriptedGame:
    """Frames of ``positions`` (observation position objects) being played in turn."""

    def __init__(self, game: str, positions: list[dict], seed: int = 0, fps: float = 12.0,
                 still_s: float = 1.5, move_s: float = 2.5, nudge: float = 0.3,
                 options: RenderOptions | None = None, camera: Camera | None = None,
                 effects: Effects | None = None, start_time: float = START_TIME,
                 seat: str = "south"):
        if not positions:
            raise ValueError("a scripted game needs at least one position")
        if seat not in ("south", "north"):
            raise ValueError(f"seat {seat!r}: the camera stands south or north of the board")
        self.game, self.positions, self.seed, self.fps = game, list(positions), seed, fps
        self.start_time = start_time
        self.opt = options or RenderOptions(camera_mode="oblique")
        first = build_scene(game, positions[0], seed, table=self.opt.table,
                            board_pose=self.opt.board_pose, cube_set=self.opt.cube_set)
        base_pose = (float(first.board.center[0]), float(first.board.center[1]),
                     first.board.yaw)
        base_cam = camera or camera_for(first, seed, self.opt)
        if not self.opt.distortion:
            base_cam = replace(base_cam, dist=np.zeros(5))
        # the players sit left and right of the south camera's view, whichever camera draws
        self._seat_azimuth = base_cam.azimuth
        if seat == "north":  # a second camera facing the first: the same one turned half
            base_cam = _half_round(base_cam, (*base_pose[:2], 0.0))  # round the board
        self.fx = effects or self.opt.effects or random_effects(make_rng(seed, "effects"))
        # poses: (board pose, camera), a new one after a nudge
        self.poses = [(base_pose, base_cam)]
        rng = make_rng(seed, "nudges")
        pose_of_move = []
        for _ in range(len(positions) - 1):
            if rng.random() < nudge:
                (x, y, yaw), cam = self.poses[-1]
                if rng.random() < 0.6:  # the board is pushed a little
                    self.poses.append(((x + rng.normal(0, 2.5), y + rng.normal(0, 2.5),
                                        yaw + rng.normal(0, 1.5)), cam))
                else:  # the camera is knocked
                    from vision.render.camera import make_camera
                    moved = make_camera(
                        first.target, cam.tilt + rng.normal(0, 1.0),
                        cam.azimuth + rng.normal(0, 1.0), cam.distance + rng.normal(0, 5),
                        roll=float(rng.normal(0, 0.8)),
                        hfov=math.degrees(2 * math.atan(cam.size[0] / 2 / cam.K[0, 0])),
                        size=cam.size, dist=cam.dist,
                        center_offset=(cam.K[0, 2] - (cam.size[0] - 1) / 2,
                                       cam.K[1, 2] - (cam.size[1] - 1) / 2))
                    self.poses.append(((x, y, yaw), moved))
            pose_of_move.append(len(self.poses) - 1)
        self.steps = self._timeline(still_s, move_s, pose_of_move)
        self._cache: dict = {}
        self._targets: dict = {}

    def _timeline(self, still_s, move_s, pose_of_move) -> list[_Step]:
        n_still = max(1, round(still_s * self.fps))
        n_reach = max(1, round(0.38 * move_s * self.fps))
        self._n_reach = n_reach
        n_hold = max(2, round(0.24 * move_s * self.fps))
        steps = [_Step("still", 0, 0, None, 0.0, i) for i in range(n_still)]
        pose = 0
        for k in range(len(self.positions) - 1):
            steps += [_Step("reach", k, pose, k, (i + 1) / n_reach, i) for i in range(n_reach)]
            steps += [_Step("hold", k if i < n_hold // 2 else k + 1, pose, k, 1.0, i)
                      for i in range(n_hold)]
            steps += [_Step("leave", k + 1, pose, k, 1 - (i + 1) / n_reach, i)
                      for i in range(n_reach)]
            pose = pose_of_move[k]
            steps += [_Step("still", k + 1, pose, None, 0.0, i) for i in range(n_still)]
        return steps

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Frame]:
        for i in range(len(self.steps)):
            yield self.frame(i)

    # ------------------------------------------------------------------ rendering
    def _scene(self, position: int, pose: int) -> Scene:
        return build_scene(self.game, self.positions[position], self.seed,
                           table=self.opt.table, board_pose=self.poses[pose][0],
                           cube_set=self.opt.cube_set)

    def _static(self, position: int, pose: int):
        key = (position, pose)
        if key not in self._cache:
            if len(self._cache) > 2:
                self._cache.pop(next(iter(self._cache)))
            scene = self._scene(position, pose)
            dist = Distorter(self.poses[pose][1])
            p = Painter(scene, dist.canvas_camera)
            p.scene_pass()
            self._cache[key] = (scene, dist, p.canvas, p.ids, list(p.records))
        return self._cache[key]

    def _target(self, move: int):
        """Where the hand goes for a move: the top of what changed, and the mover's seat."""
        if move not in self._targets:
            a, b = self._scene(move, 0), self._scene(move + 1, 0)

            def pieces(scene):
                out = {}
                for s in scene.solids:
                    key = s.info.get("piece")
                    if key is None:
                        continue
                    label = {k: s.info.get(k) for k in ("faces", "token", "top", "player")}
                    top = float(s.points()[:, 2].max())
                    prev = out.get(key)
                    if prev is None or top > prev[2]:
                        out[key] = (s.center.round(1).tolist(), label, top, s.center)
                return out

            pa, pb = pieces(a), pieces(b)
            changed = [k for k in sorted(set(pa) | set(pb))
                       if pa.get(k, (None, None))[:2] != pb.get(k, (None, None))[:2]]
            if changed:
                pts = [(pb.get(k) or pa.get(k)) for k in changed]
                top = max(p[2] for p in pts)
                xy = np.mean([p[3][:2] for p in pts], axis=0)
                tip = np.array([xy[0], xy[1], top + 12.0])
            else:
                tip = np.array([*b.board.center, b.board.z_top + 20.0])
            # the players sit left and right of the camera's view (a camera on a stand at
            # the end of the table): player 0 on the left, player 1 on the right
            az = math.radians(self._seat_azimuth)
            right = np.array([math.cos(az), math.sin(az), 0.0])
            towards_camera = np.array([math.sin(az), -math.cos(az), 0.0])
            seat = (right if move % 2 else -right) + 0.35 * towards_camera
            seat /= np.linalg.norm(seat)
            self._targets[move] = (tip, seat)
        return self._targets[move]

    def frame(self, i: int) -> Frame:
        st = self.steps[i]
        scene, dist, canvas, ids, records = self._static(st.position, st.pose)
        hands = ()
        if st.move is not None:
            tip, seat = self._target(st.move)
            hand = hand_reach(make_rng(self.seed, "hand", st.move), tip, seat, st.progress)
            step = {"reach": 1, "leave": -1}.get(st.phase, 0) / self._n_reach
            if step:  # moving: where it is a shutter time (a third of a frame) later
                later = hand_reach(make_rng(self.seed, "hand", st.move), tip, seat,
                                   st.progress + step)
                hand = replace(hand, motion=tuple(SHUTTER * (np.asarray(later.tip)
                                                             - np.asarray(hand.tip))))
            hands = (hand,)
        if hands:
            p = Painter.resume(scene, dist.canvas_camera, canvas, ids, records)
            draw_hands(p, hands)
            canvas, ids, records = p.canvas, p.ids, p.records
        image = apply_effects(dist.apply(canvas), self.fx, make_rng(self.seed, "noise", i))
        stable = st.phase == "still" and st.since >= self.fps * 0.5
        extra = {"effects": self.fx.to_json(), "frame": i, "phase": st.phase,
                 "stable": stable, "position_index": st.position,
                 "hands": [h.to_json() for h in hands]}
        truth = build_truth(scene, self.poses[st.pose][1], dist.canvas_camera, dist.margin,
                            Rendered(canvas, ids, records), extra)
        return Frame(i, self.start_time + i / self.fps, image, truth, st.position, st.phase,
                     stable)



def _half_round(cam: Camera, centre) -> Camera:
    """``cam`` turned 180 degrees about the vertical through ``centre`` (world mm): the
    same view of the table from the opposite side."""
    D = np.diag([-1.0, -1.0, 1.0])
    c = np.asarray(centre, np.float64)
    R = cam.R @ D
    return replace(cam, R=R, t=-R @ (c + D @ (cam.center - c)),
                   azimuth=(cam.azimuth + 180.0) % 360.0)
