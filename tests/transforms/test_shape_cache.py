"""TRT726: a cache on ``self`` keyed by an input's shape misses while a tracer records the model.

The rewrite is checked as text on the ultralytics and YOLOv5 forms, then run before and after
on real tensors: one module instance per side, fed a sequence of sizes (cache misses, hits, an
empty batch, inf/NaN/-0.0 values) with outputs, strides and the cached state bit for bit the
same. Exported with both exporters after an eager call filled the cache, the original's graph
is wrong (or fails) at a second size, the rewritten one matches eager there.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch

from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite, rules_found, strip_helpers
from trtcodemod.engine import Options, check_source

HEADER = "import torch\nfrom torch import nn\n\n"

HEAD = HEADER + '''
def make_anchors(feats, strides, offset=0.5):
    points, steps = [], []
    for feat, stride in zip(feats, strides):
        h, w = feat.shape[2], feat.shape[3]
        yy, xx = torch.meshgrid(torch.arange(h, dtype=feat.dtype) + offset,
                                torch.arange(w, dtype=feat.dtype) + offset, indexing="ij")
        points.append(torch.stack((xx, yy), -1).view(-1, 2))
        steps.append(torch.full((h * w, 1), stride, dtype=feat.dtype))
    return torch.cat(points), torch.cat(steps)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.stride = (1.0, 2.0)
        self.dynamic = False
        self.shape = None
        self.anchors = torch.empty(0)
        self.strides = torch.empty(0)

    def forward(self, x):
        feats = [x, torch.nn.functional.avg_pool2d(x, 2, ceil_mode=True)]
        shape = feats[0].shape
        if self.dynamic or self.shape != shape:
            self.anchors, self.strides = (a.transpose(0, 1) for a in make_anchors(feats, self.stride))
            self.shape = shape
        boxes = torch.cat([f.flatten(2) for f in feats], 2)
        return (boxes[:, :2] + self.anchors) * self.strides
'''

GRID = HEADER + '''
class Detect(nn.Module):
    def __init__(self):
        super().__init__()
        self.nl = 2
        self.grid = [torch.empty(0) for _ in range(self.nl)]

    def _make_grid(self, nx, ny):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        return torch.stack((xv, yv), 2).view(1, ny, nx, 2).float()

    def forward(self, x):
        out = []
        for i in range(self.nl):
            f = x[..., :: i + 1, :: i + 1]
            bs, _, ny, nx = f.shape
            if self.grid[i].shape[1:3] != f.shape[2:4]:
                self.grid[i] = self._make_grid(nx, ny)
            out.append((f[:, :2].permute(0, 2, 3, 1) + self.grid[i]).flatten(1, 2))
        return torch.cat(out, 1)
'''

#: YOLOv7's `models/yolo.py`: `Model.fuse()` installs `IDetect.fuseforward` as the head's forward
#: (`m.forward = m.fuseforward`), a second method with the same grid cache, which the eager run then fills.
FUSED = GRID.replace(HEADER, "").replace("class Detect(nn.Module):", "class Detect(nn.Module):", 1)
#: zylo117/Yet-Another-EfficientDet-Pytorch @ 15403b5371a64defb2a7c74e162c6e880a7f462c, efficientdet/utils.py:94-139
#: (``Anchors.forward``): the hit returns the cached anchors early (``if image_shape == self.last_shape and
#: image.device in self.last_anchors: return self.last_anchors[image.device]``), the miss computes them and
#: fills the cache at the end. In our words, with a torch grid where the original uses NumPy.
ANCHORS = HEADER + '''
class Anchors(nn.Module):
    def __init__(self):
        super().__init__()
        self.stride = 2
        self.last_anchors = {}
        self.last_shape = None

    def forward(self, image):
        image_shape = image.shape[2:]
        if image_shape == self.last_shape and image.device in self.last_anchors:
            return self.last_anchors[image.device]
        self.last_shape = image_shape
        ys = torch.arange(0, image_shape[0], self.stride) + self.stride / 2
        xs = torch.arange(0, image_shape[1], self.stride) + self.stride / 2
        yv, xv = torch.meshgrid(ys, xs, indexing="ij")
        boxes = torch.stack((yv - 1.0, xv - 1.0, yv + 1.0, xv + 1.0), -1).reshape(1, -1, 4)
        self.last_anchors[image.device] = boxes
        return boxes


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.anchors = Anchors()

    def forward(self, x):
        pooled = torch.nn.functional.avg_pool2d(x, 2, ceil_mode=True)
        return pooled.flatten(2).transpose(1, 2)[..., :1] + self.anchors(x)
'''

#: flashdet 1.2.1 (``flashdet/models/architectures/flashdet.py:204-212``, zoo 88): ``_get_anchors`` keys its cache by
#: the feature sizes and on a hit binds the cached tensors to names, returning them only where they are on the input's
#: device (else it falls through and computes them again). In our words.
#: yowo 2.2.1's ``Detect._decode`` (zoo 92): anchors cached under a key of the feature shapes, and the key reset to
#: ``None`` by the method that infers the strides on the first call (an invalidation, not state of its own).
INVALIDATED = HEAD.split("class Head")[0] + '''class Yowo(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("stride", torch.zeros(2))
        self._strides_initialized = False
        self._anchor_cache_key = None

    def _init_strides(self, feats):
        sizes = torch.tensor([f.shape[2] for f in feats], dtype=torch.float)
        self.stride.copy_(sizes.max() / sizes)
        self._strides_initialized = True
        self._anchor_cache_key = None

    def forward(self, x):
        feats = [x, torch.nn.functional.avg_pool2d(x, 2, ceil_mode=True)]
        if not self._strides_initialized:
            self._init_strides(feats)
        shape_key = tuple(f.shape[2:] for f in feats)
        if self._anchor_cache_key != shape_key:
            self._anchors, self._steps = make_anchors(feats, (1.0, 2.0))
            self._anchor_cache_key = shape_key
        boxes = torch.cat([f.flatten(2) for f in feats], 2)
        return (boxes[:, :2] + self._anchors.transpose(0, 1)) * self._steps.transpose(0, 1)
'''

FLASH = HEADER + '''
def make_grid(sizes, strides, device):
    centers = []
    for (h, w), stride in zip(sizes, strides):
        yy, xx = torch.meshgrid(torch.arange(h, device=device), torch.arange(w, device=device), indexing="ij")
        centers.append(torch.stack((xx, yy), -1).reshape(-1, 2).float() * stride + stride / 2)
    centers = torch.cat(centers)
    return centers, torch.ones(centers.shape[0], 1, device=device)


class Flash(nn.Module):
    def __init__(self):
        super().__init__()
        self.strides = (2, 4)
        self._cached_anchors = None

    def _get_anchors(self, sizes, device):
        key = tuple((h, w) for h, w in sizes)
        if self._cached_anchors is not None and self._cached_anchors[0] == key:
            c, s = self._cached_anchors[1], self._cached_anchors[2]
            if c.device == device:
                return c, s
        centers, strides = make_grid(sizes, list(self.strides), device)
        self._cached_anchors = (key, centers, strides)
        return centers, strides

    def forward(self, x):
        sizes = [((x.shape[2] + s - 1) // s, (x.shape[3] + s - 1) // s) for s in self.strides]
        centers, strides = self._get_anchors(sizes, x.device)
        pooled = torch.cat([torch.nn.functional.avg_pool2d(x, s, ceil_mode=True).flatten(2) for s in self.strides], 2)
        return pooled.transpose(1, 2)[..., :1] + centers * strides
'''

FUSED = HEADER + FUSED + '''
    def fuseforward(self, x):
        out = []
        for i in range(self.nl):
            f = x[..., :: i + 1, :: i + 1] * 2
            bs, _, ny, nx = f.shape
            if self.grid[i].shape[1:3] != f.shape[2:4]:
                self.grid[i] = self._make_grid(nx, ny)
            out.append((f[:, :2].permute(0, 2, 3, 1) + self.grid[i]).flatten(1, 2))
        return torch.cat(out, 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.det = Detect()
        self.grid = self.det.grid
        self.fuse()

    def fuse(self):
        for m in self.modules():
            if isinstance(m, Detect):
                m.forward = m.fuseforward
        return self

    def forward(self, x):
        return self.det(x)
'''


#: DeAOT's local attention (deaotpy 1.11.0, ``aot/networks/layers/attention.py``: ``LocalGatedPropagation``,
#: the ``qk_mask`` test at :797, ``self.last_size_2d = (h, w)`` at :852, ``local2global``'s ``local_mask`` at
#: :861-881), reduced in our own words: the masks of a local window are kept on ``self`` and reused while the
#: feature size equals the size of the previous call, which ``forward`` records only at its end.
LOCAL = HEADER + '''
import torch.nn.functional as F


class Local(nn.Module):
    def __init__(self, max_dis=1):
        super().__init__()
        self.max_dis = max_dis
        self.qk_mask = None
        self.local_mask = None
        self.last_size_2d = None

    def forward(self, x):
        n, c, h, w = x.size()
        k = 2 * self.max_dis + 1
        if self.qk_mask is not None and (h, w) == self.last_size_2d:
            qk_mask = self.qk_mask
        else:
            ones = torch.ones((1, 1, h, w), dtype=x.dtype)
            qk_mask = 1 - F.unfold(ones, k, padding=self.max_dis).view(1, k * k, h * w)
            self.qk_mask = qk_mask
        qk = F.unfold(x, k, padding=self.max_dis).view(n, c, k * k, h * w).sum(1) - qk_mask * 1e4
        attn = qk.softmax(1)
        spread = self.local2global(attn, h, w)
        out = spread @ x.flatten(2).transpose(1, 2)
        self.last_size_2d = (h, w)
        return out.transpose(1, 2).reshape(n, c, h, w)

    def local2global(self, attn, height, width):
        d = self.max_dis
        if self.local_mask is not None and (height,
                                            width) == self.last_size_2d:
            local_mask = self.local_mask
        else:
            ky, kx = torch.meshgrid(torch.arange(height + 2 * d), torch.arange(width + 2 * d), indexing="ij")
            qy, qx = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
            dy = qy.reshape(-1, 1) - ky.reshape(1, -1) + d
            dx = qx.reshape(-1, 1) - kx.reshape(1, -1) + d
            local_mask = ((dy.abs() <= d) & (dx.abs() <= d)).view(1, height * width, height + 2 * d, width + 2 * d)
            self.local_mask = local_mask
        n = attn.shape[0]
        spread = torch.zeros((n, height * width, height + 2 * d, width + 2 * d), dtype=attn.dtype)
        spread[local_mask.expand(n, -1, -1, -1)] = attn.transpose(-1, -2).reshape(-1)
        return spread[:, :, d:-d, d:-d].reshape(n, height * width, height * width)
'''

def fixed(code: str) -> str:
    return rewrite(code, unsafe=True, select=("TRT726",))


def code_lines(code: str) -> list[str]:
    return [line for line in strip_helpers(code).splitlines() if line.strip()]


def test_the_ultralytics_and_yolov5_caches_miss_while_tracing() -> None:
    assert code_lines(fixed(HEAD)) == code_lines(HEAD.replace(
        "if self.dynamic or self.shape != shape:", "if _trt_tracing() or self.dynamic or self.shape != shape:"))
    assert code_lines(fixed(GRID)) == code_lines(GRID.replace(
        "if self.grid[i].shape[1:3] != f.shape[2:4]:", "if _trt_tracing() or self.grid[i].shape[1:3] != f.shape[2:4]:"))
    assert "def _trt_tracing() -> bool:" in fixed(HEAD)
    # The method `fuse()` installs as forward has the cache too: both are refreshed, neither write is "state".
    assert code_lines(fixed(FUSED)) == code_lines(FUSED.replace(
        "if self.grid[i].shape[1:3] != f.shape[2:4]:", "if _trt_tracing() or self.grid[i].shape[1:3] != f.shape[2:4]:"))
    assert rewrite(HEAD, unsafe=False, select=("TRT726",)) == HEAD  # unsafe: only with --unsafe


def method(body: str, extra: str = "") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return f"{HEADER}class M(nn.Module):\n{extra}    def forward(self, x):\n{lines}"


def test_a_cache_whose_key_another_method_resets_to_none_misses_while_tracing() -> None:
    assert code_lines(fixed(INVALIDATED)) == code_lines(INVALIDATED.replace(
        "if self._anchor_cache_key != shape_key:", "if _trt_tracing() or self._anchor_cache_key != shape_key:"))


@pytest.mark.parametrize("written", ["((0, 0),)", "None\n        self._anchor_cache_key = ((0, 0),)"])
def test_a_key_another_method_sets_to_a_value_is_state(written: str) -> None:
    stateful = INVALIDATED.replace("        self._anchor_cache_key = None\n\n    def forward",
                                   f"        self._anchor_cache_key = {written}\n\n    def forward")
    assert stateful != INVALIDATED
    assert rules_found(stateful, select=("TRT726",)) == []


@pytest.mark.parametrize("body,after", [
    ("if not self.key == x.shape:\n    self.val = x.new_ones(x.shape)\n    self.key = x.shape\nreturn x + self.val",
     "if _trt_tracing() or not self.key == x.shape:"),
    ("k = x.shape[-1]\nif k not in self.table:\n    self.table[k] = torch.arange(k)\nreturn x + self.table[k]",
     "if _trt_tracing() or k not in self.table:"),
    ("if self.rel is None or self.rel.shape[1] != x.shape[1]:\n    self.rel = torch.arange(x.shape[1])\n"
     "return x + self.rel", "if _trt_tracing() or self.rel is None or self.rel.shape[1] != x.shape[1]:"),
    # `and`: the miss goes inside its operand, so the guard still decides whether the cache is used
    # (ultralytics 8.3: `self.format != "imx" and (self.dynamic or self.shape != shape)`)
    ("if self.use and self.shape != x.shape:\n    self.g = x.new_ones(1)\n    self.shape = x.shape\nreturn x",
     "if self.use and (_trt_tracing() or self.shape != x.shape):"),
    ("if self.fmt != 'imx' and (self.dynamic or self.shape != x.shape):\n    self.g = x.new_ones(1)\n"
     "    self.shape = x.shape\nreturn x", "if self.fmt != 'imx' and (_trt_tracing() or self.dynamic or self.shape != x.shape):"),
    # a parenthesized chain keeps its parentheses
    ("if (self.dynamic or self.shape != x.shape):\n    self.g = x.new_ones(1)\n    self.shape = x.shape\nreturn x",
     "if (_trt_tracing() or self.dynamic or self.shape != x.shape):"),
    # the key read through a local bound to it just before (YOLOX's `grid = self.grids[k]`)
    ("g = self.grids[0]\nif g.shape != x.shape:\n    g = x.new_ones(x.shape)\n    self.grids[0] = g\nreturn x + g",
     "if _trt_tracing() or g.shape != x.shape:"),
    # the size read by a call (labml-nn 0.5.1's hourglass mask, `hour_glass/__init__.py:227`)
    ("if self.mask is None or self.mask.size(0) != len(x):\n    self.mask = torch.ones(len(x), len(x))\n"
     "return self.mask", "if _trt_tracing() or self.mask is None or self.mask.size(0) != len(x):"),
    ("if len(self.mask) != x.shape[0]:\n    self.mask = torch.ones(x.shape[0])\nreturn self.mask",
     "if _trt_tracing() or len(self.mask) != x.shape[0]:"),
])
def test_other_miss_tests_are_refreshed(body: str, after: str) -> None:
    assert after in fixed(method(body))


@pytest.mark.parametrize("code", [
    # the key is not written back: not a memo
    method("if self.shape != x.shape:\n    self.anchors = x.new_ones(3)\nreturn x + self.anchors"),
    # a first-call initialisation: its value depends on that call's input, not on a key
    method("if self.pad is None:\n    self.pad = x.shape[-1] % 3\nreturn x + self.pad"),
    # the key is per-frame state forward also writes elsewhere
    method("if self.prev != x.shape:\n    self.buf = x\n    self.prev = x.shape\nself.prev = None\nreturn x"),
    # the hit path does something of its own
    method("if self.shape != x.shape:\n    self.shape = x.shape\nelse:\n    x = x + 1\nreturn x"),
    # a local bound to the key, then bound again before the test: no longer the key
    method("g = self.grid\ng = x\nif g.shape != x.shape:\n    self.grid = x.new_ones(x.shape)\nreturn x + self.grid"),
    # a local bound to the key in another block: it may not hold the key where the test runs
    method("if x.dim() > 1:\n    g = self.grid\nif g.shape != x.shape:\n    self.grid = x.new_ones(x.shape)\n"
           "return x + self.grid"),
    # a name bound in the test would be unbound while tracing
    method("if self.shape != (s := x.shape):\n    self.shape = s\nreturn x + s[0]"),
    # `==` is a hit test, `<` a threshold
    method("if self.shape == x.shape:\n    self.shape = None\nreturn x"),
    # a hit that returns early, but nothing fills the cache after it: not a memo of this call
    method("if x.shape == self.shape and 0 in self.cache:\n    return self.cache[0]\nreturn x"),
    # a hit that returns a value other than the one the test looks up
    method("if x.shape == self.shape:\n    return self.other\nself.shape = x.shape\nself.other = x\nreturn x"),
    # construction-time code, and classes that are not modules
    f"{HEADER}class M(nn.Module):\n    def __init__(self, x):\n        super().__init__()\n"
    "        if self.shape != x.shape:\n            self.shape = x.shape\n",
    f"{HEADER}class Box:\n    def forward(self, x):\n        if self.shape != x.shape:\n            self.shape = x.shape\n"
    "        return x\n",
])
def test_not_a_shape_keyed_cache(code: str) -> None:
    assert "TRT726" not in rules_found(code, select=("TRT726",))


# --- eager: the same program, hit and miss paths -----------------------------------------

SIZES = [(1, 3, 8, 8), (1, 3, 8, 8), (2, 3, 5, 7), (0, 3, 5, 7), (0, 3, 5, 7), (1, 3, 1, 1), (2, 3, 8, 8),
         (1, 3, 0, 4), (1, 3, 13, 17)]


def _input(shape: tuple[int, ...], step: int) -> torch.Tensor:
    x = torch.randn(shape, generator=torch.Generator().manual_seed(step))
    flat = x.view(-1)
    for i, edge in enumerate((0.0, -0.0, float("inf"), float("-inf"), float("nan"), -3.5)):
        if i < flat.numel():
            flat[i] = edge
    return x.requires_grad_(step % 2 == 1)


@pytest.mark.parametrize("code,name", [(HEAD, "Head"), (GRID, "Detect"), (FUSED, "Model"), (ANCHORS, "Net"),
                                       (FLASH, "Flash"), (INVALIDATED, "Yowo")])
def test_eager_is_bit_for_bit_the_same_over_hits_and_misses(tmp_path: Path, code: str, name: str) -> None:
    before = import_source(code, tmp_path)[name]()
    after = import_source(fixed(code), tmp_path)[name]()
    for step, shape in enumerate(SIZES):
        x = _input(shape, step)
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=f"call {step} {shape}")
    cached = {"Head": ("shape", "anchors", "strides"), "Net": ("last_shape", "last_anchors"),
              "Flash": ("_cached_anchors",), "Yowo": ("_anchor_cache_key", "_anchors", "stride")}.get(name, ("grid",))
    for attr in cached:
        owner = (before.anchors, after.anchors) if name == "Net" else (before, after)
        a, b = getattr(owner[0], attr), getattr(owner[1], attr)
        assert a.__class__ is b.__class__ and str(a) == str(b), attr


@pytest.mark.parametrize("code,name", [(HEAD, "Head"), (GRID, "Detect"), (FUSED, "Model"), (ANCHORS, "Net"),
                                       (LOCAL, "Local"), (FLASH, "Flash"), (INVALIDATED, "Yowo")])
def test_every_toolchain_does_what_it_did(tmp_path: Path, code: str, name: str) -> None:
    x = _input((1, 3, 6, 4), 0)
    old = toolchain_outcomes(import_source(code, tmp_path)[name], [x], tmp_path)
    new = toolchain_outcomes(import_source(fixed(code), tmp_path)[name], [x], tmp_path)
    assert old.keys() == new.keys()
    for tool in old:
        if isinstance(old[tool], Exception):
            assert type(new[tool]) is type(old[tool]), tool
        else:
            assert_same_run(run_once(lambda: old[tool], []), run_once(lambda: new[tool], []), context=tool)


# --- both exporters: the cache filled in eager, exported with dynamic sizes --------------


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> tuple[bytes, list[str]]:
    buffer = io.BytesIO()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if dynamo:
            h, w = torch.export.Dim("h", min=2, max=64), torch.export.Dim("w", min=2, max=64)
            program = torch.onnx.export(model, (x,), dynamo=True, dynamic_shapes={"x": {2: h, 3: w}},
                                        input_names=["x"], verbose=False)
            buffer.write(program.model_proto.SerializeToString())
        else:
            torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    return buffer.getvalue(), [str(w.message) for w in seen]


def _faithful(code: str, name: str, tmp_path: Path, dynamo: bool) -> tuple[bool, list[str]]:
    model = import_source(code, tmp_path)[name]().eval()
    example, other = torch.randn(1, 3, 8, 8), torch.randn(1, 3, 12, 10)
    model(example)  # the eager run that fills the cache, as migrate's observed run does
    try:
        graph, warned = _export(model, example, dynamo)
    except Exception:  # noqa: BLE001 - the dynamo exporter refuses a specialised dynamic size
        return False, []
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    with torch.no_grad():
        expected = import_source(code, tmp_path)[name]().eval()(other)
    try:
        [got] = session.run(None, {"x": other.numpy()})
    except Exception:  # noqa: BLE001 - a baked anchor table of the example's size
        return False, warned
    return got.shape == tuple(expected.shape) and bool((torch.from_numpy(got) - expected).abs().max() < 1e-5), warned


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("code,name", [(HEAD, "Head"), (GRID, "Detect"), (FUSED, "Model"), (ANCHORS, "Net"),
                                       (FLASH, "Flash"), (INVALIDATED, "Yowo")])
def test_the_graph_is_faithful_at_another_size_only_after_the_fix(tmp_path: Path, code: str, name: str,
                                                                  dynamo: bool) -> None:
    before, _ = _faithful(code, name, tmp_path, dynamo)
    after, warned = _faithful(fixed(code), name, tmp_path, dynamo)
    assert not before and after
    # The comparison is not even evaluated while tracing: no bool of a traced size.
    assert not [w for w in warned if "Python boolean" in w]


# --- the head of a module that imports torch only through a star import of the user's own module ---------

#: YOLOv5's and YOLOv7's ``models/yolo.py``: no ``import torch``; ``torch`` and ``nn`` come from
#: ``from models.common import *`` (or the package's absolute or relative form of it).
STAR_COMMON = "import math\n\nimport torch\nimport torch.nn as nn\n\n\nclass Conv(nn.Module):\n    pass\n"
STAR_HEAD = GRID.replace(HEADER, "")


def _star_project(tmp_path: Path, star: str, common: str | None = STAR_COMMON,
                  head_folder: str = "pkg/models", common_file: str = "pkg/models/common.py") -> Path:
    head = tmp_path / head_folder / "yolo.py"
    head.parent.mkdir(parents=True, exist_ok=True)
    for folder in (tmp_path / "pkg", tmp_path / "pkg" / "models"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("")
    if common is not None:
        (tmp_path / common_file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / common_file).write_text(common)
    head.write_text(f"import sys\n\n{star}\n\n{STAR_HEAD}")
    return head


def _fix_file(path: Path) -> str:
    from trtcodemod.engine import Options, fix_source

    return fix_source(path.read_bytes(), str(path), Options(select=("TRT726",), unsafe=True)).source.decode()


@pytest.mark.parametrize("star,common_file", [
    ("from pkg.models.common import *", "pkg/models/common.py"),  # the yolov5 package: absolute
    ("from .common import *", "pkg/models/common.py"),  # relative
    ("from models.common import *", "pkg/models/common.py"),  # a checkout's root on sys.path (YOLOv7)
    ("from pkg.models.layers import *", "pkg/models/layers/__init__.py"),  # a package's __init__
])
def test_a_head_that_gets_torch_through_a_star_import_is_fixed(tmp_path: Path, star: str, common_file: str) -> None:
    if star.startswith("from models."):
        path = _star_project(tmp_path / "pkg", star, head_folder="models", common_file="models/common.py")
    else:
        path = _star_project(tmp_path, star, common_file=common_file)
    out = _fix_file(path)
    assert "if _trt_tracing() or self.grid[i].shape[1:3] != f.shape[2:4]:" in out
    # The rewritten module runs: the helper's own `import torch` is inserted with it.
    assert "def _trt_tracing() -> bool:" in out and "\nimport torch\n" in out


@pytest.mark.parametrize("common", [
    None,  # the module is not on disk: nothing says the names are torch's
    "import torch\nimport torch.nn as nn\n__all__ = ['Conv']\n\n\nclass Conv(nn.Module):\n    pass\n",  # __all__
    "import torch as _torch\nimport torch.nn as _nn\n",  # private names are not star-exported
    "import torch\nimport torch.nn as nn\nnn = None\ntorch = None\n",  # bound again after the import
    "from .base import torch, nn\n",  # project-relative in the imported module: never torch's
])
def test_a_star_import_that_does_not_bring_torch_finds_nothing(tmp_path: Path, common: str | None) -> None:
    path = _star_project(tmp_path, "from pkg.models.common import *", common)
    assert "_trt_tracing" not in _fix_file(path)


def test_star_imports_are_followed_through_the_imported_module(tmp_path: Path) -> None:
    """``models/common.py`` itself star-imports the module that imports torch; a change there is seen at once."""
    path = _star_project(tmp_path, "from pkg.models.common import *", "from .base import *\n")
    base = tmp_path / "pkg" / "models" / "base.py"
    base.write_text("import os\n")
    assert "_trt_tracing" not in _fix_file(path)
    base.write_text(STAR_COMMON + "\n# torch now\n")
    assert "if _trt_tracing() or self.grid[i]" in _fix_file(path)


# --- a value precomputed in __init__ for the configured size, recomputed only when the size differs ---
# spandrel's RGT and DAT (`if self.patches_resolution != _H or ...: mask_tmp = self.calculate_mask(_H, _W)
# ... else: <self.attn_mask_0>`) and SwinIR, Swin2SR, DRCT (`if self.input_resolution == x_size:
# <self.attn_mask> else: <self.calculate_mask(x_size)>`).

WINDOWS = HEADER + '''
class Windows(nn.Module):
    def __init__(self, resolution=8, window=4, shift=2):
        super().__init__()
        self.resolution, self.window, self.shift = resolution, window, shift
        masks = self.calculate_mask(resolution, resolution)
        self.register_buffer("mask_0", masks[0])
        self.register_buffer("mask_1", masks[1])

    def calculate_mask(self, H, W):
        img = torch.zeros((1, H, W, 1))
        cuts = (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None))
        cnt = 0
        for h in cuts:
            for w in cuts:
                img[:, h, w, :] = cnt
                cnt += 1
        win = img.view(1, H // self.window, self.window, W // self.window, self.window, 1)
        win = win.permute(0, 1, 3, 2, 4, 5).reshape(-1, self.window * self.window)
        mask = win.unsqueeze(1) - win.unsqueeze(2)
        mask = mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)
        return mask, mask * 0.5

    def attend(self, x, mask):
        B, H, W, C = x.shape
        w = self.window
        win = x.view(B, H // w, w, W // w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(B, (H // w) * (W // w), w * w, C)
        attn = (win @ win.transpose(-2, -1) + mask).softmax(-1)
        out = (attn @ win).view(B, H // w, W // w, w, w, C)
        return out.permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)

    def forward(self, x):
        x = torch.roll(x.permute(0, 2, 3, 1), (-self.shift, -self.shift), (1, 2))
        _H, _W = x.shape[1], x.shape[2]
        if self.resolution != _H or self.resolution != _W:
            mask_tmp = self.calculate_mask(_H, _W)
            a = self.attend(x, mask_tmp[0].to(x.device))
            b = self.attend(x.flip(-1), mask_tmp[1].to(x.device))
        else:
            a = self.attend(x, self.mask_0)
            b = self.attend(x.flip(-1), self.mask_1)
        return torch.roll(a + b, (self.shift, self.shift), (1, 2)).permute(0, 3, 1, 2)
'''

#: SwinIR's form: the hit test first, a tuple key, one mask stored straight from the call.
SWIN = WINDOWS.replace("class Windows", "class Swin").replace(
    '''        masks = self.calculate_mask(resolution, resolution)
        self.register_buffer("mask_0", masks[0])
        self.register_buffer("mask_1", masks[1])''',
    '''        self.input_resolution = (resolution, resolution)
        self.register_buffer("attn_mask", self.calculate_mask(resolution, resolution)[0])''').replace(
    '''        _H, _W = x.shape[1], x.shape[2]
        if self.resolution != _H or self.resolution != _W:
            mask_tmp = self.calculate_mask(_H, _W)
            a = self.attend(x, mask_tmp[0].to(x.device))
            b = self.attend(x.flip(-1), mask_tmp[1].to(x.device))
        else:
            a = self.attend(x, self.mask_0)
            b = self.attend(x.flip(-1), self.mask_1)
        return torch.roll(a + b,''',
    '''        x_size = (x.shape[1], x.shape[2])
        if self.input_resolution == x_size:
            a = self.attend(x, self.attn_mask)
        else:
            a = self.attend(x, self.calculate_mask(x_size[0], x_size[1])[0].to(x.device))
        return torch.roll(a,''')

WINDOWS_TEST = "if self.resolution != _H or self.resolution != _W:"
SWIN_TEST = "if self.input_resolution == x_size:"


def test_a_mask_precomputed_for_the_configured_size_is_recomputed_while_tracing() -> None:
    assert SWIN != WINDOWS and SWIN_TEST in SWIN
    assert code_lines(fixed(WINDOWS)) == code_lines(WINDOWS.replace(
        WINDOWS_TEST, "if _trt_tracing() or self.resolution != _H or self.resolution != _W:"))
    assert code_lines(fixed(SWIN)) == code_lines(SWIN.replace(
        SWIN_TEST, "if not _trt_tracing() and self.input_resolution == x_size:"))
    assert "def _trt_tracing() -> bool:" in fixed(SWIN)
    assert rewrite(WINDOWS, unsafe=False, select=("TRT726",)) == WINDOWS  # unsafe: only with --unsafe


def precomputed(init: str, body: str) -> str:
    """A module whose ``__init__`` runs ``init`` and whose ``forward(x)`` runs ``body``."""
    init_lines = "".join(f"        {line}\n" for line in init.strip().splitlines())
    return method(body, extra=f"    def __init__(self):\n        super().__init__()\n{init_lines}\n"
                              "    def make(self, h, w):\n        return torch.ones(h, w)\n\n")


@pytest.mark.parametrize("init,body,after", [
    # stored straight from the call; the miss test written with `not ==`
    ("self.r = 4\nself.t = self.make(4, 4)",
     "if not self.r == x.shape[-1]:\n    t = self.make(x.shape[-2], x.shape[-1])\nelse:\n    t = self.t\nreturn x + t",
     "if _trt_tracing() or not self.r == x.shape[-1]:"),
    # a module-level function and `self.t = ...` through a local (a relative-position table)
    ("self.r = 4\nt = index(4, 4)\nself.t = t.flip(0)",
     "if self.r != x.shape[-1]:\n    t = index(x.shape[-2], x.shape[-1]).flip(0)\nelse:\n    t = self.t\nreturn x + t",
     "if _trt_tracing() or self.r != x.shape[-1]:"),
    # the hit test of two sizes, the key on the right
    ("self.h = self.w = 4\nself.register_buffer('t', self.make(4, 4))",
     "if x.shape[-2] == self.h and x.shape[-1] == self.w:\n    t = self.t\nelse:\n    t = self.make(x.shape[-2], x.shape[-1])\n"
     "return x + t", "if not _trt_tracing() and x.shape[-2] == self.h and x.shape[-1] == self.w:"),
    # a parenthesized test keeps its parentheses
    ("self.r = 4\nself.t = self.make(4, 4)",
     "if (self.r != x.shape[-1]):\n    t = self.make(x.shape[-2], x.shape[-1])\nelse:\n    t = self.t\nreturn x + t",
     "if (_trt_tracing() or self.r != x.shape[-1]):"),
])
def test_other_precomputed_forms_are_recomputed_while_tracing(init: str, body: str, after: str) -> None:
    code = "def index(h, w):\n    return torch.arange(h * w).view(h, w)\n\n" + precomputed(init, body)
    assert after in fixed(code)
    assert "precomputed in `__init__`" in " ".join(
        f.message for f in __import__("trtcodemod.engine", fromlist=["check_source"]).check_source(
            code.encode(), "snippet.py", __import__("trtcodemod.engine", fromlist=["Options"]).Options(
                select=("TRT726",))))


MISS = "if self.r != x.shape[-1]:\n    t = self.make(x.shape[-2], x.shape[-1])\nelse:\n    t = self.t\nreturn x + t"


@pytest.mark.parametrize("init,body", [
    # the hit value is not made by what the miss path calls: not the same value at another size
    ("self.r = 4\nself.t = torch.ones(4, 4)", MISS),
    ("self.r = 4\nself.t = other(4)", MISS),
    # a constant, not a computed value
    ("self.r = 4\nself.register_buffer('t', torch.zeros(4, 4))", MISS),
    # the miss path reads the stored value too: it adapts it, it does not replace it
    ("self.r = 4\nself.t = self.make(4, 4)",
     "if self.r != x.shape[-1]:\n    t = self.t[:1] * self.make(x.shape[-2], x.shape[-1])\nelse:\n    t = self.t\nreturn x + t"),
    # an `elif` decides more than a hit or a miss
    ("self.r = 4\nself.t = self.make(4, 4)",
     "if self.r != x.shape[-1]:\n    t = self.make(x.shape[-2], x.shape[-1])\nelif x.dim() > 3:\n    t = 0\n"
     "else:\n    t = self.t\nreturn x + t"),
    # a branch writes to self: state (or the cache form above), not a value fixed at construction
    ("self.r = 4\nself.t = self.make(4, 4)",
     "if self.r != x.shape[-1]:\n    self.t = self.make(x.shape[-2], x.shape[-1])\n    t = self.t\nelse:\n    t = self.t\n"
     "return x + t"),
    # both sides of the comparison are configuration; or neither is
    ("self.r = 4\nself.s = 4\nself.t = self.make(4, 4)",
     MISS.replace("if self.r != x.shape[-1]", "if self.r != self.s")),
    ("self.r = 4\nself.t = self.make(4, 4)", MISS.replace("if self.r != x.shape[-1]", "if x.shape[-2] != x.shape[-1]")),
    # a threshold, and a hit test written as a miss chain
    ("self.r = 4\nself.t = self.make(4, 4)", MISS.replace("!=", "<")),
    ("self.r = 4\nself.t = self.make(4, 4)", MISS.replace("if self.r != x.shape[-1]",
                                                          "if self.r != x.shape[-1] and self.r != x.shape[-2]")),
    # the key is forward's own state
    ("self.r = 4\nself.t = self.make(4, 4)", "self.r = x.shape[-1]\n" + MISS),
])
def test_not_a_precomputed_value(init: str, body: str) -> None:
    code = "def other(n):\n    return torch.ones(n, n)\n\n" + precomputed(init, body)
    assert "TRT726" not in rules_found(code, select=("TRT726",))
    assert "_trt_tracing" not in fixed(code)


#: the configured size, other sizes and batches, an empty batch, a non-square input, again the configured size
WINDOW_SIZES = [(1, 3, 8, 8), (2, 3, 12, 12), (0, 3, 8, 8), (1, 3, 8, 12), (1, 3, 4, 4), (2, 3, 8, 8), (1, 3, 16, 8)]


@pytest.mark.parametrize("code,name", [(WINDOWS, "Windows"), (SWIN, "Swin")])
def test_eager_is_bit_for_bit_the_same_at_the_configured_size_and_others(tmp_path: Path, code: str, name: str) -> None:
    assert "_trt_tracing() " in fixed(code)  # the rewritten program, not the original again
    before = import_source(code, tmp_path)[name]()
    after = import_source(fixed(code), tmp_path)[name]()
    for step, shape in enumerate(WINDOW_SIZES):
        x = _input(shape, step)
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=f"call {step} {shape}")
    assert str(before.state_dict()) == str(after.state_dict())


@pytest.mark.parametrize("code,name", [(WINDOWS, "Windows"), (SWIN, "Swin")])
def test_every_toolchain_does_what_it_did_with_a_precomputed_mask(tmp_path: Path, code: str, name: str) -> None:
    assert "_trt_tracing() " in fixed(code)
    x = _input((1, 3, 8, 8), 0)
    old = toolchain_outcomes(import_source(code, tmp_path)[name], [x], tmp_path)
    new = toolchain_outcomes(import_source(fixed(code), tmp_path)[name], [x], tmp_path)
    assert old.keys() == new.keys()
    for tool in old:
        if isinstance(old[tool], Exception):
            assert type(new[tool]) is type(old[tool]), tool
        else:
            assert_same_run(run_once(lambda: old[tool], []), run_once(lambda: new[tool], []), context=tool)


def _faithful_at(code: str, name: str, tmp_path: Path, dynamo: bool,
                 sizes: list[tuple[int, int, int, int]]) -> tuple[bool, list[str]]:
    """Exported on the configured size (8 x 8), run at each of ``sizes`` against eager."""
    model = import_source(code, tmp_path)[name]().eval()
    example = torch.randn(1, 3, 8, 8)
    try:
        graph, warned = _export(model, example, dynamo)
    except Exception:  # noqa: BLE001 - the dynamo exporter refuses a size it specialised
        return False, []
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    for shape in sizes:
        other = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape)))
        with torch.no_grad():
            expected = import_source(code, tmp_path)[name]().eval()(other)
        try:
            [got] = session.run(None, {"x": other.numpy()})
        except Exception:  # noqa: BLE001 - a mask of the configured size against another size's windows
            return False, warned
        if got.shape != tuple(expected.shape) or not (torch.from_numpy(got) - expected).abs().max() < 1e-5:
            return False, warned
    return True, warned


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("code,name", [(WINDOWS, "Windows"), (SWIN, "Swin")])
def test_the_graph_holds_the_mask_of_every_size_only_after_the_fix(tmp_path: Path, code: str, name: str,
                                                                  dynamo: bool) -> None:
    sizes = [(1, 3, 12, 16), (1, 3, 16, 8)]  # two sizes other than the configured one (the dynamo export: batch 1)
    before, _ = _faithful_at(code, name, tmp_path, dynamo, sizes)
    after, warned = _faithful_at(fixed(code), name, tmp_path, dynamo, sizes + [(1, 3, 8, 8)])
    assert not before and after
    # The comparison is not even evaluated while tracing: no bool of a traced size.
    assert not [w for w in warned if "Python boolean" in w]


# --- a forward the model installs on a module (YOLOv5/YOLOv7 `Model.fuse`: `m.forward = m.fuseforward`) ---

#: YOLOv7's `IDetect`: `forward` (with the implicit layers) and `fuseforward` (after `fuse` folded them), each
#: with the same grid cache; `Model.fuse` installs `fuseforward` as the head's forward.
FUSED = HEADER + '''
class Detect(nn.Module):
    def __init__(self):
        super().__init__()
        self.nl = 2
        self.grid = [torch.zeros(1)] * self.nl
        self.implicit = nn.Parameter(torch.full((1, 2, 1, 1), 0.5), requires_grad=False)

    @staticmethod
    def _make_grid(nx, ny):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, ny, nx, 2)).float()

    def forward(self, x):
        out = []
        for i in range(self.nl):
            f = x[:, :2, :: i + 1, :: i + 1] * self.implicit
            bs, _, ny, nx = f.shape
            if self.grid[i].shape[1:3] != f.shape[2:4]:
                self.grid[i] = self._make_grid(nx, ny)
            out.append((f.permute(0, 2, 3, 1) + self.grid[i]).flatten(1, 2))
        return torch.cat(out, 1)

    def fuseforward(self, x):
        out = []
        for i in range(self.nl):
            f = x[:, :2, :: i + 1, :: i + 1]
            bs, _, ny, nx = f.shape
            if self.grid[i].shape[1:3] != f.shape[2:4]:
                self.grid[i] = self._make_grid(nx, ny)
            out.append((f.permute(0, 2, 3, 1).sigmoid() * 2.0 + self.grid[i]).flatten(1, 2))
        return torch.cat(out, 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 3, 1)
        self.head = Detect()

    def fuse(self):
        for m in self.modules():
            if type(m) is Detect:
                m.forward = m.fuseforward
        return self

    def forward(self, x):
        return self.head(self.stem(x))


def Fused():
    torch.manual_seed(0)
    return Model().fuse().eval()
'''

FUSED_TESTS = ("if self.grid[i].shape[1:3] != f.shape[2:4]:",
               "if _trt_tracing() or self.grid[i].shape[1:3] != f.shape[2:4]:")


def test_a_cache_in_a_forward_installed_by_fuse_misses_while_tracing() -> None:
    # Both memos of the same key are fixed: neither one's write makes the other's key state.
    assert code_lines(fixed(FUSED)) == code_lines(FUSED.replace(*FUSED_TESTS))
    # `self.forward = self.<m> if ... else self.<n>` installs either method (timm's FasterNet).
    chosen = FUSED.replace("    def fuse(self):", "    def pick(self, fast):\n"
                           "        self.forward = self.fuseforward if fast else self.forward\n\n    def fuse(self):")
    chosen = chosen.replace("                m.forward = m.fuseforward\n", "                m.pick(True)\n")
    assert code_lines(fixed(chosen)) == code_lines(chosen.replace(*FUSED_TESTS))


@pytest.mark.parametrize("code", [
    # a method of that name that nothing installs as a forward is no forward code
    FUSED.replace("                m.forward = m.fuseforward\n", "                m.other = m.fuseforward\n"),
    # the installed forward writes the key outside any memo of it: per-frame state
    FUSED.replace("        return torch.cat(out, 1)\n\n\nclass Model",
                  "        self.grid = [torch.zeros(1)] * self.nl\n        return torch.cat(out, 1)\n\n\nclass Model"),
])
def test_not_an_installed_forward_cache(code: str) -> None:
    assert fixed(code).count("_trt_tracing() or") <= 1
    assert "_trt_tracing() or" not in fixed(code).split("def fuseforward")[1]


def test_eager_is_bit_for_bit_the_same_with_the_installed_forward(tmp_path: Path) -> None:
    before = import_source(FUSED, tmp_path)["Fused"]()
    after = import_source(fixed(FUSED), tmp_path)["Fused"]()
    for step, shape in enumerate(SIZES):
        x = _input(shape, step)
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=f"call {step} {shape}")
    assert [str(g) for g in before.head.grid] == [str(g) for g in after.head.grid]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_fused_graph_is_faithful_at_two_other_sizes_only_after_the_fix(tmp_path: Path, dynamo: bool) -> None:
    def faithful(code: str) -> bool:
        model = import_source(code, tmp_path)["Fused"]()
        example = torch.randn(1, 3, 8, 8)
        with torch.no_grad():
            model(example)  # the eager run that fills the cache
        try:
            graph, _ = _export(model, example, dynamo)
        except Exception:  # noqa: BLE001 - the dynamo exporter refuses a specialised dynamic size
            return False
        session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
        for shape in ((1, 3, 12, 10), (1, 3, 5, 3)):
            other = _input(shape, 3).detach()  # edge values too: zeros, infinities, a NaN
            with torch.no_grad():
                expected = import_source(code, tmp_path)["Fused"]()(other)
            try:
                [got] = session.run(None, {"x": other.numpy()})
            except Exception:  # noqa: BLE001 - a grid of the example's size
                return False
            if got.shape != tuple(expected.shape) or not torch.allclose(torch.from_numpy(got), expected, atol=1e-5, equal_nan=True):
                return False
        return True

    assert not faithful(FUSED)
    assert faithful(fixed(FUSED))


def test_a_cache_hit_that_returns_early_misses_while_tracing() -> None:
    after = fixed(ANCHORS)
    assert "        if not _trt_tracing() and image_shape == self.last_shape and image.device in self.last_anchors:\n" \
        "            return self.last_anchors[image.device]\n" in after
    assert code_lines(after) == [line.replace("if image_shape ==", "if not _trt_tracing() and image_shape ==")
                                 for line in code_lines(ANCHORS)]
    assert fixed(after) == after


def test_a_hit_that_binds_the_cached_values_and_returns_them_on_a_test_misses_while_tracing() -> None:
    after = fixed(FLASH)
    test = "if self._cached_anchors is not None and self._cached_anchors[0] == key:"
    assert code_lines(after) == [line.replace(test, test.replace("if ", "if not _trt_tracing() and "))
                                 for line in code_lines(FLASH)]
    assert fixed(after) == after


@pytest.mark.parametrize("old,new", [
    ("            c, s = self._cached_anchors[1], self._cached_anchors[2]\n",
     "            c, s = self._cached_anchors[1], self.strides\n"),  # two attributes: not one cache's values
    ("                return c, s\n", "                return c, sizes\n"),  # a value not read from the cache
    ("            if c.device == device:\n                return c, s\n",
     "            if c.device == device:\n                return c, s\n            else:\n                pass\n"),
])
def test_not_a_hit_that_returns_the_cached_values(old: str, new: str) -> None:
    code = FLASH.replace(old, new)
    assert code != FLASH
    assert "TRT726" not in rules_found(code, select=("TRT726",))


# --- a cache read on a hit, filled on a miss, its key written elsewhere in the class ---------------------

LOCAL_TESTS = (("if self.qk_mask is not None and (h, w) == self.last_size_2d:",
                "if not _trt_tracing() and self.qk_mask is not None and (h, w) == self.last_size_2d:"),
               ("if self.local_mask is not None and (height,",
                "if not _trt_tracing() and self.local_mask is not None and (height,"))


def local_fixed(code: str = LOCAL) -> str:
    for old, new in LOCAL_TESTS:
        code = code.replace(old, new)
    return code


def test_a_cache_read_on_a_hit_and_filled_on_a_miss_misses_while_tracing() -> None:
    assert code_lines(fixed(LOCAL)) == code_lines(local_fixed())
    assert fixed(fixed(LOCAL)) == fixed(LOCAL)


@pytest.mark.parametrize("body,after", [
    # the miss written first: `is None or !=`, the key filled with the cache
    ("if self.m is None or self.size != x.shape[-1]:\n    m = torch.arange(x.shape[-1])\n    self.m = m\n"
     "    self.size = x.shape[-1]\nelse:\n    m = self.m\nreturn x + m",
     "if _trt_tracing() or self.m is None or self.size != x.shape[-1]:"),
    # no `is not None` guard, the key on the right, a tuple of sizes (a graph-construction cache)
    ("s = (x.shape[-2], x.shape[-1])\nif self.cached_shape == s:\n    a = self.cached_a\nelse:\n"
     "    a = x.new_ones(s)\n    self.cached_a = a\n    self.cached_shape = s\nreturn x * a",
     "if not _trt_tracing() and self.cached_shape == s:"),
    # two caches read on the hit, both filled on the miss
    ("if self.p is not None and x.shape[-1] == self.n:\n    p, q = self.p, self.q\nelse:\n"
     "    p = torch.arange(x.shape[-1])\n    q = p * 2\n    self.p, self.q = p, q\n    self.n = x.shape[-1]\n"
     "return x + p + q", "if not _trt_tracing() and self.p is not None and x.shape[-1] == self.n:"),
])
def test_other_hit_or_fill_caches_are_refreshed(body: str, after: str) -> None:
    assert after in fixed(method(body))


@pytest.mark.parametrize("code", [
    # the key is written nowhere, or only by `__init__`: a configured size (only the precomputed form takes it)
    method("if self.m is not None and x.shape[-1] == self.n:\n    m = self.m\nelse:\n"
           "    m = torch.arange(x.shape[-1])\n    self.m = m\nreturn x + m"),
    method("if self.m is not None and x.shape[-1] == self.n:\n    m = self.m\nelse:\n"
           "    m = torch.arange(x.shape[-1])\n    self.m = m\nreturn x + m",
           "    def __init__(self):\n        super().__init__()\n        self.n = 4\n        self.m = None\n\n"),
    # the miss does not fill what the hit reads
    method("if self.m is not None and x.shape[-1] == self.n:\n    m = self.m\nelse:\n"
           "    m = torch.arange(x.shape[-1])\n    self.other = m\n    self.n = x.shape[-1]\nreturn x + m"),
    # the hit writes state of its own
    method("if self.m is not None and x.shape[-1] == self.n:\n    m = self.m\n    self.hits = 1\nelse:\n"
           "    m = torch.arange(x.shape[-1])\n    self.m = m\n    self.n = x.shape[-1]\nreturn x + m"),
    # the cache is written outside its `if` too: per-call state, not a memo
    method("if self.m is not None and x.shape[-1] == self.n:\n    m = self.m\nelse:\n"
           "    m = torch.arange(x.shape[-1])\n    self.m = m\n    self.n = x.shape[-1]\nself.m = None\nreturn x + m"),
    # only an emptiness test, no key compared
    method("if self.m is not None:\n    m = self.m\nelse:\n    m = torch.arange(x.shape[-1])\n    self.m = m\nreturn x + m"),
    # an `elif` chain decides more than a hit or a miss
    method("if self.m is not None and x.shape[-1] == self.n:\n    m = self.m\nelif x.dim() > 2:\n    m = x\nelse:\n"
           "    m = torch.arange(x.shape[-1])\n    self.m = m\n    self.n = x.shape[-1]\nreturn x + m"),
])
def test_not_a_hit_or_fill_cache(code: str) -> None:
    assert "TRT726" not in rules_found(code, select=("TRT726",))


def test_eager_is_bit_for_bit_the_same_with_the_local_attention_masks(tmp_path: Path) -> None:
    assert fixed(LOCAL) != LOCAL
    before = import_source(LOCAL, tmp_path)["Local"]()
    after = import_source(fixed(LOCAL), tmp_path)["Local"]()
    for step, shape in enumerate(SIZES):
        x = _input(shape, step)
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=f"call {step} {shape}")
        for attr in ("qk_mask", "local_mask", "last_size_2d"):
            assert str(getattr(before, attr)) == str(getattr(after, attr)), (step, attr)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_local_attention_graph_is_faithful_at_another_size_only_after_the_fix(tmp_path: Path,
                                                                                  dynamo: bool) -> None:
    before, _ = _faithful(LOCAL, "Local", tmp_path, dynamo)
    after, warned = _faithful(fixed(LOCAL), "Local", tmp_path, dynamo)
    assert not before and after
    assert not [w for w in warned if "Python boolean" in w]


def _graph_follows(session: ort.InferenceSession, model: torch.nn.Module, inputs: list[torch.Tensor],
                   atol: float) -> bool:
    """Whether the graph (one input ``x``) runs at each input and gives eager mode's output."""
    for x in inputs:
        with torch.no_grad():
            want = model(x)
        try:
            [got] = session.run(None, {"x": x.numpy()})
        except Exception:  # noqa: BLE001 - a table baked at the example's length
            return False
        if got.shape != tuple(want.shape) or not torch.allclose(torch.from_numpy(got), want, atol=atol):
            return False
    return True


