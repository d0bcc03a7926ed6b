"""The pool-1d recipe (TRT603) on real-code variants whose pooling class a factory names at run time.

Each variant in ``tests/recipe_variants/trt603/`` named below is a small runnable model reduced from a
public repository (cited in its docstring) that builds ``nn.MaxPool1d``/``nn.AvgPool1d`` through a factory,
so that no call of the code spells the class: fepegar/unet's ``getattr(nn, "{}Pool{}d".format(...))`` then
``class_(kernel_size)`` (the pool called as ``self.downsample(x)``), dynamic-network-architectures'
``get_matching_pool_op(conv_op, pool_type=pool)(kernel_size=..., stride=...)`` (the pool the first module of an
``nn.Sequential`` stage the encoder runs), MONAI's ``Pool[Pool.MAX, spatial_dims](**params)`` (a registry of
factory functions, tuple arguments, a stride of None) and Darts' N-HiTS, ``choice = nn.MaxPool1d if ... else
nn.AvgPool1d`` then ``choice(...)`` (whose squeezes TRT401 fixes in the same run). Every original exports with 1-D
MaxPool/AveragePool nodes, which TensorRT refuses; the code alone gives TRT603 nothing to find. ``migrate`` observes which call
built each module the located line called, applies TRT603 at that call (``_trt_pool_class(<callee>)(...)``, a
verified candidate) and ends with exit 0, the rewritten model equivalent and its graph free of TensorRT
errors. Each variant is also rewritten from its observed facts and exported directly: 2-D windows, the graph
equal to eager mode at other lengths and batch sizes and on zeros, negatives and an empty batch (not on
infinities: the convolutions make NaN of them before the max pools, which ONNX Runtime's MaxPool kernels treat
their own way, with or without the rewrite), and eager mode unchanged bit for bit on all of them, infinities
and NaN included.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, export_variant, input_names, line_of, load_variant,
                            observed_facts, axes_json)

from variant_rewrites import built_pair

from trtcodemod.engine import Options, check_source
from trtcodemod.trt.check import check_graph

HERE = TESTS / "recipe_variants" / "trt603"
INF = float("inf")

#: variant -> (the text of each call that builds a 1-D pool, rewritten as it becomes, the 1-D pool nodes before).
VARIANTS: dict[str, tuple[tuple[tuple[str, str], ...], dict[str, int]]] = {
    "unet_getattr_downsampling": (
        (("    return pool_class(kernel_size)", "    return _trt_pool_class(pool_class)(kernel_size)"),),
        {"MaxPool": 1, "AveragePool": 1}),
    "dna_matching_pool_op": (
        (("parts.append(matching_pool(conv_op, pool_type=pool)(kernel_size=strides[s], stride=strides[s]))",
          "parts.append(_trt_pool_class(matching_pool(conv_op, pool_type=pool))(kernel_size=strides[s], "
          "stride=strides[s]))"),),
        {"MaxPool": 2, "AveragePool": 2}),
    "monai_pool_registry": (
        (("self.max_pool = Pool[Pool.MAX, spatial_dims](**params)",
          "self.max_pool = _trt_pool_class(Pool[Pool.MAX, spatial_dims])(**params)"),
         ("self.avg_pool = Pool[Pool.AVG, spatial_dims](**params)",
          "self.avg_pool = _trt_pool_class(Pool[Pool.AVG, spatial_dims])(**params)")),
        {"MaxPool": 2, "AveragePool": 2}),
    "darts_nhits_pool_choice": (
        (("self.pool = choice(kernel_size=kernel, stride=kernel, ceil_mode=True)",
          "self.pool = _trt_pool_class(choice)(kernel_size=kernel, stride=kernel, ceil_mode=True)"),),
        {"MaxPool": 1, "AveragePool": 1}),
}


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_code_alone_names_no_pool(name: str) -> None:
    path = HERE / f"{name}.py"
    assert check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT603",), scope="all")) == []


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt603_at_the_build_and_ends_with_exit_0(name: str) -> None:
    path = HERE / f"{name}.py"
    builds, nodes = VARIANTS[name]
    report = migrate_json(path, axes_json(load_variant(path, f"trt603_factory_m_{name}")))
    pools = {op: n for op, n in report["before"]["trt_errors_by_op"].items() if op in ("MaxPool", "AveragePool")}
    assert report["before"]["exported"] is True and pools == nodes, report["before"]
    pooling = [fix for fix in report["applied"] if fix["rule"] == "TRT603"]
    assert sorted(fix["line"] for fix in pooling) == sorted(line_of(path, text) for text, _ in builds), pooling
    assert all(fix["proof"].startswith("verified:") for fix in pooling), pooling
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["trt_errors"] == 0, report["after"]
    for _, rewritten in builds:
        assert rewritten.strip() in report["diff"], report["diff"]


def _specials(example: torch.Tensor, nan: bool) -> torch.Tensor:
    out = example.clone().flatten(0, -2)  # (rows, length)
    out[0, 1], out[-1, -2] = INF, -INF
    if nan:
        out[1, 4] = float("nan")
    return out.reshape(example.shape)


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Each variant rewritten by TRT603 from the facts its observed run recorded (``--unsafe``, as migrate
    tries a verified candidate), the original and rewritten models with the same weights."""
    out = {}
    for name in VARIANTS:
        folder = tmp_path_factory.mktemp(name)
        path = HERE / f"{name}.py"
        facts = observed_facts(path, load_variant(path, f"trt603_factory_{name}"), folder / "work")
        module, source, original, after = built_pair(path, "TRT603", folder, unsafe=True, facts=facts)
        after.load_state_dict(original.state_dict())
        out[name] = dict(module=module, original=original, rewritten=after, source=source, folder=folder)
    return out


