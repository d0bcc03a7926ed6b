"""Which size idioms the TorchScript exporter bakes: the same graph at other sizes gives other values.

    python benchmarks/size_coverage.py [--markdown] [NAME ...]

Each case is a few lines of ``forward`` that real model code writes on an input whose sizes are
dynamic. The lines become a small module file; the module is exported with
``torch.onnx.export(dynamo=False, opset_version=17)`` at one input size, every axis real exports
leave free marked dynamic (batch, height and width of an image, batch and length of a sequence),
and the graph runs in ONNX Runtime at the traced size and at two other sizes, compared with eager
torch (shape, then values within 1e-4). The TracerWarnings of the export are recorded with the line
of the case that raised them, and ``trtcodemod check`` is run over the same file. The outcome is:

- ``ok``: the graph gives torch's values at every size;
- ``fails``: the export stops;
- ``wrong``: already wrong at the traced size (not a size problem: see export_coverage.py);
- ``baked``: right at the traced size, wrong shape or values, or an ONNX Runtime error, at another.

A ``baked`` case with no TracerWarning is a SILENT bake: nothing but a second trace finds it, so it
is the worst class for ``migrate``. The ``rule`` column names the rules whose findings land on the
case's lines (``-``: none).

Measured on this machine (torch 2.13.0, onnxruntime 1.32.0; ~8 s): 173 idioms, 131 ok, 12 fail to
export, 1 wrong at the traced size, 10 baked with a TracerWarning, 19 baked SILENTLY. ``trtcodemod
apply --unsafe`` makes 8 of the 19 silent bakes, 6 of the 10 warned ones and 5 of the 12 failures
give eager mode's values at every size. The silent bakes:

- taken: ``unflatten`` then a size read (TRT345, 2 cases), ``split(w // 2)`` (TRT718), ``numel()`` of
  a ``torch.Size`` (TRT346, new with this probe, 5 cases: ``x.shape[1:].numel()`` in Idefics2, Idefics3,
  SmolVLM and ModernVBERT, MONAI's RetinaNet, kornia's descriptors, timm's Fourier embedding);
- a Python loop over a dynamic size (``range(x.shape[2])`` in a comprehension, a ``for`` loop, windows
  of ``range(0, w, 4)``, a recurrent loop; 4 cases): ``range`` reads the traced size through
  ``__index__`` with no warning and the trace unrolls the body. ``migrate``'s second trace names the
  unrolled loop; no rewrite gives a loop body a graph form in general;
- a count of pieces over a dynamic axis (``split(1, dim=2)``, ``unbind(2)``, ``chunk(h // 2)``; 3
  cases): an ONNX graph has a fixed number of outputs, and the code does not show whether the axis
  is dynamic (``qkv.unbind(0)`` over a fixed axis is the common use); ``migrate`` locates the ``Split``
  ONNX Runtime refuses, no rule rewrites it;
- ``list(range(w))`` bound to a name and sliced (``idx[::-1]``) as an index: TRT716 takes
  ``x[list(range(n))]`` written in the index only;
- ``[x] * b`` (a list repeated a size's times; not found in the pinned libraries' model code),
  ``roll(shifts=w // 2)`` (the symbolic reads the shift as a constant; the pinned libraries roll by
  configured shifts, Swin's ``shift_size``, never by a size), ``as_strided(x.size(), x.stride())``
  (sizes and strides read as constants; Longformer and LED chunk this way behind their own export
  path; no general graph form).

Also found: ``x.index_select(0, torch.arange(n - 1, -1, -1))`` is wrong at the traced size, not a bake:
ONNX Runtime's full graph optimisation turns a ``Gather`` of a ``Range`` with step -1 into a ``Slice``
that returns no rows (right with ``ORT_ENABLE_BASIC``). The warned bakes no rule takes:
``x.new_tensor([h, w])`` and ``torch.as_tensor(list(range(w)))`` (TRT716 takes ``torch.tensor``/
``torch.as_tensor`` of sizes), ``x / len(x)`` (TRT704 reports ``len(x)`` where ``x`` is also used as a
tensor by a method or ``.shape``), ``interpolate(size=[int(s) for s in x.shape[2:]])`` (TRT712 does not
look into the comprehension). The table of that run (``--markdown`` adds each case's detail):

| idiom | outcome | TracerWarning | rule | after `apply --unsafe` |
| --- | --- | --- | --- | --- |
| `unflatten, size read after` | SILENT bake | no | TRT345 | ok |
| `unflatten (-1), size read after` | SILENT bake | no | TRT345 | ok |
| `view, sizes of another tensor` | ok | no | - | - |
| `reshape x.size(i)` | ok | no | - | - |
| `b, c, h, w = x.shape; view(b, c, h * w)` | ok | no | - | - |
| `b, c, h, w = x.size(); permute, view` | ok | no | - | - |
| `flatten(1, 2), size read after` | ok | no | - | - |
| `flatten(2), transpose, back to h, w` | ok | no | - | - |
| `view(x.size())` | ok | no | - | - |
| `view(x.shape[:2] + (h, w))` | ok | no | - | - |
| `view(x.shape[:1] + (-1,))` | ok | no | - | - |
| `view(-1, *x.shape[2:])` | ok | no | - | - |
| `reshape(*x.shape[:-1], 2, -1)` | ok | no | - | - |
| `view(x.shape[0] * x.shape[1], -1)` | ok | no | - | - |
| `size of an op's result into view` | ok | no | - | - |
| `pooled size into reshape` | ok | no | - | - |
| `expand(-1, C, -1, -1)` | ok | no | - | - |
| `expand(x.shape)` | ok | no | - | - |
| `expand(*x.shape)` | ok | no | - | - |
| `expand_as` | ok | no | - | - |
| `repeat(1, 1, h, 1)` | ok | no | - | - |
| `tile((1, 1, 1, w))` | ok | no | TRT407 | - |
| `broadcast_to(y, x.shape)` | ok | no | - | - |
| `repeat_interleave(size)` | ok | no | - | - |
| `repeat_interleave(2) then size read` | ok | no | - | - |
| `new_zeros(x.shape)` | ok | no | - | - |
| `new_full(x.shape, v)` | ok | no | - | - |
| `new_ones(x.shape[:2])` | ok | no | - | - |
| `new_zeros(b, 2c, *x.shape[2:])` | ok | no | - | - |
| `torch.zeros(x.shape)` | ok | no | - | - |
| `torch.zeros(b, *x.shape[2:])` | ok | no | - | - |
| `torch.full(x.size(), v)` | ok | no | - | - |
| `torch.empty(x.shape).fill_` | ok | no | - | - |
| `torch.ones(x.shape[:2] + (1, 1))` | ok | no | - | - |
| `torch.ones(b, h)` | ok | no | - | - |
| `torch.full((b, 1), w) (a size as value)` | ok | no | - | - |
| `new_full((b,), w) (a size as value)` | ok | no | - | - |
| `zeros_like then expand to a size` | ok | no | - | - |
| `arange(x.size(3))` | ok | no | - | - |
| `arange(w, dtype=float)` | ok | no | - | - |
| `arange float step` | ok | no | - | - |
| `arange(h // 2, h)` | ok | no | - | - |
| `arange(w) / w` | ok | no | - | - |
| `arange(0, w, 2)` | ok | no | - | - |
| `linspace(0, 1, w)` | ok | no | - | - |
| `linspace(-1, 1, w) * w` | ok | no | - | - |
| `linspace(0, w - 1, w)` | ok | no | - | - |
| `meshgrid of aranges (ij)` | ok | no | - | - |
| `meshgrid of aranges (default)` | ok | no | - | - |
| `meshgrid of linspaces (xy)` | ok | no | - | - |
| `ones(b, h, w).cumsum (DETR)` | ok | no | - | - |
| `triu(ones(w, w))` | ok | no | - | - |
| `tril(ones(w, w), -1) bool` | ok | no | - | - |
| `eye(w)` | ok | no | TRT310 | - |
| `scatter with an arange index` | ok | no | - | - |
| `gather with an arange index` | ok | no | - | - |
| `one_hot(num_classes=w)` | ok | no | - | - |
| `interpolate(size=x.shape[-2:])` | ok | no | - | - |
| `interpolate(size=(h, w)) unpacked` | ok | no | - | - |
| `interpolate(size=y.shape[2:])` | ok | no | - | - |
| `interpolate(size=(2h, 2w))` | ok | no | - | - |
| `interpolate(scale_factor=2)` | ok | no | - | - |
| `interpolate(scale_factor=0.5) bilinear` | ok | no | - | - |
| `interpolate(scale_factor=2), size read after` | ok | no | - | - |
| `adaptive_avg_pool2d((h // 2, w // 2))` | fails | - | TRT601 | ok |
| `adaptive_avg_pool2d(1) (control)` | ok | no | - | - |
| `pixel_shuffle(2), size read after` | ok | no | - | - |
| `pixel_unshuffle(2), size read after` | ok | no | - | - |
| `pad (0, (s - w % s) % s)` | ok | no | - | - |
| `pad both axes to a multiple` | ok | no | - | - |
| `pad by -w % s` | ok | no | - | - |
| `pad to math.ceil multiple` | baked | line 1 | TRT712 | ok |
| `pad then crop back [:h, :w]` | ok | no | - | - |
| `split(w // 2, dim=3)` | SILENT bake | no | TRT718 | ok |
| `split([w // 2, w - w // 2])` | ok | no | - | - |
| `chunk(2, dim=3)` | ok | no | - | - |
| `tensor_split(2, dim=3)` | ok | no | TRT306 | - |
| `unbind(1), stack` | ok | no | - | - |
| `narrow(3, 0, w // 2)` | ok | no | - | - |
| `x[:, :, : h // 2]` | ok | no | - | - |
| `x[..., w // 2 :]` | ok | no | - | - |
| `x[:, :, : int(h / 2)]` | baked | line 1 | TRT712 | ok |
| `x[..., : y.shape[-1]] (an op's size)` | ok | no | - | - |
| `cat of two halves` | ok | no | - | - |
| `stack of per-row pieces (range(h))` | SILENT bake | no | - | - |
| `list(range(w)) as an index` | SILENT bake | no | - | - |
| `x.view(-1)[: numel // 2]` | ok | no | - | - |
| `roll(w // 2)` | SILENT bake | no | - | - |
| `roll((h // 2, w // 2), (2, 3))` | fails | - | - | - |
| `F.unfold, view by h // 2, w // 2` | ok | no | - | - |
| `F.fold(output_size=x.shape[-2:])` | fails | - | TRT312 | ok |
| `x.unfold(3, 2, 2)` | fails | - | TRT311 | ok |
| `as_strided(x.size(), x.stride())` | SILENT bake | no | - | - |
| `permute(*range(x.dim()))[::-1]` | ok | no | - | - |
| `flatten(1).T` | ok | no | - | - |
| `x.mT` | fails | - | TRT314 | ok |
| `einsum bchw->bhwc` | ok | no | - | - |
| `einsum bchw,bdhw->bcd` | ok | no | - | - |
| `x.sum() / x.numel()` | ok | no | - | - |
| `x / len(x)` | baked | line 1 | - | - |
| `x / math.sqrt(w)` | baked | line 1 | TRT712 | ok |
| `x * w ** -0.5` | ok | no | - | - |
| `x / float(w)` | baked | line 1 | TRT712 | ok |
| `x * (h * w)` | ok | no | - | - |
| `x / (w - 1)` | ok | no | - | - |
| `torch.tensor(w)` | ok | line 1 | - | - |
| `max(h, w) python` | ok | line 1 | TRT712 | - |
| `range(h) loop, list append, cat` | SILENT bake | no | - | - |
| `range(0, w, 4) windows loop` | SILENT bake | no | - | - |
| `[x] * b (list times a size)` | SILENT bake | no | - | - |
| `split(1, dim=2) per row` | SILENT bake | no | - | - |
| `unbind(2) over a dynamic axis` | SILENT bake | no | - | - |
| `chunk(h // 2, dim=2)` | SILENT bake | no | - | - |
| `topk(w // 2)` | ok | no | - | - |
| `triu(diagonal=w // 2)` | ok | no | - | - |
| `tril_indices(h, w)` | fails | - | - | - |
| `triu_indices(w, w, 1)` | fails | - | - | - |
| `select(3, w - 1)` | ok | no | - | - |
| `x[..., w - 1] (last by size)` | ok | no | - | - |
| `x[:, :, ::h // 2] (step from a size)` | ok | no | - | - |
| `diagonal(offset=w - h)` | fails | - | TRT320 | fails |
| `var(-1) over a dynamic axis` | ok | no | - | - |
| `std((2, 3))` | ok | no | - | - |
| `var_mean(-1, correction=1)` | ok | no | - | - |
| `group_norm(x, 2)` | ok | no | - | - |
| `instance_norm` | ok | no | - | - |
| `layer_norm(x, x.shape[1:])` | fails | - | - | - |
| `logspace(0, 1, w)` | fails | - | - | - |
| `x.shape[:2].numel() into view` | SILENT bake | no | TRT346 | ok |
| `x.shape[1:].numel() compared (Idefics2)` | SILENT bake | no | TRT346 | ok |
| `s = x.shape[2:]; reshape(b, s.numel(), -1)` | SILENT bake | no | TRT346 | ok |
| `x.size()[1:].numel() into reshape` | SILENT bake | no | TRT346 | ok |
| `x.shape.numel() as a scale` | SILENT bake | no | TRT346 | ok |
| `math.prod(x.shape[2:]) into view` | ok | no | - | - |
| `x.numel() // b into view` | ok | no | - | - |
| `interpolate(size=tuple(y.shape[-2:]))` | ok | no | - | - |
| `interpolate(size=[s // 2 for s in shape])` | ok | no | - | - |
| `interpolate(size=[int(s) for s in shape])` | baked | line 2 | - | - |
| `interpolate(scale_factor=w / 4)` | fails | - | - | - |
| `interpolate(scale_factor=2, recompute)` | ok | no | - | - |
| `expand(-1, -1, *y.shape[2:]) (ASPP)` | ok | no | - | - |
| `arange(h * w).view(h, w)` | ok | no | - | - |
| `arange(w).repeat(h, 1)` | ok | no | - | - |
| `masked_fill(arange(w) >= w // 2)` | ok | no | - | - |
| `cat with zeros(pad rows) to a multiple` | ok | no | - | - |
| `torch.tensor(x.shape[2:])` | baked | line 1 | TRT716 | ok |
| `x.new_tensor([h, w])` | baked | line 1 | - | - |
| `torch.as_tensor(list(range(w)))` | baked | line 1 | - | - |
| `int(h * 0.5) into interpolate` | baked | line 1 | TRT712 | ok |
| `range(x.dim()) axes (control)` | ok | no | - | - |
| `repeat_interleave(arange(b), n)` | ok | no | - | - |
| `max_pool2d(kernel=(h, 1))` | fails | - | TRT342 | ok |
| `cumsum(ones_like(mask), -1) - 1` | ok | no | - | - |
| `index_select with arange(b)` | wrong | no | - | - |
| `zip over sizes into a list (py)` | ok | no | - | - |
| `SDPA scale=1/math.sqrt(d)` | ok | line 1 | TRT322,TRT712 | - |
| `n = x.shape[1]; torch.zeros(b, n, dtype=long)` | ok | no | - | - |
| `pad to max_len - n` | ok | no | - | - |
| `mask from lengths: arange(n) < n - 1` | ok | no | - | - |
| `for t in range(n) recurrent loop` | SILENT bake | no | - | - |
| `torch.split(x, [1, n - 1], 1)` | ok | no | - | - |
| `heads view, transpose` | ok | no | - | - |
| `heads reshape(b, n, 2, -1)` | ok | no | - | - |
| `merge heads back with reshape(b, n, -1)` | ok | no | - | - |
| `causal mask from ones(n, n).tril, SDPA` | ok | no | - | - |
| `SDPA is_causal=True` | ok | no | - | - |
| `causal mask from aranges, masked_fill` | ok | no | - | - |
| `triu(full(-inf), 1) mask added` | ok | no | - | - |
| `sinusoid positions from arange(n)` | ok | no | - | - |
| `position ids arange(n).expand(b, -1)` | ok | no | - | - |
| `x[:, -1] (last token) and size read` | ok | no | - | - |
| `cls token expand(b, -1, -1), cat` | ok | no | - | - |
| `sqrt(n) grid view` | ok | no | - | - |
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_coverage import _quiet_stdout  # noqa: E402  (the same quieting of torch's C++ prints)

IMAGE = ((2, 4, 6, 8), (3, 4, 10, 14), (1, 4, 4, 12))
IMAGE_AXES = {0: "batch", 2: "height", 3: "width"}
SEQUENCE = ((2, 6, 8), (3, 10, 8), (1, 4, 8))
SEQUENCE_AXES = {0: "batch", 1: "length"}

HEADER = """import math

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):
"""
FIRST_LINE = HEADER.count("\n") + 1


@dataclass(frozen=True)
class Case:
    name: str
    body: str
    sequence: bool = False
    note: str = ""
    #: The first item of the batch all zeros at every size (a padding image: Idefics2's test needs one to show).
    zero_first: bool = False


def C(name: str, body: str, note: str = "") -> Case:
    return Case(name, body, False, note)


def S(name: str, body: str, note: str = "") -> Case:
    return Case(name, body, True, note)


CASES = (
    # views and reshapes with read sizes
    C("unflatten, size read after", "y = x.flatten(2).unflatten(2, (x.shape[2], x.shape[3]))\n"
      "return y.reshape(y.shape[0], y.shape[1] * y.shape[2], -1)"),
    C("unflatten (-1), size read after", "y = x.unflatten(3, (2, -1))\nreturn y.sum(-1).view(y.shape[0], -1)"),
    C("view, sizes of another tensor", "y = x.mean(1)\nreturn x.view(y.shape[0], -1, y.shape[-1])"),
    C("reshape x.size(i)", "return x.reshape(x.size(0), x.size(1), -1)"),
    C("b, c, h, w = x.shape; view(b, c, h * w)", "b, c, h, w = x.shape\nreturn x.view(b, c, h * w)"),
    C("b, c, h, w = x.size(); permute, view", "b, c, h, w = x.size()\n"
      "return x.permute(0, 2, 3, 1).contiguous().view(b, h * w, c)"),
    C("flatten(1, 2), size read after", "y = x.flatten(1, 2)\nreturn y.view(y.shape[0], -1, 2)"),
    C("flatten(2), transpose, back to h, w", "h, w = x.shape[-2:]\ny = x.flatten(2).transpose(1, 2)\n"
      "return y.transpose(1, 2).reshape(-1, 4, h, w)"),
    C("view(x.size())", "y = x * 2\nreturn y.view(x.size())"),
    C("view(x.shape[:2] + (h, w))", "y = x.flatten(2)\nreturn y.view(x.shape[:2] + (x.shape[2], x.shape[3]))"),
    C("view(x.shape[:1] + (-1,))", "return x.mean(1).view(x.shape[:1] + (-1,))"),
    C("view(-1, *x.shape[2:])", "return x.view(-1, *x.shape[2:])"),
    C("reshape(*x.shape[:-1], 2, -1)", "return x.reshape(*x.shape[:-1], 2, -1).sum(-1)"),
    C("view(x.shape[0] * x.shape[1], -1)", "return x.view(x.shape[0] * x.shape[1], -1)"),
    C("size of an op's result into view", "y = x.permute(0, 2, 3, 1)\nreturn y.reshape(y.shape[0], -1, y.shape[-1])"),
    C("pooled size into reshape", "y = torch.nn.functional.avg_pool2d(x, 2)\n"
      "return y.reshape(y.shape[0], y.shape[1], y.shape[2] * y.shape[3])"),
    # broadcast and copies with read sizes
    C("expand(-1, C, -1, -1)", "return x.mean(1, keepdim=True).expand(-1, x.shape[1], -1, -1)"),
    C("expand(x.shape)", "return x.mean(2, keepdim=True).expand(x.shape)"),
    C("expand(*x.shape)", "return x.mean(3, keepdim=True).expand(*x.shape)"),
    C("expand_as", "return x.mean((2, 3), keepdim=True).expand_as(x)"),
    C("repeat(1, 1, h, 1)", "return x.mean(2, keepdim=True).repeat(1, 1, x.shape[2], 1)"),
    C("tile((1, 1, 1, w))", "return x.mean(3, keepdim=True).tile((1, 1, 1, x.shape[3]))"),
    C("broadcast_to(y, x.shape)", "return torch.broadcast_to(x.mean(1, keepdim=True), x.shape)"),
    C("repeat_interleave(size)", "return x.mean(1).repeat_interleave(x.shape[0], dim=0)"),
    C("repeat_interleave(2) then size read", "y = x.repeat_interleave(2, dim=3)\nreturn y.view(y.shape[0], -1)"),
    # tensors built from sizes
    C("new_zeros(x.shape)", "return x.new_zeros(x.shape) + x"),
    C("new_full(x.shape, v)", "return x.new_full(x.shape, 2.0) * x"),
    C("new_ones(x.shape[:2])", "return x.new_ones(x.shape[:2]).sum(1)"),
    C("new_zeros(b, 2c, *x.shape[2:])", "return torch.cat([x, x], 1) + x.new_zeros(x.shape[0], x.shape[1] * 2, *x.shape[2:])"),
    C("torch.zeros(x.shape)", "return torch.zeros(x.shape) + x"),
    C("torch.zeros(b, *x.shape[2:])", "return torch.zeros(x.shape[0], *x.shape[2:]) + x.sum(1)"),
    C("torch.full(x.size(), v)", "return torch.full(x.size(), 3.0) * x"),
    C("torch.empty(x.shape).fill_", "return torch.empty(x.shape).fill_(1.5) + x"),
    C("torch.ones(x.shape[:2] + (1, 1))", "return torch.ones(x.shape[:2] + (1, 1)) * x"),
    C("torch.ones(b, h)", "return torch.ones(x.shape[0], x.shape[2]).sum(-1)"),
    C("torch.full((b, 1), w) (a size as value)", "return torch.full((x.shape[0], 1), x.shape[-1])"),
    C("new_full((b,), w) (a size as value)", "return x.new_full((x.shape[0],), x.shape[-1])"),
    C("zeros_like then expand to a size", "return torch.zeros_like(x[:, :1]).expand(-1, 3, -1, -1)"),
    # ranges and grids
    C("arange(x.size(3))", "return x + torch.arange(x.size(3))"),
    C("arange(w, dtype=float)", "return x + torch.arange(x.shape[-1], dtype=torch.float32)"),
    C("arange float step", "return torch.arange(0, x.shape[-1] * 0.5, 0.5)"),
    C("arange(h // 2, h)", "return torch.arange(x.shape[2] // 2, x.shape[2])"),
    C("arange(w) / w", "return x + torch.arange(x.shape[-1]) / x.shape[-1]"),
    C("arange(0, w, 2)", "return x.index_select(-1, torch.arange(0, x.shape[-1], 2))"),
    C("linspace(0, 1, w)", "return x + torch.linspace(0, 1, x.shape[-1])"),
    C("linspace(-1, 1, w) * w", "return torch.linspace(-1, 1, x.shape[-1]) * x.shape[-1]"),
    C("linspace(0, w - 1, w)", "return torch.linspace(0, x.shape[-1] - 1, x.shape[-1])"),
    C("meshgrid of aranges (ij)", "ys, xs = torch.meshgrid(torch.arange(x.shape[2]), torch.arange(x.shape[3]), "
      "indexing=\"ij\")\nreturn x + ys + xs"),
    C("meshgrid of aranges (default)", "ys, xs = torch.meshgrid(torch.arange(x.shape[2]), torch.arange(x.shape[3]))\n"
      "return x + ys + xs"),
    C("meshgrid of linspaces (xy)", "gx, gy = torch.meshgrid(torch.linspace(-1, 1, x.shape[3]), "
      "torch.linspace(-1, 1, x.shape[2]), indexing=\"xy\")\nreturn x + gx * gy"),
    C("ones(b, h, w).cumsum (DETR)", "y = torch.ones(x.shape[0], x.shape[2], x.shape[3]).cumsum(1)\n"
      "return y / y[:, -1:, :]"),
    C("triu(ones(w, w))", "return x @ torch.triu(torch.ones(x.shape[-1], x.shape[-1]))"),
    C("tril(ones(w, w), -1) bool", "return x.masked_fill(torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool).tril(-1), 0.0)"),
    C("eye(w)", "return x @ torch.eye(x.shape[-1])"),
    C("scatter with an arange index", "idx = torch.arange(x.shape[-1]).flip(0).expand_as(x)\n"
      "return torch.zeros_like(x).scatter(-1, idx, x)"),
    C("gather with an arange index", "idx = torch.arange(x.shape[-1] - 1, -1, -1).expand(x.shape)\n"
      "return x.gather(-1, idx)"),
    C("one_hot(num_classes=w)", "i = torch.arange(x.shape[0])\nreturn F.one_hot(i, num_classes=x.shape[-1])"),
    # resizing
    C("interpolate(size=x.shape[-2:])", "y = F.avg_pool2d(x, 2)\n"
      "return F.interpolate(y, size=x.shape[-2:], mode=\"bilinear\", align_corners=False)"),
    C("interpolate(size=(h, w)) unpacked", "h, w = x.shape[-2:]\ny = F.avg_pool2d(x, 2)\n"
      "return F.interpolate(y, size=(h, w), mode=\"nearest\")"),
    C("interpolate(size=y.shape[2:])", "y = F.avg_pool2d(x, 2)\nreturn F.interpolate(x, size=y.shape[2:])"),
    C("interpolate(size=(2h, 2w))", "return F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] * 2))"),
    C("interpolate(scale_factor=2)", "return F.interpolate(x, scale_factor=2)"),
    C("interpolate(scale_factor=0.5) bilinear", "return F.interpolate(x, scale_factor=0.5, mode=\"bilinear\")"),
    C("interpolate(scale_factor=2), size read after", "y = F.interpolate(x, scale_factor=2)\n"
      "return y.view(y.shape[0], y.shape[1], -1)"),
    C("adaptive_avg_pool2d((h // 2, w // 2))", "return F.adaptive_avg_pool2d(x, (x.shape[2] // 2, x.shape[3] // 2))"),
    C("adaptive_avg_pool2d(1) (control)", "return F.adaptive_avg_pool2d(x, 1)"),
    C("pixel_shuffle(2), size read after", "y = F.pixel_shuffle(x, 2)\nreturn y.view(y.shape[0], -1)"),
    C("pixel_unshuffle(2), size read after", "y = F.pixel_unshuffle(x, 2)\nreturn y.view(y.shape[0], y.shape[1], -1)"),
    # padding
    C("pad (0, (s - w % s) % s)", "pad_w = (5 - x.shape[3] % 5) % 5\nreturn F.pad(x, (0, pad_w))"),
    C("pad both axes to a multiple", "ph = (5 - x.shape[2] % 5) % 5\npw = (5 - x.shape[3] % 5) % 5\n"
      "return F.pad(x, (0, pw, 0, ph))"),
    C("pad by -w % s", "return F.pad(x, (0, -x.shape[3] % 5))"),
    C("pad to math.ceil multiple", "pw = math.ceil(x.shape[3] / 5) * 5 - x.shape[3]\nreturn F.pad(x, (0, pw))"),
    C("pad then crop back [:h, :w]", "h, w = x.shape[-2:]\ny = F.pad(x, (0, (5 - w % 5) % 5)) * 2\n"
      "return y[:, :, :h, :w]"),
    # splitting and slicing
    C("split(w // 2, dim=3)", "a, b = x.split(x.shape[3] // 2, dim=3)\nreturn a - b"),
    C("split([w // 2, w - w // 2])", "a, b = x.split([x.shape[3] // 2, x.shape[3] - x.shape[3] // 2], dim=3)\n"
      "return a - b"),
    C("chunk(2, dim=3)", "a, b = x.chunk(2, dim=3)\nreturn a - b"),
    C("tensor_split(2, dim=3)", "a, b = x.tensor_split(2, dim=3)\nreturn a - b"),
    C("unbind(1), stack", "return torch.stack(x.unbind(1)[::-1], 1)"),
    C("narrow(3, 0, w // 2)", "return x.narrow(3, 0, x.shape[3] // 2)"),
    C("x[:, :, : h // 2]", "return x[:, :, : x.shape[2] // 2]"),
    C("x[..., w // 2 :]", "return x[..., x.shape[-1] // 2 :]"),
    C("x[:, :, : int(h / 2)]", "return x[:, :, : int(x.shape[2] / 2)]"),
    C("x[..., : y.shape[-1]] (an op's size)", "y = F.avg_pool2d(x, 2)\nreturn x[..., : y.shape[-1]]"),
    C("cat of two halves", "return torch.cat([x[..., x.shape[-1] // 2 :], x[..., : x.shape[-1] // 2]], -1)"),
    C("stack of per-row pieces (range(h))", "return torch.stack([x[:, :, i] for i in range(x.shape[2])], 2)"),
    C("list(range(w)) as an index", "idx = list(range(x.shape[-1]))\nreturn x[..., idx[::-1]]"),
    C("x.view(-1)[: numel // 2]", "return x.reshape(-1)[: x.numel() // 2]"),
    C("roll(w // 2)", "return x.roll(x.shape[-1] // 2, -1)"),
    C("roll((h // 2, w // 2), (2, 3))", "return torch.roll(x, shifts=(x.shape[2] // 2, x.shape[3] // 2), dims=(2, 3))"),
    C("F.unfold, view by h // 2, w // 2", "y = F.unfold(x, 2, stride=2)\n"
      "return y.view(x.shape[0], x.shape[1], 4, x.shape[2] // 2, x.shape[3] // 2)"),
    C("F.fold(output_size=x.shape[-2:])", "return F.fold(F.unfold(x, 2, stride=2), x.shape[-2:], 2, stride=2)"),
    C("x.unfold(3, 2, 2)", "return x.unfold(3, 2, 2).sum(-1)"),
    C("as_strided(x.size(), x.stride())", "return (x * 2).as_strided(x.size(), x.stride())"),
    # axes and transposes
    C("permute(*range(x.dim()))[::-1]", "return x.permute(*range(x.dim() - 1, -1, -1))"),
    C("flatten(1).T", "return x.flatten(1).T"),
    C("x.mT", "return x.mT"),
    C("einsum bchw->bhwc", "return torch.einsum(\"bchw->bhwc\", x)"),
    C("einsum bchw,bdhw->bcd", "return torch.einsum(\"bchw,bdhw->bcd\", x, x)"),
    # scalars from sizes
    C("x.sum() / x.numel()", "return x.sum() / x.numel()"),
    C("x / len(x)", "return x / len(x)"),
    C("x / math.sqrt(w)", "return x / math.sqrt(x.shape[-1])"),
    C("x * w ** -0.5", "return x * x.shape[-1] ** -0.5"),
    C("x / float(w)", "return x / float(x.shape[-1])"),
    C("x * (h * w)", "return x * (x.shape[2] * x.shape[3])"),
    C("x / (w - 1)", "return x / (x.shape[-1] - 1)"),
    C("torch.tensor(w)", "return x / torch.tensor(x.shape[-1])"),
    C("max(h, w) python", "return x / max(x.shape[2], x.shape[3])"),
    # more int arguments read from sizes, and Python values built from them
    C("range(h) loop, list append, cat", "rows = []\nfor i in range(x.shape[2]):\n    rows.append(x[:, :, i : i + 1] * i)\n"
      "return torch.cat(rows, 2)"),
    C("range(0, w, 4) windows loop", "out = []\nfor j in range(0, x.shape[3], 4):\n    out.append(x[..., j : j + 4].mean(-1))\n"
      "return torch.stack(out, -1)"),
    C("[x] * b (list times a size)", "return torch.cat([x] * x.shape[0], 1)"),
    C("split(1, dim=2) per row", "return torch.cat(x.split(1, dim=2)[::-1], 2)"),
    C("unbind(2) over a dynamic axis", "return torch.stack(x.unbind(2)[::-1], 2)"),
    C("chunk(h // 2, dim=2)", "return torch.cat(x.chunk(x.shape[2] // 2, dim=2)[::-1], 2)"),
    C("topk(w // 2)", "return x.topk(x.shape[-1] // 2, dim=-1).values"),
    C("triu(diagonal=w // 2)", "return x.triu(x.shape[-1] // 2)"),
    C("tril_indices(h, w)", "i = torch.tril_indices(x.shape[2], x.shape[3])\nreturn x[:, :, i[0], i[1]]"),
    C("triu_indices(w, w, 1)", "i = torch.triu_indices(x.shape[3], x.shape[3], 1)\nreturn x[..., i[1]]"),
    C("select(3, w - 1)", "return x.select(3, x.shape[3] - 1)"),
    C("x[..., w - 1] (last by size)", "return x[..., x.shape[-1] - 1]"),
    C("x[:, :, ::h // 2] (step from a size)", "return x[:, :, :: x.shape[2] // 2]"),
    C("diagonal(offset=w - h)", "return x.diagonal(x.shape[3] - x.shape[2], 2, 3)"),
    C("var(-1) over a dynamic axis", "return x.var(-1)"),
    C("std((2, 3))", "return x.std((2, 3))"),
    C("var_mean(-1, correction=1)", "v, m = torch.var_mean(x, -1)\nreturn v + m"),
    C("group_norm(x, 2)", "return F.group_norm(x, 2)"),
    C("instance_norm", "return F.instance_norm(x)"),
    C("layer_norm(x, x.shape[1:])", "return F.layer_norm(x, x.shape[1:])"),
    C("logspace(0, 1, w)", "return x + torch.logspace(0, 1, x.shape[-1])"),
    C("x.shape[:2].numel() into view", "return x.view(x.shape[:2].numel(), -1)"),
    Case("x.shape[1:].numel() compared (Idefics2)", "return (x == 0.0).sum(dim=(-1, -2, -3)) != x.shape[1:].numel()",
         zero_first=True),
    C("s = x.shape[2:]; reshape(b, s.numel(), -1)", "s = x.shape[2:]\nreturn x.permute(0, 2, 3, 1).reshape(x.shape[0], s.numel(), -1)"),
    C("x.size()[1:].numel() into reshape", "y = F.avg_pool2d(x, 2)\nreturn y.reshape(y.shape[0], y.size()[1:].numel())"),
    C("x.shape.numel() as a scale", "return x / x.shape.numel()"),
    C("math.prod(x.shape[2:]) into view", "return x.view(x.shape[0], x.shape[1], math.prod(x.shape[2:]))"),
    C("x.numel() // b into view", "return x.view(x.shape[0], x.numel() // x.shape[0])"),
    C("interpolate(size=tuple(y.shape[-2:]))", "y = F.avg_pool2d(x, 2)\nreturn F.interpolate(y, size=tuple(x.shape[-2:]))"),
    C("interpolate(size=[s // 2 for s in shape])", "return F.interpolate(x, size=[s // 2 for s in x.shape[2:]])"),
    C("interpolate(size=[int(s) for s in shape])", "y = F.avg_pool2d(x, 2)\nreturn F.interpolate(y, size=[int(s) for s in x.shape[2:]])"),
    C("interpolate(scale_factor=w / 4)", "return F.interpolate(x, scale_factor=x.shape[-1] / 4)"),
    C("interpolate(scale_factor=2, recompute)", "return F.interpolate(x, scale_factor=2, recompute_scale_factor=True)"),
    C("expand(-1, -1, *y.shape[2:]) (ASPP)", "p = x.mean((2, 3), keepdim=True)\nreturn p.expand(-1, -1, *x.shape[2:])"),
    C("arange(h * w).view(h, w)", "return torch.arange(x.shape[2] * x.shape[3]).view(x.shape[2], x.shape[3])"),
    C("arange(w).repeat(h, 1)", "return x + torch.arange(x.shape[3]).view(1, -1).repeat(x.shape[2], 1)"),
    C("masked_fill(arange(w) >= w // 2)", "return x.masked_fill(torch.arange(x.shape[3]) >= x.shape[3] // 2, 0.0)"),
    C("cat with zeros(pad rows) to a multiple", "ph = (5 - x.shape[2] % 5) % 5\n"
      "return torch.cat([x, x.new_zeros(x.shape[0], x.shape[1], ph, x.shape[3])], 2)"),
    C("torch.tensor(x.shape[2:])", "return torch.tensor(x.shape[2:])"),
    C("x.new_tensor([h, w])", "return x.new_tensor([x.shape[2], x.shape[3]])"),
    C("torch.as_tensor(list(range(w)))", "return x[..., torch.as_tensor(list(range(x.shape[-1])))]"),
    C("int(h * 0.5) into interpolate", "return F.interpolate(x, size=(int(x.shape[2] * 0.5), int(x.shape[3] * 0.5)))"),
    C("range(x.dim()) axes (control)", "return x.sum(dim=tuple(range(2, x.dim())))"),
    C("repeat_interleave(arange(b), n)", "return torch.arange(x.shape[0]).repeat_interleave(x.shape[2])"),
    C("max_pool2d(kernel=(h, 1))", "return F.max_pool2d(x, kernel_size=(x.shape[2], 1))"),
    C("cumsum(ones_like(mask), -1) - 1", "return torch.ones_like(x[:, 0]).cumsum(-1) - 1"),
    C("index_select with arange(b)", "return x.flatten(1).index_select(0, torch.arange(x.shape[0] - 1, -1, -1))"),
    C("zip over sizes into a list (py)", "h, w = [s // 2 * 2 for s in x.shape[2:]]\nreturn x[:, :, :h, :w]"),
    S("SDPA scale=1/math.sqrt(d)", "return F.scaled_dot_product_attention(x, x, x, scale=1 / math.sqrt(x.size(-1)))"),
    S("n = x.shape[1]; torch.zeros(b, n, dtype=long)", "return torch.zeros(x.shape[0], x.shape[1], dtype=torch.long) + 1"),
    S("pad to max_len - n", "return F.pad(x, (0, 0, 0, 12 - x.shape[1]))"),
    S("mask from lengths: arange(n) < n - 1", "return (torch.arange(x.shape[1])[None] < x.shape[1] - 1).float() * x[..., 0]"),
    S("for t in range(n) recurrent loop", "h = x[:, 0]\nfor t in range(1, x.shape[1]):\n    h = torch.tanh(h + x[:, t])\nreturn h"),
    S("torch.split(x, [1, n - 1], 1)", "a, b = torch.split(x, [1, x.shape[1] - 1], 1)\nreturn b - a"),
    # sequences: attention and positions
    S("heads view, transpose", "b, n, d = x.shape\nreturn x.view(b, n, 2, d // 2).transpose(1, 2)"),
    S("heads reshape(b, n, 2, -1)", "return x.reshape(x.shape[0], x.shape[1], 2, -1).permute(0, 2, 1, 3)"),
    S("merge heads back with reshape(b, n, -1)", "b, n, _ = x.shape\ny = x.view(b, n, 2, -1).transpose(1, 2)\n"
      "return y.transpose(1, 2).reshape(b, n, -1)"),
    S("causal mask from ones(n, n).tril, SDPA", "n = x.shape[1]\nmask = torch.ones(n, n, dtype=torch.bool).tril()\n"
      "return F.scaled_dot_product_attention(x, x, x, attn_mask=mask)"),
    S("SDPA is_causal=True", "return F.scaled_dot_product_attention(x, x, x, is_causal=True)"),
    S("causal mask from aranges, masked_fill", "i = torch.arange(x.shape[1])\n"
      "s = x @ x.transpose(1, 2)\nreturn s.masked_fill(i[None, :] > i[:, None], float(\"-inf\")).softmax(-1)"),
    S("triu(full(-inf), 1) mask added", "n = x.shape[1]\nmask = torch.triu(torch.full((n, n), float(\"-inf\")), 1)\n"
      "return (x @ x.transpose(1, 2) + mask).softmax(-1)"),
    S("sinusoid positions from arange(n)", "pos = torch.arange(x.shape[1], dtype=torch.float32)[:, None]\n"
      "freq = torch.exp(torch.arange(0, x.shape[2], 2).float() * (-math.log(10000.0) / x.shape[2]))\n"
      "return x + torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], -1)"),
    S("position ids arange(n).expand(b, -1)", "return torch.arange(x.shape[1]).unsqueeze(0).expand(x.shape[0], -1)"),
    S("x[:, -1] (last token) and size read", "return x[:, x.shape[1] - 1]"),
    S("cls token expand(b, -1, -1), cat", "t = x.new_zeros(1, 1, x.shape[-1])\n"
      "return torch.cat([t.expand(x.shape[0], -1, -1), x], 1)"),
    S("sqrt(n) grid view", "n = x.shape[1]\nreturn x.view(x.shape[0], 2, n // 2, x.shape[2])"),
)


#: Why a case that bakes is left to ``migrate`` (or to nobody): the named findings of the probe.
_LOOP = ("a Python loop over a dynamic size: `range` reads the traced size through `__index__`, with no "
         "warning, and the trace unrolls the body; migrate's second trace names the unrolled loop; no rewrite "
         "gives a loop body a graph form in general")
_COUNT = ("the number of pieces is a Python count, an ONNX graph has a fixed number of outputs; the code does not "
          "show whether the axis is dynamic (`qkv.unbind(0)` over a fixed axis is the common use); migrate locates "
          "the Split ONNX Runtime refuses, no rule rewrites it")
NOTES = {
    "stack of per-row pieces (range(h))": _LOOP,
    "range(h) loop, list append, cat": _LOOP,
    "range(0, w, 4) windows loop": _LOOP,
    "for t in range(n) recurrent loop": _LOOP,
    "split(1, dim=2) per row": _COUNT,
    "unbind(2) over a dynamic axis": _COUNT,
    "chunk(h // 2, dim=2)": _COUNT,
    "list(range(w)) as an index": "TRT716 takes `x[list(range(n))]` written in the index; a list bound to a name "
                                  "and sliced in Python (`idx[::-1]`) is not followed",
    "[x] * b (list times a size)": "list repetition reads the size through `__index__`; not found in the pinned "
                                   "libraries' model code",
    "roll(w // 2)": "roll's symbolic reads the shift as a constant (no warning); the pinned libraries roll by "
                    "configured shifts (Swin's `shift_size`), never by a size",
    "as_strided(x.size(), x.stride())": "sizes and strides are read as constants; Longformer/LED chunk with "
                                        "`as_strided` behind their own export path; no general graph form",
    "index_select with arange(b)": "not a bake: ONNX Runtime's full optimisation turns a Gather of a Range with "
                                   "step -1 into a Slice that returns no rows (right with ORT_ENABLE_BASIC)",
    "x.new_tensor([h, w])": "warned; TRT716 takes `torch.tensor`/`torch.as_tensor` of sizes, not `new_tensor`",
    "torch.as_tensor(list(range(w)))": "warned; TRT716 takes sizes and `x[list(range(n))]`, not a range made a tensor",
    "x / len(x)": "warned; TRT704 reports `len(x)` where the function also uses `x` as a tensor by a method or "
                  "`.shape`, not by arithmetic alone",
    "interpolate(size=[int(s) for s in shape])": "warned; TRT712 does not look into a comprehension over a shape",
    "pad to math.ceil multiple": "warned; TRT712's unsafe fix (`migrate` proves it)",
}


def source(case: Case) -> str:
    """The module file of ``case``: ``HEADER`` and the case's lines as ``forward``'s body."""
    return HEADER + "".join(f"        {line}\n" for line in case.body.splitlines())


def _model(text: str, folder: Path, index: int) -> tuple[torch.nn.Module, Path]:
    path = folder / f"size_case_{index}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Model().eval(), path


def _rules(text: str) -> str:
    """The rules whose findings land on the case's lines."""
    try:
        from trtcodemod.api import check_source
    except ImportError:  # the probe also runs where trtcodemod is not installed
        return "?"
    found = check_source(text, path="model.py")
    return ",".join(sorted({f.rule for f in found if f.line >= FIRST_LINE})) or "-"


