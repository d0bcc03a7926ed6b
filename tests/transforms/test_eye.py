"""TRT310: ``torch.eye`` of a run-time size, or of booleans, as a comparison of two ranges while exporting.

The rewrite text (what is reported, what is left), eager mode bit for bit against ``torch.eye``
(values, dtype, strides, errors), scripting, the graph check (an EyeLike whose input shape is
computed at run time is TensorRT's error, TRT310), ONNX Runtime refusing a boolean EyeLike, and the
rewritten graph equal to eager at other sizes.
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import migrate_json, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.eye import _trt_eye
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
from torch import nn


class TextMask(nn.Module):
    def forward(self, ids):
        batch_size, seq_len = ids.shape
        identity = torch.eye(seq_len, device=ids.device, dtype=torch.bool).unsqueeze(0).expand(batch_size, -1, -1)
        blocks = ids.unsqueeze(2) == ids.unsqueeze(1)
        weights = torch.eye(seq_len, 3) + torch.eye(3)[0, 0]
        return identity | blocks, weights
'''


def test_what_it_reports_and_the_rewrite() -> None:
    assert rules_found(SOURCE, select=("TRT310",)) == ["TRT310", "TRT310"]  # not the literal torch.eye(3)
    after = strip_helpers(rewrite(SOURCE, select=("TRT310",)))
    assert "identity = _trt_eye(seq_len, device=ids.device, dtype=torch.bool).unsqueeze(0)" in after
    assert "weights = _trt_eye(seq_len, 3) + torch.eye(3)[0, 0]" in after
    once = rewrite(SOURCE, select=("TRT310",))
    assert rewrite(once, select=("TRT310",)) == once
    left = "import torch\ndef f(n):\n    return torch.eye(n, requires_grad=True)\n"
    assert rules_found(left, select=("TRT310",)) == ["TRT310"] and rewrite(left, select=("TRT310",)) == left


@pytest.mark.parametrize("dtype", [None, torch.bool, torch.int64, torch.float16, torch.float64])
def test_eager_and_export_formulations_are_torch_eye(dtype, monkeypatch) -> None:
    for n, m in [(0, None), (1, None), (4, None), (3, 5), (5, 0)]:
        want = torch.eye(n, dtype=dtype) if m is None else torch.eye(n, m, dtype=dtype)
        assert_same_run(run_once(lambda: want, []), run_once(lambda: _trt_eye(n, m, dtype=dtype), []))
    monkeypatch.setattr("trtcodemod.helpers.eye._trt_onnx_exporting", lambda: True)
    for n, m in [(0, None), (1, None), (4, None), (3, 5), (5, 0)]:
        want = torch.eye(n, dtype=dtype) if m is None else torch.eye(n, m, dtype=dtype)
        got = _trt_eye(n, m, dtype=dtype)
        assert torch.equal(got, want) and got.dtype == want.dtype and got.stride() == want.stride()
    assert_same_run(run_once(lambda: _trt_eye(-1), []), run_once(lambda: torch.eye(-1), []), exception_types=False)


def test_scripted_it_is_torch_eye() -> None:
    scripted = torch.jit.script(_trt_eye)
    assert torch.equal(scripted(3, None, torch.bool, None), torch.eye(3, dtype=torch.bool))
    assert torch.equal(scripted(2, 4, None, None), torch.eye(2, 4))


def _export(model: torch.nn.Module) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randint(0, 4, (2, 5)),), buffer, dynamo=False, opset_version=17,
                          input_names=["ids"], dynamic_axes={"ids": {0: "b", 1: "n"}})
    return onnx.load_from_string(buffer.getvalue())


def test_the_original_graph_fails_both_runtimes_and_the_rewrite_runs(tmp_path) -> None:
    (tmp_path / "before").mkdir(), (tmp_path / "after").mkdir()
    before = import_source(SOURCE, tmp_path / "before")["TextMask"]()
    after = import_source(rewrite(SOURCE, select=("TRT310",)), tmp_path / "after")["TextMask"]()
    original = _export(before)
    assert [i.rule for i in check_graph(original, "10.0") if i.op == "EyeLike"] == ["TRT310", "TRT310"]
    with pytest.raises(Exception, match="EyeLike"):  # no boolean EyeLike kernel in ONNX Runtime
        ort.InferenceSession(original.SerializeToString(), providers=["CPUExecutionProvider"])
    graph = _export(after)
    assert "EyeLike" not in {n.op_type for n in graph.graph.node}
    assert not [i for i in check_graph(graph, "10.0") if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in [(2, 5), (1, 9), (3, 1), (2, 0)]:
        ids = torch.randint(0, 4, shape)
        got = session.run(None, {"ids": ids.numpy()})
        for want, have in zip(before(ids), got):
            assert torch.equal(want, torch.from_numpy(have))


def test_migrate_takes_the_eye_at_the_line_the_graph_check_names(tmp_path) -> None:
    """The original exports, but its EyeLike of the text length is TensorRT's error (and ONNX Runtime
    cannot load it): the line gets TRT310's fix, and the rewritten model is faithful and equivalent."""
    model = tmp_path / "text_mask.py"
    model.write_text(SOURCE + "\n\ndef build():\n    return TextMask()\n\n\ndef inputs(generator):\n"
                     "    return (torch.randint(0, 4, (2, 5), generator=generator),)\n")
    report = migrate_json(model, '{"ids": {"0": "b", "1": "n"}}')
    assert report["before"]["exported"] is True and report["before"]["trt_errors"] == 2
    assert [a["rule"] for a in report["applied"]] == ["TRT310", "TRT310"]
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True and report["equivalent"] is True


def test_the_toolchains_run_torch_eye(tmp_path) -> None:
    """Scripted, fx-traced (and scripted after), compiled and ``torch.export``-ed, the rewritten
    module gives what the original gives, and fails where it fails."""
    (tmp_path / "b").mkdir(), (tmp_path / "a").mkdir()
    before = import_source(SOURCE, tmp_path / "b")["TextMask"]
    after = import_source(rewrite(SOURCE, select=("TRT310",)), tmp_path / "a")["TextMask"]
    ids = torch.randint(0, 4, (2, 5))
    original, rewritten = toolchain_outcomes(before, [ids], tmp_path), toolchain_outcomes(after, [ids], tmp_path)
    assert not isinstance(original["script"], Exception)
    for name, outcome in original.items():
        if isinstance(outcome, Exception):
            assert isinstance(rewritten[name], Exception), name
            continue
        for want, got in zip(outcome, rewritten[name]):
            assert torch.equal(want, got) and want.dtype == got.dtype, name
