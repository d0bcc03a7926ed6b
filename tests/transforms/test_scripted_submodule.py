"""TRT386: a submodule built as ``torch.jit.script(Module(...))`` in ``__init__`` stops both ONNX exporters.

The rewrite is checked as text (the spellings of ``torch.jit.script`` and of a module instance it takes, the
containers it looks into, what it leaves alone: functions, lambdas, a whole model, a module built elsewhere, a file
that reads the TorchScript API), then run on a small model in rl-games' shape (a wrapper holding a network whose
``__init__`` scripts a running-statistics normaliser with float64 buffers, called in forward under
``torch.no_grad()``): the original fails both exporters, the rewritten one exports with both and ONNX Runtime equals
eager mode at another batch size; eager values, dtypes, shapes and the buffers a training-mode call writes are the
scripted module's bit for bit; ``torch.fx``, ``torch.compile``, ``torch.export`` and scripting the whole rewritten
model run and agree. The differences the rule's documentation states (type, the exception of an ``assert``, a Python
number for a Tensor argument) are shown on torch itself. ``migrate`` ties the export failure at the call to the
construction in ``__init__``.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import rewrite, rules_found

from trtcodemod.engine import Options, check_source
from trtcodemod.migrate.locate import Problem, _rules_named
from trtcodemod.migrate.plan import matches
from trtcodemod.trt.check import RULES
from trtcodemod.verify.export import export_model

SELECT = ("TRT386",)
ERROR = ("Tried to trace <__torch__.RMS object at 0x5574549e9eb0> but it is not part of the active trace. Modules "
         "that are called during a trace must be registered as submodules of the thing being traced.")

HEAD = "import torch\nfrom torch import nn\n\nclass RMS(nn.Module):\n    def forward(self, x):\n        return x\n\n"


@pytest.mark.parametrize(("code", "before", "after"), [
    (HEAD + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.rms = torch.jit.script(RMS())\n",
     "self.rms = torch.jit.script(RMS())", "self.rms = RMS()"),
    ("import torch.nn as nn\nfrom torch.jit import script\n\nclass Net(nn.Module):\n    def __init__(self):\n"
     "        super().__init__()\n        self.fc = script(nn.Linear(4, 2))\n",
     "self.fc = script(nn.Linear(4, 2))", "self.fc = nn.Linear(4, 2)"),
    ("import torch as th\nfrom torch import jit\n\nclass Base(th.nn.Module):\n    pass\n\nclass Sub(Base):\n    pass\n\n"
     "class Net(th.nn.Module):\n    def __init__(me, n):\n        super().__init__()\n"
     "        me.sub: th.nn.Module = jit.script(Sub())\n",
     "me.sub: th.nn.Module = jit.script(Sub())", "me.sub: th.nn.Module = Sub()"),
    (HEAD + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.blocks = nn.ModuleList([torch.jit.script(RMS()) for _ in range(2)])\n"
            "        self.seq = nn.Sequential(torch.jit.script(RMS()), nn.ReLU())\n"
            "        self.named = nn.ModuleDict({'a': torch.jit.script(RMS())})\n"
            "        self.more = nn.ModuleList()\n        self.more.append(torch.jit.script(RMS()))\n",
     "torch.jit.script(RMS())", "RMS()"),
    # SAM 2's `SAM2Transforms` (facebookresearch/sam2@2b90b9f5ceec907a1c18123530e92e794ad901a4
    # sam2/utils/transforms.py:35-40): the module built on the attribute, then scripted in place under a setting.
    (HEAD + "class Net(nn.Module):\n    def __init__(self, jit: bool = True):\n        super().__init__()\n"
            "        self.transforms = nn.Sequential(RMS(), nn.ReLU())\n        if jit:\n"
            "            self.transforms = torch.jit.script(self.transforms)\n",
     "torch.jit.script(self.transforms)", "self.transforms"),
    (HEAD + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        m = RMS()\n"
            "        self.h = torch.jit.script(m)\n",
     "torch.jit.script(m)", "m"),
    (HEAD + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.seqband = torch.jit.script(nn.Sequential(*[RMS() for _ in range(3)]))\n",
     "torch.jit.script(nn.Sequential(*[RMS() for _ in range(3)]))", "nn.Sequential(*[RMS() for _ in range(3)])"),
])
def test_rewrite_text(code: str, before: str, after: str) -> None:
    new = rewrite(code, unsafe=True, select=SELECT)
    assert before not in new and after in new, new
    assert new == code.replace(before, after)
    assert rewrite(code, select=SELECT) == textwrap.dedent(code)  # unsafe: nothing without --unsafe
    assert rules_found(new, select=SELECT) == []


@pytest.mark.parametrize("code", [
    # A scripted function (TRT105's), a lambda, a module built elsewhere (a parameter; a name bound twice here), a
    # factory's result, `example_inputs=`.
    HEAD + "def fn(x):\n    return x\n\nclass Net(nn.Module):\n    def __init__(self, given):\n        super().__init__()\n"
           "        self.f = torch.jit.script(fn)\n        self.g = torch.jit.script(lambda x: x)\n"
           "        self.e = torch.jit.script(given)\n        m = RMS()\n        m = given\n"
           "        self.h = torch.jit.script(m)\n        self.i = torch.jit.script(make_rms())\n"
           "        self.j = torch.jit.script(RMS(), example_inputs=[(torch.ones(1),)])\n",
    # The whole model, scripted outside any module's __init__; a script in another method.
    HEAD + "class Net(nn.Module):\n    def forward(self, x):\n        return x\n\n"
           "model = torch.jit.script(Net())\n\ndef export():\n    return torch.jit.script(Net())\n",
    HEAD + "class Net(nn.Module):\n    def reset(self):\n        self.rms = torch.jit.script(RMS())\n",
    # Not a module: the file's own class that derives from no nn.Module, a Parameter, a jit ScriptModule subclass.
    "import torch\n\nclass Plain:\n    pass\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.p = torch.jit.script(Plain())\n"
    "        self.q = torch.jit.script(torch.nn.Parameter(torch.ones(1)))\n",
    "import torch\n\nclass S(torch.jit.ScriptModule):\n    pass\n\nclass Net(torch.nn.Module):\n"
    "    def __init__(self):\n        super().__init__()\n        self.s = torch.jit.script(S())\n",
    # `script` that is not torch's.
    "from mylib import script\nimport torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.s = script(torch.nn.Linear(2, 2))\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=SELECT) == []


def test_a_file_that_reads_the_torchscript_api_is_reported_without_a_fix() -> None:
    code = (HEAD + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                   "        self.rms = torch.jit.script(RMS())\n\n    def dump(self):\n        return self.rms.code\n")
    assert rules_found(code, select=SELECT) == ["TRT386"]
    assert rewrite(code, unsafe=True, select=SELECT) == code


def test_the_export_failure_names_trt386() -> None:
    assert RULES["not part of the active trace"] == ("TRT386",)
    assert _rules_named(ERROR) == ["TRT386"]


# --- the model: rl-games' scripted normaliser, reduced ----------------------------------------------------------------

MODEL = '''\
import torch
from torch import nn


class RunningMeanStd(nn.Module):
    def __init__(self, n: int, epsilon: float = 1e-5):
        super().__init__()
        self.epsilon = epsilon
        self.register_buffer("running_mean", torch.zeros(n, dtype=torch.float64))
        self.register_buffer("running_var", torch.ones(n, dtype=torch.float64))
        self.register_buffer("count", torch.ones((), dtype=torch.float64))

    def forward(self, x, denorm: bool = False):
        if self.training:
            mean, var, batch = x.mean(0), x.var(0), x.size(0)
            delta = mean - self.running_mean
            total = self.count + batch
            self.running_mean = self.running_mean + delta * batch / total
            self.running_var = (self.running_var * self.count + var * batch
                                + delta ** 2 * self.count * batch / total) / total
            self.count = total
        m, v = self.running_mean.float(), self.running_var.float()
        if denorm:
            return torch.sqrt(v + self.epsilon) * torch.clamp(x, -5.0, 5.0) + m
        return torch.clamp((x - m) / torch.sqrt(v + self.epsilon), -5.0, 5.0)


class Network(nn.Module):
    def __init__(self, n: int = 4):
        super().__init__()
        self.running_mean_std = torch.jit.script(RunningMeanStd(n))
        self.value_mean_std = torch.jit.script(RunningMeanStd(1))
        self.body = nn.Sequential(nn.Linear(n, 8), nn.Tanh())
        self.mu = nn.Linear(8, 2)
        self.value = nn.Linear(8, 1)

    def norm_obs(self, obs):
        with torch.no_grad():
            return self.running_mean_std(obs)

    def forward(self, obs):
        h = self.body(self.norm_obs(obs))
        with torch.no_grad():
            value = self.value_mean_std(self.value(h), True)
        return self.mu(h), value


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Network()

    def forward(self, obs):
        return self.model(obs)
'''


def _import(source: str, name: str, folder: Path):
    path = folder / f"{name}.py"
    path.write_text(source)
    sys.path.insert(0, str(folder))
    try:
        import importlib
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))


def _trained(module) -> torch.nn.Module:
    torch.manual_seed(0)
    model = module.Wrapper()
    generator = torch.Generator().manual_seed(1)
    model.train()
    for _ in range(3):
        model(torch.randn(16, 4, generator=generator) * 2.0 + 1.0)
    return model.eval()


def _obs(batch: int, seed: int) -> torch.Tensor:
    return torch.randn(batch, 4, generator=torch.Generator().manual_seed(seed)) * 2.0 + 1.0


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    """Both models (same weights and statistics), the rewritten source, and both exporters' results on each."""
    folder = tmp_path_factory.mktemp("trt386")
    new_source = rewrite(MODEL, unsafe=True, select=SELECT)
    original = _trained(_import(MODEL, "trt386_original", folder))
    rewritten = _trained(_import(new_source, "trt386_rewritten", folder))
    example = (_obs(3, 2),)
    results = {}
    for label, model in (("original", original), ("rewritten", rewritten)):
        for exporter, opset in (("torchscript", 17), ("dynamo", 18)):
            path = folder / f"{label}_{exporter}.onnx"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = export_model(model, example, path, exporter=exporter, input_names=["obs"],
                                      output_names=["mu", "value"], dynamic_axes={"obs": {0: "batch"}}, opset=opset)
            results[label, exporter] = (result.error, path)
    return dict(original=original, rewritten=rewritten, source=new_source, results=results)


