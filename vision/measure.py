"""Measure the vision pipeline on renders against their ground truth.

    python -m vision.measure --games esoloe,esoloe-tictactoe --n 20 --camera overhead

Per game and camera mode: the board's found rate (corners named right and their mean
error under ``FOUND_PX``; "located": the same up to the corners' naming, a quarter or half
turn), the corner error (mean and median over found boards, px), the
occupancy and player accuracy over the fields of found boards, the up face's accuracy
(``models/symbol.onnx``: over the occupied fields read as occupied; "-" without the model)
and the time per frame.
Seeds are ``start .. start + n - 1`` for both the position and the image.

``evaluate`` (``--full``) measures any game end to end through ``vision.observe``: per
frame the board found or not, each element of the position (``elements``) right or wrong,
the whole position exactly right, and the time from the raw frame to the observation;
``--truth-board`` hands the reader the render's true corners instead (the reader alone;
``--jitter PX``: those corners each moved about PX px, seeded by the frame's seed);
``--truth-board --as-observed`` hands them to ``vision.observe`` as the registered board
(``observe_on_truth``): what ``observe`` returns there, the reader's reading repaired by
``most_likely_valid`` where the rules reject it; ``--kinds`` adds the e-SOLO-e family's
errors by kind (``error_kinds``: occupancy, height, players, up face, faces given wrong or
left null). ``--occlusion``: hands on scripted frames (``occlusion_rates``: seeds
``--hand-seeds``, each camera of ``--camera``) and false hands on still renders of random
positions (``still_occluded``: seeds ``start .. start + n - 1``, camera any; ``--frames``
as ``vision.board_measure`` keeps them), all observed on their true corners.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from vision.board import CORNER_NAMES, BoardFix, find_board, geometry
from vision.read_esoloe import read_fields

FOUND_PX = 10.0


@dataclass
class Tally:
    game: str
    camera: str
    frames: int = 0
    errors: list[float] = field(default_factory=list)  # mean corner error of found boards
    located: int = 0  # boards whose corners are right up to their naming (a quarter turn)
    fields: int = 0
    occupancy_ok: int = 0
    cubes: int = 0
    player_ok: int = 0
    up_read: int = 0  # cubes whose up face the model read
    up_ok: int = 0
    seconds: float = 0.0

    @property
    def found_rate(self) -> float:
        return len(self.errors) / max(self.frames, 1)

    def line(self) -> str:
        e = np.asarray(self.errors) if self.errors else np.array([np.nan])
        return (f"{self.game:17s} {self.camera:8s} found {len(self.errors)}/{self.frames} "
                f"(located {self.located}) "
                f"corner err mean {np.mean(e):.2f} px median {np.median(e):.2f} px | "
                f"occupancy {self.occupancy_ok}/{self.fields} player {self.player_ok}/"
                f"{self.cubes} up {f'{self.up_ok}/{self.up_read}' if self.up_read else '-'} | "
                f"{1000 * self.seconds / max(self.frames, 1):.0f} ms/frame")


def measure(game: str, camera: str, n: int, start: int = 100) -> Tally:
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    geom = geometry(game)
    tally = Tally(game, camera)
    for seed in range(start, start + n):
        position = random_position(game, seed)
        image, truth = render_scene(game, position, seed,
                                    options=RenderOptions(camera_mode=camera))
        tally.frames += 1
        t0 = time.perf_counter()
        fix = find_board(image, geom)
        fields = read_fields(image, fix, geom) if fix is not None else None
        tally.seconds += time.perf_counter() - t0
        if fix is None:
            continue
        want = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
        err = float(np.linalg.norm(fix.corners - want, axis=1).mean())
        turned = min(float(np.linalg.norm(np.roll(fix.corners, k, axis=0) - want, axis=1).mean())
                     for k in range(4))
        tally.located += turned <= FOUND_PX
        if err > FOUND_PX:
            continue
        tally.errors.append(err)
        for got, stack in zip(fields, position["cells"], strict=True):
            tally.fields += 1
            tally.occupancy_ok += got["occupied"] == bool(stack)
            if stack and got["occupied"]:
                tally.cubes += 1
                tally.player_ok += got["player"] == stack[-1]["player"]
                if got["up"] is not None:
                    tally.up_read += 1
                    tally.up_ok += got["up"].label == stack[-1]["faces"]["up"]
    return tally


def truth_fix(truth: dict) -> BoardFix:
    """The board fix of a render's true corners."""
    corners = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES], np.float64)
    return BoardFix(corners, corners)


