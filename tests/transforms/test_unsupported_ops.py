"""TRT701–TRT707: deployment constructs — findings, the one rewrite, and the premises checked by export."""

from __future__ import annotations

import importlib.util
import io
import textwrap
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F

from safety import assert_same_run, run_once
from support import REPO, assert_same, load, onnx_ops, rewrite, rules_found
from trtcodemod.engine import Options, check_source
from trtcodemod.transforms.unsupported_ops import UNSUPPORTED_OPS
from trtcodemod.trt.support import is_supported

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def found(code: str, prefix: str = "TRT7", target: str = "8.6") -> list[str]:
    return [r for r in rules_found(HEADER + textwrap.dedent(code), target=target) if r.startswith(prefix)]


def messages(code: str, rule: str, target: str = "8.6") -> list[str]:
    findings = check_source((HEADER + textwrap.dedent(code)).encode(), "snippet.py", Options(target=target))
    return [f.message for f in findings if f.rule == rule]


def export_session(model: torch.nn.Module, args: tuple, names: list[str], axes: dict | None = None):
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=axes or {})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


# --- TRT701 unsupported-dtype --------------------------------------------------------


def test_dtype_positives_through_aliases() -> None:
    code = """
    import torch as th
    from torch import float64 as f64

    def stamps_to_offsets(stamps, n):
        a = th.zeros(n, dtype=f64)
        b = stamps.to(th.int16)
        c = stamps.double() + stamps.short().float()
        d = (stamps > 0).byte()
        e = stamps.view(th.uint8)
        f = th.ByteTensor([1, 2])
        g = stamps.to(stamps.device, th.double)
        return a, b, c, d, e, f, g
    """
    assert found(code) == ["TRT701"] * 8


def test_dtype_negatives() -> None:
    code = """
    class Stamps(nn.Module):
        def __init__(self):
            super().__init__()
            # construction time: a float64 table cast down before use
            self.register_buffer("freqs", torch.arange(8, dtype=torch.float64).float())

        def forward(self, x):
            if x.dtype == torch.float64 or x.dtype in (torch.uint8, torch.int16):
                x = x.float()
            eps = torch.finfo(torch.float64).eps
            arr = np.zeros(3, dtype=np.float64)
            if self.training:
                x = x + torch.zeros_like(x, dtype=torch.float64).float()
            return x.to(torch.float32) + eps, np.double(arr)
    """
    assert found(code) == []
    # A file that does not import torch: `.double()` is someone else's method.
    assert rules_found("def f(v):\n    return v.double()\n") == []


def test_dtype_messages_say_what_to_do() -> None:
    code = "def f(t, m):\n    return t.double(), m.byte()\n"
    float64, uint8 = messages(code, "TRT701")
    assert "128" in float64 and "reference" in float64
    assert ".bool()" in uint8


def test_float64_premise_timestamps_lose_their_gaps_in_float32() -> None:
    """Why TRT701 does not just cast to float32: near 1.5e9 s float32 values are 128 s apart."""
    t0 = torch.tensor(1.5e9, dtype=torch.float64)
    assert (torch.nextafter(t0.float(), torch.tensor(2e9)) - t0.float()).item() == 128.0
    gap32 = (t0 + 0.5).float() - t0.float()
    assert gap32.item() == 0.0  # the half-second frame gap is gone
    assert ((t0 + 0.5) - t0).float().item() == 0.5  # subtracting the reference first keeps it


# --- TRT702 tensor-to-python --------------------------------------------------------

MODULE_702 = """
class Head(nn.Module):
    def forward(self, logits, boxes, k: int, ratio: float = 0.5):
        peak = logits.max().item()
        rows = boxes.tolist()
        arr = boxes.cpu().numpy()
        n = int(logits)
        total = torch.sum(boxes)
        t = float(total)
        s = float(boxes.max() / 2)
        return self._decode(logits), peak, rows, arr, n, t, s

    def _decode(self, logits):
        return logits.argmax().item()
"""


