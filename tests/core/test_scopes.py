"""Names resolve with Python's scope rules: whatever shadows an imported torch name is not torch.

Each shadowing form comes with an unshadowed twin that differs only in the shadowing
binding, so a test that passes because nothing matches at all cannot hide a broken rule.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
import torch

from support import load, rewrite, rules_found
from trtcodemod.context import FileContext, ScopeTracker
from trtcodemod.engine import Options, check_source
from trtcodemod.scopes import ScopeResolver, scope_bindings, statement_bindings
from trtcodemod.versions import parse_target

PAD = "import torch.nn.functional as F\n"
#: TensorRT target for every check here: old enough that the F.pad rule (TRT501) applies.
#: Name resolution itself does not depend on the target.
TARGET = "8.0"

# (id, rule, shadowed code, unshadowed twin). The twin must be found (and, for safe rules,
# rewritten); the shadowed code must be neither.
CASES = [
    ("parameter", "TRT501",
     PAD + "def f(x, F):\n    return F.pad(x, (1, 1))\n",
     PAD + "def f(x, G):\n    return F.pad(x, (1, 1))\n"),
    ("later-module-def", "TRT301",
     "from torch import atan2\n\ndef yaw(s, c):\n    return atan2(s, c)\n\ndef atan2(s, c):\n    return s\n",
     "from torch import atan2\n\ndef yaw(s, c):\n    return atan2(s, c)\n\ndef atan2_(s, c):\n    return s\n"),
    ("later-module-class", "TRT302",
     "from torch import unique\n\ndef f(x):\n    return unique(x)\n\nclass unique:\n    pass\n",
     "from torch import unique\n\ndef f(x):\n    return unique(x)\n\nclass unique_:\n    pass\n"),
    ("later-module-assignment", "TRT501",
     "from torch.nn.functional import pad\n\ndef f(x):\n    return pad(x, (1, 1))\n\npad = my_pad\n",
     "from torch.nn.functional import pad\n\ndef f(x):\n    return pad(x, (1, 1))\n\npad_ = my_pad\n"),
    ("local-lambda", "TRT302",
     "from torch import unique\n\ndef f(x):\n    unique = lambda x: x\n    return unique(x)\n",
     "from torch import unique\n\ndef f(x):\n    unique_ = lambda x: x\n    return unique(x)\n"),
    ("local-assigned-after-use", "TRT302",
     "from torch import unique\n\ndef f(x):\n    y = unique(x)\n    unique = None\n    return y\n",
     "from torch import unique\n\ndef f(x):\n    y = unique(x)\n    unique_ = None\n    return y\n"),
    ("for-target", "TRT501",
     PAD + "def f(fs, t):\n    for F in fs:\n        t = F.pad(t, (1, 1))\n    return t\n",
     PAD + "def f(fs, t):\n    for G in fs:\n        t = F.pad(t, (1, 1))\n    return t\n"),
    ("with-as", "TRT501",
     PAD + "def f(ctx, t):\n    with ctx as F:\n        return F.pad(t, (1, 1))\n",
     PAD + "def f(ctx, t):\n    with ctx as G:\n        return F.pad(t, (1, 1))\n"),
    ("comprehension", "TRT501",
     PAD + "def f(fs, t):\n    return [F.pad(t, (1, 1)) for F in fs]\n",
     PAD + "def f(fs, t):\n    return [F.pad(t, (1, 1)) for G in fs]\n"),
    ("generator-module-level", "TRT501",
     PAD + "ys = list(F.pad(t, (1, 1)) for F in fs)\n",
     PAD + "ys = list(F.pad(t, (1, 1)) for G in fs)\n"),
    ("dict-comprehension", "TRT302",
     "from torch import unique\n\ndef f(xs):\n    return {k: unique(v) for k, unique in xs}\n",
     "from torch import unique\n\ndef f(xs):\n    return {k: unique(v) for k, v in xs}\n"),
    ("lambda-parameter", "TRT501",
     PAD + "g = lambda t, F: F.pad(t, (1, 1))\n",
     PAD + "g = lambda t, G: F.pad(t, (1, 1))\n"),
    ("except-as", "TRT501",
     PAD + "def f(t):\n    try:\n        t = t + 1\n    except ValueError as F:\n        pass\n"
     "    return F.pad(t, (1, 1))\n",
     PAD + "def f(t):\n    try:\n        t = t + 1\n    except ValueError as G:\n        pass\n"
     "    return F.pad(t, (1, 1))\n"),
    ("walrus", "TRT102",
     "from torch import where\n\ndef f(c, a, b, g):\n    if (where := g) is not None:\n        return where(c, a, b)\n",
     "from torch import where\n\ndef f(c, a, b, g):\n    if (w := g) is not None:\n        return where(c, a, b)\n"),
    ("walrus-after-use", "TRT102",
     "from torch import where\n\ndef f(c, a, b, g):\n    y = where(c, a, b)\n    print(where := g)\n    return y\n",
     "from torch import where\n\ndef f(c, a, b, g):\n    y = where(c, a, b)\n    print(w := g)\n    return y\n"),
    ("walrus-in-comprehension", "TRT102",
     "from torch import where\n\ndef f(c, a, b, gs):\n    [where := g for g in gs]\n    return where(c, a, b)\n",
     "from torch import where\n\ndef f(c, a, b, gs):\n    [w := g for g in gs]\n    return where(c, a, b)\n"),
    ("match-capture", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case F:\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case G:\n            return F.pad(t, (1, 1))\n"),
    ("match-mapping", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case {\"k\": F}:\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case {\"k\": G}:\n            return F.pad(t, (1, 1))\n"),
    ("match-mapping-rest", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case {\"k\": 1, **F}:\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case {\"k\": 1, **G}:\n            return F.pad(t, (1, 1))\n"),
    ("match-sequence", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case [F, *rest]:\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case [G, *rest]:\n            return F.pad(t, (1, 1))\n"),
    ("match-star", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case [first, *F]:\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case [first, *G]:\n            return F.pad(t, (1, 1))\n"),
    ("match-class", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case Point(x=F):\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case Point(x=G):\n            return F.pad(t, (1, 1))\n"),
    ("match-as", "TRT501",
     PAD + "def f(t, v):\n    match v:\n        case [1, 2] as F:\n            return F.pad(t, (1, 1))\n",
     PAD + "def f(t, v):\n    match v:\n        case [1, 2] as G:\n            return F.pad(t, (1, 1))\n"),
    ("global", "TRT501",
     PAD + "def set_backend(m):\n    global F\n    F = m\n\ndef f(t):\n    return F.pad(t, (1, 1))\n",
     PAD + "def set_backend(m):\n    global G\n    G = m\n\ndef f(t):\n    return F.pad(t, (1, 1))\n"),
    ("nonlocal", "TRT501",
     "def f(t, m):\n    import torch.nn.functional as F\n    def swap():\n        nonlocal F\n        F = m\n"
     "    swap()\n    return F.pad(t, (1, 1))\n",
     "def f(t, m):\n    import torch.nn.functional as F\n    G = None\n"
     "    def swap():\n        nonlocal G\n        G = m\n"
     "    swap()\n    return F.pad(t, (1, 1))\n"),
    ("nested-def", "TRT302",
     "from torch import unique\n\ndef f(x):\n    def unique(v):\n        return v\n    return unique(x)\n",
     "from torch import unique\n\ndef f(x):\n    def unique_(v):\n        return v\n    return unique(x)\n"),
    ("nested-class", "TRT302",
     "from torch import unique\n\ndef f(x):\n    class unique:\n        pass\n    return unique(x)\n",
     "from torch import unique\n\ndef f(x):\n    class unique_:\n        pass\n    return unique(x)\n"),
    ("enclosing-function-parameter", "TRT501",
     PAD + "def f(t, F):\n    def g():\n        return F.pad(t, (1, 1))\n    return g()\n",
     PAD + "def f(t, G):\n    def g():\n        return F.pad(t, (1, 1))\n    return g()\n"),
    ("del", "TRT501",
     PAD + "def f(t):\n    del F\n    return F.pad(t, (1, 1))\n",
     PAD + "def f(t, G):\n    del G\n    return F.pad(t, (1, 1))\n"),
    ("class-body-code", "TRT501",
     PAD + "class Cfg:\n    F = None\n    padded = F.pad(t, (1, 1))\n",
     PAD + "class Cfg:\n    G = None\n    padded = F.pad(t, (1, 1))\n"),
    ("relative-import", "TRT501",
     PAD + "from .compat import F\n\ndef f(t):\n    return F.pad(t, (1, 1))\n",
     PAD + "from .compat import G\n\ndef f(t):\n    return F.pad(t, (1, 1))\n"),
    ("module-for-target", "TRT302",
     "from torch import unique\nfor unique in impls:\n    y = unique(x)\n",
     "from torch import unique\nfor impl in impls:\n    y = unique(x)\n"),
]


@pytest.mark.parametrize("name,rule,shadowed,twin", CASES, ids=[c[0] for c in CASES])
def test_shadowed_name_is_not_torch(name: str, rule: str, shadowed: str, twin: str) -> None:
    assert rule not in rules_found(shadowed, target=TARGET)
    assert rewrite(shadowed, unsafe=True, target=TARGET) == shadowed
    assert rule in rules_found(twin, target=TARGET)
    assert rewrite(twin, unsafe=True, target=TARGET) != twin


def test_module_level_rebinding_counts_from_where_it_happens() -> None:
    """Module code runs in order: before `def atan2` the name is torch's, after it the user's."""
    code = "from torch import atan2\n\nbefore = atan2(s, c)\n\ndef atan2(s, c):\n    return s\n\nafter = atan2(s, c)\n"
    after = rewrite(code, target=TARGET)
    assert "before = _trt_atan2(s, c)" in after
    assert "after = atan2(s, c)" in after


def test_class_body_does_not_leak_into_methods() -> None:
    code = PAD + "class Block:\n    F = None\n\n    def forward(self, t):\n        return F.pad(t, (1, 1))\n"
    assert rules_found(code, target=TARGET) == ["TRT501"]


def test_function_scope_import_is_seen_only_there() -> None:
    code = ("def f(t):\n    import torch.nn.functional as F\n    return F.pad(t, (1, 1))\n\n"
            "def g(t):\n    return F.pad(t, (1, 1))\n")
    findings = check_source(code.encode(), "snippet.py", Options(target=TARGET))
    assert [(f.rule, f.line) for f in findings] == [("TRT501", 3)]  # g's F is not the import in f


def test_decorators_defaults_and_annotations_are_resolved_outside() -> None:
    """A method's annotations are evaluated in the class body, which may rebind `Tensor`."""
    shadowed = ("import torch\nfrom torch import Tensor\n\nclass Ops:\n    Tensor = list\n\n"
                "    def count(self, x: Tensor):\n        return len(x)\n")
    assert rewrite(shadowed, target=TARGET) == shadowed
    assert load(rewrite(shadowed, target=TARGET), "Ops")().count([1, 2]) == 2
    # The function's own locals do not affect its annotations: this one is torch's Tensor.
    twin = "import torch\nfrom torch import Tensor\n\ndef count(x: Tensor):\n    Tensor = list\n    return len(x)\n"
    assert "return x.shape[0]" in rewrite(twin, target=TARGET)