def _grown_then_exported_follows(code: str, name: str, tmp_path: Path, example: tuple[int, ...],
                                 others: list[tuple[int, ...]]) -> bool:
    """An eager call at the example's shape grows the cache, the TorchScript export (axes 0 and 1 dynamic)
    follows; whether its graph gives a fresh instance's eager output at each of ``others``."""
    model = import_source(code, tmp_path)[name]().eval()
    x = torch.randn(example)
    model(x)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"], dynamic_axes={"x": {0: "b", 1: "n"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    fresh = import_source(code, tmp_path)[name]().eval()
    return _graph_follows(session, fresh, [torch.randn(shape) for shape in others], 1e-5)


# --- a grow-only cache: rebuilt only for a longer sequence, read through a slice --------------------------

#: labml-nn 0.5.1's rotary embedding (`labml_nn/transformers/rope/__init__.py:129-150`, `_build_cache`: an
#: early `return` while the cached table is long enough) and ALiBi attention
#: (`labml_nn/transformers/alibi/__init__.py:159-167`: rebuilt when `self.alibi_biases.shape[1] < seq_len`);
#: names and code are ours.
GROWN = HEADER + '''

class Rotary(nn.Module):
    def __init__(self, d: int = 4):
        super().__init__()
        self.d = d
        self.cos_cached = None

    def _build_cache(self, x):
        if self.cos_cached is not None and x.shape[-1] <= self.cos_cached.shape[0]:
            return
        theta = 1.0 / (10000 ** (torch.arange(0, self.d, 2).float() / self.d))
        idx = torch.arange(x.shape[-1]).float()
        self.cos_cached = torch.cos(idx[:, None] * theta[None, :])

    def forward(self, x):
        self._build_cache(x)
        return x[..., None] * self.cos_cached[:x.shape[-1]].sum(-1)


class Biases(nn.Module):
    def __init__(self):
        super().__init__()
        self.biases = None

    def forward(self, x):
        n = x.shape[-1]
        if self.biases is None or self.biases.shape[1] < n:
            self.biases = (torch.arange(n)[None, :] - torch.arange(n)[:, None]).float()
        return x @ self.biases[:n, :n]


class Both(nn.Module):
    def __init__(self):
        super().__init__()
        self.rotary, self.biases = Rotary(), Biases()

    def forward(self, x):
        return self.rotary(self.biases(x)).sum(-1)
'''
GROWN_TESTS = (("if self.cos_cached is not None and x.shape[-1] <= self.cos_cached.shape[0]:",
                "if not _trt_tracing() and self.cos_cached is not None and x.shape[-1] <= self.cos_cached.shape[0]:"),
               ("if self.biases is None or self.biases.shape[1] < n:",
                "if _trt_tracing() or self.biases is None or self.biases.shape[1] < n:"))


