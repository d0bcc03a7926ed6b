"""A computation done whole for a small input and in chunks for a large one, picked by a size test (TRT389).

anomalib's PatchCore searches its memory bank for every patch at once when there are few patches, and chunk by
chunk otherwise, to bound the distance matrix's memory::

    n = embedding.shape[0]
    if n <= chunk_size:
        distances = self.euclidean_dist(embedding, self.memory_bank)
        patch_scores, locations = distances.min(1)
    else:
        for start_idx in range(0, n, chunk_size):
            ...

The size test is a Python decision on a traced size: the export keeps the example's branch and warns. Where the
other branch only does the same work piece by piece, the whole computation is the one to export: it follows any
size. The rewrite takes it while tracing and leaves the test as written for everything else.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, strip_parens, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER

TRACING = TRACING_HELPER

_ASSUMPTION = ("the chunked branch computes, chunk by chunk, what the other branch computes at once (each chunk's "
               "result depends on its own rows only), so a traced graph may run the whole computation at every size; "
               "the memory the chunks saved is spent there")

#: ``n <= C`` / ``n < C`` (n on the left) hold where the input is small: the branch they guard is the whole one.
_AT_MOST = (cst.LessThan, cst.LessThanEqual)
_AT_LEAST = (cst.GreaterThan, cst.GreaterThanEqual)


def _text(node: cst.CSTNode) -> str:
    return code_of(node).strip().replace(" ", "")


def _split_counts(call: cst.Call) -> tuple[set[str], str] | None:
    """For ``x.split(C)`` / ``torch.split(x, C)`` (``dim`` given or 0): the spellings of the split axis's size
    (``x.shape[0]``, ``x.size(0)``, ``len(x)`` on axis 0) and ``C``'s text; None for anything else (a list of
    sizes is no step, and ``chunk`` takes a number of pieces, not their size)."""
    if any(a.star for a in call.args):
        return None
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value != "split":
        return None
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if type(func.value) is cst.Name and func.value.value == "torch":  # torch.split(x, C[, dim])
        if not positional:
            return None
        tensor, positional = positional[0], positional[1:]
    else:
        tensor = func.value
    names = ("split_size_or_sections", "split_size")
    size = positional[0] if positional else next((keywords[n] for n in names if n in keywords), None)
    dim = positional[1] if len(positional) > 1 else keywords.get("dim", cst.Integer("0"))
    if size is None or len(positional) > 2 or set(keywords) - {"dim", *names} \
            or type(strip_parens(size)) in (cst.List, cst.Tuple):
        return None
    owner, axis = _text(tensor), _text(dim)
    counts = {f"{owner}.shape[{axis}]", f"{owner}.size({axis})", f"{owner}.size(dim={axis})"}
    if axis == "0":
        counts.add(f"len({owner})")
    return counts, _text(size)


def _chunk_loops(block: cst.CSTNode | list[cst.BaseStatement], count: str, step: str) -> list[cst.For | cst.CompFor]:
    """The loops (and comprehensions) in ``block`` over ``range(<start>, count, step)``, or over the pieces of
    ``x.split(step)`` (``torch.split(x, step)``) where ``count`` is the split axis's size: the chunks of ``count``
    rows, ``step`` at a time."""
    found = []
    for node in (n for part in (block if isinstance(block, list) else [block]) for n in walk(part)):
        if type(node) not in (cst.For, cst.CompFor):
            continue
        call = strip_parens(node.iter)
        if type(call) is not cst.Call:
            continue
        split = _split_counts(call)
        if split is not None:
            if count in split[0] and split[1] == step:
                found.append(node)
            continue
        if type(call.func) is not cst.Name or call.func.value != "range" \
                or any(a.keyword is not None or a.star for a in call.args):
            continue
        if len(call.args) == 3 and _text(call.args[1].value) == count and _text(call.args[2].value) == step:
            found.append(node)
        elif len(call.args) == 1 and _text(call.args[0].value) in _chunk_counts(count, step):
            found.append(node)
    return found


def _chunk_counts(count: str, step: str) -> set[str]:
    """The spellings of the number of chunks of ``count`` rows, ``step`` at a time, that a loop over
    ``range(<number>)`` takes (the sub-quadratic attention of stable-diffusion-webui and ComfyUI:
    ``for i in range(math.ceil(q_tokens / query_chunk_size))``, each chunk at ``i * query_chunk_size``)."""
    ceil = {f"math.ceil({count}/{step})", f"ceil({count}/{step})"}
    ceil |= {f"int({c})" for c in ceil}
    c, s = f"({count}+{step}-1)", step
    return ceil | {f"{c}//{s}", f"-(-{count}//{s})", f"({count}-1)//{s}+1"}


class ChunkedBranch(Rule):
    needs_text = (b"range(", b"split(")
    info = RuleInfo(
        id="TRT389",
        name="chunked-branch",
        summary="`if n <= chunk: <whole> else: for s in range(0, n, chunk): <the same, a chunk at a time>`: the "
                "export keeps the example's branch; take the whole computation while tracing",
        doc="""\
