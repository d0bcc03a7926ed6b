"""Operations with no TensorRT path (TRT706, TRT707).

- TRT706 looks calls up in :data:`UNSUPPORTED_OPS`, a table of torch functions and module
  classes whose export fails or yields an ONNX op TensorRT's parser rejects; each row is
  backed by an export in tests/transforms/test_unsupported_ops.py.
- TRT707 reports ``.rsample()`` in forward code: random sampling TensorRT cannot build.

Both are detect only; where they look is shared with the other deployment rules: see
:mod:`trtcodemod.transforms._runtime_scope`.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.rules import Example, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.transforms.spectral import INVERSE_REAL, inverse_real_makers, taken_stfts, takes_inverse_real
from trtcodemod.versions import Version

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"
_SUPPORTED_ATEN = "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html"


# --- TRT706 ------------------------------------------------------------------------


@dataclass(frozen=True)
class UnsupportedOp:
    """One row of TRT706's table."""

    #: Qualified names of the functions / module classes.
    names: tuple[str, ...]
    #: The ONNX op the TorchScript exporter emits (None: it cannot export the call at all).
    onnx_op: str | None
    #: What goes wrong, in a few words (the finding's message).
    message: str
    #: Only a problem on TensorRT older than this (None: every version in the table).
    needed_before: Version | None = None
    #: Opset the exporter needs before it emits ``onnx_op`` (it fails below).
    opset: int = 17


# fft/ifft/rfft and their 2-D and n-D forms are TRT709's (matrix products where the result is taken as real),
# and so are irfft/irfft2/irfftn of a complex tensor made from real parts (torch.complex, view_as_complex)
# or of a product of spectra (transforms, those tensors).
_FFT = tuple(f"torch.fft.{n}" for n in ("irfft", "irfft2", "irfftn", "hfft", "ihfft"))
_NO_EXPORT = "the TorchScript exporter has no ONNX symbolic for it"

#: Each row is backed by an export in tests/transforms/test_unsupported_ops.py (opset 17,
#: dynamo=False) and by TensorRT's operator table (trtcodemod/trt/onnx_ops.csv).
UNSUPPORTED_OPS: tuple[UnsupportedOp, ...] = (
    # F.fold itself is TRT312's (shifted block images added up while exporting); the module stays here.
    UnsupportedOp(("torch.nn.Fold", "torch.nn.modules.fold.Fold"), "Col2Im",
                  "exports only from opset 18, as ONNX Col2Im, which no TensorRT release parses", opset=18),
    UnsupportedOp(_FFT, None, f"{_NO_EXPORT} (aten::fft_*), and ONNX DFT is not parsed by any TensorRT release"),
    UnsupportedOp(("torch.stft",), "STFT",
                  "complex output does not export; with return_complex=False it exports as ONNX STFT, which "
                  "TensorRT parses only from 10.15 (window and frame step as initializers)"),
    UnsupportedOp(("torch.nn.functional.grid_sample",), "GridSample",
                  "exports as ONNX GridSample, which TensorRT parses from 8.5 (4-D input only)", needed_before=(8, 5)),
    UnsupportedOp(("torch.tril", "torch.triu"), "Trilu",
                  "exports as ONNX Trilu, which TensorRT parses from 8.5", needed_before=(8, 5)),
    # torch.det, torch.linalg.det and torch.logdet are TRT338's (written out or eliminated while exporting).
    UnsupportedOp(("torch.multinomial",), "Multinomial", "exports as ONNX Multinomial, which TensorRT does not parse"),
    UnsupportedOp(("torch.bernoulli",), "Bernoulli", "exports as ONNX Bernoulli, which TensorRT does not parse"),
    # F.max_unpool1d/2d/3d and nn.MaxUnpool1d/2d/3d are TRT340's (a scatter into zeros while exporting).
    # cummax/cummin are TRT307's and affine_grid TRT309's (each with a fix), so they are not rows here.
    # torch.cumprod is TRT337's (products over a triangle while exporting), with the other functions it composes.
    # torch.logcumsumexp is TRT337's (a log-sum-exp over a triangle while exporting).
    # torch.searchsorted is TRT318's (a count of comparisons while exporting), torch.histc TRT321's.
    UnsupportedOp(("torch.bincount",), None, _NO_EXPORT),
    # torch.inverse, torch.linalg.inv and torch.linalg.solve are TRT338's (the adjugate of 2x2 to 4x4 matrices).
    UnsupportedOp(("torch.linalg.pinv", "torch.slogdet", "torch.linalg.slogdet"), None, _NO_EXPORT),
    UnsupportedOp(("torch.erfinv", "torch.special.erfinv"), None, _NO_EXPORT),
    # torch.median, torch.nanmedian and torch.kthvalue are TRT319's (their values from a sort while exporting).
    UnsupportedOp(("torch.mode",), None, _NO_EXPORT),
    # torch.diag is TRT320's (built by indexing while exporting).
    # torch.renorm is TRT337's (the norm over the other axes while exporting).
    UnsupportedOp(("torch.unique_consecutive",), None, _NO_EXPORT),
)
_BY_NAME: dict[str, UnsupportedOp] = {name: row for row in UNSUPPORTED_OPS for name in row.names}


