"""Writes data/tiny.onnx, the fixture of test_classifier.py (needs the `onnx` package:
``python -m tests.vision.make_tiny_model``). Grey 4x4 input, two heads of plain sums:
``band`` (labels top/middle/bottom: the summed rows 0, 1-2, 3) and ``side`` (left/right:
the summed columns 0-1, 2-3)."""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from vision.classifier import METADATA_KEY, InputSpec, metadata_json

PATH = Path(__file__).parent / "data" / "tiny.onnx"
SPEC = InputSpec(size=4, channels=1, mean=(0.0,), std=(1.0,))
HEADS = {"band": ("top", "middle", "bottom"), "side": ("left", "right")}


def weights() -> tuple[np.ndarray, np.ndarray]:
    band = np.zeros((4, 4, 3), np.float32)
    band[0, :, 0], band[1:3, :, 1], band[3, :, 2] = 1, 0.5, 1
    side = np.zeros((4, 4, 2), np.float32)
    side[:, :2, 0], side[:, 2:, 1] = 1, 1
    return band.reshape(16, 3), side.reshape(16, 2)


def main() -> None:
    band, side = weights()
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["input"], ["flat"], axis=1),
         helper.make_node("MatMul", ["flat", "w_band"], ["band"]),
         helper.make_node("MatMul", ["flat", "w_side"], ["side"])],
        "tiny",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 1, 4, 4])],
        [helper.make_tensor_value_info("band", TensorProto.FLOAT, ["batch", 3]),
         helper.make_tensor_value_info("side", TensorProto.FLOAT, ["batch", 2])],
        [numpy_helper.from_array(band, "w_band"), numpy_helper.from_array(side, "w_side")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    helper.set_model_props(model, {METADATA_KEY: metadata_json(SPEC, HEADS)})
    onnx.checker.check_model(model)
    PATH.parent.mkdir(exist_ok=True)
    onnx.save(model, PATH)


if __name__ == "__main__":
    main()
