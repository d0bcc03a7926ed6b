"""Which line is the user's, whatever the layout of the checkout (issue 30).

One answer (:mod:`trtcodemod.usercode`) serves the observer, the exporters' warnings and
failures and the ONNX nodes' stacks: a real file that is not installed code is the user's,
and the innermost such frame is the line. Tested on the same library laid out three ways
(beside the model file, on ``PYTHONPATH`` from another folder, an editable install's
``.pth`` entry): the exporter's TracerWarning lands on the library's line in each, so the
rule that fixes it (TRT726, the shape-keyed anchor cache of a YOLO-style head) is tried and
the three reports are the same. An operator the exporter cannot convert (``aten::isin``) is
placed at the user's call that reaches it.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import site
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from support import REPO, invoke, migrate_small
from trtcodemod.usercode import OURS, UserFiles, innermost, is_installed

EXAMPLE = REPO / "examples" / "guidance" / "anchor_cache.py"
WRAPPER = """import torch
from torch import nn

from anchorlib import Head


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = Head()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(x)


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 8, generator=generator),)
"""
FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json",
        "--dynamic-axes", '{"x": {"0": "batch", "2": "h", "3": "w"}}']


def _library(folder: Path) -> Path:
    """The anchor-cache head of examples/guidance as a package ``anchorlib`` in ``folder``."""
    package = folder / "anchorlib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .head import Head\n")
    (package / "head.py").write_text(EXAMPLE.read_text().split("\ndef build()")[0])
    return package / "head.py"


# --- the one answer -----------------------------------------------------------------------------


def test_user_files_by_what_a_file_is(tmp_path: Path) -> None:
    beside, elsewhere = tmp_path / "proj" / "lib.py", tmp_path / "libs" / "lib.py"
    installed, venv_src = tmp_path / "site-packages" / "lib.py", tmp_path / "venv" / "src" / "clone" / "lib.py"
    for path in (beside, elsewhere, installed, venv_src):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    user = UserFiles([str(tmp_path / "proj")])
    assert user(str(beside)) and user(str(elsewhere)) and user(str(venv_src))
    assert not user(str(installed)) and is_installed(str(installed))
    assert not user(torch.__file__) and not user(os.__file__) and not user(os.path.join(OURS, "cli.py"))
    assert not user("<frozen importlib._bootstrap>") and not user(str(tmp_path / "gone.py"))
    # The model's own folder counts even inside an installed tree.
    assert UserFiles([str(tmp_path / "site-packages")])(str(installed))
    assert innermost([(str(beside), 3), (torch.__file__, 9), (str(elsewhere), 7), (os.__file__, 1)], user) == (
        str(elsewhere.resolve()), 7)


def test_tracer_warning_lands_in_a_library_outside_the_model_folder(tmp_path: Path) -> None:
    from trtcodemod.verify.export import export_model

    head = _library(tmp_path / "libs")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "model.py").write_text(WRAPPER)
    sys.path[:0] = [str(tmp_path / "libs"), str(tmp_path / "proj")]
    try:
        import model as wrapper  # type: ignore[import-not-found]

        model, example = wrapper.build(), torch.randn(1, 3, 8, 8)
        model(example)  # the eager run before an export fills the cache, as the verifier's does
        result = export_model(model, (example,), tmp_path / "m.onnx", exporter="torchscript",
                              input_names=["x"], output_names=["y"], dynamic_axes={"x": {2: "h", 3: "w"}},
                              opset=17, user_roots=(str(tmp_path / "proj"),))
    finally:
        del sys.path[:2]
        for name in ("model", "anchorlib", "anchorlib.head"):
            sys.modules.pop(name, None)
    lines = {(w["file"], w["line"]) for w in result.warnings if w["category"] == "TracerWarning"}
    cache_line = next(i for i, text in enumerate(head.read_text().splitlines(), 1) if "self.shape != shape" in text)
    assert (str(head.resolve()), cache_line) in lines, lines
    assert not any(file.endswith("model.py") for file, _ in lines), lines


def _export_through(tmp_path: Path, name: str, source: str, call: Any, example: torch.Tensor,
                    axes: dict[str, dict[int, str]]) -> Any:
    """Export (TorchScript) a model whose forward is ``call(module, x)`` of the user's module
    ``name`` (``source``, written to ``tmp_path``): the export result."""
    from trtcodemod.verify.export import export_model

    (tmp_path / f"{name}.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module(name)

        class Model(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return call(module, x)

        return export_model(Model(), (example,), tmp_path / "m.onnx", exporter="torchscript", input_names=["x"],
                            output_names=["y"], dynamic_axes=axes, opset=17, user_roots=(str(tmp_path),))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


def test_unconvertible_operator_is_placed_at_the_users_call(tmp_path: Path) -> None:
    result = _export_through(tmp_path, "ids", "import torch\nfrom torch import isin as member\n\n\n"
                             "def keep(labels, wanted):\n    return member(labels, wanted)\n",
                             lambda ids, x: ids.keep(x, torch.tensor([1, 3])), torch.arange(6), {})
    assert result.error and "aten::isin" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'ids.py').resolve()}:6]"), result.error


def test_an_op_with_no_schema_for_its_arguments_is_placed_at_the_matching_call(tmp_path: Path) -> None:
    """egnn-pytorch 0.2.8 (``egnn_pytorch.py:254``, zoo 45): ``adj_mat.masked_fill(self_mask, False)``, a Python
    bool as the fill, stops the TorchScript exporter in its alias analysis ("We don't have an op for
    aten::masked_fill ... Argument types: Tensor, Tensor, bool"), after the user's frames are gone. The line is
    the call with those argument types, not an earlier ``masked_fill`` with a number."""
    result = _export_through(
        tmp_path, "adjacency",
        "import torch\n\n\ndef neighbours(x):\n    ranking = x.masked_fill(x > 0.9, 0.0)\n"
        "    adj = ranking > 0.5\n    adj = adj.masked_fill(ranking < 0.1, False)\n    return adj.float() + ranking\n",
        lambda adjacency, x: adjacency.neighbours(x), torch.rand(3, 3), {})
    assert result.error and "aten::masked_fill" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'adjacency.py').resolve()}:7]"), result.error


def test_a_bool_full_is_placed_though_its_keywords_are_not_positional(tmp_path: Path) -> None:
    """Microsoft SFM's causal mask (``torch.full((tgt_len, tgt_len), False, device=device)``): the exporter lists every
    argument of the schema ("int[], bool, NoneType, NoneType, Device, bool"), the call gives two positionally."""
    result = _export_through(
        tmp_path, "causal",
        "import torch\n\n\ndef causal(x):\n    n = x.shape[0]\n    ones = torch.full((n,), 1.0)\n"
        "    mask = torch.full((n, n), False, device=x.device)\n    return mask, ones + x\n",
        lambda causal, x: causal.causal(x), torch.rand(3), {})
    assert result.error and "aten::full" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'causal.py').resolve()}:7]"), result.error


def test_an_in_place_op_with_no_schema_is_placed_too(tmp_path: Path) -> None:
    """SFM's ``mask.masked_fill_(mask_cond < ..., True)``: the exporter names ``aten::masked_fill_``, the tensor method
    is ``masked_fill_``."""
    result = _export_through(
        tmp_path, "inplace",
        "import torch\n\n\ndef causal(x):\n    mask = x > 0.5\n    x = x.masked_fill(mask, 0.0)\n"
        "    mask.masked_fill_(x < 0.1, True)\n    return mask, x\n",
        lambda inplace, x: inplace.causal(x), torch.rand(3), {})
    assert result.error and "aten::masked_fill_" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'inplace.py').resolve()}:7]"), result.error


def test_symbolic_failure_is_placed_at_the_users_node(tmp_path: Path) -> None:
    """A conv symbolic fails after tracing, with no user frame on the stack, and its message names
    the conv's input (here the model's input, with no stack): the node being converted names the
    line. kornia's ScalePyramid blur in miniature (a traced channel count expands the weight)."""
    result = _export_through(
        tmp_path, "blur", "import torch\nimport torch.nn.functional as F\n\n\ndef blur(x, k):\n    c = x.shape[1]\n"
        "    w = k.view(1, 1, 1, -1).expand(c, 1, 1, k.shape[0]).contiguous()\n"
        "    return F.conv2d(x, w, groups=c)\n",
        lambda blur, x: blur.blur(x, torch.ones(3) / 3), torch.rand(1, 2, 8, 8), {"x": {0: "batch"}})
    assert result.error and "kernel of unknown shape" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'blur.py').resolve()}:8]"), result.error


