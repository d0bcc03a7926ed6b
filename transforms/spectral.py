"""Discrete Fourier transforms of real tensors → cosine and sine matrix products (TRT709).

``torch.fft.fft``/``fft2``/``fftn``, their inverses and ``rfft``/``rfft2``/``rfftn`` taken as
``torch.view_as_real(...)``, ``.real``/``.imag``/``.abs()`` (or ``torch.real``/``torch.imag``/
``torch.abs``) are rewritten into one helper per transform (``trtcodemod/helpers/spectral.py``)
that is the torch function and that use outside ``torch.onnx.export`` and, while exporting,
the same real tensor computed as matrix products: no complex tensor is made. Other uses of the
transform (a complex product, ``irfft``) are reported without a fix.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

#: The transforms rewritten: torch's name → the helper.
TRANSFORMS = {f"torch.fft.{name}": f"_trt_{name}" for name in (
    "fft", "ifft", "rfft", "fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn")}
#: The shifts that reorder a spectrum (a permutation: any use of them is rewritten).
SHIFTS = {"torch.fft.fftshift": "_trt_fftshift", "torch.fft.ifftshift": "_trt_ifftshift"}
#: Functions that take the real part, imaginary part, both (as a last axis of 2) or the magnitude.
_PART_FUNCTIONS = {"torch.view_as_real": "view_as_real", "torch.real": "real", "torch.imag": "imag",
                   "torch.abs": "abs", "torch.absolute": "abs"}
#: What each use of a transform kept in a variable becomes.
PART_HELPER = "_trt_dft_part"
#: What ``torch.view_as_complex(pairs)`` kept in a variable a transform takes becomes.
COMPLEX_HELPER = "_trt_view_as_complex"
_PART_ATTRIBUTES = {"real": "real", "imag": "imag"}
_PART_METHODS = {"abs": "abs", "absolute": "abs"}


class DftMatmul(RuntimeScopeRule):
    needs_text = spelled(*TRANSFORMS, *SHIFTS)
    info = RuleInfo(
        id="TRT709",
        name="dft-matmul",
        summary="`torch.fft.*` does not export (complex result; ONNX DFT TensorRT never parses); take the real "
                "result as cosine and sine matrix products",
        doc="""\
What it finds: `torch.fft.fft`, `ifft`, `rfft`, `fft2`, `ifft2`, `rfft2`, `fftn`, `ifftn` and
`rfftn` (under any import name, `from torch.fft import fft2` included) whose complex result the
code takes as a real tensor right away: `torch.view_as_real(fft2(x))`, `fft(x).real`,
`fft(x).imag`, `fft(x).abs()`, `torch.real(...)`, `torch.imag(...)`, `torch.abs(...)`. Any other
use (the complex result multiplied, indexed, passed to `irfftn`), an `out=` or unpacked argument
is reported without a fix. `irfft*`, `hfft`, `ihfft` and `stft` are TRT706's.