def test_ambiguous_import_resolves_to_both_in_a_function_scope() -> None:
    code = ("def f(c, a, b):\n    try:\n        from torch import where\n    except ImportError:\n"
            "        from numpy import where\n    return where(c, a, b)\n")
    assert _names_at(code, "where") == [("numpy.where", "torch.where")]
    assert "TRT102" in rules_found(code, target=TARGET)


def test_an_import_fallback_keeps_the_try_imports_meaning() -> None:
    """``try: from torch... import f`` / ``except ImportError:`` a fallback of the project's own (a relative
    import, a ``def``, an assignment): wherever the import succeeds the name is torch's, so it resolves
    to torch's (timm's ``rms_norm`` in ``timm/layers/norm.py`` and ``norm_act.py``). A handler for other
    exceptions, a rebinding after the ``try``, a fallback for another name, and a ``try`` whose body
    imports the name relatively keep the name unknown, as before."""
    fallbacks = (
        "    from .fast_norm import rms_norm\n",
        "    def rms_norm(x, shape, weight=None, eps=None):\n        return x\n",
        "    rms_norm = None\n",
        "    from functools import partial as rms_norm\n",
    )
    for fallback in fallbacks:
        for handler in ("except ImportError:", "except (ImportError, AttributeError):", "except Exception:",
                        "except:"):
            code = (f"try:\n    from torch.nn.functional import rms_norm\n{handler}\n{fallback}\n\n"
                    "def f(x):\n    return rms_norm(x, (8,))\n")
            names = _names_at(code, "rms_norm")
            assert names and "torch.nn.functional.rms_norm" in names[0], (fallback, handler, names)
            assert "TRT337" in rules_found(code), (fallback, handler)
    unknown = (
        # another exception: the handler's binding runs where the import succeeded
        "try:\n    from torch.nn.functional import rms_norm\nexcept KeyError:\n    from .fast_norm import rms_norm\n",
        # rebound after the try: the later binding is what f sees
        "try:\n    from torch.nn.functional import rms_norm\nexcept ImportError:\n    pass\n"
        "from .fast_norm import rms_norm\n",
        # the try imports the name relatively: nothing of torch's to keep
        "try:\n    from .fast_norm import rms_norm\nexcept ImportError:\n    from .slow_norm import rms_norm\n",
        # the torch import is not in the try: the handler's own import of the name shadows it
        "from torch.nn.functional import rms_norm\ntry:\n    import apex\nexcept ImportError:\n"
        "    from .fast_norm import rms_norm\n",
    )
    for head in unknown:
        code = head + "\n\ndef f(x):\n    return rms_norm(x, (8,))\n"
        assert _names_at(code, "rms_norm") == [()], head
        assert "TRT337" not in rules_found(code), head
    # Other names the handler binds are bound as usual.
    code = ("import torch\ntry:\n    from torch.nn.functional import rms_norm\nexcept ImportError:\n"
            "    from .fast_norm import rms_norm\n    torch = None\n\n"
            "def f(x):\n    return torch.rms_norm(x, (8,))\n")
    assert _names_at(code.replace("torch.rms_norm", "rms_norm"), "rms_norm")[0] == ("torch.nn.functional.rms_norm",)
    assert "TRT337" not in rules_found(code)