def test_a_failure_inside_an_inserted_helper_is_placed_at_the_users_call(tmp_path: Path) -> None:
    """The helper is not the line to act on: its caller is, where another rule can take the call
    (TRT330's ``_trt_unfold_axis`` after a pad, which TRT311 replaces). Both ways of naming the line:
    a symbolic's node stack (``unfold``) and the Python traceback (``isin``)."""
    source = ("import torch\nimport torch.nn.functional as F\n\n\n"
              "def _trt_unfold_axis(x, dimension: int, size: int, step: int):\n"
              "    return x.unfold(dimension + x.dim(), size, step)\n\n\n"
              "def _trt_member(a, b):\n    return torch.isin(a, b)\n\n\n"
              "def frames(x):\n    return _trt_unfold_axis(F.pad(x, (0, 4)), -1, 8, 4)\n\n\n"
              "def keep(labels):\n    return _trt_member(labels, torch.tensor([1, 3]))\n")
    result = _export_through(tmp_path, "helped", source, lambda m, x: m.frames(x), torch.rand(2, 3, 32), {})
    assert result.error and "input size not accessible" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'helped.py').resolve()}:14]"), result.error
    result = _export_through(tmp_path, "helped", source, lambda m, x: m.keep(x), torch.arange(6), {})
    assert result.error and "aten::isin" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'helped.py').resolve()}:18]"), result.error



