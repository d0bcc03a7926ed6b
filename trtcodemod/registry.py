"""The one place rules are registered.

Each module in :data:`RULE_MODULES` lives in ``transforms/`` (installed as
``trtcodemod.transforms``) and exports ``RULES``: a tuple of :class:`Rule` subclasses.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Iterable

from trtcodemod.rules import Rule, RuleInfo

RULE_MODULES: tuple[str, ...] = (
    "control_flow",
    "where",
    "indexing",
    "mask_update",
    "ops",
    "shapes",
    "padding",
    "pooling",
    "pool_1d",
    "unbatched_pool",
    "conv_params",
    "stacked_rows",
    "dtypes",
    "python_values",
    "module_state",
    "dynamic_shapes",
    "unsupported_ops",
    "assignment",
    "baked_shapes",
    "value_shapes",
    "detection",
    "topk_limit",
    "topk_unsorted",
    "einsum",
    "repeat",
    "comprehensions",
    "range_blocks",
    "scripted",
    "optional_state",
    "layers",
    "shape_cache",
    "global_cache",
    "bicubic_resize",
    "traced_scale_resize",
    "sizes_tensor",
    "isin",
    "size_guarded_resize",
    "split_by_size",
    "tensor_split",
    "cumulative_extreme",
    "angle_conversion",
    "numpy_round_trip",
    "traced_window_pool",
    "affine_grid",
    "eye",
    "unfold_windows",
    "strided_windows",
    "constant_update",
    "fold",
    "grid_sample_3d",
    "matrix_transpose",
    "local_response_norm",
    "tile",
    "flex_attention",
    "packed_attention",
    "spectral",
    "exp2",
    "searchsorted",
    "order_statistics",
    "diagonal",
    "histogram",
    "inf_tests",
    "unfold_axis",
    "permutation_axis",
    "conditional_pad",
    "bitwise_size",
    "while_scan",
    "missing_symbolic",
    "max_unpool",
    "small_inverse",
    "integer_cumsum",
    "floor_divide",
    "conv_kernel_shape",
    "attention_scale",
    "index_add",
    "sort_stable",
    "ellipsis_index",
    "whole_window_pool",
    "inplace_compare",
    "unflatten_sizes",
    "elementwise_loop",
    "appended_size_loop",
    "per_image_nms",
    "greedy_nms_loop",
    "per_class_nms",
    "scripted_function_op",
    "legacy_resize",
    "range_comprehension",
    "per_image_rows",
    "per_image_sort",
    "per_image_pad",
    "size_numel",
    "size_parameter_update",
    "full_dtype",
    "slice_bound_fill",
    "size_float",
    "legacy_sizes",
    "bool_add",
    "detached_sizes",
    "padded_batch",
    "roll_shift",
    "new_axis_write",
    "transposed_output_size",
    "per_element_map",
    "chunked_branch",
    "chunked_map",
    "traced_branch",
    "zero_size_reshape",
    "linspace_steps",
    "cost_volume_shift",
    "promoted_operands",
    "repeat_interleave_dim",
    "repeat_counts",
    "pad_sequence",
    "view_alias_write",
    "size_loop_script",
    "state_dict_metadata",
    "pairwise_distance",
    "masked_fill_bool",
    "einx_elementwise",
    "weights_only_op",
    "triangle_indices",
    "inplace_bitwise",
    "chained_inplace_view",
    "integer_bitwise",
    "scripted_submodule",
    "broadcast_write",
    "compiled_call",
    "half_range",
    "overlapping_write",
)


@lru_cache(maxsize=None)
def rule_classes() -> tuple[type[Rule], ...]:
    """Every registered rule class, sorted by ID; IDs and names are checked unique."""
    found: list[type[Rule]] = []
    for module_name in RULE_MODULES:
        module = importlib.import_module(f"trtcodemod.transforms.{module_name}")
        found.extend(module.RULES)
    found.sort(key=lambda cls: cls.info.id)
    ids = [cls.info.id for cls in found]
    names = [cls.info.name for cls in found]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        raise RuntimeError(f"duplicate rule id or name in {ids} / {names}")
    return tuple(found)


def all_rules() -> list[RuleInfo]:
    """Metadata of every rule, sorted by ID."""
    return [cls.info for cls in rule_classes()]


def rule_by_id(rule_id: str) -> RuleInfo | None:
    for info in all_rules():
        if info.id == rule_id.upper() or info.name == rule_id:
            return info
    return None


def select_rules(select: Iterable[str], ignore: Iterable[str]) -> tuple[type[Rule], ...]:
    """Rules whose ID matches a selected code or prefix and no ignored one.

    ``ALL`` selects every rule that is not opt-in; ``TRT4`` selects TRT401, TRT402...;
    a rule's name works too. An opt-in rule needs its ID, name or a prefix like ``TRT4``.
    """
    return _selected(tuple(s.strip().upper() for s in select if s.strip()),
                     tuple(s.strip().upper() for s in ignore if s.strip()))


@lru_cache(maxsize=256)
def _selected(select: tuple[str, ...], ignore: tuple[str, ...]) -> tuple[type[Rule], ...]:
    # Every file of a run asks with the same codes; a long explicit list costs milliseconds per file.
    chosen = []
    for cls in rule_classes():
        wanted = [c for c in select if c != "ALL"] if cls.info.opt_in else list(select)
        if _matches(cls.info, wanted) and not _matches(cls.info, list(ignore)):
            chosen.append(cls)
    return tuple(chosen)


def unknown_codes(codes: Iterable[str]) -> list[str]:
    """Codes that name no rule and prefix none: a typo the user should hear about."""
    infos = all_rules()
    bad = []
    for code in codes:
        code = code.strip().upper()
        if code and code != "ALL" and not any(
            i.id.startswith(code) or i.name.upper() == code for i in infos
        ):
            bad.append(code)
    return bad


def _matches(info: RuleInfo, codes: list[str]) -> bool:
    return any(
        code == "ALL" or info.id.startswith(code) or info.name.upper() == code for code in codes
    )