def test_the_rewrite_of_the_model_takes_both_normalisers(exported: dict) -> None:
    source = exported["source"]
    assert "self.running_mean_std = RunningMeanStd(n)" in source and "self.value_mean_std = RunningMeanStd(1)" in source
    assert "torch.jit.script" not in source
    assert isinstance(exported["original"].model.running_mean_std, torch.jit.ScriptModule)
    assert not isinstance(exported["rewritten"].model.running_mean_std, torch.jit.ScriptModule)


def test_eager_mode_is_the_scripted_modules_bit_for_bit(exported: dict) -> None:
    original, rewritten = exported["original"], exported["rewritten"]
    assert list(original.state_dict()) == list(rewritten.state_dict())
    for key, value in original.state_dict().items():  # the statistics three training-mode calls wrote
        other = rewritten.state_dict()[key]
        assert value.dtype == other.dtype and torch.equal(value, other), key
    for batch in (1, 3, 8):
        x = _obs(batch, batch + 10)
        with torch.no_grad():
            want, got = original(x), rewritten(x)
        for w, g in zip(want, got):
            assert w.dtype == g.dtype and w.shape == g.shape and torch.equal(w, g)
    # One more training-mode call on each (a copy): outputs and the buffers it writes, bit for bit.
    import copy
    a, b = copy.deepcopy(original).train(), copy.deepcopy(rewritten).train()
    x = _obs(5, 30)
    for w, g in zip(a(x), b(x)):
        assert torch.equal(w, g)
    for (key, value), other in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(value, other), key


