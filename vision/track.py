"""Frame-to-frame tracking of a found board: ``BoardTracker(geom).update(image)``.

Finding a board anew (``vision.board.find_board``) costs a few hundred milliseconds; a
camera on a stand mostly sees the board where it was. Per frame the tracker checks the
last fix first, on a crop round it only:

- **still**: the board's pattern (``vision.board.pattern_check``: its outline and
  painted lines) shows where the last corners put it, nearly as much as it did the last
  time it was seen so (``STALE_SHARE``; pieces placed since hide a little more each
  time) and at least ``STILL_SHARE`` of what it showed when the fix was made, and its
  edges lie off the corners' model by at most ``STILL_PX`` (median) more than when the
  fix was made (a fine fit leaves some offset on a printed board): the last fix stands,
  nothing else is done;
- **stale or hidden**: what shows is in place, but less of it. A hand over the board
  hides part of the pattern; a board pushed by a pixel or two shows it the same way
  (the edges across the push fall beyond 1 px and are not counted, those along it stay
  in place, so the median offset stays small: 1 mm pushed on the Cubes board keeps
  only 55 % of the pattern, and 0.3 degrees turned 89 %, which the still check used to
  pass). So the corners are re-fitted from the last ones (``fit_model``, as for
  **moved**); a re-fit that shows ``REFIT_GAIN`` more of the pattern and nearly as much
  as the board showed before (``STALE_SHARE``: under a hand a re-fit may gain a little
  on wrong edges, never the hidden part) is the board pushed (**moved**), or where it
  moved a corner over ``REFIT_PX`` found anew (**found**: a Cubes board with stones on
  it pushed 4..9 px still looks in place, and the last fix used to stand as *hidden*);
  else the last fix stands: **still**, or **hidden** (a hand) under ``STILL_SHARE`` of
  the fix's share. While about as much shows as when a re-fit last found nothing better
  (within ``STALE_SHARE`` either way), it is not tried again (a hand held over the
  board costs one re-fit, not one a frame). Where what shows is in place but under
  ``HIDDEN_SHARE`` of it (a hand over most of the board; at least ``GONE_SHARE``, else
  the board may be gone: found anew or *lost*), or the re-fit moved a corner
  over ``REFIT_PX``, the board is found anew and taken only where it shows
  ``STILL_SHARE`` of what the board last showed, in the last fix's shape; else the last
  fix stands as *hidden*: a find under a hand fails or settles on the hand's, the
  pieces' and the table's edges elsewhere (kept, such a board stayed wrong for the
  rest of the game);
- **reshaped**: a push or a knocked camera changes the distances between the board's
  corners in the image by under ``SHAPE_SHARE`` of its diagonal; a re-fit or a board
  found anew near the last fix that changes them more has a side on a wrong line (a
  tile's side polished onto an inner line of the tiles, seen obliquely): it is not
  taken, the re-fit's outline before ``vision.board.finished``'s steps is where that
  keeps the shape and shows as well, else the last fix stands (*hidden*); the same
  board found again (``REFOUND_PX``) is taken (a last fix that was itself off in shape
  does not hold for long);
- **moved**: it shows shifted (the board was pushed, the camera knocked a little): the
  corners are re-fitted from the last ones (``fit_model``, edges looked for up to
  ``NUDGE_PX`` away, then ``vision.board.finished``'s last steps in the whole frame,
  as the board's finding ends) and kept if the pattern shows as well again;
- **found**: too little shows: the board is found anew in the whole frame (it or the
  camera moved farther);
- **lost**: not found either, and what showed was not in place or under ``GONE_SHARE``:
  no fix (the next frame checks the last fix again first).

A board found anew is named as the one tracked before it where its naming comes from
the camera rule alone (``vision.board.orient``: boards without marks read): of the
turns its shape allows, the one whose corners lie nearest the last fix's, when that one
lies within ``RENAME_SHARE`` of the board's size: a board nudged across the camera
rule's 45 degrees keeps its sides' names for the rest of the game (docs/vision.md,
*Naming*).

``python -m vision.track`` measures it on scripted games (``vision.render.ScriptedGame``:
hands over the board, the board pushed and the camera knocked between moves).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import cv2
import numpy as np

from vision.board import (
    CORNER_NAMES,
    MARKED,
    BoardFix,
    Geometry,
    find_board,
    finished,
    fit_grey,
    fit_model,
    geometry,
    pattern_check,
)

STILL_SHARE = 0.85  # of the pattern share seen when found: in place
STALE_SHARE = 0.95  # ... under this share a push may hide as a hand: re-fit and compare
REFIT_GAIN = 0.03  # pattern share a re-fit must show more than the last corners
STILL_PX = 0.35  # median offset of the pattern's edges, beyond the fix's own: moved
HIDDEN_SHARE = 0.35  # of that share still in place: a hand hides the rest
# ... under this, the board may be gone (a table's own edges fall on 7 % of a tic-tac-toe
# board's pattern points taken away; a hand over e-SOLO-e's board left 23 %)
GONE_SHARE = 0.15
NUDGE_PX = 12.0  # how far a re-fit looks for the edges of a board that moved a little
REFIT_PX = 4.0  # a re-fit that moves a corner farther is checked by finding the board anew
CHECK_POINTS = 400  # the pattern's points a check looks at (evenly spread)
MARGIN_PX = 10  # crop margin round the board beyond the re-fit's reach and profiles
RENAME_SHARE = 0.5  # a board found anew this near the last (of its size) keeps its naming
# a push or a knocked camera changes the board's shape in the image (the distances
# between its corners) by at most this share of its diagonal (scripted nudges: 2.1 %); a
# fit near the last fix that changes it more has a side on a wrong line (a tile's inner one)
SHAPE_SHARE = 0.04
REFOUND_PX = 1.0  # a reshaped board found again this near (max corner) is taken


@dataclass(frozen=True)
class Track:
    fix: BoardFix | None  # the board's corners now (the last ones while it is hidden)
    status: str  # still, moved, hidden, found, lost


class BoardTracker:
    """Follows one game's board from frame to frame (``update``)."""

    def __init__(self, geom: Geometry, find=find_board):
        self.geom = geom
        self.find = find  # finds the board anew: (image, geom) -> BoardFix | None
        self.last: BoardFix | None = None
        self.reference = 0.0  # pattern share when the last fix was made
        self.shown = 0.0  # ... when the board was last seen in place, nothing hiding more
        self.tried = -1.0  # ... when a re-fit last found nothing better (-1: none since)
        self.offset = 0.0  # median offset of the pattern's edges then (px)
        self.refused: np.ndarray | None = None  # corners of the last reshaped find refused

    def _crop(self, image: np.ndarray, corners: np.ndarray):
        """(fit grey of the crop round ``corners``, the crop's origin in the frame)."""
        h, w = image.shape[:2]
        pad = NUDGE_PX + MARGIN_PX
        x0, y0 = np.maximum(np.floor(corners.min(axis=0) - pad), 0).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
        x1, y1 = min(x1, w), min(y1, h)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None, np.zeros(2)
        return fit_grey(image[y0:y1, x0:x1]), np.array([x0, y0], np.float64)

    def _keep(self, fix: BoardFix, share: float, shift: float, status: str) -> Track:
        self.last, self.reference, self.shown, self.tried = fix, share, share, -1.0
        self.refused = None
        self.offset = shift if np.isfinite(shift) else 0.0
        return Track(fix, status)

    def _in_place(self, share: float) -> Track:
        return Track(self.last, "still" if share >= STILL_SHARE * self.reference else "hidden")

    def update(self, image: np.ndarray) -> Track:
        """The board in ``image`` (BGR uint8, the frame after the last one given)."""
        geom = self.geom
        if self.last is not None:
            grey, origin = self._crop(image, self.last.corners)
            if grey is not None:
                corners = self.last.corners - origin
                share, _, shift = pattern_check(grey, corners, geom, CHECK_POINTS)
                in_place = shift <= self.offset + STILL_PX
                shows = in_place and share >= STALE_SHARE * self.shown
                if shows:  # pieces placed hide a little of it each time
                    self.shown = share
                # as when the last re-fit found nothing better: nothing changed since
                same = STALE_SHARE * self.tried <= share <= self.tried / STALE_SHARE
                if (shows or in_place and same) and share >= HIDDEN_SHARE * self.reference:
                    return self._in_place(share)
                outline = fit_model(grey, corners, geom, wide=NUDGE_PX)
                h, w = image.shape[:2]
                fitted = finished(fit_grey(image), outline + origin, geom, (w, h)) - origin
                new_share, _, new_shift = pattern_check(grey, fitted, geom, CHECK_POINTS)
                step = float(np.linalg.norm(fitted - corners, axis=1).max())
                # in place, only a re-fit that shows the pattern as the board did is a
                # push: under a hand it can gain a little by locking onto wrong edges
                enough = (new_share >= STALE_SHARE * self.shown
                          and new_share >= share + REFIT_GAIN) if in_place else (
                    new_share >= STILL_SHARE * self.reference)
                if enough and step <= REFIT_PX and not self._reshaped(fitted + origin):
                    return self._keep(BoardFix(fitted + origin, self.last.corners),
                                      new_share, new_shift, "moved")
                # a re-fit that shows the board farther off is a push (checked anew
                # below), not a hand over a board in place
                if in_place and not enough and share >= HIDDEN_SHARE * self.reference:
                    self.tried = share
                    return self._in_place(share)
                hidden = in_place and share >= GONE_SHARE * self.reference
                return self._found(image, grey, origin, outline, hidden)
        return self.anew(image)

    def _found(self, image: np.ndarray, grey: np.ndarray, origin: np.ndarray,
               outline: np.ndarray, hidden: bool) -> Track:
        """The board found anew where the last fix's check and re-fit did not hold: taken
        in the last fix's shape (``_reshaped``), and where what showed of the board was in
        place (``hidden``: a hand over most of it, or a re-fit that moved a corner over
        ``REFIT_PX``) only where it shows ``STILL_SHARE`` of what the board last showed;
        a board reshaped gives way to the re-fit's ``outline`` (``fit_model``'s, before
        ``finished``'s steps; in ``grey``, the crop round the last fix at ``origin``)
        where that one keeps the shape and shows as well; else the last fix stands,
        *hidden* (a find under a hand fails or settles on the hand's, the pieces' and the
        table's edges; one after a push may put a tile's side on an inner line), or,
        with nothing found and nothing in place, *lost*."""
        geom = self.geom
        fix = self.find(image, geom)
        if fix is None:
            return Track(self.last, "hidden") if hidden else Track(None, "lost")
        fix = self._named_as_before(fix)
        again = self.refused is not None and float(
            np.linalg.norm(fix.corners - self.refused, axis=1).max()) <= REFOUND_PX
        if again or not self._reshaped(fix.corners):
            crop, at = self._crop(image, fix.corners)
            share, _, shift = pattern_check(crop, fix.corners - at, geom, CHECK_POINTS)
            if not hidden or share >= STILL_SHARE * self.shown:
                return self._keep(fix, share, shift, "found")
            return Track(self.last, "hidden")
        self.refused = fix.corners
        share, _, shift = pattern_check(grey, outline, geom, CHECK_POINTS)
        if share >= STILL_SHARE * self.shown and not self._reshaped(outline + origin):
            return self._keep(BoardFix(outline + origin, self.last.corners), share, shift,
                              "moved")
        return Track(self.last, "hidden")

    def _reshaped(self, corners: np.ndarray) -> bool:
        """Whether ``corners`` lie near the last fix's (within ``RENAME_SHARE`` of its
        diagonal) in a shape no push gives them (``SHAPE_SHARE``)."""
        last = self.last.corners
        size = float(np.linalg.norm(last[0] - last[2]))
        if np.linalg.norm(corners - last, axis=1).max() > RENAME_SHARE * size:
            return False
        apart = np.linalg.norm(corners[:, None] - corners[None], axis=2)
        was = np.linalg.norm(last[:, None] - last[None], axis=2)
        return bool(np.abs(apart - was).max() > SHAPE_SHARE * was.max())

    def anew(self, image: np.ndarray, keep: bool = True) -> Track:
        """The board found anew in the whole frame (``found``, or ``lost`` keeping the
        last fix); ``keep`` False: not tracked on unless given to ``adopt``."""
        fix = self.find(image, self.geom)
        if fix is None:
            return Track(None, "lost")
        fix = self._named_as_before(fix)
        if keep:
            self.adopt(image, fix)
        return Track(fix, "found")

    def _named_as_before(self, fix: BoardFix) -> BoardFix:
        """``fix`` with its corners named as the last fix's, where the camera rule alone
        named them and the board lies near where it was (``RENAME_SHARE``)."""
        if self.last is None or self.geom.game in MARKED:
            return fix
        last = self.last.corners
        off = {k: float(np.linalg.norm(np.roll(fix.corners, k, axis=0) - last, axis=1).max())
               for k in _turns(self.geom)}
        k = min(off, key=off.get)
        size = float(np.linalg.norm(last[0] - last[2]))  # a diagonal, px
        if k == 0 or off[k] > RENAME_SHARE * size:
            return fix
        return BoardFix(np.roll(fix.corners, k, axis=0), np.roll(fix.coarse, k, axis=0))

    def adopt(self, image: np.ndarray, fix: BoardFix) -> None:
        """Track on ``fix`` (the board's corners in ``image``) from now on."""
        grey, origin = self._crop(image, fix.corners)
        share, _, shift = pattern_check(grey, fix.corners - origin, self.geom, CHECK_POINTS)
        self._keep(fix, share, shift, "found")


