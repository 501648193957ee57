"""The ONNX models and their model cards (models/<name>.md)."""
