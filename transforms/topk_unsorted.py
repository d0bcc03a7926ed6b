"""Top-k asked for in no particular order (TRT805).

``x.topk(k, largest=False, sorted=False)`` is the usual k-nearest-neighbour lookup of point-cloud
networks (the neighbours are gathered and pooled, so their order does not matter). Both ONNX
exporters write it as ``TopK(sorted=0)``, and TensorRT's ONNX parser takes ``sorted=1`` only. The
rule finds ``torch.topk(..., sorted=False)`` / ``x.topk(..., sorted=False)`` with a literal
``False`` and rewrites the call to an inserted helper that asks for the sorted order while
exporting. A top-k TRT804 (K over the limit) or TRT803 (K = ``min(cap, size)``, a size guard)
rewrites is theirs: their helpers export it sorted too.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms.detection import _ONNX_TOPK, _OPERATORS, _TORCH_TOPK
from trtcodemod.transforms.topk_limit import TopkLargeK
from trtcodemod.versions import TOPK_K_LIMIT

HELPER = "_trt_topk_unsorted"
#: The TopK row of onnx-tensorrt's operator table: sorted=1 only (trt/onnx_ops.csv keeps it for each release).
_TOPK_ROW = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md#topk"


class TopkUnsorted(TopkLargeK):
    """A subclass of TRT804's rule: it reads K and the size guards as TRT804 does, to leave their calls alone."""
    info = RuleInfo(
        id="TRT805",
        name="topk-unsorted",
        summary="`topk(..., sorted=False)` exports TopK(sorted=0), which TensorRT's parser rejects; export it sorted",
        doc="""\
What it finds: `torch.topk(x, k, ..., sorted=False)` / `x.topk(k, ..., sorted=False)` in
run-time code, with `sorted` given as the literal `False` by keyword or by position (the
fifth argument of `torch.topk`, the fourth of the method). The k-nearest-neighbour lookup of
point-cloud networks is the usual case: `idx = dists.topk(k, dim=-1, largest=False,
sorted=False)[1]`, then the neighbours are gathered and pooled. A top-k that TRT804 (K of
3840 or more) or TRT803 (K = `min(cap, size)`, a size guard) rewrites is left to them: their
helpers export it sorted as well.

Why it hurts: both exporters keep the flag, as `TopK(sorted=0)`, and TensorRT's ONNX parser
takes `sorted=1` only (onnx-tensorrt operators.md's TopK row: "`sorted` must be 1", as the
support table, `trtcodemod/trt/onnx_ops.csv`, records it): the model does not build.
TensorRT's TopK layer has no unsorted mode; it returns its results in order.

The rewrite: `x.topk(k, ...)` → `_trt_topk_unsorted(x, k, ...)` (an inserted helper; `dim`,
`largest`, `sorted` pass through). Outside `torch.onnx.export` it is `torch.topk` itself with
the same arguments. While exporting, it asks for `sorted=True`: ONNX (and `torch.topk`) leave
the order of an unsorted top-k to the implementation, so the sorted order is one the original
allows; the values and indices are the same set.

Fix safety: unsafe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run `torch.topk` with the arguments as written: same values, indices (in the
same order), gradients and errors. The exported graph returns the same k entries in sorted
order: the code after the top-k must not depend on their order (a gather then a max, sum or
mean over the k axis does not; a `[..., 0]` that means "any one of them" does). `migrate`
keeps the fix only where the rewritten model is verified equivalent.

Which TensorRT versions: every version the project checks; the TopK layer (8.x to 10.x) has
no unsorted mode, and the graph check reports `sorted=0` for all of them.""",
        fix=Safety.UNSAFE,
        assumption=("the code does not depend on the order of the k results: sorted=False leaves it to the "
                    "implementation, and the exported graph returns them sorted"),
        examples=(
            Example(
                "def knn(dists, k):\n    return dists.topk(k, dim=-1, largest=False, sorted=False)[1]\n",
                "def knn(dists, k):\n    return _trt_topk_unsorted(dists, k, dim=-1, largest=False, sorted=False)[1]\n",
                unsafe=True,
            ),
            Example(
                "def nearest(d):\n    return torch.topk(d, 16, -1, False, False)\n",
                "def nearest(d):\n    return _trt_topk_unsorted(d, 16, -1, False, False)\n",
                unsafe=True,
            ),
        ),
        references=(_TOPK_ROW, _OPERATORS, _ONNX_TOPK, _TORCH_TOPK),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self.topk_call(node)
        if found is None or id(node) in self._guarded:
            return  # a size-guarded top-k is TRT803's
        source, k_arg, method = found
        flag = argument(node, 3 if method else 4, "sorted")
        if flag is None or type(flag.value) is not cst.Name or flag.value.value != "False":
            return
        k = self._known_k(k_arg.value)
        if k is not None and k >= TOPK_K_LIMIT:
            return  # TRT804's: its rounds are sorted
        if self._min_k_fixed(node, source, k_arg, method):
            return  # TRT803 exports K = min(cap, size) with a constant K, sorted
        message = ("top-k with sorted=False exports TopK(sorted=0), which TensorRT's parser rejects (it takes "
                   "sorted=1 only); export it sorted (fix needs --unsafe: the code must not depend on the order "
                   "of the k results)")
        self.found_once(node, message, Fix({node: self.helper_call(node, source, method, HELPER)},
                                           safety=Safety.UNSAFE, helpers=(HELPER,)))

    def _min_k_fixed(self, node: cst.Call, source: cst.BaseExpression, k_arg: cst.Arg, method: bool) -> bool:
        """Whether TRT803 rewrites this top-k: a K of ``min(cap, x.shape[d])`` it has a fix for."""
        k_expr, inline = self.k_expression(k_arg.value)
        capped = self._capped(k_expr)
        if capped is None:
            return False
        cap, receiver, size_dim = capped
        return not self._why_no_fix(node, source, receiver, cap, size_dim, method, inline or self._stable(cap))


RULES = (TopkUnsorted,)