def observe_on_truth(image: np.ndarray, game: str, truth: dict) -> dict:
    """``vision.observe.observe`` of a render on its true corners, given as the
    calibration's registered board (nothing finds the board): the observation ``observe``
    returns on them (the reader; the board's edge checked for a hand beside the reader's
    mask of its pieces, ``covered``; the position repaired by ``most_likely_valid``)."""
    from vision.observe import observe

    return observe(image, game, calibration={"board": truth_fix(truth).corners})


def board_found(fix: BoardFix | None, truth: dict) -> bool:
    """Corners named right and their mean error under ``FOUND_PX``."""
    if fix is None:
        return False
    want = np.array([truth["board"]["corners"][k] for k in CORNER_NAMES])
    return float(np.linalg.norm(fix.corners - want, axis=1).mean()) <= FOUND_PX


def elements(game: str, position: dict) -> dict[str, object]:
    """The position's elements by path, as the accuracy counts them: e-SOLO-e a field's
    stack (height, top cube's player and up face), Neunfeld each pawn and each die's top
    and holder, Tyr each die's cell and (on the board) top, Cubes each field's token and
    each seat's dependency card."""
    if game == "neunfeld":
        out: dict[str, object] = {f"pawns.{i}": p for i, p in enumerate(position["pawns"])}
        for c, d in position["dice"].items():
            out[f"dice.{c}.top"], out[f"dice.{c}.holder"] = d["top"], d["holder"]
        return out
    if game == "tyr":
        out = {}
        for c, d in position["dice"].items():
            out[f"dice.{c}.cell"] = d["cell"]
            if d["cell"] is not None:
                out[f"dice.{c}.top"] = d["top"]
        return out
    if game == "cubes":
        out = {f"grid.{r}.{c}": t for r, row in enumerate(position["grid"])
               for c, t in enumerate(row)}
        for p in position.get("players") or []:
            out[f"dependency.{p['seat']}"] = p.get("dependency")
        return out
    return {f"cells.{i}": (len(s), s[-1]["player"], (s[-1].get("faces") or {}).get("up"))
            if s else None for i, s in enumerate(position["cells"])}


ESOLOE_GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc")


def error_kinds(want: dict, got: dict, uncertain: list | tuple = ()) -> Counter:
    """An e-SOLO-e family reading's errors by kind against the truth's position: fields;
    occupancy wrong (``occupancy missed`` / ``extra``, and of those ``occupancy flagged``,
    listed in ``uncertain``); over the fields occupied in both: ``stacks``, ``height
    wrong`` (``height sure wrong``: not listed), ``top player wrong``, ``up`` symbols in the
    truth and of those ``up null`` / ``up wrong``; over the stacks read at their height:
    ``lower cubes`` and ``lower player wrong``, the ``cubes`` with faces in the truth, their
    ``faces`` and of those ``face null`` / ``face wrong`` (a wrong non-null face is an
    orientation guessed wrong), ``cubes resolved`` (all six faces given) and ``cubes with a
    wrong face``."""
    listed = {u["path"] for u in uncertain}
    out: Counter = Counter()
    for i, (ws, gs) in enumerate(zip(want["cells"], got["cells"], strict=True)):
        out["fields"] += 1
        if bool(ws) != bool(gs):
            out["occupancy wrong"] += 1
            out["occupancy missed" if ws else "occupancy extra"] += 1
            out["occupancy flagged"] += f"cells.{i}" in listed
            continue
        if not ws:
            continue
        out["stacks"] += 1
        if len(ws) != len(gs):
            out["height wrong"] += 1
            out["height sure wrong"] += f"cells.{i}" not in listed
        out["top player wrong"] += ws[-1]["player"] != gs[-1]["player"]
        up, read = ((c.get("faces") or {}).get("up") for c in (ws[-1], gs[-1]))
        if up is not None:
            out["up"] += 1
            out["up null"] += read is None
            out["up wrong"] += read is not None and read != up
        if len(ws) != len(gs):
            continue
        for level, (wc, gc) in enumerate(zip(ws, gs, strict=True)):
            if level < len(ws) - 1:
                out["lower cubes"] += 1
                out["lower player wrong"] += wc["player"] != gc["player"]
            faces, given = wc.get("faces") or {}, gc.get("faces") or {}
            if not faces:
                continue
            out["cubes"] += 1
            out["cubes resolved"] += all(given.get(d) is not None for d in faces)
            wrong = sum(given.get(d) is not None and given.get(d) != v for d, v in faces.items())
            out["faces"] += len(faces)
            out["face null"] += sum(given.get(d) is None for d in faces)
            out["face wrong"] += wrong
            out["cubes with a wrong face"] += wrong > 0
    return out