def test_torch_name_avoids_a_shadowed_alias() -> None:
    code = textwrap.dedent("""\
        import torch as th
        from torch import nn


        class Shadowed(nn.Module):
            def forward(self, x, th):
                if x.sum() > 0:
                    y = x
                else:
                    y = -x
                return y


        class Plain(nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    y = x
                else:
                    y = -x
                return y
        """)
    after = rewrite(code, unsafe=True, select=("TRT101",), target=TARGET)
    shadowed, plain = after.split("class Plain")
    assert "th." not in shadowed.split("def forward")[1] and "torch.as_tensor" in shadowed
    assert "th.as_tensor" in plain
    assert "\nimport torch\n" in after
    x = torch.tensor([1.0, -2.0])
    for name in ("Shadowed", "Plain"):
        before_model, after_model = load(code, name)(), load(after, name)()
        args = (x, object()) if name == "Shadowed" else (x,)
        assert torch.equal(before_model(*args), after_model(*args))


# --- running code before and after -----------------------------------------------------


def test_shadowed_and_plain_unique_run_the_same() -> None:
    code = textwrap.dedent("""\
        from torch import unique


        def own(x):
            unique = lambda v: v * 2
            return unique(x)


        def theirs(x):
            return unique(x)


        def atan2(a, b):
            return a - b


        def angle(a, b):
            return atan2(a, b)
        """)
    after = rewrite(code, target=TARGET)
    assert "unique = lambda v: v * 2\n    return unique(x)" in after
    assert "return _trt_unique(x)" in after
    assert "return atan2(a, b)" in after
    x = torch.tensor([3, 1, 3, 2])
    for name in ("own", "theirs"):
        assert torch.equal(load(code, name)(x), load(after, name)(x))
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([0.5, 4.0])
    assert torch.equal(load(code, "angle")(a, b), load(after, "angle")(a, b))


