"""TensorRT knowledge: the ONNX-parser support table, the static graph check, source mapping."""