def test_the_original_fails_both_exporters_and_the_rewritten_exports_with_both(exported: dict) -> None:
    results = exported["results"]
    error, _ = results["original", "torchscript"]
    assert error is not None and "not part of the active trace" in error, error
    assert results["original", "dynamo"][0] is not None
    for exporter in ("torchscript", "dynamo"):
        error, path = results["rewritten", exporter]
        assert error is None, (exporter, error)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for batch in (3, 7):
            x = _obs(batch, 40 + batch)
            with torch.no_grad():
                want = [w.numpy() for w in exported["original"](x)]
            got = session.run(None, {"obs": x.numpy()})
            for w, g in zip(want, got):
                assert g.shape == w.shape and np.allclose(g, w, rtol=1e-5, atol=1e-6), (exporter, batch)


def test_fx_compile_export_and_script_take_the_rewritten_model(exported: dict) -> None:
    rewritten, original = exported["rewritten"], exported["original"]
    x = _obs(6, 50)
    with torch.no_grad():
        want = original(x)
        traced = torch.fx.symbolic_trace(rewritten)
        compiled = torch.compile(rewritten, backend="eager")
        program = torch.export.export(rewritten, (_obs(3, 51),), dynamic_shapes=({0: torch.export.Dim("batch")},))
        scripted = torch.jit.script(rewritten)
        for label, got in (("fx", traced(x)), ("compile", compiled(x)), ("export", program.module()(x)),
                           ("script", scripted(x))):
            for w, g in zip(want, got):
                torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6, msg=label)