def test_a_grow_only_cache_misses_while_tracing() -> None:
    want = GROWN
    for old, new in GROWN_TESTS:
        want = want.replace(old, new)
    assert code_lines(fixed(GROWN)) == code_lines(want)
    assert fixed(fixed(GROWN)) == fixed(GROWN)


@pytest.mark.parametrize("body", [
    # a counter, not a cache: the comparison is not with a size of what the body writes
    "if self.count < x.shape[-1]:\n    self.count = self.count + 1\nreturn x",
    # both sides on self
    "if self.t is None or self.t.shape[0] < self.n:\n    self.t = torch.arange(x.shape[-1])\nreturn x + self.t",
    # the grown value is not what the body writes
    "if self.t.shape[0] < x.shape[-1]:\n    self.u = torch.arange(x.shape[-1])\nreturn x + self.t",
])
def test_not_a_grow_only_cache(body: str) -> None:
    assert rules_found(method(body), select=("TRT726",)) == []


def test_eager_is_bit_for_bit_the_same_as_the_cache_grows(tmp_path: Path) -> None:
    before = import_source(GROWN, tmp_path)["Both"]()
    after = import_source(fixed(GROWN), tmp_path)["Both"]()
    for step, width in enumerate((4, 4, 2, 7, 0, 3, 7, 9, 1)):
        x = _input((2, 3, width), step)
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=f"call {step} width {width}")
        assert torch.equal(before.rotary.cos_cached, after.rotary.cos_cached)
        assert torch.equal(before.biases.biases, after.biases.biases)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_graph_of_a_grown_cache_is_faithful_at_a_shorter_and_a_longer_length_only_after_the_fix(
        tmp_path: Path, dynamo: bool) -> None:
    def faithful(code: str) -> bool:
        model = import_source(code, tmp_path)["Both"]().eval()
        model(torch.randn(1, 3, 12))  # the eager run grows the cache past the example's length
        example = torch.randn(1, 3, 8)
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if dynamo:
                    n = torch.export.Dim("n", min=2, max=64)
                    program = torch.onnx.export(model, (example,), dynamo=True, dynamic_shapes={"x": {2: n}},
                                                input_names=["x"], verbose=False)
                    buffer.write(program.model_proto.SerializeToString())
                else:
                    torch.onnx.export(model, (example,), buffer, dynamo=False, input_names=["x"],
                                      dynamic_axes={"x": {0: "b", 2: "n"}})
            except Exception:  # noqa: BLE001 - the dynamo exporter refuses a specialised dynamic size
                return False
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        fresh = import_source(code, tmp_path)["Both"]().eval()
        # the dynamo export's batch is static
        return _graph_follows(session, fresh, [torch.randn(1 if dynamo else 2, 3, n) for n in (5, 8, 20)], 1e-4)

    assert not faithful(GROWN)
    assert faithful(fixed(GROWN))


