"""Issue 30: a pre-NMS selection whose K is capped at run time (``k = min(cap, n)`` through a
local name, ``if 0 < cap < n:`` guards around a top-k or a sort) migrates to a graph with no
TopK over TensorRT's limit and the same selection for n below, at and above the cap.

The real variants are the models under ``tests/topk_variants/`` (each cites its source).
"""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import TESTS, assert_same, export_formulation, rewrite, rules_found
from trtcodemod.helpers.detection import _trt_sort_guarded, _trt_topk_guard, _trt_topk_guarded
from trtcodemod.trt.check import check_graph

HEADER = "import torch\nfrom torch import nn\n\n"
VARIANTS = TESTS / "topk_variants"
CAP = 5000
INF, NAN = float("inf"), float("nan")
#: variant -> its inputs' names (all share the candidate axis 0)
NAMES = {
    "mmdet3d_point_rpn": ("obj_scores", "bbox"),
    "mmdet3d_anchor3d": ("scores", "priors", "bbox_pred", "dir_cls_score"),
    "mmrotate_reppoints": ("scores", "points", "points_pred"),
    "mmrotate_csl_retina": ("scores", "anchors", "bbox_pred", "angle_cls"),
    "mmrotate_rpn_sort": ("scores", "rpn_bbox_pred", "anchors"),
    "openpcdet_nms": ("box_scores", "box_preds"),
}


def _found(body: str) -> list[str]:
    return rules_found(HEADER + body, select=("TRT803", "TRT804"))


# --- findings and rewrites --------------------------------------------------------------------

GUARDS = {
    "chain": ("if 0 < nms_pre < s.shape[0]:", "if 0 < nms_pre and _trt_topk_guard(nms_pre, s.shape[0]):"),
    "and": ("if nms_pre > 0 and s.shape[0] > nms_pre:", "if nms_pre > 0 and _trt_topk_guard(nms_pre, s.shape[0]):"),
    "size first": ("if s.shape[0] > nms_pre > 0:", "if _trt_topk_guard(nms_pre, s.shape[0]) and nms_pre > 0:"),
    "alone": ("if s.size(0) > nms_pre:", "if _trt_topk_guard(nms_pre, s.size(0)):"),
}


@pytest.mark.parametrize("form", sorted(GUARDS))
def test_guard_forms_are_rewritten(form: str) -> None:
    test, new_test = GUARDS[form]
    body = (f"def f(s, b, nms_pre=5000):\n    {test}\n        m, _ = s.max(dim=1)\n"
            "        _, inds = m.topk(nms_pre)\n        b = b[inds, :]\n        s = s[inds]\n    return s, b\n")
    assert _found(body) == ["TRT803"]  # TRT804 leaves the guarded top-k to TRT803's fix
    assert rewrite(HEADER + body, select=("TRT803",)) == HEADER + body  # unsafe: needs --unsafe
    after = rewrite(HEADER + body, unsafe=True, select=("TRT803", "TRT804"))
    assert f"    {new_test}\n" in after and "_, inds = _trt_topk_guarded(m, nms_pre)\n" in after
    assert after.count("def _trt_topk_guard(") == 1 and "def _trt_sort_guarded(" not in after
    assert rewrite(after, unsafe=True, select=("TRT803", "TRT804")) == after
    compile(after, "after.py", "exec")


def test_local_k_with_a_stable_cap_is_rewritten() -> None:
    body = ("class H(nn.Module):\n    def forward(self, s):\n        k = min(self.pre_top_k, s.shape[0])\n"
            "        scores, idx = s.topk(k)\n        return scores, idx\n")
    after = rewrite(HEADER + body, unsafe=True, select=("TRT803",))
    assert "        scores, idx = _trt_topk_capped(s, k, self.pre_top_k, 0)\n" in after
    assert "        k = min(self.pre_top_k, s.shape[0])\n" in after


