"""TRT106's unsafe rewrite (while tracing): a recurrence over a dynamic axis (a linear-chain CRF's forward algorithm and gold-path
score, pytorch-crf's shape) lifted into a `@torch.jit.script` function.

The rewrite text and where it never applies; eager before/after on sequence lengths 1, 2 and many, masks with
zeros, large and -inf scores; the TorchScript export, whose ONNX `Loop` follows the sequence length in ONNX Runtime
where the trace had unrolled the example's; and the assumption (a ScriptFunction inside `torch.fx`) shown.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import rewrite, rules_found

CODE = '''\
import torch
from torch import nn


class CRF(nn.Module):
    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self.start_transitions = nn.Parameter(torch.randn(num_tags))
        self.transitions = nn.Parameter(torch.randn(num_tags, num_tags))

    def forward(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self._score(emissions, tags, mask) - self._normalizer(emissions, mask)

    def _score(self, emissions: torch.Tensor, tags: torch.LongTensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length, batch_size = tags.shape
        mask = mask.float()
        score = self.start_transitions[tags[0]]
        score += emissions[0, torch.arange(batch_size), tags[0]]
        for i in range(1, seq_length):
            score += self.transitions[tags[i - 1], tags[i]] * mask[i]
            score += emissions[i, torch.arange(batch_size), tags[i]] * mask[i]
        return score

    def _normalizer(self, emissions: torch.Tensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            next_score = score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1)
            next_score = torch.logsumexp(next_score, dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
        return torch.logsumexp(score, dim=1)
'''

LIFTED_NORMALIZER = '''\
@torch.jit.script
def _trt_loop_normalizer(emissions: torch.Tensor, score: torch.Tensor, mask: torch.Tensor, self_transitions: torch.Tensor):
    seq_length = emissions.size(0)
    for i in range(1, seq_length):
        next_score = score.unsqueeze(2) + self_transitions + emissions[i].unsqueeze(1)
        next_score = torch.logsumexp(next_score, dim=1)
        score = torch.where(mask[i].unsqueeze(1), next_score, score)
    return score
'''

NEVER = [
    # appends to a list: ONNX sequence ops, which TensorRT refuses
    "    def f(self, x: torch.Tensor):\n        out = []\n        for i in range(x.size(0)):\n"
    "            out.append(x[i] * 2)\n        return out\n",
    # calls a method of self
    "    def f(self, x: torch.Tensor):\n        h = x[0]\n        for i in range(1, x.size(0)):\n"
    "            h = self.cell(x[i], h)\n        return h\n",
    # a parameter whose type the code does not show
    "    def f(self, x, h):\n        for i in range(x.size(0)):\n            h = h + x[i]\n        return h\n",
    # a bound that is not a size
    "    def f(self, x: torch.Tensor, h: torch.Tensor):\n        for i in range(4):\n            h = h + x[i]\n"
    "        return h\n",
    # a break inside
    "    def f(self, x: torch.Tensor, h: torch.Tensor):\n        for i in range(x.size(0)):\n            h = h + x[i]\n"
    "            break\n        return h\n",
    # a local first bound inside the loop and read after it (undefined where the loop runs zero times)
    "    def f(self, x: torch.Tensor):\n        for i in range(x.size(0)):\n            h = x[i] * 2\n        return h\n",
    # the loop index read after the loop
    "    def f(self, x: torch.Tensor, h: torch.Tensor):\n        for i in range(x.size(0)):\n            h = h + x[i]\n"
    "        return h * i\n",
    # a body TorchScript refuses (it has no `Tensor.bool()`): checked by compiling the lifted function
    "    def f(self, x: torch.Tensor, m: torch.Tensor, h: torch.Tensor):\n        for i in range(x.size(0)):\n"
    "            h = torch.where(m[i].bool(), x[i], h)\n        return h\n",
    # a carried number assigned a tensor: TorchScript's carried values keep their type
    "    def f(self, x: torch.Tensor):\n        n = 0\n        for i in range(x.size(0)):\n            n = x[i] + n\n"
    "        return n\n",
]


def test_rewrite_text() -> None:
    after = rewrite(CODE, unsafe=True, select=("TRT106",))
    assert LIFTED_NORMALIZER in after
    assert ("        if not torch.jit.is_scripting() and torch.jit.is_tracing():\n"
            "            score = _trt_loop_normalizer(emissions, score, mask, self.transitions)\n"
            "        else:\n            for i in range(1, seq_length):\n") in after
    assert "score = _trt_loop_score(tags, mask, score, emissions, self.transitions)" in after
    assert "    seq_length = tags.size(0)\n    batch_size = tags.size(1)\n" in after  # sizes read in the function
    assert after.split("class CRF")[1].count("for i in range") == 2  # kept for eager code
    assert rewrite(CODE, select=("TRT106",)) == CODE  # unsafe: only with --unsafe
    assert rules_found(CODE, select=("TRT106",)) == ["TRT106", "TRT106"]
    for body in NEVER:
        code = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n" + body
        assert rules_found(code, select=("TRT106",)) == [], body


#: TorchCRF's spelling (tests/recipe_variants/trt106/torchcrf_batch_first_denominator.py): bare tensor types imported
#: from torch, sizes unpacked from ``size()``, the step's mask moved to ``device = h.device`` inside the loop.
BARE = '''\
import torch
from torch import nn
from torch import BoolTensor, FloatTensor


class CRF(nn.Module):
    def __init__(self):
        super().__init__()
        self.trans = nn.Parameter(torch.randn(5, 5))

    def f(self, h: FloatTensor, mask: BoolTensor):
        device = h.device
        batch_size, seq_len, _ = h.size()
        score = h[:, 0]
        for t in range(1, seq_len):
            mask_t = mask[:, t].unsqueeze(1).to(device)
            score = torch.where(mask_t, torch.logsumexp(score.unsqueeze(2) + self.trans, 1) + h[:, t], score)
        return score
'''


def test_bare_tensor_types_size_unpacking_and_a_device() -> None:
    after = rewrite(BARE, unsafe=True, select=("TRT106",))
    assert ("def _trt_loop_f(h: torch.Tensor, mask: torch.Tensor, device: torch.device, score: torch.Tensor, "
            "self_trans: torch.Tensor):\n    seq_len = h.size(1)\n") in after, after
    assert "score = _trt_loop_f(h, mask, device, score, self.trans)" in after
    # The bare names are tensors only where the file imports them from torch.
    for imports in ("from torch import nn\n", "from torch import nn\nfrom mylib import BoolTensor, FloatTensor\n",
                    "from torch import nn\nfrom torch import BoolTensor as BoolTensor, FloatTensor as FloatTensor\n"):
        code = BARE.replace("from torch import nn\nfrom torch import BoolTensor, FloatTensor\n", imports)
        assert rules_found(code, select=("TRT106",)) == [], imports
    # A size unpacked from the tensor before it is rebound is not the rebound tensor's size.
    rebound = BARE.replace("        score = h[:, 0]\n", "        h = h.transpose(0, 1)\n        score = h[:, 0]\n")
    assert rules_found(rebound, select=("TRT106",)) == []


def _crf(code: str, tmp_path: Path, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return import_source(code, tmp_path)["CRF"](5)


def _inputs(length: int, batch: int = 3, seed: int = 1, scale: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    emissions = torch.randn(length, batch, 5, generator=g) * scale
    tags = torch.randint(0, 5, (length, batch), generator=g)
    mask = torch.ones(length, batch, dtype=torch.uint8)
    if length > 1:
        mask[length // 2 + 1:, 1] = 0  # a shorter sentence
        mask[1:, 2] = 0  # a sentence of one token
    return emissions, tags, mask


@pytest.mark.parametrize("length", [1, 2, 7, 40])
def test_eager_values_and_gradients_are_the_same(tmp_path: Path, length: int) -> None:
    # Eager mode runs the loop as written (the scripted function only while tracing).
    before = _crf(CODE, tmp_path)
    after = _crf(rewrite(CODE, unsafe=True, select=("TRT106",)), tmp_path)
    for scale in (1.0, 1e4):
        for _ in range(3):  # past TorchScript's profiling runs, where its own gradients would take over
            emissions, tags, mask = _inputs(length, scale=scale)
            e1, e2 = emissions.clone().requires_grad_(), emissions.clone().requires_grad_()
            expected, got = before(e1, tags, mask), after(e2, tags, mask)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            torch.testing.assert_close(got, expected, rtol=0, atol=0)
            expected.sum().backward()
            got.sum().backward()
            torch.testing.assert_close(e2.grad, e1.grad, rtol=0, atol=0)


def _traced(model: torch.nn.Module, length: int) -> torch.jit.ScriptModule:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.trace(model, _inputs(length), check_trace=False)


@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_the_traced_model_runs_the_scripted_loop_at_every_length(tmp_path: Path, scale: float) -> None:
    # The scripted function on real tensors: traced at 4 steps, run at 1, 2, 7 and 40, against eager mode.
    before = _crf(CODE, tmp_path)
    after = _crf(rewrite(CODE, unsafe=True, select=("TRT106",)), tmp_path)
    traced_before, traced_after = _traced(before, 4), _traced(after, 4)
    same_before = []
    with torch.no_grad():
        for length in (1, 2, 7, 40):
            emissions, tags, mask = _inputs(length, scale=scale)
            expected = before(emissions, tags, mask)
            torch.testing.assert_close(traced_after(emissions, tags, mask), expected, rtol=1e-6, atol=1e-3 * scale)
            try:
                same_before.append(bool(torch.allclose(traced_before(emissions, tags, mask), expected)))
            except RuntimeError:  # the unrolled graph indexes step 1, 2 and 3: past the end of a shorter input
                same_before.append(None)
    assert same_before == [None, None, False, False]  # the trace's 3 iterations at every length


def test_minus_infinity_in_the_transitions(tmp_path: Path) -> None:
    # A forbidden transition (-inf, as constrained CRFs write it): the normalizer stays finite, traced as in eager.
    before = _crf(CODE, tmp_path)
    after = _crf(rewrite(CODE, unsafe=True, select=("TRT106",)), tmp_path)
    with torch.no_grad():
        for model in (before, after):
            model.transitions[0, 1] = float("-inf")
        traced = _traced(after, 3)
        emissions, tags, mask = _inputs(6)
        tags[:] = 2
        expected = before(emissions, tags, mask)
        assert torch.isfinite(expected).all()
        torch.testing.assert_close(traced(emissions, tags, mask), expected, rtol=1e-6, atol=1e-5)


def _export(model: torch.nn.Module, length: int) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, _inputs(length), buffer, dynamo=False, input_names=["emissions", "tags", "mask"],
                          dynamic_axes={"emissions": {0: "T"}, "tags": {0: "T"}, "mask": {0: "T"}})
    return buffer.getvalue()


def test_the_lifted_loops_export_as_onnx_loops_that_follow_the_length(tmp_path: Path) -> None:
    before = _crf(CODE, tmp_path)
    after = _crf(rewrite(CODE, unsafe=True, select=("TRT106",)), tmp_path)
    matches = {}
    for label, model in (("before", before), ("after", after)):
        data = _export(model, 4)
        graph = onnx.load_from_string(data).graph
        loops = [n for n in graph.node if n.op_type == "Loop"]
        assert len(loops) == (0 if label == "before" else 2)
        for loop in loops:  # no scan outputs: every output of the body is a carried value (TensorRT's condition)
            body = next(a.g for a in loop.attribute if a.name == "body")
            assert len(body.output) == 1 + len(loop.input) - 2, label
        session = ort.InferenceSession(data)
        matches[label] = []
        for length in (1, 2, 4, 11):
            emissions, tags, mask = _inputs(length)
            with torch.no_grad():
                expected = model(emissions, tags, mask)
            try:
                got = session.run(None, {"emissions": emissions.numpy(), "tags": tags.numpy(), "mask": mask.numpy()})[0]
            except Exception:  # noqa: BLE001 - the unrolled graph gathers step 3 of a shorter input
                matches[label].append(None)
                continue
            matches[label].append(bool(torch.allclose(torch.from_numpy(got), expected, atol=1e-5)))
    assert matches["after"] == [True, True, True, True]
    assert matches["before"] == [None, None, True, False]  # the trace's 3 iterations, at every length


def test_the_assumption_fx_cannot_trace_through_the_scripted_loop(tmp_path: Path) -> None:
    before = _crf(CODE, tmp_path)
    after = _crf(rewrite(CODE, unsafe=True, select=("TRT106",)), tmp_path)
    with pytest.raises(Exception):
        torch.fx.symbolic_trace(before)  # the original does not trace either (range over a Proxy)
    with pytest.raises(Exception):
        torch.fx.symbolic_trace(after)
    assert isinstance(import_source(rewrite(CODE, unsafe=True, select=("TRT106",)), tmp_path)["_trt_loop_normalizer"],
                      torch.jit.ScriptFunction)