class UnsupportedOperator(RuntimeScopeRule):
    needs_text = spelled(*_BY_NAME)
    info = RuleInfo(
        id="TRT706",
        name="unsupported-op",
        summary="a torch function or module with no TensorRT path (fold, fft, multinomial, grid_sample < 8.5...)",
        doc="""\
What it finds: calls of torch functions and module classes from a table, each backed by an
export with `torch.onnx.export(dynamo=False, opset_version=17)` and by TensorRT's ONNX
operator table: `nn.Fold` (ONNX Col2Im, opset 18; the function `F.fold` is TRT312's, which
rewrites it), `torch.fft.irfft`/`irfft2`/`irfftn`/`hfft`/`ihfft` and `torch.stft` (DFT / STFT; a complex
`torch.stft` whose spectrum is read only through parts, a product with a mask and `torch.istft`,
and one with `return_complex=False` (its real pairs) are TRT709's;
the other transforms are TRT709's, which rewrites them where their result is taken as real, and
so is an `irfft`/`irfft2`/`irfftn` whose input is `torch.complex(re, im)` or
`torch.view_as_complex(pairs)`, written there or assigned in the same function, or a product
`a * b` of such spectra and forward transforms, `irfft2(rfft2(q) * rfft2(k))` or through names),
`torch.multinomial`,
`torch.bernoulli`, `F.affine_grid`, and functions the
TorchScript exporter cannot export at all (`torch.bincount`,
`torch.linalg.pinv`, `torch.erfinv`, `torch.mode`, ...).
For older targets also `F.grid_sample` and `torch.tril`/`torch.triu` (parsed from
TensorRT 8.5). Functions are reported in run-time code; module classes where they are
built (usually `__init__`).

Not listed, because they export to ops TensorRT parses: `F.unfold` (Gather/Pad/Reshape),
`torch.bucketize` (comparisons and a ReduceSum), `torch.cumsum`, `torch.einsum`,
`torch.roll`, `torch.cdist`; nor what another rule rewrites: `torch.searchsorted` (TRT318),
`torch.median`, `torch.nanmedian` and `torch.kthvalue` (TRT319), `torch.diag` (TRT320), `torch.histc`
(TRT321), `torch.cumprod`, `torch.diff`, `torch.take_along_dim` and the other functions with
no TorchScript symbolic that TRT337 composes, `torch.inverse` / `torch.linalg.inv` /
`torch.linalg.solve`, `torch.det` / `torch.linalg.det` / `torch.logdet` (TRT338, up to
128x128 matrices), `torch.renorm` (TRT337), `F.max_unpool*` and `nn.MaxUnpool*` (TRT340). Tensor methods (`x.bincount()`,
`x.mode()`) cannot be resolved by name and are not matched.

Why it hurts: the export fails, or the ONNX file holds an op TensorRT's parser rejects, so
no engine can be built (or the layer falls back to a plugin you have to write).

What to do: compute it outside the network (pre/post-processing), precompute it when its
inputs are constant (an inverse of a fixed matrix in `__init__`), rewrite it with supported
ops (`bincount` as a sum of one-hot rows when the count of bins is known), or provide a TensorRT plugin.

Fix safety: none (detect only).""",
        fix=Safety.NONE,
        examples=(
            Example("class Merge(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.fold = nn.Fold((32, 32), kernel_size=4, stride=4)\n"),
            Example("def signal(spectrum):\n    return torch.fft.irfft(spectrum)\n"),
            Example("def draw(probabilities):\n    return torch.multinomial(probabilities, 1)\n"),
        ),
        references=(_OPERATORS, _SUPPORTED_ATEN, "https://pytorch.org/docs/stable/generated/torch.nn.Fold.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Inverse real transforms whose input is a name assigned from real parts (TRT709's).
        self._spectral_inputs: set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._spectral_inputs.update(inverse_real_makers(node, self.context))
        self._spectral_inputs.update(taken_stfts(node, self.context))

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *_BY_NAME)
        if name is None:
            return
        if name in INVERSE_REAL and takes_inverse_real(node, self.context, self._spectral_inputs):
            return
        if name == "torch.stft" and id(node) in self._spectral_inputs:  # (TRT709 rewrites it)
            return
        row = _BY_NAME[name]
        if row.needed_before is not None and not self.context.target < row.needed_before:
            return
        short = name.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")
        is_class = name.rsplit(".", 1)[-1][:1].isupper()
        self.found(node, f"`{short}` has no TensorRT path: {row.message}", scope="anywhere" if is_class else None)


# --- TRT707 ------------------------------------------------------------------------


class DistributionRsample(RuntimeScopeRule):
    scope = "forward"
    needs_text = (b"rsample",)
    info = RuleInfo(
        id="TRT707",
        name="distribution-rsample",
        summary="`dist.rsample()` in forward: TensorRT rejects the graph; use the mean or mode at inference",
        doc="""\
What it finds: `.rsample(...)` calls in forward code of `nn.Module` subclasses (typically a
`torch.distributions` object built from predicted parameters: VAEs, stochastic policies).

Why it hurts: the reparameterised sample draws random noise during tracing; the export ends
up with the noise frozen as a constant or with random ops TensorRT does not build. The
cheatsheet this project follows reports TensorRT failing with "Network must have at least
one output" on such graphs.

What to do: at inference, use a deterministic statistic (`dist.mean`, `dist.mode`, or the
location parameter directly), for example under `if self.training:` (code there is not
reported), or draw the noise outside and pass it in as an input
(`loc + scale * eps`).

Fix safety: none (detect only): which statistic to use is a modelling choice.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Policy(nn.Module):\n"
                "    def forward(self, obs):\n"
                "        loc, log_std = self.net(obs).chunk(2, dim=-1)\n"
                "        dist = torch.distributions.Normal(loc, log_std.exp())\n"
                "        return dist.rsample()\n"
            ),
        ),
        references=("https://pytorch.org/docs/stable/distributions.html", _OPERATORS),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.tensor_method(node, "rsample") is not None:
            self.found(node, "`rsample()` draws random noise in forward: TensorRT cannot build it (\"Network must "
                       "have at least one output\"); use the distribution's mean/mode for inference or pass "
                       "the noise in as an input")


RULES = (UnsupportedOperator, DistributionRsample)
