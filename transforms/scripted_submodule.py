"""A submodule built as ``torch.jit.script(Module(...))`` in ``__init__`` (TRT386): neither exporter takes it.

rl-games 1.6.5 builds its observation and value normalisers as scripted submodules (``rl_games/algos_torch/
models.py:47-52``: ``self.running_mean_std = torch.jit.script(RunningMeanStd(obs_shape))``) and calls them in
forward. The TorchScript exporter stops where forward calls such a module ("Tried to trace <__torch__.X object at
0x...> but it is not part of the active trace"), and ``torch.export`` (the dynamo exporter) cannot trace a
ScriptModule. The same model with the plain module exports with both. The rewrite keeps the argument, the module
itself, in place of its scripted copy: unsafe, since the stored object is then no ScriptModule.
"""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

from trtcodemod.astutil import code_of, short_code, walk
from trtcodemod.names import dotted_name
from trtcodemod.module_files import is_module_subclass
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled

RULE = "TRT386"
_SCRIPT = ("torch.jit.script", "torch.jit._script.script")
#: torch's containers whose constructor arguments hold modules (a list, a tuple, a comprehension, a dict's values).
_CONTAINERS = ("torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict",
               "torch.nn.modules.container.ModuleList", "torch.nn.modules.container.Sequential",
               "torch.nn.modules.container.ModuleDict")
#: ``torch.nn`` names that are no module class, though capitalised.
_NOT_MODULES = ("Parameter", "ParameterList", "ParameterDict", "UninitializedParameter", "UninitializedBuffer",
                "Buffer")
_NOT_MODULE_PACKAGES = ("torch.nn.functional.", "torch.nn.init.", "torch.nn.utils.", "torch.nn.parameter.",
                        "torch.nn.parallel.", "torch.nn.attention.")
#: What only a ScriptModule has: a file that reads one of these from the attribute keeps its ``torch.jit.script``.
_SCRIPT_API = ("code", "graph", "inlined_graph", "code_with_constants", "save", "_c", "original_name", "define",
               "_save_for_lite_interpreter", "_save_to_buffer_for_lite_interpreter")


