"""TRT603: ``F.avg_pool1d``/``F.max_pool1d`` → ``_trt_avg_pool1d``/``_trt_max_pool1d`` and the modules
``nn.AvgPool1d``/``nn.MaxPool1d`` → ``_TrtAvgPool1d``/``_TrtMaxPool1d``: torch's function itself outside an
ONNX export, the 2-D pooling of the input with an added axis (taken away by index) while exporting.

The rewrite text and what is left alone (``return_indices``, star-args that may pass it, the user's own
function); the export form against torch's function on real tensors, bit for bit (every kernel, stride,
padding, ``ceil_mode``, ``count_include_pad``, dilation; unbatched, empty, inf/NaN, half/double,
non-contiguous inputs; dtype, shape and strides; gradients; errors); ``torch.jit.script`` with ints and
one-element sequences; the modules' attributes and state; eager runs and toolchains before and after; both
exporters before (1-D pools, named TRT603 by the graph check) and after (2-D pools, no error, eager's values
at other batch sizes and lengths); the real forms of timm, transformers and monai; and ``migrate`` on a model
built like timm's Next-ViT attention (the module built in ``__init__``, the node made where forward calls it).
A pool whose class a factory names at run time (a registry, a class passed in, a ``functools.partial``) is
found only with the run's facts (the observer's ``module_built`` records, made here in-process): the rewrite
text, the modules built before and after (class, attributes, state) and their runs on the same tensors, and
the TorchScript export of the rewritten model (2-D windows, eager's values, the original graph's).
"""

from __future__ import annotations

import functools
import io
import itertools
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, migrate_json, rewrite, rules_found

from trtcodemod.helpers.pooling import _trt_avg_pool1d, _trt_max_pool1d, _TrtAvgPool1d, _TrtMaxPool1d
from trtcodemod.trt.check import check_graph

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


@pytest.mark.parametrize(("code", "want"), [
    ("y = F.avg_pool1d(x, 4, stride=4)\n", "y = _trt_avg_pool1d(x, 4, stride=4)\n"),
    ("y = torch.avg_pool1d(x, 3, 1, 1, True, False)\n", "y = _trt_avg_pool1d(x, 3, 1, 1, True, False)\n"),
    ("y = torch.nn.functional.max_pool1d(x, 3, 2, padding=1)\n", "y = _trt_max_pool1d(x, 3, 2, padding=1)\n"),
    ("y = torch.max_pool1d(x, 2)\n", "y = _trt_max_pool1d(x, 2)\n"),
    ("y = F.avg_pool1d(*args, **kwargs)\n", "y = _trt_avg_pool1d(*args, **kwargs)\n"),
    ("from torch.nn.functional import max_pool1d as mp\ny = mp(x, 2)\n", "y = _trt_max_pool1d(x, 2)\n"),
])
def test_rewrite_text_of_the_functions(code: str, want: str) -> None:
    after = rewrite(HEADER + code, select=("TRT603",))
    assert after.endswith(want), after
    helper = want.split("= ", 1)[1].split("(", 1)[0]
    assert f"def {helper}(input, kernel_size" in after and "class _Trt" not in after
    assert rewrite(after, select=("TRT603",)) == after  # a second pass changes nothing


@pytest.mark.parametrize(("code", "want"), [
    ("m = nn.AvgPool1d(kernel_size=4, stride=4)\n", "m = _TrtAvgPool1d(kernel_size=4, stride=4)\n"),
    ("m = nn.Sequential(torch.nn.MaxPool1d(3, 2, 1))\n", "m = nn.Sequential(_TrtMaxPool1d(3, 2, 1))\n"),
    ("m = nn.MaxPool1d(3, return_indices=False)\n", "m = _TrtMaxPool1d(3, return_indices=False)\n"),
    ("from torch.nn import AvgPool1d as P\nm = P(2)\n", "m = _TrtAvgPool1d(2)\n"),
])
def test_rewrite_text_of_the_modules_is_unsafe(code: str, want: str) -> None:
    source = HEADER + code
    assert rewrite(source, select=("TRT603",)) == source  # not without --unsafe
    after = rewrite(source, select=("TRT603",), unsafe=True)
    assert after.endswith(want), after
    assert "(torch.nn.AvgPool1d):" in after or "(torch.nn.MaxPool1d):" in after


