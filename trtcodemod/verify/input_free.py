"""Does a value the trace turns into a Python number depend on the model's inputs?

While the TorchScript exporter traces, every tensor has a value in the graph being built
(``torch._C._get_value_trace``). Walking that graph back from a tensor whose value Python reads
(``if t[0] > t[1]:``, ``int(n)``) tells where it comes from: the model's inputs (the first
graph inputs, in the order of the flattened arguments), or only constants and the module's own
parameters and buffers (the graph inputs after them). A value that reaches no input is the same
on every input the graph is run with, so the branch or number the trace keeps there is the one
eager mode computes on every input: torchdiffeq's ``if len(t) > 1 and t[0] > t[1]:`` on a time
grid the model builds from literals, in a library function the user's code calls.

What also counts as reaching the inputs, to stay on the safe side: a random operator (another
value on every call), a node with sub-blocks (a scripted island, whose blocks may read values
its inputs do not list), a write in place into the value or into a view of it (``t[0] = x.sum()``
after ``t = torch.zeros(2)``: the write's data is followed too, and a write into a parameter or
buffer makes it state), and a walk over too many nodes (no verdict). A tensor constant the trace made after
it read a number that may reach an input gives no verdict either: Python may have carried that number
into it (``n = float(x.sum())``, then ``t = torch.tensor([n])``), which the graph does not show. (A
number constant, such as the index of ``t[0]``, is taken as what it looks like: the read that made a
number from the input is located and judged itself.)
"""

from __future__ import annotations

from typing import Any

import torch

#: Operators whose value changes from one call to the next with the same inputs.
RANDOM_KINDS = frozenset({
    "aten::rand", "aten::randn", "aten::randint", "aten::rand_like", "aten::randn_like", "aten::randint_like",
    "aten::randperm", "aten::bernoulli", "aten::bernoulli_", "aten::normal", "aten::normal_", "aten::uniform_",
    "aten::multinomial", "aten::exponential_", "aten::geometric_", "aten::cauchy_", "aten::log_normal_",
    "aten::random_", "aten::poisson", "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
})
#: Operators whose output shares its input's memory: a write into the output is a write into the input.
VIEW_KINDS = frozenset({
    "aten::select", "aten::slice", "aten::view", "aten::reshape", "aten::expand", "aten::expand_as",
    "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::transpose", "aten::t", "aten::narrow",
    "aten::as_strided", "aten::diagonal", "aten::unfold", "aten::alias", "aten::detach", "aten::view_as",
    "aten::flatten", "aten::unflatten", "aten::split", "aten::split_with_sizes", "aten::chunk", "aten::unbind",
    "aten::movedim", "aten::swapaxes", "aten::real", "aten::imag", "aten::view_as_real", "aten::view_as_complex",
    "aten::numpy_T", "aten::mT", "aten::indices", "aten::values", "prim::ListUnpack", "aten::__getitem__",
})
#: Nodes a walk visits at most per export before it gives no verdict (a loop unrolled over thousands
#: of trips reads a value each trip; the walks must not cost more than the export).
BUDGET = 400_000


class InputReach:
    """Answers, for one trace, whether tensors depend on its first ``inputs`` graph inputs."""

    def __init__(self, inputs: int, budget: int = BUDGET) -> None:
        self.inputs = inputs
        self.budget = budget
        #: The graph's values are numbered in the order the trace makes them: a constant made after a read of
        #: an input's value may hold that value (``n = int(x.sum())``, then ``torch.tensor([n])`` or ``t[n]``).
        self._read_input_at: int | None = None

    def read(self, tensor: torch.Tensor, number: bool) -> bool | None:
        """:meth:`free`, noting where the trace first read a number (not a bool: a condition decides a branch,
        which is located itself, and a check's bool carries nothing on) that may reach an input."""
        verdict = self.free(tensor)
        if number and verdict is not True and self._read_input_at is None:
            self._read_input_at = self._number(tensor)
        return verdict

    @staticmethod
    def _number(tensor: torch.Tensor) -> int:
        try:
            return torch._C._get_value_trace(tensor).unique()
        except RuntimeError:
            return -1

    def free(self, tensor: torch.Tensor) -> bool | None:
        """True: ``tensor``'s traced value reaches no model input; False: it does (or may); None: no verdict
        (not traced, or the walk ran out of budget)."""
        if self.budget <= 0 or torch._C._get_tracing_state() is None:
            return None
        try:
            start = torch._C._get_value_trace(tensor)
        except RuntimeError:
            return None  # a tensor the trace has no value for (made with the trace paused)
        seen: set[int] = set()
        stack: list[Any] = [start]
        while stack:
            value = stack.pop()
            key = value.unique()
            if key in seen:
                continue
            seen.add(key)
            self.budget -= 1
            if self.budget <= 0:
                return None
            node = value.node()
            kind = node.kind()
            if kind == "prim::Param":
                if value.offset() < self.inputs:
                    return False
            elif kind == "prim::Constant" and self._read_input_at is not None and key > self._read_input_at \
                    and value.type().kind() == "TensorType":
                return None  # a tensor the trace copied from Python values, perhaps one read from an input
            elif kind in RANDOM_KINDS or list(node.blocks()):
                return False
            else:
                stack.extend(node.inputs())
            writes = _writes_into(value)
            if writes is None:
                return False
            if writes and kind == "prim::Param":
                return False  # a parameter or buffer written while tracing is state, not a constant
            stack.extend(writes)
        return True


def _writes_into(value: Any, depth: int = 0) -> list[Any] | None:
    """The data written in place into ``value`` or a view of it (the other inputs of each in-place node);
    None where the aliasing is too deep to follow."""
    if depth > 8:
        return None
    found: list[Any] = []
    for use in value.uses():
        user = use.user
        kind = user.kind()
        if kind.endswith("_") and not kind.endswith("__") and use.offset == 0:
            found.extend(list(user.inputs())[1:])
        elif kind in VIEW_KINDS:
            for output in user.outputs():
                more = _writes_into(output, depth + 1)
                if more is None:
                    return None
                found.extend(more)
    return found
