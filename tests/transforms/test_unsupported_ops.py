"""TRT706 unsupported-op and TRT707 distribution-rsample: findings, and the table of unsupported
operators backed by an export each; the example model of the deployment rules (TRT701-TRT705,
TRT801), whose rules are tested in their own modules' files."""

from __future__ import annotations

import importlib.util
import io
import warnings

import onnx
import pytest
import torch
import torch.nn.functional as F

from snippets import found
from support import REPO, assert_same, rewrite, rules_found
from trtcodemod.engine import Options, check_source
from trtcodemod.transforms.unsupported_ops import UNSUPPORTED_OPS
from trtcodemod.trt.support import is_supported


# --- TRT706 unsupported-op --------------------------------------------------------

SAMPLES = {
    "torch.nn.Fold": (lambda x: torch.nn.Fold((4, 4), 2)(x), lambda: (torch.randn(1, 8, 9),)),
    "torch.nn.modules.fold.Fold": (lambda x: torch.nn.modules.fold.Fold((4, 4), 2)(x),
                                   lambda: (torch.randn(1, 8, 9),)),
    "torch.stft": (lambda x: torch.stft(x, 16, window=torch.hann_window(16), return_complex=False),
                   lambda: (torch.randn(1, 64),)),
    "torch.nn.functional.grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False),
                                        lambda: (torch.randn(1, 2, 4, 4), torch.rand(1, 3, 3, 2) * 2 - 1)),
    "torch.tril": (torch.tril, lambda: (torch.randn(3, 3),)),
    "torch.triu": (torch.triu, lambda: (torch.randn(3, 3),)),
    "torch.multinomial": (lambda p: torch.multinomial(p, 1), lambda: (torch.rand(2, 5),)),
    "torch.bernoulli": (torch.bernoulli, lambda: (torch.rand(2, 5),)),
    "torch.bincount": (torch.bincount, lambda: (torch.tensor([0, 1, 1, 3]),)),
    "torch.linalg.pinv": (torch.linalg.pinv, lambda: (torch.randn(2, 3, 3),)),
    "torch.slogdet": (lambda x: torch.slogdet(x)[1], lambda: (torch.randn(2, 3, 3),)),
    "torch.linalg.slogdet": (lambda x: torch.linalg.slogdet(x)[1], lambda: (torch.randn(2, 3, 3),)),
    "torch.erfinv": (torch.erfinv, lambda: (torch.rand(5),)),
    "torch.special.erfinv": (torch.special.erfinv, lambda: (torch.rand(5),)),
    "torch.mode": (lambda x: torch.mode(x, 1)[0], lambda: (torch.randn(2, 5),)),
    "torch.unique_consecutive": (torch.unique_consecutive, lambda: (torch.tensor([0, 1, 1, 3]),)),
}
for _name in ("irfft", "irfft2", "irfftn", "hfft", "ihfft"):  # the others are TRT709's
    SAMPLES[f"torch.fft.{_name}"] = (lambda x, fn=getattr(torch.fft, _name): fn(x).abs(),
                                     lambda: (torch.randn(2, 8, 8),))

ROWS = [pytest.param(row, name, id=name) for row in UNSUPPORTED_OPS for name in row.names]


class _Call(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _exported_ops(fn, args, opset: int) -> list[str]:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Call(fn), args, buffer, dynamo=False, opset_version=opset)
    return [node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node]


def test_a_call_another_rule_fixes_is_not_named_again() -> None:
    """cummax (TRT307) and affine_grid (TRT309) have fixes: TRT706 does not also call them
    operators with no TensorRT path."""
    code = ("import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n"
            "    def forward(self, x, t):\n"
            "        return torch.cummax(x, 1)[0], F.affine_grid(t, (1, 1, 4, 4), align_corners=False)\n")
    assert rules_found(code) == ["TRT307", "TRT309"]


def test_an_inverse_real_transform_trt709_takes_is_not_named() -> None:
    """``irfft``/``irfft2``/``irfftn`` of ``torch.complex(re, im)`` or ``torch.view_as_complex(p)``,
    written there or assigned to its input in the same function (LaMa's Fourier unit), and of a
    product of spectra (FFTformer's ``irfft2(rfft2(q) * rfft2(k))``) are TRT709's, which rewrites
    them; any other input (a quotient of spectra, a tensor not made there) stays TRT706's."""
    code = (
        "import torch\n"
        "def lama(x, re, im):\n"
        "    ffted = torch.complex(re, im)\n"
        "    return torch.fft.irfftn(ffted, s=x.shape[-2:], dim=(-2, -1), norm='ortho')\n"
        "def inline(re, im, pairs):\n"
        "    return torch.fft.irfft(torch.complex(re, im), n=8), torch.fft.irfft2(torch.view_as_complex(pairs))\n"
        "def product(x, k):\n"
        "    return torch.fft.irfftn(torch.fft.rfftn(x) * k), torch.fft.irfftn(torch.fft.rfftn(x) / torch.fft.rfftn(k))\n"
        "def other(z):\n"
        "    y = torch.complex(z, z)\n"
        "    return torch.fft.irfft(z)\n"
    )
    assert rules_found(code, select=("TRT706",)) == ["TRT706", "TRT706"]
    lines = [f.line for f in check_source(code.encode(), "snippet.py", Options(select=("TRT706",)))]
    assert lines == [8, 11]  # the quotient (the product is TRT709's), and `z` (not the tensor made from parts)


