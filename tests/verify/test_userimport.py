"""Loading the user's model file: a lone file named like the package beside it is the file, not the package.

Zoo 92's ``bangla_ocr.py`` sits next to the ``bangla_ocr/`` package it imports from (``from bangla_ocr.model import
...``). Loaded under its stem, the file was the package: ``import_user_module`` imported the package instead of the
file, and ``migrate`` stopped at exit 2 ("could not be observed"). Each test runs in a fresh interpreter, since the
import leaves modules and ``sys.path`` entries behind.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from support import invoke

PACKAGE_INIT = "VALUE = 'the package'\n"
PACKAGE_MODEL = "import torch\n\n\ndef layer():\n    return torch.nn.Linear(3, 2)\n"
MODEL_FILE = textwrap.dedent('''\
    import torch
    from shadow.model import layer


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer()

        def forward(self, x):
            return self.layer(x).relu()


    def build():
        torch.manual_seed(0)
        return Net().eval()


    def inputs(generator):
        return (torch.rand(2, 3, generator=generator),)
    ''')


def _project(root: Path) -> Path:
    (root / "shadow").mkdir()
    (root / "shadow" / "__init__.py").write_text(PACKAGE_INIT)
    (root / "shadow" / "model.py").write_text(PACKAGE_MODEL)
    model = root / "shadow.py"
    model.write_text(MODEL_FILE)
    return model


def test_a_lone_file_named_like_a_package_beside_it_is_loaded_from_its_path(tmp_path):
    model = _project(tmp_path)
    script = textwrap.dedent(f'''\
        from trtcodemod.verify.userimport import import_user_module
        module = import_user_module({str(model)!r}, {str(tmp_path)!r}, "shadow", [])
        import shadow
        print(hasattr(module, "build"), module.__file__ == {str(model)!r}, shadow.VALUE)
        ''')
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "the", "package"]


def test_a_package_init_given_as_the_model_file_still_imports_by_name(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .inner import VALUE\n")
    (tmp_path / "pkg" / "inner.py").write_text("VALUE = 7\n")
    script = textwrap.dedent(f'''\
        from trtcodemod.verify.userimport import import_user_module
        module = import_user_module({str(tmp_path / "pkg" / "__init__.py")!r}, {str(tmp_path)!r}, "pkg", [])
        print(module.VALUE, module.__name__)
        ''')
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "pkg"]


def test_verify_runs_such_a_file(tmp_path):
    model = _project(tmp_path)
    result = invoke("verify", str(model), "--model", "build", "--inputs", "inputs", "--runs", "1", "--warmup", "0",
                    "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json")
    assert result.exit_code == 0, result.stdout