@pytest.mark.parametrize("code", [
    "y, i = F.max_pool1d(x, 2, return_indices=True)\n",
    "y, i = F.max_pool1d(x, 2, 2, 0, 1, False, True)\n",
    "y = F.max_pool1d(*args, **kwargs)\n",  # may pass return_indices
    "m = nn.MaxPool1d(2, 2, 0, 1, True)\n",
    "m = nn.MaxPool1d(2, **kw)\n",
])
def test_reported_without_a_fix(code: str) -> None:
    source = HEADER + code
    assert rules_found(source) == ["TRT603"]
    assert rewrite(source, select=("TRT603",), unsafe=True) == source


@pytest.mark.parametrize("code", [
    "pool = F.avg_pool1d\n",  # a value, not a call
    "def avg_pool1d(x, k):\n    return x\n\n\ny = avg_pool1d(x, 5)\n",  # the project's own
    "y = F.avg_pool2d(x, 2)\n",
    "m = nn.MaxPool2d(2)\n",
    "m = nn.AdaptiveAvgPool1d(4)\n",  # TRT601's
])
def test_left_alone(code: str) -> None:
    source = HEADER + code
    assert "TRT603" not in rules_found(source)
    assert rewrite(source, select=("TRT603",), unsafe=True) == source


def _inputs() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    special = torch.randn(2, 3, 12, generator=g)
    special[0, 0, 1], special[0, 1, 3], special[1, 2, 5], special[1, 0, 0] = float("inf"), float("nan"), \
        -float("inf"), -0.0
    return [
        torch.randn(2, 3, 11, generator=g) * 4 - 2,
        torch.randn(3, 13, generator=g),  # unbatched (C, L)
        torch.zeros(0, 3, 9),  # empty batch
        torch.zeros(2, 3, 10),
        -torch.rand(2, 3, 10, generator=g),
        special,
        torch.randn(2, 4, 10, generator=g).half(),
        torch.randn(2, 4, 10, generator=g).double(),
        torch.randn(4, 2, 9, generator=g).transpose(0, 1),  # not contiguous
    ]


def _same(expected: object, got: object, what: str) -> None:
    if isinstance(expected, Exception):
        assert type(got) is type(expected), what
        return
    assert isinstance(got, torch.Tensor), (what, got)
    assert got.dtype == expected.dtype and got.shape == expected.shape and got.stride() == expected.stride(), what
    assert torch.equal(torch.isnan(got), torch.isnan(expected)), what
    assert torch.equal(torch.nan_to_num(got, nan=0.0), torch.nan_to_num(expected, nan=0.0)), what


def _outcome(fn, *args) -> object:
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - the type is compared
        return error


@pytest.mark.parametrize("x", _inputs(), ids=lambda x: f"{tuple(x.shape)}-{x.dtype}")
def test_the_export_form_of_avg_pool1d_is_torchs_bit_for_bit(x: torch.Tensor) -> None:
    for k, s, p, ceil, include in itertools.product([1, 2, 3, 4], [None, 1, 2, 3], [0, 1, 2], [False, True],
                                                    [False, True]):
        args = (k, s, p, ceil, include)
        expected = _outcome(F.avg_pool1d, x, *args)
        with export_formulation():
            got = _outcome(_trt_avg_pool1d, x, *args)
        _same(expected, got, str(args))
        if not isinstance(expected, Exception):
            assert not isinstance(_outcome(F.avg_pool1d, x, (k,), (s or k,), (p,), ceil, include), Exception)


