"""Unit tests of the verifier's pure parts: comparison, spec parsing, rewriting a copy, reasons."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from trtcodemod.verify.backends import availability
from trtcodemod.verify.compare import compare_array, worst
from trtcodemod.verify.culprits import LEFT_FOR_NEXT, find_culprits
from trtcodemod.verify.latency import MIN_BUDGET_RUNS, time_calls
from trtcodemod.verify.report import _lat
from trtcodemod.verify.rewrite import Fixer, LineMap, locate, rewrite_copy
from trtcodemod.verify.spec import (
    RewriteOptions, SpecError, build_spec, load_model_tables, parse_backends, parse_dynamic_axes, parse_input_shape,
)
from support import REPO

EXAMPLES = REPO / "examples" / "verify"


# --- compare ------------------------------------------------------------------------------


def test_nan_in_the_same_places_is_equal() -> None:
    a = np.array([1.0, np.nan, 3.0], dtype=np.float32)
    c = compare_array("y", a, a.copy(), 1e-4, 1e-3)
    assert c.passed and c.max_abs_err == 0.0


def test_nan_where_the_original_is_finite_fails() -> None:
    c = compare_array("y", np.array([0.0, 1.0]), np.array([np.nan, 1.0]), 1e-4, 1e-3)
    assert not c.passed
    assert "NaN at 1 position(s) where the original is finite" in c.problem
    assert c.to_json()["max_abs_err"] is None  # JSON has no inf


def test_inf_must_match_inf_of_the_same_sign() -> None:
    assert compare_array("y", np.array([np.inf, -np.inf]), np.array([np.inf, -np.inf]), 0, 0).passed
    c = compare_array("y", np.array([np.inf]), np.array([-np.inf]), 1e-4, 1e-3)
    assert not c.passed and "inf mismatch" in c.problem


def test_tolerances_and_errors() -> None:
    e = np.array([1.0, 2.0, 0.0], dtype=np.float32)
    ok = compare_array("y", e, e + np.float32(5e-5), 1e-4, 1e-3)
    assert ok.passed and ok.max_abs_err == pytest.approx(5e-5, rel=1e-2)
    bad = compare_array("y", e, e + np.float32(0.01), 1e-4, 1e-3)
    assert not bad.passed and bad.max_rel_err == pytest.approx(0.01, rel=1e-2)
    assert worst([ok, bad])[2] is False


def test_shape_and_dtype_mismatch_fail() -> None:
    assert "shape [2, 1] != expected [2]" in compare_array("y", np.zeros(2), np.zeros((2, 1)), 1, 1).problem
    assert "dtype" in compare_array("y", np.zeros(2, np.float32), np.zeros(2, np.float64), 1, 1).problem


# --- spec -------------------------------------------------------------------------------------


def test_parse_input_shape_and_dynamic_axes() -> None:
    assert parse_input_shape("x:1x3x224x224") == ("x", (1, 3, 224, 224))
    with pytest.raises(SpecError):
        parse_input_shape("1x3")
    assert parse_dynamic_axes('{"x": {"0": "batch"}, "y": [1]}') == {"x": {0: "batch"}, "y": {1: "y_dim1"}}
    with pytest.raises(SpecError, match="not valid JSON"):
        parse_dynamic_axes("{x")


def test_backends_always_include_the_reference_and_the_faithfulness_runner() -> None:
    assert parse_backends("trt") == ("torch-cpu", "onnxruntime-cpu", "tensorrt")
    with pytest.raises(SpecError, match="unknown backend"):
        parse_backends("tpu")


def test_build_spec_errors_are_spec_errors(tmp_path: Path) -> None:
    model = tmp_path / "m.py"
    model.write_text("")
    with pytest.raises(SpecError, match="no inputs"):
        build_spec({"model_file": str(model), "model": "build"})
    with pytest.raises(SpecError, match="either --inputs or --input-shape"):
        build_spec({"model_file": str(model), "model": "build", "inputs": "f", "input_shape": ["x:1"]})
    with pytest.raises(SpecError, match="no such file"):
        build_spec({"model_file": str(tmp_path / "nope.py"), "model": "m", "inputs": "f"})


def test_threads_default_to_one_and_are_checked(tmp_path: Path) -> None:
    model = tmp_path / "m.py"
    model.write_text("def build():\n    pass\n")
    base = {"model_file": str(model), "model": "build", "inputs": "f"}
    assert build_spec(base).threads == 1
    assert build_spec({**base, "threads": 0}).threads == 0
    with pytest.raises(SpecError, match="--threads"):
        build_spec({**base, "threads": -2})
    # The timing budget likewise: 10 s unless given, 0 for none, never negative.
    assert build_spec(base).timing_budget == 10.0
    assert build_spec({**base, "timing_budget": 0}).timing_budget == 0.0
    with pytest.raises(SpecError, match="--timing-budget"):
        build_spec({**base, "timing_budget": -1})


def test_timing_budget_stops_after_three_runs_once_spent() -> None:
    calls: list[int] = []

    def slow() -> None:
        calls.append(1)
        time.sleep(0.002)

    # Each call outlasts the budget: the timing stops at the minimum, the warm-up included.
    assert len(time_calls(slow, 20, 2, budget=0.001)) == MIN_BUDGET_RUNS == 3 and len(calls) == 5
    # No budget, or one that is not spent: every configured run.
    assert len(time_calls(slow, 6, 0, budget=0)) == 6
    assert len(time_calls(slow, 6, 0)) == 6
    assert len(time_calls(lambda: None, 20, 3, budget=60.0)) == 20
    # Fewer runs than the minimum asked for: those.
    assert len(time_calls(slow, 2, 0, budget=0.001)) == 2


def test_latency_figures_say_their_runs_when_the_budget_cut_them() -> None:
    assert _lat({"median": 1.5, "p90": 2.0, "runs": 3}, 20) == "1.500/2.000 (3 runs)"
    assert _lat({"median": 1.5, "p90": 2.0, "runs": 20}, 20) == "1.500/2.000"
    assert _lat(None, 20) == "-"


def test_example_config_loads() -> None:
    path, tables = load_model_tables(EXAMPLES / "models.toml", Path.cwd())
    assert set(tables) == {"squeeze_head", "baked_branch", "where_iou", "pkg_detector"}
    spec = build_spec(tables["squeeze_head"], base_dir=path.parent, name="squeeze_head")
    assert spec.dynamic_axes == {"feats": {0: "batch", 2: "height", 3: "width"}} and spec.rewrite.unsafe


# --- rewriting a copy -------------------------------------------------------------------------


def test_locate_finds_the_top_package() -> None:
    layout = locate(EXAMPLES / "pkg_detector" / "model.py")
    assert layout.module == "pkg_detector.model"
    assert layout.import_root == EXAMPLES


def test_line_map_follows_inserted_and_changed_lines() -> None:
    m = LineMap("a\nb\nc\nd\n", "h1\nh2\na\nb\nC\nd\n")
    assert [m(i) for i in (3, 4, 5, 6)] == [1, 2, 3, 4]


def test_line_map_names_the_inserted_helper() -> None:
    before = "import torch\n\ndef f(x):\n    return torch.unique(x)\n"
    after = ("import torch\n\n\n# Inserted by trtcodemod\ndef _trt_unique(x):\n    s = x.sort()\n    return s\n\n\n"
             "def f(x):\n    return _trt_unique(x)\n")
    m = LineMap(before, after)
    assert m.inserted_helper(6) == "_trt_unique" and m.inserted_helper(7) == "_trt_unique"
    assert m.inserted_helper(11) is None and m.inserted_helper(1) is None


def test_rewrite_copy_rewrites_every_file_and_maps_locations_back(tmp_path: Path) -> None:
    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        if b"unsqueeze(1)" in source or b".squeeze(1)" in source:
            return b"# helper\n" + source, [("TRT999", 1, "fake")]
        return source, []

    tree = rewrite_copy(locate(EXAMPLES / "pkg_detector" / "model.py"), tmp_path / "after", RewriteOptions(), fixer)
    assert sorted(Path(p).name for p in tree.changed_files) == ["backbone.py", "heads.py"]
    copy = tmp_path / "after" / "pkg_detector" / "heads.py"
    assert copy.read_text().startswith("# helper\n")
    assert tree.map_location(f"{copy}:14") == f"{EXAMPLES / 'pkg_detector' / 'heads.py'}:13"
    assert tree.layout.module == "pkg_detector.model"
    # An export error of the copy names the user's line the worker found in the copy.
    error = f"SymbolicValueError: Unsupported: convolution for kernel of unknown shape. [at {copy}:14]"
    assert tree.map_error(error) == ("SymbolicValueError: Unsupported: convolution for kernel of unknown shape. "
                                     f"[at {EXAMPLES / 'pkg_detector' / 'heads.py'}:13]")
    assert tree.map_error("RuntimeError: no line") == "RuntimeError: no line" and tree.map_error(None) is None


def test_a_second_rewrite_into_the_same_folder_copies_only_what_differs(tmp_path: Path) -> None:
    src = tmp_path / "src" / "pkg"
    (src / "sub").mkdir(parents=True)
    for name, text in {"__init__.py": "", "a.py": "A = 1\n", "b.py": "B = 2\n", "sub/__init__.py": "",
                       "sub/c.py": "C = 3\n"}.items():
        (src / name).write_text(text)

    def fixing(name: str) -> Fixer:
        def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
            return (b"# fixed\n" + source, [("TRT999", 1, "fake")]) if path.endswith(name) else (source, [])
        return fixer

    dest = tmp_path / "after"
    rewrite_copy(locate(src / "a.py"), dest, RewriteOptions(), fixing("a.py"))
    # What the round's imports leave (bytecode), and what no copy of these sources holds.
    cache = dest / "pkg" / "__pycache__"
    cache.mkdir()
    for stem in ("__init__", "a", "b"):
        (cache / f"{stem}.cpython-311.pyc").write_bytes(b"compiled")
    (dest / "pkg" / "sub" / "gone.py").write_text("G = 0\n")
    (dest / "stray.py").write_text("")
    tree = rewrite_copy(locate(src / "a.py"), dest, RewriteOptions(), fixing("b.py"))
    assert tree.changed_files == [str(src / "b.py")]
    assert (dest / "pkg" / "a.py").read_text() == "A = 1\n"  # the last round's rewrite undone
    assert (dest / "pkg" / "b.py").read_text() == "# fixed\nB = 2\n"
    assert (dest / "pkg" / "sub" / "c.py").read_text() == "C = 3\n"
    assert not (dest / "pkg" / "sub" / "gone.py").exists() and not (dest / "stray.py").exists()
    # The unchanged file's bytecode is kept; neither replaced file's is.
    assert sorted(p.name for p in cache.iterdir()) == ["__init__.cpython-311.pyc"]
    # A copy may be a hard link to the user's file: a rewrite replaces it, never writes into it.
    assert (src / "a.py").read_text() == "A = 1\n" and (src / "b.py").read_text() == "B = 2\n"
    assert (dest / "pkg" / "sub" / "c.py").stat().st_ino == (src / "sub" / "c.py").stat().st_ino


def test_a_rewrite_into_a_fresh_folder_links_and_never_changes_the_users_files(tmp_path: Path) -> None:
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "m.py").write_text("M = 1\n")

    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        return (b"M = 2\n", [("TRT999", 1, "fake")]) if path.endswith("m.py") else (source, [])

    tree = rewrite_copy(locate(src / "m.py"), tmp_path / "after", RewriteOptions(), fixer)
    assert tree.changed_files == [str(src / "m.py")]
    assert (src / "m.py").read_text() == "M = 1\n" and (tmp_path / "after" / "pkg" / "m.py").read_text() == "M = 2\n"
    assert (tmp_path / "after" / "pkg" / "__init__.py").stat().st_ino == (src / "__init__.py").stat().st_ino


def _adding_ten(name: str) -> Fixer:
    """A fixer that turns ``+ 1`` into ``+ 10`` in the file named ``name`` only."""
    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        return (source.replace(b"+ 1", b"+ 10"), [("TRT999", 2, "fake")]) if path.endswith(name) else (source, [])
    return fixer


def test_a_file_of_a_namespace_package_is_copied_where_its_import_finds_the_copy(tmp_path: Path) -> None:
    # CenterNet's layout: `src/lib/models` has no `__init__.py`, and the wrapper imports `models.decode`.
    root = tmp_path / "user"
    (root / "models" / "networks").mkdir(parents=True)
    (root / "wrap.py").write_text("from models.decode import VALUE\n")
    (root / "models" / "decode.py").write_text("from models.utils import BASE\nVALUE = BASE + 1\n")
    (root / "models" / "utils.py").write_text("BASE = 1\n")
    (root / "models" / "networks" / "net.py").write_text("NET = 1\n")

    dest = tmp_path / "after"
    extra = [root / "models" / "decode.py", root / "models" / "utils.py", root / "models" / "networks" / "net.py"]
    tree = rewrite_copy(locate(root / "wrap.py"), dest, RewriteOptions(), _adding_ten("decode.py"), extra_files=extra)
    assert tree.changed_files == [str(root / "models" / "decode.py")]
    assert (dest / "models" / "decode.py").read_text().endswith("VALUE = BASE + 10\n")
    assert not (dest / "decode.py").exists()  # not beside the wrapper, where `models.decode` never looks
    assert tree.map_location(f"{dest / 'models' / 'decode.py'}:2") == f"{root / 'models' / 'decode.py'}:2"
    # The copy comes first on sys.path, the user's folder after it: the import finds the rewritten text.
    probe = "import sys; sys.path[:0] = sys.argv[1:]; import wrap; print(wrap.VALUE)"
    out = subprocess.run([sys.executable, "-c", probe, str(dest), str(root)], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert out.stdout.strip() == "11"
    # A later round that rewrites another file leaves no copy of this round's rewrite behind.
    tree = rewrite_copy(locate(root / "wrap.py"), dest, RewriteOptions(), _adding_ten("net.py"), extra_files=extra[1:])
    assert not (dest / "models" / "decode.py").exists()
    assert (dest / "models" / "networks" / "net.py").read_text() == "NET = 1\n"
    assert (root / "models" / "decode.py").read_text().endswith("VALUE = BASE + 1\n")


def test_a_package_inside_a_namespace_folder_is_copied_under_it(tmp_path: Path) -> None:
    # nemotron-ocr's layout: `nemotron_ocr/` has no `__init__.py`, `nemotron_ocr/inference/` and below have one, and
    # the wrapper imports `nemotron_ocr.inference.models.detector`: a copy at `after/inference` is never imported.
    root = tmp_path / "user"
    package = root / "nspkg" / "inference"
    (package / "models").mkdir(parents=True)
    (root / "wrap.py").write_text("from nspkg.inference.models.detector import VALUE\n")
    (package / "__init__.py").write_text("")
    (package / "models" / "__init__.py").write_text("")
    (package / "models" / "detector.py").write_text("from nspkg.inference.models.base import BASE\nVALUE = BASE + 1\n")
    (package / "models" / "base.py").write_text("BASE = 1\n")
    (package / "models" / "table.json").write_text("{}\n")

    dest = tmp_path / "after"
    extra = [package / "models" / "detector.py", package / "models" / "base.py"]
    tree = rewrite_copy(locate(root / "wrap.py"), dest, RewriteOptions(), _adding_ten("detector.py"), extra_files=extra)
    assert tree.changed_files == [str(package / "models" / "detector.py")]
    copied = dest / "nspkg" / "inference" / "models"
    assert copied.joinpath("detector.py").read_text().endswith("VALUE = BASE + 10\n")
    assert copied.joinpath("table.json").is_file()  # the package's data travels with it
    assert not (dest / "inference").exists()
    assert tree.map_location(f"{copied / 'detector.py'}:2") == f"{package / 'models' / 'detector.py'}:2"
    probe = "import sys; sys.path[:0] = sys.argv[1:]; import wrap; print(wrap.VALUE)"
    out = subprocess.run([sys.executable, "-c", probe, str(dest), str(root)], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert out.stdout.strip() == "11"
    # The next round rewrites the other file: the first round's rewrite is undone, the data file kept.
    tree = rewrite_copy(locate(root / "wrap.py"), dest, RewriteOptions(), _adding_ten("base.py"), extra_files=extra)
    assert copied.joinpath("detector.py").read_text().endswith("VALUE = BASE + 1\n")
    assert copied.joinpath("table.json").is_file()
    assert (package / "models" / "detector.py").read_text().endswith("VALUE = BASE + 1\n")


def test_a_package_whose_folder_is_on_the_import_path_keeps_its_own_name(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # A library on PYTHONPATH from a folder inside the project (`third_party/`): imported as `lib`, not
    # `third_party.lib`, so its copy goes where `import lib` finds it first.
    root = tmp_path / "user"
    package = root / "third_party" / "lib"
    package.mkdir(parents=True)
    (root / "wrap.py").write_text("from lib.detector import VALUE\n")
    (package / "__init__.py").write_text("")
    (package / "detector.py").write_text("VALUE = 1 + 1\n")
    monkeypatch.setenv("PYTHONPATH", str(root / "third_party"))
    dest = tmp_path / "after"
    tree = rewrite_copy(locate(root / "wrap.py"), dest, RewriteOptions(), _adding_ten("detector.py"),
                        extra_files=[package / "detector.py"])
    assert tree.changed_files == [str(package / "detector.py")]
    assert (dest / "lib" / "detector.py").read_text() == "VALUE = 1 + 10\n"
    assert not (dest / "third_party").exists()
    probe = "import sys; sys.path[:0] = sys.argv[1:]; import wrap; print(wrap.VALUE)"
    out = subprocess.run([sys.executable, "-c", probe, str(dest), str(root / "third_party"), str(root)],
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "11"


def test_an_unparsable_file_is_reported_not_fatal(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")

    def broken(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list]:
        raise ValueError("cannot parse")

    tree = rewrite_copy(locate(src), tmp_path / "after", RewriteOptions(), broken)
    assert tree.errors and "cannot parse" in tree.errors[0]
    assert (tmp_path / "after" / "m.py").read_text() == "x = 1\n"


# --- reasons and culprits -------------------------------------------------------------------------


def test_skip_reasons_name_what_is_missing() -> None:
    probe = {"cuda": False, "ort_providers": ["CPUExecutionProvider"], "tensorrt_error": "tensorrt is not installed"}
    assert availability("onnxruntime-cpu", probe) is None
    assert availability("torch-cuda", probe) == "no CUDA device (torch.cuda.is_available() is False)"
    assert availability("onnxruntime-cuda", probe).startswith("onnxruntime has no CUDAExecutionProvider")
    assert availability("tensorrt", probe) == "tensorrt is not installed"
    assert availability("tensorrt", {"cuda": False, "tensorrt": "10.0"}) == "no CUDA device"


def test_culprits_one_rule_at_a_time() -> None:
    checked = []

    def check(rule: str) -> tuple[bool, str]:
        checked.append(rule)
        return rule == "TRT102", "differs" if rule == "TRT102" else "equal"

    result = find_culprits(["TRT102", "TRT401"], check)
    assert checked == ["TRT102", "TRT401"]
    assert [r["rule"] for r in result if r["reproduces"]] == ["TRT102"]
    combined = find_culprits(["TRT1", "TRT2"], lambda rule: (False, "equal"))
    assert "rules combined" in combined[-1]["detail"]


def test_culprits_leave_the_last_rule_to_the_next_verification() -> None:
    checked: list[str] = []

    def check(rule: str) -> tuple[bool, str]:
        checked.append(rule)
        return rule != "TRT704", "differs" if rule != "TRT704" else "equal"

    # Every other rule reproduces: the last one's fixes alone are what the next round verifies.
    result = find_culprits(["TRT104", "TRT727", "TRT704"], check, verified_next=True)
    assert checked == ["TRT104", "TRT727"]
    assert [(r["rule"], r["reproduces"]) for r in result] == [("TRT104", True), ("TRT727", True), ("TRT704", False)]
    assert result[-1]["detail"] == LEFT_FOR_NEXT
    # One of the others keeps the outputs equal: the last rule is checked, as without the flag.
    checked.clear()
    result = find_culprits(["TRT704", "TRT104", "TRT727"], check, verified_next=True)
    assert checked == ["TRT704", "TRT104", "TRT727"]
    assert [r["rule"] for r in result if r["reproduces"]] == ["TRT104", "TRT727"]
    # Nothing verifies again (verify, a migrate's last round): every rule is checked.
    checked.clear()
    find_culprits(["TRT104", "TRT727", "TRT704"], check)
    assert checked == ["TRT104", "TRT727", "TRT704"]


def test_culprits_check_the_rules_with_safe_fixes_last() -> None:
    """Keypoint R-CNN's round 1: TRT104 and TRT727 (unsafe fixes) break it, TRT704 (safe) does not;
    the rules come sorted, the safe one checked last is the one left to the next round."""
    from trtcodemod.verify.run import _safe_rules

    checked: list[str] = []

    def check(rule: str) -> tuple[bool, str]:
        checked.append(rule)
        return rule != "TRT704", "differs" if rule != "TRT704" else "equal"

    rules = ["TRT104", "TRT704", "TRT727"]
    assert _safe_rules(rules) == {"TRT704"}
    result = find_culprits(rules, check, verified_next=True, last=_safe_rules(rules))
    assert checked == ["TRT104", "TRT727"]
    assert [(r["rule"], r["reproduces"]) for r in result] == [("TRT104", True), ("TRT704", False), ("TRT727", True)]
    checked.clear()
    assert find_culprits(rules, check, last={"TRT704"}) == find_culprits(rules, check)
    assert checked == ["TRT104", "TRT727", "TRT704", "TRT104", "TRT704", "TRT727"]


def test_the_command_module_does_not_import_torch() -> None:
    code = "import sys, trtcodemod.verify.command; print('torch' in sys.modules, 'onnx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# --- verifier fixes that migrate depends on (issue 7) -----------------------------------------


def test_model_constructor_arguments_from_the_model_text_or_the_config(tmp_path: Path) -> None:
    from trtcodemod.verify.spec import parse_model

    assert parse_model("Net") == ("Net", (), {})
    assert parse_model("Net(3, 8)") == ("Net", (3, 8), {})
    assert parse_model("heads.Net(3, width=8, names=('a', 'b'))") == ("heads.Net", (3,), {"width": 8, "names": ("a", "b")})
    for bad in ("Net(x)", "Net(**cfg)", "1 + 2", "Net("):
        with pytest.raises(SpecError):
            parse_model(bad)
    model = tmp_path / "m.py"
    model.write_text("x = 1\n")
    spec = build_spec({"model_file": str(model), "model": "Net(3, width=8)", "input_shape": ["x:1x3"]})
    assert (spec.model, spec.model_args, dict(spec.model_kwargs)) == ("Net", (3,), {"width": 8})
    assert spec.model_call == "Net(3, width=8)"
    spec = build_spec({"model_file": str(model), "model": "Net", "args": [3], "kwargs": {"width": 8},
                       "input_shape": ["x:1x3"]})
    assert (spec.model_args, dict(spec.model_kwargs)) == ((3,), {"width": 8})
    with pytest.raises(SpecError):
        build_spec({"model_file": str(model), "model": "Net(1)", "args": [3], "input_shape": ["x:1x3"]})


def test_build_model_passes_constructor_arguments() -> None:
    import types

    import torch

    from trtcodemod.verify.worker import build_model

    module = types.SimpleNamespace(__name__="m", Net=lambda c, width=1: torch.nn.Linear(c, width))
    model = build_model(module, "Net", (3,), {"width": 8})
    assert (model.in_features, model.out_features, model.training) == (3, 8, False)


def test_repeated_select_keeps_every_value(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from trtcodemod.cli import app
    from trtcodemod.verify import command
    from trtcodemod.verify.report import error_report

    seen = []

    def fake_run(spec, progress):  # noqa: ANN001, ANN202 - records the spec instead of verifying
        seen.append(spec)
        return error_report(spec.label, "not run")

    monkeypatch.setattr(command, "run_one", fake_run)
    model = tmp_path / "m.py"
    model.write_text("x = 1\n")
    CliRunner().invoke(app, ["verify", str(model), "--model", "Net", "--input-shape", "x:1x3",
                             "--select", "TRT401", "--select", "TRT201,TRT3", "--unordered", "output.0"])
    assert seen[0].rewrite.select == ("TRT401", "TRT201", "TRT3") and seen[0].unordered == ("output.0",)


def test_order_insensitive_outputs_compare_sorted_rows() -> None:
    from trtcodemod.verify.compare import compare_outputs
    from trtcodemod.verify.unordered import order_rows

    dets = np.array([[0.9, 1.0, 2.0], [0.9, 0.0, 1.0], [0.5, 3.0, 3.0]], dtype=np.float32)
    swapped = dets[[1, 0, 2]]  # tied scores, rows swapped
    assert not compare_outputs(["output.0"], [dets], [swapped], 1e-4, 1e-3)[0].passed
    assert compare_outputs(["output.0"], [order_rows(dets)], [order_rows(swapped)], 1e-4, 1e-3)[0].passed
    assert order_rows(np.float32(3.0)) == np.float32(3.0)


def test_ops_changed_says_when_there_is_no_graph() -> None:
    from trtcodemod.verify.report import _op_changes

    assert _op_changes({"ops": {"Conv": 2}}, None) == "no rewritten graph"
    assert _op_changes({"ops": {"Conv": 2}}, {"ops": {"Conv": 1}}) == "Conv 2->1"


def test_exporter_failure_names_the_users_line(tmp_path: Path) -> None:
    from trtcodemod.usercode import UserFiles
    from trtcodemod.verify.export import _user_line_of

    model = tmp_path / "m.py"
    model.write_text("x = 1\n")
    error = RuntimeError('Could not guard on data-dependent expression u0 < 3\n\nfrom user code:\n'
                         f'   File "{model}", line 7, in forward\n    if n < 3:\n')
    assert _user_line_of(error, UserFiles([str(tmp_path)])) == (str(model.resolve()), 7)
    assert _user_line_of(RuntimeError("no frames"), UserFiles([str(tmp_path)])) is None


def test_tracer_warnings_point_at_the_users_line_not_torch(tmp_path: Path) -> None:
    import importlib.util

    import torch

    from trtcodemod.verify.export import export_model

    # Installed code warns from its own frame, as torch/_tensor.py does: the line is the user's call.
    lib, user = tmp_path / "site-packages", tmp_path / "user"
    lib.mkdir()
    user.mkdir()
    (lib / "fakelib.py").write_text("import warnings, torch\n\ndef scale(x):\n"
                                    "    warnings.warn('Converting a tensor to a Python number', torch.jit.TracerWarning)\n"
                                    "    return x * 2\n")
    model_file = user / "model.py"
    model_file.write_text("import torch\nimport fakelib\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                          "        return fakelib.scale(x)\n")
    sys.path.insert(0, str(lib))
    try:
        spec = importlib.util.spec_from_file_location("usermodel", model_file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        result = export_model(module.M(), (torch.ones(3),), tmp_path / "m.onnx", exporter="torchscript",
                              input_names=["x"], output_names=["y"], dynamic_axes={}, opset=17,
                              user_roots=(str(user),))
    finally:
        sys.path.remove(str(lib))
    [tracer] = [w for w in result.warnings if w["category"] == "TracerWarning"]
    assert (tracer["file"], tracer["line"]) == (str(model_file.resolve()), 6)
    assert tracer["origin"].endswith("fakelib.py:4")  # where the library raised it, kept for reference


def test_a_conversion_warning_names_the_line_that_converted_not_the_recording_wrapper(tmp_path: Path) -> None:
    """The export wraps the tensor conversions (``__bool__``...) to keep the number each one baked, so
    the warning torch issues one frame up names that wrapper; the origin is the line that converted:
    ``F.group_norm``'s ``if size_prods == 1: raise`` (monai's diffusion UNet: four raw warnings at its
    GroupNorm calls, not known as the check they are). There the check is found, at the user's line."""
    import importlib.util
    import linecache

    import torch

    from trtcodemod.migrate.locate import GUARD_NOTE, _guard_note, split_source as _split
    from trtcodemod.verify.export import export_model

    user = tmp_path / "user"
    user.mkdir()
    model_file = user / "gn_model.py"
    model_file.write_text("import torch\n\nclass M(torch.nn.Module):\n    def __init__(self):\n"
                          "        super().__init__()\n        self.norm = torch.nn.GroupNorm(2, 4)\n\n"
                          "    def forward(self, x):\n        return self.norm(x) * 2\n")
    spec = importlib.util.spec_from_file_location("gn_usermodel", model_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = export_model(module.M().eval(), (torch.rand(1, 4, 5, 5),), tmp_path / "m.onnx", exporter="torchscript",
                          input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}},
                          opset=17, user_roots=(str(user),))
    assert result.error is None
    [tracer] = [w for w in result.warnings if w["category"] == "TracerWarning"]
    assert (tracer["file"], tracer["line"]) == (str(model_file.resolve()), 9)
    path, line = _split(tracer["origin"])
    assert path.endswith("torch/nn/functional.py"), tracer["origin"]
    assert "size_prods == 1" in linecache.getline(path, line)
    assert _guard_note(path, line) == GUARD_NOTE