def test_pad_parameter_runs_the_users_object() -> None:
    code = textwrap.dedent("""\
        import torch.nn.functional as F


        def mine(x, F):
            return F.pad(x, (1, 1))


        def torchs(x):
            return F.pad(x, (1, 1))
        """)
    after = rewrite(code, target=TARGET)
    assert "return F.pad(x, (1, 1))" in after.split("def torchs")[0]
    assert "F.pad" not in after.split("def torchs")[1]

    class Recorder:
        def pad(self, x, pads):
            return ("recorded", pads)

    x = torch.arange(6.0).reshape(2, 3)
    assert load(code, "mine")(x, Recorder()) == load(after, "mine")(x, Recorder()) == ("recorded", (1, 1))
    assert torch.equal(load(code, "torchs")(x), load(after, "torchs")(x))


# --- TRT704: len(x) of a parameter annotated Tensor --------------------------------------

LEN_WITHHELD = [
    ("match-capture",
     "def f(x: torch.Tensor, v):\n    match v:\n        case [*x]:\n            pass\n    return len(x)\n"),
    ("default-list", "def f(x: torch.Tensor = []):\n    return len(x)\n"),
    ("default-tuple", "def f(x: torch.Tensor = ()):\n    return len(x)\n"),
    ("walrus", "def f(x: torch.Tensor, v):\n    if (x := v):\n        pass\n    return len(x)\n"),
    ("walrus-in-comprehension", "def f(x: torch.Tensor, vs):\n    [x := v for v in vs]\n    return len(x)\n"),
    ("for-target", "def f(x: torch.Tensor, vs):\n    for x in vs:\n        pass\n    return len(x)\n"),
    ("with-as", "def f(x: torch.Tensor, ctx):\n    with ctx as x:\n        return len(x)\n"),
    ("except-as",
     "def f(x: torch.Tensor):\n    try:\n        pass\n    except ValueError as x:\n        pass\n    return len(x)\n"),
    ("del", "def f(x: torch.Tensor):\n    del x\n    return len(x)\n"),
    ("nonlocal",
     "def f(x: torch.Tensor):\n    def g():\n        nonlocal x\n        x = []\n    g()\n    return len(x)\n"),
    ("nested-def-named-x", "def f(x: torch.Tensor):\n    def x():\n        pass\n    return len(x)\n"),
    ("assigned-a-list", "def f(x: torch.Tensor):\n    x = [x]\n    return len(x)\n"),
]