# --- a module whose base class is the user's own, defined in another file ---------------------------------

def test_a_cache_in_a_subclass_of_a_module_from_another_file_misses_while_tracing(tmp_path: Path) -> None:
    """labml's `AlibiMultiHeadAttention(MultiHeadAttention)`: the base, imported from `mha.py`, derives from
    `nn.Module`, so the subclass's forward is forward code."""
    package = tmp_path / "lib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mha.py").write_text("from torch import nn\n\n\nclass Attention(nn.Module):\n    pass\n")
    (package / "deeper.py").write_text("from .mha import Attention\n\n\nclass Middle(Attention):\n    pass\n")
    body = ("        n = x.shape[-1]\n        if self.b is None or self.b.shape[1] < n:\n"
            "            self.b = torch.ones(n, n)\n        return x @ self.b[:n, :n]\n")
    for base, line in (("Attention", "from lib.mha import Attention"), ("Middle", "from .deeper import Middle"),
                       ("Plain", "from lib.mha import nn as Plain")):
        source = f"import torch\n{line}\n\n\nclass A({base}):\n    def forward(self, x):\n{body}"
        path = package / f"user_{base.lower()}.py"
        path.write_text(source)
        found = [f.rule for f in check_source(source.encode(), str(path), Options(select=("TRT726",)))]
        assert found == ([] if base == "Plain" else ["TRT726"]), base


