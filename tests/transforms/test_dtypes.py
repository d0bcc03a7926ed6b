"""TRT701's unsafe rewrite: float64 → float32 and int16 → int32 where TensorRT lacks the dtype.

The rewrite text (what is rewritten, what never is), then the code run before and after on
real tensors: equal within float32's rounding where float32 suffices, exactly equal for
int16 values in range, and the assumption's failures shown (timestamps, int16 wrap-around).
The rewritten export has no DOUBLE or INT16 tensor left for the graph check to report.
"""

from __future__ import annotations

import io
import warnings

import onnx
import pytest
import torch

from snippets import found, messages
from support import load, rewrite, rules_found
from trtcodemod.engine import Options, check_source
from trtcodemod.trt.check import check_graph


CODE = '''\
import torch
import torch as th


def scale(boxes, counts):
    sizes = (boxes[:, 2:] - boxes[:, :2]).double()
    norm = sizes.pow(2).sum(-1).sqrt().to(torch.float64)
    bias = torch.zeros(boxes.shape[0], dtype=th.double)
    total = counts.short() + counts.to(torch.int16)
    return norm + bias, total
'''

NEVER = [
    "def f(x):\n    return x.view(torch.float64)\n",  # reinterprets bytes: another shape
    "def f(x):\n    return (x > 0).byte()\n",  # uint8: a mask wants bool, a number int32
    "def f(x):\n    return torch.DoubleTensor(x.tolist())\n",
    "def f(x):\n    return x.dtype == torch.float64\n",  # a comparison makes no tensor
]


def test_rewrite_text() -> None:
    after = rewrite(CODE, unsafe=True, select=("TRT701",))
    assert "sizes = (boxes[:, 2:] - boxes[:, :2]).float()" in after
    assert "sqrt().to(torch.float32)" in after and "dtype=torch.float32)" in after
    assert "total = counts.int() + counts.to(torch.int32)" in after
    assert rewrite(CODE, select=("TRT701",)) == CODE  # unsafe: never without --unsafe (or migrate's proof)
    for code in NEVER:
        code = "import torch\n" + code
        assert rewrite(code, unsafe=True, select=("TRT701",)) == code, code


BOXES = [torch.tensor([[0.0, 0.0, 3.0, 4.0], [-5.0, -5.0, -2.0, -1.0], [1e3, 1e3, 1e3, 1e3]]),
         torch.zeros(2, 4), torch.empty(0, 4), torch.tensor([[0.0, 0.0, float("inf"), 1.0]])]


@pytest.mark.parametrize("boxes", BOXES, ids=["values", "zeros", "empty", "inf"])
def test_float32_is_enough_here_and_int16_values_in_range_are_exact(boxes: torch.Tensor) -> None:
    before, after = load(CODE, "scale"), load(rewrite(CODE, unsafe=True, select=("TRT701",)), "scale")
    counts = torch.arange(boxes.shape[0], dtype=torch.int64) * 1000 - 7
    (norm_b, total_b), (norm_a, total_a) = before(boxes, counts), after(boxes, counts)
    assert (norm_b.dtype, total_b.dtype, norm_a.dtype, total_a.dtype) == (
        torch.float64, torch.int16, torch.float32, torch.int32)  # the dtype changes: part of the assumption
    torch.testing.assert_close(norm_a.double(), norm_b, rtol=1e-6, atol=0, equal_nan=True)
    assert torch.equal(total_a, total_b.to(torch.int32))


def test_the_assumption_fails_where_float64_or_int16_mattered() -> None:
    before, after = load(CODE, "scale"), load(rewrite(CODE, unsafe=True, select=("TRT701",)), "scale")
    stamps = torch.tensor([[1.7e9, 0.0, 1.7e9 + 0.25, 0.0]], dtype=torch.float64)
    # Seconds since 1970 in float32 are 128 apart: the quarter second is lost.
    assert before(stamps, torch.zeros(1, dtype=torch.int64))[0].item() == 0.25
    assert after(stamps.float(), torch.zeros(1, dtype=torch.int64))[0].item() == 0.0
    big = torch.tensor([20000])  # int16 wraps at 32768: 20000 + 20000 does not fit
    assert before(BOXES[0][:1], big)[1].item() != after(BOXES[0][:1], big)[1].item() == 40000


