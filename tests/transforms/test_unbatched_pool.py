"""TRT325: ``F.max_pool2d``/``F.avg_pool2d``/``F.lp_pool2d``/``F.max_pool3d``/``F.avg_pool3d`` (and
``torch.max_pool2d``/``torch.max_pool3d``) of an unbatched input → ``_trt_unbatched_*``: torch's function
itself outside an ONNX export, the pooling of the input with a batch axis of one added (taken away by index)
while exporting an unbatched input.

What is found: nothing from the code alone, except where the call writes its input's rank
(``x.reshape(b, h, w)``); with a recorded run (the observer's facts, made here in a worker as ``migrate``
makes them), the calls whose input was seen unbatched, not those seen batched; ``return_indices`` and
star-args reported without a fix. The export form against torch's function on real tensors, bit for bit
(kernels, strides, ``None`` strides, padding, dilation, ``ceil_mode``, ``count_include_pad``,
``divisor_override``; zeros, negatives, inf/NaN, empty, half/double, non-contiguous; dtype, shape, strides;
errors); ``torch.jit.script``; the original's TorchScript graph (refused by ONNX Runtime, located as TRT325 by
the graph check) and the rewritten one (runs, eager's values at other sizes); ``migrate`` end to end.
"""

from __future__ import annotations

import io
import itertools
import textwrap
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from support import export_formulation, migrate_json, rewrite, rules_found
from variant_models import load_variant, observed_facts

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.helpers.pooling import (_trt_unbatched_avg_pool2d, _trt_unbatched_avg_pool3d,
                                        _trt_unbatched_lp_pool2d, _trt_unbatched_max_pool2d,
                                        _trt_unbatched_max_pool3d)
from trtcodemod.trt.check import check_graph

HEADER = "import torch\nimport torch.nn.functional as F\n\n\n"
NAN, INF = float("nan"), float("inf")

MODEL = textwrap.dedent('''\
    import torch
    import torch.nn.functional as F
    from torch.nn.functional import max_pool3d as mp3


    def simple_nms(scores, radius: int):
        def max_pool(x):
            return torch.nn.functional.max_pool2d(x, kernel_size=radius * 2 + 1, stride=1, padding=radius)

        zeros = torch.zeros_like(scores)
        keep = scores == max_pool(scores)
        return torch.where(keep, scores, zeros)


    class Model(torch.nn.Module):
        def forward(self, x):
            maps = x.mean(1)
            a = simple_nms(maps, 2)
            b = F.avg_pool2d(maps, 3, None, 1, True, False)
            c = torch.max_pool2d(maps, (2, 3), 1)
            d = F.lp_pool2d(maps, 2.0, 2)
            e = mp3(x, 2, ceil_mode=True)
            f = F.avg_pool3d(x, 3, 1, 1, divisor_override=5)
            g = F.max_pool2d(x, 3, 1, 1)
            h, i = F.max_pool2d(maps, 2, return_indices=True)
            return (a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum() + g.sum() + h.sum()
                    + i.float().sum()).reshape(1)


    def build():
        return Model().eval()


    def inputs(generator):
        return (torch.rand(2, 3, 10, 12, generator=generator),)


    DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
''')

#: fragment of the line -> what the rule writes there (None: reported without a fix; absent: not found)
WANT = {
    "torch.nn.functional.max_pool2d(x, kernel_size": "_trt_unbatched_max_pool2d(x, kernel_size",
    "F.avg_pool2d(maps": "_trt_unbatched_avg_pool2d(maps, 3, None, 1, True, False)",
    "torch.max_pool2d(maps": "_trt_unbatched_max_pool2d(maps, (2, 3), 1)",
    "F.lp_pool2d(maps": "_trt_unbatched_lp_pool2d(maps, 2.0, 2)",
    "mp3(x": "_trt_unbatched_max_pool3d(x, 2, ceil_mode=True)",
    "F.avg_pool3d(x": "_trt_unbatched_avg_pool3d(x, 3, 1, 1, divisor_override=5)",
    "return_indices=True": None,
}


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("unbatched")
    path = folder / "model.py"
    path.write_text(MODEL)
    return path, observed_facts(path, load_variant(path, "trt325_model"), folder / "work")


def _line(fragment: str) -> int:
    [line] = [i for i, text in enumerate(MODEL.splitlines(), 1) if fragment in text]
    return line


