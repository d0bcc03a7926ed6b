"""TRT739: a float16/bfloat16 ``torch.arange`` counts in the arguments' type and casts after.

The rewrite's text for the forms it takes and the calls it leaves alone; the two forms compared value for value on
ranges within the bound (empty, one element, negative starts and steps, a float end) and shown to drift apart past
it (the assumption is real); the same tensors under TorchScript, fx, ``torch.compile`` and ``torch.export``; the
original's TorchScript graph refused by ONNX Runtime (a float16 ``Range``) and the rewritten one, an int64 ``Range``
and a ``Cast``, equal to eager mode at other sizes; and ``migrate`` on a small prior-grid model applying it from the
recorded ranges to end at exit 0.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_toolchain_outcomes, import_source
from support import TESTS, migrate_json, rewrite, rules_found

from trtcodemod.verify.export import export_model

HEADER = "import torch\nfrom torch import nn\n\n"


@pytest.mark.parametrize("before, after", [
    ("torch.arange(0, shape[1], dtype=torch.float16) * 2", "torch.arange(0, shape[1]).to(torch.float16) * 2"),
    ("torch.arange(w, dtype=torch.half, device=d) + 0.5", "torch.arange(w, device=d).to(torch.half) + 0.5"),
    ("torch.arange(start=1, end=w, step=2, dtype=torch.bfloat16)",
     "torch.arange(start=1, end=w, step=2).to(torch.bfloat16)"),
    ("torch.arange(-3, w, -1, device=d, dtype=torch.float16)", "torch.arange(-3, w, -1, device=d).to(torch.float16)"),
    ("torch.arange(\n        0,\n        w,\n        dtype=torch.float16,\n    )",
     "torch.arange(\n        0,\n        w,\n    ).to(torch.float16)"),
])
def test_the_dtype_moves_to_a_cast(before: str, after: str) -> None:
    source = HEADER + f"def f(w, d, shape):\n    return {before}\n"
    assert rewrite(source, select=("TRT739",), unsafe=True) == source.replace(before, after)
    # Unsafe: the code alone never applies it.
    assert rewrite(source, select=("TRT739",)) == source


@pytest.mark.parametrize("call", [
    "torch.arange(0.5, w, dtype=torch.float16)",  # a float start: the two forms round it differently
    "torch.arange(0, w, 0.25, dtype=torch.float16)",  # a float step
    "torch.arange(0, w, s, dtype=torch.float16)",  # a step the code does not show an int
    "torch.arange(w, dtype=torch.float32)",
    "torch.arange(w, dtype=x.dtype)",  # no recorded run shows it half precision
    "torch.arange(w, dtype=torch.float16, requires_grad=True)",  # the cast would not be a leaf
    "torch.arange(w, out=buffer, dtype=torch.float16)",
    "torch.arange(*bounds, dtype=torch.float16)",
])
def test_left_alone(call: str) -> None:
    source = HEADER + f"def f(x, w, s, buffer, bounds):\n    return {call}\n"
    assert rules_found(source, select=("TRT739",)) == []


def _both(start: int, end: float, step: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.arange(start, end, step, dtype=dtype), torch.arange(start, end, step).to(dtype)


def _raised(make) -> tuple[type, str] | None:
    try:
        make()
    except Exception as error:  # noqa: BLE001 - compared by the caller
        return type(error), str(error)
    return None


@pytest.mark.parametrize("dtype, limit", [(torch.float16, 2048), (torch.bfloat16, 256)])
def test_the_forms_agree_within_the_exact_integers(dtype: torch.dtype, limit: int) -> None:
    cases = [(0, 0, 1), (0, 1, 1), (0, limit + 1, 1), (-limit, 0, 1), (0, -limit - 1, -1),
             (3, limit, 5), (-7, limit // 2, 3), (0, 40.5, 1), (2, 2, 7), (limit, 0, -3)]
    for start, end, step in [(5, 2, 1), (0, 3, 0), (0, float("inf"), 1), (0, float("nan"), 1)]:
        # The same refusal (the step's sign, a zero step, an unbounded or NaN end), before any dtype is involved.
        original = _raised(lambda: torch.arange(start, end, step, dtype=dtype))
        assert original is not None and original == _raised(lambda: torch.arange(start, end, step).to(dtype))
    for start, end, step in cases:
        want, got = _both(start, end, step, dtype)
        assert got.dtype == want.dtype == dtype and got.shape == want.shape, (start, end, step)
        assert torch.equal(got, want), (start, end, step)
        assert got.is_contiguous() and not got.requires_grad


def test_past_the_bound_the_forms_part() -> None:
    """What the assumption is about: float16's own ``arange`` counts in float16 and drifts; the cast does not."""
    want, got = _both(1, 4097, 1, torch.float16)
    assert not torch.equal(got, want)
    assert want[2049].item() == 2048.0 and got[2049].item() == 2050.0
    assert torch.equal(got, torch.arange(1, 4097, dtype=torch.float32).to(torch.float16))
    want, got = _both(0, 40000, 1, torch.float16)
    assert not torch.equal(got, want)


