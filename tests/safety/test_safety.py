"""Property tests of the safety contract, one block per helper-based rule (README: "What safe means").

Each program below is rewritten by the real engine; hypothesis then draws tensors (float,
half, bfloat16, integer, bool and, where the operation accepts them, quantized; 0-d,
empty, channels_last, non-contiguous, with and without ``requires_grad``) and every
property of the contract is compared before and after (tests/safety.py). Each program is
also run under ``torch.jit.script``, ``torch.fx``, ``torch.compile`` and ``torch.export``:
wherever the original works, the rewrite must work and give the same result. The ONNX
side (the node is gone, ONNX Runtime matches torch) is checked per rule with both
exporters.

A final block shows the suite catches a broken helper: forcing the export formulation
into eager mode (the design the safe rules used to have) fails these checks.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import hypothesis.strategies as st
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from hypothesis import given, settings

from drawn import FLOATS, SETTINGS, tensors
from safety import Run, assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, rewrite

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


@dataclass
class Program:
    """A module ``M`` whose forward holds one construct a safe rule rewrites."""

    rule: str
    body: str
    #: Builds the forward's inputs from one drawn tensor description.
    inputs: Callable[[st.DataObject], list[Any]]
    #: Exception types the rule's documentation says may change (TRT704 on 0-d tensors).
    exception_types: bool = True
    #: Not in every toolchain's grammar (strings, lists): skip the toolchain comparison.
    toolchains: bool = True
    #: How ``apply`` is run: TRT501 matters for TensorRT before 8.2 only; TRT601's fix is
    #: unsafe for speed alone (its eager side must still keep the whole contract).
    target: str = "8.6"
    unsafe: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def source(self) -> str:
        return HEADER + self.body


def one(strategy) -> Callable[[st.DataObject], list[Any]]:
    return lambda data: [data.draw(strategy)]


def pair(first, second) -> Callable[[st.DataObject], list[Any]]:
    return lambda data: [data.draw(first), data.draw(second)]


def broadcast_pair(data: st.DataObject) -> list[Any]:
    """Two tensors of broadcastable shapes (one may be 0-d)."""
    y = data.draw(tensors())
    shape = data.draw(st.sampled_from([tuple(y.shape), tuple(y.shape[1:]), ()]))
    return [y, data.draw(tensors(shape=shape))]


def masked(data: st.DataObject) -> list[Any]:
    """A tensor and a score vector whose comparison masks its first axis (sometimes of the wrong length)."""
    values = data.draw(tensors(min_dim=1))
    length = values.shape[0] if data.draw(st.integers(0, 4)) else values.shape[0] + 1
    scores = data.draw(tensors(dtypes=(torch.float32, torch.float16, torch.int64), shape=(length,), grad=False))
    return [values, scores]


# --- the programs -----------------------------------------------------------------------------

PROGRAMS = [
    # TRT301 atan2: function, alias, method.
    Program("TRT301", "class M(nn.Module):\n    def forward(self, y, x):\n        return torch.atan2(y, x)\n",
            broadcast_pair),
    Program("TRT301", "class M(nn.Module):\n    def forward(self, y, x):\n        return y.arctan2(x) * 2\n",
            broadcast_pair),
    # TRT302 unique.
    Program("TRT302", "class M(nn.Module):\n    def forward(self, x):\n        return torch.unique(x)\n",
            one(tensors(grad=False))),
    Program("TRT302", "class M(nn.Module):\n    def forward(self, x):\n        return x.unique(sorted=True)\n",
            one(tensors(grad=False))),
    # TRT201 mask reads, also on a Python list indexed by a one-element mask.
    Program("TRT201", "class M(nn.Module):\n    def forward(self, t, s):\n        keep = s > 0\n"
                      "        return t[keep]\n", masked),
    Program("TRT201", "class M(nn.Module):\n    def forward(self, t, s):\n"
                      "        return t[torch.isfinite(s) & ~(s < -1)] + 1\n", masked),
    Program("TRT201", "class M(nn.Module):\n    def forward(self, s):\n        names = ['car', 'person']\n"
                      "        return names[s.sigmoid() > 0.5]\n",
            one(tensors(dtypes=(torch.float32,), shape=(1,), grad=False)), toolchains=False),
    # TRT501 zero padding: literal pads, keyword forms, the module.
    Program("TRT501", "class M(nn.Module):\n    def forward(self, x):\n        return F.pad(x, (1, 2))\n",
            one(tensors(quantized=True)), target="8.0"),
    Program("TRT501", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.nn.functional.pad(x, [0, 1, 2, 0], mode='constant', value=0)\n",
            one(tensors(min_dim=2, quantized=True)), target="8.0"),
    Program("TRT501", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.pad = nn.ZeroPad2d((1, 0, 2, 1))\n"
                      "    def forward(self, x):\n        return self.pad(x)\n",
            one(tensors(min_dim=3, quantized=True)), target="8.0", unsafe=True),  # another class to fx
    # TRT601 adaptive pooling: the classic head (view after the pool), None axes, modules, 1-D.
    Program("TRT601", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        x = F.adaptive_avg_pool2d(x, (7, 7))\n        return x.view(x.size(0), -1)\n",
            one(tensors(dtypes=FLOATS, min_dim=4, quantized=True)), unsafe=True),
    Program("TRT601", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return F.adaptive_avg_pool2d(x, (3, None))\n",
            one(tensors(dtypes=FLOATS + (torch.int64,), min_dim=3, quantized=True)), unsafe=True),
    Program("TRT601", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.pool = nn.AdaptiveAvgPool2d(5)\n"
                      "    def forward(self, x):\n        return self.pool(x)\n",
            one(tensors(dtypes=FLOATS, min_dim=3, quantized=True)), unsafe=True),
    Program("TRT601", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return F.adaptive_avg_pool1d(x, 4)\n",
            one(tensors(dtypes=FLOATS, min_dim=2, max_dim=3)), unsafe=True),
    # TRT704 len of an annotated tensor: 0-d raises IndexError instead of TypeError (documented).
    Program("TRT704", "class M(nn.Module):\n    def forward(self, x: torch.Tensor):\n"
                      "        return x.new_zeros(len(x)) + x.sum()\n",
            one(tensors(grad=True)), exception_types=False),
    # TRT305 isin (last, so the numbers above stay): plain and inverted; bool raises in torch.isin.
    Program("TRT305", "class M(nn.Module):\n    def forward(self, x, ids):\n        return torch.isin(x, ids)\n",
            pair(tensors(grad=False), tensors(grad=False, max_dim=2))),
    Program("TRT305", "class M(nn.Module):\n    def forward(self, x, ids):\n"
                      "        return torch.isin(x, ids, invert=True)\n",
            pair(tensors(grad=False), tensors(grad=False, max_dim=1))),
    # TRT501 pads read from the module's attributes (after the above, so their numbers stay).
    Program("TRT501", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.halo = 2\n        self.padding = (1, 0, 0, 1)\n"
                      "    def forward(self, x):\n        return F.pad(F.pad(x, [self.halo, self.halo]), self.padding)\n",
            one(tensors(min_dim=2, quantized=True)), target="8.0"),
    # TRT311 windows that do not overlap (after the above, so their numbers stay): an axis
    # shorter than the window raises in both; two axes tiled in turn.
    Program("TRT311", "class M(nn.Module):\n    def forward(self, x):\n        return x.unfold(-1, 2, 2)\n",
            one(tensors(min_dim=1))),
    Program("TRT311", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return x.unfold(0, 2, 2).unfold(dimension=1, size=3, step=3) * 2\n",
            one(tensors(dtypes=FLOATS, min_dim=2))),
    # TRT311's unsafe case, overlapping windows: eager mode runs unfold itself all the same.
    Program("TRT311", "class M(nn.Module):\n    def forward(self, x):\n        return x.unfold(-1, 3, 2)\n",
            one(tensors(min_dim=1)), unsafe=True),
    # TRT312 fold (unsafe for scripting alone, so no toolchain comparison): fold's own errors on
    # drawn shapes that do not match, its sums where they do.
    Program("TRT312", "class M(nn.Module):\n    def forward(self, x):\n        return F.fold(x, (3, 3), 2)\n",
            one(tensors(dtypes=FLOATS, min_dim=2, max_dim=3, shape=None)), unsafe=True, toolchains=False),
    Program("TRT312", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return F.fold(x.reshape(x.shape[0], 4, -1), (3, 3), 2)\n",
            one(tensors(dtypes=FLOATS, shape=(2, 4, 2, 2))), unsafe=True, toolchains=False),
    # TRT313 a volume's grid written as a five-axis permute; mismatched drawn shapes raise in both.
    Program("TRT313", "class M(nn.Module):\n    def forward(self, x, flow):\n"
                      "        return F.grid_sample(x, flow.permute(0, 2, 3, 4, 1), align_corners=True)\n",
            pair(tensors(dtypes=FLOATS, shape=(1, 2, 3, 4, 2)), tensors(dtypes=FLOATS, shape=(1, 3, 2, 2, 3)))),
    # TRT603 1-D pooling: the functions (safe), a module (unsafe: another class to fx and `type`).
    Program("TRT603", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return F.avg_pool1d(x, 2, 1, 1, True, False)\n",
            one(tensors(min_dim=2, max_dim=3, quantized=True))),
    Program("TRT603", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.nn.functional.max_pool1d(x, 3, None, 1) * 2\n",
            one(tensors(min_dim=2, max_dim=3))),
    Program("TRT603", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.sr = nn.AvgPool1d(kernel_size=2, stride=2)\n"
                      "    def forward(self, x):\n        return self.sr(x.transpose(1, 2))\n",
            one(tensors(min_dim=3, max_dim=3)), unsafe=True),
    # TRT602 adaptive max pooling (unsafe for speed alone, as TRT601: the eager side keeps the contract).
    Program("TRT602", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        x = F.adaptive_max_pool2d(x, (3, None))\n        return x.view(x.size(0), -1)\n",
            one(tensors(min_dim=4, max_dim=4)), unsafe=True),
    Program("TRT602", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.pool = nn.AdaptiveMaxPool2d((2, 3))\n"
                      "    def forward(self, x):\n        return self.pool(x)\n",
            one(tensors(min_dim=3, max_dim=4)), unsafe=True),
    # TRT708 exp2: function and method forms, on every drawn dtype (integers and bools become floats).
    Program("TRT708", "class M(nn.Module):\n    def forward(self, x):\n        return torch.exp2(x)\n",
            one(tensors())),
    Program("TRT708", "class M(nn.Module):\n    def forward(self, x):\n        return (x * 0.5).exp2() + 1\n",
            one(tensors())),
    # TRT353 rolls by shifts computed from sizes: along an axis (past its length too), and flattened.
    Program("TRT353", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.roll(x, shifts=-(x.shape[0] // 2) - x.shape[-1], dims=0)\n",
            one(tensors(min_dim=1))),
    Program("TRT353", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return x.roll(x.shape[-1] // 3 + 1)\n",
            one(tensors(min_dim=1))),
    # TRT733 tests for infinities, on every drawn dtype (integers and bools hold none).
    Program("TRT733", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.isfinite(x), x.isinf(), torch.nan_to_num(x, 0.5, neginf=-3.0)\n",
            one(tensors())),
    Program("TRT733", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.isposinf(x) | x.isneginf(), x.nan_to_num() * 2\n",
            one(tensors())),
    Program("TRT733", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        clean = torch.nan_to_num(x, 0.5, neginf=-3.0)\n"
                      "        return clean + torch.isfinite(x).float() - x.isinf().float()\n",
            one(tensors(dtypes=FLOATS))),
    # TRT322 a scale from a size in scaled dot-product attention (the tokens of a channel attention).
    Program("TRT322", "class M(nn.Module):\n    def forward(self, x):\n        n = x.shape[-2]\n"
                      "        return F.scaled_dot_product_attention(x, x * 0.5, x, scale=n ** -0.5)\n",
            one(tensors(dtypes=FLOATS, min_dim=2, max_dim=4))),
    # TRT341 accumulating writes: rows summed into every other row (repeats), in place into a copy, and
    # index_put with an index counted from the end; 0-d inputs raise in arange's indexing (the same error).
    Program("TRT341", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        bins = torch.arange(x.shape[0], device=x.device) % 2\n"
                      "        return x.index_add(0, bins, x), torch.index_add(x, -1, bins[:x.shape[-1]], x[..., :2])\n",
            one(tensors())),
    Program("TRT341", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        bins = torch.arange(x.shape[0], device=x.device) % 2 - 1\n"
                      "        y = x.clone()\n        y.index_add_(0, bins + 1, x * 2)\n"
                      "        return y.index_put((bins,), x, accumulate=True)\n",
            one(tensors())),
    # TRT343 sorts: stable sorts and argsorts in both orders (the helpers), `stable=False` dropped, msort as a sort
    # along the first axis; 0-d inputs sort as torch sorts them, complex ones raise the same error.
    Program("TRT343", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        values, order = torch.sort(x, dim=-1, descending=True, stable=True)\n"
                      "        return values, order, x.argsort(stable=True), torch.sort(x, stable=False).indices, "
                      "torch.msort(x), x.sort(dim=0, stable=True).values\n",
            one(tensors())),
    # TRT344 writes into `x[..., [i, j]]`: an augmented and a plain write, one position and an evenly spaced pair;
    # a last axis shorter than a position raises IndexError on both sides (the list is kept outside an export).
    Program("TRT344", "class M(nn.Module):\n    def forward(self, x):\n        y = x * 1\n"
                      "        y[..., [0, 2]] -= 1\n        y[..., [1]] = y[..., [1]] * 2\n        return y\n",
            one(tensors())),
    # TRT344's write through a name bound to lists (YOLOv5-Face's `class_range`): positions no slice names.
    Program("TRT344", "class M(nn.Module):\n    def forward(self, x):\n        y = x * 0\n"
                      "        keep = list(range(1)) + list(range(2, 3))\n"
                      "        y[..., keep] = x[..., keep] * 2\n        return y\n",
            one(tensors())),
    # TRT337's table: the flips and the adjoint of a matrix (fewer axes raise the same error), the elementwise
    # fixes (ints and bool raise in threshold's, addcdiv's or frac's call alike) and a diagonal embedding.
    Program("TRT337", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.fliplr(x), x.flipud(), x.adjoint(), torch.adjoint(x.flip(0))\n",
            one(tensors())),
    Program("TRT337", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        return torch.sgn(x), F.threshold(x, 0.5, -1.0), torch.addcdiv(x, x, x, value=0.5), "
                      "x.frac(), torch.diag_embed(x, 1, 0, -1)\n",
            one(tensors())),
    # TRT342 whole-window pooling: global average pooling and strip max pooling written with the input's own
    # sizes; empty spatial axes raise in torch's call (the same error on both sides).
    Program("TRT342", "class M(nn.Module):\n    def forward(self, x):\n        n, c, h, w = x.size()\n"
                      "        return F.avg_pool2d(x, x.size()[2:]), F.max_pool2d(x, (h, 1)), F.avg_pool2d(x, (1, w))\n",
            one(tensors(dtypes=FLOATS, min_dim=4, max_dim=4))),
    # TRT395 pooling whose window and stride are computed from the input's size (PSPNet's pyramid bins): torch's
    # call in eager mode and every toolchain; empty spatial axes raise in torch's call on both sides.
    Program("TRT395", "class M(nn.Module):\n    def forward(self, x):\n        h, w = x.shape[2:]\n"
                      "        k = (max(h // 2, 1), max(w // 2, 1))\n"
                      "        return F.avg_pool2d(x, k, stride=k, padding=0), F.max_pool2d(x, k, stride=(1, 1))\n",
            one(tensors(dtypes=FLOATS, min_dim=4, max_dim=4))),
    # TRT345 unflatten: the last axis split with a -1 size, the first with a written one; a 0-d tensor or an empty
    # axis (the -1 cannot be inferred) raises unflatten's own error on both sides (torch's call outside an export).
    Program("TRT345", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        a = x.unflatten(-1, (1, -1)) * 2\n        b = torch.unflatten(x, 0, (1, -1))\n"
                      "        return torch.cat([a.flatten(-2), b.flatten(0, 1) - a.flatten(-2)])\n",
            one(tensors())),
    # TRT346 counts of a torch.Size: the whole shape, a slice (empty for a 0-d or 1-d tensor: 1) and a local name
    # bound to a slice; 0-d and empty tensors included.
    Program("TRT346", "class M(nn.Module):\n    def forward(self, x):\n"
                      "        rest = x.shape[1:]\n"
                      "        return x.reshape(-1) * x.shape.numel() - rest.numel() + x.size()[:-1].numel()\n",
            one(tensors())),
    # TRT355 writes through a subscript holding `None`: a tensor value with a leading size-1 axis the assignment
    # drops, around an Ellipsis (axes counted from both ends), augmented writes of a number and of a tensor; 0-d
    # and empty tensors, integer and bool inputs (whose `* 2` promotes), gradients through the value.
    Program("TRT355", "class M(nn.Module):\n    def forward(self, x):\n        y = x * 1\n"
                      "        y[None, ..., None] = (x * 2)[None, None, ..., None]\n        y[None] += 1\n"
                      "        y[..., None] -= (x * 3)[..., None]\n        return y\n",
            one(tensors())),
    # TRT356 a transposed convolution called with `output_size=` (the strided map's own size, always in range);
    # 4-d float tensors of any size (an empty axis or channel raises conv's error on both sides), half
    # precision where the CPU kernel refuses it alike, gradients to the input and the weights.
    Program("TRT356", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.up = nn.ConvTranspose2d(1, 2, 3, stride=2, padding=1)\n"
                      "        with torch.no_grad():  # the same weights on both sides\n"
                      "            self.up.weight.copy_(torch.linspace(-1, 1, 18).view(1, 2, 3, 3))\n"
                      "            self.up.bias.fill_(0.5)\n"
                      "    def forward(self, x):\n        y = x[:, :1]\n"
                      "        return self.up(y[..., ::2, ::2], output_size=y.size())\n",
            one(tensors(dtypes=FLOATS, min_dim=4, max_dim=4))),
]

PROGRAM_IDS = [f"{p.rule}-{n}" for n, p in enumerate(PROGRAMS)]


class _Loaded:
    """Each program before and after its rewrite (``apply`` with default options: safe fixes only).

    A plain object rather than a dict: hypothesis prints its test's arguments on failure.
    """

    def __init__(self, folder) -> None:
        self.table: dict[int, tuple[type, type, dict]] = {}
        for number, program in enumerate(PROGRAMS):
            after = rewrite(program.source, unsafe=program.unsafe, target=program.target)
            assert after != program.source, f"{PROGRAM_IDS[number]}: the fix did not apply"
            before_ns = import_source(program.source, folder)
            after_ns = import_source(after, folder)
            self.table[number] = (before_ns["M"], after_ns["M"], after_ns)

    def __getitem__(self, number: int) -> tuple[type, type, dict]:
        return self.table[number]

    def __repr__(self) -> str:
        return "<rewritten programs>"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> _Loaded:
    return _Loaded(tmp_path_factory.mktemp("safety"))


@pytest.mark.parametrize("number", range(len(PROGRAMS)), ids=PROGRAM_IDS)
@SETTINGS
@given(data=st.data())
def test_eager_contract(loaded, number: int, data: st.DataObject) -> None:
    """Values, dtype, shape, strides, device, requires_grad, gradients, aliasing, exceptions."""
    program = PROGRAMS[number]
    before_type, after_type, _ = loaded[number]
    inputs = program.inputs(data)
    torch.manual_seed(0)
    before = run_once(before_type(), inputs)
    after = run_once(after_type(), inputs)
    assert_same_run(before, after, exception_types=program.exception_types)


def _representative(program: Program, original: type) -> list[Any]:
    """An ordinary input for the toolchain comparison: non-empty, accepted by the original."""
    found: list[list[Any]] = []

    @given(data=st.data())
    @settings(max_examples=60, database=None, derandomize=True)
    def draw(data):
        inputs = program.inputs(data)
        if found or any(isinstance(v, torch.Tensor) and (v.numel() < 2 or v.is_quantized) for v in inputs):
            return
        for value in inputs:  # toolchains take tensors that need no gradient more often than not
            if isinstance(value, torch.Tensor):
                value.requires_grad_(False)
        if run_once(original(), inputs).error is None:
            found.append(inputs)

    draw()
    assert found, "no ordinary input drawn"
    return found[0]


#: Programs every toolchain can take (a Python list indexed by a tensor is outside TorchScript's language).
TOOLCHAIN_PROGRAMS = [n for n, p in enumerate(PROGRAMS) if p.toolchains]


@pytest.mark.parametrize("number", TOOLCHAIN_PROGRAMS, ids=[PROGRAM_IDS[n] for n in TOOLCHAIN_PROGRAMS])
def test_toolchains(loaded, tmp_path, number: int) -> None:
    """Wherever the original scripts, fx-traces, compiles or exports, so does the rewrite, with the same result."""
    program = PROGRAMS[number]
    before_type, after_type, _ = loaded[number]
    inputs = _representative(program, before_type)
    before = toolchain_outcomes(before_type, inputs, tmp_path)
    after = toolchain_outcomes(after_type, inputs, tmp_path)
    worked = [name for name, result in before.items() if not isinstance(result, Exception)]
    assert worked, f"the original works under no toolchain: {before}"
    for name in worked:
        assert not isinstance(after[name], Exception), f"{name}: the rewrite fails where the original works: {after[name]!r}"
        assert_same_run(Run(inputs, before[name]), Run(inputs, after[name]), context=name)


# --- the exported graphs -----------------------------------------------------------------------

#: Per rule: a program, an input, dynamic axes, and the op the rewritten graph must not hold.
ONNX_CASES = [
    ("TRT301", 0, [torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), float("nan")]),
                   torch.tensor([-1.0, -0.0, 0.0, -float("inf"), float("inf"), 1.0])], None),
    ("TRT302", 2, [torch.tensor([3.0, 1.0, float("nan"), 3.0, -0.5])], "Unique"),
    ("TRT201", 4, [torch.randn(6, 3), torch.tensor([0.5, -1.0, 2.0, 0.0, -0.0, 3.0])], "GatherND"),
    ("TRT501", 7, [torch.randn(2, 3, 5)], "Pad"),
    ("TRT601", 11, [torch.randn(2, 3, 9, 11)], "AveragePool"),
    ("TRT501", next(n for n, p in enumerate(PROGRAMS) if "self.halo" in p.body), [torch.randn(2, 3, 5)], "Pad"),
    ("TRT603", next(n for n, p in enumerate(PROGRAMS) if "F.avg_pool1d(" in p.body), [torch.randn(2, 3, 11)], None),
    ("TRT602", next(n for n, p in enumerate(PROGRAMS) if "adaptive_max_pool2d(" in p.body),
     [torch.randn(2, 3, 9, 11)], "MaxPool"),
    ("TRT708", next(n for n, p in enumerate(PROGRAMS) if "torch.exp2(x)" in p.body),
     [torch.tensor([0.0, -0.0, 1.5, -3.25, 127.0, -149.0, float("inf"), -float("inf"), float("nan")])], None),
    ("TRT353", next(n for n, p in enumerate(PROGRAMS) if p.rule == "TRT353"),
     [torch.tensor([[0.0, -0.0, 1.5], [float("inf"), -float("inf"), float("nan")], [2.0, -3.0, 4.0],
                    [5.0, 6.0, 7.0]])], None),
    ("TRT733", next(n for n, p in enumerate(PROGRAMS) if "clean = torch.nan_to_num(" in p.body),
     [torch.tensor([0.0, -0.0, 1.5, -3.25, 3e38, float("inf"), -float("inf"), float("nan")])], "IsInf"),
    ("TRT344", next(n for n, p in enumerate(PROGRAMS) if p.rule == "TRT344"),
     [torch.tensor([[0.0, -0.0, 1.5, -3.25], [float("inf"), -float("inf"), float("nan"), 2.0]])], None),
    ("TRT355", next(n for n, p in enumerate(PROGRAMS) if p.rule == "TRT355"),
     [torch.tensor([[0.0, -0.0, 1.5, -3.25], [float("inf"), -float("inf"), float("nan"), 2.0]])], None),
    ("TRT356", next(n for n, p in enumerate(PROGRAMS) if p.rule == "TRT356"),
     [torch.tensor([[[[0.0, -0.0, 1.5, -3.25, 7.0], [1e4, -1e4, 0.5, 2.0, -1.0], [3.0, -2.0, 0.0, 1.0, 4.0]]]])],
     None),
    ("TRT345", next(n for n, p in enumerate(PROGRAMS) if p.rule == "TRT345"),
     [torch.tensor([[0.0, -0.0, 1.5], [float("inf"), -float("inf"), float("nan")], [2.0, -3.0, 4.0]])], None),
]


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool) -> bytes:
    names = [f"input_{i}" for i in range(len(inputs))]
    axes = {name: {0: f"n{i}"} for i, name in enumerate(names)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=names,
                                        dynamic_shapes=tuple({0: torch.export.Dim.AUTO} for _ in inputs),
                                        verbose=False)
            return program.model_proto.SerializeToString()
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=axes)
        return buffer.getvalue()


def _ops(model_bytes: bytes) -> list[str]:
    graph = onnx.load_from_string(model_bytes).graph
    return [node.op_type for node in graph.node]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("rule,number,inputs,gone", ONNX_CASES, ids=[case[0] for case in ONNX_CASES])
def test_exported_graph(loaded, rule: str, number: int, inputs: list[torch.Tensor], gone: str | None,
                        dynamo: bool) -> None:
    """The rewritten graph lacks the rule's node and computes the original operation's values."""
    assert PROGRAMS[number].rule == rule
    _, after_type, _ = loaded[number]
    model_bytes = _export(after_type(), inputs, dynamo)
    if gone is not None:
        assert gone not in _ops(model_bytes)
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    feed = {arg.name: value.numpy() for arg, value in zip(session.get_inputs(), inputs)}
    got = torch.from_numpy(np.asarray(session.run(None, feed)[0]))
    expected = loaded[number][0]()(*inputs)
    assert got.shape == expected.shape
    torch.testing.assert_close(got, expected.detach(), rtol=1e-6, atol=1e-6, equal_nan=True)


# --- the suite can fail ----------------------------------------------------------------------------


def _breaks_contract(number: int, loaded, inputs: list[Any]) -> bool:
    """Whether forcing the export formulation into eager mode is caught on ``inputs``."""
    before_type, after_type, namespace = loaded[number]
    before = run_once(before_type(), inputs)
    with export_formulation(namespace):
        after = run_once(after_type(), inputs)
    try:
        assert_same_run(before, after)
    except AssertionError:
        return True
    return False


def test_a_broken_helper_is_caught(loaded) -> None:
    """The helpers used to compute the TensorRT form in eager mode too; each such break is caught."""
    zero = torch.zeros(3, requires_grad=True)
    assert _breaks_contract(0, loaded, [zero, torch.zeros(3)]), "atan2: the NaN gradient at (0, 0)"
    image = torch.randn(2, 3, 14, 14)
    assert _breaks_contract(10, loaded, [image]), "pooling: `x.view(n, -1)` after the pool"
    assert _breaks_contract(7, loaded, [image.contiguous(memory_format=torch.channels_last)]), \
        "padding: channels_last lost"