#: x-transformers 2.31.10's ALiBi (`x_transformers/x_transformers.py:685-701`, `AlibiPositionalBias.forward`):
#: the hit returns a slice of a bias registered as a buffer after the test; names and code are ours.
REGISTERED = HEADER + '''

class Alibi(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", None, persistent=False)

    def bias_for(self, i: int, j: int):
        if self.bias is not None and self.bias.shape[-1] >= j and self.bias.shape[-2] >= i:
            return self.bias[..., -i:, -j:]
        bias = -(torch.arange(j)[None, :] - torch.arange(j - i, j)[:, None]).abs().float()
        self.register_buffer("bias", bias, persistent=False)
        return self.bias

    def forward(self, x):
        return x + self.bias_for(x.shape[-2], x.shape[-1])
'''


def test_a_grown_cache_registered_as_a_buffer_misses_while_tracing(tmp_path: Path) -> None:
    after = fixed(REGISTERED)
    assert "        if not _trt_tracing() and self.bias is not None and self.bias.shape[-1] >= j" in after
    before_model, after_model = (import_source(code, tmp_path)["Alibi"]() for code in (REGISTERED, after))
    for step, shape in enumerate(((1, 4, 4), (1, 4, 4), (2, 2, 6), (1, 6, 6), (1, 1, 3), (1, 0, 0), (3, 7, 7))):
        x = _input(shape, step)
        assert_same_run(run_once(before_model, [x]), run_once(after_model, [x]), context=f"call {step} {shape}")
    before_model(torch.randn(1, 9, 9))
    after_model(torch.randn(1, 9, 9))
    # Past the 9 x 9 bias the eager runs left, the original graph slices that constant (a shorter input
    # gets the right values from it, a longer one not).
    example, other = torch.randn(1, 5, 5), torch.randn(2, 11, 11)
    for model, faithful in ((before_model, False), (after_model, True)):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (example,), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "b", 1: "i", 2: "j"}})
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        with torch.no_grad():
            want = import_source(REGISTERED, tmp_path)["Alibi"]()(other)
        try:
            [got] = session.run(None, {"x": other.numpy()})
        except Exception:  # noqa: BLE001 - the baked bias cannot broadcast to the longer input
            got = None
        assert (got is not None and got.shape == tuple(want.shape) and torch.equal(torch.from_numpy(got), want)) \
            == faithful