def test_tensor_to_python_positives() -> None:
    assert found(MODULE_702) == ["TRT702"] * 7


def test_tensor_to_python_negatives() -> None:
    code = """
    class Head(nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale
            self.steps = torch.tensor([8, 16]).tolist()

        def forward(self, x, xs, k: int, mode="bilinear"):
            a = int(x.shape[0]) + int(len(xs)) + int(k) + int(mode == "bilinear")
            b = float(self.scale) + self.logit_scale.exp().item()
            n = x.size(0)
            c = int(n)
            if self.training:
                loss = x.mean().item()
            if not torch.jit.is_tracing():
                print(x.sum().item())
            return x * a * b * c

        def summary(self, x):
            return x.mean().item()  # not reached from forward

    class Tracker:
        def forward(self, x):
            return x.item()  # not a module
    """
    assert found(code, "TRT702") == []


def test_tensor_to_python_local_reassigned_to_number() -> None:
    code = """
    class Head(nn.Module):
        def forward(self, x):
            n = torch.sum(x)
            n = 3
            return x * float(n)
    """
    assert found(code) == []


def test_item_premise_export_bakes_the_value() -> None:
    """The exported graph keeps the traced example's `.item()` value: wrong on a second input."""
    code = """
    import torch
    from torch import nn

    class Normalize(nn.Module):
        def forward(self, x):
            peak = x.abs().max().item()
            return x / peak
    """
    model = load(code, "Normalize")()
    session = export_session(model, (torch.ones(4) * 2,), ["x"])
    second = torch.tensor([1.0, -8.0, 4.0, 0.5])
    (result,) = session.run(None, {"x": second.numpy()})
    assert not np.allclose(result, model(second).numpy())  # divided by 2, not by 8
    assert np.allclose(result, (second / 2).numpy())
    assert rules_found(code) == ["TRT702"]


# --- TRT703 state-in-forward --------------------------------------------------------


def test_state_in_forward_positives() -> None:
    code = """
    class Temporal(nn.Module):
        def forward(self, x):
            self.frame_idx += 1
            self.prev = x
            self.memory[0] = x
            self.bank.queue = x
            self.count.add_(1)
            self.frames.append(x)
            self.h, self.c = x, x
            setattr(self, "last", x)
            self._update(x)
            return x

        def _update(self, x):
            self.ema.mul_(0.9).add_(x)
    """
    rules = found(code)
    assert rules == ["TRT703"] * 10  # one per state target; `self.h, self.c = ...` counts twice


def test_state_in_forward_negatives() -> None:
    code = """
    class Temporal(nn.Module):
        def __init__(self):
            super().__init__()
            self.frame_idx = 0
            self._build()

        def _build(self):
            self.table = torch.zeros(3)

        def reset(self):
            self.frame_idx = 0

        def forward(self, x):
            buf = torch.zeros(3)
            buf[0] = 1
            y = x + self.frame_idx
            if self.training:
                self.running_mean.mul_(0.9).add_(x.mean())
                self.num_batches += 1
            elif torch.onnx.is_in_onnx_export():
                pass
            else:
                self.calls = 1
            return y * buf.sum()

    class Tracker:
        def forward(self, x):
            self.frame_idx += 1  # not a module: holding state is its job
            return x
    """
    assert found(code) == []


def test_module_classes_recognised() -> None:
    body = "    def forward(self, x):\n        self.n = x\n        return x\n"
    code = (
        "from mmcv.runner import BaseModule\nfrom mylib import Layer\n"
        f"class A(nn.Module):\n{body}class B(A):\n{body}class C(BaseModule):\n{body}"
        f"class D(nn.Sequential):\n{body}class E(Layer):\n{body}class G(object):\n{body}"
        f"class H(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        ctx.x = x\n        return x\n"
    )
    assert found(code) == ["TRT703"] * 4