What it finds: an `if`/`else` on a comparison of two names or expressions, `n` and `C`
(`n <= C`, `n < C`, `C >= n`, `n > C`...), where one branch loops over
`range(<start>, n, C)` (the chunks of `n` rows, `C` at a time: the same `n` and `C`, as
written), or over the pieces of `x.split(C)` / `torch.split(x, C, dim)` where `n` is that
axis's size (`x.shape[0]`, `x.size(0)`, `len(x)`), and the other does not: the computation
done at once where the input is small and chunk by chunk where it is large, to bound the
memory of an intermediate (anomalib's PatchCore nearest-neighbour search over its memory
bank, `if n <= chunk_size:` at `patchcore/torch_model.py`; diffusers' VAEs decoding a batch
one latent at a time, `if self.use_slicing and z.shape[0] > 1:` with `z.split(1)`; the
chunked form of an attention or a distance matrix). A switch may come first in an `and`
(`flag and n > C`) where the chunked branch is the `if`, or in an `or`
(`chunk is None or chunk >= n`) where the whole one is. The other side may also be an
`elif` chain (where the chunks are the `if`), or, after an `if` whose body ends in
`return <whole>` and has no `else`, the statements that follow it (VGGT's DPT head,
`if frames_chunk_size is None or frames_chunk_size >= S: return self._forward_impl(...)`
then a loop over `range(0, S, frames_chunk_size)`). A loop may also run over the number of
chunks, `range(math.ceil(n / C))`, `range((n + C - 1) // C)` or `range(-(-n // C))`
(the sub-quadratic attention of stable-diffusion-webui and ComfyUI).