def test_a_failure_inside_a_scripted_function_is_placed_at_its_call(tmp_path: Path) -> None:
    """empanada-dl 0.1.7 (``inference/postprocess.py:55``, zoo 87): ``F.threshold(ctr_hmp, threshold, -1.)`` inside a
    ``@torch.jit.script`` function that a scripted function calls. No Python frame ran it and the refused node's stack
    is torch's ``functional.py``: the line is the call in the scripted function's source (in an ``if`` block). The
    same for an operator with no symbolic at all (``isin``)."""
    source = ("import torch\nimport torch.nn.functional as F\n\n\n@torch.jit.script\n"
              "def centres(x, threshold: float = 0.1):\n    y = torch.sigmoid(x)\n"
              "    if x.size(0) > 0:\n        y = F.threshold(y, threshold, -1.)\n    return y * 2\n\n\n"
              "@torch.jit.script\ndef outer(x):\n    return centres(x) + 1\n\n\n"
              "@torch.jit.script\ndef member(x, wanted):\n    return torch.isin(x, wanted)\n")
    result = _export_through(tmp_path, "scripted", source, lambda m, x: m.outer(torch.sigmoid(x)), torch.rand(2, 3), {})
    assert result.error and "operator threshold" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'scripted.py').resolve()}:9]"), result.error
    result = _export_through(tmp_path, "scripted", source, lambda m, x: m.member(x, torch.tensor([1, 3])),
                             torch.arange(6), {})
    assert result.error and "aten::isin" in result.error
    assert result.error.endswith(f"[at {(tmp_path / 'scripted.py').resolve()}:20]"), result.error

# --- three layouts, one report -------------------------------------------------------------------