def test_the_rewritten_export_has_no_float64_or_int16_tensor(tmp_path) -> None:
    module = f"{CODE}\n\nclass M(torch.nn.Module):\n    def forward(self, boxes, counts):\n        return scale(boxes, counts)\n"
    errors = []
    for code in (module, rewrite(module, unsafe=True, select=("TRT701",))):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(load(code, "M")(), (BOXES[0], torch.tensor([1, 2, 3])), buffer, dynamo=False)
        issues = check_graph(onnx.load_from_string(buffer.getvalue()), "8.6")
        errors.append(sorted({i.op for i in issues if i.severity == "error"}))
    assert errors[0] and "Cast" in errors[0]  # the original's casts to DOUBLE and INT16
    assert errors[1] == []


# --- a dtype held in a local name ------------------------------------------------------------

HELD = '''\
import torch


def embed(bbox, n):
    dtype = torch.float32 if bbox.device.type == "mps" else torch.float64
    bbox = bbox.to(dtype)
    return bbox.mean(-1), torch.arange(n, dtype=dtype)
'''

HELD_NEVER = [
    "def f(x, d=torch.float64):\n    return x.to(d)\n",  # a parameter: the caller decides
    "def f(x, flag):\n    d = torch.float64\n    if flag:\n        d = torch.float32\n    return x.to(d)\n",
    "def f(x):\n    d = torch.float64\n    return x.view(d)\n",  # reinterprets bytes
    "def f(x):\n    d = x.dtype\n    return x.to(d)\n",
]


def test_a_dtype_held_in_a_local_name_is_followed_to_its_binding() -> None:
    """`dtype = torch.float32 if mps else torch.float64`, then `x.to(dtype)` (UDOP, RT-DETRv2 and
    others in transformers): reported at each use, rewritten once at the binding."""
    findings = check_source(HELD.encode(), "held.py", Options(select=("TRT701",)))
    assert [f.line for f in findings] == [6, 7] and all(f.fix.value == "unsafe" for f in findings)
    after = rewrite(HELD, unsafe=True, select=("TRT701",))
    assert 'dtype = torch.float32 if bbox.device.type == "mps" else torch.float32\n' in after
    assert after.count("float64") == 0 and rewrite(HELD, select=("TRT701",)) == HELD
    for code in HELD_NEVER:
        code = "import torch\n" + code
        assert rewrite(code, unsafe=True, select=("TRT701",)) == code, code
    uint8 = "import torch\n\ndef f(x):\n    kind = torch.uint8\n    return x.to(kind)\n"
    [finding] = check_source(uint8.encode(), "u.py", Options(select=("TRT701",)))
    assert finding.fix.value == "none" and "uint8" in finding.message


@pytest.mark.parametrize("boxes", BOXES, ids=["values", "zeros", "empty", "inf"])
def test_held_dtype_rewrite_runs_as_the_original_within_float32(boxes: torch.Tensor) -> None:
    before, after = load(HELD, "embed"), load(rewrite(HELD, unsafe=True, select=("TRT701",)), "embed")
    (mean_b, grid_b), (mean_a, grid_a) = before(boxes, 5), after(boxes, 5)
    assert (mean_b.dtype, grid_b.dtype, mean_a.dtype, grid_a.dtype) == (
        torch.float64, torch.float64, torch.float32, torch.float32)  # the dtype changes: part of the assumption
    torch.testing.assert_close(mean_a.double(), mean_b, rtol=1e-6, atol=0, equal_nan=True)
    assert torch.equal(grid_a.double(), grid_b)


# --- TRT701's findings, its messages and the float64 premise checked by export ----------------


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


def test_a_construction_method_the_export_warned_in_stays_out_without_observed_evidence() -> None:
    """TRT701 reads no observation: a constructor the export warned in (an object built by each forward
    call, as facexlib's `PriorBox`) stays construction-time code for it, facts or not; the method that
    forward calls is found either way."""
    from pathlib import Path

    from trtcodemod.evidence.facts import Facts

    code = (
        "import torch\n"
        "\n"
        "\n"
        "class Table:\n"
        "    def __init__(self, n):\n"
        "        self.t = torch.zeros(int(n), dtype=torch.float64)\n"
        "\n"
        "    def values(self):\n"
        "        return self.t.double()\n"
        "\n"
        "\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x + Table(x.shape[0]).values().float().sum()\n"
    )
    facts = Facts(runs=1, lines={str(Path("snippet.py").resolve()): set(range(1, 15))})
    facts.note_traced([("snippet.py", 6, "Converting a tensor to a Python integer might cause the trace to be "
                        "incorrect.")])
    for given in (None, facts):
        found_lines = [f.line for f in check_source(code.encode(), "snippet.py", Options(select=("TRT701",), facts=given))]
        assert found_lines == [9], given