ELLIPSIS_WRITE = """\
import torch


class Boxes(torch.nn.Module):
    def forward(self, boxes, pad):
        boxes = boxes.clone()
        boxes[..., [0, 2]] -= pad[0]
        return boxes
"""


def test_a_node_the_onnx_checker_refuses_at_load_is_placed_at_its_line(tmp_path: Path) -> None:
    """The TorchScript exporter writes `boxes[..., [0, 2]] -= v` with an Add that lost an input; ONNX Runtime's
    load-time checker names it as `In Node, ("/Add", Add, "", -1)`, a form the other patterns miss."""
    import warnings

    import onnxruntime as ort
    import torch

    from support import import_file
    from trtcodemod.verify.static import failed_node

    model_file = tmp_path / "boxes.py"
    model_file.write_text(ELLIPSIS_WRITE)
    model = import_file(model_file, "ellipsis_write").Boxes().eval()
    path = tmp_path / "boxes.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(3, 4), torch.tensor([1.0, 2.0])), str(path), dynamo=False,
                          opset_version=17, verbose=True, dynamic_axes={"boxes": {0: "n"}},
                          input_names=["boxes", "pad"])
    with pytest.raises(Exception) as refused:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert "has an empty string in the graph" in str(refused.value)
    found = failed_node(str(path), str(refused.value))
    line = ELLIPSIS_WRITE.splitlines().index("        boxes[..., [0, 2]] -= pad[0]") + 1
    assert found is not None and found.op == "Add" and found.source == f"{model_file}:{line}", found