@pytest.mark.parametrize("x", _inputs(), ids=lambda x: f"{tuple(x.shape)}-{x.dtype}")
def test_the_export_form_of_max_pool1d_is_torchs_bit_for_bit(x: torch.Tensor) -> None:
    for k, s, p, d, ceil in itertools.product([1, 2, 3, 4], [None, 1, 2, 3], [0, 1, 2], [1, 2], [False, True]):
        args = (k, s, p, d, ceil)
        expected = _outcome(F.max_pool1d, x, *args)
        with export_formulation():
            got = _outcome(_trt_max_pool1d, x, *args)
        _same(expected, got, str(args))
    with export_formulation():  # sequences of one, as the modules keep them
        _same(F.max_pool1d(x, (3,), (2,), (1,), (1,)), _trt_max_pool1d(x, (3,), (2,), (1,), (1,)), "tuples")
        _same(F.avg_pool1d(x, [3], [], [1]), _trt_avg_pool1d(x, [3], [], [1]), "lists")


def test_errors_and_other_inputs_keep_torchs() -> None:
    bad = [
        (torch.randn(2, 3, 4, 5), (2,)),  # 4-D
        (torch.randn(2, 3, 4), (2, 0)),  # stride 0
        (torch.randn(2, 3, 4), (2, 1, 2)),  # padding over half the kernel
        (torch.randn(2, 3, 2), (5,)),  # kernel past the input: torch's 2-D check words it otherwise
        (torch.arange(24).reshape(2, 3, 4), (2,)),  # integers: torch decides
    ]
    for x, args in bad:
        same_words = x.shape[-1] >= args[0]
        for fn, helper in ((F.avg_pool1d, _trt_avg_pool1d), (F.max_pool1d, _trt_max_pool1d)):
            expected = _outcome(fn, x, *args)
            with export_formulation():
                got = _outcome(helper, x, *args)
            if isinstance(expected, Exception):
                assert type(got) is type(expected) and (str(got) == str(expected) or not same_words), (args, got)
            else:
                _same(expected, got, str(args))


def test_gradients_of_the_export_form_are_torchs() -> None:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 12, dtype=torch.float64, generator=g)
    x[0, 0, 2] = x[0, 0, 3]  # a tie: max pooling sends the gradient to one index
    for fn, helper, args in ((F.avg_pool1d, _trt_avg_pool1d, (3, 2, 1, True, False)),
                             (F.max_pool1d, _trt_max_pool1d, (2, 1, 1, 1, True))):
        weight = torch.randn(fn(x, *args).shape, dtype=torch.float64, generator=g)
        a = x.clone().requires_grad_()
        (fn(a, *args) * weight).sum().backward()
        b = x.clone().requires_grad_()
        with export_formulation():
            (helper(b, *args) * weight).sum().backward()
        assert torch.equal(a.grad, b.grad), fn.__name__