def test_state_premise_export_never_advances() -> None:
    code = """
    import torch
    from torch import nn

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.frame_idx = 0

        def forward(self, x):
            self.frame_idx += 1
            return x * self.frame_idx
    """
    model = load(code, "Counter")()
    session = export_session(model, (torch.ones(2),), ["x"])
    runs = [session.run(None, {"x": np.ones(2, np.float32)})[0] for _ in range(3)]
    assert all(np.array_equal(r, runs[0]) for r in runs)  # the graph has no counter
    eager = [model(torch.ones(2)) for _ in range(3)]
    assert not torch.equal(eager[0], eager[2])  # the module does
    assert rules_found(code) == ["TRT703"]


# --- TRT704 len-of-tensor ------------------------------------------------------------

MODULE_704 = """
import torch
from torch import Tensor, nn


class RoiHead(nn.Module):
    def forward(self, rois: Tensor, extra: torch.Tensor):
        rois = rois.flatten(1)  # still a tensor
        n = len(rois)
        ids = torch.arange(len(extra), dtype=torch.float32)
        return rois.sum(1) + ids, rois.new_full((n,), float(n)), n
"""


def test_len_rewrite_text() -> None:
    after = rewrite(MODULE_704)
    assert "n = rois.shape[0]" in after
    assert "torch.arange(extra.shape[0], dtype=torch.float32)" in after
    assert "len(" not in after
    assert "# still a tensor" in after
    assert rewrite(after) == after


@pytest.mark.parametrize(
    "shape", [(3, 4), (1, 2, 5), (0, 4), (0, 3, 2), (7, 1)], ids=["2d", "3d", "empty", "empty-3d", "column"]
)
def test_len_same_results(shape) -> None:
    before = load(MODULE_704, "RoiHead")()
    after = load(rewrite(MODULE_704), "RoiHead")()
    for fill in ("randn", "zeros", "nan"):
        rois = torch.randn(*shape) if fill == "randn" else torch.zeros(*shape)
        if fill == "nan" and rois.numel():
            rois[..., 0] = float("nan")
        extra = torch.full((shape[0], 2), -float("inf"))
        assert_same(before(rois, extra), after(rois, extra))


def test_len_zero_dim_both_raise() -> None:
    """The documented difference: a 0-d tensor raises in both forms, with different exception types."""
    code = "import torch\ndef f(x: torch.Tensor):\n    return len(x)\n"
    before, after = load(code, "f"), load(rewrite(code), "f")
    with pytest.raises(TypeError):
        before(torch.tensor(1.0))
    with pytest.raises(IndexError):
        after(torch.tensor(1.0))


def test_len_export_follows_the_batch() -> None:
    """Before: Reshape to a baked (2, -1). After: Shape/Gather, right for batch 5 too."""
    code = """
    import torch
    from torch import nn

    class Flatten(nn.Module):
        def forward(self, x: torch.Tensor):
            return x.reshape(len(x), -1)
    """
    example, second = torch.randn(2, 3, 4), torch.randn(5, 3, 4)
    axes = {"x": {0: "n"}}
    before = load(code, "Flatten")()
    after_code = rewrite(code)
    after = load(after_code, "Flatten")()
    (wrong,) = export_session(before, (example,), ["x"], axes).run(None, {"x": second.numpy()})
    (right,) = export_session(after, (example,), ["x"], axes).run(None, {"x": second.numpy()})
    assert wrong.shape == (2, 30)
    assert right.shape == (5, 12) and np.allclose(right, after(second).numpy())
    ops = onnx_ops(after, (example,), dynamic_axes=axes, input_names=["x"])
    assert "Shape" in ops and "Gather" in ops