WRONG_PX = 3.0  # a fix whose mean corner error is over this is the board wrong (measure)


def _scripted_frames(game: str, seed: int, moves: int, camera: str, frames: str | None):
    """(image, true corners, whole board in view) per frame of the scripted game; with
    ``frames`` a folder, rendered once into it (PNG, lossless) and read back after."""
    from pathlib import Path

    from vision.render.frame import RenderOptions
    from vision.render.positions import random_position
    from vision.render.script import ScriptedGame

    folder = Path(frames, f"{game}-{camera}-{seed}-{moves}") if frames else None
    if folder is not None and (folder / "corners.npy").exists():
        corners = np.load(folder / "corners.npy")
        for i, want in enumerate(corners):
            image = cv2.imread(str(folder / f"{i:04d}.png"))
            if image is None:
                raise SystemExit(f"{folder}: frame {i:04d}.png missing or unreadable")
            yield image, want, _in_view(want, image.shape)
        return
    positions = [random_position(game, seed, plies) for plies in range(moves + 1)]
    script = ScriptedGame(game, positions, seed, nudge=0.5,
                          options=RenderOptions(camera_mode=camera))
    every = []
    for frame in script:
        want = np.array([frame.truth["board"]["corners"][k] for k in CORNER_NAMES])
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{frame.index:04d}.png"), frame.image,
                        [cv2.IMWRITE_PNG_COMPRESSION, 1])
            every.append(want)
        yield frame.image, want, _in_view(want, frame.image.shape)
    if folder is not None:
        np.save(folder / "corners.npy", np.array(every))


