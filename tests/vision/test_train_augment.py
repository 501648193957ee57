"""The trainer's augmentations for the pipeline's crops: a crop cut from corners a little
off (a random homography), blur, low light; which models use them."""

import math
from dataclasses import replace

import pytest

from vision.classifier import InputSpec
from vision.train.registry import MODELS, ModelSpec

torch = pytest.importorskip("torch", reason="the trainer needs the train extra (torch, onnx)")

from vision.train import trainer  # noqa: E402

SPEC = ModelSpec(name="tiny", heads={"a": ("x", "y")},
                 input=InputSpec(16, 3, (0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
                 source=lambda n, s: None)


def _grid(n: int, size: int = 5) -> torch.Tensor:
    eye = torch.tensor([[1.0, 0, 0], [0, 1.0, 0]]).expand(n, 2, 3)
    return torch.nn.functional.affine_grid(eye, [n, 1, size, size], align_corners=True)


def test_misaligned_moves_the_corners_and_keeps_lines_straight():
    moves = torch.tensor([[[0.1, 0.0], [0.0, -0.2], [0.05, 0.05], [-0.1, 0.1]]])
    out = trainer._misaligned(_grid(1), moves)[0]
    corners = torch.stack([out[0, 0], out[0, -1], out[-1, -1], out[-1, 0]])
    assert torch.allclose(corners, torch.tensor([[-0.9, -1.0], [1.0, -1.2], [1.05, 1.05],
                                                 [-1.1, 1.1]]), atol=1e-5)
    top = out[0]  # the top edge's points stay on one line (a homography)
    d = top[1:] - top[:1]
    assert torch.allclose(d[:, 0] * d[-1, 1], d[:, 1] * d[-1, 0], atol=1e-5)
    assert torch.allclose(trainer._misaligned(_grid(2), torch.zeros(2, 4, 2)), _grid(2),
                          atol=1e-6)


def test_blur_keeps_flat_crops_and_softens_edges():
    x = torch.zeros(1, 3, 12, 12)
    x[..., 6:] = 1.0
    y = trainer._blur(x, 1.2)
    assert y.shape == x.shape
    assert torch.allclose(trainer._blur(torch.full((1, 3, 8, 8), 0.4), 1.0),
                          torch.full((1, 3, 8, 8), 0.4), atol=1e-6)
    assert 0.1 < float(y[0, 0, 0, 5]) < 0.5 < float(y[0, 0, 0, 6]) < 0.9
    assert float(y[0, 0, 0, 0]) < 1e-4 and float(y[0, 0, 0, 11]) > 1 - 1e-4


def test_low_light_darkens_the_batch():
    x = torch.full((64, 3, 16, 16), 0.6)
    y = [torch.zeros(64, dtype=torch.long)]
    plain, _ = trainer.augment(x.clone(), y, SPEC, torch.Generator().manual_seed(3))
    dark, _ = trainer.augment(x.clone(), y, replace(SPEC, dark=1.0),
                              torch.Generator().manual_seed(3))
    assert float(dark.mean()) < 0.8 * float(plain.mean())


def test_symbol_is_trained_for_the_pipelines_faces_and_the_others_as_before():
    symbol = MODELS["symbol"]
    assert symbol.misalign > 0 and symbol.blur > 0 and symbol.dark > 0
    assert symbol.low_res < 0.5
    for name in ("pips", "stone"):
        spec = MODELS[name]
        assert (spec.misalign, spec.blur, spec.dark, spec.label_smoothing) == (0, 0, 0, 0.05)
    assert math.isclose(MODELS["pips"].low_res_share, 0.5)