def test_len_report_only_cases() -> None:
    code = """
    import torch
    from mylib import len as mylen

    class Head(nn.Module):
        def forward(self, x, boxes: torch.Tensor, feats: torch.Tensor, cfg: list):
            a = len(x)                   # unannotated: may be a list
            boxes = [boxes]
            b = len(boxes)               # reassigned to a list
            try:
                c = len(feats)           # a try may catch the TypeError
            except TypeError:
                c = 0
            d = len(cfg) + len(x.shape) + mylen(feats)
            e = [len(feats) for feats in x]           # the comprehension's own name
            f = (lambda boxes: len(boxes))(x)         # the lambda's own name
            return a, b, c, d, e, f

    def helper(x):
        return len(x)                    # not forward, not annotated: silent
    """
    msgs = messages(code, "TRT704")
    assert len(msgs) == 3
    assert "not annotated" in msgs[0] and "reassigned" in msgs[1] and "try" in msgs[2]
    assert rewrite(HEADER + textwrap.dedent(code)) == HEADER + textwrap.dedent(code)


def test_len_of_a_parameter_rebound_only_after_it() -> None:
    """A rebinding the `len` cannot see (after it, outside any loop around both; or the value
    holding the call) leaves the parameter there; one that can (a loop, a lambda called
    later) still withholds the fix."""
    code = """
    import torch
    from torch import nn

    class Merge(nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor, w: torch.Tensor):
            b = len(x)
            x = self.conv(x)                 # after the len: x there is the parameter
            y = [len(y)]                     # the value holds the call: it runs first
            for _ in range(2):
                c = len(z)                   # the second pass sees the list
                z = [z]
            count = lambda: len(w)           # runs after the rebinding
            w = [w]
            return b, x, y, c, count()
    """
    fixed = rewrite(HEADER + textwrap.dedent(code), select=("TRT704",))
    assert "b = x.shape[0]" in fixed and "y = [y.shape[0]]" in fixed
    assert "c = len(z)" in fixed and "count = lambda: len(w)" in fixed
    msgs = messages(code, "TRT704")
    assert len(msgs) == 4 and sum("reassigned" in m for m in msgs) == 2

    merge = HEADER + textwrap.dedent('''
    class Merge(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv1d(3, 4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b = len(x)
            x = self.conv(x)
            return x.reshape(b, -1)
    ''')
    after_code = rewrite(merge, select=("TRT704",))
    assert "b = x.shape[0]" in after_code
    Before, After = load(merge, "Merge"), load(after_code, "Merge")
    # Values, gradients and exceptions (a 1-D input fails in the convolution on both sides).
    for x in (torch.randn(2, 3, 5), torch.zeros(0, 3, 5), torch.full((1, 3, 2), float("nan")), torch.randn(3)):
        torch.manual_seed(0)
        before = Before()
        torch.manual_seed(0)
        after = After()
        assert_same_run(run_once(before, [x.clone().requires_grad_()]), run_once(after, [x.clone().requires_grad_()]))


# --- TRT705 nonzero -------------------------------------------------------------------


def test_nonzero_positives_and_negatives() -> None:
    code = """
    import torch as th
    from torch import masked_select as msel

    def select(scores, boxes, a):
        i = th.nonzero(scores > 0.5)
        j = (scores > 0.5).nonzero(as_tuple=True)
        k = msel(boxes, boxes > 0)
        m = boxes.masked_select(boxes > 0)
        n = th.argwhere(scores)
        o = np.nonzero(a), np.argwhere(a), th.where(scores > 0)
        return i, j, k, m, n, o
    """
    assert found(code, "TRT705") == ["TRT705"] * 5
    assert "TRT103" in rules_found(HEADER + textwrap.dedent(code))  # one-argument where: not ours


def test_nonzero_message_follows_target() -> None:
    code = "def f(s):\n    return torch.nonzero(s)\n"
    assert "lacks" in messages(code, "TRT705", target="8.4")[0]
    assert "depends on the data" in messages(code, "TRT705", target="10.x")[0]