def _in_view(corners: np.ndarray, shape) -> bool:
    """Whether all the board's corners lie inside the image."""
    h, w = shape[:2]
    return bool(np.all((corners >= 0) & (corners <= (w - 1, h - 1))))


def _turns(geom: Geometry) -> tuple[int, ...]:
    """The turns (of a quarter) that give the board the same outline: a square's four,
    an oblong's two."""
    return (0, 1, 2, 3) if geom.width == geom.depth else (0, 2)


def measure(game: str, seed: int, moves: int, camera: str,
            frames: str | None = None) -> dict:
    """Track a scripted game of ``moves`` random moves; per status: frames, ms per frame,
    frames with a fix, the sum of their mean corner error (px), how many of them are
    over 1.5 px off (max corner) and *wrong* (mean corner error over ``WRONG_PX``), and
    frames without one while the whole board is in view (``lost``). Where the camera rule
    alone names the corners (not ``MARKED``), the tracker keeps the naming of a board
    nudged across its 45 degrees (``RENAME_SHARE``) and the truth does not: the error is
    that of the nearest naming the board's outline allows (``_turns``)."""
    geom = geometry(game)
    turns = (0,) if game in MARKED else _turns(geom)
    tracker = BoardTracker(geom)
    out: dict = {}
    for image, want, in_view in _scripted_frames(game, seed, moves, camera, frames):
        t0 = time.perf_counter()
        track = tracker.update(image)
        ms = 1000 * (time.perf_counter() - t0)
        row = out.setdefault(track.status, {"frames": 0, "ms": 0.0, "off": 0, "wrong": 0,
                                            "lost": 0, "fixed": 0, "error": 0.0})
        row["frames"] += 1
        row["ms"] += ms
        if track.fix is None:
            row["lost"] += in_view
            continue
        error = min((np.linalg.norm(np.roll(track.fix.corners, k, axis=0) - want, axis=1)
                     for k in turns), key=np.mean)
        row["off"] += bool(error.max() > 1.5)
        row["wrong"] += bool(error.mean() > WRONG_PX)
        row["fixed"] += 1
        row["error"] += float(error.mean())
    return out