def _pools(graph: onnx.ModelProto) -> list[int]:
    return sorted(len(onnx.helper.get_attribute_value(a)) for n in graph.graph.node
                  if n.op_type in ("AveragePool", "MaxPool") for a in n.attribute if a.name == "kernel_shape")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_rewritten_exports_2d_windows_and_equals_eager(rewritten: dict[str, dict], name: str) -> None:
    variant = rewritten[name]
    builds, nodes = VARIANTS[name]
    for _, text in builds:
        assert text in variant["source"], variant["source"]
    module, original, after, folder = variant["module"], variant["original"], variant["rewritten"], variant["folder"]
    # The same modules: the state_dict and the attributes of each pool (its class a subclass of torch's).
    assert original.state_dict().keys() == after.state_dict().keys()
    pools = [(a, b) for a, b in zip(original.modules(), after.modules())
             if type(a) in (torch.nn.MaxPool1d, torch.nn.AvgPool1d)]
    assert len(pools) == sum(nodes.values())
    assert all(type(b).__name__ == f"_Trt{type(a).__name__}" and a.__dict__.keys() == b.__dict__.keys()
               and a.extra_repr() == b.extra_repr() for a, b in pools)
    example = module.inputs(_g(0))
    session, _ = export_variant(after, example, module.DYNAMIC, folder / "after.onnx", folder)
    graph = onnx.load(str(folder / "after.onnx"))
    assert _pools(graph) == [2] * sum(nodes.values())
    assert not [i for i in check_graph(graph) if i.severity == "error" and i.op in ("MaxPool", "AveragePool")]
    (x,) = example
    [(input_name, axes)] = module.DYNAMIC.items()
    varies = x.dim() - 1 in axes  # the length, where the variant takes any (N-HiTS' window is fixed)

    def like(batch: int, longer: bool = False) -> tuple[int, ...]:
        return (batch, *x.shape[1:-1], 2 * x.shape[-1] + 1 if longer and varies else x.shape[-1])

    sets = {
        "example": example,
        "longer": (torch.randn(like(3, longer=True), generator=_g(1)),),
        "one": (torch.randn(like(1), generator=_g(2)),),
        "zeros": (torch.zeros(like(x.shape[0])),),
        "negatives": (-torch.rand(like(x.shape[0]), generator=_g(3)) - 1,),
        "empty-batch": (torch.zeros(like(0)),),
    }
    specials = {"inf": (_specials(torch.randn(like(2), generator=_g(4)), nan=False),),
                "nan": (_specials(torch.randn(like(2), generator=_g(5)), nan=True),)}
    # In the graph, an infinity meets others in the convolutions before the max pools (inf - inf), and ONNX Runtime's
    # MaxPool kernels treat the NaN that comes out each their own way, the 1-D one as the 2-D one, neither as torch:
    # the graphs are compared on them in test_pool_1d.py, where the pool takes the infinities itself.
    for label, inputs in sets.items():
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(after), inputs)})
        assert got.shape == want.shape and got.dtype == want.dtype, label
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=label)
    assert_eager_unchanged(original, after, {**sets, **specials})
