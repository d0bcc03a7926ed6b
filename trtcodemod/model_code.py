"""Which code is model code: the part of a repository an export can run.

Rules look at model code by default (``scope = "model"``); ``--scope all`` looks
everywhere. Real repositories mix the network with data loading, training loops,
losses, visualisation, scripts and tests, and those never reach ``torch.onnx.export``:
a finding there is noise, however correct the rule.

What is *not* model code, recognised from the path and the file's own structure:

- files under a folder named like test, tool, script, demo, doc, dataset, augmentation,
  optimizer, loss, metric or visualisation code
  (:data:`NON_MODEL_DIRS`), and files named like tests, training or evaluation entry
  points, losses, metrics, plotting or data loading (:data:`_NON_MODEL_FILE`);
- the body of ``if __name__ == "__main__":``;
- classes for data, training and evaluation: a base named like a dataset, sampler,
  data loader or test case, or a class name ending in ``Dataset``, ``Loss``,
  ``Criterion``, ``Assigner``, ``Trainer``, and the runners and result holders around a
  model (``...Backend``, ``...Predictor``, ``...Runner``, ``AutoShape``, ``Results``)
  (:data:`_NON_MODEL_CLASS`);
- functions and methods named like entry points, training and evaluation steps, losses
  and target assignment, weight initialisation and checkpoint loading, plotting
  (:data:`_NON_MODEL_FUNCTION`): ``main``, ``train_one_epoch``, ``loss_by_feat``,
  ``get_targets``, ``init_weights``, ``checkpoint_filter_fn``, ``plot_boxes``...;
- the body of ``if self.training:`` (and the ``else`` of ``if not self.training:``), and what
  follows ``if not self.training: return x`` (or ``if not training or p == 0: return x``):
  ``torch.onnx.export`` runs the model in eval mode;
- functions of the file that only code which is not model code calls, or only ``__init__``
  and module-level code (``gen_relative_position_index()`` building a buffer), directly or
  through each other.

Everything else is model code: methods of ``nn.Module`` subclasses and the functions
around them (box coders, post-processing, helpers). A file named explicitly is judged
the same way; ``--scope all`` (or ``scope = "all"`` in the configuration) includes it.
"""

from __future__ import annotations

import re
from pathlib import PurePath

import libcst as cst

from trtcodemod.astutil import children, walk
from trtcodemod.names import dotted_name

SCOPES = ("model", "all")

#: Folder names whose files are never exported (compared lower-case).
NON_MODEL_DIRS = frozenset({
    "test", "tests", "testing", "unittest", "unittests",
    "tool", "tools", "script", "scripts",
    "demo", "demos", "doc", "docs",
    "data", "dataset", "datasets", "dataloader", "dataloaders", "io",
    "transforms", "augmentation", "augmentations",  # data augmentation (torchvision.transforms)
    "optim", "optimizer", "optimizers", "scheduler", "schedulers", "lr_scheduler",
    "loss", "losses", "metrics", "evaluation", "visualization", "visualisation", "vis",
    "assigners", "samplers", "match_costs",  # training-time target assignment (mmdet layout)
})

_NON_MODEL_FILE = re.compile(
    r"""^(?:
        test_.* | .*_tests? | tests? | conftest | setup
      | train(?:_.*)? | .*_train | trainer | engine_train
      | eval(?:uate|uation)?(?:_.*)? | val(?:idate)?
      | demo(?:_.*)? | .*_demo
      | loss(?:es)? | .*_loss(?:es)? | metrics? | .*_metrics?
      | plots? | plotting | visuali[sz](?:e|er|ation)(?:_.*)? | vis
      | dataloaders? | .*dataset.* | augment(?:ation|ations|s)?
      | (?:prepare|build|compute|assign)_targets? | targets?
    )$""",
    re.VERBOSE,
)

_NON_MODEL_BASE = re.compile(
    r"^(?:.*Dataset|Sampler|.*DataLoader|.*DataModule|TestCase|_Loss|_WeightedLoss)$"
)

_NON_MODEL_CLASS = re.compile(
    r"^(?:Test[A-Z_].*|.*(?:Dataset|DataModule|Loss|Criterion|Assigner(?:\d*D)?|Matcher(?:\d*D)?|Trainer|Evaluator"
    r"|Visualizer|Visualiser|Logger|Callback|Hook|Test|Tests"
    # inference runners and result holders around a model (they call other runtimes, print, plot)
    r"|Backend|Predictor|Runner|Exporter)|AutoShape|Detections|Results)$"
)