@pytest.mark.parametrize("name,body", LEN_WITHHELD, ids=[c[0] for c in LEN_WITHHELD])
def test_len_fix_withheld_when_the_parameter_may_not_be_a_tensor(name: str, body: str) -> None:
    code = "import torch\n\n" + body
    assert rules_found(code, target=TARGET) == ["TRT704"]  # still reported...
    assert rewrite(code, target=TARGET) == code  # ...without a fix


def test_len_unshadowed_twin_is_rewritten() -> None:
    code = ("import torch\n\ndef f(x: torch.Tensor, v):\n    y = v\n    x = x.flatten(1)\n    x += 1\n"
            "    return len(x)\n")
    assert "return x.shape[0]" in rewrite(code, target=TARGET)


def test_len_none_default_is_rewritten_and_both_forms_raise_on_none() -> None:
    code = "import torch\n\ndef f(x: torch.Tensor = None):\n    return len(x)\n"
    after = rewrite(code, target=TARGET)
    assert "return x.shape[0]" in after
    x = torch.zeros(4, 2)
    assert load(code, "f")(x) == load(after, "f")(x) == 4
    with pytest.raises(TypeError):
        load(code, "f")()
    with pytest.raises(AttributeError):
        load(after, "f")()


def test_len_of_a_nested_functions_own_parameter_is_left_alone() -> None:
    code = textwrap.dedent("""\
        import torch


        def f(x: torch.Tensor):
            count = lambda x: len(x)
            def size(x):
                return len(x)
            return count([1, 2]) + size((1, 2, 3)) + len(x) + sum(len(x) for x in ["ab"])
        """)
    after = rewrite(code, target=TARGET)
    assert "lambda x: len(x)" in after and "return len(x)" in after and 'len(x) for x in ["ab"]' in after
    assert "+ x.shape[0] +" in after
    x = torch.zeros(5, 3)
    assert load(code, "f")(x) == load(after, "f")(x) == 2 + 3 + 5 + 2