class ScriptedSubmodule(Rule):
    needs_text = spelled(*_SCRIPT)
    info = RuleInfo(
        id=RULE,
        name="scripted-submodule",
        summary="`self.x = torch.jit.script(Module(...))` in `__init__` (rl-games' running mean/std normalisers) stops "
                "the TorchScript export where forward calls it and `torch.export` cannot trace it; keep the module "
                "unscripted",
        doc="""\
What it finds: `torch.jit.script(<module>)`, however the file imports `torch`, `torch.jit` or `script`, whose one
argument is visibly a new `nn.Module` instance: a call of a class that the file defines (or imports by name from
the user's code) as a subclass of `nn.Module`, or of one of `torch.nn`'s layers (`nn.Linear(...)`), in a class's
`__init__`, stored as `self.<name>` (`self.running_mean_std = torch.jit.script(RunningMeanStd(obs_shape))`), inside an
`nn.ModuleList`/`nn.Sequential`/`nn.ModuleDict` built there (in a list, a tuple, a comprehension or a dict's values),
or appended to `self.<name>`; also an attribute or a local name that this `__init__` binds to such a module and to
nothing else but its script (SAM 2's `SAM2Transforms`: `self.transforms = nn.Sequential(Resize(...), Normalize(...))`,
then `if not disable_torch_jit: self.transforms = torch.jit.script(self.transforms)`, which becomes
`self.transforms = self.transforms`; `m = Net()` then `self.m = torch.jit.script(m)`). rl-games 1.6.5 builds its observation and value normalisers this way
(`rl_games/algos_torch/models.py:47-52`) and calls them in forward (`norm_obs`: `with torch.no_grad(): return
self.running_mean_std(observation)`). Not taken: a scripted function (TRT105's), a lambda, a module built elsewhere
(a parameter, a name bound to anything else too), a call of a factory function, a script of the whole model outside a
module's `__init__`, `torch.jit.script` with more arguments (`example_inputs=`); and a file that reads the
attribute's TorchScript API (`self.<name>.code`, `.graph`, `.save(...)`) is reported without a fix.

Why it hurts: the TorchScript exporter (`torch.onnx.export(..., dynamo=False)`) traces the model in Python, and a
ScriptModule it meets is called as compiled code that the trace does not hold: "RuntimeError: Tried to trace
<__torch__.RunningMeanStd object at 0x...> but it is not part of the active trace. Modules that are called during a
trace must be registered as submodules of the thing being traced" (torch 2.13; the module is registered, but as a
ScriptModule), at the line of forward that calls it. The dynamo exporter (`dynamo=True`) fails in `torch.export`,
which cannot trace a ScriptModule. No ONNX file is written by either. The plain module exports with both.

The rewrite: `torch.jit.script(RunningMeanStd(obs_shape))` → `RunningMeanStd(obs_shape)`: the argument itself. The
module's forward then runs as the Python it was compiled from; exported, it is traced like the rest of the model. A
scripted model (`torch.jit.script(model)`) still compiles it, as a submodule.

Fix safety: unsafe. The Python the module's forward runs is the code TorchScript compiled, and on CPU without
fusion it runs the same kernels (rl-games' RunningMeanStd, in training mode and eval mode, gives the same bits and
the same buffers as its scripted copy, checked with torch 2.13), but the program is not the same: the attribute's
type is the module's class, not `RecursiveScriptModule` (an `isinstance(m, torch.jit.ScriptModule)` test changes);
an `assert` or `raise` inside it raises Python's exception (`AssertionError`, `ValueError`) where the compiled module
raised `torch.jit.Error`, which is no subclass of either (an operator's own error is a `RuntimeError` in both);
TorchScript types an unannotated argument as a Tensor and an `int` as 64 bits, so the compiled module refuses a
Python number where a Tensor was typed (a `RuntimeError`) that the Python one takes, and an integer that wraps
there does not in Python; gradients through it come from eager autograd instead of TorchScript's autodiff, which sums
in another order (Bandit's scripted residual blocks: input gradients differ in the last float32 bits, outputs do not);
the TorchScript API (`.code`, `.graph`, `.save`) is gone; on CUDA the profiling executor may fuse element-wise ops into kernels whose rounding differs; and the speed
changes (the RunningMeanStd above costs 86 us a call in eager mode against 66 us scripted, on a CPU, batch 1, torch
2.13: 30% slower, past the 10% a safe fix allows). The assumption: the module's forward computes in eager mode
what TorchScript compiled, for the inputs the model gives it, and nothing reads the scripted module's TorchScript
API or its type. `migrate` applies it as a candidate at a located export failure (the line that calls the module,
linked to its construction in `__init__`) and keeps it only when the rewritten model is verified equivalent.

Why not a safe helper that scripts as before and runs the eager module only while exporting: the object stored must
stay the ScriptModule for the program to be the same (its type, its TorchScript API, `torch.jit.save` of the
model), and a ScriptModule's forward cannot be swapped for Python. An eager twin kept beside it shares its
parameters but not its buffers once a training-mode forward rebinds them (`self.running_mean = new_mean`: the
compiled module writes its own copy, the twin keeps the old tensor), so the twin would export stale statistics; and
the module's Python forward run with the ScriptModule as `self` calls its compiled methods (RunningMeanStd's
`_update_mean_var_count_from_moments`), which stop the trace with the same error.

TensorRT versions: all (nothing of the graph changes but that it exists).""",
        fix=Safety.UNSAFE,
        assumption="the module's forward computes in eager mode what TorchScript compiled for the inputs the model "
                   "gives it (no TorchScript-only typing, integer width or fused rounding matters), and nothing "
                   "reads the scripted module's type or TorchScript API (`.code`, `.graph`, `save`)",
        fails_when=("an `isinstance(..., torch.jit.ScriptModule)` test, or code catching the `torch.jit.Error` an "
                    "`assert` or `raise` inside the compiled module raised",
                    "`torch.jit.save` or `.code`/`.graph` of the submodule reached through another name",
                    "an unannotated argument the compiled forward types as a Tensor given a Python number, or an "
                    "integer past 64 bits (TorchScript's `int` wraps, Python's does not)",
                    "element-wise ops the CUDA profiling executor fuses, whose rounding differs from eager kernels",
                    "gradients, which TorchScript's autodiff summed in another order (float32 rounding)",
                    "a hot module whose eager call is slower than the compiled one (30% for a small normaliser)"),
        examples=(
            Example(
                "import torch\n"
                "from torch import nn\n\n"
                "class RunningMeanStd(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x\n\n"
                "class Model(nn.Module):\n"
                "    def __init__(self, n):\n"
                "        super().__init__()\n"
                "        self.running_mean_std = torch.jit.script(RunningMeanStd())\n",
                "import torch\n"
                "from torch import nn\n\n"
                "class RunningMeanStd(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x\n\n"
                "class Model(nn.Module):\n"
                "    def __init__(self, n):\n"
                "        super().__init__()\n"
                "        self.running_mean_std = RunningMeanStd()\n",
                unsafe=True,
            ),
            Example(
                "import torch.nn as nn\n"
                "from torch.jit import script\n\n"
                "class Head(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.layers = nn.ModuleList([script(nn.Linear(4, 4)) for _ in range(3)])\n",
                "import torch.nn as nn\n"
                "from torch.jit import script\n\n"
                "class Head(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])\n",
                unsafe=True,
            ),
            Example(
                "import torch\n"
                "from torch import nn\n\n"
                "class Norm(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x / x.norm()\n\n"
                "class Model(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.norm = torch.jit.script(Norm())\n\n"
                "    def graph_of_norm(self):\n"
                "        return self.norm.graph\n"
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.jit.script.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://github.com/Denys88/rl_games/blob/master/rl_games/algos_torch/models.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._module_classes: set[str] = set()
        self._source = (context.source or b"").decode("utf-8", "replace")

    # --- which classes are modules -------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        classes = [s for s in node.body if type(s) is cst.ClassDef]
        changed = True
        while changed:  # a class deriving from another of the file's module classes, in any order
            changed = False
            for cls in classes:
                if cls.name.value not in self._module_classes and self._derives_from_module(cls):
                    self._module_classes.add(cls.name.value)
                    changed = True

    def _derives_from_module(self, cls: cst.ClassDef) -> bool:
        for base in cls.bases:
            if base.keyword is not None:
                continue
            value = base.value
            if any(self._torch_module_class(q) or q.startswith("torch.nn.") and q.endswith("Module")
                   for q in self.context.qualified_names(value)):
                return True
            if type(value) is cst.Name and (value.value in self._module_classes or self._imported_module(value.value)):
                return True
            dotted = dotted_name(value)
            if dotted in ("nn.Module", "torch.nn.Module"):
                return True
        return False

    def _imported_module(self, name: str) -> bool:
        """A class imported by name from the user's code that derives from ``nn.Module``."""
        path = getattr(self.context, "path", None)
        if not path or not self.context.qualified_names(cst.Name(name)):
            return False
        return is_module_subclass(Path(path), name, self.context.source)

    @staticmethod
    def _torch_module_class(qualified: str) -> bool:
        if not qualified.startswith("torch.nn.") or qualified.startswith(_NOT_MODULE_PACKAGES):
            return False
        last = qualified.rsplit(".", 1)[-1]
        return last[:1].isupper() and last not in _NOT_MODULES

    def _module_instance(self, value: cst.BaseExpression) -> bool:
        """Is ``value`` visibly a new module: a call of a module class, by its code?"""
        if type(value) is not cst.Call:
            return False
        func = value.func
        if any(self._torch_module_class(q) for q in self.context.qualified_names(func)):
            return True
        if type(func) is not cst.Name:
            return False
        if func.value in self._module_classes:
            # The file's own class, unless a local name or an import shadows it here.
            return not self.context.qualified_names(func)
        return self._imported_module(func.value)

    # --- where the scripted module is stored ---------------------------------------------
    def _in_init(self) -> str | None:
        """The name of ``self`` when the traversal is in a class's ``__init__``."""
        function = self.context.function
        if self.context.enclosing_class is None or function is None or function.name.value != "__init__":
            return None
        params = function.params.params
        return params[0].name.value if params else None

    def _script_of_module(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The module ``node`` scripts, where ``node`` is ``torch.jit.script(<module instance>)``."""
        if type(node) is not cst.Call or self.context.refers_to(node.func, *_SCRIPT) is None:
            return None
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return None
        argument = node.args[0].value
        return argument if self._module_instance(argument) or self._built_here(argument) is not None else None

    def _built_here(self, argument: cst.BaseExpression) -> cst.BaseExpression | None:
        """``self.transforms`` (or a local name) that this ``__init__`` binds to a new module and to nothing else but
        its script (SAM 2's ``SAM2Transforms``: ``self.transforms = nn.Sequential(Resize(...), Normalize(...))``, then
        ``if not disable_torch_jit: self.transforms = torch.jit.script(self.transforms)``)."""
        function = self.context.function
        if self._in_init() is None or function is None or type(argument) not in (cst.Name, cst.Attribute):
            return None
        spelled = code_of(argument).strip()
        values = [n.value for n in walk(function) if type(n) is cst.Assign and len(n.targets) == 1
                  and code_of(n.targets[0].target).strip() == spelled]
        built = [v for v in values if self._module_instance(v)]
        scripts = [v for v in values if type(v) is cst.Call and self.context.refers_to(v.func, *_SCRIPT) is not None
                   and len(v.args) == 1 and code_of(v.args[0].value).strip() == spelled]
        return built[0] if len(built) == 1 and len(built) + len(scripts) == len(values) else None

    def _scripts_in_container(self, node: cst.BaseExpression) -> list[cst.Call]:
        """The module scripts among the modules an ``nn.ModuleList``/``Sequential``/``ModuleDict`` call is given."""
        if type(node) is not cst.Call or self.context.refers_to(node.func, *_CONTAINERS) is None:
            return []
        found: list[cst.Call] = []
        for arg in node.args:
            found.extend(self._scripts_among(arg.value))
        return found

    def _scripts_among(self, value: cst.BaseExpression) -> list[cst.Call]:
        if self._script_of_module(value) is not None:
            return [value]  # type: ignore[list-item]
        kind = type(value)
        if kind in (cst.List, cst.Tuple):
            return [s for e in value.elements if type(e) is cst.Element for s in self._scripts_among(e.value)]
        if kind in (cst.ListComp, cst.GeneratorExp):
            return self._scripts_among(value.elt)
        if kind is cst.Dict:
            return [s for e in value.elements if type(e) is cst.DictElement for s in self._scripts_among(e.value)]
        if kind is cst.DictComp:
            return self._scripts_among(value.value)
        return []

    @staticmethod
    def _attribute_of(target: cst.BaseExpression, owner: str) -> str | None:
        if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == owner:
            return target.attr.value
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        owner = self._in_init()
        if owner is None or len(node.targets) != 1:
            return
        name = self._attribute_of(node.targets[0].target, owner)
        if name is not None:
            self._stored(name, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        owner = self._in_init()
        if owner is None or node.value is None:
            return
        name = self._attribute_of(node.target, owner)
        if name is not None:
            self._stored(name, node.value)

    def visit_Expr(self, node: cst.Expr) -> None:
        """``self.blocks.append(torch.jit.script(Block()))`` (or ``extend([...])``) in ``__init__``."""
        owner = self._in_init()
        call = node.value
        if owner is None or type(call) is not cst.Call or type(call.func) is not cst.Attribute:
            return
        if call.func.attr.value not in ("append", "extend") or len(call.args) != 1:
            return
        name = self._attribute_of(call.func.value, owner)
        if name is not None:
            self._report(name, self._scripts_among(call.args[0].value))

    def _stored(self, name: str, value: cst.BaseExpression) -> None:
        scripts = [value] if self._script_of_module(value) is not None else self._scripts_in_container(value)
        self._report(name, scripts)  # type: ignore[arg-type]

    def _reads_script_api(self, name: str) -> str | None:
        """The TorchScript attribute the file reads from ``self.<name>`` (or an item of it), if any."""
        pattern = rf"\.{re.escape(name)}(?:\[[^\]\n]*\])?\.({'|'.join(map(re.escape, _SCRIPT_API))})\b"
        match = re.search(pattern, self._source)
        return match.group(1) if match else None

    def _report(self, name: str, scripts: list[cst.Call]) -> None:
        api = self._reads_script_api(name) if scripts else None
        for script in scripts:
            module = script.args[0].value
            built = short_code(module)
            construction = self._built_here(module)
            # The class it builds, named: the export error names the scripted module's class, not this line.
            made = f" (built as `{short_code(construction)}`)" if construction is not None else ""
            if api is not None:
                self.report(script, f"`self.{name}` holds `torch.jit.script({built})`, which the TorchScript "
                            "exporter stops at where forward calls it and `torch.export` cannot trace; the file "
                            f"reads its TorchScript API (`.{api}`), so it is left scripted")
                continue
            self.report(script, f"`self.{name}` holds `torch.jit.script({built})`{made}: the TorchScript exporter stops "
                        "where forward calls it (\"not part of the active trace\") and `torch.export` cannot trace "
                        f"a ScriptModule; `{built}` unscripted exports with both",
                        Fix({script: module}, safety=Safety.UNSAFE))


RULES = (ScriptedSubmodule,)