class _Calls(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.avg, self.max = _TrtAvgPool1d(3, 2, 1, True, False), _TrtMaxPool1d(3, None, 1, 2)

    def forward(self, x):
        return (self.avg(x).sum() + self.max(x).sum() + _trt_avg_pool1d(x, 3).sum() + _trt_avg_pool1d(x, [2], [1], 1).sum()
                + _trt_max_pool1d(x, 2, 1).sum() + _trt_max_pool1d(x, (2,), padding=(1,)).sum())


def test_the_helpers_and_modules_script_with_ints_and_sequences() -> None:
    x = torch.randn(2, 3, 10)
    model = _Calls()
    assert torch.equal(torch.jit.script(model)(x), model(x))


@pytest.mark.parametrize(("ours", "theirs"), [
    (_TrtAvgPool1d(4, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
     torch.nn.AvgPool1d(4, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    (_TrtMaxPool1d(3, padding=1, dilation=2), torch.nn.MaxPool1d(3, padding=1, dilation=2)),
])
def test_the_modules_keep_the_original_attributes_and_state(ours: torch.nn.Module, theirs: torch.nn.Module) -> None:
    assert isinstance(ours, type(theirs)) and ours.extra_repr() == theirs.extra_repr()
    assert ours.__dict__.keys() == theirs.__dict__.keys() and ours.state_dict().keys() == theirs.state_dict().keys()
    x = torch.randn(2, 5, 17)
    assert torch.equal(ours(x), theirs(x)) and torch.equal(torch.jit.script(ours)(x), theirs(x))


# --- a model built like timm's Next-ViT attention ----------------------------------------------------------

TOKENS = """\
import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    # timm's nextvit.E_MHSA: keys and values from tokens pooled by sr_ratio**2 (nextvit.py:286, :297).

    def __init__(self) -> None:
        super().__init__()
        self.q, self.kv = nn.Linear(8, 8), nn.Linear(8, 16)
        self.sr = nn.AvgPool1d(kernel_size=4, stride=4)
        self.norm = nn.BatchNorm1d(8)

    def forward(self, x):
        q = self.q(x)
        pooled = self.norm(self.sr(x.transpose(1, 2))).transpose(1, 2)
        k, v = self.kv(pooled).chunk(2, dim=-1)
        attn = (q @ k.transpose(1, 2)).softmax(-1)
        peak = F.max_pool1d(x.transpose(1, 2), 3, 2, 1).amax(-1)
        return attn @ v + peak[:, None, :]


def build():
    torch.manual_seed(0)
    return Attention().eval()


def inputs(generator):
    return (torch.rand(2, 16, 8, generator=generator),)
"""


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("pool_1d")
    after = rewrite(TOKENS, select=("TRT603",), unsafe=True)
    assert "self.sr = _TrtAvgPool1d(kernel_size=4, stride=4)" in after
    assert "peak = _trt_max_pool1d(x.transpose(1, 2), 3, 2, 1).amax(-1)" in after
    return import_source(TOKENS, folder), import_source(after, folder)


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> bytes:
    axes = {"x": {0: "n", 1: "tokens"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_axes=axes,
                                     verbose=False).model_proto.SerializeToString()
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes=axes, verbose=True)
        return buffer.getvalue()


def test_eager_runs_and_toolchains_are_unchanged(tokens: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = tokens
    for shape in [(2, 16, 8), (3, 20, 8), (0, 16, 8)]:
        x = torch.rand(shape)
        assert_same_run(run_once(before["build"](), [x]), run_once(after["build"](), [x]), context=str(shape))
    x = torch.rand(3, 16, 8)
    torch.manual_seed(0)
    outcomes_before = toolchain_outcomes(lambda: before["build"](), [x], tmp_path)
    outcomes_after = toolchain_outcomes(lambda: after["build"](), [x], tmp_path)
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def test_the_original_graph_pools_1d_windows_that_the_check_names_trt603(tokens: tuple[dict, dict]) -> None:
    before, _ = tokens
    graph = onnx.load_from_string(_export(before["build"](), torch.rand(2, 16, 8), dynamo=False))
    issues = [i for i in check_graph(graph) if i.op in ("AveragePool", "MaxPool")]
    assert sorted(i.op for i in issues) == ["AveragePool", "MaxPool"] and {i.rule for i in issues} == {"TRT603"}
    assert all("1-D pooling" in i.reason for i in issues)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_pools_2d_windows_and_equals_eager(tokens: tuple[dict, dict], dynamo: bool) -> None:
    _, after = tokens
    model = after["build"]()
    data = _export(model, torch.rand(2, 16, 8), dynamo)
    graph = onnx.load_from_string(data)
    pools = [n for n in graph.graph.node if n.op_type in ("AveragePool", "MaxPool")]
    assert len(pools) == 2 and "If" not in {n.op_type for n in graph.graph.node}
    assert all(len(onnx.helper.get_attribute_value(a)) == 2 for n in pools for a in n.attribute
               if a.name == "kernel_shape")
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for shape in [(1, 16, 8), (3, 24, 8), (2, 40, 8)]:
        x = torch.rand(shape) * 4 - 2
        x[0, 1, 0] = float("inf")
        with torch.no_grad():
            expected = model(x).numpy()
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=str(shape))


def test_migrate_fixes_the_module_where_it_is_built_and_the_call(tmp_path: Path) -> None:
    model = tmp_path / "tokens.py"
    model.write_text(TOKENS)
    report = migrate_json(model, '{"x": {"0": "n", "1": "tokens"}}')
    assert report["before"]["trt_errors_by_op"] == {"AveragePool": 1, "MaxPool": 1}
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    lines = TOKENS.splitlines()
    built = next(i for i, line in enumerate(lines, 1) if "nn.AvgPool1d(" in line)
    called = next(i for i, line in enumerate(lines, 1) if "F.max_pool1d(" in line)
    assert applied == [("TRT603", built), ("TRT603", called)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["trt_errors"] == 0


# --- the real forms ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("where", "code", "want", "unsafe"), [
    ("timm/models/nextvit.py:286", "self.sr = nn.AvgPool1d(kernel_size=self.N_ratio, stride=self.N_ratio)\n",
     "self.sr = _TrtAvgPool1d(kernel_size=self.N_ratio, stride=self.N_ratio)\n", True),
    ("transformers/models/sew/modeling_sew.py:411",
     "self.pool = nn.AvgPool1d(config.squeeze_factor, config.squeeze_factor)\n",
     "self.pool = _TrtAvgPool1d(config.squeeze_factor, config.squeeze_factor)\n", True),
    ("transformers/models/sew/modeling_sew.py:433",
     "m = nn.functional.max_pool1d(\n    attention_mask.float().unsqueeze(1),\n"
     "    kernel_size=self.config.squeeze_factor,\n    stride=self.config.squeeze_factor,\n)\n",
     "m = _trt_max_pool1d(\n    attention_mask.float().unsqueeze(1),\n"
     "    kernel_size=self.config.squeeze_factor,\n    stride=self.config.squeeze_factor,\n)\n", False),
    ("transformers/models/informer/modeling_informer.py:622",
     "self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)\n",
     "self.maxPool = _TrtMaxPool1d(kernel_size=3, stride=2, padding=1)\n", True),
    ("transformers/models/canine/modeling_canine.py:797",
     "p = torch.nn.MaxPool1d(kernel_size=rate, stride=rate)(\n    mask.float()\n)\n",
     "p = _TrtMaxPool1d(kernel_size=rate, stride=rate)(\n    mask.float()\n)\n", True),
    ("transformers/models/nemotron3_diarization/modeling_nemotron3_diarization.py:122",
     "probs = nn.functional.avg_pool1d(logits.sigmoid().transpose(1, 2), factor, factor).transpose(1, 2)\n",
     "probs = _trt_avg_pool1d(logits.sigmoid().transpose(1, 2), factor, factor).transpose(1, 2)\n", False),
    ("monai/transforms/intensity/array.py:2612",
     "noise = torch.nn.AvgPool1d(self.kernel_size, stride=1)(noise.unsqueeze(0)).squeeze()\n",
     "noise = _TrtAvgPool1d(self.kernel_size, stride=1)(noise.unsqueeze(0)).squeeze()\n", True),
])
def test_the_real_forms(where: str, code: str, want: str, unsafe: bool) -> None:
    source = HEADER + code
    assert rules_found(source, select=("TRT603",)) == ["TRT603"], where
    if unsafe:
        assert rewrite(source, select=("TRT603",)) == source, where
    assert rewrite(source, select=("TRT603",), unsafe=unsafe).endswith(want), where


@pytest.mark.parametrize(("kernel", "stride", "padding", "x"), [
    (4, 4, 0, torch.rand(2, 8, 64)),  # Next-ViT: sr_ratio 2, tokens of a 8x8 map
    (2, 2, 0, torch.rand(1, 16, 9)),  # Qwen2-Audio / Voxtral's avg_pooler over an odd length
    (5, 1, 0, torch.rand(1, 40, dtype=torch.float64)),  # monai: a 2-D (1, L) float64 noise
])
def test_the_real_forms_compute_torchs_values_in_the_export_form(kernel: int, stride: int, padding: int,
                                                                x: torch.Tensor) -> None:
    theirs = torch.nn.AvgPool1d(kernel, stride=stride, padding=padding)
    ours = _TrtAvgPool1d(kernel, stride=stride, padding=padding)
    with export_formulation():
        _same(theirs(x), ours(x), str((kernel, stride)))


# --- a pool whose class a factory names at run time (the run says which call built it) ---------------------------

FACTORY = """\
import functools

import torch
from torch import nn

POOLS = {"max": nn.MaxPool1d, "avg": nn.AvgPool1d, "max2d": nn.MaxPool2d}


def make_pool(kind, *args, **kwargs):
    return POOLS[kind](*args, **kwargs)


class Net(nn.Module):
    def __init__(self, kind, *args, **kwargs):
        super().__init__()
        self.pool = make_pool(kind, *args, **kwargs)

    def forward(self, x):
        return self.pool(x)


class Passed(nn.Module):
    def __init__(self, pool_cls, **kwargs):
        super().__init__()
        self.pool = pool_cls(**kwargs)

    def forward(self, x):
        return self.pool(x)
"""

#: How the models are built in the tests below: (class, its arguments, its keywords).
BUILDS = [
    ("Net", ("max", 3, 2), {}),
    ("Net", ("max", 3), {"padding": 1, "ceil_mode": True, "dilation": 2}),
    ("Net", ("avg", 4), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ("Net", ("max", 2), {"return_indices": True}),
    ("Net", ("max2d", 2), {}),
    ("Passed", (functools.partial(torch.nn.MaxPool1d, 2, stride=1),), {}),
    ("Passed", (torch.nn.AvgPool1d,), {"kernel_size": 3}),
    ("Passed", (torch.nn.MaxPool2d,), {"kernel_size": 2}),
]


def _observed_builds(path: Path, builds: list) -> "Facts":
    """The facts migrate's observer records while the models of ``builds`` are built from ``path``."""
    from trtcodemod.evidence.facts import Facts
    from trtcodemod.migrate.observe import Builds, Recorder
    from trtcodemod.usercode import UserFiles

    namespace = import_source_at(path)
    recorder = Recorder(UserFiles([str(path.parent)]))
    with Builds(recorder).building():
        for name, args, kwargs in builds:
            namespace[name](*args, **kwargs)
    return Facts.from_json({"events": list(recorder.events.values()), "lines": {}})


def import_source_at(path: Path) -> dict:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"factory_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.__dict__


def _factory_rewrite(tmp_path: Path, builds: list, unsafe: bool = True) -> tuple[Path, str]:
    from trtcodemod.engine import Options, fix_source

    path = tmp_path / "factory_model.py"
    path.write_text(FACTORY)
    facts = _observed_builds(path, builds)
    options = Options(select=("TRT603",), unsafe=unsafe, scope="all", facts=facts)
    return path, fix_source(path.read_bytes(), str(path), options).source.decode()


def test_a_pool_a_factory_builds_is_fixed_where_it_is_built_with_the_run_only(tmp_path: Path) -> None:
    # The code alone names no 1-D pool at a call: nothing to find without the run.
    assert "TRT603" not in rules_found(FACTORY)
    path, after = _factory_rewrite(tmp_path, BUILDS)
    assert "    return _trt_pool_class(POOLS[kind])(*args, **kwargs)\n" in after
    assert "        self.pool = _trt_pool_class(pool_cls)(**kwargs)\n" in after
    assert "def _trt_pool_class(cls):" in after and "class _TrtMaxPool1d(torch.nn.MaxPool1d):" in after
    # Unsafe, as TRT603's module fix: without --unsafe nothing changes; a second pass changes nothing.
    assert _factory_rewrite(tmp_path, BUILDS, unsafe=False)[1] == FACTORY
    from trtcodemod.engine import Options, fix_source

    again = fix_source(after.encode(), str(path), Options(select=("TRT603",), unsafe=True, scope="all"))
    assert again.source.decode() == after


def test_a_call_seen_building_other_classes_only_is_left_alone(tmp_path: Path) -> None:
    _, after = _factory_rewrite(tmp_path, [("Net", ("max2d", 2), {}), ("Passed", (torch.nn.AvgPool2d,),
                                                                          {"kernel_size": 2})])
    assert after == FACTORY


def _same_result(expected: object, got: object, what: str) -> None:
    if isinstance(expected, tuple):  # return_indices: values and indices
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for one, other in zip(expected, got):
            _same(one, other, what)
        return
    _same(expected, got, what)


@pytest.mark.parametrize(("name", "args", "kwargs"), BUILDS, ids=lambda v: repr(v)[:40])
def test_the_factory_rewrite_builds_the_same_modules_and_runs_as_before(tmp_path: Path, name: str, args: tuple,
                                                                       kwargs: dict) -> None:
    path, after = _factory_rewrite(tmp_path, BUILDS)
    fixed = tmp_path / "factory_fixed.py"
    fixed.write_text(after)
    old, new = import_source_at(path)[name](*args, **kwargs), import_source_at(fixed)[name](*args, **kwargs)
    # The same module: attributes, state_dict keys, the class or its subclass (a 1-D pool without indices only).
    assert isinstance(new.pool, type(old.pool)) and new.pool.__dict__.keys() == old.pool.__dict__.keys()
    assert new.state_dict().keys() == old.state_dict().keys() and new.pool.extra_repr() == old.pool.extra_repr()
    one_d = type(old.pool) in (torch.nn.MaxPool1d, torch.nn.AvgPool1d) and not getattr(old.pool, "return_indices",
                                                                                          False)
    assert (type(new.pool).__name__ == f"_Trt{type(old.pool).__name__}") if one_d else type(new.pool) is type(old.pool)
    for x in _inputs():
        _same_result(_outcome(old, x), _outcome(new, x), f"{name}{args} {tuple(x.shape)} {x.dtype}")
    x = torch.randn(2, 3, 12)
    if not getattr(old.pool, "return_indices", False):
        assert torch.equal(torch.jit.script(new)(x), torch.jit.script(old)(x))


def _export_signal(model: torch.nn.Module, x: torch.Tensor) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n", 2: "length"}})
    return buffer.getvalue()


@pytest.mark.parametrize("which", [0, 2, 5], ids=["max", "avg", "partial"])
def test_the_factory_built_pool_exports_2d_windows_equal_to_eager(tmp_path: Path, which: int) -> None:
    """The TorchScript exporter, which migrate's verifier runs (the subclasses' dynamo export is tested above)."""
    path, after = _factory_rewrite(tmp_path, BUILDS)
    fixed = tmp_path / "factory_fixed.py"
    fixed.write_text(after)
    name, args, kwargs = BUILDS[which]
    original, model = import_source_at(path)[name](*args, **kwargs), import_source_at(fixed)[name](*args, **kwargs)
    sessions = {}
    for side, built in (("before", original), ("after", model)):
        data = _export_signal(built, torch.randn(2, 3, 12))
        graph = onnx.load_from_string(data)
        kernels = [onnx.helper.get_attribute_value(a) for n in graph.graph.node
                   if n.op_type in ("AveragePool", "MaxPool") for a in n.attribute if a.name == "kernel_shape"]
        errors = [i for i in check_graph(graph) if i.severity == "error"]
        # Before: one 1-D window, which TensorRT refuses (TRT603); after: the 2-D window (1, k), no error.
        assert [len(k) for k in kernels] == [1 if side == "before" else 2], (side, kernels)
        assert [i.rule for i in errors] == (["TRT603"] if side == "before" else []), (side, errors)
        sessions[side] = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    g = torch.Generator().manual_seed(3)
    special = torch.randn(2, 3, 15, generator=g)
    special[0, 0, 1], special[1, 2, 5] = float("inf"), -float("inf")
    nan = special.clone()
    nan[0, 1, 3] = float("nan")
    # A NaN: ONNX Runtime's MaxPool kernels each treat one their own way (the 1-D one skips it, the 2-D one
    # keeps it at some positions only), neither as torch: compared for the average pool only.
    averaging = "avg" in args or torch.nn.AvgPool1d in args
    for x in [torch.randn(1, 3, 9, generator=g), torch.zeros(3, 3, 20), -torch.rand(2, 3, 16, generator=g) - 1,
              special, *([nan] if averaging else []), torch.zeros(0, 3, 12)]:
        feed = {"x": x.numpy()}
        got, before = sessions["after"].run(None, feed)[0], sessions["before"].run(None, feed)[0]
        with torch.no_grad():
            expected = model(x).numpy()
        assert got.shape == expected.shape == before.shape
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, equal_nan=True, err_msg=str(tuple(x.shape)))
        np.testing.assert_allclose(before, expected, rtol=1e-6, atol=1e-6, equal_nan=True)
