"""Which code is model code: the part of a repository an export can run.

Rules look at model code by default (``scope = "model"``); ``--scope all`` looks
everywhere. Real repositories mix the network with data loading, training loops,
losses, visualisation, scripts and tests, and those never reach ``torch.onnx.export``:
a finding there is noise, however correct the rule.

What is *not* model code, recognised from the path and the file's own structure:

- files under a folder named like test, tool, script, demo, tutorial, doc, dataset,
  augmentation, optimizer, loss, metric or visualisation code
  (:data:`NON_MODEL_DIRS`), and files named like tests, training or evaluation entry
  points (``motdet_eval.py``), losses, metrics, plotting, data loading or distributed
  training utilities (``dist.py``) (:data:`_NON_MODEL_FILE`);
- the body of ``if __name__ == "__main__":``;
- classes for data, training and evaluation: a base named like a dataset, sampler,
  data loader, data-pipeline transform (mmcv's ``BaseTransform``) or test case, or a
  class name ending in ``Dataset``, ``Loss``, ``Criterion``, ``Assigner``, ``Trainer``,
  and the runners and result holders around a
  model (``...Backend``, ``...Predictor``, ``...Runner``, ``AutoShape``, ``Results``)
  (:data:`_NON_MODEL_CLASS`);
- functions and methods named like entry points, training and evaluation steps, losses
  and target assignment, weight initialisation and checkpoint loading, plotting
  (:data:`_NON_MODEL_FUNCTION`): ``main``, ``train_one_epoch``, ``loss_by_feat``,
  ``get_targets``, ``init_weights``, ``checkpoint_filter_fn``, ``plot_boxes``...;
- the ``backward`` of a ``torch.autograd.Function`` subclass (an export runs ``forward`` or
  ``symbolic``);
- a box coder's ``encode`` (a ``...Coder`` class: it turns ground truth into training
  targets; ``decode`` is what inference runs);
- the body of ``if self.training:`` (and the ``else`` of ``if not self.training:``), and what
  follows ``if not self.training: return x`` (or ``if not training or p == 0: return x``,
  or mmdet's ``if test_mode: return x``): ``torch.onnx.export`` runs the model in eval mode;
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

from trtcodemod.astutil import children
from trtcodemod.findings import PendingFinding
from trtcodemod.names import dotted_name
from trtcodemod.providers import Provider

SCOPES = ("model", "all")

#: Folder names whose files are never exported (compared lower-case).
NON_MODEL_DIRS = frozenset({
    "test", "tests", "testing", "unittest", "unittests",
    "tool", "tools", "script", "scripts",
    "demo", "demos", "doc", "docs", "tutorial", "tutorials",
    "data", "dataset", "datasets", "dataloader", "dataloaders", "io",
    "transforms", "augmentation", "augmentations",  # data augmentation (torchvision.transforms)
    "optim", "optimizer", "optimizers", "scheduler", "schedulers", "lr_scheduler",
    "loss", "losses", "metrics", "evaluation",
    "visualization", "visualisation", "vis", "visualizer", "visualizers",
    "assigners", "samplers", "match_costs",  # training-time target assignment (mmdet layout)
})

_NON_MODEL_FILE = re.compile(
    r"""^(?:
        test_.* | .*_tests? | tests? | conftest | setup
      | train(?:_.*)? | .*_train | trainer | engine_train
      | eval(?:uate|uation)?(?:_.*)? | .*_eval(?:uate|uation|uator)? | val(?:idate)?
      | dist(?:_utils?)? | distributed(?:_utils?)?
      | demo(?:_.*)? | .*_demo
      | loss(?:es)? | .*_loss(?:es)? | metrics? | .*_metrics?
      | plots? | plotting | visuali[sz](?:e|er|ation)(?:_.*)? | vis | .*_vis
      | dataloaders? | .*dataset.* | augment(?:ation|ations|s)?
      | (?:prepare|build|compute|assign)_targets? | targets?
    )$""",
    re.VERBOSE,
)

_NON_MODEL_BASE = re.compile(
    # BaseTransform: mmcv's base of data-pipeline transforms (`ResizeCropFlipImage(BaseTransform)`)
    r"^(?:.*Dataset|Sampler|.*DataLoader|.*DataModule|TestCase|_Loss|_WeightedLoss|BaseTransform)$"
)

_NON_MODEL_CLASS = re.compile(
    r"^(?:Test[A-Z_].*|.*(?:Dataset|DataModule|Loss|Criterion|Assigner(?:\d*D)?|Matcher(?:\d*D)?|Trainer|Evaluator"
    r"|Visualizer|Visualiser|Logger|Callback|Hook|Test|Tests"
    # inference runners and result holders around a model (they call other runtimes, print, plot)
    r"|Backend|Predictor|Runner|Exporter)|AutoShape|Detections|Results"
    # GridMask (BEVFormer, PETR, DETR3D, TPVFormer): a random input-masking augmentation that
    # returns its input unchanged outside training
    r"|GridMask)$"
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
    return True if _is_training_flag(dotted_name(test)) else None


def _is_training_flag(name: str | None) -> bool:
    """``self.training``, or a submodule's (``self.hm_head.training``): the export puts every
    module of the model in eval mode."""
    return name is not None and name.startswith("self.") and name.endswith(".training")


def _not_training(test: cst.BaseExpression) -> bool:
    """``not self.training`` / ``not training`` / ``test_mode`` (mmdet's flag for inference),
    alone or as one side of an ``or``."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
        return _not_training(test.left) or _not_training(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        name = dotted_name(test.expression)
        return name == "training" or _is_training_flag(name)
    return dotted_name(test) in ("test_mode", "self.test_mode")


def _returns_early_unless_training(statement: cst.CSTNode) -> bool:
    """``if not self.training: return x`` or ``if test_mode: return x`` (no ``else``): what
    follows runs only in training."""
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


#: Box coders (``DeltaXYWHBBoxCoder``, torchvision's ``BoxCoder``) ``encode`` ground truth into
#: training targets; only their ``decode`` runs at inference.
_CODER_CLASS = re.compile(r"^.*Coder$")
_TARGET_ENCODER = re.compile(r"^encode(?:_.*)?$")


def method_is_model_code(cls: cst.ClassDef, name: str) -> bool:
    """Whether method ``name`` of ``cls`` can run in an export, by the two names alone
    (a box coder's ``encode`` cannot), on top of :func:`function_is_model_code`."""
    if _TARGET_ENCODER.match(name) and _CODER_CLASS.match(cls.name.value):
        return False
    if name == "backward" and is_autograd_function(cls):
        return False  # an export runs an autograd Function's forward (or its symbolic), never its backward
    return function_is_model_code(name)


def is_autograd_function(cls: cst.ClassDef) -> bool:
    """A ``torch.autograd.Function`` subclass (``Function``, ``autograd.Function``...), by its bases' names."""
    return any(base.keyword is None and (dotted_name(base.value) or "") in _AUTOGRAD_FUNCTION for base in cls.bases)


_AUTOGRAD_FUNCTION = frozenset({"Function", "autograd.Function", "torch.autograd.Function",
                                "torch.autograd.function.Function", "InplaceFunction"})


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


def _record_callers(body: cst.CSTNode, where: object, callers: dict[str, set[object]], reference,
                    bare_names: bool) -> None:
    """Add ``where`` to ``callers[name]`` for each reference to a tracked name in ``body``.

    ``reference(node)`` gives the tracked name ``node`` refers to (None: none). A called
    reference runs where the call does. For ``self.<method>`` references, one handed to a
    call (``multi_apply(self.loss_single, ...)``) does too, and any other use (stored,
    returned) may run it later, anywhere, so it counts as model code. With ``bare_names``
    (functions referred to by a plain name), one handed to a call counts as model code (the
    callee may keep it: ``fn=gen``), and any other use is taken for a local variable of the
    same name and not counted. Code the traversal skips (``if self.training:`` bodies, what
    follows ``if not self.training: return``) calls as non-model code.
    """
    called: set[int] = set()
    passed: set[int] = set()
    stack: list[tuple[cst.CSTNode, object]] = [(body, where)]
    while stack:
        node, context = stack.pop()
        kind = type(node)
        if kind is cst.Call:
            called.add(id(node.func))
            passed.update(id(arg.value) for arg in node.args)
        else:
            name = reference(node)
            if name is not None:
                if id(node) in called:
                    callers[name].add(context)
                elif id(node) in passed:
                    callers[name].add(_RUN if bare_names else context)
                elif not bare_names:
                    callers[name].add(_RUN)
        skipped = skipped_in(node) if kind in (cst.If, cst.IndentedBlock) else ()
        for child in children(node):
            stack.append((child, _BUILD if any(child is s for s in skipped) else context))


def build_time_functions(module: cst.Module, candidates: dict[str, cst.FunctionDef]) -> set[str]:
    """The ``candidates`` (top-level functions, by name) that run only while things are built.

    A candidate qualifies when something in the file calls it and every caller is code that
    is not model code, ``__init__``-like construction, module-level code, or another function
    of the file that qualifies (whether or not it is a candidate itself). Used as a value
    (``fn=gen``), or never called in the file (an API other files may call), a function
    stays model code.
    """
    callers: dict[str, set[object]] = {name: set() for name in candidates}
    callers.update((statement.name.value, set()) for statement in module.body
                   if type(statement) is cst.FunctionDef)

    def function_named(node: cst.CSTNode) -> str | None:
        return node.value if type(node) is cst.Name and node.value in callers else None

    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            name = statement.name.value
            where = ("function", name) if function_is_model_code(name) else _BUILD
            _record_callers(statement.body, where, callers, function_named, True)
        elif type(statement) is cst.ClassDef:
            model_class = class_is_model_code(statement)
            for item in statement.body.body:
                if type(item) is cst.FunctionDef:
                    method = item.name.value
                    run = (model_class and method_is_model_code(statement, method)
                           and not _BUILD_METHOD.match(method))
                    _record_callers(item.body, _RUN if run else _BUILD, callers, function_named, True)
                else:
                    _record_callers(item, _BUILD, callers, function_named, True)
        else:
            _record_callers(statement, _BUILD, callers, function_named, True)

    return _called_only_while_building(callers) & candidates.keys()


def build_time_methods(cls: cst.ClassDef, candidates: set[str]) -> set[str]:
    """The ``candidates`` (methods of ``cls``) that only construction or non-model methods
    call as ``self.<name>(...)``, directly or through other methods of the class that
    qualify (``subsample`` called only by ``select_training_samples``; ``dynamic_k_matching``
    called only by ``get_assignments``, called only by ``get_losses``; a buffer filler
    called only by ``__init__``), or that only code under ``if self.training:`` calls. A
    method handed to a call (``multi_apply(self.loss_single, ...)``) runs where that call
    does; one stored (``self.forward = self.forward_fast`` in ``__init__``) runs later, and
    stays model code."""
    # `state_dict` too: the TorchScript exporter calls it itself (`torch.jit._trace._unique_state_dict`), however
    # much else of the class calls it only from checkpoint saving (neuraloperator's `save_checkpoint`, TRT377).
    entry_points = ("forward", "__call__", "state_dict")
    methods = [item for item in cls.body.body if type(item) is cst.FunctionDef]
    callers: dict[str, set[object]] = {
        name: set() for name in {*candidates, *(m.name.value for m in methods)} if name not in entry_points
    }
    if not candidates.intersection(callers):
        return set()

    def method_named(node: cst.CSTNode) -> str | None:
        if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self" \
                and node.attr.value in callers:
            return node.attr.value
        return None

    not_model = {m.name.value for m in methods if not method_is_model_code(cls, m.name.value)}
    for item in methods:
        method = item.name.value
        where: object = _BUILD if _BUILD_METHOD.match(method) or method in not_model else ("method", method)
        _record_callers(item.body, where, callers, method_named, False)
    return (_called_only_while_building(callers) | not_model) & candidates


class ModelCode(Provider):
    """Provider: which of the file's functions and methods are model code, beyond what the
    traversal already skips (:func:`definition_is_model_code`, :func:`skipped_in`): those
    only construction or non-model code calls (:func:`build_time_functions`,
    :func:`build_time_methods`). The engine asks it once per pass, for the functions that
    hold findings only (the call graph costs a walk of the module)."""

    def without_build_time(self, pending: list[PendingFinding]) -> list[PendingFinding]:
        """Drop findings in functions and methods that only construction or non-model code calls."""
        module = self.context.module
        top = {id(statement) for statement in module.body}
        candidates = {
            p.scopes[0].name.value: p.scopes[0] for p in pending
            if p.scopes and type(p.scopes[0]) is cst.FunctionDef and id(p.scopes[0]) in top
        }
        dropped: set[int] = set()
        if candidates:
            excluded = build_time_functions(module, candidates)
            dropped |= {id(node) for name, node in candidates.items() if name in excluded}
        methods: dict[int, tuple[cst.ClassDef, set[str]]] = {}
        for p in pending:
            if len(p.scopes) > 1 and type(p.scopes[0]) is cst.ClassDef and type(p.scopes[1]) is cst.FunctionDef:
                methods.setdefault(id(p.scopes[0]), (p.scopes[0], set()))[1].add(p.scopes[1].name.value)
        for cls, names in methods.values():
            excluded = build_time_methods(cls, names)
            dropped |= {id(item) for item in cls.body.body
                        if type(item) is cst.FunctionDef and item.name.value in excluded}
        if not dropped:
            return pending
        return [p for p in pending if not any(id(scope) in dropped for scope in p.scopes[:2])]


# --- callers a recorded run saw ------------------------------------------------------------------


def unobserved_caller(module: cst.Module, function: cst.FunctionDef, ran, line) -> str | None:
    """Why a caller of ``function`` may hand it what a recorded run never saw, or None when the
    file's static call graph shows only observed code calls it.

    A fact observed inside ``function`` (``len``'s argument was a tensor) speaks for the calls
    the run made, not for every caller. It holds for all of them when each reference to the
    function in the file is a call that ran (``ran(node)``), made from a module's ``forward``
    (called by the model itself) or from a function whose own callers pass this test. Only
    top-level functions and methods of top-level classes are followed, and only private ones
    (``_name``) and ``forward``: another file may import a public name and call it from code
    the run never reached. ``line(node)`` gives a node's line for the answer.
    """
    owners = {id(item): statement for statement in module.body if type(statement) is cst.ClassDef
              for item in statement.body.body if type(item) is cst.FunctionDef}
    followed = set(owners) | {id(statement) for statement in module.body if type(statement) is cst.FunctionDef}
    return _unseen(module, function, owners, followed, ran, line, set())


def _unseen(module, function, owners, followed, ran, line, visiting: set[int]) -> str | None:
    if id(function) in visiting:
        return None  # a recursive call: its other callers decide
    visiting.add(id(function))
    name = function.name.value
    if id(function) not in followed:
        return f"`{name}` is a nested function, whose callers the call graph does not follow"
    if name != "forward" and not name.startswith("_"):
        return f"`{name}` is public: files the observed run never reached may import and call it"
    for node, called, caller in _references(module, name, owners.get(id(function)), followed):
        where = line(node)
        if caller is None:
            return f"`{name}` is used at line {where}, outside the functions the call graph follows"
        if not called:
            return f"`{name}` is used as a value at line {where}, to be called from anywhere"
        if ran(node) is not True:
            return f"`{name}` is also called at line {where}, which the observed run never reached"
        if caller.name.value == "forward" and id(caller) in owners:
            continue  # the model calls it: the observed calls
        why = _unseen(module, caller, owners, followed, ran, line, visiting)
        if why is not None:
            return why
    return None


def _references(module: cst.Module, name: str, owner: cst.ClassDef | None, followed: set[int]):
    """``(node, called, caller)`` for each reference to the top-level function ``name`` (a
    plain name) or, with ``owner``, to that class's method (``self.<name>`` in its methods; any
    other ``<x>.<name>`` counts with no caller): ``called`` when it is a call's function,
    ``caller`` the followed function it is in (None outside them)."""
    found = []
    stack: list[tuple[cst.CSTNode, cst.FunctionDef | None, frozenset[int]]] = [(module, None, frozenset())]
    while stack:
        node, caller, called = stack.pop()
        kind = type(node)
        if kind is cst.Call:
            called = called | {id(node.func)}
        if owner is None and kind is cst.Name and node.value == name:
            found.append((node, id(node) in called, caller))
        elif owner is not None and kind is cst.Attribute and node.attr.value == name:
            mine = type(node.value) is cst.Name and node.value.value == "self" and caller is not None \
                and any(item is caller for item in owner.body.body)
            found.append((node, id(node) in called, caller if mine else None))
        if kind is cst.FunctionDef:
            parts: list[cst.CSTNode] = [node.body, *node.decorators, node.params]  # not its own name
            if caller is None and id(node) in followed:
                caller = node
        elif kind is cst.Attribute or kind is cst.Arg:
            parts = [node.value]  # `obj.name`'s attribute and a keyword's name refer to no function
        elif kind is cst.Param:
            parts = [part for part in (node.annotation, node.default) if part is not None]
        else:
            parts = children(node)
        stack.extend((child, caller, called) for child in parts)
    return found