def test_nonzero_not_reported_in_inserted_helpers() -> None:
    """TRT201's inserted `_trt_mask_index` uses nonzero on purpose; it must not be reported."""
    from trtcodemod.astutil import code_of
    from trtcodemod.helpers import helper_definitions

    helper = "\n\n".join(code_of(d) for d in helper_definitions(["_trt_mask_index"]))
    assert "nonzero" in helper
    assert found(helper, "TRT705") == []
    # The same code under a name of the user's is reported (once per nonzero call it makes).
    renamed = found(helper.replace("def _trt_mask_index", "def mask_index"), "TRT705")
    assert renamed and set(renamed) == {"TRT705"}


def test_nonzero_premise_exports_nonzero() -> None:
    def f(x, m):
        return torch.nonzero(x), torch.masked_select(x, m)

    class M(torch.nn.Module):
        def forward(self, x, m):
            return f(x, m)

    ops = onnx_ops(M(), (torch.randn(5), torch.rand(5) > 0.5))
    assert ops.count("NonZero") == 2
    assert is_supported("NonZero", "8.4") is False and is_supported("NonZero", "8.5") is True


# --- TRT706 unsupported-op --------------------------------------------------------

SAMPLES = {
    "torch.nn.functional.fold": (lambda x: F.fold(x, (4, 4), 2), lambda: (torch.randn(1, 8, 9),)),
    "torch.nn.Fold": (lambda x: torch.nn.Fold((4, 4), 2)(x), lambda: (torch.randn(1, 8, 9),)),
    "torch.nn.modules.fold.Fold": (lambda x: torch.nn.modules.fold.Fold((4, 4), 2)(x),
                                   lambda: (torch.randn(1, 8, 9),)),
    "torch.stft": (lambda x: torch.stft(x, 16, window=torch.hann_window(16), return_complex=False),
                   lambda: (torch.randn(1, 64),)),
    "torch.nn.functional.grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False),
                                        lambda: (torch.randn(1, 2, 4, 4), torch.rand(1, 3, 3, 2) * 2 - 1)),
    "torch.tril": (torch.tril, lambda: (torch.randn(3, 3),)),
    "torch.triu": (torch.triu, lambda: (torch.randn(3, 3),)),
    "torch.det": (torch.det, lambda: (torch.randn(2, 3, 3),)),
    "torch.linalg.det": (torch.linalg.det, lambda: (torch.randn(2, 3, 3),)),
    "torch.logdet": (torch.logdet, lambda: (torch.eye(3)[None],)),
    "torch.multinomial": (lambda p: torch.multinomial(p, 1), lambda: (torch.rand(2, 5),)),
    "torch.bernoulli": (torch.bernoulli, lambda: (torch.rand(2, 5),)),
    "torch.nn.functional.max_unpool1d": (lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2),
                                         lambda: (torch.randn(1, 1, 4),)),
    "torch.nn.functional.max_unpool2d": (lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
                                         lambda: (torch.randn(1, 1, 4, 4),)),
    "torch.nn.functional.max_unpool3d": (lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2),
                                         lambda: (torch.randn(1, 1, 4, 4, 4),)),
    "torch.nn.MaxUnpool1d": (lambda x: torch.nn.MaxUnpool1d(2)(*F.max_pool1d(x, 2, return_indices=True)),
                             lambda: (torch.randn(1, 1, 4),)),
    "torch.nn.MaxUnpool2d": (lambda x: torch.nn.MaxUnpool2d(2)(*F.max_pool2d(x, 2, return_indices=True)),
                             lambda: (torch.randn(1, 1, 4, 4),)),
    "torch.nn.MaxUnpool3d": (lambda x: torch.nn.MaxUnpool3d(2)(*F.max_pool3d(x, 2, return_indices=True)),
                             lambda: (torch.randn(1, 1, 4, 4, 4),)),
    "torch.nn.functional.affine_grid": (lambda t: F.affine_grid(t, (1, 1, 4, 4), align_corners=False),
                                        lambda: (torch.randn(1, 2, 3),)),
    "torch.cumprod": (lambda x: torch.cumprod(x, 1), lambda: (torch.randn(2, 5),)),
    "torch.cummax": (lambda x: torch.cummax(x, 1)[0], lambda: (torch.randn(2, 5),)),
    "torch.cummin": (lambda x: torch.cummin(x, 1)[0], lambda: (torch.randn(2, 5),)),
    "torch.logcumsumexp": (lambda x: torch.logcumsumexp(x, 1), lambda: (torch.randn(2, 5),)),
    "torch.searchsorted": (torch.searchsorted, lambda: (torch.tensor([-1.0, 0.0, 1.0]), torch.randn(5))),
    "torch.histc": (lambda x: torch.histc(x, 4), lambda: (torch.randn(20),)),
    "torch.bincount": (torch.bincount, lambda: (torch.tensor([0, 1, 1, 3]),)),
    "torch.inverse": (torch.inverse, lambda: (torch.randn(2, 3, 3),)),
    "torch.linalg.inv": (torch.linalg.inv, lambda: (torch.randn(2, 3, 3),)),
    "torch.linalg.pinv": (torch.linalg.pinv, lambda: (torch.randn(2, 3, 3),)),
    "torch.linalg.solve": (torch.linalg.solve, lambda: (torch.randn(2, 3, 3), torch.randn(2, 3, 1))),
    "torch.slogdet": (lambda x: torch.slogdet(x)[1], lambda: (torch.randn(2, 3, 3),)),
    "torch.linalg.slogdet": (lambda x: torch.linalg.slogdet(x)[1], lambda: (torch.randn(2, 3, 3),)),
    "torch.erfinv": (torch.erfinv, lambda: (torch.rand(5),)),
    "torch.special.erfinv": (torch.special.erfinv, lambda: (torch.rand(5),)),
    "torch.median": (torch.median, lambda: (torch.randn(2, 5),)),
    "torch.nanmedian": (torch.nanmedian, lambda: (torch.randn(2, 5),)),
    "torch.kthvalue": (lambda x: torch.kthvalue(x, 2, 1)[0], lambda: (torch.randn(2, 5),)),
    "torch.mode": (lambda x: torch.mode(x, 1)[0], lambda: (torch.randn(2, 5),)),
    "torch.diag": (torch.diag, lambda: (torch.randn(4),)),
    "torch.renorm": (lambda x: torch.renorm(x, 2, 0, 1.0), lambda: (torch.randn(3, 4),)),
    "torch.unique_consecutive": (torch.unique_consecutive, lambda: (torch.tensor([0, 1, 1, 3]),)),
}
for _name in ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn",
              "irfftn", "hfft", "ihfft"):
    SAMPLES[f"torch.fft.{_name}"] = (lambda x, fn=getattr(torch.fft, _name): fn(x).abs(),
                                     lambda: (torch.randn(2, 8, 8),))