@pytest.mark.parametrize("body", [
    # the cap changes between the min and the top-k
    "class H(nn.Module):\n    def forward(self, s):\n        k = min(self.cap, s.shape[0])\n"
    "        self.cap = 7\n        return s.topk(k)\n",
    "def f(s, cap):\n    k = min(cap, s.shape[0])\n    cap = cap + 1\n    return s.topk(k)\n",
    # a guard whose block does more than select, or has an else
    "def f(s, cap, seen):\n    if 0 < cap < s.shape[0]:\n        _, i = s.topk(cap)\n        seen.append(i)\n"
    "        s = s[i]\n    return s\n",
    "def f(s, cap):\n    if 0 < cap < s.shape[0]:\n        _, i = s.topk(cap)\n        s = s[i]\n"
    "    else:\n        s = s * 2\n    return s\n",
    # a sort read otherwise than through [:cap]
    "def f(s, cap):\n    if 0 < cap < s.shape[0]:\n        v, i = s.sort(descending=True)\n        s = v[:cap]\n"
    "    return s, i\n",
    # smallest entries
    "def f(s, cap):\n    if 0 < cap < s.shape[0]:\n        _, i = s.topk(cap, largest=False)\n        s = s[i]\n"
    "    return s\n",
])
def test_reported_without_a_fix(body: str) -> None:
    assert "TRT803" in _found(body)
    after = rewrite(HEADER + body, unsafe=True, select=("TRT803",))
    assert "_trt_topk_guarded(" not in after and "_trt_sort_guarded(" not in after
    assert "_trt_topk_capped(" not in after


@pytest.mark.parametrize("body", [
    "def f(s, cap):\n    if cap < s.shape[0] or cap < 0:\n        _, i = s.topk(cap)\n        s = s[i]\n    return s\n",
    "def f(s, cap):\n    if cap < s.shape[0]:\n        _, i = s.topk(10)\n        s = s[i]\n    return s\n",
    "def f(s, cap):\n    if cap < s.shape[0]:\n        s = s[:cap]\n    return s\n",
    "def f(s, cap, t):\n    if cap < t:\n        _, i = s.topk(cap)\n        s = s[i]\n    return s\n",
])
def test_guard_look_alikes_are_not_reported(body: str) -> None:
    assert "TRT803" not in _found(body)


# --- the helpers on tensors: eager is the original; the export formulation selects the same -------