# --- a rule alone failing at code another fix of the rewrite changes (zoo 30: ty3_yolov3_nms) -------------------


def _alone_tree(tmp_path: Path) -> tuple[object, Path, Path]:
    """The copy rewritten with one rule only: ``nms.py`` changed (a helper inserted above), ``boxes.py`` not."""
    from trtcodemod.verify.rewrite import RewrittenTree

    user, copy = tmp_path / "user", tmp_path / "copy"
    tree = RewrittenTree(layout=None)  # type: ignore[arg-type]  # the layout is not read here
    tree.maps[str((copy / "nms.py").resolve())] = (str(user / "nms.py"),
                                                   LineMap("def nms(p):\n    return p\n",
                                                           "def _trt_h():\n    pass\ndef nms(p):\n    return p\n"))
    tree.maps[str((copy / "boxes.py").resolve())] = (str(user / "boxes.py"), LineMap("", ""))
    return tree, user, copy


def _failure(copy: Path) -> str:
    # A TorchScript compile error at import, shaped as zoo 30's ty3_yolov3_nms one: the torch_yolo3 package's
    # `y = x.new(x.shape)` (torch_yolo3/utils.py:67, `xywh2xyxy`) reached from `non_max_suppression`.
    return ("RuntimeError: 'Tensor (inferred)' object has no attribute or method 'new'.:\n"
            f'  File "{copy / "boxes.py"}", line 2\n    y = x.new(x.shape)\n'
            f'  File "{copy / "nms.py"}", line 4\n    return p\n (during import)')


