"""The integer-cumsum recipe (TRT334) on real-code variants.

Each variant in ``tests/recipe_variants/trt334/`` is a small runnable model reduced from public code
(cited in its docstring) that takes a cumulative sum of integers or bools in its forward pass, in
the form the original writes it: transformers' RoBERTa position ids (``torch.cumsum(mask,
dim=1).type_as(mask)`` of ``input_ids.ne(padding_idx).int()`` in a static method), ESM's (the same
in a module function, after token dropout), kornia DISK's tied keypoints (``torch.cumsum(tied, 0)``
of a bool mask, after a ``torch.kthvalue``), verl's position ids from the attention mask
(``torch.cumsum(mask, dim=-1)`` of the model's int64 input: nothing in the code shows its dtype)
and torchtune's last real token (``(~mask).cumsum(dim=-1).argmax(dim=-1)``). Each exports an
integer or bool CumSum, which TensorRT refuses (FP32/FP16/BF16 only); ONNX Runtime does not even
load torchtune's bool one. The rule finds four from the code alone; verl's only from what
``migrate``'s graph check located at its line. ``migrate`` applies TRT334 (with TRT319 for DISK's
``kthvalue``, which stops the export first) and ends with exit 0, equivalent, no TensorRT error,
for all five. RoBERTa's and verl's rewrites exported directly equal eager mode at other sizes,
on all-padding and one-token rows, and eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built, export_variant, input_names,
                            load_rewritten, load_variant, rewrite_variant, seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt334"

#: variant -> (the call as written, the text the rule writes for it).
CALLS: dict[str, tuple[str, str]] = {
    "roberta_position_ids": ("incremental_indices = (torch.cumsum(mask, dim=1).type_as(mask) + cache_length) * mask",
                             "incremental_indices = (_trt_cumsum(mask, 1).type_as(mask) + cache_length) * mask"),
    "esm_embeddings": ("incremental_indices = torch.cumsum(mask, dim=1).type_as(mask) * mask",
                       "incremental_indices = _trt_cumsum(mask, 1).type_as(mask) * mask"),
    "kornia_disk_tied_keypoints": (
        "return above | (tied & (torch.cumsum(tied, -1) <= n - above.sum(-1, keepdim=True)))",
        "return above | (tied & (_trt_cumsum(tied, -1) <= n - above.sum(-1, keepdim=True)))"),
    "verl_position_id_with_mask": ("return torch.clip(torch.cumsum(mask, dim=-1) - 1, min=0, max=None)",
                                   "return torch.clip(_trt_cumsum(mask, -1) - 1, min=0, max=None)"),
    "torchtune_sequence_lengths": ("sequence_lengths = (~mask).cumsum(dim=-1).argmax(dim=-1).to(dtype=torch.long)",
                                   "sequence_lengths = _trt_cumsum((~mask), -1).argmax(dim=-1).to(dtype=torch.long)"),
}
#: The variant whose cumsum the code does not show to be of integers: found only where migrate located it.
LOCATED_ONLY = "verl_position_id_with_mask"
#: variant -> the other fixes migrate applies with TRT334 (rule, text of the line).
OTHERS: dict[str, tuple[tuple[str, str], ...]] = {
    # `torch.kthvalue` has no ONNX symbolic: the original's export stops there
    "kornia_disk_tied_keypoints": (("TRT319", "minus_threshold, _indices = torch.kthvalue("),),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_rule_finds_each_call_the_code_shows_and_rewrites_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    call, rewritten = CALLS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT334",), scope="all"))
    if name == LOCATED_ONLY:
        assert findings == []  # an input mask: its dtype is not in the code
        return
    assert [(f.rule, f.line, f.fix.value) for f in findings] == [("TRT334", _line_of(path, call), "unsafe")]
    _, text, _ = load_rewritten(path, ("TRT334",), tmp_path, f"trt334_r_{name}")
    assert rewritten in text, text
    assert check_source(text.encode(), "rewritten.py", Options(select=("TRT334",), scope="all")) == []


def _export_checked(model: torch.nn.Module, module, tmp_path: Path) -> tuple[onnx.ModelProto, str | None]:
    target = tmp_path / "model.onnx"
    result = export_model(model, module.inputs(seeded(0)), target, exporter="torchscript",
                          input_names=input_names(model), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17, user_roots=(str(HERE), str(tmp_path)))
    return (onnx.load(str(target)) if result.error is None else None), result.error


@pytest.mark.parametrize("name", list(CALLS))
def test_the_original_graph_has_an_integer_cumsum_the_check_names_trt334(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt334_o_{name}")
    model, source = built(module), path
    if name in OTHERS:  # the export stops at the kthvalue first; with it rewritten, the CumSum is there
        assert "aten::kthvalue" in (_export_checked(model, module, tmp_path)[1] or "")
        model = built(load_rewritten(path, ("TRT319",), tmp_path, f"trt334_k_{name}")[2])
        source = tmp_path / f"{path.stem}_rewritten.py"
    graph, error = _export_checked(model, module, tmp_path)
    assert error is None, error
    issues = [i for i in check_graph(graph, "10.x") if i.op == "CumSum"]
    assert [(i.rule, i.severity) for i in issues] == [("TRT334", "error")], issues
    assert issues[0].source == f"{source.resolve()}:{_line_of(source, CALLS[name][0])}"


def test_onnx_runtime_refuses_torchtunes_bool_cumsum(tmp_path: Path) -> None:
    import onnxruntime as ort

    path = HERE / "torchtune_sequence_lengths.py"
    module = load_variant(path, "trt334_ort_torchtune")
    graph, error = _export_checked(built(module), module, tmp_path)
    assert error is None, error
    with pytest.raises(Exception, match="CumSum"):
        ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("name", list(CALLS))
def test_migrate_applies_trt334_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt334_m_{name}")
    report = migrate_json(path, _axes_json(module))
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    want = [("TRT334", _line_of(path, CALLS[name][0]))] + [(rule, _line_of(path, text))
                                                         for rule, text in OTHERS.get(name, ())]
    assert applied == sorted(want), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["after"]["trt_errors"] == 0, report["after"]
    assert CALLS[name][1] in report["diff"], report["diff"]


def _ids(shape: tuple[int, int], seed: int, low: int = 2, high: int = 30) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=seeded(seed))


def _padded(ids: torch.Tensor, lengths: list[int], pad: int = 1) -> torch.Tensor:
    ids = ids.clone()
    for row, length in enumerate(lengths):
        ids[row, length:] = pad
    return ids


def _mask(lengths: list[int], left: list[int], size: int) -> torch.Tensor:
    positions = torch.arange(size)
    return torch.stack([((positions >= lo) & (positions < lo + n)).long() for lo, n in zip(left, lengths)])


#: variant -> input sets at other sizes and edge values.
DIRECT = {
    "roberta_position_ids": {
        "other-sizes": (_padded(_ids((4, 23), 1), [23, 5, 0, 17]),),
        "one-token": (_ids((3, 1), 2),),
        "all-padding": (torch.ones(2, 6, dtype=torch.int64),),
        "long": (_padded(_ids((1, 60), 3), [41]),),
    },
    "verl_position_id_with_mask": {
        "other-sizes": (_ids((4, 17), 4, 0, 40), _mask([17, 3, 10, 0], [0, 14, 2, 0], 17)),
        "one-token": (_ids((2, 1), 5, 0, 40), torch.ones(2, 1, dtype=torch.int64)),
        "no-tokens": (_ids((2, 5), 6, 0, 40), torch.zeros(2, 5, dtype=torch.int64)),
        "long": (_ids((1, 63), 7, 0, 40), _mask([50], [13], 63)),
    },
}


def _located_facts(path: Path, line: int) -> Facts:
    """What migrate records for a variant whose CumSum the graph check located at ``line``."""
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(path.read_text().splitlines()) + 1))})
    facts.note_located([(str(path), line, "TRT334")])
    return facts


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager_at_other_sizes_and_edges(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    facts = _located_facts(path, _line_of(path, CALLS[name][0])) if name == LOCATED_ONLY else None
    options = Options(select=("TRT334",), unsafe=True, scope="all", facts=facts)
    text, rewritten_module = rewrite_variant(path, options, tmp_path, f"trt334_d_rewritten_{name}")
    assert CALLS[name][1] in text, text
    module = load_variant(path, f"trt334_d_{name}")
    original = built(module)
    rewritten = built(rewritten_module)
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    graph = onnx.load(str(tmp_path / "after.onnx"))
    assert [i for i in check_graph(graph, "10.x") if i.rule == "TRT334"] == []
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)