# --- a grow-only cache keyed by the length it was built for, filled by a method ----------------------------

#: transformers 4.36.2's GPT-NeoX rotary embedding (`models/gpt_neox/modeling_gpt_neox.py:528-561`, also
#: Llama's, Mistral's and Qwen2's before 4.38): `seq_len > self.max_seq_len_cached` calls
#: `_set_cos_sin_cache`, which records the length and registers the tables; names and code are ours.
LENGTH = HEADER + '''

class Rotary(nn.Module):
    def __init__(self, dim: int = 4, first: int = 3):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (100 ** (torch.arange(0, dim, 2).float() / dim)), persistent=False)
        self._set_cache(first, self.inv_freq.device)

    def _set_cache(self, seq_len, device):
        self.max_seq_len_cached = seq_len
        t = torch.arange(self.max_seq_len_cached, device=device, dtype=self.inv_freq.dtype)
        self.register_buffer("cos_cached", torch.outer(t, self.inv_freq).cos(), persistent=False)

    def forward(self, x):
        seq_len = x.shape[-2]
        if seq_len > self.max_seq_len_cached:
            self._set_cache(seq_len, x.device)
        return x * self.cos_cached[:seq_len].repeat(1, 2)
'''


def test_a_cache_keyed_by_its_length_and_filled_by_a_method_misses_while_tracing() -> None:
    want = LENGTH.replace("if seq_len > self.max_seq_len_cached:",
                          "if _trt_tracing() or seq_len > self.max_seq_len_cached:")
    assert code_lines(fixed(LENGTH)) == code_lines(want)
    assert fixed(fixed(LENGTH)) == fixed(LENGTH)
    # written the other way round, and filled in the body itself (no method)
    inline = method("n = x.shape[-1]\nif self.built < n:\n    self.built = n\n    self.table = torch.arange(n)\n"
                    "return x + self.table[:n]")
    assert "if _trt_tracing() or self.built < n:" in fixed(inline)