def test_a_rule_alone_failing_where_another_fix_rewrites_is_not_that_rules_failure(tmp_path: Path) -> None:
    from trtcodemod.verify.rewrite import Fix
    from trtcodemod.verify.run import rewritten_where_it_fails

    tree, user, copy = _alone_tree(tmp_path)
    other = Fix("TRT349", str(user / "boxes.py"), 2, "x.new")
    full = [Fix("TRT104", str(user / "nms.py"), 2, "while"), other, Fix("TRT349", str(user / "boxes.py"), 9, "x.new")]
    # The copy's nms.py:4 is the user's line 2: TRT104's own fix is no other rule's; boxes.py:2 is TRT349's.
    assert rewritten_where_it_fails(_failure(copy), tree, full, "TRT104") == [other]
    assert rewritten_where_it_fails(_failure(copy), tree, full[:1], "TRT104") == []
    # A frame outside the copy (a library's file) names no user's line.
    assert rewritten_where_it_fails('File "/usr/lib/x.py", line 2', tree, full, "TRT104") == []


def test_the_culprit_check_does_not_blame_a_rule_for_code_another_fix_rewrites(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: "the model rewritten with TRT104 alone does not run: ... no attribute or method 'new'", a reason
    to revert TRT104, though TRT349 rewrites that `x.new` in the rewrite verified. Now: not reproduced, and said why.
    Code no other fix touches keeps the rule blamed, with the failure."""
    from types import SimpleNamespace

    from trtcodemod.verify import run
    from trtcodemod.verify.rewrite import Fix

    tree, user, copy = _alone_tree(tmp_path)
    tree.fixes = [Fix("TRT104", str(user / "nms.py"), 2, "while")]
    monkeypatch.setattr(run, "rewrite_copy", lambda *args, **kwargs: tree)
    side = SimpleNamespace(built=False, failure=lambda: _failure(copy))
    monkeypatch.setattr(run, "_run_model", lambda *args, **kwargs: side)
    ctx = SimpleNamespace(spec=SimpleNamespace(rewrite=RewriteOptions()), work=tmp_path / "work")
    full = [*tree.fixes, Fix("TRT349", str(user / "boxes.py"), 2, "x.new")]
    blamed, why = run._check_single_rule(ctx, None, "TRT104", None, None, [], (), (), full)  # type: ignore[arg-type]
    assert not blamed and "TRT349 at boxes.py:2" in why and "not reproduced on its own" in why, why
    blamed, why = run._check_single_rule(ctx, None, "TRT104", None, None, [], (), (), full[:1])  # type: ignore[arg-type]
    assert blamed and why.startswith("the model rewritten with TRT104 alone does not run: RuntimeError"), why


def test_type_origin_walks_up_through_nodes_that_keep_a_type() -> None:
    """A float ``ConstantOfShape`` clamped, reshaped and gathered before the node that refuses it: the walk ends at
    the node that gave the value its type; a node that sets a type itself (a ``Cast``) is its own origin (None)."""
    from onnx import TensorProto, helper

    from trtcodemod.verify.static import type_origin

    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["full"], name="/full"),
             helper.make_node("Clip", ["full", "lo"], ["clipped"], name="/clip"),
             helper.make_node("Reshape", ["clipped", "shape"], ["viewed"], name="/view"),
             helper.make_node("Gather", ["viewed", "index"], ["picked"], name="/pick"),
             helper.make_node("Cast", ["picked"], ["ints"], name="/cast", to=TensorProto.INT64),
             helper.make_node("Where", ["cond", "ints", "other"], ["chosen"], name="/where")]
    graph = helper.make_graph(nodes, "g", [], [])
    named = {node.name: node for node in graph.node}
    assert type_origin(graph, named["/pick"]).name == "/full"
    assert type_origin(graph, named["/clip"]).name == "/full"
    assert type_origin(graph, named["/where"]).name == "/cast"  # Where keeps the type of its second input
    assert type_origin(graph, named["/cast"]) is None
    assert type_origin(graph, named["/full"]) is None


def test_type_origin_follows_the_operand_a_promotion_did_not_cast() -> None:
    """Idefics2's ``torch.where(mask, pos_ids, position_ids)``, ``position_ids`` a ``torch.full`` with no dtype
    of a traced size: the exporter casts the int64 ids to the full's float, so the type came from the full."""
    from onnx import TensorProto, helper

    from trtcodemod.verify.static import type_origin

    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["full"], name="/full"),
             helper.make_node("Cast", ["ids"], ["ids_float"], name="/promote", to=TensorProto.FLOAT),
             helper.make_node("Where", ["mask", "ids_float", "full"], ["chosen"], name="/where"),
             helper.make_node("Reshape", ["chosen", "shape"], ["flat"], name="/view"),
             helper.make_node("Where", ["mask", "ids_float", "other"], ["beside_input"], name="/where_input"),
             helper.make_node("Cast", ["full"], ["full_int"], name="/cast_back", to=TensorProto.INT64),
             helper.make_node("Where", ["mask", "ids_float", "full_int"], ["both_cast"], name="/both"),
             helper.make_node("Max", ["ids_float", "full"], ["largest"], name="/max")]
    graph = helper.make_graph(nodes, "g", [], [])
    named = {node.name: node for node in graph.node}
    assert type_origin(graph, named["/view"]).name == "/full"
    assert type_origin(graph, named["/max"]).name == "/full"
    assert type_origin(graph, named["/where_input"]).name == "/promote"  # the other is the graph's input
    assert type_origin(graph, named["/both"]).name == "/promote"  # both cast: nothing tells which typed it


