"""A condition on the model's own values (a buffer, a parameter, a setting) is the same on every
input, so the branch a trace keeps is right on every input: transformers' EoMT tests
``self.attn_mask_probs[i] > 0`` per layer and passes it on as ``prob`` to a static method that
tests ``prob < 1`` (transformers 5.24, ``models/eomt/modeling_eomt.py:1107`` and ``:1200``)."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path
from typing import Any, Callable

import torch
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.migrate.constant_reads import constant_constructor_lines, constant_test_lines
from trtcodemod.migrate.locate import CONSTANT_DATA_NOTE, INPUT_FREE_NOTE

EOMT_LIKE = '''\
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(n))
        self.num_blocks = 2
        self.register_buffer("probs", torch.tensor([1.0, 0.0, 1.0]))

    def forward(self, x):
        for idx, layer in enumerate(self.layers):
            if idx >= len(self.layers) - self.num_blocks and (
                self.training or self.probs[idx] > 0
            ):
                x = self._mask(x, prob=self.probs[idx])
            x = layer(x)
        return x

    @staticmethod
    def _mask(x, prob):
        if prob < 1:
            x = x * 0.5
        return x
'''


def _lines(source: str) -> set[int]:
    return constant_test_lines(ast.parse(textwrap.dedent(source)))


def _line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_a_buffer_read_in_a_loop_over_layers_and_through_a_static_method_is_constant() -> None:
    lines = _lines(EOMT_LIKE)
    assert {_line_of(EOMT_LIKE, "if idx >="), _line_of(EOMT_LIKE, "self.training or"),
            _line_of(EOMT_LIKE, "if prob < 1")} <= lines


def test_a_condition_on_the_input_is_not_constant() -> None:
    source = EOMT_LIKE.replace("self.probs[idx] > 0", "x.sum() > 0")
    assert _line_of(source, "self.training or") not in _lines(source)


def test_a_parameter_passed_an_input_somewhere_is_not_constant() -> None:
    source = EOMT_LIKE.replace("        return x\n\n    @staticmethod",
                               "        return self._mask(x, prob=x.mean())\n\n    @staticmethod")
    assert _line_of(source, "if prob < 1") not in _lines(source)
    source = EOMT_LIKE.replace("prob=self.probs[idx]", "prob=x.max()")
    assert _line_of(source, "if prob < 1") not in _lines(source)


def test_state_changed_after_init_is_not_constant() -> None:
    for change in ("self.probs = self.probs * 0.9", "self.probs += 1", "self.probs.mul_(0.9)",
                   "self.probs[0] = 0.0", "nn.init.zeros_(self.probs)", "setattr(self, 'probs', x)"):
        source = EOMT_LIKE.replace("            x = layer(x)\n", f"            x = layer(x)\n            {change}\n")
        assert _line_of(source, "self.training or") not in _lines(source), change


def test_a_list_on_self_that_grows_is_not_constant() -> None:
    source = '''\
class Queue:
    def __init__(self):
        self.frames = []

    def forward(self, x):
        self.frames.append(x)
        if len(self.frames) > 4:
            x = x * 2
        return x
'''
    assert _line_of(source, "if len(") not in _lines(source)
    assert _line_of(source, "if len(") in _lines(source.replace("self.frames.append(x)", "pass"))


#: monai 1.6.1 ``networks/nets/dints.py`` (DiNTS and TopologyInstance, lines 499, 513, 682), reduced:
#: architecture codes set in ``__init__``, a search class of the same file that indexes a table of
#: its own with ``self.num_blocks`` and reads a code as ``.data.cpu()``, and loops over the codes.
DINTS_LIKE = '''\
import torch
from torch import nn


class Topology(nn.Module):
    def __init__(self, code, num_blocks):
        super().__init__()
        self.num_blocks = num_blocks
        self.code = code
        self.node_a = torch.ones(num_blocks + 1, 2)

    def forward(self, x):
        for d in range(2):
            if self.node_a[0][d]:
                x = x + d
        for b in range(self.num_blocks):
            for i, active in enumerate(self.code[b].data):
                if active:
                    x = x * 2
        return x


class Search(Topology):
    def decode(self, table):
        table[1 + (self.num_blocks - 1):, -1] = 0.001
        return self.code[0].data.cpu()
'''


def test_an_index_an_assignment_reads_and_a_copy_to_the_cpu_change_nothing() -> None:
    lines = _lines(DINTS_LIKE)
    assert {_line_of(DINTS_LIKE, "if self.node_a"), _line_of(DINTS_LIKE, "if active")} <= lines
    for change in ("self.num_blocks = 3", "self.code[0] = 0", "self.code.add_(1)", "self.node_a, y = table, 1"):
        source = DINTS_LIKE.replace("        return self.code[0].data.cpu()", f"        {change}\n        return table")
        changed = _line_of(source, "if self.node_a") if "node_a" in change else _line_of(source, "if active")
        assert changed not in _lines(source), change


def test_random_values_and_calls_of_submodules_are_not_constant() -> None:
    for test in ("torch.rand(1) > self.probs[0]", "self.layers[0](x).sum() > 0", "self.probs[idx] > x"):
        source = EOMT_LIKE.replace("self.probs[idx] > 0", test)
        assert _line_of(source, "self.training or") not in _lines(source), test


FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json"]
MODEL = EOMT_LIKE + '''

def build() -> nn.Module:
    torch.manual_seed(0)
    return Encoder(3).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, generator=generator),)
'''


def _migrate(tmp_path: Path, source: str) -> dict[str, Any]:
    model = tmp_path / "encoder.py"
    model.write_text(source)
    result = CliRunner().invoke(app, ["migrate", str(model), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", '{"x": {"0": "batch"}}', *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return json.loads(result.stdout)["models"][0]


def test_migrate_keeps_a_read_of_a_buffer_as_a_warning_and_exits_0(tmp_path: Path) -> None:
    report = _migrate(tmp_path, MODEL)
    constant = {_line_of(MODEL, "if idx >="), _line_of(MODEL, "self.training or"), _line_of(MODEL, "if prob < 1")}
    at = [r for r in report["remaining"] if int(r["source"].rsplit(":", 1)[1]) in constant]
    assert at and all(r["severity"] == "warning" for r in at), report["remaining"]
    assert any("the same for every input" in r["message"] for r in at)
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True and report["equivalent"] is True


def test_migrate_fixes_a_read_of_the_input(tmp_path: Path) -> None:
    """Passed an input's value, the same test is a real bake: TRT101 blends its branches."""
    source = MODEL.replace("prob=self.probs[idx]", "prob=x.abs().max()")
    report = _migrate(tmp_path, source)
    line = _line_of(source, "if prob < 1")
    assert [a["rule"] for a in report["applied"] if a["line"] == line] == ["TRT101"], report["applied"]
    assert not any("the same for every input" in r["message"] and r["source"].endswith(f":{line}")
                   for r in report["remaining"])


