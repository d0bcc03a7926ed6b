"""Python control flow that depends on tensor values (TRT101, TRT104): the family.

The rules live in ``data_dependent_if`` (TRT101) and ``data_dependent_loop`` (TRT104); the
analysis they share in ``_condition_evidence``, TRT101's rewrite in ``_branch_building``.
This module is the family's registered entry and keeps the names other code imports from it.

A traced export (``torch.onnx.export(dynamo=False)`` on an ``nn.Module``) runs the
Python code once: an ``if`` whose condition reads tensor values takes the branch the
example input chose, and the graph keeps only that branch (with a ``TracerWarning``
at best). A loop whose trip count comes from tensor data is unrolled with the
example's count. Scripting instead exports ONNX ``If``/``Loop`` nodes, which TensorRT
handles poorly (branches must agree in rank; loops with dynamic trip counts).

What counts as data-dependent: only what is *evidently* a tensor value (real code
branches far more often on strings, NumPy arrays, ints and shapes than on tensors, and
vectorizing those breaks working code). Decided per class without type information:
- tensors to start from: the inputs of an ``nn.Module``'s ``forward`` (parameters without
  a ``bool``/``int``/``float``/``str`` annotation or a literal default), parameters
  annotated ``Tensor`` in any method or function, the parameters of a helper method that
  a method calls with a tensor (``self.refine(feat)``), and module tensors: ``self.<name>``
  assigned from ``torch.*``/``nn.Parameter`` or registered with ``register_buffer`` in
  construction code;
- what torch computes from them: a ``torch.*``/``torchvision.*`` call with such an
  argument, a tensor method on one (``.max()``, ``.any()``, ``.sum()``), a submodule built
  in ``__init__`` (``self.proj(x)``, ``self.blocks[i](x)``), indexing, arithmetic and
  comparisons of one; ``.item()``, ``int()``, ``float()`` of one read a Python value out of
  the tensor, which is data too;
- tracked through local assignments of the same function (one tensor assignment of a
  name is enough);
- never: sizes and static views (``.shape``, ``.size()``, ``.dim()``, ``.numel()``,
  ``len()``, ``.dtype``, ``.device``), Python and NumPy values (``np.*``, ``math.*``,
  numbers, strings, calls of functions we cannot see into), ``isinstance``, ``is None``,
  membership (``key in state``), string-keyed lookups and dict/str methods
  (``meta["flip"]``, ``meta.get(...)``), attributes of ``self`` that are not module tensors
  (``self.training``, ``self.cfg.x``) and names nothing above reaches;
- a parameter tested for truth as it is (``if flag:``, ``if not ctx.needs_grad``) is a
  switch, not tensor data (a multi-element tensor would raise there); a local computed
  from tensors and tested for truth (``has = mask.any()``; ``if has:``) is data.

Methods of classes are looked at (``forward``, the helpers it calls, and the methods of
tracker/coder classes that are not modules), and plain functions with ``Tensor``
parameters. Construction-time code is skipped: ``__init__`` and other dunder methods, the
methods only they call (``_make_layer``), and class methods. Per-frame state kept on
``self`` (DESIGN §8.8) is not seen by this analysis. Facts observed by ``migrate``
(``--facts``) add what syntax cannot show: see :meth:`_DataFlowRule.observed`.
"""


from __future__ import annotations

from trtcodemod.transforms._branch_building import (
    call_args, bound_before, branch_assignments, comments_inside,
)
from trtcodemod.transforms._condition_evidence import ConditionEvidence, read_names
from trtcodemod.transforms.data_dependent_if import DataDependentIf
from trtcodemod.transforms.data_dependent_loop import DataDependentLoop

RULES = (DataDependentIf, DataDependentLoop)
# Names other code imports from this module (trtcodemod.temporal.lift, tests).
__all__ = ["RULES", "ConditionEvidence", "DataDependentIf", "DataDependentLoop", "call_args", "bound_before",
           "branch_assignments", "comments_inside", "read_names"]