def _total(rows: list[dict]) -> dict:
    """The rows of ``measure`` summed over statuses (and scenes)."""
    keys = ("frames", "ms", "off", "wrong", "lost", "fixed", "error")
    return {k: sum(r.get(k, 0) for r in rows) for k in keys}


def _scene_line(total: dict) -> str:
    return (f"{total['frames']} frames, wrong {total['wrong']}, lost {total['lost']}, "
            f"mean error {total['error'] / max(total['fixed'], 1):.2f} px")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.track", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="esoloe,esoloe-tictactoe,tyr,cubes")
    parser.add_argument("--camera", default="overhead,oblique")
    parser.add_argument("--seeds", default="100,101",
                        help="a comma-separated list or FIRST-LAST")
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--frames", metavar="DIR",
                        help="render each scene's frames once into DIR and reuse them")
    args = parser.parse_args(argv)
    try:
        first, _, last = args.seeds.partition("-")
        seeds = (list(range(int(first), int(last) + 1)) if last
                 else [int(s) for s in args.seeds.split(",")])
    except ValueError:
        seeds = []
    if not seeds:
        parser.error(f"--seeds {args.seeds!r}: not FIRST-LAST (FIRST <= LAST) or a "
                     "comma-separated list")
    from vision.render.scene import named_games

    try:
        games = named_games(args.games)
    except ValueError as error:
        parser.error(str(error))
    cv2.setNumThreads(1)
    print(f"per scene: frames, wrong (mean corner error over {WRONG_PX:g} px), lost (no fix "
          "while the board is in view), mean error of the frames with a fix; per status: "
          "frames (ms a frame, over 1.5 px at a corner, wrong, mean error)")
    for game in games:
        for camera in args.camera.split(","):
            scenes = []
            for seed in seeds:
                rows = measure(game, seed, args.moves, camera, args.frames)
                scenes.append(_total(rows.values()))
                cells = [f"{k} {v['frames']} ({v['ms'] / v['frames']:.1f} ms, off {v['off']}, "
                         f"wrong {v['wrong']}, {v['error'] / max(v['fixed'], 1):.2f} px)"
                         for k, v in sorted(rows.items())]
                print(f"{game:17s} {camera:8s} seed {seed}: {_scene_line(scenes[-1])}; "
                      + ", ".join(cells), flush=True)
            bad = sum(s["wrong"] + s["lost"] > 0 for s in scenes)
            print(f"{game:17s} {camera:8s} all {len(seeds)}: {_scene_line(_total(scenes))}; "
                  f"scenes with a frame lost or wrong {bad}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