ROWS = [pytest.param(row, name, id=name) for row in UNSUPPORTED_OPS for name in row.names]


class _Call(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _exported_ops(fn, args, opset: int) -> list[str]:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Call(fn), args, buffer, dynamo=False, opset_version=opset)
    return [node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node]


def test_every_table_name_has_an_export_sample() -> None:
    names = {name for row in UNSUPPORTED_OPS for name in row.names}
    assert names == set(SAMPLES)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("row,name", ROWS)
def test_table_row_is_backed_by_an_export(row, name) -> None:
    """Each row: the exporter fails, or emits the op TensorRT's table marks unsupported for the target."""
    fn, make_args = SAMPLES[name]
    args = make_args()
    fn(*args)  # the sample itself is valid torch code
    if row.onnx_op is None or row.opset > 17:
        with pytest.raises(Exception):
            _exported_ops(fn, args, 17)
    if row.onnx_op is not None:
        assert row.onnx_op in _exported_ops(fn, args, row.opset)
        if row.needed_before is None:
            assert is_supported(row.onnx_op, "8.6") is False
        else:
            before = (row.needed_before[0], row.needed_before[1] - 1)
            assert is_supported(row.onnx_op, before) is False
            assert is_supported(row.onnx_op, row.needed_before) is True


def test_unsupported_op_matching() -> None:
    code = """
    from torch.nn.functional import fold as torch_fold

    def fold(x):                 # the user's own fold
        return x

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.merge = nn.Fold((8, 8), 2)           # a module class: reported where built
            self.basis = torch.linalg.inv(torch.eye(3))  # construction-time constant: silent

        def forward(self, cols, grid, m):
            a = torch_fold(cols, (8, 8), 2)
            b = fold(cols)
            c = torch.fft.rfft(cols)
            d = F.grid_sample(cols, grid)
            e = torch.linalg.det(m)
            f = F.unfold(cols, 2) + torch.cumsum(cols, 1)
            return a, b, c, d, e, f
    """
    assert found(code, "TRT706") == ["TRT706"] * 4
    assert found(code, "TRT706", target="8.4") == ["TRT706"] * 5  # grid_sample before 8.5


