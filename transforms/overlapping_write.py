"""``t[..., 1:] = t[..., :-1]``: a write that reads memory it overwrites, undefined in eager PyTorch (TRT740).

A slice of a tensor written from another slice of the same tensor is one ``copy_`` whose source and destination
share memory. PyTorch does not define that copy where the two parts partly overlap: where it can tell, it raises
("some elements of the input tensor and the written-to tensor refer to a single memory location"); where it
cannot (a strided slice of a 3-D or 4-D tensor), the kernel copies in its own order, so later elements read values
the copy has already written, and the result depends on the kernel, the device and the thread count. AlphaPose's
``flip_heatmap`` shifts the flipped heatmaps one column right this way, ``out[:, :, :, 1:] = out[:, :, :, 0:-1]``:
on the CPU the columns smear. Every exporter (and ``torch.compile``) computes the write from the source as it was,
so the exported graph cannot equal the eager outputs it is verified against. Copying the source first,
``out[:, :, :, 1:] = out[:, :, :, 0:-1].clone()``, makes eager mode compute what the graph does.
"""

from __future__ import annotations

from typing import Union

import libcst as cst

from trtcodemod.astutil import code_of, int_value
from trtcodemod.providers import observed_name
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms.new_axis_write import SubscriptWriteRule

#: A bound of a slice along its axis: (0, k) is k from the start, (1, k) is k from the end (``-2`` is (1, -2); a
#: missing upper bound is (1, 0)); None where it is not a literal.
Bound = Union[tuple[int, int], None]
#: One element of a basic index: ("int", k), ("slice", lower, upper) with step 1, or ("...",).
Part = tuple


def _bound(node: cst.BaseExpression | None, missing: tuple[int, int]) -> Bound:
    if node is None:
        return missing
    value = int_value(node)
    if value is None:
        return None
    return (1, value) if value < 0 else (0, value)


def _parts(subscript: cst.Subscript) -> list[Part] | None:
    """The elements of a basic index made of integer literals, slices of step 1 and ``...``; None for any other
    index (a name may hold a tensor, which gathers a copy; ``None`` adds an axis)."""
    parts: list[Part] = []
    for element in subscript.slice:
        sl = element.slice
        if type(sl) is cst.Slice:
            if sl.step is not None and int_value(sl.step) != 1:
                return None
            parts.append(("slice", _bound(sl.lower, (0, 0)), _bound(sl.upper, (1, 0)), code_of(sl)))
        elif type(sl) is cst.Index and sl.star is None and type(sl.value) is cst.Ellipsis:
            parts.append(("...",))
        elif type(sl) is cst.Index and sl.star is None and int_value(sl.value) is not None:
            parts.append(("int", int_value(sl.value)))
        else:
            return None
    return parts


def _before(a: Bound, b: Bound) -> bool:
    """Is the position ``a`` at or before ``b`` on every axis length (both counted from the same end)?"""
    return a is not None and b is not None and a[0] == b[0] and a[1] <= b[1]


def _disjoint(one: Part, other: Part) -> bool:
    """Can the two elements never select a common position along their axis?"""
    if one[0] == "int" and other[0] == "int":
        return one[1] != other[1] and (one[1] < 0) == (other[1] < 0)
    if one[0] == "slice" and other[0] == "slice":
        return _before(one[2], other[1]) or _before(other[2], one[1])
    return False


def _shifted_parts(target: cst.Subscript, value: cst.Subscript) -> bool:
    """Do the written and the read parts of one tensor overlap on some axis lengths without being the same part?"""
    written, read = _parts(target), _parts(value)
    if written is None or read is None or len(written) != len(read):
        return False
    if [p[0] == "..." for p in written] != [p[0] == "..." for p in read]:
        return False  # the axes do not line up element by element
    if all(w == r for w, r in zip(written, read)):
        return False  # the same part: a full overlap, which the copy handles
    return not any(_disjoint(w, r) for w, r in zip(written, read))


def _never_observed(_seen: object) -> None:
    """No run shows which result the code means: the shift is an intent, not a fact (``migrate`` names the line)."""
    return None