def test_the_model_is_what_the_analysis_says() -> None:
    """The constant branch is the same on zeros, negatives, an empty batch and inf: the buffer
    decides it, never the input (the model above, run eagerly)."""
    namespace: dict[str, Any] = {}
    exec(compile(MODEL, "encoder.py", "exec"), namespace)
    model = namespace["build"]()
    traced = torch.jit.trace(model, (torch.randn(2, 4),), check_trace=False)
    for x in (torch.zeros(3, 4), -torch.ones(5, 4), torch.empty(0, 4), torch.full((1, 4), float("inf"))):
        torch.testing.assert_close(traced(x), model(x), equal_nan=True)


CONSTRUCTED = '''\
import torch
from torch import nn

SCALE = 2.0


class Points(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.anchors = [[1.0, 2.0], [3.0, 4.0]]

    def forward(self, x):
        h, w = x.shape[2:]
        frac = torch.tensor([[0.1, 0.2], [0.5, -0.5]])
        anchors = torch.as_tensor(self.anchors) * SCALE
        size = torch.tensor([h, w], dtype=torch.float)
        mixed = torch.tensor([1.0]) + torch.as_tensor([w])
        k = int(w // 2)
        return x[:, :2, 0, :k].mean(-1) * frac[0] * anchors[1] * size[0] * mixed
'''