def test_len_shadowed_builtin_is_left_alone() -> None:
    code = "import torch\n\ndef len(v):\n    return 0\n\ndef f(x: torch.Tensor):\n    return len(x)\n"
    assert rewrite(code, target=TARGET) == code
    assert "TRT704" not in rules_found(code, target=TARGET)


# --- the shared binding collector -------------------------------------------------------


def test_statement_bindings_kinds() -> None:
    module = cst.parse_module(textwrap.dedent("""\
        def f(a, *b, c=1, **d):
            e = 1
            g: int
            for h, (i, *j) in z:
                pass
            with z as k:
                pass
            try:
                pass
            except E as m:
                pass
            match z:
                case {"x": n, **o} | [n, *o] | P(q=n) as o:
                    pass
            del p
            import torch.nn.functional as F
            from . import rel
            def r(): pass
            class s: pass
            global t
            def inner():
                nonlocal u
            [w for w in z]
            (y := 1)
        """))
    bindings = statement_bindings(module.body[0])
    bound = set(bindings.sites) | bindings.other
    assert bound >= set("abcdeghijkmnoprstu") | {"F", "rel"}
    assert "w" not in bound  # a comprehension's own name
    assert "y" not in bound  # walrus targets are looked for separately
    assert bindings.imports == {"F": {"torch.nn.functional"}}
    assert "F" not in bindings.other and "rel" in bindings.other
    # The full-walk collector (mask evidence) keeps its behaviour: comprehension targets
    # and walrus targets count, declarations without a value do not.
    values = scope_bindings(module.body[0])
    assert {"w", "y"} <= set(values) and "g" not in values and "p" not in values


def _names_at(code: str, name: str) -> list[tuple[str, ...]]:
    """What every load of the bare ``name`` resolves to, in traversal order."""
    module = cst.parse_module(textwrap.dedent(code))
    context = FileContext(path="x.py", module=module, target=parse_target("8.6"), unsafe=False)
    context.imports.add_imports_from(module.body)
    seen: list[tuple[str, ...]] = []

    class Probe(cst.BatchableCSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == name:
                seen.append(context.qualified_names(node.func))

    cst.visit_batched(module, [ScopeTracker(context), Probe()])
    assert isinstance(context.resolver, ScopeResolver)
    return seen


def test_resolution_follows_the_traversal() -> None:
    code = """\
        from torch import where

        a = where(c, x, y)

        class K:
            where = staticmethod(where)
            b = where(c, x, y)

            def m(self):
                return where(c, x, y)

        def f(where):
            g = lambda: where(c, x, y)
            return [where(c, x, y) for where in ws]

        def h():
            return where(c, x, y)
        """
    torch_where = ("torch.where",)
    assert _names_at(code, "where") == [torch_where, (), torch_where, (), (), torch_where]
