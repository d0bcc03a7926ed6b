"""Rules that declare ``needs_text`` are skipped on files that do not contain it; that must
never hide a finding (``tests/prefilter_sample.py`` says how it is checked). Here: the sample
itself, the oldest target over the whole file, and the prefilter's parts. The newer targets and
the model scope are in the other ``test_prefilter_*.py`` files, so that both workers share them.
"""

from __future__ import annotations

from trtcodemod.engine import Options, check_source
from trtcodemod.registry import rule_classes
from trtcodemod.rules import spelled
from prefilter_sample import GATED, assert_no_finding_without_its_text, assert_the_prefilter_changes_nothing, \
    snippets, ungated


def test_the_sample_is_large_and_reaches_every_gated_rule() -> None:
    assert len(snippets()) > 300
    fired = {rule for found in ungated("8.0", "all") for rule, *_ in found}
    assert set(GATED) <= fired | {"TRT102"}  # TRT102 only below 8.4, reached at 8.0 too
    assert "TRT102" in fired


def test_no_finding_without_its_text_at_the_oldest_target() -> None:
    assert_no_finding_without_its_text("8.0", "all")
    assert_the_prefilter_changes_nothing("8.0", "all")


def test_spelled_takes_the_last_parts() -> None:
    assert spelled("torch.nn.functional.pad", "torch.nn.ZeroPad2d", "torch.pad") == (b"ZeroPad2d", b"pad")


def test_a_file_without_the_text_skips_the_rule() -> None:
    source = b"import torch\n\ndef f(y, x):\n    return torch.atan2(y, x)\n"
    assert [f.rule for f in check_source(source, "m.py", Options(select=("TRT301",)))] == ["TRT301"]
    cls = next(c for c in rule_classes() if c.info.id == "TRT301")
    assert cls.may_find(source) and not cls.may_find(source.replace(b"atan2", b"hypot"))


def test_a_module_a_star_import_binds_counts_as_text(tmp_path) -> None:
    # pytorch-YOLOv4's `tool/yolo_layer.py` gets `np` and `torch` only from `from tool.torch_utils import *`:
    # the text never says `numpy`, yet TRT711 (which waits for it) has a NumPy grid on sizes to rewrite there.
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text("")
    (tmp_path / "tool" / "torch_utils.py").write_text("import numpy as np\nimport torch\n")
    layer = tmp_path / "tool" / "yolo_layer.py"
    layer.write_text(
        "import torch.nn as nn\n"
        "from tool.torch_utils import *\n\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, output):\n"
        "        grid = np.expand_dims(np.linspace(0, output.size(3) - 1, output.size(3)), axis=0)\n"
        "        return output + torch.tensor(grid, dtype=torch.float32)\n")
    source = layer.read_bytes()
    assert b"numpy" not in source
    found = check_source(source, str(layer), Options(select=("TRT711",), scope="all"))
    assert [f.rule for f in found] == ["TRT711"]
    # Without the module that binds them, the names are nobody's: nothing to find.
    (tmp_path / "tool" / "torch_utils.py").write_text("")
    assert check_source(layer.read_bytes(), str(layer), Options(select=("TRT711",), scope="all")) == []