@dataclass
class Frame:
    """One render's result: board found, elements right / counted, exact, seconds; for the
    e-SOLO-e family on a found board its ``error_kinds``."""

    found: bool
    right: int
    total: int
    exact: bool
    seconds: float
    error: str | None = None
    kinds: Counter = field(default_factory=Counter)


def evaluate(game: str, seeds, camera: str = "overhead", truth_board: bool = False,
             as_observed: bool = False, jitter: float = 0.0) -> list[Frame]:
    """Render each seed (position and image), observe it and compare with the truth.
    A frame whose board is not found counts every element wrong. ``truth_board``: the
    reader alone on the render's true corners (``jitter``: each corner's coordinates moved
    by a normal draw of sd ``jitter`` / sqrt 2 px, seeded by the frame's seed: about
    ``jitter`` px a corner, as found corners are off); with ``as_observed`` too,
    ``observe`` on them (``observe_on_truth``). The time is ``observe`` (or the reader
    alone) on the raw frame."""
    import importlib

    from vision.observe import READERS, ObserveError, observe
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    geom = geometry(game)
    out = []
    for seed in seeds:
        position = random_position(game, seed)
        image, truth = render_scene(game, position, seed,
                                    options=RenderOptions(camera_mode=camera))
        want = elements(game, truth["position"])  # as named (docs/vision.md, Naming)
        t0 = time.perf_counter()
        error, got, uncertain = None, None, []
        try:
            if truth_board and not as_observed:
                fix = truth_fix(truth)
                if jitter:
                    moved = fix.corners + np.random.default_rng(seed).normal(
                        0.0, jitter / np.sqrt(2), (4, 2))
                    fix = BoardFix(moved, moved)
                reading = importlib.import_module(READERS[game]).read(image, fix, geom, None)
                got, uncertain, found = reading.position, reading.uncertain, True
            else:
                obs = (observe_on_truth(image, game, truth) if truth_board
                       else observe(image, game))
                got, uncertain = obs["position"], obs.get("uncertain", [])
                found = board_found(BoardFix(np.array(
                    [obs["board"][k] for k in CORNER_NAMES], np.float64), None), truth)
        except ObserveError as err:
            error, found = str(err), False
        seconds = time.perf_counter() - t0
        if not found or got is None:
            out.append(Frame(False, 0, len(want), False, seconds, error))
            continue
        have = elements(game, got)
        right = sum(have.get(k) == v for k, v in want.items())
        kinds = (error_kinds(truth["position"], got, uncertain) if game in ESOLOE_GAMES
                 else Counter())
        out.append(Frame(True, right, len(want), right == len(want), seconds, kinds=kinds))
    return out


def occlusion_rates(game: str, seeds=(3, 5), moves: int = 3,
                    camera: str = "overhead") -> tuple[int, int, int, int]:
    """(hand frames seen, hand frames, still frames called occluded, still frames) of
    scripted games (``camera``: overhead or oblique, 3 frames a second, the rules' first
    ``moves`` legal moves) observed on their true corners (``observe_on_truth``: a frame is
    called occluded where the observation says so; the edge check beside the reader's mask
    of its pieces, as ``observe`` does it): a hand frame has a cell the truth says a hand
    hides; a still frame is in phase still with no hand in view."""
    from rules.registry import get_game
    from vision.render.frame import RenderOptions
    from vision.render.script import ScriptedGame

    seen = hands = false = still = 0
    for seed in seeds:
        state = get_game(game).initial_state()
        positions = [state.position.to_json()]
        for k in range(moves):
            legal = list(state.legal_moves)
            state = state.apply(legal[k % len(legal)])
            positions.append(state.position.to_json())
        script = ScriptedGame(game, positions, seed=seed, fps=3,
                              options=RenderOptions(camera_mode=camera))
        for i in range(len(script)):
            frame = script.frame(i)
            hand = any(c["hidden_by"] == "hand" for c in frame.truth["cells"])
            calm = frame.phase == "still" and not frame.truth["hands"]
            if hand or calm:
                occluded = "occlusion" in observe_on_truth(frame.image, game, frame.truth)
                seen, hands = seen + (hand and occluded), hands + hand
                false, still = false + (calm and occluded), still + calm
    return seen, hands, false, still


def still_occluded(game: str, seeds, folder: str | None = None) -> tuple[int, int]:
    """(renders called occluded, renders) of random positions (``vision.board_measure``'s
    frames: camera any, no hand in any; ``folder`` as it keeps them) observed on their
    true corners (``observe_on_truth``): every one called occluded is a false hand, which
    would stall the referee on a still board."""
    from vision.board_measure import frame

    seeds = list(seeds)
    false = 0
    for seed in seeds:
        image, corners = frame(game, seed, "any", folder)
        truth = {"board": {"corners": dict(zip(CORNER_NAMES, corners.tolist(), strict=True))}}
        false += "occlusion" in observe_on_truth(image, game, truth)
    return false, len(seeds)