def test_constructors_of_literals_and_settings_are_constant() -> None:
    """oflibpytorch's track_pts wrapper builds point fractions with `torch.tensor` of literals beside
    `torch.tensor([h - 1, w - 1])` of sizes: only the first copies the same numbers at every size."""
    lines = constant_constructor_lines(ast.parse(CONSTRUCTED))
    assert _line_of(CONSTRUCTED, "frac =") in lines
    assert _line_of(CONSTRUCTED, "anchors = torch.as_tensor") in lines
    assert _line_of(CONSTRUCTED, "size = torch.tensor") not in lines
    assert _line_of(CONSTRUCTED, "mixed =") not in lines  # a constant beside a size on one line


def test_constructors_of_changed_state_or_inputs_are_not_constant() -> None:
    changed = CONSTRUCTED.replace("        h, w = x.shape[2:]", "        self.anchors = x.tolist()\n        h, w = x.shape[2:]")
    assert _line_of(changed, "anchors = torch.as_tensor") not in constant_constructor_lines(ast.parse(changed))
    read = CONSTRUCTED.replace("[[0.1, 0.2], [0.5, -0.5]]", "x[0, 0, 0].tolist()")
    assert _line_of(read, "frac =") not in constant_constructor_lines(ast.parse(read))


def _remaining_at(model: Path, axes: str, source: str) -> Callable[[str], list[dict[str, Any]]]:
    """``migrate`` on ``model`` with the size rules left out (TRT7): what remains at the line of ``source``
    holding a text."""
    result = CliRunner().invoke(app, ["migrate", str(model), "--model", "build", "--inputs", "inputs", "--dynamic-axes",
                                      axes, "--ignore", "TRT7", *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    remaining = json.loads(result.stdout)["models"][0]["remaining"]
    return lambda text: [r for r in remaining if r["source"].endswith(f":{_line_of(source, text)}")]


def test_migrate_names_a_constant_of_literals_a_warning_and_sizes_an_error(tmp_path: Path) -> None:
    """With the size rules left out the sizes stay baked (the graph differs at other sizes): the
    constants of literals and settings are warnings beside them, the mixed line is not."""
    model = tmp_path / "points.py"
    model.write_text(CONSTRUCTED + '''

def build() -> nn.Module:
    return Points().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 20, generator=generator),)
''')
    at = _remaining_at(model, '{"x": {"0": "batch", "2": "height", "3": "width"}}', CONSTRUCTED)

    for text in ("frac =", "anchors = torch.as_tensor"):
        assert at(text) and all(r["severity"] == "warning" and CONSTANT_DATA_NOTE in r["message"]
                                for r in at(text)), at(text)
    assert not any(CONSTANT_DATA_NOTE in r["message"] for r in at("mixed ="))


GRID = '''\
import torch
from torch import nn


def _check_grid(t):
    reversed_grid = False
    if len(t) > 1 and t[0] > t[1]:
        reversed_grid = True
    return reversed_grid


def integrate(f, y, t):
    backwards = _check_grid(t)
    j = 1
    while j < len(t) and t[j] > t[j - 1]:
        y = y + (t[j] - t[j - 1]) * f(y)
        j += 1
    return -y if backwards else y


class Flow(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.f = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        t = torch.tensor([0.0, 0.5, 1.0])
        return integrate(lambda y: torch.tanh(self.f(y)), x, t)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Flow().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 8, generator=generator),)
'''


def _migrate_grid(tmp_path: Path, source: str) -> dict[str, Any]:
    model = tmp_path / "flow.py"
    model.write_text(source)
    result = CliRunner().invoke(app, ["migrate", str(model), "--model", "build", "--inputs", "inputs", "--dynamic-axes",
                                      '{"x": {"0": "batch", "2": "height", "3": "width"}}', *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return json.loads(result.stdout)["models"][0]


def test_reads_of_a_time_grid_built_from_literals_are_the_same_for_every_input(tmp_path: Path) -> None:
    """torchdiffeq's solvers read the time grid in Python in their own files (`if len(t) > 1 and t[0] >
    t[1]:`, `while j < len(t) and t1 >= t[j]:`); the grid the model builds from literals reaches no input
    in the traced graph, so each read is a warning and the model migrates."""
    report = _migrate_grid(tmp_path, GRID)
    lines = {_line_of(GRID, "if len(t) > 1"), _line_of(GRID, "while j < len(t)")}
    at = [r for r in report["remaining"] if int(r["source"].rsplit(":", 1)[1]) in lines]
    assert at and all(r["severity"] == "warning" for r in at), report["remaining"]
    assert any(INPUT_FREE_NOTE in r["message"] or "value computed from no input" in r["message"] for r in at)
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True and report["equivalent"] is True


def test_the_same_reads_of_a_grid_computed_from_the_input_stay_errors(tmp_path: Path) -> None:
    source = GRID.replace("t = torch.tensor([0.0, 0.5, 1.0])", "t = torch.cumsum(x.abs().mean((1, 2, 3))[:1].repeat(3), 0)")
    report = _migrate_grid(tmp_path, source)
    line = _line_of(source, "if len(t) > 1")
    assert not any(INPUT_FREE_NOTE in r["message"] or "value computed from no input" in r["message"]
                   for r in report["remaining"])
    assert any(r["severity"] == "error" and int(r["source"].rsplit(":", 1)[1]) == line
               for r in report["remaining"]) or report["exit_code"] != 0


BASE_MODEL = '''\
import torch
from torch import nn


class BaseStereoModel(nn.Module):
    def __init__(self, config) -> None:
        super().__init__()
        self.config = config
        self.seen = 0

    def step(self):
        self.seen += 1
'''

SUBCLASS_MODEL = '''\
import torch

from .modeling_utils import BaseStereoModel


class Stereo(BaseStereoModel):
    def forward(self, left):
        mean = torch.tensor(self.config.mean, device=left.device, dtype=left.dtype).view(1, 3, 1, 1)
        seen = torch.tensor(self.seen)
        return left + mean + seen
'''


def test_attributes_a_base_class_in_another_file_sets_are_the_models_own(tmp_path: Path) -> None:
    """stereo-matching's S2M2 (zoo 33: ``stereo_matching/models/s2m2/modeling_s2m2.py:971``) builds
    ``torch.tensor(self.config.mean, ...)`` where ``self.config`` is set by ``BaseStereoModel.__init__``
    (``stereo_matching/modeling_utils.py:38``), another file: a setting, the same for every input. An
    attribute the base's file changes after ``__init__`` (``self.seen += 1``) is not; nor is the config
    where this file changes it, nor any of it without the path to follow the import."""
    package = tmp_path / "pkg"
    (package / "models").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models" / "__init__.py").write_text("")
    (package / "modeling_utils.py").write_text(BASE_MODEL)
    path = package / "models" / "stereo.py"
    path.write_text(SUBCLASS_MODEL.replace("from .modeling_utils", "from ..modeling_utils"))
    source = path.read_text()
    lines = constant_constructor_lines(ast.parse(source), path)
    assert _line_of(source, "mean = torch.tensor") in lines
    assert _line_of(source, "seen = torch.tensor") not in lines
    assert _line_of(source, "mean = torch.tensor") not in constant_constructor_lines(ast.parse(source))
    changed = source.replace("        seen =", "        self.config.mean = [0.0, 0.0, 0.0]\n        seen =")
    assert _line_of(changed, "mean = torch.tensor") not in constant_constructor_lines(ast.parse(changed), path)


def test_migrate_names_a_constant_of_an_inherited_setting_a_warning(tmp_path: Path) -> None:
    """S2M2's ``torch.tensor(self.config.mean, ...)`` (zoo 33, ``modeling_s2m2.py:971``; ``self.config`` set
    by the base class's ``__init__`` in ``modeling_utils.py:38``): with a size left baked beside it (the
    size rules left out), the constant is a warning that says it copies the model's own values, and the
    state the base's file changes (``self.seen``) stays without that note."""
    (tmp_path / "modeling_utils.py").write_text(BASE_MODEL)
    model = tmp_path / "stereo.py"
    model.write_text(SUBCLASS_MODEL.replace("from .modeling_utils", "from modeling_utils").replace(
        "        return left + mean + seen", "        k = int(left.shape[-1] // 2)\n"
        "        return (left + mean + seen)[..., :k]") + '''

class Config:
    mean = [0.485, 0.456, 0.406]


def build():
    return Stereo(Config()).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 10, generator=generator),)
''')
    at = _remaining_at(model, '{"left": {"2": "height", "3": "width"}}', model.read_text())
    assert at("mean = torch.tensor") and all(r["severity"] == "warning" and CONSTANT_DATA_NOTE in r["message"]
                                             for r in at("mean = torch.tensor")), at("mean = torch.tensor")
    assert not any(CONSTANT_DATA_NOTE in r["message"] for r in at("seen = torch.tensor"))