# --- TRT707 distribution-rsample ---------------------------------------------------


def test_rsample() -> None:
    code = """
    class Policy(nn.Module):
        def forward(self, obs):
            dist = torch.distributions.Normal(obs, 1.0)
            if self.training:
                return dist.rsample()
            return dist.rsample(), dist.sample(), self.act(dist)

        def act(self, dist):
            return dist.rsample()

        def explore(self, dist):
            return dist.rsample()   # not called from forward
    """
    assert found(code, "TRT707") == ["TRT707", "TRT707"]


# --- the example model ----------------------------------------------------------------


def test_example_model() -> None:
    path = REPO / "examples" / "legacy_ops.py"
    source = path.read_text()
    assert sorted(set(rules_found(source))) == ["TRT701", "TRT702", "TRT703", "TRT704", "TRT705", "TRT801"]
    after = rewrite(source)
    assert "torch.arange(queries.shape[0]" in after

    def module_from(text: str):
        spec = importlib.util.spec_from_loader("legacy_ops_under_test", loader=None)
        module = importlib.util.module_from_spec(spec)
        exec(compile(text, str(path), "exec"), module.__dict__)
        return module

    before_mod, after_mod = module_from(source), module_from(after)
    args = before_mod.inputs(torch.Generator().manual_seed(0))
    assert_same(before_mod.build()(*args), after_mod.build()(*args))


def test_code_after_a_tracing_early_exit_is_eager_only() -> None:
    """torchvision's ``heatmaps_to_keypoints`` shape: ``if _is_tracing(): ...; return`` and the eager
    loop after it. The trace never runs the loop, so its `.item()` and bicubic resize are not findings;
    without the early exit (or before the guard) they are."""
    code = """
    import torchvision

    class Keypoints(nn.Module):
        def forward(self, maps, sizes):
            if torchvision._is_tracing():
                return traced_path(maps, sizes)
            out = []
            for i in range(maps.shape[0]):
                h = int(sizes[i].item())
                out.append(F.interpolate(maps[i][None], size=(h, h), mode="bicubic"))
            return out
    """
    assert found(code, "TRT702") == [] and found(code, "TRT727") == []
    falls_through = code.replace("return traced_path(maps, sizes)", "maps = traced_path(maps, sizes)")
    assert len(found(falls_through, "TRT702")) == 1 and len(found(falls_through, "TRT727")) == 1
    guard = "            if torchvision._is_tracing():\n                return traced_path(maps, sizes)\n"
    eager_first = code.replace(guard, "").replace("            return out\n", guard + "            return out\n")
    assert len(found(eager_first, "TRT702")) == 1