_NON_MODEL_FUNCTION = re.compile(
    r"""^_*(?:
        main | parse_args | parse_opt | get_args | get_parser | cli
      | train(?:_.*)? | .*_train | fit | .*training.*
      | evaluate(?:_.*)? | eval_.* | validate(?:_.*)? | validation_step | test_step | test_.* | predict_step
      | configure_optimizers | optimizer_step
      | loss | loss_.* | .*_loss | .*_losses | get_targets? | get_targets?_.* | .*_targets?_single
      | init_weights? | _?init_weights? | reset_parameters | weight_init | init_.*_weights?
      | (?:init|reset)_.*buffers? | fuse(?:_.*)? | .*_fuse | reparameteri[sz]e(?:_.*)? | switch_to_deploy | prune_.* | reset_classifier
      | (?:get|compute|prepare|build|assign|match|sample|encode)_.*targets?(?:_.*)? | .*_targets?_for_.*
      | load_state_dict | _load_from_state_dict | load_pretrained | load_checkpoint | load_weights
      | .*_filter_fn | convert_.*_checkpoint | remap_.*_state_dict
      | visuali[sz]e(?:_.*)? | vis_.* | plot(?:_.*)? | show_.* | draw_.* | save_.*
      | collate(?:_.*)? | .*_collate(?:_fn)? | build_dataloader.* | worker_init_fn
      | make_grid | save_image | .*_to_image
      | all_gather | all_reduce | reduce_dict | synchronize.* | get_world_size | get_rank | is_main_process
      | save_on_master | init_distributed_mode | setup_for_distributed | is_dist_avail_and_initialized
    )$""",
    re.VERBOSE,
)


def path_reason(path: str) -> str | None:
    """Why the file at ``path`` is not model code, or None when it may be."""
    parts = PurePath(path.replace("\\", "/")).parts
    for folder in parts[:-1]:
        if folder.lower() in NON_MODEL_DIRS:
            return f"a file under a `{folder}/` folder"
    stem = PurePath(path).stem
    if _NON_MODEL_FILE.match(stem.lower()):
        return f"a file named `{PurePath(path).name}`"
    return None


def function_is_model_code(name: str) -> bool:
    return _NON_MODEL_FUNCTION.match(name) is None


def class_is_model_code(node: cst.ClassDef) -> bool:
    name = node.name.value
    if _NON_MODEL_CLASS.match(name):
        return False
    if name.endswith("Sampler") and not any(
        (dotted_name(base.value) or "").endswith("Module") or (dotted_name(base.value) or "").startswith("nn.")
        for base in node.bases
    ):
        return False  # a training-time sampler (`BalancedPositiveNegativeSampler`), not a `PointSampler(nn.Module)`
    for base in node.bases:
        if base.keyword is not None:
            continue
        name = dotted_name(base.value)
        if name is not None and _NON_MODEL_BASE.match(name.rsplit(".", 1)[-1]):
            return False
    return True


def _is_main_guard(test: cst.BaseExpression) -> bool:
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return False
    sides = (test.left, test.comparisons[0].comparator)
    names = {s.value for s in sides if type(s) is cst.Name}
    strings = {s.evaluated_value for s in sides if type(s) is cst.SimpleString}
    return names == {"__name__"} and strings == {"__main__"} and type(test.comparisons[0].operator) is cst.Equal


