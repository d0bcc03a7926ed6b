"""The shape-tensor check on real models: transformers' YOLOS, DETR and RT-DETR (small configs,
random weights), exported with both exporters; every shape-tensor issue is listed for review.

Run with a Python that has transformers (``/work/main/.venv/bin/python`` here) and this
checkout first on the path: ``PYTHONPATH=. python benchmarks/shape_tensors_real.py``.
"""

from __future__ import annotations

import collections
import io
import sys
import warnings

import onnx
import torch

from trtcodemod.trt.check import _Checker, check_graph
from trtcodemod.trt.shape_tensors import shape_inputs
from trtcodemod.trt.support import resolve_target


def models() -> dict[str, tuple[torch.nn.Module, torch.Tensor]]:
    from transformers import (DetrConfig, DetrForObjectDetection, ResNetConfig, RTDetrConfig,
                              RTDetrForObjectDetection, YolosConfig, YolosForObjectDetection)

    yolos = YolosForObjectDetection(YolosConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                                                intermediate_size=128, image_size=[64, 96], num_detection_tokens=10))
    backbone = ResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                            out_features=["stage4"])
    detr = DetrForObjectDetection(DetrConfig(use_timm_backbone=False, backbone_config=backbone, d_model=64,
                                             encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                                             decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                             num_queries=10, use_pretrained_backbone=False))
    rt_backbone = ResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                               out_features=["stage2", "stage3", "stage4"], layer_type="basic")
    rtdetr = RTDetrForObjectDetection(RTDetrConfig(backbone_config=rt_backbone, d_model=64, encoder_hidden_dim=64,
                                                   decoder_layers=1, encoder_layers=1, num_queries=10,
                                                   encoder_in_channels=[32, 64, 128], decoder_ffn_dim=64,
                                                   encoder_ffn_dim=64, decoder_in_channels=[64, 64, 64]))
    return {"yolos": (yolos, torch.randn(1, 3, 64, 96)), "detr": (detr, torch.randn(1, 3, 64, 96)),
            "rt_detr": (rtdetr, torch.randn(1, 3, 64, 64))}


class Logits(torch.nn.Module):
    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner.eval()

    def forward(self, pixel_values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.inner(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


def export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            return torch.onnx.export(model, (x,), dynamo=True, verbose=False,
                                     dynamic_shapes=({0: torch.export.Dim.AUTO},)).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, verbose=True, opset_version=17,
                          input_names=["pixel_values"], dynamic_axes={"pixel_values": {0: "batch"}})
        return onnx.load_from_string(buffer.getvalue())


def main() -> None:
    for name, (model, x) in models().items():
        for dynamo in (False, True):
            label = f"{name} ({'dynamo' if dynamo else 'torchscript'})"
            try:
                graph = export(Logits(model), x, dynamo)
            except Exception as error:  # noqa: BLE001 - a failed export is a result
                print(f"{label}: export failed: {type(error).__name__}: {str(error)[:120]}")
                continue
            consumers = collections.Counter(n.op_type for n in graph.graph.node if shape_inputs(n))
            checker = _Checker(graph, resolve_target("8.6").version, None)
            kinds = collections.Counter(checker.shapes.origin(n.input[i]).kind.value
                                        for n in checker.model.graph.node for i in shape_inputs(n))
            print(f"{label}: shape inputs classified {dict(kinds)}")
            for target in ("8.4", "8.6", "10.x"):
                issues = [i for i in check_graph(graph, target) if "shape tensor" in i.reason]
                print(f"{label} @ {target}: {len(graph.graph.node)} nodes, {sum(consumers.values())} with shape "
                      f"inputs {dict(consumers)}; shape-tensor issues: {len(issues)}")
                for issue in issues if target == "8.6" else []:
                    print(f"    {issue.op} at {issue.source}: {issue.reason[:160]}")


if __name__ == "__main__":
    sys.exit(main())