Why it hurts: the TorchScript exporter has no symbolic for `aten::fft_*`, so the model does not
export; the dynamo exporter emits ONNX `DFT`, which no TensorRT release parses; and a complex
tensor cannot be carried by the graphs TensorRT builds. vit_pytorch's SimpleViT with FFT
(`torch.view_as_real(fft2(img))`) and MONAI's `fftn_centered_t` (`torch.view_as_real(
torch.fft.fftn(x, dim=dims, norm="ortho"))`) do not export.

The rewrite: `torch.view_as_real(fft2(img))` → `_trt_fft2("view_as_real", img)` (one helper per
transform, the torch function's parameters passed on as written). Outside `torch.onnx.export`
the helper is the torch function followed by the use. While exporting, a real (or integer)
input takes, along each transformed axis of size n, the products with
C[k, j] = cos(2 pi ((k j) mod n) / n) and S[k, j] = sin(...) built from `arange` of the traced
sizes, so the graph follows any input size; `n`/`s` trim or zero-pad as torch does, `rfft*` keep
`n // 2 + 1` frequencies of the last axis, `norm` scales. The graph: Range, Mul, Div, Sub, Cast,
Cos, Sin, Transpose, MatMul (Less where a size is given, Concat for `view_as_real`, Sqrt for
`abs`). A transform kept in a variable whose every use takes a part (`z = fftn(x, ...)`, then
`torch.real(z)` and `torch.imag(z)`) becomes `z = _trt_fftn("complex", x, ...)`, which is the
complex transform outside an export and its `view_as_real` layout while exporting, and each use
`_trt_dft_part(z, "real")`, which takes its part of either. An input written as
`torch.view_as_complex(pairs)` (MONAI's k-space, real and imaginary parts on a last axis of 2)
is passed as the pairs with a `"pairs:"` part (`_trt_ifftn("pairs:view_as_real", pairs, ...)`):
the products then take both parts, and no complex tensor is made while exporting (not for
`rfft*`, which refuse a complex input). Where the code keeps it in a variable first
(MONAI's `fftn_centered_t`: `x = torch.view_as_complex(ifftshift(im, ...))` in an `if
is_complex:` branch, then `torch.view_as_real(torch.fft.fftn(x, ...))`), that assignment becomes
`x = _trt_view_as_complex(...)`: the same complex tensor, always; while exporting it also
remembers its pairs (and their version), and a transform helper given that tensor, not written
to since, takes the pairs instead, so the `view_as_complex` is used by nothing and leaves the
graph. `torch.fft.fftshift(x, dim)` →
`_trt_fftshift(x, dim)` (`ifftshift` alike): while exporting a real input, each axis is split at
its traced size and the two slices concatenated in the other order: the same elements in the
same places, bit for bit (Shape, Div, Sub, Slice, Concat). A complex input keeps the torch function (and
its export error).

Fix safety: unsafe; the assumption is that values equal to the FFT's up to rounding are good
enough. A matrix product sums in another order than the FFT (measured: relative error below
1e-6 in float32 for 64 x 64 images, 1e-15 in float64), costs O(n^2) per line instead of
O(n log n), and multiplies every element by its weight: an inf or NaN in an input line makes
every output of that line NaN or inf, where the FFT keeps some finite (`fft([1, inf, 2, 3])` has
the finite real parts -1 in two bins; the products give NaN there). Float16/bfloat16 are
computed in float32 (the CPU FFT refuses them). `torch.jit.script` cannot compile the helpers
(their `dim` is an int or a tuple). Eager mode, `torch.fx`, `torch.compile` and `torch.export`
run the original.

TensorRT versions: all (the export fails or yields DFT before TensorRT is involved).""",
        fix=Safety.UNSAFE,
        assumption=(
            "values equal to the FFT's up to float rounding are good enough, and the input is finite (one inf or NaN "
            "makes its whole line NaN or inf)"),
        fails_when=(
            "an inf or NaN in the input: every output of its line is NaN or inf, where the FFT keeps some finite",
            "long transformed axes: the products cost O(n^2) per line (the FFT O(n log n)) and sum n terms "
            "in another order",
            "float16/bfloat16 input: computed in float32 and rounded back (the CPU FFT refuses them)",
            "`torch.jit.script` of the rewritten function: the helpers take `dim` as an int or a tuple (this is why "
            "the exact fftshift/ifftshift rewrite is labelled unsafe too)",
        ),
        examples=(
            Example(
                "from torch.fft import fft2\n"
                "def forward(self, img):\n"
                "    freqs = torch.view_as_real(fft2(img))\n"
                "    return self.to_freq_embedding(freqs)\n",
                "from torch.fft import fft2\n"
                "def forward(self, img):\n"
                "    freqs = _trt_fft2(\"view_as_real\", img)\n"
                "    return self.to_freq_embedding(freqs)\n",
                unsafe=True,
            ),
            Example(
                "def amplitude(self, x):\n"
                "    return torch.fft.rfft(x, n=64, dim=1, norm=\"ortho\").abs()\n",
                "def amplitude(self, x):\n"
                "    return _trt_rfft(\"abs\", x, n=64, dim=1, norm=\"ortho\")\n",
                unsafe=True,
            ),
            Example(
                "def amplitude(self, images):\n"
                "    img_fft = torch.fft.fftn(images, s=self.size, dim=self.dims, norm=self.norm)\n"
                "    return torch.sqrt(torch.real(img_fft) ** 2 + torch.imag(img_fft) ** 2)\n",
                "def amplitude(self, images):\n"
                "    img_fft = _trt_fftn(\"complex\", images, s=self.size, dim=self.dims, norm=self.norm)\n"
                "    return torch.sqrt(_trt_dft_part(img_fft, \"real\") ** 2 + _trt_dft_part(img_fft, \"imag\") ** 2)\n",
                unsafe=True,
            ),
            Example(
                "def spectrum(self, x, k):\n"
                "    return torch.fft.irfft(torch.fft.rfft(x) * k)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/fft.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Transform calls already taken with their use (visited before the call itself).
        self._taken: set[int] = set()
        #: Transform calls kept in a variable whose every use takes a real part: id → replacements.
        self._kept: dict[int, dict[cst.CSTNode, cst.CSTNode]] = {}
        #: Transform calls whose input variable is assigned ``torch.view_as_complex(pairs)`` in the
        #: same function: id → the replacements of those assignments' calls.
        self._complex_inputs: dict[int, dict[cst.CSTNode, cst.CSTNode]] = {}

    def _part_of(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
        """``(z, part)`` when ``node`` takes a real part of ``z`` (``torch.real(z)``, ``z.imag``...)."""
        if type(node) is cst.Call:
            func = node.func
            if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
                part = self.context.refers_to(func, *_PART_FUNCTIONS)
                if part is not None:
                    return node.args[0].value, _PART_FUNCTIONS[part]
            if not node.args and type(func) is cst.Attribute and func.attr.value in _PART_METHODS:
                return func.value, _PART_METHODS[func.attr.value]
        elif type(node) is cst.Attribute and node.attr.value in _PART_ATTRIBUTES:
            return node.value, _PART_ATTRIBUTES[node.attr.value]
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._find_complex_inputs(node)
        self._find_kept(node)

    def _find_complex_inputs(self, node: cst.FunctionDef) -> None:
        """``x = torch.view_as_complex(pairs)`` (in any branch) and a transform of ``x`` later in the
        function (MONAI's ``fftn_centered_t``): the assignment becomes ``_trt_view_as_complex(pairs)``,
        the same complex tensor, which while exporting remembers its pairs for the transform."""
        inputs: dict[str, list[cst.Call]] = {}
        for inner in walk(node.body):
            if type(inner) is cst.Call and self._transform(inner) is not None and inner.args \
                    and inner.args[0].keyword is None and not inner.args[0].star \
                    and type(inner.args[0].value) is cst.Name:
                inputs.setdefault(inner.args[0].value.value, []).append(inner)
        if not inputs:
            return
        taken: set[int] = set()
        for statement in walk(node.body):
            if type(statement) is not cst.Assign or len(statement.targets) != 1 \
                    or type(statement.targets[0].target) is not cst.Name:
                continue
            value = statement.value
            name = statement.targets[0].target.value
            if name not in inputs or type(value) is not cst.Call or id(value) in taken \
                    or not self.context.refers_to(value.func, "torch.view_as_complex") or len(value.args) != 1 \
                    or value.args[0].keyword is not None or value.args[0].star:
                continue
            taken.add(id(value))
            first = inputs[name][0]
            self._complex_inputs.setdefault(id(first), {})[value] = value.with_changes(func=cst.Name(COMPLEX_HELPER))

    def _find_kept(self, node: cst.FunctionDef) -> None:
        """``z = fftn(x, ...)`` whose every use in the function takes a real part: the transform is
        kept as it is outside an export and in the ``(..., 2)`` layout while exporting, and each use
        takes its part of either."""
        kept: dict[str, list[cst.Assign]] = {}
        for statement in walk(node.body):
            if type(statement) is cst.Assign and len(statement.targets) == 1 \
                    and type(statement.targets[0].target) is cst.Name and self._transform(statement.value):
                kept.setdefault(statement.targets[0].target.value, []).append(statement)
        if not kept:
            return
        parameters = {p.name.value for p in walk(node.params) if type(p) is cst.Param}
        uses: dict[str, list[cst.CSTNode]] = {name: [] for name in kept}
        names: dict[str, list[cst.Name]] = {name: [] for name in kept}
        # An attribute's or a keyword's name is no use of the variable (``fft = torch.fft.rfft2(x)``).
        not_variables: set[int] = set()
        for inner in walk(node.body):
            if type(inner) is cst.Attribute:
                not_variables.add(id(inner.attr))
            elif type(inner) is cst.Arg and inner.keyword is not None:
                not_variables.add(id(inner.keyword))
        for inner in walk(node.body):
            found = self._part_of(inner)
            if found is not None and type(found[0]) is cst.Name and found[0].value in uses:
                uses[found[0].value].append(inner)
            if type(inner) is cst.Name and inner.value in names and id(inner) not in not_variables:
                names[inner.value].append(inner)
        for name, assignments in kept.items():
            statement = assignments[0]
            call = statement.value
            used = {id(self._part_of(use)[0]) for use in uses[name]}  # type: ignore[index]
            others = [n for n in names[name] if n is not statement.targets[0].target and id(n) not in used]
            if len(assignments) != 1 or others or not uses[name] or name in parameters \
                    or has_star_args(call) or len(call.args) > 4 or not call.args \
                    or any(a.keyword is not None and a.keyword.value == "out" for a in call.args):
                continue
            name_of = self._transform(call)
            helper = TRANSFORMS[name_of]  # type: ignore[index]
            replacements: dict[cst.CSTNode, cst.CSTNode] = {
                call: cst.Call(func=cst.Name(helper), args=self._arguments(call, name_of, "complex"))}
            for use in uses[name]:
                z, part = self._part_of(use)  # type: ignore[misc]
                replacements[use] = cst.Call(func=cst.Name(PART_HELPER), args=[
                    cst.Arg(value=z), cst.Arg(value=cst.SimpleString(f'"{part}"'))])
            self._kept[id(call)] = replacements

    def _transform(self, node: cst.BaseExpression) -> str | None:
        if type(node) is not cst.Call:
            return None
        return self.context.refers_to(node.func, *TRANSFORMS)

    def _take(self, whole: cst.BaseExpression, call: cst.Call, part: str) -> None:
        """Rewrite ``whole`` (the use of the transform ``call``) into the helper, or report why not."""
        name = self._transform(call)
        if name is None:
            return
        self._taken.add(id(call))
        short = name.replace("torch.fft.", "")
        if has_star_args(call) or any(a.keyword is not None and a.keyword.value == "out" for a in call.args) \
                or len(call.args) > 4 or not call.args:
            self.found(call, f"{self._why(name)}; not rewritten: other arguments (`out=`, unpacked ones)")
            return
        helper = TRANSFORMS[name]
        replacement = cst.Call(func=cst.Name(helper), args=self._arguments(call, name, part))
        replacements: dict[cst.CSTNode, cst.CSTNode] = {whole: replacement}
        helpers: tuple[str, ...] = (helper,)
        if id(call) in self._complex_inputs and not name.startswith("torch.fft.rfft"):
            replacements.update(self._complex_inputs.pop(id(call)))
            helpers += (COMPLEX_HELPER,)
        self.found(call, f"{self._why(name)}; the {part} result is computed as cosine and sine matrix products "
                         f"while exporting (`torch.fft.{short}` otherwise)",
                   Fix(replacements, safety=Safety.UNSAFE, helpers=helpers))

    def _arguments(self, call: cst.Call, name: str, part: str) -> list[cst.Arg]:
        """The helper's arguments: the part, then the transform's own; an input written as
        ``torch.view_as_complex(pairs)`` (not for ``rfft*``, which refuse complex input) is passed as
        the pairs, with a ``"pairs:"`` part, so no complex tensor is made while exporting."""
        args = list(call.args)
        first = args[0]
        inner = first.value
        if (first.keyword is None and not name.startswith("torch.fft.rfft") and type(inner) is cst.Call
                and self.context.refers_to(inner.func, "torch.view_as_complex") and len(inner.args) == 1
                and inner.args[0].keyword is None and not inner.args[0].star):
            args[0] = first.with_changes(value=inner.args[0].value)
            part = f"pairs:{part}"
        return [cst.Arg(value=cst.SimpleString(f'"{part}"')), *args]

    @staticmethod
    def _why(name: str) -> str:
        return (f"`{name}` has no TensorRT path: the TorchScript exporter has no ONNX symbolic for it, the dynamo "
                "exporter's ONNX DFT is not parsed by any TensorRT release, and its result is complex")

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._taken:
            return
        if id(node) in self._kept:
            replacements = self._kept.pop(id(node))
            name = self._transform(node)
            helper = TRANSFORMS[name]  # type: ignore[index]
            helpers: tuple[str, ...] = (helper, PART_HELPER)
            if id(node) in self._complex_inputs and not name.startswith("torch.fft.rfft"):  # type: ignore[union-attr]
                replacements.update(self._complex_inputs.pop(id(node)))
                helpers += (COMPLEX_HELPER,)
            self.found(node, f"{self._why(name)}; every use of the variable takes a real part of it, computed as "
                             f"cosine and sine matrix products while exporting (`{name}` otherwise)",
                       Fix(replacements, safety=Safety.UNSAFE, helpers=helpers))
            return
        func = node.func
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            part = self.context.refers_to(func, *_PART_FUNCTIONS)
            if part is not None and self._transform(node.args[0].value) is not None:
                self._take(node, node.args[0].value, _PART_FUNCTIONS[part])
                return
        if (not node.args and type(func) is cst.Attribute and func.attr.value in _PART_METHODS
                and self._transform(func.value) is not None):
            self._take(node, func.value, _PART_METHODS[func.attr.value])  # type: ignore[arg-type]
            return
        shift = self.context.refers_to(func, *SHIFTS)
        if shift is not None:
            self._shift(node, shift)
            return
        name = self._transform(node)
        if name is not None:
            self.found(node, f"{self._why(name)}; not rewritten: its complex result is used as such (only "
                             "`torch.view_as_real`, `.real`, `.imag` and `.abs()` of it are)")

    def _shift(self, node: cst.Call, name: str) -> None:
        message = (f"the TorchScript exporter has no ONNX symbolic for `{name}` (aten::fft_{name.rsplit('.', 1)[1]}), "
                   "so the model does not export")
        if has_star_args(node) or not node.args or len(node.args) > 2:
            self.found(node, f"{message}; not rewritten: other arguments")
            return
        helper = SHIFTS[name]
        self.found(node, f"{message}; the same reordering is taken as slices and a concatenation while exporting "
                         f"(`{name}` otherwise)",
                   Fix({node: node.with_changes(func=cst.Name(helper))}, safety=Safety.UNSAFE, helpers=(helper,)))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _PART_ATTRIBUTES and self._transform(node.value) is not None \
                and id(node.value) not in self._taken:
            self._take(node, node.value, _PART_ATTRIBUTES[node.attr.value])  # type: ignore[arg-type]


RULES = (DftMatmul,)
