"""The model registry: every crop classifier the project trains, by name.

All models share one trainer; what differs is here. A crop source is a function
``source(n, seed) -> (crops, labels)``: ``n`` BGR uint8 crops and, per head, ``n`` label
strings (``None`` where a crop has no label for that head). It is named as
``"module:function"`` and imported only when training, so this registry stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module

import numpy as np

from vision.classifier import InputSpec

CropSource = Callable[[int, int], tuple[list[np.ndarray], dict[str, list[str | None]]]]

PIPS = tuple(str(n) for n in range(1, 10))
DIE_COLOURS = ("blue", "red", "black")
CUBE_SYMBOLS = ("sakura", "fuji", "geisha", "blank")
CUBE_PLAYERS = ("natural", "green")  # player 0 plays the natural wood cubes, player 1 green
QUARTER_TURNS = ("0", "1", "2", "3")
STONE_KINDS = ("white", "blue", "red", "black", "orange", "empty")
STONE_DIGITS = ("2", "3", "4", "5", "6")
STONE_SIDES = ("active", "inactive")
STACK_HEIGHTS = tuple(str(n) for n in range(1, 5))


@dataclass(frozen=True)
class ModelSpec:
    name: str
    heads: dict[str, tuple[str, ...]]  # head name -> labels, in output order
    input: InputSpec
    source: str | CropSource  # "module:function" or the function itself
    description: str = ""
    width: int = 16  # channels of the first conv layer; later layers scale from it
    train_size: int = 16000  # rendered crops per training run
    test_size: int = 2000  # held-out rendered crops (another seed)
    epochs: int = 12
    seed: int = 1  # the crops' and the network's seed the shipped file was trained with
    max_turn_deg: float = 180.0  # augmentation turns crops by up to this angle
    grey_heads: tuple[str, ...] = ()  # heads whose labels survive a grey crop
    grey: float = 0.3  # fraction of each batch turned grey (half of those negated)
    low_res: float = 0.5  # low-resolution augmentation shrinks crops down to this factor
    low_res_share: float = 0.5  # chance that a quarter of each batch is shrunk
    blur: float = 0.0  # share of each batch blurred (Gaussian, sigma up to blur_sigma px)
    blur_sigma: float = 1.5
    dark: float = 0.0  # share of each batch in low light (gain 0.4-0.8, more noise)
    misalign: float = 0.0  # corners of a crop moved by up to this share of its side
    label_smoothing: float = 0.05
    real_dice_head: str | None = None  # head measured (and adaptable) on the real dice
    adapt: str | None = None  # default real-dice adaptation, "GROUP:FRACTION"
    adapt_repeat: int = 8  # times each adaptation crop is shown per epoch

    def crop_source(self) -> CropSource:
        if callable(self.source):
            return self.source
        module, _, function = self.source.partition(":")
        try:
            return getattr(import_module(module), function)
        except (ImportError, AttributeError) as err:
            raise LookupError(
                f"crop source {self.source!r} of model {self.name!r} is not available ({err})"
            ) from None


def _rgb_spec(size: int) -> InputSpec:
    return InputSpec(size=size, channels=3, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25))


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in [
        ModelSpec(
            name="pips",
            heads={"pips": PIPS, "colour": DIE_COLOURS},
            input=_rgb_spec(32),
            source="vision.train.sources:die_tops",
            description="Miwin die, top face: pips 1..9 and the die's colour",
            train_size=8000,
            test_size=1000,
            # 40 % of the real crops at 24 epochs cost the blurred renders (0.995 -> 0.992);
            # 32 epochs keep them (0.998) and read the real crops better (models/pips.md)
            epochs=32,
            grey_heads=("pips",),
            # the real photos are mostly grey and blurred: more of both
            grey=0.6,
            low_res=0.3,
            real_dice_head="pips",
            adapt="IMG2019:0.4,other:0.4",
            # with a share of the renders blurred as frames are (sources.frame_blur), the
            # real crops shown 8 times an epoch read IMG2019 0.798 -> 0.789 (four turns);
            # 12 times 0.803 (models/pips.md)
            adapt_repeat=12,
        ),
        ModelSpec(
            name="symbol",
            heads={"symbol": CUBE_SYMBOLS, "rotation": QUARTER_TURNS, "cube": CUBE_PLAYERS},
            input=_rgb_spec(32),
            source="vision.train.sources:cube_faces",
            description="one e-SOLO-e cube face, rectified: its symbol, the symbol's quarter "
                        "turns clockwise, and the cube's colour (player)",
            train_size=8000,
            test_size=1000,
            epochs=16,
            # the pipeline's faces: cut from a found board (corners and turn a little off),
            # small (under 24 px), defocused or dark
            max_turn_deg=12.0,
            misalign=0.05,
            low_res=0.35,
            low_res_share=0.75,
            blur=0.25,
            blur_sigma=1.2,
            dark=0.2,
            grey_heads=("symbol", "rotation"),
        ),
        ModelSpec(
            name="stone",
            heads={"kind": STONE_KINDS, "digit": STONE_DIGITS, "side": STONE_SIDES},
            input=_rgb_spec(40),
            source="vision.train.sources:stone_fields",
            description="a Cubes field as the reader cuts it: empty, a white stone or a "
                        "colour with its digit and side",
            train_size=16000,
            test_size=1000,
            epochs=24,
            # the reader's crop is north up; the stones' own yaw (up to 12 degrees) is in
            # the renders
            max_turn_deg=15.0,
            grey_heads=("digit",),
        ),
        ModelSpec(
            name="height",
            heads={"height": STACK_HEIGHTS},
            input=_rgb_spec(32),
            source="vision.train.sources:stack_fields",
            description="an e-SOLO-e stack as vision.stack_height.height_crop cuts it (on a "
                        "2-cube stack's top plane, the camera's foot below): its cubes, 1..4",
            train_size=6000,
            test_size=1000,
            epochs=14,
            seed=0,
            # the crop is turned so that the camera's foot lies below it: small turns only;
            # no grey crops (half of them negated: a shadow turned light) and no low
            # resolution: with them (and 48 px) the loss stayed at the prior's for 6 epochs
            max_turn_deg=5.0,
            grey=0.0,
            low_res_share=0.0,
            blur=0.1,
            blur_sigma=1.0,
        ),
    ]
}


def get(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise LookupError(f"unknown model {name!r} (known: {', '.join(MODELS)})") from None


def label_indices(
    spec: ModelSpec, labels: dict[str, Sequence[str | None]]
) -> dict[str, np.ndarray]:
    """Label strings -> class indices per head (-100, ignored by the loss, for None)."""
    out = {}
    for head, classes in spec.heads.items():
        index = {label: i for i, label in enumerate(classes)}
        values = labels.get(head)
        if values is None:
            raise ValueError(f"crop source of {spec.name!r} gave no labels for head {head!r}")
        unknown = {v for v in values if v is not None and v not in index}
        if unknown:
            raise ValueError(f"head {head!r} of {spec.name!r}: unknown labels {sorted(unknown)}")
        out[head] = np.array([-100 if v is None else index[v] for v in values], np.int64)
    return out