class OverlappingWrite(SubscriptWriteRule):
    needs_text = (b"] =",)
    info = RuleInfo(
        id="TRT740",
        name="overlapping-write",
        summary="`t[..., 1:] = t[..., :-1]` reads memory it overwrites: eager PyTorch raises or smears where the "
                "graph shifts; copy the source first with `.clone()`",
        doc="""\
What it finds: a write into a slice of a tensor whose value is another slice of the same tensor (a name or
`self.<name>`), both indexed with integer literals, slices of step 1 and `...` only, where the two parts
overlap on some axis lengths without being the same part: AlphaPose's `flip_heatmap` shift,
`out[:, :, :, 1:] = out[:, :, :, 0:-1]`, or a rolling buffer `buf[:, 1:] = buf[:, :-1]`. The holder must be
visibly a torch tensor (a torch call made it, or, inside `migrate`, the recorded run saw a tensor there):
NumPy copies overlapping parts correctly, and has no `.clone()`.

Why it hurts: the value is a view of the memory being written. PyTorch leaves such a copy undefined
(pytorch/pytorch#91894, #185149): where it detects the partial overlap it raises "unsupported operation:
some elements of the input tensor and the written-to tensor refer to a single memory location"; where it
cannot (a strided slice of a 3-D or 4-D tensor, AlphaPose's heatmaps) the kernel copies in its own order, so
later columns read values the copy already wrote, and what comes out depends on the kernel, the device and the
number of threads. Every ONNX exporter, TensorRT and `torch.compile` compute the write from the source as it
was (a shift), so the exported graph differs from the eager outputs it is verified against, and no export of
the original can be proved equivalent.

The rewrite: the value is copied before the write, `out[:, :, :, 1:] = out[:, :, :, 0:-1].clone()`, which is
what the graph computes; eager mode then gives it too, on every device.

Fix safety: unsafe. Where the two parts overlap, the rewrite replaces an undefined result (an error, or the
kernel's smear) with the shift; where the axis is too short for them to overlap (a width of two or less for
`1:` and `:-1`), both forms give the same values. The assumption is that the shift is what the code means (the
HRNet and SimpleBaseline code AlphaPose follows writes `.clone()` there, and mmpose added it in its fix "avoid
wrong assignment in CPU"). `apply --unsafe` applies it. `migrate` records each write that read memory it
overwrote in the recorded run and names it at its line, where the graph differs from the eager outputs for that
reason; it does not apply the rewrite, since no run shows which result the code means and the rewrite changes
the eager outputs the verification compares with.

TensorRT versions: all (the difference is eager mode's, before any export).""",
        fix=Safety.UNSAFE,
        assumption="the write means the source as it was before the write (a shift), which every exporter computes; "
                   "eager PyTorch's own result where the parts overlap is undefined",
        fails_when=("code that relies on the kernel's copy order (a running fill, each element from the one the "
                    "copy just wrote): undefined in PyTorch, and different on each device",),
        examples=(
            Example(
                "def shift(heatmap: torch.Tensor) -> torch.Tensor:\n"
                "    out = heatmap.flip(dims=(3,))\n"
                "    out[:, :, :, 1:] = out[:, :, :, 0:-1]\n"
                "    return out\n",
                "def shift(heatmap: torch.Tensor) -> torch.Tensor:\n"
                "    out = heatmap.flip(dims=(3,))\n"
                "    out[:, :, :, 1:] = out[:, :, :, 0:-1].clone()\n"
                "    return out\n",
                unsafe=True,
            ),
            Example(
                "def roll_frames(frames, frame):\n"
                "    buf = torch.stack(frames, 1)\n"
                "    buf[:, 1:] = buf[:, :-1]\n"
                "    buf[:, 0] = frame\n"
                "    return buf\n",
                "def roll_frames(frames, frame):\n"
                "    buf = torch.stack(frames, 1)\n"
                "    buf[:, 1:] = buf[:, :-1].clone()\n"
                "    buf[:, 0] = frame\n"
                "    return buf\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://github.com/pytorch/pytorch/issues/91894",
            "https://github.com/pytorch/pytorch/pull/185149",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.copy_.html",
            "https://github.com/MVIG-SJTU/AlphaPose/blob/master/alphapose/utils/transforms.py",
        ),
    )

    def _write(self, target: cst.BaseExpression, value: cst.BaseExpression, assigned: bool) -> None:
        if type(target) is not cst.Subscript or type(value) is not cst.Subscript or not self._torch \
                or in_inserted_helper(self):
            return
        holder = observed_name(target.value)
        if holder is None or holder != observed_name(value.value) or not _shifted_parts(target, value):
            return
        if not (self._evidence.evident(target.value) or self._observed.is_tensor(target.value)
                or self._observed.written_tensor(target, target.value)):
            return  # NumPy copies overlapping parts correctly
        fixed = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("clone")))
        self.found(target, f"`{code_of(target)} = {code_of(value)}` reads memory it overwrites: eager PyTorch "
                           "raises or copies in the kernel's order (later elements read values already written) "
                           "where the graph writes the source as it was; copying the source first with `.clone()` "
                           "gives the graph's shift in eager mode too (unsafe: it assumes the shift is meant)",
                   Fix({value: fixed}, safety=Safety.UNSAFE, proof=_never_observed))


RULES = (OverlappingWrite,)