def test_the_differences_the_documentation_states_are_real(tmp_path: Path) -> None:
    """What the unsafe fix changes, on torch itself: the type, an `assert`'s exception, a number for a Tensor."""
    module = _import(textwrap.dedent('''\
        import torch

        class Checked(torch.nn.Module):
            def forward(self, x, k):
                assert x.dim() == 2, "two axes"
                return x * k
    '''), "trt386_checked", tmp_path)
    eager, scripted = module.Checked(), torch.jit.script(module.Checked())
    assert isinstance(scripted, torch.jit.ScriptModule) and not isinstance(eager, torch.jit.ScriptModule)
    with pytest.raises(AssertionError):
        eager(torch.ones(3), torch.ones(1))
    with pytest.raises(torch.jit.Error):
        scripted(torch.ones(3), torch.ones(1))
    assert not issubclass(torch.jit.Error, (AssertionError, RuntimeError))
    assert torch.equal(eager(torch.ones(2, 2), 2.0), torch.full((2, 2), 2.0))
    with pytest.raises(RuntimeError):
        scripted(torch.ones(2, 2), 2.0)


# --- migrate: the failure at the call, the finding at the construction ------------------------------------------------

def test_the_failure_at_the_call_matches_the_construction_of_the_module_it_calls(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(MODEL)
    findings = check_source(path.read_bytes(), str(path), Options(select=SELECT, unsafe=True, scope="all"))
    by_line = {f.line: f for f in findings}
    lines = MODEL.splitlines()
    obs_build = lines.index("        self.running_mean_std = torch.jit.script(RunningMeanStd(n))") + 1
    value_build = lines.index("        self.value_mean_std = torch.jit.script(RunningMeanStd(1))") + 1
    obs_call = lines.index("            return self.running_mean_std(obs)") + 1
    assert sorted(by_line) == [obs_build, value_build]
    failure = Problem("export_failure", str(path), obs_call, "(export)", "TRT386", ERROR, "error", "torchscript")
    assert matches(failure, by_line[obs_build])
    assert not matches(failure, by_line[value_build])  # another module: its own call stops the next export
    elsewhere = Problem("export_failure", str(path), lines.index("class Wrapper(nn.Module):") + 1, "(export)",
                        "TRT386", ERROR, "error", "torchscript")
    assert not matches(elsewhere, by_line[obs_build])


def test_a_call_from_another_file_matches_by_the_class_the_error_names(tmp_path: Path) -> None:
    # SAM 2's `SAM2Transforms` (sam2/utils/transforms.py:35-40): `nn.Sequential(...)` on the attribute, then scripted
    # in place; the user's wrapper calls `predictor._transforms.transforms(x)` in its own file, where the run observes
    # no construction (a ScriptModule's call is not seen): the error's class, `Sequential`, links the two.
    path = tmp_path / "transforms.py"
    path.write_text("import torch\nfrom torch import nn\n\n\nclass Transforms(nn.Module):\n"
                    "    def __init__(self, jit: bool = True):\n        super().__init__()\n"
                    "        self.transforms = nn.Sequential(nn.Identity(), nn.ReLU())\n        if jit:\n"
                    "            self.transforms = torch.jit.script(self.transforms)\n")
    [finding] = check_source(path.read_bytes(), str(path), Options(select=SELECT, unsafe=True, scope="all"))
    assert "(built as `nn.Sequential(nn.Identity(), nn.ReLU())`)" in finding.message
    wrapper = str(tmp_path / "wrapper.py")
    error = ("RuntimeError: Tried to trace <__torch__.torch.nn.modules.container.Sequential object at 0x55f953d34860> "
             "but it is not part of the active trace.")
    assert matches(Problem("export_failure", wrapper, 7, "(export)", "TRT386", error, "error", "torchscript"), finding)
    other = error.replace("container.Sequential", "linear.Linear")
    assert not matches(Problem("export_failure", wrapper, 7, "(export)", "TRT386", other, "error", "torchscript"),
                       finding)
