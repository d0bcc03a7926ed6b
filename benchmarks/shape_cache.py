"""TRT726 on real code and its eager cost.

    python benchmarks/shape_cache.py                       # eager cost of the refresh check
    python benchmarks/shape_cache.py YOLO_PY [FIXED_PY]    # YOLOv5's Detect grid cache, exported

The first form times a cache hit of ``examples/guidance/anchor_cache.py`` before and after
``trtcodemod apply --unsafe --select TRT726`` (median of single-thread CPU calls): the fix
adds one ``_trt_tracing()`` call per ``if``.

The second form cuts ``Detect`` (and the inserted helper, if any) out of YOLOv5's
``models/yolo.py`` as written (no other import of the repository runs), calls it once in
eager mode at 8x8/4x4 feature maps (filling the grid cache), exports it with the TorchScript
exporter with dynamic sizes, and runs the graph in ONNX Runtime at 12x10/6x5 against eager.
"""

from __future__ import annotations

import ast
import io
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch
from torch import nn

from trtcodemod.engine import Options, fix_source

HERE = Path(__file__).resolve().parent


def _load(source: str, names: tuple[str, ...], extra: dict | None = None) -> dict:
    tree = ast.parse(source)
    # Definitions only: YOLOv5's own imports would run its package (and pip-install ultralytics).
    keep = [n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))
            and (n.name in names or n.name.startswith("_trt_"))]
    namespace: dict = {"torch": torch, "nn": nn, **(extra or {})}
    exec(compile(ast.Module(body=keep, type_ignores=[]), "<cut>", "exec"), namespace)
    return namespace


def eager_cost(runs: int = 3000) -> None:
    torch.set_num_threads(1)
    source = (HERE.parent / "examples" / "guidance" / "anchor_cache.py").read_text()
    fixed = fix_source(source.encode(), "anchor_cache.py", Options(select=("TRT726",), unsafe=True)).source.decode()
    x = torch.randn(1, 3, 32, 32)
    for label, text in (("before", source), ("after", fixed)):
        model = _load(text, ("Head", "make_anchors"))["Head"]().eval()
        with torch.no_grad():
            model(x)  # fill the cache: every timed call is a hit
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                model(x)
                times.append(time.perf_counter() - start)
        print(f"{label}: median {statistics.median(times) * 1e6:.1f} us per call (cache hit)")


def yolov5_detect(path: Path) -> str:
    import onnxruntime as ort

    ns = _load(path.read_text(), ("Detect", "Segment"), {"torch_1_10": True, "check_version": lambda *a, **k: True})
    torch.manual_seed(0)
    detect = ns["Detect"](nc=2, anchors=((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119)), ch=(8, 16)).eval()
    detect.stride = torch.tensor([8.0, 16.0])

    class Wrap(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.d = detect

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.d([a, b])[0]

    model = Wrap().eval()
    example = (torch.randn(1, 8, 8, 8), torch.randn(1, 16, 4, 4))
    other = (torch.randn(1, 8, 12, 10), torch.randn(1, 16, 6, 5))
    with torch.no_grad():
        model(*example)
    buffer = io.BytesIO()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.onnx.export(model, example, buffer, dynamo=False, input_names=["a", "b"],
                          dynamic_axes={"a": {2: "h", 3: "w"}, "b": {2: "h2", 3: "w2"}})
    bools = sorted({f"line {w.lineno}" for w in seen if "Python boolean" in str(w.message)})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        expected = model(*other)
    try:
        got = torch.from_numpy(session.run(None, {"a": other[0].numpy(), "b": other[1].numpy()})[0])
    except Exception as error:  # noqa: BLE001 - the baked grid does not broadcast at the other size
        return f"bool TracerWarnings {bools}; ONNX Runtime at 12x10 fails: {type(error).__name__}"
    rel = ((got - expected).abs() / expected.abs().clamp(min=1)).max().item()
    return f"bool TracerWarnings {bools}; ONNX Runtime at 12x10 vs eager: max rel error {rel:.2e}"


if __name__ == "__main__":
    if len(sys.argv) == 1:
        eager_cost()
    for name in sys.argv[1:]:
        print(f"{name}: {yolov5_detect(Path(name))}")
