"""A convolution kernel whose shape is computed from a tensor's size (TRT324).

``F.conv2d(x, k.repeat(x.size(1), 1, 1, 1), groups=x.size(1))``: the TorchScript exporter
stops at such a call with "ONNX export of convolution for kernel of unknown shape". The rewrite
wraps the kernel in an inserted helper (``trtcodemod/helpers/convolution.py``) that gives the
exported kernel its traced sizes after the first axis as constants.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, bound_names, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_conv_kernel"
GROUPED = "_trt_sized_groups_conv"

_CONV = tuple(
    f"{prefix}{kind}{dims}"
    for prefix in ("torch.nn.functional.", "torch.")
    for kind in ("conv", "conv_transpose")
    for dims in ("1d", "2d", "3d")
)
#: Forward convolutions, whose arguments are (input, weight, bias, stride, padding, dilation, groups).
_FORWARD = tuple(name for name in _CONV if "transpose" not in name)


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    """The innermost receiver of an attribute, call or subscript chain (``self`` of ``self.w.size(0)``)."""
    while True:
        if type(node) is cst.Attribute:
            node = node.value
        elif type(node) is cst.Call:
            node = node.func
        elif type(node) is cst.Subscript:
            node = node.value
        else:
            return node


def _reads_a_size(node: cst.CSTNode) -> bool:
    """``t.size(...)`` or ``t.shape`` of something that is not a module attribute (``self.weight.shape`` is
    a parameter's size: a constant of the export)."""
    for sub in walk(node):
        if type(sub) is cst.Attribute and sub.attr.value in ("shape", "size"):
            root = _root(sub.value)
            if not (type(root) is cst.Name and root.value == "self"):
                return True
    return False


def _reads_first_axis(node: cst.CSTNode) -> bool:
    """``t.size(0)``, ``t.shape[0]``, ``t.size()[0]`` or ``len(t)`` of something that is not a module attribute:
    the size of a tensor's first axis, the batch of an input (or a per-sample kernel's batch-times-channels)."""
    for sub in walk(node):
        target = None
        if type(sub) is cst.Call and type(sub.func) is cst.Attribute and sub.func.attr.value == "size" \
                and len(sub.args) == 1 and type(sub.args[0].value) is cst.Integer and sub.args[0].value.value == "0":
            target = sub.func.value
        elif type(sub) is cst.Subscript and len(sub.slice) == 1 and type(sub.slice[0].slice) is cst.Index \
                and type(sub.slice[0].slice.value) is cst.Integer and sub.slice[0].slice.value.value == "0" \
                and _is_shape(sub.value):
            target = sub.value
        elif type(sub) is cst.Call and type(sub.func) is cst.Name and sub.func.value == "len" and len(sub.args) == 1:
            target = sub.args[0].value
        if target is not None:
            root = _root(target)
            if not (type(root) is cst.Name and root.value == "self"):
                return True
    return False


def _is_shape(node: cst.BaseExpression) -> bool:
    """``t.shape`` or ``t.size()``."""
    if type(node) is cst.Attribute:
        return node.attr.value == "shape"
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" \
        and not node.args


def _is_leading_sizes(node: cst.BaseExpression) -> bool:
    """``t.shape``, ``t.size()``, or their slice from the first axis (``t.shape[:2]``)."""
    if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Slice:
        lower = node.slice[0].slice.lower
        return (lower is None or (type(lower) is cst.Integer and lower.value == "0")) and _is_shape(node.value)
    return _is_shape(node)


def _first_axis_names(func: cst.FunctionDef) -> set[str]:
    """Names the function assigns from the size of a tensor's first axis (``B, C, H, W = x.shape`` binds
    ``B``; ``b = x.size(0)``), directly or through other such names (``n = b * self.groups``)."""
    flows: list[tuple[list[str], cst.CSTNode | None, bool]] = []
    for node in walk(func.body):
        if type(node) is cst.Assign:
            for target in node.targets:
                if type(target.target) in (cst.Tuple, cst.List) and _is_leading_sizes(node.value) \
                        and target.target.elements:
                    flows.append((bound_names(target.target.elements[0].value), None, True))
                else:
                    flows.append((bound_names(target.target), node.value, False))
        elif type(node) in (cst.AnnAssign, cst.AugAssign) and node.value is not None:
            flows.append((bound_names(node.target), node.value, False))
    batch: set[str] = set()
    reads = [(targets, direct or _reads_first_axis(value), _names(value) if value is not None else set())
             for targets, value, direct in flows]
    changed = True
    while changed:
        changed = False
        for targets, direct, names in reads:
            if (direct or names & batch) and not set(targets) <= batch:
                batch |= set(targets)
                changed = True
    return batch


def _names(node: cst.CSTNode) -> set[str]:
    return {sub.value for sub in walk(node) if type(sub) is cst.Name}


def _is_int(node: cst.BaseExpression, value: int) -> bool:
    """The literal ``value`` (``1``, ``-1``)."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        return type(node.expression) is cst.Integer and node.expression.value == str(-value)
    return type(node) is cst.Integer and node.value == str(value)


def _shape_elements(call: cst.Call) -> list[cst.BaseExpression]:
    """The sizes a ``t.view(...)``/``t.reshape(...)`` call gives, as written: its arguments, or the elements of
    its one tuple or list (``(1, B * C) + x.shape[2:]`` gives ``1, B * C``)."""
    args = [a.value for a in call.args]
    if len(args) != 1:
        return args
    value = args[0]
    if type(value) is cst.BinaryOperation and type(value.operator) is cst.Add:
        value = value.left
    if type(value) in (cst.Tuple, cst.List):
        return [e.value for e in value.elements if type(e) is cst.Element]
    return []


def _folds_first_axis(node: cst.BaseExpression, batch: set[str]) -> bool:
    """``t.view(1, B * C, H, W)``, ``t.view(-1, t.shape[0] * t.shape[1], H, W)`` or ``t.reshape(1, -1, H, W)``:
    a tensor viewed as one sample whose channels are its first axis (the batch) times its channels."""
    if type(node) is not cst.Call or type(node.func) is not cst.Attribute \
            or node.func.attr.value not in ("view", "reshape"):
        return False
    sizes = _shape_elements(node)
    if len(sizes) < 3:
        return False
    lead, channels = sizes[0], sizes[1]
    reads_batch = _reads_first_axis(channels) or bool(_names(channels) & batch)
    return (_is_int(lead, 1) or _is_int(lead, -1)) and reads_batch or _is_int(lead, 1) and _is_int(channels, -1)


def _batch_folded_input(node: cst.BaseExpression, func: cst.FunctionDef, batch: set[str]) -> bool:
    """``node`` folds a batch into the channels (:func:`_folds_first_axis`), or is a local the function
    assigns from such a view."""
    if _folds_first_axis(node, batch):
        return True
    if type(node) is not cst.Name:
        return False
    return any(type(sub) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == node.value
                                                for t in sub.targets) and _folds_first_axis(sub.value, batch)
               for sub in walk(func.body))


def _sized_names(func: cst.FunctionDef) -> set[str]:
    """Names the function assigns, directly or through other such names, from a tensor's size."""
    flows: list[tuple[list[str], cst.CSTNode]] = []
    for node in walk(func.body):
        if type(node) is cst.Assign:
            flows.extend((bound_names(target.target), node.value) for target in node.targets)
        elif type(node) in (cst.AnnAssign, cst.AugAssign) and node.value is not None:
            flows.append((bound_names(node.target), node.value))
        elif type(node) is cst.NamedExpr:
            flows.append((bound_names(node.target), node.value))
    sized: set[str] = set()
    reads = [(targets, _reads_a_size(value), _names(value)) for targets, value in flows]
    changed = True
    while changed:
        changed = False
        for targets, direct, names in reads:
            if (direct or names & sized) and not set(targets) <= sized:
                sized |= set(targets)
                changed = True
    return sized


class ConvKernelShape(Rule):
    needs_text = spelled(*_CONV)
    info = RuleInfo(
        id="TRT324",
        name="conv-kernel-shape",
        summary="`F.conv2d` with a kernel built from a tensor's size (`k.repeat(x.size(1), 1, 1, 1)`): the "
                "TorchScript exporter cannot tell the kernel's shape; give the exported kernel its traced shape",
        doc="""\
What it finds: `F.conv1d/2d/3d` and `F.conv_transpose1d/2d/3d` (and the `torch.conv*`
functions) whose weight is computed from a tensor's size in the same function: the weight
expression reads `t.size(...)` or `t.shape`, or uses a local assigned (directly or through
other locals) from one. The depthwise filter repeated or expanded to the image's channel
count is the common form: `window.expand(channel, 1, k, k)` after `channel = img.size(1)`
(SSIM losses and metrics), `kernel.view(1, 1, 3, 3).repeat(input.size(1), 1, 1, 1)` (kornia's
`sharpness`), `create_window(size, channel)` with `_, channel, _, _ = img.size()`; and a
kernel the function receives as a parameter when its group count is a size or a parameter too
(`F.conv2d(img1, window, padding=window_size // 2, groups=channel)` in the `_ssim(img1, img2,
window, window_size, channel)` that most SSIM code calls with a window it tiled to the
channel count). Sizes of a module's own attributes (`self.weight.shape`, weight
standardisation) are constants of the export and are not counted.

Why it hurts: the TorchScript exporter records a size read as a graph computation (`Shape`,
`Gather`), so the repeated kernel is a `Tile` (or `Expand`) whose shape the graph only knows
at run time. Its convolution symbolic needs the kernel's spatial sizes when it writes the ONNX
`Conv`, and stops with "Unsupported: ONNX export of convolution for kernel of unknown shape":
there is no ONNX file for TensorRT, whichever axes are dynamic. (The dynamo exporter exports
it.)

The rewrite: the weight argument `w` becomes `_trt_conv_kernel(w)`, an inserted helper. Outside
the TorchScript exporter it returns `w` itself. While that exporter traces, it returns
`w.reshape([w.shape[0]] + [int(s) for s in w.shape[1:]])`: the same values, and a Reshape to a
shape whose axes after the first are constants, so the exporter knows the kernel's spatial
sizes and writes the Conv. The first axis (the output channels, the repeated count) stays a
traced size.

Fix safety: unsafe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile`, `torch.export`
and the dynamo exporter run the original code (the helper returns its argument). Assumption:
the kernel's axes after the first (input channels per group and the spatial sizes) do not
change with the inputs' dynamic axes; they are constants of the exported graph, with a
TracerWarning at the helper. Where they do (a kernel sized from the image, as an antialiasing
blur's), the exported graph runs only at the traced kernel size: at an input size whose
kernel differs, its Reshape cannot take the kernel and ONNX Runtime raises (no silently other
values); migrate's check at other sizes finds it and reverts the fix. A group count computed from a tensor's first axis
is the other form: per-sample kernels with the batch folded into the channels and the groups
(timm's CondConv, `groups=self.groups * B` after `B, C, H, W = x.shape`, timm-3d's CondConv3d the
same in 3-D; StyleGAN2's modulated convolution, `groups=b`, as GFPGAN's in spandrel; kornia's
`filter2d`/`filter3d`, `groups=tmp_kernel.size(0)`, a kernel per sample times channels; a hyper
network's target layers, HyperIQA's `TargetFC`, whose group count `self.weight.shape[0]` is the batch
of the per-image kernels the module was built with in forward: data, not a parameter). ONNX
`Conv` takes the group count as an attribute, a constant: a graph traced at batch 2 refuses batch
3 (or, where the shapes still fit, computes other values). Such a call, `F.conv1d/2d/3d` with a
`groups` that reads `t.size(0)`, `t.shape[0]`, `len(t)` or a local assigned from one (the first
name of `B, C, H, W = x.shape` or of `x.shape[:2]`), or with a group count that is not a literal and
an input that folds the batch into the channels (`x.view(-1, x.shape[0] * x.shape[1], h, w)`,
`x.reshape(1, B * C, h, w)` or `x.reshape(1, -1, h, w)`, or a local assigned from one: a group per
sample, whatever names the count), becomes `_trt_sized_groups_conv(F.conv3d, x,
weight, ...)`, the call's own arguments after the function: outside the TorchScript exporter it
calls the convolution; while that exporter traces, it computes the same convolution as the
input's patches (zero padding, then one strided slice per kernel offset, constant bounds) times
each group's kernel in one batched MatMul (a 1x1 kernel at stride 1: the input reshaped, one
MatMul), with the group count read from the shapes (the input's channels over the kernel's second
axis), so the graph follows the batch and holds no Conv whose kernel is data. Its values are the
convolution's up to float32 summation order. Transposed convolutions with such groups keep the
kernel wrapper only, and their graphs still refuse other batches (migrate's check reverts the fix;
the manual step: a static batch). A group count from a size of another axis (`groups=channel`
after `channel = img.size(1)`, SSIM's) is not taken for the batch: the kernel wrapper, and the
Conv's constant group count stands for that axis's traced size.

TensorRT versions: all (the export fails before TensorRT is involved; a Conv whose weight is
computed at run time is parsed from TensorRT 8.5, see TRT724).""",
        fix=Safety.UNSAFE,
        assumption="the kernel's sizes after its first axis do not change with the inputs' dynamic axes: "
                   "the export keeps them as constants",
        examples=(
            Example(
                "def sharpen(image, kernel):\n"
                "    channels = image.size(1)\n"
                "    window = kernel.view(1, 1, 3, 3).repeat(channels, 1, 1, 1)\n"
                "    return F.conv2d(image, window, padding=1, groups=channels)\n",
                "def sharpen(image, kernel):\n"
                "    channels = image.size(1)\n"
                "    window = kernel.view(1, 1, 3, 3).repeat(channels, 1, 1, 1)\n"
                "    return F.conv2d(image, _trt_conv_kernel(window), padding=1, groups=channels)\n",
                unsafe=True,
            ),
            Example(
                "def ssim_blur(img, window):\n"
                "    (_, channel, _, _) = img.size()\n"
                "    return F.conv2d(img, window.expand(channel, 1, 11, 11), padding=5, groups=channel)\n",
                "def ssim_blur(img, window):\n"
                "    (_, channel, _, _) = img.size()\n"
                "    return F.conv2d(img, _trt_conv_kernel(window.expand(channel, 1, 11, 11)), padding=5, "
                "groups=channel)\n",
                unsafe=True,
            ),
            Example(
                "def per_sample(x, weight, out_channels):\n"
                "    B, C, H, W = x.shape\n"
                "    weight = weight.view(B * out_channels, C, 3, 3)\n"
                "    out = F.conv2d(x.reshape(1, B * C, H, W), weight, padding=1, groups=B)\n"
                "    return out.view(B, out_channels, H, W)\n",
                "def per_sample(x, weight, out_channels):\n"
                "    B, C, H, W = x.shape\n"
                "    weight = weight.view(B * out_channels, C, 3, 3)\n"
                "    out = _trt_sized_groups_conv(F.conv2d, x.reshape(1, B * C, H, W), weight, padding=1, groups=B)\n"
                "    return out.view(B, out_channels, H, W)\n",
                unsafe=True,
            ),
            Example(
                "def target_layer(self, x):\n"
                "    folded = x.view(-1, x.shape[0] * x.shape[1], *x.shape[2:])\n"
                "    out = F.conv2d(folded, self.weight.flatten(0, 1), groups=self.weight.shape[0])\n"
                "    return out.view(x.shape[0], -1, *x.shape[2:])\n",
                "def target_layer(self, x):\n"
                "    folded = x.view(-1, x.shape[0] * x.shape[1], *x.shape[2:])\n"
                "    out = _trt_sized_groups_conv(F.conv2d, folded, self.weight.flatten(0, 1), "
                "groups=self.weight.shape[0])\n"
                "    return out.view(x.shape[0], -1, *x.shape[2:])\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.conv2d.html",
            "https://github.com/pytorch/pytorch/blob/main/torch/onnx/_internal/torchscript_exporter/symbolic_opset9.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._sized: dict[int, set[str]] = {}
        self._batch: dict[int, set[str]] = {}

    def _first_axis(self, func: cst.FunctionDef) -> set[str]:
        if id(func) not in self._batch:
            self._batch[id(func)] = _first_axis_names(func)
        return self._batch[id(func)]

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *_CONV)
        if name is None or in_inserted_helper(self):
            return
        weight = argument(node, 1, "weight")
        if weight is None or (type(weight.value) is cst.Call and type(weight.value.func) is cst.Name
                              and weight.value.func.value == HELPER):
            return
        func = self.context.function
        sized: set[str] = set()
        params: set[str] = set()
        if func is not None:
            sized = self._sized.get(id(func)) or self._sized.setdefault(id(func), _sized_names(func))
            params = {p.name.value for p in (*func.params.posonly_params, *func.params.params,
                                             *func.params.kwonly_params)} - {"self"}
        groups = argument(node, 6, "groups")
        source = argument(node, 0, "input")
        if name in _FORWARD and groups is not None and func is not None and (
                _reads_first_axis(groups.value) or _names(groups.value) & self._first_axis(func)
                # The batch folded into the input's channels, a group count that is not a literal: a group per
                # sample whatever names it (HyperIQA's `groups=self.weight.shape[0]`, the kernels' batch).
                or source is not None and type(groups.value) is not cst.Integer
                and _batch_folded_input(source.value, func, self._first_axis(func))):
            # The batch folded into the groups (per-sample kernels): an ONNX Conv keeps its group count as a
            # constant, so the whole convolution becomes patches times kernels while the exporter traces.
            short = name.replace("torch.nn.functional.", "F.")
            call = cst.Call(func=cst.Name(GROUPED), args=[cst.Arg(value=node.func), *node.args])
            self.report(
                node,
                f"`{short}` with a group count that follows the batch (read from a tensor's first axis, or the "
                "batch folded into the input's channels: per-sample kernels): the exported Conv keeps the traced "
                "group count as a constant and "
                "refuses every other batch; compute it as patches times kernels while the TorchScript exporter "
                "traces",
                Fix({node: call}, safety=Safety.UNSAFE, helpers=(GROUPED,)),
            )
            return
        # A kernel passed in, with a group count from a size or a parameter: the depthwise window that a caller
        # tiled to the channel count (`_ssim(img1, img2, window, window_size, channel)`).
        passed_depthwise = groups is not None and bool(_names(weight.value) & params) and (
            _reads_a_size(groups.value) or bool(_names(groups.value) & (params | sized)))
        if not (_reads_a_size(weight.value) or _names(weight.value) & sized or passed_depthwise):
            return
        short = name.replace("torch.nn.functional.", "F.")
        wrapped = cst.Call(func=cst.Name(HELPER), args=[cst.Arg(value=weight.value)])
        self.report(
            node,
            f"`{short}` takes a kernel built from a tensor's size: the TorchScript exporter cannot tell its shape "
            "(\"convolution for kernel of unknown shape\"); give the exported kernel its traced sizes after the "
            "first axis (assumes they do not change with the dynamic axes)",
            Fix({weight.value: wrapped}, safety=Safety.UNSAFE, helpers=(HELPER,)),
        )


RULES = (ConvKernelShape,)