def _training_test(test: cst.BaseExpression) -> bool | None:
    """True for ``self.training`` (or ``self.training and ...``), False for ``not self.training``."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return False if _training_test(test.expression) is True else None
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return True if _training_test(test.left) is True or _training_test(test.right) is True else None
    return True if dotted_name(test) == "self.training" else None


def _not_training(test: cst.BaseExpression) -> bool:
    """``not self.training`` / ``not training``, alone or as one side of an ``or``."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
        return _not_training(test.left) or _not_training(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return dotted_name(test.expression) in ("self.training", "training")
    return False


def _returns_early_unless_training(statement: cst.CSTNode) -> bool:
    """``if not self.training: return x`` (no ``else``): what follows runs only in training."""
    if type(statement) is not cst.If or statement.orelse is not None or not _not_training(statement.test):
        return False
    body = statement.body.body
    return len(body) == 1 and type(body[0]) is cst.SimpleStatementLine and \
        any(type(small) in (cst.Return, cst.Raise) for small in body[0].body)


def skipped_in(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Children of ``node`` (a statement met by the traversal) that are not model code.

    Called for ``If`` and ``IndentedBlock`` nodes; the traversal skips what it returns (an
    ``if``'s body or ``else``, or the statements after ``if not self.training: return``).
    """
    if type(node) is cst.IndentedBlock:
        for index, statement in enumerate(node.body):
            if type(statement) is cst.If and _returns_early_unless_training(statement):
                return list(node.body[index + 1:])
        return []
    if type(node) is cst.If:
        if _is_main_guard(node.test):
            return [node.body] + ([node.orelse] if node.orelse is not None else [])
        training = _training_test(node.test)
        if training is True:
            return [node.body]
        if training is False and node.orelse is not None:
            return [node.orelse]
        return []
    return []


def definition_is_model_code(node: cst.CSTNode) -> bool:
    if type(node) is cst.ClassDef:
        return class_is_model_code(node)
    if type(node) is cst.FunctionDef:
        return function_is_model_code(node.name.value)
    return True


#: Methods that run while an object is built, not when the model runs.
_BUILD_METHOD = re.compile(r"^(?:__init__|__post_init__|__new__|__setstate__|__init_subclass__|_?init_.*|_?build_.*)$")

_BUILD, _RUN = "build", "run"


def _called_only_while_building(callers: dict[str, set[object]]) -> set[str]:
    """Names whose every caller is build-time code or another such name (a fixed point)."""
    excluded: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, seen in callers.items():
            if name in excluded or not seen:
                continue
            if all(c == _BUILD or (isinstance(c, tuple) and (c[1] in excluded or c[1] == name)) for c in seen):
                excluded.add(name)
                changed = True
    return excluded


def build_time_functions(module: cst.Module, candidates: dict[str, cst.FunctionDef]) -> set[str]:
    """The ``candidates`` (top-level functions, by name) that run only while things are built.

    A candidate qualifies when something in the file calls it and every caller is code that
    is not model code, ``__init__``-like construction, module-level code, or another function
    that qualifies. Used as a value (``fn=gen``), or never called in the file (an API other
    files may call), a function stays model code.
    """
    callers: dict[str, set[object]] = {name: set() for name in candidates}

    def scan(node: cst.CSTNode, context: object) -> None:
        # Code the traversal skips (`if self.training:` bodies...) calls as non-model code.
        stack: list[tuple[cst.CSTNode, object]] = [(node, context)]
        while stack:
            sub, where = stack.pop()
            if type(sub) is cst.Call and type(sub.func) is cst.Name and sub.func.value in callers:
                callers[sub.func.value].add(where)
            elif type(sub) is cst.Arg and type(sub.value) is cst.Name and sub.value.value in callers:
                callers[sub.value.value].add(_RUN)  # passed as a value: it may be stored and run later
            skipped = skipped_in(sub) if type(sub) in (cst.If, cst.IndentedBlock) else []
            for child in children(sub):
                stack.append((child, _BUILD if any(child is s for s in skipped) else where))

    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            name = statement.name.value
            scan(statement.body, ("function", name) if function_is_model_code(name) else _BUILD)
        elif type(statement) is cst.ClassDef:
            model_class = class_is_model_code(statement)
            for item in statement.body.body:
                if type(item) is cst.FunctionDef:
                    method = item.name.value
                    run = model_class and function_is_model_code(method) and not _BUILD_METHOD.match(method)
                    scan(item.body, _RUN if run else _BUILD)
                else:
                    scan(item, _BUILD)
        else:
            scan(statement, _BUILD)

    return _called_only_while_building(callers)


def build_time_methods(cls: cst.ClassDef, candidates: set[str]) -> set[str]:
    """The ``candidates`` (methods of ``cls``) that only construction or non-model methods
    call as ``self.<name>(...)``, directly or through each other (``subsample`` called only
    by ``select_training_samples``; a buffer filler called only by ``__init__``). A method
    handed to a call (``multi_apply(self.loss_single, ...)``) runs where that call does; one
    stored (``self.forward = self.forward_fast`` in ``__init__``) runs later, and stays
    model code."""
    callers: dict[str, set[object]] = {name: set() for name in candidates if name not in ("forward", "__call__")}
    if not callers:
        return set()
    for item in cls.body.body:
        if type(item) is not cst.FunctionDef:
            continue
        method = item.name.value
        where: object = _BUILD if _BUILD_METHOD.match(method) or not function_is_model_code(method) \
            else ("method", method)
        called: set[int] = set()  # callees, and methods handed to a call (`multi_apply(self.m, ...)`)
        for node in walk(item.body):
            if type(node) is cst.Call:
                called.add(id(node.func))
                called.update(id(arg.value) for arg in node.args)
            elif type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self" \
                    and node.attr.value in callers:
                # `self.forward = self.forward_fast` in __init__ stores the method to run later.
                callers[node.attr.value].add(where if id(node) in called else _RUN)
    return _called_only_while_building(callers)

