"""TRT377 (state-dict-metadata): a ``state_dict`` override that adds a value that is no tensor stops the TorchScript
ONNX export at ``.detach()`` with no line of the model.

The model is neuraloperator 2.0.0's ``BaseModel.state_dict`` (``neuralop/models/base_model.py:84-108``): it calls
``super().state_dict(...)``, stores ``state_dict['_metadata'] = self._init_kwargs`` when no ``_metadata`` is there
yet and warns otherwise. Written here in our own words, around a linear layer and a buffer.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import migrate_json, rewrite, rules_found
from safety import import_source

from trtcodemod.findings import Finding
from trtcodemod.migrate.locate import Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Safety

VARIANTS = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt377"

MODEL = '''\
import warnings

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.register_buffer("scale", torch.tensor([1.0, -2.0]))
        self._init_kwargs = {"width": 3, "name": "net"}

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        state_dict = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        if state_dict.get("_metadata") == None:
            # the constructor's arguments, for loading by name
            state_dict["_metadata"] = self._init_kwargs  # a dict
        else:
            warnings.warn("metadata already in the state dict")
        return state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        state_dict = dict(state_dict)
        self.loaded_metadata = state_dict.pop("_metadata", None)
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def forward(self, x):
        return self.lin(x) * self.scale


def build():
    torch.manual_seed(0)
    return Net().eval()


def inputs(generator):
    return (torch.randn(2, 3, generator=generator),)
'''

GUARDED = '''\
        if state_dict.get("_metadata") == None:
            # the constructor's arguments, for loading by name
            if not torch.onnx.is_in_onnx_export():
                state_dict["_metadata"] = self._init_kwargs  # a dict
        else:
            warnings.warn("metadata already in the state dict")
        return state_dict
'''


def test_rewrite_text_keeps_the_test_its_else_and_comments() -> None:
    after = rewrite(MODEL, unsafe=True, select=("TRT377",))
    assert GUARDED in after, after
    assert after.replace("            if not torch.onnx.is_in_onnx_export():\n    ", "") == MODEL
    assert rules_found(after, select=("TRT377",)) == []  # a second pass finds nothing
    assert rewrite(MODEL, select=("TRT377",)) == MODEL  # unsafe: only with --unsafe


HEAD = '''\
import torch
from torch import nn


class Net(nn.Module):
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        sd = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
'''


@pytest.mark.parametrize(("body", "want"), [
    ("        sd['version'] = '2.0'\n",
     "        if not torch.onnx.is_in_onnx_export():\n            sd['version'] = '2.0'\n"),
    ("        sd.update({'version': 2, 'w': torch.ones(1)})\n",
     "        if not torch.onnx.is_in_onnx_export():\n            sd.update({'version': 2, 'w': torch.ones(1)})\n"),
    ("        sd.update(config=self.config)\n",
     "        if not torch.onnx.is_in_onnx_export():\n            sd.update(config=self.config)\n"),
    ("        sd.setdefault(prefix + 'meta', dict(depth=2))\n",
     "        if not torch.onnx.is_in_onnx_export():\n            sd.setdefault(prefix + 'meta', dict(depth=2))\n"),
    ("        for k in ('a', 'b'):\n            sd[prefix + k] = None\n",
     "        for k in ('a', 'b'):\n            if not torch.onnx.is_in_onnx_export():\n"
     "                sd[prefix + k] = None\n"),
])
def test_other_forms_are_guarded(body: str, want: str) -> None:
    after = rewrite(HEAD + body + "        return sd\n", unsafe=True, select=("TRT377",))
    assert after.endswith(want + "        return sd\n"), after


@pytest.mark.parametrize("code", [
    HEAD + "        sd['extra'] = torch.zeros(2)\n        return sd\n",  # a tensor
    HEAD + "        sd['w2'] = self.lin.weight.detach()\n        return sd\n",
    HEAD + "        for k, v in self.extra.items():\n            sd[prefix + k] = v\n        return sd\n",  # not judged
    HEAD + "        sd.update(self.other.state_dict())\n        return sd\n",  # what it holds is not visible
    HEAD + "        other = {}\n        other['version'] = 2\n        return sd\n",  # not the dict returned
    HEAD + "        sd._metadata[prefix[:-1]] = dict(version=2)\n        return sd\n",  # torch's own metadata attribute
    HEAD.replace("nn.Module", "torch.optim.Optimizer") + "        sd['version'] = 2\n        return sd\n",  # no module
    HEAD.replace("def state_dict", "def checkpoint") + "        sd['version'] = 2\n        return sd\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=("TRT377",)) == []


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt377")
    before = import_source(MODEL, folder)
    after = import_source(rewrite(MODEL, unsafe=True, select=("TRT377",)), folder)
    return before["build"], after["build"]


def _same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        if isinstance(a[key], torch.Tensor):
            assert torch.equal(a[key], b[key]) and a[key].requires_grad == b[key].requires_grad, key
        else:
            assert a[key] == b[key], key


@pytest.mark.parametrize("keep_vars", [False, True])
def test_eager_state_dict_and_round_trip_are_unchanged(program: tuple, keep_vars: bool) -> None:
    build_before, build_after = program
    before, after = build_before(), build_after()
    sd_before, sd_after = before.state_dict(keep_vars=keep_vars), after.state_dict(keep_vars=keep_vars)
    _same(sd_before, sd_after)
    assert sd_after["_metadata"] == {"width": 3, "name": "net"}
    # Into a given destination that already holds metadata: both warn and keep it.
    for model in (before, after):
        with pytest.warns(UserWarning, match="metadata already"):
            model.state_dict(destination={"_metadata": {"old": 1}})
    # The round trip through load_state_dict.
    fresh_before, fresh_after = build_before(), build_after()
    with torch.no_grad():
        fresh_before.lin.weight.fill_(0.5)
        fresh_after.lin.weight.fill_(0.5)
    fresh_before.load_state_dict(sd_before)
    fresh_after.load_state_dict(sd_after)
    assert fresh_before.loaded_metadata == fresh_after.loaded_metadata == {"width": 3, "name": "net"}
    _same(fresh_before.state_dict(), fresh_after.state_dict())
    x = torch.tensor([[0.0, -1.5, 3.0e4], [float("inf"), 1.0, -0.0]])
    assert torch.equal(fresh_before(x), fresh_after(x)) or torch.allclose(fresh_before(x), fresh_after(x),
                                                                           equal_nan=True)


def _export(model: torch.nn.Module, x: torch.Tensor) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
    return buffer.getvalue()


def test_the_torchscript_export_stops_before_and_matches_eager_after(program: tuple) -> None:
    build_before, build_after = program
    x = torch.tensor([[0.0, -1.5, 3.0e4], [1e-8, 1.0, -0.0], [2.0, 2.0, 2.0]])
    with pytest.raises(AttributeError, match="object has no attribute 'detach'"):
        _export(build_before(), x)
    model = build_after()
    session = ort.InferenceSession(_export(model, x), providers=["CPUExecutionProvider"])
    for batch in (x, x[:1], torch.randn(5, 3)):
        [got] = session.run(None, {"x": batch.numpy()})
        assert np.allclose(got, model(batch).detach().numpy(), rtol=1e-6, atol=1e-6)
    assert "_metadata" in model.state_dict()  # the export left nothing behind


def test_the_plan_ties_trt377_to_the_detach_failure_anywhere() -> None:
    finding = Finding("TRT377", "state-dict-metadata", "state_dict puts ...", "/zoo/neuralop/models/base_model.py",
                      105, 13, 105, 56, Safety.UNSAFE)
    failure = Problem("export_failure", None, None, "(export)", None,
                      "AttributeError: 'dict' object has no attribute 'detach'", "error", "torchscript")
    assert matches(failure, finding)
    other = Problem("export_failure", None, None, "(export)", None, "RuntimeError: Unsupported: ONNX export of "
                    "operator fft_rfftn", "error", "torchscript")
    assert not matches(other, finding)


def test_migrate_takes_it_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(MODEL)
    report = migrate_json(path, '{"x": {"0": "batch"}}')
    assert report["before"]["exported"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT377", MODEL.splitlines().index(
        '            state_dict["_metadata"] = self._init_kwargs  # a dict') + 1)], report
    assert "state_dict` override stores at" in report["applied"][0]["proof"], report["applied"][0]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


def test_a_state_dict_called_only_by_checkpoint_saving_is_still_model_code() -> None:
    """neuraloperator's ``save_checkpoint`` is the class's only caller of ``self.state_dict()``: the model-code filter
    must not drop the finding as build-time code (the exporter calls ``state_dict`` itself)."""
    code = MODEL.replace("\n\ndef build", "    def save_checkpoint(self, path):\n"
                                         "        torch.save(self.state_dict(), path)\n\n\ndef build", 1)
    assert rules_found(code, select=("TRT377",)) == ["TRT377"]


@pytest.mark.parametrize("name", sorted(p.stem for p in VARIANTS.glob("*.py")))
def test_the_variants(name: str, tmp_path: Path) -> None:
    from variant_models import load_variant

    path = VARIANTS / f"{name}.py"
    module = load_variant(path, f"trt377_{name}")
    source = path.read_text()
    found = rules_found(source, select=("TRT377",))
    after = rewrite(source, unsafe=True, select=("TRT377",))
    if module.STORE is None:
        assert found == [] and after == source
        return
    stores = module.STORE if isinstance(module.STORE, tuple) else (module.STORE,)  # sfs-BTSP stores seven entries
    assert found == ["TRT377"] * len(stores)
    # Each store under its own guard, at the store's depth; nothing else changed.
    assert re.sub(r"^( *)if not torch\.onnx\.is_in_onnx_export\(\):\n\1    ", r"\1", after, flags=re.M) == source
    for k, store in enumerate(stores):
        [line] = [i for i, text in enumerate(source.splitlines(), 1)
                  if store in text and "STORE" not in text and "``" not in text and "CALL" not in text
                  and not text.strip().startswith('"')]  # the module's own constants quote the stores
        assert after.splitlines()[line - 1 + k].strip() == "if not torch.onnx.is_in_onnx_export():", store
    x = module.inputs(torch.Generator().manual_seed(1))[0]
    with pytest.raises(AttributeError, match="has no attribute 'detach'"):
        _export_variant(module.build(), x, module.DYNAMIC)
    rewritten = tmp_path / f"{name}.py"
    rewritten.write_text(after)
    fixed = load_variant(rewritten, f"trt377_{name}_after")
    model = fixed.build()
    _same(module.build().state_dict(), model.state_dict())
    session = ort.InferenceSession(_export_variant(model, x, module.DYNAMIC), providers=["CPUExecutionProvider"])
    [got] = session.run(None, {"x": x.numpy()})
    assert np.allclose(got, model(x).detach().numpy(), atol=1e-5)


def _export_variant(model: torch.nn.Module, x: torch.Tensor, dynamic: dict) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"], dynamic_axes=dynamic)
    return buffer.getvalue()


def test_migrate_reads_the_base_class_file_the_forward_never_ran(tmp_path: Path) -> None:
    """neuraloperator's layout: the override is in a base class's file (``models/base_model.py``) no line of which
    runs in a forward; the detach failure makes migrate read the user's files that define a ``state_dict``."""
    base, head = MODEL.split("    def forward(self, x):\n", 1)
    # The metadata holds a function (neuraloperator's `non_linearity=F.gelu`), which a `weights_only` load refuses,
    # and the model is wrapped, so the metadata is stored without the wrapper's prefix: the verifier hands the
    # rewritten model the weights only.
    base = base.replace('"name": "net"}', '"name": "net", "act": torch.nn.functional.gelu}')
    (tmp_path / "base_model.py").write_text(base.replace("class Net(nn.Module)", "class BaseModel(nn.Module)"))
    path = tmp_path / "net.py"
    path.write_text("import torch\nfrom base_model import BaseModel\n\n\nclass Inner(BaseModel):\n"
                    "    def forward(self, x):\n" + head.replace("return Net().eval()", "return Wrap().eval()")
                    + "\n\nclass Wrap(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.m = Inner()\n\n    def forward(self, x):\n        return self.m(x)\n")
    report = migrate_json(path, '{"x": {"0": "batch"}}')
    applied = [(Path(fix["path"]).name, fix["rule"]) for fix in report["applied"]]
    assert applied == [("base_model.py", "TRT377")], report
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