def test_type_origin_follows_the_part_a_concat_did_not_cast() -> None:
    """MaskGIT's ``torch.cat((class_token, ids))``, ``ids`` a ``torch.full`` with no dtype of a traced size: the
    exporter casts the int64 class token to the full's float, so the joined tensor's type came from the full. A
    ``Concat`` of parts none of which was cast (or all of which were) set the type itself."""
    from onnx import TensorProto, helper

    from trtcodemod.verify.static import type_origin

    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["full"], name="/full"),
             helper.make_node("Reshape", ["full", "shape"], ["ids"], name="/ids"),
             helper.make_node("Cast", ["token"], ["token_float"], name="/promote", to=TensorProto.FLOAT),
             helper.make_node("Concat", ["token_float", "ids"], ["tokens"], name="/cat", axis=1),
             helper.make_node("Concat", ["token", "ids"], ["plain"], name="/plain", axis=1),
             helper.make_node("Cast", ["ids"], ["ids_int"], name="/cast_back", to=TensorProto.INT64),
             helper.make_node("Concat", ["token_float", "ids_int"], ["both"], name="/both", axis=1),
             helper.make_node("Reshape", ["tokens", "shape"], ["flat"], name="/view"),
             helper.make_node("Reshape", ["plain", "shape"], ["flat_plain"], name="/view_plain")]
    graph = helper.make_graph(nodes, "g", [], [])
    named = {node.name: node for node in graph.node}
    assert type_origin(graph, named["/cat"]).name == "/full"
    assert type_origin(graph, named["/view"]).name == "/full"
    assert type_origin(graph, named["/plain"]) is None
    assert type_origin(graph, named["/view_plain"]).name == "/plain"
    assert type_origin(graph, named["/both"]) is None  # both cast: nothing tells which typed it


