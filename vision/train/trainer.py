"""The one trainer for every crop classifier (needs the ``train`` extra: torch, onnx).

Data: ``spec.train_size`` crops from the model's crop source (seed ``seed``), a held-out
set of ``spec.test_size`` from another seed, optionally extra labelled crops (real dice for
adaptation). Crops are resized once with the runtime's own ``vision.classifier.resize``;
augmentation runs on batches in torch: turns (up to ``spec.max_turn_deg``), shifts and
scale, low resolution, brightness, contrast, white balance, grey or grey negative (which
hides the labels of heads not in ``spec.grey_heads``) and noise. The network is five 3x3
conv layers with batch norm, global average pooling and one linear layer per head.
Export: ONNX opset 17 with the labels and input spec in the file's metadata (see
vision/classifier.py); optionally int8 static quantisation with onnxruntime, kept only
where it keeps accuracy.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.classifier import (
    EMBEDDING_OUTPUT,
    METADATA_KEY,
    metadata_json,
    normalise,
    resize,
)
from vision.train.registry import ModelSpec, label_indices

OPSET = 17
IGNORE = -100


def _conv(c_in: int, c_out: int, stride: int) -> list[nn.Module]:
    return [nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True)]


class CropNet(nn.Module):
    """Five 3x3 conv layers (three halve the size) -> average pooling -> a linear per head.

    Plain convolutions rather than depthwise-separable ones: at these sizes (about 3 M
    multiply-adds for a 32 x 32 crop at width 16) they train several times faster in
    PyTorch on the CPU and run as fast in onnxruntime.
    """

    def __init__(self, spec: ModelSpec):
        super().__init__()
        w = spec.width
        self.features = nn.Sequential(
            *_conv(spec.input.channels, w, 1),
            *_conv(w, 2 * w, 2),
            *_conv(2 * w, 2 * w, 1),
            *_conv(2 * w, 3 * w, 2),
            *_conv(3 * w, 4 * w, 2),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.1),
        )
        self.heads = nn.ModuleList(nn.Linear(4 * w, len(labels)) for labels in spec.heads.values())


    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        features = self.features(x)
        return tuple(head(features) for head in self.heads)


class _WithEmbedding(nn.Module):
    """The exported graph: every head's logits, then the features they are computed from
    (the ``embedding`` output of vision/classifier.py)."""

    def __init__(self, model: CropNet):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        features = self.model.features(x)
        return (*(head(features) for head in self.model.heads), features)


@dataclass
class CropSet:
    """Resized crops (uint8, n x channels x size x size) with class indices per head."""

    images: np.ndarray
    labels: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.images)

    @classmethod
    def build(cls, spec: ModelSpec, crops: Sequence[np.ndarray],
              labels: dict[str, Sequence[str | None]]) -> CropSet:
        if len(crops) == 0:
            raise ValueError(f"no crops for model {spec.name!r}")
        return cls(resize(crops, spec.input.size, spec.input.channels),
                   label_indices(spec, labels))

    @classmethod
    def render(cls, spec: ModelSpec, n: int, seed: int) -> CropSet:
        crops, labels = spec.crop_source()(n, seed)
        return cls.build(spec, crops, labels)

    def concat(self, other: CropSet) -> CropSet:
        return CropSet(np.concatenate([self.images, other.images]),
                       {h: np.concatenate([v, other.labels[h]]) for h, v in self.labels.items()})


def augment(x: torch.Tensor, labels: list[torch.Tensor], spec: ModelSpec,
            gen: torch.Generator) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Random photometric and geometric changes of a [0, 1] batch; grey crops lose the
    labels of heads that need colour."""
    n, c, size, _ = x.shape

    def uniform(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(*(shape or (n,)), generator=gen)

    # geometry: turn, scale, shift; edges repeat the border
    turn = math.radians(spec.max_turn_deg)
    angle = uniform(-turn, turn)
    scale = uniform(0.85, 1.2)
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    shift = uniform(-0.08, 0.08, n, 2)
    theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], 1),
                         torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    if spec.misalign > 0:  # a crop cut from corners a little off: a random homography
        grid = _misaligned(grid, uniform(-spec.misalign, spec.misalign, n, 4, 2) * 2)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    if spec.blur > 0:  # out of focus or moving: a Gaussian of sigma up to spec.blur_sigma
        blurred = torch.rand(n, generator=gen) < spec.blur
        if blurred.any():
            x[blurred] = _blur(x[blurred], uniform(0.5, spec.blur_sigma, 1).item())
    # low resolution: a quarter of the batch at each of four sizes (down to spec.low_res),
    # the others (half of them unless spec.low_res_share says otherwise) kept sharp
    for part in torch.arange(n).chunk(4):
        if torch.rand(1, generator=gen).item() < spec.low_res_share:
            small = max(8, int(size * uniform(spec.low_res, 0.95, 1).item()))
            down = F.interpolate(x[part], size=small, mode="bilinear", antialias=True)
            x[part] = F.interpolate(down, size=size, mode="bilinear")
    if spec.dark > 0:  # low light: a dim crop whose sensor noise shows
        dim = torch.rand(n, generator=gen) < spec.dark
        gain = uniform(0.4, 0.8).view(n, 1, 1, 1)
        noisy = x * gain + torch.randn(x.shape, generator=gen) * 0.03 * gain
        x = torch.where(dim.view(n, 1, 1, 1), noisy, x)
    # light: contrast around the crop's mean, brightness, per-channel gain
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * uniform(0.5, 1.4).view(n, 1, 1, 1) + mean
    x = x + uniform(-0.25, 0.25).view(n, 1, 1, 1)
    if c == 3:
        x = x * uniform(0.85, 1.15, n, 3).view(n, 3, 1, 1)
        grey = torch.rand(n, generator=gen) < spec.grey
        x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
        # half the grey crops become negatives: light marks on dark pieces turn into dark
        # marks on light ones (real dice come both ways)
        negative = grey & (torch.rand(n, generator=gen) < 0.5)
        x[negative] = 1 - x[negative]
        labels = [y if head in spec.grey_heads else torch.where(grey, IGNORE, y)
                  for head, y in zip(spec.heads, labels, strict=True)]
    x = x + torch.randn(x.shape, generator=gen) * uniform(0, 0.05).view(n, 1, 1, 1)
    return x.clamp(0, 1), labels