PRIORS = """
class Priors(nn.Module):
    def forward(self, x):
        xs = torch.arange(0, x.shape[-1], dtype=torch.float16) * 4 + 2
        ys = torch.arange(0, x.shape[-2], dtype=torch.float16) * 4 + 2
        grid = torch.stack((xs[None, :].expand(x.shape[-2], -1), ys[:, None].expand(-1, x.shape[-1])), 0)
        return (x[:, None] + grid.float(),)
"""


def test_the_same_tensors_under_every_toolchain(tmp_path: Path) -> None:
    source = HEADER + textwrap.dedent(PRIORS)
    new = rewrite(source, select=("TRT739",), unsafe=True)
    assert new.count(").to(torch.float16)") == 2
    before, after = import_source(source, tmp_path)["Priors"], import_source(new, tmp_path)["Priors"]
    for x in (torch.rand(2, 5, 7), torch.zeros(1, 3, 1), -torch.rand(1, 2, 16),
              torch.tensor([[[float("inf"), float("nan"), -1.0]]]), torch.rand(1, 0, 4)):
        want, got = before()(x), after()(x)
        assert torch.equal(want[0].nan_to_num(), got[0].nan_to_num()) and torch.equal(want[0].isnan(), got[0].isnan())
        assert_same_toolchain_outcomes(before, after, [x], tmp_path)


def test_onnx_runtime_refuses_the_half_range_and_takes_the_cast(tmp_path: Path) -> None:
    source = HEADER + textwrap.dedent(PRIORS)
    before = import_source(source, tmp_path)["Priors"]()
    after = import_source(rewrite(source, select=("TRT739",), unsafe=True), tmp_path)["Priors"]()
    example, dynamic = (torch.rand(2, 5, 7),), {"x": {0: "batch", 1: "height", 2: "width"}}
    for name, model in (("before", before), ("after", after)):
        result = export_model(model, example, tmp_path / f"{name}.onnx", exporter="torchscript", input_names=["x"],
                              output_names=["out"], dynamic_axes=dynamic, opset=17)
        assert result.error is None, result.error
    ranges = [n for n in onnx.load(tmp_path / "after.onnx").graph.node if n.op_type == "Range"]
    assert len(ranges) == 2
    with pytest.raises(Exception, match=r"tensor\(float16\).*Range"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session = ort.InferenceSession(str(tmp_path / "after.onnx"), providers=["CPUExecutionProvider"])
    for x in (example[0], torch.rand(3, 9, 4), torch.rand(1, 1, 1), -torch.rand(2, 40, 33)):
        [got] = session.run(None, {"x": x.numpy()})
        assert torch.equal(torch.from_numpy(got), before(x)[0])


def test_a_prior_grid_migrates_from_the_recorded_ranges(tmp_path: Path) -> None:
    path = tmp_path / "priors.py"
    path.write_text(HEADER + textwrap.dedent(PRIORS) + textwrap.dedent("""
        def build():
            return Priors()


        def inputs():
            return (torch.rand(2, 5, 7),)
        """))
    report = migrate_json(path, '{"x": {"0": "batch", "1": "height", "2": "width"}}')
    assert report["before"]["faithful"] is False, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT739", 7), ("TRT739", 8)], \
        report["applied"]
    assert all("holds exactly" in fix["proof"] for fix in report["applied"]), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