def test_a_real_pairs_stft_trt709_takes_is_not_named() -> None:
    """``torch.stft(x, ..., return_complex=False)`` with its own arguments (the input by position or as ``input=``)
    is TRT709's, which rewrites it; one whose ``return_complex`` the code decides, or given unpacked arguments, stays
    TRT706's (its STFT exports as ONNX STFT, which TensorRT 8.6 does not parse)."""
    code = (
        "import torch\n"
        "def taken(x, w):\n"
        "    a = torch.stft(x, 64, hop_length=16, window=w, return_complex=False)\n"
        "    return a, torch.stft(input=x, n_fft=64, window=w, return_complex=False)\n"
        "def named(x, w, flag, kw):\n"
        "    return torch.stft(x, 64, window=w, return_complex=flag), torch.stft(x, 64, **kw)\n"
    )
    lines = [f.line for f in check_source(code.encode(), "snippet.py", Options(select=("TRT706",)))]
    assert lines == [6, 6]


def test_nanmedian_is_trt319_s_and_mode_stays_named() -> None:
    """``torch.nanmedian`` (a sort with a count of the numbers while exporting) is TRT319's now; ``torch.mode``
    has no such rewrite and stays TRT706's."""
    code = "import torch\n\ndef f(x):\n    return torch.nanmedian(x), torch.mode(x, 1)\n"
    assert [f.message.split("`")[1] for f in check_source(code.encode(), "snippet.py", Options(select=("TRT706",)))] \
        == ["torch.mode"]


def test_every_table_name_has_an_export_sample() -> None:
    names = {name for row in UNSUPPORTED_OPS for name in row.names}
    assert names == set(SAMPLES)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("row,name", ROWS)
def test_table_row_is_backed_by_an_export(row, name) -> None:
    """Each row: the exporter fails, or emits the op TensorRT's table marks unsupported for the target."""
    fn, make_args = SAMPLES[name]
    args = make_args()
    fn(*args)  # the sample itself is valid torch code
    if row.onnx_op is None or row.opset > 17:
        with pytest.raises(Exception):
            _exported_ops(fn, args, 17)
    if row.onnx_op is not None:
        assert row.onnx_op in _exported_ops(fn, args, row.opset)
        if row.needed_before is None:
            assert is_supported(row.onnx_op, "8.6") is False
        else:
            before = (row.needed_before[0], row.needed_before[1] - 1)
            assert is_supported(row.onnx_op, before) is False
            assert is_supported(row.onnx_op, row.needed_before) is True


def test_unsupported_op_matching() -> None:
    code = """
    from torch.nn.functional import fold as torch_fold

    def fold(x):                 # the user's own fold
        return x

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.merge = nn.Fold((8, 8), 2)           # a module class: reported where built
            self.basis = torch.linalg.inv(torch.eye(3))  # construction-time constant: silent

        def forward(self, cols, grid, m):
            a = torch_fold(cols, (8, 8), 2)   # F.fold: TRT312's, which rewrites it
            b = fold(cols)
            c = torch.fft.irfft(cols)         # torch.fft.rfft is TRT709's
            d = F.grid_sample(cols, grid)
            e = torch.linalg.det(m) + torch.logdet(m) + torch.renorm(m, 2, 0, 1.0).sum()  # TRT338's, TRT337's
            f = F.unfold(cols, 2) + torch.cumsum(cols, 1)
            return a, b, c, d, e, f
    """
    assert found(code, "TRT706") == ["TRT706"] * 2
    assert found(code, "TRT706", target="8.4") == ["TRT706"] * 3  # grid_sample before 8.5
    assert found(code, "TRT312") == ["TRT312"]
    assert found(code, "TRT338") == ["TRT338"] * 3  # the determinants, and the inverse in __init__
    assert found(code, "TRT337") == ["TRT337"]


# --- TRT707 distribution-rsample ---------------------------------------------------


def test_rsample() -> None:
    code = """
    class Policy(nn.Module):
        def forward(self, obs):
            dist = torch.distributions.Normal(obs, 1.0)
            if self.training:
                return dist.rsample()
            return dist.rsample(), dist.sample(), self.act(dist)

        def act(self, dist):
            return dist.rsample()

        def explore(self, dist):
            return dist.rsample()   # not called from forward
    """
    assert found(code, "TRT707") == ["TRT707", "TRT707"]


# --- the example model ----------------------------------------------------------------


def test_example_model() -> None:
    path = REPO / "examples" / "legacy_ops.py"
    source = path.read_text()
    assert sorted(set(rules_found(source))) == ["TRT701", "TRT702", "TRT703", "TRT704", "TRT705", "TRT801"]
    after = rewrite(source)
    assert "torch.arange(queries.shape[0]" in after

    def module_from(text: str):
        spec = importlib.util.spec_from_loader("legacy_ops_under_test", loader=None)
        module = importlib.util.module_from_spec(spec)
        exec(compile(text, str(path), "exec"), module.__dict__)
        return module

    before_mod, after_mod = module_from(source), module_from(after)
    args = before_mod.inputs(torch.Generator().manual_seed(0))
    assert_same(before_mod.build()(*args), after_mod.build()(*args))