def test_weights_load_where_the_model_writes_an_unprefixed_version_key() -> None:
    """lightnet's ``state_dict`` override adds ``_LN_MODEL_VERSION`` to the dict its parent passes down, with no
    prefix: a wrapper's own state does not load strictly into the same wrapper (zoo 73: every fix of seven lightnet
    detectors was taken back as "does not run"). The verifier's load takes it where the key is the build's own, with
    the same value, and still refuses a missing weight or another version."""
    import pytest
    import torch

    from trtcodemod.verify.worker import _load_weights, _weights

    class Versioned(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 1)

        def state_dict(self, **kwargs):
            state = super().state_dict(**kwargs)
            state["_LN_MODEL_VERSION"] = torch.tensor(1)
            return state

    class Wrap(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.network = Versioned()

    source, target = Wrap(), Wrap()
    state = _weights(source.state_dict())
    assert "_LN_MODEL_VERSION" in state
    with pytest.raises(RuntimeError, match="_LN_MODEL_VERSION"):
        Wrap().load_state_dict(state)  # the library's own round trip fails
    _load_weights(target, dict(state))
    assert torch.equal(target.network.conv.weight, source.network.conv.weight)
    with pytest.raises(RuntimeError):
        _load_weights(Wrap(), {**state, "_LN_MODEL_VERSION": torch.tensor(2)})
    with pytest.raises(RuntimeError):
        _load_weights(Wrap(), {key: value for key, value in state.items() if key != "network.conv.bias"})