def _applied(text: str) -> str | None:
    """The case's file after ``trtcodemod apply --unsafe`` (None where nothing changed)."""
    from trtcodemod.api import apply_source

    result = apply_source(text, path="model.py", unsafe=True)
    return result.code if result.changed else None


def _compare(want: torch.Tensor, got: np.ndarray) -> str:
    expected = want.detach().numpy().astype(np.float64)
    got = got.astype(np.float64)
    if expected.shape != got.shape:
        return f"shape {got.shape}, torch {expected.shape}"
    if not np.allclose(expected, got, rtol=1e-4, atol=1e-5, equal_nan=True):
        return f"largest difference {np.nanmax(np.abs(expected - got)):.3g}"
    return ""


def outcome(case: Case, folder: Path, index: int, text: str | None = None) -> tuple[str, str, str, str]:
    """``(outcome, warned, rule, detail)`` for ``case`` (or for ``text``, its file rewritten)."""
    text = source(case) if text is None else text
    model, path = _model(text, folder, index)
    sizes, axes = (SEQUENCE, SEQUENCE_AXES) if case.sequence else (IMAGE, IMAGE_AXES)
    generator = torch.Generator().manual_seed(index)
    inputs = [torch.randn(*size, generator=generator) for size in sizes]
    if case.zero_first:
        for x in inputs:
            x[0] = 0.0
    rule = _rules(text)
    buffer = __import__("io").BytesIO()
    with warnings.catch_warnings(record=True) as caught, _quiet_stdout():
        warnings.simplefilter("always")
        try:
            torch.onnx.export(model, (inputs[0],), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], output_names=["out"], dynamic_axes={"x": axes})
        except Exception as error:  # noqa: BLE001 - the exporter's refusal is the result
            return "fails", "", rule, f"{type(error).__name__}: {str(error).splitlines()[0][:80]}"
    lines = sorted({w.lineno - FIRST_LINE + 1 for w in caught
                    if issubclass(w.category, torch.jit.TracerWarning) and Path(w.filename) == path
                    and w.lineno >= FIRST_LINE})
    warned = "line " + ",".join(map(str, lines)) if lines else "no"
    try:
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    except Exception as error:  # noqa: BLE001
        return "wrong", warned, rule, "ONNX Runtime refuses the graph: " + str(error).splitlines()[0][:70]
    feeds = [{i.name: x.numpy() for i in session.get_inputs()} for x in inputs]
    for number, (x, feed) in enumerate(zip(inputs, feeds)):
        try:
            with torch.no_grad():
                want = model(x)
        except Exception:  # noqa: BLE001 - eager refuses this size too: nothing to compare
            continue
        try:
            got = session.run(None, feed)[0]
        except Exception as error:  # noqa: BLE001
            detail = "ONNX Runtime: " + str(error).splitlines()[0].split(":")[-1].strip()[:60]
        else:
            detail = _compare(want, got)
        if detail:
            where = "at the traced size" if number == 0 else f"at {tuple(x.shape)}"
            return ("wrong" if number == 0 else "baked"), warned, rule, f"{where}: {detail}"
    return "ok", warned, rule, ""


