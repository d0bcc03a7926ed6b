"""TRT312: ``F.fold(...)`` becomes ``_trt_fold(...)``: ``F.fold`` itself outside an ONNX export, shifted
block images added up (reshapes, zero pads, additions) while exporting.

The rewrite text for the spellings the file's imports give, and what is left alone; the export
formulation against ``F.fold`` on real tensors for every kernel, dilation, padding and stride up to
a bound, batched and unbatched, with fold's own errors; eager runs and the toolchains before and
after; and an outlook-attention-like block (VOLO's: unfold, weight, fold back) exported with a
dynamic height and width: the TorchScript export at opset 17 stops before the rewrite and, after
it, both exporters' graphs have no Col2Im and equal eager mode at other sizes, infinities and NaN
included.
"""

from __future__ import annotations

import itertools
import re
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_nchw, migrate_json, rewrite, rules_found

from trtcodemod.engine import Options, check_source
from trtcodemod.helpers.folding import _trt_fold, _trt_fold_shifted
from trtcodemod.registry import all_rules


@pytest.mark.parametrize(("code", "want"), [
    ("y = F.fold(x, (8, 8), 2)\n", "y = _trt_fold(x, (8, 8), 2)\n"),
    ("y = F.fold(x, output_size=(h, w), kernel_size=3, padding=1, stride=2)\n",
     "y = _trt_fold(x, output_size=(h, w), kernel_size=3, padding=1, stride=2)\n"),
    ("y = torch.nn.functional.fold(input=x, output_size=size, kernel_size=k)\n",
     "y = _trt_fold(input=x, output_size=size, kernel_size=k)\n"),
    ("y = nn.functional.fold(\n    x,\n    (1, n),  # the signal\n    **window,\n)\n",
     "y = _trt_fold(\n    x,\n    (1, n),  # the signal\n    **window,\n)\n"),
    ("y = col2im(x, (4, 4), 2)\n", "y = _trt_fold(x, (4, 4), 2)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    source = ("import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
              "from torch.nn.functional import fold as col2im\n\n\n" + code)
    after = rewrite(source, select=("TRT312",), unsafe=True)
    assert rewrite(source, select=("TRT312",)) == source  # unsafe: not without --unsafe
    assert after.endswith(want), after
    assert "def _trt_fold(" in after and "def _trt_fold_shifted(" in after


def test_the_finding_and_summary_name_the_export_form_the_helper_takes() -> None:
    # The helper adds shifted block images up (no convolution: its zero weights would turn an
    # infinity into NaN); the finding and the rule table say so, and the doc says it once.
    source = b"import torch.nn.functional as F\n\n\ny = F.fold(x, (8, 8), 2)\n"
    [finding] = check_source(source, "model.py", Options(select=("TRT312",), scope="all", unsafe=True))
    [info] = [i for i in all_rules() if i.id == "TRT312"]
    for text in (finding.message, info.summary):
        assert "convolution" not in text and "shifted block images" in text, text
    assert info.doc.count("keep `F.fold`") == 1, info.doc


@pytest.mark.parametrize("code", [
    "def fold(x):\n    return x\n\n\ny = fold(x)\n",  # the user's own fold
    "y = x.fold(2)\n",  # a method of another object
    "y = nn.Fold((8, 8), 2)(x)\n",  # the module: TRT706 names it
    "y = F.unfold(x, 2)\n",
])
def test_left_alone(code: str) -> None:
    source = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n" + code
    assert "TRT312" not in rules_found(source)
    assert rewrite(source, select=("TRT312",), unsafe=True) == source


def _cases() -> list[tuple]:
    out = []
    for (h, w), k, d, p, s in itertools.product([(7, 9), (8, 8), (5, 6)], [1, 2, 3, (2, 3), (1, 5)], [1],
                                                [0, 1, (1, 0)], [1, 2, 3, (2, 1)]):
        kh, kw = (k, k) if isinstance(k, int) else k
        ph, pw = (p, p) if isinstance(p, int) else p
        sh, sw = (s, s) if isinstance(s, int) else s
        rows, cols = (h + 2 * ph - d * (kh - 1) - 1) // sh + 1, (w + 2 * pw - d * (kw - 1) - 1) // sw + 1
        if rows > 0 and cols > 0:
            out.append(((h, w), k, d, p, s, rows * cols, kh * kw))
    return out


def test_the_export_form_sums_what_fold_sums_for_every_kernel_dilation_padding_and_stride() -> None:
    generator = torch.Generator().manual_seed(0)
    for size, k, d, p, s, blocks, positions in _cases():
        for shape in ((2, 3 * positions, blocks), (3 * positions, blocks), (0, 2 * positions, blocks)):
            x = torch.randn(shape, generator=generator, dtype=torch.float64)
            expected = F.fold(x, size, k, d, p, s)
            got = _trt_fold_shifted(x, size, k, p, s)
            assert got.shape == expected.shape and got.dtype == expected.dtype, (size, k, d, p, s, shape)
            assert torch.equal(got, expected), (size, k, d, p, s, shape)  # the same sums in the same order


def test_the_export_form_keeps_edge_values_gradients_and_folds_errors() -> None:
    x = torch.tensor([[[0.0, -0.0, float("inf"), -2.0], [float("nan"), 1.0, -1.0, 0.5]]]).repeat(1, 2, 1)
    torch.testing.assert_close(_trt_fold_shifted(x, (3, 3), 2, 0, 1), F.fold(x, (3, 3), 2), equal_nan=True)
    cols = torch.randn(2, 12, 4, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(2, 3, 3, 3, dtype=torch.float64)
    (F.fold(cols, (3, 3), 2) * weight).sum().backward()
    expected, cols.grad = cols.grad.clone(), None
    (_trt_fold_shifted(cols, (3, 3), 2, 0, 1) * weight).sum().backward()
    torch.testing.assert_close(cols.grad, expected, rtol=0, atol=1e-12)
    for bad in ((torch.randn(1, 12, 5), (3, 3), 2), (torch.randn(1, 10, 4), (3, 3), 2)):
        with pytest.raises(RuntimeError) as original:
            F.fold(*bad)
        with pytest.raises(RuntimeError, match=re.escape(str(original.value)[:30])):
            _trt_fold_shifted(*bad, 0, 1)


def test_outside_an_export_the_helper_is_fold_with_its_errors() -> None:
    x = torch.randn(1, 12, 4)
    assert torch.equal(_trt_fold(x, (3, 3), 2), F.fold(x, (3, 3), 2))
    assert torch.equal(_trt_fold(input=x, output_size=(3, 3), kernel_size=2), F.fold(x, (3, 3), 2))
    for bad in ((torch.ones(1, 12, 4, dtype=torch.int64), (3, 3), 2), (torch.randn(1, 12, 5), (3, 3), 2)):
        with pytest.raises(Exception) as original:
            F.fold(*bad)
        with pytest.raises(type(original.value)):
            _trt_fold(*bad)


OUTLOOK = """\
import torch
import torch.nn.functional as F
from torch import nn


# Each position's 3x3 neighbourhood reweighted, then folded back (VOLO's outlook attention, reduced).
class Outlook(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.weights = nn.Conv2d(channels, 9, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        cols = F.unfold(x, 3, padding=1, stride=2)  # b, c * 9, blocks
        rows, per_row = (h + 1) // 2, (w + 1) // 2
        attn = self.weights(F.avg_pool2d(x, 2, ceil_mode=True)).softmax(1).reshape(b, 1, 9, rows * per_row)
        cols = (cols.reshape(b, c, 9, rows * per_row) * attn).reshape(b, c * 9, rows * per_row)
        return F.fold(cols, output_size=(h, w), kernel_size=3, padding=1, stride=2)


def build():
    torch.manual_seed(0)
    return Outlook().eval()


def inputs(generator):
    return [torch.randn(1, 4, 12, 10, generator=generator)]
"""


@pytest.fixture(scope="module")
def outlook(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("fold")
    after = rewrite(OUTLOOK, select=("TRT312",), unsafe=True)
    assert "return _trt_fold(cols, output_size=(h, w), kernel_size=3, padding=1, stride=2)" in after
    return import_source(OUTLOOK, folder), import_source(after, folder)


@pytest.mark.parametrize("shape", [(2, 4, 12, 10), (1, 4, 9, 7), (1, 4, 2, 2), (0, 4, 6, 6)])
def test_eager_runs_are_unchanged(outlook: tuple[dict, dict], shape: tuple[int, ...]) -> None:
    before, after = outlook
    x = torch.randn(shape)
    if x.numel():
        x[0, 0, 0, 0] = float("inf")
    torch.manual_seed(0)
    model_before = before["Outlook"]()
    torch.manual_seed(0)
    model_after = after["Outlook"]()
    assert_same_run(run_once(model_before, [x]), run_once(model_after, [x]))


def test_the_toolchains_run_fold_itself_but_scripting_fails_as_documented(outlook: tuple[dict, dict],
                                                                          tmp_path: Path) -> None:
    before, after = outlook
    x = torch.randn(2, 4, 12, 10)
    torch.manual_seed(0)
    outcomes_before = toolchain_outcomes(before["Outlook"], [x], tmp_path)
    torch.manual_seed(0)
    outcomes_after = toolchain_outcomes(after["Outlook"], [x], tmp_path)
    assert outcomes_before.keys() == outcomes_after.keys()
    for toolchain, result in outcomes_before.items():
        if toolchain == "script" and not isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], Exception), toolchain  # the stated assumption
        elif isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def test_the_original_does_not_export_at_opset_17(outlook: tuple[dict, dict]) -> None:
    before, _ = outlook
    with pytest.raises(Exception, match="col2im|Col2Im"):
        export_nchw(before["Outlook"]().eval(), torch.randn(1, 4, 12, 10), dynamo=False)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_equals_eager_at_other_sizes(outlook: tuple[dict, dict], dynamo: bool) -> None:
    _, after = outlook
    torch.manual_seed(0)
    model = after["Outlook"]().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = export_nchw(model, torch.randn(1, 4, 12, 10), dynamo, min_side=3)
    ops = {node.op_type for node in graph.graph.node}
    assert "Col2Im" not in ops, ops
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in [(1, 4, 12, 10), (2, 4, 15, 9), (1, 4, 4, 4), (3, 4, 7, 13)]:
        x = torch.randn(shape)
        x[0, 0, 1, :2] = torch.tensor([float("inf"), -0.0])
        with torch.no_grad():
            expected = model(x).numpy()
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=str(shape))


def test_migrate_fixes_the_export_failure_at_the_fold(tmp_path: Path) -> None:
    model = tmp_path / "outlook.py"
    model.write_text(OUTLOOK)
    report = migrate_json(model, '{"x": {"0": "b", "2": "h", "3": "w"}}')
    assert report["before"]["exported"] is False
    # TRT312's fix is a candidate (its assumption is about scripting): the verification keeps it.
    [fold] = report["applied"]
    assert (fold["rule"], fold["line"]) == ("TRT312", 18) and fold["proof"].startswith("verified:")
    assert report["exit_code"] == 0 and report["equivalent"] is True
    assert not [r for r in report["remaining"] if r["severity"] == "error"], report["remaining"]


# An iSTFT's overlap-add: frames of n_fft samples every `hop` samples (hop < n_fft, so they overlap) folded
# into one row whose length is computed from the frame count (KinWaiCheuk/nnAudio@ad2d8875f335b0a08098e42a0a2826b89a7fa073
# Installation/nnAudio/utils.py:56, and its window square sum at :47; the same fold in
# Manza12/nnAudio@9ad7663fd4d68968918f361d5991cf96eb99f2b4 Installation/nnAudio/utils.py:29 and :23).
def _overlap_add(frames: torch.Tensor, hop: int) -> torch.Tensor:
    n_fft = frames.shape[1]
    length = n_fft + hop * (frames.shape[2] - 1)
    return _trt_fold(frames, (1, length), kernel_size=(1, n_fft), stride=hop).flatten(1)


class _OverlapAdd(torch.nn.Module):
    def forward(self, frames: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        window = torch.arange(1, frames.shape[1] + 1, dtype=frames.dtype) / frames.shape[1]
        stacked = window.unsqueeze(-1).repeat((1, frames.shape[2])).unsqueeze(0)
        return _overlap_add(frames, 3), _overlap_add(stacked ** 2, 3).flatten()


def test_an_istft_overlap_add_with_its_length_from_the_frame_count_exports_exactly() -> None:
    """The export form is fold's sum for a (1, n_fft) kernel whose stride is shorter than it and does not divide
    it, the kernel size and the output length traced from the input's shape, at every batch size and frame
    count. The number of shifted images was `-(-k // s)`, which the TorchScript exporter writes with a
    truncating Div: one short for a traced `k`, and the last part's pad negative, so the last samples were 0."""
    model = _OverlapAdd().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import io

        buffer = io.BytesIO()
        torch.onnx.export(model, (torch.randn(1, 8, 5),), buffer, dynamo=False, opset_version=17,
                          input_names=["frames"], dynamic_axes={"frames": {0: "batch", 2: "count"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for shape in [(1, 8, 5), (3, 8, 11), (2, 8, 1), (1, 8, 2)]:
        frames = torch.randn(shape)
        frames[0, 0, 0], frames[-1, 7, -1] = float("inf"), float("nan")
        for given in (frames, torch.zeros(shape), -frames.abs()):
            with torch.no_grad():
                want = [t.numpy() for t in model(given)]
                ref = [F.fold(given, (1, 8 + 3 * (shape[2] - 1)), kernel_size=(1, 8), stride=3).flatten(1).numpy()]
            got = session.run(None, {"frames": given.numpy()})
            np.testing.assert_array_equal(want[0], ref[0])
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True, err_msg=str(shape))
