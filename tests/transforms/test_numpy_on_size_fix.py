"""TRT711's rewrite: a NumPy computation on tensor sizes that ends as a tensor becomes torch.

Each rewrite is checked as text, then run before and after on real tensors at many sizes
(1 and 0 included): values bit for bit, dtype, shape, strides, device. The YOLO grid is
exported with both exporters at one size and run at another. Observed TracerWarnings
(``--facts``, or ``migrate``'s own) unlock a helper whose argument has no annotation.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from support import assert_same, load, rewrite
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts

HEADER = "import numpy as np\nimport torch\nfrom torch import nn\n\n"


def module(body: str, params: str = "x") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return f"{HEADER}class M(nn.Module):\n    def forward(self, {params}):\n{lines}"


def _options(facts: Facts | None, unsafe: bool = False) -> Options:
    # With facts, every line is looked at, as `migrate` does (its facts say what ran).
    return Options(select=("TRT711",), unsafe=unsafe, facts=facts, **({"scope": "all"} if facts else {}))


def fixed(code: str, facts: Facts | None = None) -> str:
    return fix_source(code.encode(), "snippet.py", _options(facts, unsafe=True)).source.decode()


def findings(code: str, facts: Facts | None = None) -> list:
    return check_source(code.encode(), "snippet.py", _options(facts))


# (name, forward before, forward after, input shapes to run both on)
GRID_SHAPES = [(1, 3, 1, 1), (1, 3, 0, 4), (2, 3, 4, 0), (1, 3, 2, 5), (1, 3, 7, 3), (1, 3, 13, 17)]
ROW_SHAPES = [(1, 1), (2, 0), (0, 3), (3, 7), (1, 64), (2, 199)]
CASES = [
    ("yolo_grid_ij",
     'ny, nx = x.shape[2:]\nyv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")\n'
     "return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))",
     'ny, nx = x.shape[2:]\nyv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")\n'
     "return torch.stack((xv, yv), 2).to(torch.float32)",
     GRID_SHAPES),
    ("grid_xy_default",  # NumPy's default order is "xy": written out, torch's default is "ij"
     "h, w = x.size(2), x.size(3)\nreturn torch.from_numpy(np.stack(np.meshgrid(np.arange(w), np.arange(h)), -1))",
     "h, w = x.size(2), x.size(3)\n"
     'return torch.stack(torch.meshgrid(torch.arange(w), torch.arange(h), indexing="xy"), -1)',
     GRID_SHAPES),
    ("linspace_to_input_dtype",
     "w = x.size(-1)\nreturn x * torch.tensor(np.linspace(0, w - 1, w), dtype=x.dtype)",
     "w = x.size(-1)\nreturn x * torch.linspace(0, w - 1, w, dtype=torch.float64).to(x.dtype)",
     ROW_SHAPES),
    ("linspace_float64_kept",
     "w = x.shape[1]\nreturn torch.tensor(np.linspace(0, w - 1, w))",
     "w = x.shape[1]\nreturn torch.linspace(0, w - 1, w, dtype=torch.float64)",
     ROW_SHAPES),
    ("zeros_plus_ones_float64",
     "n = x.shape[0]\nz = np.zeros((n, 4)) + np.ones((n, 4))\nreturn torch.from_numpy(z)",
     "n = x.shape[0]\nz = torch.zeros((n, 4), dtype=torch.float64) + torch.ones((n, 4), dtype=torch.float64)\n"
     "return z",
     ROW_SHAPES),
    ("indices_row",  # mmdetection3d's CenterFormer: np.indices((batch, self.obj_num))[0]
     "b, n = x.shape[:2]\nreturn torch.as_tensor(np.indices((b, n))[0])",
     'b, n = x.shape[:2]\nreturn torch.stack(torch.meshgrid(torch.arange(b), torch.arange(n), indexing="ij"))[0]',
     ROW_SHAPES),
    ("arange_arithmetic_int64",
     "w = x.shape[1]\nreturn torch.from_numpy(np.arange(1, w + 1) * 2 - 1)",
     "w = x.shape[1]\nreturn ((torch.arange(1, w + 1) * 2) - 1)",
     ROW_SHAPES),
    # NumPy's promotion made explicit: a Python float or a true division with an integer array
    # is float64 in NumPy, float32 in torch.
    ("arange_times_float_is_float64",
     "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w) * 0.5)",
     "w = x.shape[1]\nreturn (torch.arange(w).to(torch.float64) * 0.5)",
     ROW_SHAPES),
    ("arange_divided_is_float64",
     "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w) / 2)",
     "w = x.shape[1]\nreturn (torch.arange(w).to(torch.float64) / 2)",
     ROW_SHAPES),
    ("device_keyword",
     "w = x.shape[1]\nreturn torch.tensor(np.arange(w), device=x.device)",
     "w = x.shape[1]\nreturn torch.arange(w).to(device=x.device)",
     ROW_SHAPES),
    # More of the table: tile vs repeat (NumPy's repeat is repeat_interleave), the stacks,
    # promotion across arrays (int64 with float32 is float64 in NumPy), views of a transpose.
    ("tile_and_repeat",
     "w = x.shape[1]\nreturn torch.from_numpy(np.tile(np.arange(w), (2, 1)) + np.repeat(np.arange(2), w).reshape(2, w))",
     "w = x.shape[1]\nreturn (torch.tile(torch.arange(w), (2, 1)) + torch.arange(2).repeat_interleave(w).reshape(2, w))",
     ROW_SHAPES),
    ("hstack_column_stack",
     "w = x.shape[1]\n"
     "return torch.from_numpy(np.column_stack((np.arange(w), np.hstack((np.arange(w - w), np.ones(w))))))",
     "w = x.shape[1]\nreturn torch.stack((torch.arange(w).to(torch.float64), torch.cat((torch.arange(w - w)"
     ".to(torch.float64), torch.ones(w, dtype=torch.float64)), 0)), 1)",
     ROW_SHAPES),
    ("concatenate_promotes",
     "n = x.shape[0]\nreturn torch.from_numpy(np.concatenate((np.arange(n), np.zeros(n, dtype=np.float32)), 0))",
     "n = x.shape[0]\nreturn torch.cat((torch.arange(n).to(torch.float64), torch.zeros(n, dtype=torch.float32)"
     ".to(torch.float64)), 0)",
     ROW_SHAPES),
    ("full_and_floor_division",
     "n = x.shape[0]\nreturn torch.from_numpy(np.full((n, 2), 7) // 2 - np.full((n, 2), 1.5))",
     "n = x.shape[0]\nreturn ((torch.full((n, 2), 7, dtype=torch.int64) // 2).to(torch.float64) - "
     "torch.full((n, 2), 1.5, dtype=torch.float64))",
     ROW_SHAPES),
    ("transpose_slices",
     "h, w = x.shape\nreturn torch.from_numpy(np.indices((h, w)).transpose(1, 2, 0)[:, 1:])",
     'h, w = x.shape\nreturn torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij"))'
     ".permute(1, 2, 0)[:, 1:]",
     ROW_SHAPES),
    ("T_of_stack_to_tensor",
     "h, w = x.shape\nreturn torch.tensor(np.stack((np.arange(w), np.arange(w) * 2)).T, dtype=torch.float32)",
     "h, w = x.shape\nreturn torch.stack((torch.arange(w), (torch.arange(w) * 2)), 0).permute(1, 0)"
     ".to(torch.float32)",
     ROW_SHAPES),
    # torch.tensor copies: two tensors of one local are two tensors after the rewrite too.
    ("local_read_twice_by_tensor",
     "w = x.shape[1]\na = np.arange(w)\nreturn torch.tensor(a), torch.tensor(a)",
     "w = x.shape[1]\na = torch.arange(w)\nreturn a.clone(), a.clone()",
     ROW_SHAPES),
]


@pytest.mark.parametrize("name,before,after,shapes", CASES, ids=[c[0] for c in CASES])
def test_rewrite_text(name, before, after, shapes) -> None:
    assert fixed(module(before)) == module(after)
    assert rewrite(module(before)) == module(before)  # unsafe: not without --unsafe


def _run(model, x):
    try:
        return model(x), None
    except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
        return None, type(exc)


@pytest.mark.parametrize("name,before,after,shapes", CASES, ids=[c[0] for c in CASES])
def test_same_values_dtype_shape_strides_and_device_at_every_size(name, before, after, shapes) -> None:
    original, new = load(module(before), "M")(), load(fixed(module(before)), "M")()
    assert "np." not in fixed(module(before)).split("class M", 1)[1]
    for shape in shapes:
        x = torch.randn(shape)
        x.view(-1)[:3] = torch.tensor([0.0, -0.0, float("nan")])[: x.numel()]
        want, error = _run(original, x)
        got, new_error = _run(new, x)
        assert error is new_error, (shape, error, new_error)
        if want is None:
            continue
        assert_same(want, got)  # exact: values, dtype, shape, NaN and the sign of zero
        wants, gots = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for one, other in zip(wants, gots):
            assert one.device == other.device == torch.device("cpu") and one.is_contiguous() == other.is_contiguous()
            if one.numel():  # an empty array's strides address nothing (from_numpy gives zeros there)
                assert one.stride() == other.stride(), shape
            assert not other.requires_grad
        # Memory shared between outputs is shared after the rewrite too, and only then.
        assert _sharing(wants) == _sharing(gots), shape


def _sharing(outputs: tuple) -> list[list[bool]]:
    """Which pairs of (non-empty) outputs share memory."""
    return [[a.numel() > 0 and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() for b in outputs]
            for a in outputs]


def test_negative_sizes_are_the_stated_assumption() -> None:
    """`np.arange(w - 1)` at w = 0 is empty; `torch.arange(-1)` raises: why the fix is unsafe."""
    code = module("w = x.shape[1]\nreturn torch.from_numpy(np.arange(w - 1))")
    new = fixed(code)
    assert "torch.arange(w - 1)" in new
    x = torch.zeros(2, 0)
    assert load(code, "M")()(x).shape == (0,)
    with pytest.raises(RuntimeError):
        load(new, "M")()(x)
    assert load(new, "M")()(torch.zeros(2, 5)).tolist() == [0, 1, 2, 3]


NOT_REWRITTEN = [
    # The array stays NumPy: returned, printed, read twice, or a view handed out as a tensor.
    "return np.arange(x.shape[0])",
    "w = x.shape[1]\na = np.arange(w)\nprint(a.shape)\nreturn torch.from_numpy(a)",
    'h, w = x.shape\nyv, xv = np.meshgrid(np.arange(h), np.arange(w))\nreturn torch.from_numpy(xv)',
    # A NumPy local changed in place, a power, a function outside the table.
    "w = x.shape[1]\na = np.arange(w)\na[0] = 5\nreturn torch.from_numpy(a)",
    "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w) ** 2)",
    "w = x.shape[1]\nreturn torch.from_numpy(np.cumsum(np.arange(w)))",
    # A new axis: NumPy's stride 0 there is not torch's, and from_numpy keeps it.
    "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w)[:, None])",
    # No exact torch form, or a keyword the rewrite does not know.
    "w = x.shape[1]\nreturn torch.from_numpy(np.prod(np.arange(w)))",
    "w = x.shape[1]\nreturn torch.from_numpy(np.linspace(0, 1, w, endpoint=False))",
]


@pytest.mark.parametrize("body", NOT_REWRITTEN)
def test_named_not_rewritten(body) -> None:
    code = module(body)
    found = findings(code)
    assert found and all(f.edit is None and "not rewritten" in f.message for f in found)
    assert fixed(code) == code


def test_numpy_on_constants_is_not_reported() -> None:
    assert findings(module("return x + torch.from_numpy(np.arange(10))")) == []


# --- facts: the export's TracerWarning at a line makes a helper's size a tensor size ------------

HELPER = HEADER + '''\
def make_grid(output):
    ny, nx = output.size(2), output.size(3)
    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))


class Decode(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 3, 1)[..., :2] + make_grid(x)
'''
GRID_LINE = HELPER.splitlines().index('    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")') + 1


def _facts(path: str, line: int) -> Facts:
    facts = Facts(runs=3, lines={str(Path(path).resolve()): set(range(1, 12))})
    facts.note_traced([(path, line, "Converting a tensor to a NumPy array might cause the trace to be incorrect.")])
    return facts


def test_a_helper_without_annotation_is_silent_without_facts() -> None:
    assert findings(HELPER) == []
    assert check_source(HELPER.encode(), "snippet.py", Options(select=("TRT711",), scope="all")) == []


def test_a_tracer_warning_at_the_line_unlocks_the_rewrite() -> None:
    facts = _facts("snippet.py", GRID_LINE)
    [finding] = findings(HELPER, facts)
    assert finding.line == GRID_LINE and finding.fix.value == "unsafe"
    new = fixed(HELPER, facts)
    assert '    yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")\n' in new
    assert "    return torch.stack((xv, yv), 2).to(torch.float32)\n" in new
    helper, rewritten = load(HELPER, "make_grid"), load(new, "make_grid")
    for h, w in [(1, 1), (0, 2), (3, 0), (4, 5), (9, 2)]:
        out = torch.randn(1, 2, h, w)
        assert_same(helper(out), rewritten(out))


def test_a_tracer_warning_elsewhere_unlocks_nothing() -> None:
    assert findings(HELPER, _facts("snippet.py", GRID_LINE + 1)) == []
    assert findings(HELPER, _facts("other.py", GRID_LINE)) == []


def test_tracer_warnings_survive_the_facts_file(tmp_path) -> None:
    facts = _facts(str(tmp_path / "m.py"), 7)
    facts.save(tmp_path / "facts.json")
    again = Facts.load(tmp_path / "facts.json").for_file(str(tmp_path / "m.py"))
    assert again is not None and again.traced(7, 7) and not again.traced(8, 9)


# --- the exports: the NumPy grid is a constant, the torch grid follows the input ---------------

DECODE = module(
    'ny, nx = x.shape[2:]\nyv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")\n'
    "grid = torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))\n"
    "return x[:, :2].permute(0, 2, 3, 1) + grid")


def _exported(model, example: torch.Tensor, path: Path, dynamo: bool) -> ort.InferenceSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(model, (example,), dynamo=True, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}}, verbose=False).save(str(path))
        else:
            torch.onnx.export(model, (example,), str(path), dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}})
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _matches(session: ort.InferenceSession, model, x: torch.Tensor) -> bool:
    try:
        [got] = session.run(None, {"x": x.numpy()})
    except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
        return False
    want = model(x).numpy()
    return got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_grid_exports_for_every_size(tmp_path, dynamo) -> None:
    original, new = load(DECODE, "M")(), load(fixed(DECODE), "M")()
    example, others = torch.randn(1, 3, 4, 5), [torch.randn(1, 3, 6, 3), torch.randn(1, 3, 9, 11)]
    session = _exported(new, example, tmp_path / "new.onnx", dynamo)
    assert all(_matches(session, new, x) for x in [example, *others])
    if not dynamo:
        # The TorchScript exporter keeps the NumPy grid of the traced size: wrong elsewhere.
        before = _exported(original, example, tmp_path / "old.onnx", dynamo)
        assert _matches(before, original, example) and not any(_matches(before, original, x) for x in others)


def test_the_users_torch_alias_is_kept_and_a_missing_import_added() -> None:
    aliased = ("import numpy\nimport torch as th\nfrom torch import nn\n\nclass M(nn.Module):\n"
               "    def forward(self, x):\n        return th.from_numpy(numpy.arange(x.shape[1]))\n")
    assert fixed(aliased).endswith("        return th.arange(x.shape[1])\n")
    bare = aliased.replace("import torch as th\nfrom torch import nn", "from torch import nn, from_numpy").replace(
        "th.from_numpy", "from_numpy")
    new = fixed(bare)
    assert "import torch\n" in new and new.endswith("        return torch.arange(x.shape[1])\n")
    assert_same(load(bare, "M")()(torch.zeros(2, 5)), load(new, "M")()(torch.zeros(2, 5)))