@pytest.mark.parametrize("body,extra", [
    # a counter: the length counted up from itself
    ("n = x.shape[-1]\nif n > self.seen:\n    self.seen = self.seen + 1\n    self.table = torch.arange(n)\n"
     "return x + self.table[:n]", ""),
    # the length is recorded, nothing else filled: no cache
    ("n = x.shape[-1]\nif n > self.longest:\n    self.longest = n\nreturn x * self.longest", ""),
    # the method fills a cache but does not record the length (rebuilt on every longer call: not a memo)
    ("n = x.shape[-1]\nif n > self.limit:\n    self.grow(n)\nreturn x + self.table[:n]",
     "    def grow(self, n):\n        self.table = torch.arange(n)\n\n"),
    # a configured limit that raises
    ("n = x.shape[-1]\nif n > self.limit:\n    raise ValueError(n)\nreturn x", ""),
    # both sides on self
    ("if self.need > self.built:\n    self.built = self.need\n    self.table = torch.arange(self.need)\nreturn x", ""),
])
def test_not_a_cache_keyed_by_its_length(body: str, extra: str) -> None:
    assert rules_found(method(body, extra), select=("TRT726",)) == []


def test_eager_is_bit_for_bit_the_same_as_the_length_keyed_cache_grows(tmp_path: Path) -> None:
    before = import_source(LENGTH, tmp_path)["Rotary"]()
    after = import_source(fixed(LENGTH), tmp_path)["Rotary"]()
    for step, length in enumerate((2, 5, 5, 3, 0, 8, 1, 8)):
        x = _input((2, length, 4), step)
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=f"call {step} length {length}")
        assert torch.equal(before.cos_cached, after.cos_cached)
        assert before.max_seq_len_cached == after.max_seq_len_cached