Why it hurts: `n` is a traced size. The TorchScript export reads the test as a Python bool
(a TracerWarning) and keeps only the branch the example took; the dynamo exporter
specialises or guards on it. With the chunked branch traced, the graph has the example's
number of chunks; with the whole one, it follows the size, which is what a deployed graph
needs (at the cost of the whole intermediate's memory, which the chunks bounded).

The rewrite: the test becomes `_trt_tracing() or n <= C` (where the whole computation is
the `if` branch, switch included: `_trt_tracing() or chunk is None or chunk >= n`;
`not _trt_tracing() and n > C` where it is the `else`). Eager mode,
`torch.jit.script`, `torch.fx` and `torch.compile` decide as written (`_trt_tracing()` is
False there, and `or`/`and` leave the test's value as it was); while `torch.jit.trace` or
`torch.export` records the model, the whole computation runs at every size and no decision
on the size is recorded.

Fix safety: unsafe: it assumes {assumption}. `migrate` applies it where the recorded export
warned at the test, and keeps it only where the rewritten model's graph is faithful and
equivalent on its inputs.""".format(assumption=_ASSUMPTION),
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                "def search(embedding, bank, chunk_size: int = 1024):\n"
                "    n = embedding.shape[0]\n"
                "    if n <= chunk_size:\n"
                "        scores = torch.cdist(embedding, bank).min(1).values\n"
                "    else:\n"
                "        parts = []\n"
                "        for start in range(0, n, chunk_size):\n"
                "            chunk = embedding[start:start + chunk_size]\n"
                "            parts.append(torch.cdist(chunk, bank).min(1).values)\n"
                "        scores = torch.cat(parts)\n"
                "    return scores\n",
                "def search(embedding, bank, chunk_size: int = 1024):\n"
                "    n = embedding.shape[0]\n"
                f"    if {TRACING}() or n <= chunk_size:\n"
                "        scores = torch.cdist(embedding, bank).min(1).values\n"
                "    else:\n"
                "        parts = []\n"
                "        for start in range(0, n, chunk_size):\n"
                "            chunk = embedding[start:start + chunk_size]\n"
                "            parts.append(torch.cdist(chunk, bank).min(1).values)\n"
                "        scores = torch.cat(parts)\n"
                "    return scores\n",
                unsafe=True,
            ),
            Example(
                "def attend(q, k, chunk):\n"
                "    if q.shape[1] > chunk:\n"
                "        out = torch.cat([attention(q[:, s:s + chunk], k) for s in range(0, q.shape[1], chunk)], 1)\n"
                "    else:\n"
                "        out = attention(q, k)\n"
                "    return out\n",
                "def attend(q, k, chunk):\n"
                f"    if not {TRACING}() and q.shape[1] > chunk:\n"
                "        out = torch.cat([attention(q[:, s:s + chunk], k) for s in range(0, q.shape[1], chunk)], 1)\n"
                "    else:\n"
                "        out = attention(q, k)\n"
                "    return out\n",
                unsafe=True,
            ),
        ),
        references=("https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
                    "https://github.com/open-edge-platform/anomalib/blob/main/src/anomalib/models/image/patchcore/"
                    "torch_model.py"),
    )

    def visit_If(self, node: cst.If) -> None:
        if type(node.orelse) is cst.Else:
            self._consider(node, node.orelse.body)
        elif type(node.orelse) is cst.If:
            # `if flag and n > C: <chunks> elif ...: <whole> else: <whole>`: the `elif` chain is what a small input
            # runs (taken only where the chunks are the `if`, below).
            self._consider(node, node.orelse, chain=True)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        """``if frames_chunk_size is None or frames_chunk_size >= S: return <whole>`` followed by the chunks (VGGT's
        DPT head): an ``if`` without ``else`` whose body ends in ``return``; the statements after it are its else."""
        body = list(node.body)
        for index, statement in enumerate(body):
            if type(statement) is cst.If and statement.orelse is None and _returns(statement.body) \
                    and index + 1 < len(body):
                self._consider(statement, body[index + 1:])

    def _consider(self, node: cst.If, other: cst.CSTNode | list[cst.BaseStatement], chain: bool = False) -> None:
        """``node``'s test picks its body or ``other`` (its ``else``'s block, its ``elif`` chain, or the statements
        after an ``if`` that returns) by a size: report it where one side is the other done in chunks."""
        if self.context.function is None:
            return
        if any(type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == TRACING for n in walk(node.test)):
            return  # already decided while tracing (this rule's rewrite, or TRT390's)
        test = whole_test = strip_parens(node.test)
        switch = None
        for kind in (cst.And, cst.Or):
            while type(test) is cst.BooleanOperation and type(test.operator) is kind:
                # `self.use_slicing and z.shape[0] > 1` (diffusers' VAEs): a switch, then the size test; the chunks
                # run only where both hold, so the test must pick the chunked branch. `chunk is None or C >= S`
                # (VGGT): the whole computation where either holds, so the test must pick the whole one.
                switch, test = kind, strip_parens(test.right)
            if switch is not None:
                break
        if type(test) is not cst.Comparison or len(test.comparisons) != 1:
            return
        operator = test.comparisons[0].operator
        if not isinstance(operator, _AT_MOST + _AT_LEAST):
            return
        left, right = _text(test.left), _text(test.comparisons[0].comparator)
        whole_first = None
        for count, step, small in ((left, right, _AT_MOST), (right, left, _AT_LEAST)):
            first = isinstance(operator, small)  # the `if` branch runs where `count` is the small side
            chunked = other if first else node.body
            whole = node.body if first else other
            if _chunk_loops(chunked, count, step) and not _chunk_loops(whole, count, step):
                whole_first = first
                break
        if whole_first is None:
            return
        if switch is cst.And and whole_first or switch is cst.Or and not whole_first:
            return  # `flag and n <= C` / `flag or n > C`: where the switch decides, the chunks run at any size
        if chain and whole_first:
            return  # the chunks in an `elif` run under its own test: not the small input's branch
        tracing = cst.Call(cst.Name(TRACING))
        if whole_first:
            new = cst.BooleanOperation(tracing, cst.Or(), whole_test)
        else:
            new = cst.BooleanOperation(cst.UnaryOperation(cst.Not(), tracing), cst.And(), whole_test)
        self.report(node.test, f"`{code_of(node.test).strip()}` picks a whole computation or the same one in chunks "
                               "by a traced size: the export keeps the example's branch; "
                               f"`{TRACING}()` takes the whole one while tracing; assumes {_ASSUMPTION}",
                    Fix({node.test: new}, safety=Safety.UNSAFE, helpers=(TRACING,)))


def _returns(block: cst.BaseSuite) -> bool:
    """Whether ``block`` ends in a ``return`` (so what follows its ``if`` runs only where the test is false)."""
    if type(block) is not cst.IndentedBlock or not block.body:
        return False
    last = block.body[-1]
    return type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Return


RULES = (ChunkedBranch,)