def summary(frames: list[Frame]) -> dict:
    """Board found %, element accuracy, exact-position %, median and p95 ms."""
    n = max(len(frames), 1)
    ms = np.array([f.seconds * 1000 for f in frames]) if frames else np.zeros(1)
    return {"frames": len(frames), "found %": 100 * sum(f.found for f in frames) / n,
            "element %": 100 * sum(f.right for f in frames) / max(sum(f.total for f in
                                                                    frames), 1),
            "exact %": 100 * sum(f.exact for f in frames) / n,
            "median ms": float(np.median(ms)), "p95 ms": float(np.percentile(ms, 95))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.measure", description=__doc__)
    parser.add_argument("--games", default="esoloe,esoloe-tictactoe")
    parser.add_argument("--camera", default="overhead,oblique")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--start", type=int, default=100)
    parser.add_argument("--full", action="store_true",
                        help="end to end through vision.observe, any game (evaluate)")
    parser.add_argument("--truth-board", action="store_true",
                        help="with --full: the reader alone, on the render's true corners")
    parser.add_argument("--as-observed", action="store_true",
                        help="with --full --truth-board: vision.observe on the true corners "
                             "(observe_on_truth: the reading as observe returns it, repaired "
                             "by most_likely_valid)")
    parser.add_argument("--jitter", type=float, default=0.0, metavar="PX",
                        help="with --full --truth-board: the true corners each moved about "
                             "PX px (seeded by the frame's seed; evaluate)")
    parser.add_argument("--occlusion", action="store_true",
                        help="hands on scripted frames (occlusion_rates, per --camera) and "
                             "false hands on still renders of seeds --start.. (camera any: "
                             "still_occluded), observed on their true corners, per game")
    parser.add_argument("--hand-seeds", default="3,5", metavar="S,S",
                        help="with --occlusion: the scripted games' seeds")
    parser.add_argument("--frames", metavar="FOLDER",
                        help="with --occlusion: the still renders kept in (and read back "
                             "from) FOLDER, as vision.board_measure keeps them")
    parser.add_argument("--kinds", action="store_true",
                        help="with --full, e-SOLO-e family: the errors by kind (error_kinds) "
                             "over the found boards")
    args = parser.parse_args(argv)
    from vision.render.scene import named_games

    try:
        games = named_games(args.games)
    except ValueError as error:
        parser.error(str(error))
    if args.as_observed and not (args.full and args.truth_board):
        parser.error("--as-observed goes with --full --truth-board (--full alone already "
                     "measures vision.observe)")
    if args.jitter and not (args.full and args.truth_board and not args.as_observed):
        parser.error("--jitter goes with --full --truth-board (the reader alone)")
    if args.frames and not args.occlusion:
        parser.error("--frames goes with --occlusion")
    if args.occlusion:
        try:
            hand_seeds = [int(s) for s in args.hand_seeds.split(",")]
        except ValueError:
            parser.error(f"--hand-seeds {args.hand_seeds!r}: seeds as integers, comma-separated")
        cameras = args.camera.split(",")
        if not set(cameras) <= {"overhead", "oblique"}:
            parser.error(f"--camera {args.camera!r}: with --occlusion, overhead and/or oblique "
                         "(the still renders' camera is any)")
        for game in games:
            for camera in cameras:
                seen, hands, false, still = occlusion_rates(game, hand_seeds, camera=camera)
                print(f"{game:17s} {camera:8s} hand frames seen {seen} of {hands}, still "
                      f"frames called occluded {false} of {still}", flush=True)
            if args.n:
                false, renders = still_occluded(game, range(args.start, args.start + args.n),
                                                args.frames)
                print(f"{game:17s} any      still renders called occluded {false} of "
                      f"{renders} (seeds {args.start}..{args.start + args.n - 1})", flush=True)
        return 0
    if args.full:
        for game in games:
            for camera in args.camera.split(","):
                frames = evaluate(game, range(args.start, args.start + args.n), camera,
                                  args.truth_board, args.as_observed, args.jitter)
                row = summary(frames)
                print(f"{game:17s} {camera:8s} " + " ".join(
                    f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in row.items()), flush=True)
                if args.kinds and game in ESOLOE_GAMES:
                    kinds = sum((f.kinds for f in frames), Counter())
                    print("    " + ", ".join(f"{k} {v}" for k, v in kinds.items()), flush=True)
        return 0
    for game in games:
        for camera in args.camera.split(","):
            print(measure(game, camera, args.n, args.start).line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