def _original(x: torch.Tensor, cap: int, sort: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """What ``if 0 < cap < n: select`` keeps (values, indices): every entry in order otherwise."""
    if 0 < cap < x.shape[0]:
        if sort:
            v, i = x.sort(descending=True)
            return v[:cap], i[:cap]
        return tuple(x.topk(cap))  # type: ignore[return-value]
    return x, torch.arange(x.shape[0])


def _guarded(x: torch.Tensor, cap: int, sort: bool) -> tuple[torch.Tensor, torch.Tensor]:
    if 0 < cap and _trt_topk_guard(cap, x.shape[0]):
        if sort:
            v, i = _trt_sort_guarded(x, cap, descending=True)
            return v[:cap], i[:cap]
        return tuple(_trt_topk_guarded(x, cap))  # type: ignore[return-value]
    return x, torch.arange(x.shape[0])


def _scores(n: int, kind: str) -> torch.Tensor:
    g = torch.Generator().manual_seed(n)
    if kind == "distinct":
        return torch.randperm(n, generator=g).float() / max(n, 1)
    x = torch.randn(n, generator=g)
    if kind == "ties":
        return torch.round(x * 2)
    x[::3] = -INF
    x[1::7] = NAN
    x[2::11] = INF
    return x


@pytest.mark.parametrize("n", [0, 1, 10, 3839, 3840, CAP - 1, CAP, CAP + 1, 9000])
@pytest.mark.parametrize("sort", [False, True], ids=["topk", "sort"])
def test_export_formulation_selects_what_the_guard_selects(n: int, sort: bool) -> None:
    for kind in ("distinct", "ties", "edges"):
        x = _scores(n, kind)
        expected = _original(x, CAP, sort)
        assert_same(expected, _guarded(x, CAP, sort))  # eager: the original calls
        with export_formulation():
            values, indices = _guarded(x, CAP, sort)
        assert indices.dtype == torch.int64 and values.dtype == x.dtype and values.shape == expected[0].shape
        torch.testing.assert_close(values, expected[0], atol=0, rtol=0, equal_nan=True)
        assert_same(x[indices], values)  # the input's own entries, bit for bit
        if n <= CAP or kind == "distinct":
            assert torch.equal(indices, expected[1])  # every entry in order; or no tie to order
        else:
            assert len(set(indices.tolist())) == CAP


def test_export_formulation_is_used_and_keeps_topk_below_the_limit() -> None:
    calls: list[int] = []
    real = torch.topk

    def spy(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    torch.topk = spy
    try:
        with export_formulation():
            assert _trt_topk_guard(CAP, 10) is True
            _trt_topk_guarded(torch.randn(6000), CAP)
    finally:
        torch.topk = real
    assert _trt_topk_guard(CAP, 10) is False and _trt_topk_guard(0, 10) is True
    assert calls and max(calls) < 3840 and sum(calls) == CAP


def test_guarded_helpers_keep_gradients_and_errors() -> None:
    x1 = torch.randn(40, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_(True)
    (x1.topk(7).values * torch.arange(7.0)).sum().backward()
    (_trt_topk_guarded(x2, 7).values * torch.arange(7.0)).sum().backward()
    assert torch.equal(x1.grad, x2.grad)
    for fn in (torch.topk, _trt_topk_guarded):
        with pytest.raises(RuntimeError):
            fn(torch.randn(3), 5)
    assert_same(tuple(torch.sort(x1, descending=True)), tuple(_trt_sort_guarded(x1, 7, descending=True)))


def test_scripted_rewrite_runs_the_original() -> None:
    src = HEADER + ("class M(nn.Module):\n    def forward(self, s: torch.Tensor, nms_pre: int):\n"
                    "        if 0 < nms_pre < s.shape[0]:\n            _, i = s.topk(nms_pre)\n            s = s[i]\n"
                    "        return s\n")
    after = rewrite(src, unsafe=True, select=("TRT803",))
    from safety import import_source

    with tempfile.TemporaryDirectory() as folder:
        before_m = torch.jit.script(import_source(src, Path(folder))["M"]())
        after_m = torch.jit.script(import_source(after, Path(folder))["M"]())
        for n, cap in ((10, 4), (3, 4), (0, 4), (10, 0)):
            x = _scores(n, "ties")
            assert_same(before_m(x, cap), after_m(x, cap))


# --- the real variants: rewritten, exported with both exporters, checked at every target ------------


def _load(path: Path, name: str) -> Any:
    """Import a variant file as module ``name`` (its folder on the path for ``_sizes``)."""
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    """Each variant's module before and after `apply --unsafe --select TRT803`."""
    folder = tmp_path_factory.mktemp("variants")
    shutil.copy(VARIANTS / "_sizes.py", folder / "_sizes.py")
    out = {}
    for name in NAMES:
        source = (VARIANTS / f"{name}.py").read_text()
        after = rewrite(source, unsafe=True, select=("TRT803",))
        assert after != source, name
        (folder / f"{name}_after.py").write_text(after)
        out[name] = (_load(VARIANTS / f"{name}.py", f"{name}_before"),
                     _load(folder / f"{name}_after.py", f"{name}_after"))
    return out


def _inputs(module: Any, n: int, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """The variant's inputs with ``n`` candidates (its own generator gives 6000, 3000 or 5000)."""
    g = torch.Generator().manual_seed(seed)
    full = module.inputs(g)
    return tuple(t[torch.arange(n) % t.shape[0]] if n else t[:0] for t in full)


def _export(model: torch.nn.Module, args: tuple, names: tuple[str, ...], dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            shapes = tuple({0: torch.export.Dim.AUTO} for _ in args)
            return torch.onnx.export(model, args, dynamo=True, input_names=list(names), verbose=False,
                                     dynamic_shapes=shapes).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=list(names),
                          dynamic_axes={name: {0: "n"} for name in names})
        return onnx.load_from_string(buffer.getvalue())


def _run(model: onnx.ModelProto, args: tuple, names: tuple[str, ...]) -> list[np.ndarray] | Exception:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}
    try:
        return session.run(None, feed)
    except Exception as error:  # noqa: BLE001 - the original graph fails on small inputs
        return error


def _same(eager: Any, outputs: list[np.ndarray] | Exception) -> bool:
    if isinstance(outputs, Exception):
        return False
    flat = list(eager) if isinstance(eager, (tuple, list)) else [eager]
    return len(flat) == len(outputs) and all(
        e.shape == tuple(o.shape) and np.array_equal(e.numpy(), o, equal_nan=True) for e, o in zip(flat, outputs))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("name", sorted(NAMES))
def test_variant_exports_with_no_topk_over_the_limit_and_the_same_selection(
        rewritten: dict[str, tuple[Any, Any]], name: str, dynamo: bool) -> None:
    before, after = rewritten[name]
    names = NAMES[name]
    traced = _inputs(before, 6000)
    original = before.build().eval()
    graph = _export(after.build().eval(), traced, names, dynamo)
    for target in ("8.4", "8.6", "10.x"):
        errors = [(i.op, i.message) for i in check_graph(graph, target) if i.severity == "error"]
        assert errors == [], (target, errors)
    assert not [i for i in check_graph(graph, "10.x") if i.op == "TopK"]
    for n in (0, 10, 3839, 3840, CAP, CAP + 1, 7000):
        args = _inputs(before, n, seed=n)
        with torch.no_grad():
            eager = original(*args)
        assert _same(eager, _run(graph, args, names)), (name, n)


def test_the_original_variants_do_not_deploy(rewritten: dict[str, tuple[Any, Any]]) -> None:
    """What the rewrite removes: each original TorchScript graph, traced above the cap, has a TopK
    TensorRT rejects or gives other results than the model at some size."""
    for name, (before, _) in rewritten.items():
        names = NAMES[name]
        graph = _export(before.build().eval(), _inputs(before, 6000), names, False)
        rejected = any(i.op == "TopK" and i.severity == "error" for i in check_graph(graph, "10.x"))
        wrong = []
        for n in (3000, CAP):
            args = _inputs(before, n, seed=n)
            with torch.no_grad():
                wrong.append(not _same(before.build().eval()(*args), _run(graph, args, names)))
        assert rejected or any(wrong), name


# --- migrate, end to end, on the variants ----------------------------------------------------------


@pytest.fixture(scope="module")
def migrated() -> dict[str, dict[str, Any]]:
    from support import invoke

    result = invoke("migrate", "--config", str(VARIANTS / "variants.toml"), "--no-cache", "--jobs", "2",
                    "--format", "json", "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    data = json.loads(result.stdout)
    return {m["name"]: m for m in data["models"]}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_migrate_makes_each_variant_tensorrt_clean_and_equivalent(migrated: dict[str, dict[str, Any]],
                                                                  name: str) -> None:
    r = migrated[name]
    # before: the traced graph gives other results at 3000 or 5000 candidates, and (but for the
    # sort, whose TopK takes every candidate: a K known only at run time) a TopK of 5000
    assert r["before"]["faithful"] is False
    assert r["before"]["trt_errors_by_op"] == ({} if name == "mmrotate_rpn_sort" else {"TopK": 1})
    assert [a["rule"] for a in r["applied"]] == ["TRT803"]
    # without --unsafe: a candidate, kept because the rewritten model is equivalent on every set
    assert r["applied"][0]["proof"].startswith("verified: the rewritten model is equivalent")
    assert r["after"]["trt_errors"] == 0 and r["after"]["faithful"] is True and r["equivalent"] is True
    assert [x for x in r["remaining"] if x.get("severity") == "error"] == []
    assert r["exit_code"] == 0