def _normal(report: dict[str, Any]) -> str:
    """The verdicts of a report, each path cut to where it is in its own tree."""
    kept = {key: report.get(key) for key in ("exit_code", "before", "after", "equivalent", "applied", "reverted",
                                               "remaining", "info", "changed_files", "diff")}
    text = json.dumps(kept, sort_keys=True)
    text = re.sub(r"(?:[ab]/)?[^\s\"':]*/(anchorlib/\w+\.py)", r"\1", text)
    return re.sub(r"[^\s\"':]*/(model\.py)", r"\1", text)


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("layouts")
    out: dict[str, tuple[int, dict[str, Any]]] = {}

    def migrate(model: Path) -> tuple[int, dict[str, Any]]:
        result = invoke("migrate", str(model), "--model", "build", "--inputs", "inputs", *FAST)
        return result.exit_code, json.loads(result.stdout)["models"][0]

    beside = root / "beside"
    _library(beside)
    (beside / "model.py").write_text(WRAPPER)
    out["beside"] = migrate(beside / "model.py")

    for name in ("pythonpath", "editable"):
        project, libs = root / name / "proj", root / name / ("libs" if name == "pythonpath" else "clone/src")
        _library(libs)
        project.mkdir()
        (project / "model.py").write_text(WRAPPER)
        with pytest.MonkeyPatch.context() as patch:
            if name == "pythonpath":
                patch.setenv("PYTHONPATH", str(libs))
                out[name] = migrate(project / "model.py")
                continue
            # What `pip install -e` leaves for a plain layout: a .pth entry naming the clone.
            pth = Path(site.getsitepackages()[0]) / f"__editable__.anchorlib_{os.getpid()}.pth"
            pth.write_text(f"{libs}\n")
            try:
                out[name] = migrate(project / "model.py")
            finally:
                pth.unlink()
    return out


def test_the_bake_in_the_library_is_fixed_in_every_layout(layouts: dict[str, tuple[int, dict[str, Any]]]) -> None:
    for name, (code, report) in layouts.items():
        assert code == 0 and report["exit_code"] == 0, (name, report["remaining"])
        assert [(a["rule"], Path(a["path"]).name, a["landed"]) for a in report["applied"]] == [
            ("TRT726", "head.py", True)], (name, report["applied"])
        assert not any(r["source"] and "model.py" in r["source"] for r in report["remaining"]), name


def test_the_three_reports_are_the_same(layouts: dict[str, tuple[int, dict[str, Any]]]) -> None:
    beside = _normal(layouts["beside"][1])
    assert _normal(layouts["pythonpath"][1]) == beside
    assert _normal(layouts["editable"][1]) == beside


LAZY_PACKAGE = '''import sys
import types


class LazyModule(types.ModuleType):
    """Imports its target on the first attribute read (speechbrain's ``LazyModule`` does this)."""

    def __init__(self, name, target):
        super().__init__(name)
        self.target = target

    def __getattr__(self, attr):
        import importlib
        import os
        if os.path.basename(sys._getframe(1).f_code.co_filename) == "inspect.py":
            raise AttributeError(attr)  # (as speechbrain's does: inspect.getmodule probes every module)
        try:
            return getattr(importlib.import_module(self.target), attr)
        except Exception as exc:
            raise ImportError(f"Lazy import of {self.target} failed") from exc


# An optional integration whose dependency is missing: reading any attribute of it raises.
sys.modules[__name__ + ".integration"] = LazyModule(__name__ + ".integration", "a_dependency_nobody_installed")
'''
LAZY_MODEL = '''import torch

import lazylib


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1


def build():
    return Model()
'''


def test_a_lazy_module_is_not_imported_when_its_file_is_looked_up(tmp_path: Path) -> None:
    """speechbrain registers lazy modules in ``sys.modules`` for optional integrations: reading
    ``__file__`` through ``getattr`` imports the target, and a missing dependency raised there, so
    ``migrate`` could not observe any speechbrain model (zoo 42's first contact: five exit 2)."""
    from trtcodemod.usercode import module_file
    from trtcodemod.verify.userfiles import imported_user_files

    (tmp_path / "lazylib").mkdir()
    (tmp_path / "lazylib" / "__init__.py").write_text(LAZY_PACKAGE)
    namespace: dict[str, Any] = {"__name__": "lazylib_probe"}
    exec(compile(LAZY_PACKAGE, "lazylib_probe", "exec"), namespace)
    lazy = sys.modules.pop("lazylib_probe.integration")
    with pytest.raises(ImportError):
        getattr(lazy, "__file__")  # what the observer used to do
    assert module_file(lazy) is None
    assert module_file(pytest) == pytest.__file__
    assert imported_user_files([lazy, pytest], [str(tmp_path)]) == []
    (tmp_path / "model.py").write_text(LAZY_MODEL)
    report, code = migrate_small(tmp_path / "model.py")
    assert report["error"] is None and code == 0, report["error"]
