"""The data-dependent-loop recipe (TRT104) on real-code variants.

Each variant in ``tests/recipe_variants/trt104/`` is a small runnable model reduced from a public
repository (cited in its docstring) with a loop whose trip count comes from the data. Each
original's TorchScript export (a trace, with dynamic axes) runs the loop once and unrolls it: the
graph equals eager mode on the example and not where the data asks for another trip count.

- Five are reported and left as written (``REPORTED``). Two loops are in methods (OpenPCDet's
  pillar scatter, mmdetection3d's RoI-aware pooling): scripting a method would script its module.
  ssd.pytorch's NMS is a module-level function that TorchScript rejects as written (parameters with
  defaults and no annotations); annotated with its defaults' types it compiles, but it returns a
  Python int, which a traced export cannot carry out of a scripted function. Its ``while
  idx.numel() > 0`` reads no value, only the size of a boolean selection, and was not reported
  before. kornia's NMS shrinks ``order = order[inds + 1]`` (not reported before: an index shifted
  by a number) and ends with ``torch.tensor(keep)`` of a list started empty, which a scripted
  function rejects at run time where no box is kept.
- DIML's Sinkhorn (an early ``break`` on ``err.item()``) and PyTorch-YOLOv3's merging NMS (a mask
  held in a local, ``detections[~invalid]``) have unannotated parameters: the code alone shows no
  tensor, a recorded run does (``RECORDED``); with migrate's facts the rule scripts both, the graph
  keeps one ``Loop`` and follows the data, and eager mode is unchanged. Neither was reported before.
- kornia's Canny hysteresis reads a name after the loop that only the loop binds, which TorchScript
  rejects (it was scripted into an import error, then reported only): every binding of the name in
  the loop is a tensor and the statement after the loop reads it, so the rule declares it
  ``torch.Tensor | None`` before the loop, asserts it bound after, and scripts the function. The
  graph keeps one ``Loop`` and equals eager mode at other trip counts; eager mode is unchanged.
- kuangliu's RetinaNet ``box_nms`` and an SSD script's copy of it (wchen61) collect index tensors
  (``keep.append(i)``, ``i = order[0]``) and return ``torch.LongTensor(keep)`` or ``torch.tensor(keep,
  dtype=torch.long)``, which TorchScript does not compile (the first also has a string default):
  reported only before. The list of index tensors now becomes ``torch.stack`` cast to the dtype
  and device, or an empty tensor of them, and with migrate's facts (``RECORDED``) the rule scripts
  both; the graph keeps one ``Loop`` and follows the number of boxes kept, eager mode unchanged.
- pyfacer's RetinaFace NMS appends ``order[0].item()``, a Python int, to ``keep = []``, which TorchScript
  types as a list of tensors and refuses at import: reported and left as written (it was scripted, and in
  zoo 90 the model failed at import once the rewrite that hid it went back).
- torchvision's class-by-class NMS loops over ``torch.unique(idxs)`` in a function the library
  scripts when tracing (the recipe, by hand): not reported (it was not a form the rule read, and a
  scripted function's loops stay loops), and its graph follows the number of classes. Without the
  library's decorator the rule reports the loop and puts ``@torch.jit.script`` there: the rewritten
  graph equals eager mode at other class counts and with no boxes, and eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from safety import import_source, run_once
from support import TESTS, rewrite
from variant_models import assert_eager_unchanged, built, export_variant, input_names, load_variant, observed_facts

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt104"


def _canny_sets() -> dict[str, tuple]:
    longer = torch.zeros(1, 1, 5, 12)  # eight passes of the loop where the example takes three
    longer[0, 0, 2, 1:9] = torch.linspace(0.35, 0.6, 8)
    longer[0, 0, 2, 8] = 3.0
    flat = torch.zeros(1, 1, 4, 4)
    return {"a longer weak ramp": (longer,), "no edges": (flat,)}


def _ssd_sets() -> dict[str, tuple]:
    apart = torch.tensor([[0.0, 0.0, 1.0, 1.0], [2.0, 2.0, 3.0, 3.0], [4.0, 4.0, 5.0, 5.0], [6.0, 6.0, 7.0, 7.0],
                          [8.0, 8.0, 9.0, 9.0]])
    return {"five boxes apart": (apart, torch.tensor([0.5, 0.9, 0.3, 0.7, 0.1])),
            "one box": (apart[:1], torch.tensor([0.4]))}


def _pillar_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(2)
    three = torch.tensor([[0, 0, 0, 0], [1, 0, 1, 1], [2, 0, 2, 3], [2, 0, 0, 3]])
    return {"three samples": (torch.randn(4, 3, generator=g), three),
            "one sample": (torch.randn(2, 3, generator=g), torch.tensor([[0, 0, 1, 1], [0, 0, 2, 0]]))}


def _roi_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(3)
    rois = torch.cat([torch.tensor([[0.0], [1.0], [2.0], [2.0]]), torch.rand(4, 7, generator=g)], 1)
    one = torch.cat([torch.tensor([[0.0]]), torch.rand(1, 7, generator=g)], 1)
    return {"three samples": (torch.randn(6, 4, generator=g), torch.randn(6, 3, generator=g),
                              torch.tensor([0, 1, 1, 2, 2, 2]), rois),
            "one sample": (torch.randn(2, 4, generator=g), torch.randn(2, 3, generator=g), torch.tensor([0, 0]), one)}


# name → (the finding's words, where the loop is, input sets with other trip counts)
REPORTED = {
    "ssd_nms_while_numel": ("`while` condition reads the size of a tensor whose size depends on values",
                            "while idx.numel() > 0:", _ssd_sets),
    "openpcdet_pointpillar_scatter": ("`range(...)` bound depends on tensor values", "for batch_idx in range(",
                                      _pillar_sets),
    "mmdet3d_roiaware_batches": ("`range(...)` bound depends on tensor values", "for batch_idx in range(",
                                 _roi_sets),
    "kornia_bbox_nms": ("`while` condition reads the size of a tensor whose size depends on values",
                        "while order.shape[0] > 0:", _ssd_sets),
    "pyfacer_retinaface_nms": ("`while` condition reads the size of a tensor whose size depends on values",
                               "while order.numel() > 0:", _ssd_sets),
}


def _nms_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(4)
    return {
        "four classes": (torch.rand(9, 4, generator=g), torch.rand(9, generator=g),
                         torch.tensor([3, 1, 0, 2, 3, 1, 0, 2, 2])),
        "one class": (torch.rand(3, 4, generator=g), torch.rand(3, generator=g), torch.tensor([5, 5, 5])),
        "no boxes": (torch.zeros(0, 4), torch.zeros(0), torch.zeros(0, dtype=torch.long)),
        "tied, negative and NaN scores": (torch.rand(4, 4, generator=g), torch.tensor([0.5, 0.5, -1.0, float("nan")]),
                                          torch.tensor([1, 1, 0, 2])),
    }


def _matches(session, model: torch.nn.Module, inputs: tuple) -> bool:
    """The graph gives eager mode's output (shape, values, NaN where NaN), fed the inputs it kept
    (an input only the loop reads is dropped from an unrolled graph); False where it fails."""
    with torch.no_grad():
        want = model(*inputs)
    kept = {i.name for i in session.get_inputs()}
    try:
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs) if n in kept})
    except Exception:  # noqa: BLE001 - a graph that cannot run on these inputs does not match
        return False
    got = torch.from_numpy(got)
    return got.shape == want.shape and torch.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)


def _export(model: torch.nn.Module, module, path: Path):
    session, _ = export_variant(model, module.inputs(torch.Generator().manual_seed(0)), module.DYNAMIC, path,
                                path.parent)
    return session


@pytest.fixture(scope="module", params=list(REPORTED))
def reported(request, tmp_path_factory) -> dict:
    name = request.param
    module = load_variant(HERE / f"{name}.py", f"trt104_{name}")
    model = built(module)
    session = _export(model, module, tmp_path_factory.mktemp(name) / "before.onnx")
    return dict(name=name, module=module, model=model, session=session)


def test_the_loop_is_reported_and_left_as_written(reported) -> None:
    words, where, _ = REPORTED[reported["name"]]
    path = HERE / f"{reported['name']}.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT104",), unsafe=True, scope="all"))
    assert result.source.decode() == path.read_text()
    [finding] = [f for f in result.findings if f.rule == "TRT104"]
    assert words in finding.message
    assert path.read_text().splitlines()[finding.line - 1].strip().startswith(where)


def test_the_original_export_unrolls_the_examples_trip_count(reported) -> None:
    _, _, sets = REPORTED[reported["name"]]
    example = reported["module"].inputs(torch.Generator().manual_seed(0))
    assert _matches(reported["session"], reported["model"], example)
    assert not all(_matches(reported["session"], reported["model"], inputs) for inputs in sets().values())


@pytest.mark.parametrize("name, error", [("kornia_canny_hysteresis", "undefined value hysteresis_magnitude"),
                                         ("ssd_nms_while_numel", "Expected a default value of type Tensor"),
                                         ("pyfacer_retinaface_nms", "Could not match type number")])
def test_torchscript_rejects_the_functions_the_rule_does_not_script(name: str, error: str) -> None:
    """Why these module-level functions keep their form: the decorator would raise at import."""
    module = load_variant(HERE / f"{name}.py", f"trt104_reject_{name}")
    function = module.canny if name == "kornia_canny_hysteresis" else module.nms
    with pytest.raises(RuntimeError, match=error):
        torch.jit.script(function)


@pytest.fixture(scope="module")
def nms(tmp_path_factory) -> dict:
    """torchvision's class-by-class NMS as the library writes it, and without its decorator:
    as written, and as TRT104 rewrites that; each exported."""
    folder = tmp_path_factory.mktemp("torchvision_nms")
    path = HERE / "torchvision_batched_nms_vanilla.py"
    bare = folder / "bare.py"
    bare.write_text(path.read_text().replace("@torch.jit._script_if_tracing\n", ""))
    source = fix_source(bare.read_bytes(), str(bare), Options(select=("TRT104",), unsafe=True, scope="all"))
    (folder / "scripted.py").write_text(source.source.decode())
    found = {}
    for label, file in (("library", path), ("bare", bare), ("scripted", folder / "scripted.py")):
        module = load_variant(file, f"trt104_nms_{label}")
        model = built(module)
        found[label] = dict(module=module, model=model, session=_export(model, module, folder / f"{label}.onnx"),
                            graph=onnx.load(str(folder / f"{label}.onnx")))
    return dict(found, bare_result=source, sets={"example": found["library"]["module"].inputs(
        torch.Generator().manual_seed(0)), **_nms_sets()})


def test_a_loop_the_library_scripts_is_not_reported_and_follows_the_classes(nms) -> None:
    path = HERE / "torchvision_batched_nms_vanilla.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT104",), unsafe=True, scope="all"))
    assert result.source.decode() == path.read_text() and not result.findings
    library = nms["library"]
    for label, inputs in nms["sets"].items():
        assert _matches(library["session"], library["model"], inputs), label


def test_without_the_decorator_the_rule_scripts_the_function_and_the_graph_follows(nms) -> None:
    result = nms["bare_result"]
    assert [f.rule for f in result.findings] == ["TRT104"]
    assert "iterates over a tensor whose size depends on values" in result.findings[0].message
    assert "@torch.jit.script\ndef _batched_nms_vanilla(" in result.source.decode()
    bare, scripted = nms["bare"], nms["scripted"]
    assert not all(_matches(bare["session"], bare["model"], inputs) for inputs in nms["sets"].values())
    assert [n.op_type for n in scripted["graph"].graph.node].count("Loop") == 1
    for label, inputs in nms["sets"].items():
        assert _matches(scripted["session"], bare["model"], inputs), label
    assert_eager_unchanged(bare["model"], scripted["model"], nms["sets"])


SIZED = """\
import torch