def test_the_graph_of_a_length_keyed_cache_is_faithful_at_a_longer_length_only_after_the_fix(tmp_path: Path) -> None:
    def faithful(code: str) -> bool:
        return _grown_then_exported_follows(code, "Rotary", tmp_path, (2, 6, 4), [(3, n, 4) for n in (2, 6, 11)])

    assert not faithful(LENGTH)
    assert faithful(fixed(LENGTH))


# --- a cache converted to the module's dtype and device after the `if` -----------------------------------

#: fairseq's sinusoidal positions before 0.12 and their copies (GeneFace's `modules/audio2motion/vae.py:69-88`
#: at 921631df): the table is rebuilt for a longer sentence, then `self.weights = self.weights.to(...)` on
#: every call; names and code are ours.
CONVERTED = HEADER + '''

class Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.arange(3).float()[:, None]
        self.register_buffer("_like", torch.zeros(1))

    def forward(self, x):
        n = x.shape[-1]
        if self.table is None or n > self.table.size(0):
            self.table = torch.arange(n).float()[:, None]
        self.table = self.table.to(self._like)
        return x + self.table[:n, 0]
'''


def test_a_cache_converted_to_the_modules_dtype_after_the_if_misses_while_tracing(tmp_path: Path) -> None:
    after = fixed(CONVERTED)
    assert code_lines(after) == code_lines(CONVERTED.replace(
        "if self.table is None or n > self.table.size(0):",
        "if _trt_tracing() or self.table is None or n > self.table.size(0):"))
    before_model, after_model = (import_source(code, tmp_path)["Positions"]() for code in (CONVERTED, after))
    for step, width in enumerate((2, 5, 5, 0, 7, 1)):
        x = _input((2, width), step)
        assert_same_run(run_once(before_model, [x]), run_once(after_model, [x]), context=f"call {step}")
        assert torch.equal(before_model.table, after_model.table)


@pytest.mark.parametrize("after_if", [
    "self.table = self.table * 2",  # new values: state, not a conversion
    "self.table = self.other.to(self._like)",  # another value converted
    "self.table = self.table.to(self._like).mul_(2)",  # converted, then changed
])
def test_a_write_after_the_if_that_is_no_conversion_is_state(after_if: str) -> None:
    assert rules_found(CONVERTED.replace("self.table = self.table.to(self._like)", after_if), select=("TRT726",)) == []


# --- a hit nested under the emptiness test, moving the cache to the input's dtype before its return -------

#: ESPnet's positional encoding (`espnet/nets/pytorch_backend/transformer/embedding.py:25-39` at 5265216,
#: `reset_`, later `extend_pe`) and icefall's copy (the conversion unconditional); names and code are ours.
NESTED = HEADER + '''

class Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.pe = None
        self.extend(torch.zeros(1, 3))

    def extend(self, x):
        if self.pe is not None:
            if self.pe.size(1) >= x.size(1):
                if self.pe.dtype != x.dtype:
                    self.pe = self.pe.to(dtype=x.dtype)
                return
        self.pe = torch.arange(x.size(1)).to(x.dtype)[None, :]

    def forward(self, x):
        self.extend(x)
        return x + self.pe[:, :x.size(1)]
'''
NESTED_HIT = "            if self.pe.size(1) >= x.size(1):"


@pytest.mark.parametrize("conversion", [
    "                if self.pe.dtype != x.dtype:\n                    self.pe = self.pe.to(dtype=x.dtype)\n",
    "                self.pe = self.pe.to(dtype=x.dtype, device=x.device)\n",  # icefall's
])
def test_a_nested_hit_that_converts_the_cache_then_returns_misses_while_tracing(conversion: str,
                                                                                 tmp_path: Path) -> None:
    code = NESTED.replace("                if self.pe.dtype != x.dtype:\n"
                          "                    self.pe = self.pe.to(dtype=x.dtype)\n", conversion)
    after = fixed(code)
    assert code_lines(after) == code_lines(code.replace(
        NESTED_HIT, "            if not _trt_tracing() and self.pe.size(1) >= x.size(1):"))
    before_model, after_model = (import_source(c, tmp_path)["Positions"]() for c in (code, after))
    for step, width in enumerate((2, 5, 5, 0, 7, 1)):
        x = _input((2, width), step)
        x = x.double() if step == 2 else x  # a hit that converts the table
        assert_same_run(run_once(before_model, [x]), run_once(after_model, [x]), context=f"call {step}")
        assert torch.equal(before_model.pe, after_model.pe) and before_model.pe.dtype == after_model.pe.dtype

    def faithful(source: str) -> bool:
        return _grown_then_exported_follows(source, "Positions", tmp_path, (2, 6), [(3, n) for n in (2, 6, 11)])

    assert not faithful(code)
    assert faithful(after)


@pytest.mark.parametrize("old,new", [
    # the hit changes state before it returns: not a plain keep of the cache
    ("                return\n", "                self.hits = 1\n                return\n"),
    # the hit is not the whole body of the emptiness test
    ("                return\n        self.pe", "                return\n            self.pe = None\n        self.pe"),
    # the conversion gives the cache other values
    ("self.pe = self.pe.to(dtype=x.dtype)", "self.pe = self.pe.to(dtype=x.dtype) * 2"),
])
def test_not_a_nested_hit(old: str, new: str) -> None:
    assert old in NESTED
    assert rules_found(NESTED.replace(old, new), select=("TRT726",)) == []


#: flashdet 1.2.1 as its wrapper in zoo 88 calls it: the detector's ``predict`` (not its ``forward``) asks
#: ``_get_anchors`` for the grid, and the user's module calls ``predict`` from its own ``forward``.
PREDICTED = FLASH.replace("    def forward(self, x):", "    def predict(self, x):") + '''

class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Flash()

    def forward(self, x):
        return self.model.predict(x)


def build():
    return Wrapper().eval()


def inputs(generator):
    return [torch.randn(1, 3, 8, 8, generator=generator)]
'''


def test_a_cache_in_a_method_that_no_forward_of_its_class_calls_is_taken_where_the_export_warned(tmp_path) -> None:
    """From the code alone the method is no forward code of its class; migrate's observed export warned in it (the
    cache test converts a traced comparison to a bool), so it ran in a traced forward, and the fix is applied there."""
    assert "TRT726" not in rules_found(PREDICTED, select=("TRT726",))
    import json

    from support import migrate_json

    path = tmp_path / "predicted.py"
    path.write_text(PREDICTED)
    report = migrate_json(path, json.dumps({"x": {"2": "height", "3": "width"}}))
    line = next(n for n, text in enumerate(PREDICTED.splitlines(), 1) if "self._cached_anchors[0] == key" in text)
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT726", line)], report["applied"]
    assert report["exit_code"] == 0, report["remaining"]