def test_nothing_is_found_without_facts() -> None:
    assert rules_found(MODEL, select=("TRT325",)) == []
    assert rules_found(HEADER + "y = F.max_pool2d(x, 3, 1, 1)\n", select=("TRT325",)) == []
    # The code itself writes the rank: a reshape of three sizes, a view of four for a 3-D pooling.
    assert rules_found(HEADER + "y = F.max_pool2d(s.reshape(b, h, w), 3, 1, 1)\n", select=("TRT325",)) == ["TRT325"]
    assert rules_found(HEADER + "y = F.max_pool2d(s.reshape((b, h, w)), 3)\n", select=("TRT325",)) == ["TRT325"]
    assert rules_found(HEADER + "y = F.max_pool2d(s.reshape(b, 1, h, w), 3)\n", select=("TRT325",)) == []
    assert rules_found(HEADER + "y = F.max_pool2d(s.reshape(*size), 3)\n", select=("TRT325",)) == []
    assert rules_found(HEADER + "y = F.avg_pool3d(s.view(c, d, h, w), 2)\n", select=("TRT325",)) == ["TRT325"]
    assert rules_found(HEADER + "y = F.avg_pool3d(s.view(b, h, w), 2)\n", select=("TRT325",)) == []


def test_with_the_runs_facts_the_unbatched_calls_are_found_and_rewritten(observed) -> None:
    path, facts = observed
    options = Options(select=("TRT325",), scope="all", facts=facts)
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    found = {f.line: f for f in findings}
    assert sorted(found) == sorted(_line(fragment) for fragment in WANT), findings
    assert found[_line("return_indices=True")].fix.value == "none"
    assert all(f.fix.value == "safe" for line, f in found.items() if line != _line("return_indices=True"))
    text = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for fragment, want in WANT.items():
        if want is not None:
            assert want in text, (want, text)
    # the batched 2-D pooling of the 4-D input and the call that returns indices are left as they are
    assert "g = F.max_pool2d(x, 3, 1, 1)" in text and "h, i = F.max_pool2d(maps, 2, return_indices=True)" in text
    assert fix_source(text.encode(), str(path.resolve()), options).source.decode() == text  # idempotent


@pytest.mark.parametrize("code", [
    "y = F.max_pool2d(*args, **kwargs)\n",
    "y, i = F.max_pool2d(s.reshape(b, h, w), 2, 2, 0, 1, False, True)\n",
    "y = torch.max_pool3d(s.view(c, d, h, w), 2, return_indices=False)\n",
])
def test_reported_without_a_fix(code: str) -> None:
    source = HEADER + code.replace("*args", "s.reshape(b, h, w), *args")
    assert rules_found(source, select=("TRT325",)) == ["TRT325"]
    assert rewrite(source, select=("TRT325",)) == source


def test_the_users_own_function_is_not_matched() -> None:
    source = "def max_pool2d(x, k):\n    return x\n\n\ny = max_pool2d(s.reshape(b, h, w), 3)\n"
    assert rules_found(source, select=("TRT325",)) == []


