"""``tableref render``: one synthetic photograph of a game, with its ground truth."""

from __future__ import annotations

import argparse

GAMES = ("esoloe", "esoloe-tictactoe", "esoloe-3andc", "neunfeld", "tyr", "cubes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES,
                        help="game id (default: the file's observation 'game')")
    parser.add_argument("--position", default="random",
                        help="a JSON file holding a position object or an observation, "
                             "or 'random' for a random legal playout (default)")
    parser.add_argument("--seed", type=int, default=0, help="the image seed (default 0)")
    parser.add_argument("--camera", choices=("any", "overhead", "oblique"), default="any")
    parser.add_argument("--clean", action="store_true",
                        help="no lens distortion and no camera effects (noise, blur, JPEG)")
    parser.add_argument("--count", type=int, default=1,
                        help="this many images, seeds SEED, SEED+1, ... (default 1)")
    parser.add_argument("--out", default=".", help="folder for NAME.png and NAME.json")


def _load_position(path: str, game: str | None):
    import json

    from rules.core import InvalidPosition

    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise InvalidPosition("", f"cannot read {path}: {e.strerror}") from None
    try:
        data = json.loads(text.splitlines()[0] if path.endswith(".jsonl") else text)
    except (json.JSONDecodeError, IndexError) as e:
        raise InvalidPosition("", f"{path} is not JSON: {e}") from None
    if isinstance(data, dict) and "position" in data:
        game = game or data.get("game")
        data = data["position"]
    if game is None:
        raise InvalidPosition("game", "say --game, or give an observation with 'game'")
    return game, data


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    import cv2

    from rules.core import RulesError
    from vision.render.effects import Effects
    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        if args.position == "random":
            if args.game is None:
                print("tableref render: --position random needs --game", file=sys.stderr)
                return 2
            game, position = args.game, None
        else:
            game, position = _load_position(args.position, args.game)
        for k in range(args.count):
            seed = args.seed + k
            pos = position if position is not None else random_position(game, seed)
            opt = RenderOptions(camera_mode=args.camera,
                                effects=Effects.clean() if args.clean else None,
                                distortion=not args.clean)
            image, truth = render_scene(game, pos, seed, options=opt)
            name = f"{game}-{seed}"
            cv2.imwrite(str(out / f"{name}.png"), image)
            (out / f"{name}.json").write_text(json.dumps(truth, indent=1))
            print(out / f"{name}.png")
    except RulesError as e:
        print(f"tableref render: {e}", file=sys.stderr)
        return 1
    return 0