def _misaligned(grid: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
    """``grid`` (n, h, w, 2; [-1, 1] sampling positions) through the homography that moves
    the crop's corners (-1, -1), (1, -1), (1, 1), (-1, 1) by ``moves`` (n, 4, 2)."""
    n = len(moves)
    src = torch.tensor([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]).expand(n, 4, 2)
    dst = src + moves
    # the eight equations of a homography with h33 = 1 through four point pairs
    x, y, u, v = src[..., 0], src[..., 1], dst[..., 0], dst[..., 1]
    one, zero = torch.ones_like(x), torch.zeros_like(x)
    rows = torch.cat([torch.stack([x, y, one, zero, zero, zero, -u * x, -u * y], 2),
                      torch.stack([zero, zero, zero, x, y, one, -v * x, -v * y], 2)], 1)
    h = torch.linalg.solve(rows, torch.cat([u, v], 1))
    H = torch.cat([h, torch.ones(n, 1)], 1).view(n, 3, 3)
    points = torch.cat([grid, torch.ones(*grid.shape[:3], 1)], 3).view(n, -1, 3)
    out = points @ H.transpose(1, 2)
    return (out[..., :2] / out[..., 2:].clamp(min=1e-3)).view(grid.shape)


def _blur(x: torch.Tensor, sigma: float) -> torch.Tensor:
    """A Gaussian blur of ``sigma`` px (edges repeated)."""
    r = max(1, math.ceil(2.5 * sigma))
    t = torch.arange(-r, r + 1, dtype=x.dtype)
    k = torch.exp(-t * t / (2 * sigma * sigma))
    k = k / k.sum()
    c = x.shape[1]
    x = F.pad(x, (r, r, r, r), mode="replicate")
    x = F.conv2d(x, k.view(1, 1, 1, -1).expand(c, 1, 1, -1), groups=c)
    return F.conv2d(x, k.view(1, 1, -1, 1).expand(c, 1, -1, 1), groups=c)


def _normalise(x01: torch.Tensor, spec: ModelSpec) -> torch.Tensor:
    mean = torch.tensor(spec.input.mean).view(1, -1, 1, 1)
    std = torch.tensor(spec.input.std).view(1, -1, 1, 1)
    return (x01 - mean) / std


@dataclass
class TrainLog:
    seconds: float = 0.0
    steps: int = 0
    losses: list[float] = field(default_factory=list)  # mean loss per epoch


def train(spec: ModelSpec, data: CropSet, epochs: int | None = None, batch_size: int = 128,
          lr: float = 3e-3, seed: int = 0, threads: int = 2,
          log=print) -> tuple[CropNet, TrainLog]:
    """Train a fresh CropNet on ``data``; returns it in eval mode and the log."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(seed)
    epochs = epochs or spec.epochs
    model = CropNet(spec)
    images = torch.from_numpy(data.images)
    targets = [torch.from_numpy(data.labels[h]) for h in spec.heads]
    steps_per_epoch = max(1, math.ceil(len(data) / batch_size))
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.15)
    record = TrainLog()
    start = time.perf_counter()
    model.train()
    for epoch in range(epochs):
        order = torch.randperm(len(data), generator=gen)
        total = 0.0
        for step in range(steps_per_epoch):
            index = order[step * batch_size:(step + 1) * batch_size]
            x, ys = augment(images[index].float() / 255.0, [t[index] for t in targets],
                            spec, gen)
            outputs = model(_normalise(x, spec))
            losses = [F.cross_entropy(out, y, ignore_index=IGNORE,
                                      label_smoothing=spec.label_smoothing)
                      for out, y in zip(outputs, ys, strict=True) if (y != IGNORE).any()]
            if not losses:
                continue
            loss = torch.stack(losses).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
            record.steps += 1
        record.losses.append(total / steps_per_epoch)
        log(f"epoch {epoch + 1}/{epochs}: loss {record.losses[-1]:.3f} "
            f"({time.perf_counter() - start:.0f} s)")
    record.seconds = time.perf_counter() - start
    return model.eval(), record


def torch_logits(model: CropNet, spec: ModelSpec, batch_uint8: np.ndarray) -> list[np.ndarray]:
    """The model's logits per head for a resized uint8 batch (the export check uses it)."""
    with torch.no_grad():
        outputs = model(torch.from_numpy(normalise(batch_uint8, spec.input)))
    return [o.numpy() for o in outputs]


def export(model: CropNet, spec: ModelSpec, path: Path,
           real_dice_training: dict | list | None = None) -> Path:
    """Write ``model`` as ONNX with its labels and input spec (and the real crops it was
    trained on, as ``vision.real_dice.split`` arguments) in the metadata."""
    import onnx

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    example = torch.zeros(1, spec.input.channels, spec.input.size, spec.input.size)
    outputs = [*spec.heads, EMBEDDING_OUTPUT]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter announces its deprecation
        torch.onnx.export(_WithEmbedding(model).eval(), (example,), str(path), dynamo=False,
                          input_names=["input"], output_names=outputs, opset_version=OPSET,
                          dynamic_axes={"input": {0: "batch"},
                                        **{o: {0: "batch"} for o in outputs}})
    _set_metadata(path, spec, real_dice_training)
    onnx.checker.check_model(onnx.load(str(path)))
    return path


def embedding_size(spec: ModelSpec) -> int:
    """Length of the exported ``embedding`` output: the last conv layer's channels."""
    return 4 * spec.width


def _set_metadata(path: Path, spec: ModelSpec, real_dice_training: dict | list | None) -> None:
    import onnx

    proto = onnx.load(str(path))
    value = metadata_json(spec.input, spec.heads, real_dice_training, embedding_size(spec))
    onnx.helper.set_model_props(proto, {METADATA_KEY: value})
    proto.doc_string = spec.description
    onnx.save(proto, str(path))


QUANTISATIONS = ("static", "dynamic")


def quantise(spec: ModelSpec, fp32: Path, int8: Path, calibration: CropSet,
             samples: int = 512, real_dice_training: dict | list | None = None,
             mode: str = "static") -> Path:
    """Int8 quantisation with onnxruntime: ``static`` (QDQ, per-channel weights, activations
    calibrated on ``samples`` crops spread evenly over ``calibration``, real crops included
    where it has them) or ``dynamic`` (int8 weights, activations quantised at run time)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    if mode == "dynamic":
        quantize_dynamic(str(fp32), str(int8), per_channel=True, weight_type=QuantType.QInt8)
    elif mode == "static":
        chosen = np.linspace(0, len(calibration) - 1, min(samples, len(calibration))).astype(int)
        batches = [normalise(calibration.images[chosen[i:i + 32]], spec.input)
                   for i in range(0, len(chosen), 32)]

        class Reader(CalibrationDataReader):
            def __init__(self):
                self._it = iter(batches)

            def get_next(self):
                batch = next(self._it, None)
                return None if batch is None else {"input": batch}

        quantize_static(str(fp32), str(int8), Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
    else:
        raise ValueError(f"unknown quantisation {mode!r} (known: {', '.join(QUANTISATIONS)})")
    _set_metadata(int8, spec, real_dice_training)
    return Path(int8)