def _inputs(spatial: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    shape = (3, 7, 9) if spatial == 2 else (2, 5, 6, 7)
    special = torch.randn(*shape, generator=g)
    flat = special.view(-1)
    flat[1], flat[7], flat[20], flat[33], flat[40] = INF, NAN, -INF, -0.0, INF
    return [
        torch.randn(*shape, generator=g) * 4 - 2,
        torch.zeros(*shape),
        -torch.rand(*shape, generator=g),
        special,
        torch.randn(*shape, generator=g).double(),
        torch.randn(*shape, generator=g).half(),
        torch.randn(*reversed(shape), generator=g).permute(*reversed(range(len(shape)))),  # not contiguous
        torch.zeros(0, *shape[1:]),  # no channels: torch raises, both ways
        torch.randn(1, *shape, generator=g),  # batched: torch's function as it is
    ]


def _outcome(fn, *args, **kwargs) -> object:
    try:
        return fn(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the type is compared
        return error


def _same(expected: object, got: object, what: str) -> None:
    if isinstance(expected, Exception):
        assert type(got) is type(expected), (what, got, expected)
        return
    assert isinstance(got, torch.Tensor), (what, got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, what
    assert got.stride() == expected.stride(), (what, got.stride(), expected.stride())
    assert torch.equal(torch.isnan(got), torch.isnan(expected)), what
    assert torch.equal(torch.nan_to_num(got, nan=0.0), torch.nan_to_num(expected, nan=0.0)), what


@pytest.mark.parametrize("x", _inputs(2), ids=lambda x: f"{tuple(x.shape)}-{x.dtype}")
def test_the_export_form_of_the_2d_pools_is_torchs_bit_for_bit(x: torch.Tensor) -> None:
    for k, s, p, d, ceil in itertools.product([1, 2, 3, (2, 3)], [None, 1, 2, (1, 2)], [0, 1], [1, 2], [False, True]):
        expected = _outcome(F.max_pool2d, x, k, s, p, d, ceil)
        with export_formulation():
            _same(expected, _outcome(_trt_unbatched_max_pool2d, x, k, s, p, d, ceil), str((k, s, p, d, ceil)))
    for k, s, p, ceil, include, divisor in itertools.product([1, 3, (2, 3)], [None, 2], [0, 1], [False, True],
                                                             [False, True], [None, 2]):
        args = (k, s, p, ceil, include, divisor)
        expected = _outcome(F.avg_pool2d, x, *args)
        with export_formulation():
            _same(expected, _outcome(_trt_unbatched_avg_pool2d, x, *args), str(args))
    for norm, k, s, ceil in itertools.product([1, 2.0, 3], [2, (2, 3)], [None, 1], [False, True]):
        expected = _outcome(F.lp_pool2d, x, norm, k, s, ceil)
        with export_formulation():
            _same(expected, _outcome(_trt_unbatched_lp_pool2d, x, norm, k, s, ceil), str((norm, k, s, ceil)))


@pytest.mark.parametrize("x", _inputs(3), ids=lambda x: f"{tuple(x.shape)}-{x.dtype}")
def test_the_export_form_of_the_3d_pools_is_torchs_bit_for_bit(x: torch.Tensor) -> None:
    for k, s, p, d, ceil in itertools.product([1, 2, (1, 2, 3)], [None, 1, 2], [0, 1], [1, 2], [False, True]):
        expected = _outcome(F.max_pool3d, x, k, s, p, d, ceil)
        with export_formulation():
            _same(expected, _outcome(_trt_unbatched_max_pool3d, x, k, s, p, d, ceil), str((k, s, p, d, ceil)))
    for k, s, p, ceil, include, divisor in itertools.product([1, 2, 3], [None, 2], [0, 1], [False, True],
                                                             [False, True], [None, 3]):
        args = (k, s, p, ceil, include, divisor)
        expected = _outcome(F.avg_pool3d, x, *args)
        with export_formulation():
            _same(expected, _outcome(_trt_unbatched_avg_pool3d, x, *args), str(args))


def test_errors_keep_torchs_type() -> None:
    x = torch.randn(2, 5, 5)
    for args in [(0,), (2, 0), (3, 1, 2), (7,), (2, 1, 0, 0)]:  # kernel 0, stride 0, padding over half, too big
        with export_formulation():
            _same(_outcome(F.max_pool2d, x, *args), _outcome(_trt_unbatched_max_pool2d, x, *args), str(args))
    with export_formulation():  # integers: torch decides
        ints = torch.arange(50).reshape(2, 5, 5)
        _same(_outcome(F.max_pool2d, ints, 2), _outcome(_trt_unbatched_max_pool2d, ints, 2), "ints")


def test_outside_an_export_the_helpers_are_torchs_functions() -> None:
    x = torch.randn(3, 8, 8, requires_grad=True)
    for torchs, helper in ((F.max_pool2d, _trt_unbatched_max_pool2d), (F.avg_pool2d, _trt_unbatched_avg_pool2d)):
        want, got = torchs(x, 3, 2, 1), helper(x, 3, 2, 1)
        _same(want, got, helper.__name__)
        assert got.grad_fn.name() == want.grad_fn.name()  # the same op, no unsqueeze/select around it


def test_scripted() -> None:
    def helpers(x, v):
        return (_trt_unbatched_max_pool2d(x, 3, 1, 1), _trt_unbatched_avg_pool2d(x, [3, 3], padding=1),
                _trt_unbatched_avg_pool2d(x, 3, 2, 1, True, False, 2), _trt_unbatched_lp_pool2d(x, 2, 2),
                _trt_unbatched_max_pool3d(v, 2), _trt_unbatched_avg_pool3d(v, 2, None, 1))

    def torchs(x, v):
        return (F.max_pool2d(x, 3, 1, 1), F.avg_pool2d(x, [3, 3], padding=1), F.avg_pool2d(x, 3, 2, 1, True, False, 2),
                F.lp_pool2d(x, 2, 2), F.max_pool3d(v, 2), F.avg_pool3d(v, 2, padding=1))

    x, v = torch.randn(2, 7, 9), torch.randn(2, 4, 5, 6)
    for got, want in zip(torch.jit.script(helpers)(x, v), torchs(x, v)):
        _same(want, got, "scripted")


class _Nms(torch.nn.Module):
    def __init__(self, pool) -> None:
        super().__init__()
        self.pool = pool

    def forward(self, x):
        scores = x.sum(1)
        return torch.where(scores == self.pool(scores, 5, 1, 2), scores, torch.zeros_like(scores))


def _export(model: torch.nn.Module, x: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_original_graph_is_refused_and_the_rewritten_one_runs() -> None:
    x = torch.randn(2, 3, 16, 20)
    before = _export(_Nms(F.max_pool2d), x)
    assert [(issue.op, issue.rule) for issue in check_graph(before)] == [("MaxPool", "TRT325")]
    with pytest.raises(Exception, match="dilations"):
        ort.InferenceSession(before.SerializeToString(), providers=["CPUExecutionProvider"])
    after = _export(_Nms(_trt_unbatched_max_pool2d), x)
    assert check_graph(after) == [] and not any(n.op_type == "Squeeze" for n in after.graph.node)
    session = ort.InferenceSession(after.SerializeToString(), providers=["CPUExecutionProvider"])
    g = torch.Generator().manual_seed(1)
    special = torch.randn(1, 3, 9, 9, generator=g)
    special[0, 0, 2, 2], special[0, 1, 4, 4] = INF, -INF
    for sample in (x, torch.randn(3, 3, 11, 7, generator=g), torch.zeros(2, 3, 5, 5), -torch.rand(1, 3, 6, 8), special):
        [got] = session.run(None, {"x": sample.numpy()})
        want = _Nms(F.max_pool2d)(sample).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


def test_migrate_applies_it_where_the_graph_check_located_the_pooling(tmp_path: Path) -> None:
    path = tmp_path / "nms.py"
    path.write_text(textwrap.dedent('''\
        import torch


        def simple_nms(scores, radius: int):
            def max_pool(x):
                return torch.nn.functional.max_pool2d(x, kernel_size=radius * 2 + 1, stride=1, padding=radius)

            zeros = torch.zeros_like(scores)
            return torch.where(scores == max_pool(scores), scores, zeros)


        class Model(torch.nn.Module):
            def forward(self, x):
                return simple_nms(x, 2)


        def build():
            return Model().eval()


        def inputs():
            return (torch.rand(2, 24, 32),)
    '''))
    report = migrate_json(path, '{"x": {"0": "batch", "1": "height", "2": "width"}}')
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT325", 6)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_unbatched_max_pool2d(x, kernel_size" in report["diff"]


BAKE_BEHIND_THE_POOL = '''\
import torch


def simple_nms(scores, radius: int):
    def max_pool(x):
        return torch.nn.functional.max_pool2d(x, kernel_size=radius * 2 + 1, stride=1, padding=radius)

    return torch.where(scores == max_pool(scores), scores, torch.zeros_like(scores))


class Model(torch.nn.Module):
    def forward(self, x):
        scores = simple_nms(x.mean(1), 1)
        return torch.cat([torch.nonzero(s > 0.5) for s in scores])


def build():
    return Model().eval()


def inputs():
    return (torch.rand(2, 3, 12, 16),)
'''


def test_the_fix_is_not_blamed_for_a_bake_behind_a_pooling_no_graph_of_the_original_ran(tmp_path: Path) -> None:
    """SuperPoint on a batch (zoo 31's sp_superpoint_batch): ONNX Runtime refuses the original's graph at load (the
    unbatched MaxPool), so no graph of it ran on any set; with TRT325 the graph loads and then fails at another batch
    in the per-image loop behind the pooling (a Split of the example's batch). The culprit search named TRT325, the
    only rule applied, and migrate took it back as "breaks equivalence", leaving the MaxPool the graph check
    refuses; now it is kept and the loop named."""
    path = tmp_path / "nms_rows.py"
    path.write_text(BAKE_BEHIND_THE_POOL)
    report = migrate_json(path, '{"x": {"0": "batch", "2": "height", "3": "width"}}')
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT325", 6)], report["reverted"]
    assert not [r for r in report["reverted"] if r["rule"] == "TRT325"], report["reverted"]
    assert report["after"]["trt_errors"] == 0 and report["exit_code"] == 1
    assert any(p["source"].endswith("nms_rows.py:14") for p in report["remaining"]), report["remaining"]