def nonzero_len(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    for _ in range(len(m.nonzero())):
        x = x + 1
    return x


def counted(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    n = torch.where(m > 0)[0].numel()
    for _ in range(n):
        x = x * 2
    return x


def per_label(x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    out = torch.zeros_like(x)
    for c in torch.unique(labels):
        out = out + x * (labels == c)
    return out


def shrinking(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    idx = s.argsort()
    while idx.shape[0] > 0:
        x = x + s[idx[-1]]
        idx = idx[:-1]
        idx = idx[s[idx].gt(0.5)]
    return x
"""

STATIC = """\
import torch


def sliced(x: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    while order.numel() > 0:
        x = x + order[0]
        order = order[1:]
    return x


def rows(x: torch.Tensor) -> torch.Tensor:
    for i in range(len(x)):
        x = x + i
    for row in x:
        x = x + row
    return x
"""


def test_trip_counts_from_sizes_of_selections_are_reported_and_scripted(tmp_path: Path) -> None:
    """The size of ``nonzero``, a one-argument ``where``, ``unique`` or a boolean selection is the
    data's, whether read by ``len``, ``numel``, ``shape`` or by iterating (none reported before)."""
    after = rewrite(SIZED, unsafe=True, select=("TRT104",))
    for name in ("nonzero_len", "counted", "per_label", "shrinking"):
        assert f"@torch.jit.script\ndef {name}(" in after, name
    namespace, scripted = import_source(SIZED, tmp_path), import_source(after, tmp_path)
    for x, m in ((torch.randn(5), torch.tensor([0.0, 2.0, 0.0, 1.0, 3.0])), (torch.zeros(3), torch.zeros(3)),
                 (torch.zeros(0), torch.zeros(0)), (torch.tensor([float("inf"), -1.0]), torch.tensor([1.0, 0.75]))):
        labels = (m * 2).long()
        for name, args in (("nonzero_len", (x, m)), ("counted", (x, m)), ("per_label", (x, labels)),
                           ("shrinking", (x, m))):
            want, got = namespace[name](*args), scripted[name](*args)
            assert got.dtype == want.dtype and torch.equal(got.nan_to_num(), want.nan_to_num()), name


def test_sizes_that_follow_shapes_are_not_reported() -> None:
    assert rewrite(STATIC, unsafe=True, select=("TRT104",)) == STATIC
    result = fix_source(STATIC.encode(), "static.py", Options(select=("TRT104",), scope="all"))
    assert result.findings == []


SCRIPTED = """\
import torch


@torch.jit.script
def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = x * 0.5
    return x


@torch.jit.script_if_tracing
def settle(x: torch.Tensor) -> torch.Tensor:
    while x.abs().max() > 1.0:
        x = x * 0.5
    return x
"""


def test_loops_in_functions_torchscript_compiles_are_not_reported() -> None:
    """A scripted function's loop stays an ONNX ``Loop``; reporting it made ``apply --unsafe``
    report its own rewrite again."""
    result = fix_source(SCRIPTED.encode(), "scripted.py", Options(select=("TRT104",), unsafe=True, scope="all"))
    assert result.findings == []


def _canny_more_sets() -> dict[str, tuple]:
    ramp = torch.zeros(1, 1, 7, 9)  # nine passes where the example takes three
    ramp[0, 0, 3, :8] = torch.linspace(0.3, 0.7, 8)
    ramp[0, 0, 3, 8] = 4.0
    ramp[0, 0, 5, 1:6] = -torch.linspace(0.3, 5.0, 5)  # negative values: the magnitude is the same
    odd = torch.zeros(1, 1, 4, 5)
    odd[0, 0, 1, 1], odd[0, 0, 2, 3] = float("inf"), float("nan")
    return {"example": _canny_example(), **_canny_sets(), "a longer ramp and negatives": (ramp,),
            "inf and NaN": (odd,)}


def _canny_example() -> tuple:
    module = load_variant(HERE / "kornia_canny_hysteresis.py", "trt104_canny_example")
    return module.inputs(torch.Generator().manual_seed(0))


@pytest.fixture(scope="module")
def canny(tmp_path_factory) -> dict:
    """kornia's Canny as written and as TRT104 rewrites it, each exported."""
    folder = tmp_path_factory.mktemp("canny")
    path = HERE / "kornia_canny_hysteresis.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT104",), unsafe=True, scope="all"))
    (folder / "scripted.py").write_text(result.source.decode())
    found = {}
    for label, file in (("original", path), ("scripted", folder / "scripted.py")):
        module = load_variant(file, f"trt104_canny_{label}")
        model = built(module)
        found[label] = dict(module=module, model=model, session=_export(model, module, folder / f"{label}.onnx"),
                            graph=onnx.load(str(folder / f"{label}.onnx")))
    return dict(found, result=result)


def test_canny_name_bound_in_the_loop_is_declared_and_the_function_scripted(canny) -> None:
    result = canny["result"]
    assert [f.rule for f in result.findings] == ["TRT104"]
    assert "`while` condition depends on tensor values" in result.findings[0].message
    after = result.source.decode()
    assert "@torch.jit.script\ndef canny(" in after
    assert ("        hysteresis_magnitude: torch.Tensor | None = None\n"
            "        while ((edges_old - edges).abs() != 0).any():\n") in after
    assert ("        assert hysteresis_magnitude is not None\n"
            "        edges = hysteresis_magnitude\n") in after
    original = (HERE / "kornia_canny_hysteresis.py").read_text().splitlines()
    added = [line for line in after.splitlines() if line not in original]
    assert len(added) == 3  # every other line kept


def test_canny_rewritten_graph_keeps_the_loop_and_follows_the_data(canny) -> None:
    original, scripted = canny["original"], canny["scripted"]
    sets = _canny_more_sets()
    assert not all(_matches(original["session"], original["model"], inputs) for inputs in sets.values())
    assert [n.op_type for n in original["graph"].graph.node].count("Loop") == 0
    assert [n.op_type for n in scripted["graph"].graph.node].count("Loop") == 1
    for label, inputs in sets.items():
        assert _matches(scripted["session"], original["model"], inputs), label


def test_canny_eager_mode_is_unchanged(canny) -> None:
    assert isinstance(canny["scripted"]["module"].canny, torch.jit.ScriptFunction)  # compiled, not left as written
    assert_eager_unchanged(canny["original"]["model"], canny["scripted"]["model"], _canny_more_sets())


def test_canny_zero_passes_raises_before_and_after(canny) -> None:
    """An empty image runs the loop zero times: eager mode raised at the read of the unbound name,
    the scripted function raises at the assertion the rule added, one line before."""
    empty = torch.zeros(1, 1, 0, 4)
    with pytest.raises(UnboundLocalError):
        canny["original"]["model"](empty)
    with pytest.raises(torch.jit.Error, match="AssertionError"):
        canny["scripted"]["model"](empty)


PREBIND = """\
import torch


def last_step(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    for _ in range(int(n)):
        step = x * 0.5
        x = x - step
    return step


def last_index(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    for i in range(int(n)):
        last = i
        x = x + 1
    return x * last


def read_later(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    for _ in range(int(n)):
        step = x * 0.5
        x = x - step
    x = x + 1
    return x + step


def read_maybe(x: torch.Tensor, n: torch.Tensor, flag: bool) -> torch.Tensor:
    for _ in range(int(n)):
        step = x * 0.5
        x = x - step
    return step if flag else x
"""


def test_a_tensor_first_bound_in_the_loop_and_read_next_is_declared(tmp_path: Path) -> None:
    """Taken: every binding is a tensor and the next statement reads it. Refused (reported only, as
    before): a name bound to a Python int, one read only later, one read under a condition."""
    after = rewrite(PREBIND, unsafe=True, select=("TRT104",))
    assert ("@torch.jit.script\ndef last_step(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:\n"
            "    step: torch.Tensor | None = None\n    for _ in range(int(n)):\n") in after
    assert "        x = x - step\n    assert step is not None\n    return step\n" in after
    for name in ("last_index", "read_later", "read_maybe"):
        assert f"\n\ndef {name}(" in after and f"@torch.jit.script\ndef {name}(" not in after, name
    assert after.count("torch.Tensor | None") == 1
    result = fix_source(PREBIND.encode(), "prebind.py", Options(select=("TRT104",), unsafe=True, scope="all"))
    assert len(result.findings) == 4
    namespace, scripted = import_source(PREBIND, tmp_path), import_source(after, tmp_path)
    for x, n in ((torch.randn(4), torch.tensor(3)), (torch.tensor([0.0, -2.0, float("inf"), float("nan")]),
                                                    torch.tensor(1.9)), (torch.zeros(0), torch.tensor(2))):
        want, got = namespace["last_step"](x, n), scripted["last_step"](x, n)
        assert got.dtype == want.dtype and torch.equal(got.nan_to_num(), want.nan_to_num())
    with pytest.raises(UnboundLocalError):
        namespace["last_step"](torch.ones(2), torch.tensor(0))
    with pytest.raises(torch.jit.Error, match="AssertionError"):
        scripted["last_step"](torch.ones(2), torch.tensor(0))


DEFAULTS = """\
import torch


def settle(x: torch.Tensor, limit=1.0, shrink=0.5, steps=-1, keep_sign=True):
    while x.abs().max() > limit:
        x = x * shrink
        steps += 1
    return x.abs() * (steps + 1) if not keep_sign else x


def settle_any(x: torch.Tensor, limit=None):
    while x.abs().max() > 1.0:
        x = x * 0.5
    return x


def settle_count(x: torch.Tensor, limit: float = 1.0):
    count = 0
    while x.abs().max() > limit:
        x = x * 0.5
        count += 1
    return x, 0
"""


def test_number_and_bool_defaults_are_annotated_with_their_type(tmp_path: Path) -> None:
    """A literal default tells its type: annotated so, the function compiles and runs as before.
    A ``None`` default tells nothing, and a returned number cannot leave a scripted function in a
    traced export: those stay reported only."""
    after = rewrite(DEFAULTS, unsafe=True, select=("TRT104",))
    assert ("@torch.jit.script\ndef settle(x: torch.Tensor, limit: float = 1.0, shrink: float = 0.5, "
            "steps: int = -1, keep_sign: bool = True):\n") in after
    assert "\n\ndef settle_any(x: torch.Tensor, limit=None):\n" in after
    assert "\n\ndef settle_count(x: torch.Tensor, limit: float = 1.0):\n" in after
    namespace, scripted = import_source(DEFAULTS, tmp_path), import_source(after, tmp_path)
    for x in (torch.tensor([3.0, -8.0, 0.5]), torch.zeros(2), torch.tensor([-0.0, 1.0]), torch.tensor([1e30]),
              torch.tensor([float("nan")])):
        for args in ((), (2.0,), (1.0, 0.25, 3, False), (4, 0.5, 0, False)):
            want, got = namespace["settle"](x, *args), scripted["settle"](x, *args)
            assert got.dtype == want.dtype and torch.equal(got.nan_to_num(), want.nan_to_num()), (x, args)


def test_ssd_nms_with_its_defaults_annotated_compiles_yet_its_number_output_stops_the_trace(tmp_path: Path) -> None:
    """Why ssd.pytorch's NMS stays reported: annotated from its defaults it compiles, but it
    returns ``count``, a Python int, which a traced export cannot carry out of a scripted function."""
    path = HERE / "ssd_nms_while_numel.py"
    source = path.read_text().replace("def nms(boxes, scores, overlap=0.5, top_k=200):",
                                      "@torch.jit.script\ndef nms(boxes, scores, overlap: float=0.5, top_k: int=200):")
    (tmp_path / "ssd_annotated.py").write_text(source)
    module = load_variant(tmp_path / "ssd_annotated.py", "trt104_ssd_annotated")
    model, example = built(module), module.inputs(torch.Generator().manual_seed(0))
    assert torch.equal(model(*example), built(load_variant(path, "trt104_ssd_plain"))(*example))
    with pytest.raises(RuntimeError, match="Tracer cannot set value trace for type Int"):
        torch.jit.trace(model, example)


def test_kornia_nms_scripted_by_hand_raises_where_no_box_is_kept() -> None:
    """Why kornia's NMS stays reported: it compiles, but ``torch.tensor(keep)`` of a list started
    empty (a list of tensors to TorchScript) raises where eager mode returned an empty tensor."""
    module = load_variant(HERE / "kornia_bbox_nms.py", "trt104_kornia_nms_by_hand")
    scripted = torch.jit.script(module.nms)
    boxes, scores = module.inputs(torch.Generator().manual_seed(0))
    assert torch.equal(scripted(boxes, scores, 0.5), module.nms(boxes, scores, 0.5))
    assert module.nms(torch.zeros(0, 4), torch.zeros(0), 0.5).shape == (0,)
    with pytest.raises(RuntimeError, match="Input must be of ints, floats, or bools"):
        scripted(torch.zeros(0, 4), torch.zeros(0), 0.5)


def _sinkhorn_sets() -> dict[str, tuple]:
    def pair(seed: int, regions: int, images: int, sign: float = 1.0) -> tuple:
        g = torch.Generator().manual_seed(seed)
        anchor = sign * torch.nn.functional.normalize(torch.rand(8, regions, generator=g), dim=0)
        return anchor, torch.nn.functional.normalize(torch.rand(images, 8, regions, generator=g), dim=1)

    g = torch.Generator().manual_seed(8)
    peaked = (torch.nn.functional.normalize(torch.randn(8, 4, generator=g), dim=0),
              torch.nn.functional.normalize(torch.randn(3, 8, 4, generator=g), dim=1))
    return {"six regions, two images": pair(5, 6, 2), "peaked (more passes)": peaked,
            "zeros": (torch.zeros(8, 4), torch.zeros(3, 8, 4)), "negatives": pair(9, 4, 3, -1.0),
            "one image, one region": pair(11, 1, 1)}


def _merge_sets() -> dict[str, tuple]:
    def rows(*boxes: list[float]) -> tuple:
        return (torch.tensor(boxes),)

    nan, inf = float("nan"), float("inf")
    return {
        "five apart": rows(*([5.0 * k, 5.0 * k, 5.0 * k + 1, 5.0 * k + 1, 0.9 - 0.1 * k, 0.8, 0.1, 0.1]
                             for k in range(5))),
        "one overlapping cluster": rows([0.0, 0.0, 10.0, 10.0, 0.9, 0.8, 0.1, 0.1], [0.5, 0.5, 10.0, 10.0, 0.8, 0.8, 0.1, 0.1],
                                        [0.0, 0.0, 9.5, 10.0, 0.7, 0.8, 0.1, 0.1]),
        "none above the threshold (zeros)": (torch.zeros(3, 8),),
        "no boxes": (torch.zeros(0, 8),),
        # (an infinite coordinate makes a box's overlap with itself NaN: the original never ends)
        "negatives, inf and NaN scores": rows([-5.0, -5.0, -1.0, -1.0, 0.9, 0.8, 0.1, 0.1],
                                              [-4.5, -5.0, -1.0, -1.0, inf, 0.8, 0.1, 0.1],
                                              [0.0, 0.0, 1.0, 1.0, nan, 0.8, 0.1, 0.1],
                                              [2.0, 2.0, 3.0, 3.0, 0.7, nan, 0.1, 0.1]),
    }


def _apart_pairs(count: int, shift: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """kuangliu's overlap: ``count`` pairs of overlapping boxes, the pairs apart, scores falling pair
    by pair: each pass keeps a pair's first box and drops its second (``count`` passes)."""
    boxes = [[20.0 * k + shift + dx, shift, 20.0 * k + shift + 9.0, shift + 9.0]
             for k in range(count) for dx in (0.0, 1.0)]
    return torch.tensor(boxes).reshape(-1, 4), torch.tensor([0.9 - 0.05 * k for k in range(2 * count)])


def _shrinking_pairs(count: int, shift: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """wchen61's overlap (right and bottom edges clamped with ``min``: boxes of one size overlap
    fully): ``count`` pairs of boxes of one size, the sizes halving pair by pair down and to the
    right, so a later box overlaps an earlier one by at most a quarter (``count`` passes)."""
    boxes, corner = [], shift
    for k in range(count):
        size = 16.0 / 2 ** k
        boxes += [[corner + dx, corner, corner + dx + size, corner + size] for dx in (0.0, 0.5)]
        corner += 2 * size
    return torch.tensor(boxes).reshape(-1, 4), torch.tensor([0.9 - 0.05 * k for k in range(2 * count)])


def _box_nms_sets(pairs) -> dict[str, tuple]:
    """More and fewer pairs (each pass keeps one box of a pair and drops the other), and edge values:
    one box, none, zeros (one kept), negative coordinates and scores, inf and NaN scores."""
    nan, inf = float("nan"), float("inf")
    negatives, _ = pairs(3, shift=-100.0)
    return {"four pairs (more passes)": pairs(4), "one pair": pairs(1),
            "one box": (torch.tensor([[0.0, 0.0, 4.0, 4.0]]), torch.tensor([0.3])),
            "no boxes": (torch.zeros(0, 4), torch.zeros(0)),
            "zeros (one kept)": (torch.zeros(5, 4), torch.zeros(5)),
            "negatives": (negatives, -torch.linspace(0.1, 0.6, 6)),
            "inf and NaN scores": (pairs(2)[0], torch.tensor([inf, 0.5, nan, -inf]))}


_STACKED = ('    return (torch.stack(keep).to(dtype={}, device="cpu") if len(keep) > 0 '
            'else torch.zeros(0, dtype={}, device="cpu"))')


# name → (the finding's words, the decorated signature, input sets with other trip counts, the
# function scripted, the rewrite's other new lines)
RECORDED = {
    "diml_sinkhorn_early_stop": ("a `break` under a condition on tensor values ends the loop",
                                 "@torch.jit.script\ndef Sinkhorn(K, u, v):\n", _sinkhorn_sets, "Sinkhorn", []),
    "yolov3_merge_nms": ("`while` condition reads the size of a tensor whose size depends on values",
                         "@torch.jit.script\ndef non_max_suppression(image_pred, conf_thres: float = 0.5, "
                         "nms_thres: float = 0.4):\n", _merge_sets, "non_max_suppression", []),
    "retinanet_box_nms": ("`while` condition reads the size of a tensor whose size depends on values",
                          "@torch.jit.script\ndef box_nms(bboxes, scores, threshold: float = 0.5, "
                          "mode: str = 'union'):\n",
                          lambda: _box_nms_sets(_apart_pairs), "box_nms",
                          ["        keep.append(i.reshape(()))", _STACKED.format("torch.long", "torch.long")]),
    "ssd_box_nms_item_bounds": ("`while` condition reads the size of a tensor whose size depends on values",
                                "@torch.jit.script\ndef box_nms(bboxes, scores, threshold: float = 0.5):\n",
                                lambda: _box_nms_sets(_shrinking_pairs), "box_nms",
                                ["        keep.append(i.reshape(()))", _STACKED.format("torch.long", "torch.long")]),
}


@pytest.fixture(scope="module", params=list(RECORDED))
def recorded(request, tmp_path_factory) -> dict:
    """A loop whose tensors only a recorded run shows (unannotated parameters): the variant as
    written, exported, and as TRT104 rewrites it with migrate's facts (the observer's run and the
    export's TracerWarnings), exported."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt104_recorded_{name}")
    model = built(module)
    example = module.inputs(torch.Generator().manual_seed(0))
    session, traced = export_variant(model, example, module.DYNAMIC, folder / "original.onnx", path.parent)
    options = Options(select=("TRT104",), unsafe=True, scope="all",
                      facts=observed_facts(path, module, folder, traced))
    result = fix_source(path.read_bytes(), str(path), options)
    (folder / "scripted.py").write_text(result.source.decode())
    after = load_variant(folder / "scripted.py", f"trt104_recorded_{name}_scripted")
    after_model = built(after)
    after_session, _ = export_variant(after_model, example, module.DYNAMIC, folder / "scripted.onnx", folder)
    return dict(name=name, path=path, result=result, model=model, session=session, after=after,
                after_model=after_model, after_session=after_session,
                graphs=[onnx.load(str(folder / f"{label}.onnx")) for label in ("original", "scripted")],
                sets={"example": example, **RECORDED[name][2]()})


def test_recorded_loops_are_not_evident_from_the_code_alone(recorded) -> None:
    path = recorded["path"]
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT104",), unsafe=True, scope="all"))
    assert result.findings == [] and result.source.decode() == path.read_text()


def test_recorded_loops_are_reported_and_scripted_from_the_run(recorded) -> None:
    words, signature, _, _, others = RECORDED[recorded["name"]]
    result = recorded["result"]
    assert [f.rule for f in result.findings] == ["TRT104"] and words in result.findings[0].message
    after = result.source.decode()
    assert signature in after
    original = recorded["path"].read_text().splitlines()
    assert [line for line in after.splitlines() if line not in original] == [
        line for line in signature.splitlines() if line not in original] + others


def test_recorded_loops_graph_keeps_the_loop_and_follows_the_data(recorded) -> None:
    before, after = recorded["graphs"]
    assert [n.op_type for n in before.graph.node].count("Loop") == 0
    assert [n.op_type for n in after.graph.node].count("Loop") == 1
    model, sets = recorded["model"], recorded["sets"]
    assert _matches(recorded["session"], model, sets["example"])
    assert not all(_matches(recorded["session"], model, inputs) for inputs in sets.values())
    for label, inputs in sets.items():
        assert _matches(recorded["after_session"], model, inputs), label


def test_recorded_loops_eager_mode_is_unchanged(recorded) -> None:
    function = getattr(recorded["after"], RECORDED[recorded["name"]][3])
    assert isinstance(function, torch.jit.ScriptFunction)
    assert_eager_unchanged(recorded["model"], recorded["after_model"], recorded["sets"])


FORMS = """\
import torch


def shifted(boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    order = scores.argsort(descending=True)
    out = torch.zeros(1)
    while order.shape[0] > 0:
        out = out + boxes[order[0]].sum()
        inds = torch.where(scores[order[1:]] < scores[order[0]] - 0.25)[0]
        order = order[inds + 1]
    return out


def held_mask(rows: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(1)
    while rows.size(0):
        first = torch.arange(rows.size(0)) == 0
        invalid = first | (rows[:, 1] == rows[0, 1])
        out = out + rows[0, 0]
        rows = rows[~invalid]
    return out


def early_stop(x: torch.Tensor) -> torch.Tensor:
    for _ in range(50):
        y = x * 0.5 + 1.0
        if (y - x).abs().max() < 0.01:
            break
        x = y
    return x


def until(x: torch.Tensor, tol: float = 0.01) -> torch.Tensor:
    steps = 0
    while True:
        y = x * 0.5 + 1.0
        steps += 1
        if bool(((y - x).abs() < tol).all()) or steps > 50:
            break
        x = y
    return x
"""

STATIC_BREAKS = """\
import torch


def capped(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(10):
        if i >= n:
            break
        x = x + 1
    return x


def inner(x: torch.Tensor) -> torch.Tensor:
    for i in range(3):
        for row in range(4):
            if x.sum() > 100:
                break
            x = x + row
    return x
"""


def test_shifted_indices_held_masks_and_early_stops_are_reported_and_scripted(tmp_path: Path) -> None:
    """From the code alone: an index shifted by a number (``order[inds + 1]``), a mask held in a
    local (``rows[~invalid]``), and a ``break`` under a condition on tensor values (none reported
    before). The scripted functions give eager mode's values, dtypes and exceptions."""
    after = rewrite(FORMS, unsafe=True, select=("TRT104",))
    for name, signature in (("shifted", "shifted("), ("held_mask", "held_mask("), ("early_stop", "early_stop("),
                            ("until", "until(x: torch.Tensor, tol: float = 0.01)")):
        assert f"@torch.jit.script\ndef {signature}" in after, name
    namespace, scripted = import_source(FORMS, tmp_path), import_source(after, tmp_path)
    nan, inf = float("nan"), float("inf")
    for x in (torch.tensor([3.0, 0.5, 2.9, -1.0]), torch.zeros(3), torch.zeros(0),
              torch.tensor([nan, 1.0, inf, -inf]), torch.tensor([100.0, -7.0])):
        rows = torch.stack([x, (x * 3).floor()], 1)
        for name, args in (("shifted", (rows, x)), ("held_mask", (rows,)), ("early_stop", (x,)), ("until", (x,)),
                           ("until", (x, 0.5))):
            want, got = run_once(namespace[name], list(args)), run_once(scripted[name], list(args))
            # a scripted function raises torch.jit.Error, a RuntimeError, where eager mode raised one
            assert (want.error is None) == (got.error is None), (name, x)
            assert want.error is None or issubclass(got.error, RuntimeError) and issubclass(want.error, RuntimeError)
            if want.error is None:
                assert got.output.dtype == want.output.dtype and torch.equal(got.output.nan_to_num(),
                                                                             want.output.nan_to_num()), (name, x)


def test_breaks_on_static_conditions_or_of_inner_loops_end_only_their_own_loop() -> None:
    """A ``break`` under a static condition ends nothing data-dependent; an inner loop's ``break``
    ends the inner loop only (reported there, not at the outer loop)."""
    result = fix_source(STATIC_BREAKS.encode(), "breaks.py", Options(select=("TRT104",), scope="all"))
    lines = STATIC_BREAKS.splitlines()
    assert [lines[f.line - 1].strip() for f in result.findings] == ["for row in range(4):"]


EMPTY_LIST = """\
import torch


def kept(scores: torch.Tensor) -> torch.Tensor:
    keep = []
    for c in torch.unique(scores):
        keep.append(c)
    return torch.tensor(keep)


def stacked(scores: torch.Tensor) -> torch.Tensor:
    keep = []
    for c in torch.unique(scores):
        keep.append(c)
    return torch.stack(keep) if len(keep) > 0 else scores
"""


def test_torch_tensor_of_a_list_started_empty_keeps_the_loop_reported_only() -> None:
    """TorchScript types ``keep = []`` as a list of tensors; ``torch.tensor`` of one raises at run
    time: the loop is reported and the function left as written. ``torch.stack`` of it is scripted."""
    result = fix_source(EMPTY_LIST.encode(), "lists.py", Options(select=("TRT104",), unsafe=True, scope="all"))
    assert len(result.findings) == 2
    after = result.source.decode()
    assert "\n\ndef kept(" in after and "@torch.jit.script\ndef stacked(" in after


INDEX_LISTS = """\
import torch


def long_tensor(scores: torch.Tensor, gap: float = 0.5) -> torch.Tensor:
    _, order = scores.sort(descending=True)
    keep = []
    while order.numel() > 0:
        keep.append(order[0])
        order = order[1:][scores[order[1:]] < scores[order[0]] - gap]
    return torch.LongTensor(keep)


def on_device(boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    idxs = torch.argsort(scores, descending=True)
    keep = []
    while idxs.numel() > 0 and len(keep) < 3:
        i = idxs[0]
        keep.append(i)
        idxs = idxs[1:][(boxes[idxs[1:]] - boxes[i]).abs().sum(1) > 1.0]
    return torch.as_tensor(keep, dtype=torch.int32, device=boxes.device)


def values(scores: torch.Tensor) -> torch.Tensor:
    order = scores.argsort()
    keep = []
    while order.numel() > 0:
        keep.append(scores[order[0]])
        order = order[1:][scores[order[1:]] > 0]
    return torch.tensor(keep, dtype=torch.long)


def returned(scores: torch.Tensor):
    order = scores.argsort()
    keep = []
    while order.numel() > 0:
        keep.append(order[0])
        order = order[1:][scores[order[1:]] > 0]
    return torch.tensor(keep, dtype=torch.long), keep


def inferred(scores: torch.Tensor) -> torch.Tensor:
    order = scores.argsort()
    keep = []
    while order.numel() > 0:
        keep.append(order[0])
        order = order[1:][scores[order[1:]] > 0]
    return torch.tensor(keep)
"""


def test_lists_of_index_tensors_made_tensors_are_stacked_and_scripted(tmp_path: Path) -> None:
    """``torch.LongTensor(keep)`` or ``torch.tensor(keep, dtype=<integer>)`` of a list of index
    tensors becomes ``torch.stack`` cast to that dtype and device, or an empty tensor of them where
    the list is empty (each element appended as one value, ``reshape(())``), and the function is
    scripted (before, ``torch.tensor`` kept it reported only and ``torch.LongTensor`` was scripted
    into an import error). A list of values that are not indices, a list also returned, and
    ``torch.tensor`` without a dtype (an empty list gives float32) stay as written and reported."""
    result = fix_source(INDEX_LISTS.encode(), "lists.py", Options(select=("TRT104",), unsafe=True, scope="all"))
    assert len(result.findings) == 5
    after = result.source.decode()
    assert ("@torch.jit.script\ndef long_tensor(" in after and "    return (torch.stack(keep).to(dtype=torch.long, "
            'device="cpu") if len(keep) > 0 else torch.zeros(0, dtype=torch.long, device="cpu"))\n' in after)
    assert ("@torch.jit.script\ndef on_device(" in after and "    return (torch.stack(keep).to(dtype=torch.int32, "
            "device=boxes.device) if len(keep) > 0 else torch.zeros(0, dtype=torch.int32, device=boxes.device))\n"
            in after)
    for name in ("values", "returned", "inferred"):
        assert f"\n\ndef {name}(" in after, name
    assert after.count("torch.tensor(keep") == 3
    assert "        keep.append(order[0].reshape(()))\n" in after and "        keep.append(i.reshape(()))\n" in after
    assert after.count(".reshape(())") == 2
    namespace, scripted = import_source(INDEX_LISTS, tmp_path), import_source(after, tmp_path)
    nan, inf = float("nan"), float("inf")
    for scores in (torch.tensor([0.3, 2.0, 1.2, -0.4, 0.9]), torch.zeros(4), torch.zeros(0),
                   torch.tensor([-1.0, -3.0, -2.5]), torch.tensor([nan, 1.0, inf, -inf, 0.2])):
        boxes = torch.stack([scores.nan_to_num(), scores.nan_to_num() * 2], 1)
        for name, args in (("long_tensor", (scores,)), ("long_tensor", (scores, 2.0)), ("on_device", (boxes, scores))):
            want, got = run_once(namespace[name], list(args)), run_once(scripted[name], list(args))
            assert want.error is None and got.error is None, (name, scores)
            assert got.output.dtype == want.output.dtype and got.output.device == want.output.device, (name, scores)
            assert got.output.shape == want.output.shape and torch.equal(got.output, want.output), (name, scores)
