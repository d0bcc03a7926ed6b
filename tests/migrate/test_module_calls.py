"""``module_calls``: the lines that build the module a line of ``forward`` calls, and ``plan.matches``
linking a problem located at that call to a module-replacing rule's finding at the construction; for
modules a factory builds (a class from ``getattr(nn, ...)``, a registry, a parameter, a partial), the
observer's records of each build and of the lines that call the module, ``with_builds`` carrying them on a
problem, and ``migrate`` fixing the pools at their builds in a file that ran only while building."""

from __future__ import annotations

from pathlib import Path

from trtcodemod.evidence.facts import norm
from trtcodemod.migrate.locate import Problem
from trtcodemod.migrate.module_calls import construction_lines
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Finding, Safety

SOURCE = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.blocks = nn.ModuleList()
        for _ in range(n):
            self.blocks.append(nn.MultiheadAttention(16, 2))
        self.head = nn.Sequential(
            nn.Linear(16, 16),
            nn.ReLU(),
        )
        other = nn.MultiheadAttention(16, 2)
        self.other = other

    def forward(self, x):
        x = self.encoder(x)
        for block in self.blocks:
            x = block(x, x, x)[0]
        x = self.head(x)
        return x + torch.zeros(1)
"""


def _file(tmp_path: Path) -> str:
    path = tmp_path / "net.py"
    path.write_text(SOURCE)
    return norm(str(path))


def _lines(ranges: list[tuple[int, int]]) -> set[int]:
    return {n for first, last in ranges for n in range(first, last + 1)}


def test_a_called_attribute_and_the_local_names_it_was_built_from(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert _lines(construction_lines(path, 21)) == {8, 9}
    assert _lines(construction_lines(path, 23)) == {10, 12}  # a loop over self.blocks, filled by append
    assert _lines(construction_lines(path, 24)) == {13, 14, 15, 16}
    assert construction_lines(path, 25) == []  # no module of self is called there
    assert construction_lines(path, 3) == []


#: pypots' TimeMixer (nn/modules/timemixer/backbone.py:154-186), reduced: the pooling module built in the method
#: that calls it, bound to a local name, called in a loop.
LOCAL_MODULE = """\
import torch
from torch import nn


class Mixer(nn.Module):
    def scales(self, x, method):
        if method == "avg":
            pool = torch.nn.AvgPool1d(2)
        else:
            pool = torch.nn.MaxPool1d(
                2)
        out = [x]
        for _ in range(2):
            x = pool(x)
            out.append(x)
        relu = torch.relu
        return out, relu(x)
"""


def test_a_module_built_and_called_by_a_local_name(tmp_path: Path) -> None:
    path = tmp_path / "mixer.py"
    path.write_text(LOCAL_MODULE)
    path = norm(str(path))
    assert _lines(construction_lines(path, 14)) == {8, 10, 11}  # both branches' builds
    assert construction_lines(path, 17) == []  # a local name bound to no call


ATTRIBUTE_LAYER = """\
from torch import nn


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer_layer = nn.TransformerEncoderLayer(
            d_model=16,
            nhead=2,
        )
        self.encoder = nn.TransformerEncoder(
            encoder_layer=self.transformer_layer,
            num_layers=2,
        )

    def forward(self, x):
        return self.encoder.forward(src=x)
"""


def test_a_construction_that_takes_another_attribute_of_self(tmp_path: Path) -> None:
    """pytorch-beam-search 1.2.2, ``autoregressive/models.py``: the layer is an attribute of its own,
    handed to ``nn.TransformerEncoder`` by ``self.transformer_layer``; ``forward`` calls
    ``self.encoder.forward(...)``. Both constructions are the call's."""
    path = tmp_path / "lm.py"
    path.write_text(ATTRIBUTE_LAYER)
    assert _lines(construction_lines(norm(str(path)), 17)) == set(range(7, 15))


def _finding(path: str, rule: str, line: int) -> Finding:
    return Finding(rule, "x", "m", path, line, 9, line, 40, Safety.UNSAFE)


def _baked(path: str, line: int) -> Problem:
    return Problem("baked", path, line, "(traced constant)", None, "Converting a tensor to a Python boolean")