def _label(status: str, warned: str) -> str:
    return "SILENT bake" if status == "baked" and warned == "no" else status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, onnxruntime {ort.__version__}, TorchScript exporter, opset 17; "
          f"traced at {IMAGE[0]} (images) and {SEQUENCE[0]} (sequences), run at {IMAGE[1:]} and {SEQUENCE[1:]}")
    if args.markdown:
        print("\n| idiom | outcome | TracerWarning | rule | after `apply --unsafe` | detail |\n"
              "| --- | --- | --- | --- | --- | --- |")
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        for index, case in enumerate(CASES):
            if args.names and case.name not in args.names:
                continue
            status, warned, rule, detail = outcome(case, Path(folder), index)
            label = _label(status, warned)
            counts[label] = counts.get(label, 0) + 1
            after = "-"
            if status != "ok":
                rewritten = _applied(source(case))
                if rewritten is not None:
                    fixed = outcome(case, Path(folder), index, rewritten)
                    after = "ok" if fixed[0] == "ok" else _label(fixed[0], fixed[1])
                    if fixed[0] == "ok":
                        key = f"fixed by apply ({label})"
                        counts[key] = counts.get(key, 0) + 1
            note = NOTES.get(case.name, case.note)
            detail = f"{detail} ({note})" if note and status != "ok" else detail
            if args.markdown:
                print(f"| `{case.name}` | {label} | {warned or '-'} | {rule} | {after} | {detail.replace('|', '/')} |")
            else:
                print(f"{case.name[:44]:44s} {label:11s} {warned or '-':9s} {rule:16s} {after:11s} {detail}")
    print("\n" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