#: Variants whose store TRT377 guards and migrate applies at (their ``CALL`` line), each from a different owner:
#: pytorch-mighty's ``getattr`` store in a loop over ``state_attr``, torchmetrics' ``deepcopy`` of a list state,
#: sfs-BTSP's seven stores of dicts and floats (two of them inside ``if``).
MIGRATED = ("mighty_serializable_module", "torchmetrics_metric_state", "btsp_plugin_task_state")


def test_the_migrated_variants_cite_distinct_owners() -> None:
    from variant_models import assert_cited_by_distinct_owners

    assert_cited_by_distinct_owners(VARIANTS, list(MIGRATED), count=len(MIGRATED))


@pytest.mark.parametrize("name", MIGRATED)
def test_a_stored_variant_keeps_eager_mode_its_round_trip_and_exports_at_other_batches(name: str,
                                                                                        tmp_path: Path) -> None:
    from variant_models import assert_eager_unchanged, load_variant, seeded

    path = VARIANTS / f"{name}.py"
    module = load_variant(path, f"trt377_{name}_eager")
    rewritten_path = tmp_path / f"{name}.py"
    rewritten_path.write_text(rewrite(path.read_text(), unsafe=True, select=("TRT377",)))
    fixed = load_variant(rewritten_path, f"trt377_{name}_eager_after")
    before, after = module.build(), fixed.build()
    width = module.inputs(seeded(0))[0].shape[1]
    sets = {"example": module.inputs(seeded(0)), "zeros": (torch.zeros(2, width),),
            "negatives": (-torch.rand(5, width, generator=seeded(3)) * 1e3,), "empty": (torch.zeros(0, width),),
            "one": (torch.randn(1, width, generator=seeded(4)),)}
    assert_eager_unchanged(before, after, sets)
    for keep_vars in (False, True):
        _same(before.state_dict(keep_vars=keep_vars), after.state_dict(keep_vars=keep_vars))
    # The round trip: the entry the override stores is loaded back, into a fresh model of each.
    fresh_before, fresh_after = module.build(), fixed.build()
    fresh_before.load_state_dict(before.state_dict())
    fresh_after.load_state_dict(after.state_dict())
    _same(fresh_before.state_dict(), fresh_after.state_dict())
    x = module.inputs(seeded(1))[0]
    session = ort.InferenceSession(_export_variant(after, x, module.DYNAMIC), providers=["CPUExecutionProvider"])
    for label, (batch,) in {**sets, "another batch": (torch.randn(7, width, generator=seeded(5)),)}.items():
        [got] = session.run(None, {"x": batch.numpy()})
        assert np.allclose(got, after(batch).detach().numpy(), atol=1e-5), label
    _same(before.state_dict(), after.state_dict())  # the export left the entries in place


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_it_to_the_variant(name: str) -> None:
    from variant_models import assert_migrate_applies, load_variant

    report = assert_migrate_applies(VARIANTS / f"{name}.py", "TRT377", f"trt377_{name}_migrate")
    assert any("state_dict` override stores at" in (fix.get("proof") or "") for fix in report["applied"]), report
    module = load_variant(VARIANTS / f"{name}.py", f"trt377_{name}_stores")
    if isinstance(module.STORE, tuple):  # every store guarded, not only the first the export stopped at
        source = (VARIANTS / f"{name}.py").read_text().splitlines()
        lines = [i for i, text in enumerate(source, 1) if text.strip() in module.STORE]
        assert len(lines) == len(module.STORE)
        assert sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT377") == lines, report["applied"]