def test_plan_links_the_call_to_the_construction(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert matches(_baked(path, 21), _finding(path, "TRT316", 8))
    assert matches(_baked(path, 23), _finding(path, "TRT316", 12))
    assert not matches(_baked(path, 21), _finding(path, "TRT316", 12))  # another module's construction
    assert not matches(_baked(path, 23), _finding(path, "TRT316", 17))  # self.other is never called
    # Only module-replacing rules are linked; others stay at their own line.
    assert not matches(_baked(path, 21), _finding(path, "TRT101", 8))


BICUBIC_IN_SEQUENTIAL = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(
            nn.Conv2d(3, 2, 3, padding=1),
            nn.Upsample(scale_factor=2, mode="bicubic", align_corners=False),
        )

    def forward(self, x):
        return self.head(x)


def build():
    return Net()
"""


def test_migrate_replaces_a_bicubic_upsample_the_call_line_names(tmp_path: Path) -> None:
    # landmarker's spatial configuration net (zoo 23): the cubic Resize node is placed at the
    # `self.sc_net(...)` call; TRT727's finding is at the `nn.Upsample(mode="bicubic")` inside the
    # Sequential that line calls. Without the link nothing is applied and the TensorRT error stays.
    from support import migrate_small

    path = tmp_path / "net.py"
    path.write_text(BICUBIC_IN_SEQUENTIAL)
    report, code = migrate_small(path)
    assert report["before"]["trt_errors_by_op"] == {"Resize": 1}
    assert [(f["rule"], f["line"]) for f in report["applied"]] == [("TRT727", 10)], report["applied"]
    assert report["after"]["trt_errors"] == 0 and code == 0, report["remaining"]


# --- modules a factory builds: the observed run links the call to the build, in any file ----------------------------

FACTORIES = """\
import functools

from torch import nn

POOLS = {"max": nn.MaxPool1d, "avg": nn.AvgPool1d}


def pool_of(kind, dims):
    pool_class = getattr(nn, f"{kind.capitalize()}Pool{dims}d")
    return pool_class(2)


def registered(kind, **kwargs):
    return POOLS[kind](**kwargs)


class MyPool(nn.MaxPool1d):
    pass
"""

NET = """\
import functools

import torch
from torch import nn

from factories import MyPool, pool_of, registered


class Net(nn.Module):
    def __init__(self, pool_cls=nn.AvgPool1d):
        super().__init__()
        self.down = pool_of("max", 1)
        self.features = nn.Sequential(nn.Conv1d(2, 2, 1), registered("avg", kernel_size=3, stride=1))
        self.passed = pool_cls(2)
        self.mine = MyPool(2)
        self.pair = functools.partial(nn.MaxPool1d, 2)()

    def forward(self, x):
        x = self.down(x)
        x = self.features(x)
        y = self.passed(x)
        return y + self.pair(x)


def build():
    return Net()


def inputs(generator):
    return (torch.randn(2, 2, 24, generator=generator),)
"""


def _factory_project(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "factories.py").write_text(FACTORIES)
    (tmp_path / "net.py").write_text(NET)
    return tmp_path / "factories.py", tmp_path / "net.py"


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def _call_at(name: str, source: str, call: str, cls: str) -> tuple[str, int, int, int, str]:
    """(file, line, first column, end column, class) of the call ``call`` in ``source``, 1-based as a finding's."""
    line = _line(source, call)
    column = source.splitlines()[line - 1].index(call) + 1
    return name, line, column, column + len(call), cls


def test_the_observer_records_each_build_and_the_lines_that_call_the_module(tmp_path: Path) -> None:
    from trtcodemod.migrate.module_calls import with_builds
    from trtcodemod.migrate.run import observe
    from trtcodemod.verify.spec import build_spec

    factories, net = _factory_project(tmp_path)
    spec = build_spec({"model_file": str(net), "model": "build", "inputs": "inputs",
                       "dynamic_axes": {"x": {"0": "batch", "2": "length"}}})
    facts, why = observe(spec, tmp_path / "work")
    assert facts is not None, why
    built = sorted((Path(e["path"]).name, e["line"], e["column"], e["end_column"], e["cls"]) for e in facts.events
                   if e["kind"] == "module_built")
    # The class whatever named it: getattr on nn, a registry, a parameter, a partial; the call's own span. A user's
    # subclass is not torch's class (its __init__ is the user's own), and is not recorded.
    assert built == sorted([
        _call_at("factories.py", FACTORIES, "pool_class(2)", "torch.nn.MaxPool1d"),
        _call_at("factories.py", FACTORIES, "POOLS[kind](**kwargs)", "torch.nn.AvgPool1d"),
        _call_at("net.py", NET, "nn.Conv1d(2, 2, 1)", "torch.nn.Conv1d"),
        _call_at("net.py", NET, 'nn.Sequential(nn.Conv1d(2, 2, 1), registered("avg", kernel_size=3, stride=1))',
                 "torch.nn.Sequential"),
        _call_at("net.py", NET, "pool_cls(2)", "torch.nn.AvgPool1d"),
        _call_at("net.py", NET, "functools.partial(nn.MaxPool1d, 2)()", "torch.nn.MaxPool1d"),
    ]), built
    # Each module called during the forwards is linked to its build, at the user's line that called it (the
    # Sequential's line for the pool it runs).
    down = facts.builds_called_at(str(net), _line(NET, "x = self.down(x)"))
    assert [(Path(s.path).name, s.line) for s in down] == [("factories.py", _line(FACTORIES, "pool_class(2)"))]
    features = facts.builds_called_at(str(net), _line(NET, "x = self.features(x)"))
    assert sorted((Path(s.path).name, s.line) for s in features) == sorted(
        [("net.py", _line(NET, "nn.Sequential(nn.Conv1d"))] * 2 + [("factories.py", _line(FACTORIES, "POOLS[kind]"))])
    assert facts.builds_called_at(str(net), _line(NET, "return y +")) != []
    assert facts.builds_called_at(str(net), _line(NET, "self.mine =")) == []  # built, never called
    assert facts.builds_called_at(str(net), 3) == []
    # A problem at the call carries them; one elsewhere does not.
    at_call = Problem("hostile", norm(str(net)), _line(NET, "x = self.down(x)"), "MaxPool", "TRT603", "1-D pooling")
    [linked] = with_builds([at_call], facts)
    assert [(Path(s.path).name, s.line) for s in linked.built] == [("factories.py", _line(FACTORIES, "pool_class(2)"))]
    assert with_builds([_baked(norm(str(net)), 3)], facts)[0].built == ()
    assert "built_at" in linked.to_json() and "built" not in linked.to_json()


def test_plan_links_a_call_to_the_observed_build_in_another_file(tmp_path: Path) -> None:
    from trtcodemod.evidence.facts import Span

    factories, net = _factory_project(tmp_path)
    first, second = _line(FACTORIES, "pool_class(2)"), _line(FACTORIES, "POOLS[kind]")
    build = Span(norm(str(factories)), first, 12, first, 25)
    call = _line(NET, "x = self.down(x)")
    problem = Problem("hostile", norm(str(net)), call, "MaxPool", "TRT603", "1-D pooling", built=(build,))
    assert matches(problem, _finding(norm(str(factories)), "TRT603", first))
    assert not matches(problem, _finding(norm(str(factories)), "TRT603", second))  # another build
    assert not matches(problem, _finding(norm(str(factories)), "TRT101", first))  # not a module-replacing rule
    unlinked = Problem("hostile", norm(str(net)), call, "MaxPool", "TRT603", "1-D pooling")
    assert not matches(unlinked, _finding(norm(str(factories)), "TRT603", first))


def test_migrate_fixes_pools_a_factory_builds_in_another_file(tmp_path: Path) -> None:
    from support import migrate_json

    factories, net = _factory_project(tmp_path)
    report = migrate_json(net, '{"x": {"0": "batch", "2": "length"}}')
    assert set(report["before"]["trt_errors_by_op"]) == {"MaxPool", "AveragePool"}, report["before"]
    applied = sorted((Path(f["path"]).name, f["line"]) for f in report["applied"])
    # factories.py ran only while the model was built: it is analysed because a module called at a located
    # problem was built there.
    assert applied == sorted([("factories.py", _line(FACTORIES, "pool_class(2)")),
                              ("factories.py", _line(FACTORIES, "POOLS[kind]")), ("net.py", _line(NET, "self.passed =")),
                              ("net.py", _line(NET, "self.pair ="))]), applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert "return _trt_pool_class(pool_class)(2)" in report["diff"]
    assert "return _trt_pool_class(POOLS[kind])(**kwargs)" in report["diff"]
    assert "self.pair = _trt_pool_class(functools.partial(nn.MaxPool1d, 2))()" in report["diff"]
