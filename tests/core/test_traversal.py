"""The read-only traversal every rule rides on, and what a pass leaves behind.

``children`` is generated per node type from LibCST's field annotations; it must list
exactly what the plain field-by-field reading lists, for every kind of node. And a pass
must leave no reference cycle holding the parsed module: without one, a file's tree is
freed as soon as the pass returns, instead of piling up until a full garbage collection.
"""

from __future__ import annotations

import dataclasses
import gc
import inspect

import libcst as cst
import pytest

from trtcodemod.astutil import children, not_variables, reference_children, variable_names, walk
from trtcodemod.engine import Options, check_source, fix_source
from support import REPO


#: Every statement and expression form Python 3.11 has (and a few that are 3.12+).
EVERY_FORM = '''\
"""Docstring."""
from __future__ import annotations
import os.path as osp, sys
from . import sibling
from ..pkg.mod import (a as b, c)
from torch import *
x: int = 1
y = z = (1, *[2, 3], {4: 5, **{}}, {6, 7}, ...)
w = [i for i in range(3) if i] + [j async for j in k] if x else None
v = {k: v for k, v in d.items()}; s = {i for i in ()}; g = (i for i in ())
x += 1; x @= m; del y, z[0], a.b
assert x, "message"
lambda a, /, b=1, *c, d, e=2, **f: (a, b)
t = a[1:2, ::3, ...][0] if b else c.d.e(f, *g, key=h, **i)
u = not a and b or c < d <= e != f is not g in h not in i
n = -a + ~b ** c // d % e << f >> g & h | i ^ j
f"{a!r:>{width}} {b=} {{literal}}" "concat" 'more'
r = (b"bytes" rb"raw", 0x1F, 1_000, 1.5e-3, 2j)
(q := 5)
print(*a, sep="")
global_value = 0


@decorator
@decorator.with_args(1)
class C(Base, metaclass=Meta):
    attribute: int
    def method(self, a: int = 1, *args: str, b: float, **kwargs) -> None:
        global global_value
        def inner():
            nonlocal a
            a = 2
        return None


async def coroutine(a, /, b):
    async with ctx() as (p, q), other:
        await thing
    async for item in stream:
        yield item
    yield from ()


def control(value, *, keyword_only):
    if value: pass
    if value:
        pass
    elif other:
        pass
    else:
        pass
    for index, item in enumerate(value):
        continue
    else:
        pass
    while True:
        break
    else:
        pass
    try:
        raise ValueError("x") from None
    except (ValueError, TypeError) as error:
        pass
    except Exception:
        pass
    else:
        pass
    finally:
        pass
    with open(path) as handle, lock:
        pass
    match value:
        case [1, 2, *rest] if rest:
            pass
        case {"key": inner, **others}:
            pass
        case Point(x=0, y=yy) | Point(1, 2) as found:
            pass
        case str() | None | -1 | 1 + 2j:
            pass
        case (1, 2):
            pass
        case _:
            pass
'''

PY312_FORMS = '''\
type Alias[T] = list[T]
def generic[T: int, *Ts, **P](value: T) -> T:
    return value
class Box[T]:
    pass
try:
    pass
except* ValueError:
    pass
'''


def _same_children(module: cst.Module) -> set[type]:
    seen: set[type] = set()
    for node in walk(module):
        expected = reference_children(node)
        found = children(node)
        assert len(found) == len(expected) and all(a is b for a, b in zip(found, expected)), type(node).__name__
        seen.add(type(node))
    return seen


def test_children_match_the_field_by_field_reading_on_every_form() -> None:
    seen = _same_children(cst.parse_module(EVERY_FORM))
    seen |= _same_children(cst.parse_module(PY312_FORMS, config=cst.PartialParserConfig(python_version="3.12")))
    assert len(seen) >= 107  # the sample covers most node types, not just a few


def test_children_match_on_the_shipped_sources() -> None:
    for path in sorted((REPO / "examples").rglob("*.py")) + sorted((REPO / "trtcodemod").rglob("*.py")):
        _same_children(cst.parse_module(path.read_bytes()))


def _node_types() -> list[type]:
    return [
        kind for kind in vars(cst).values()
        if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and dataclasses.is_dataclass(kind)
        and not inspect.isabstract(kind)
    ]


@pytest.mark.parametrize("kind", _node_types(), ids=lambda kind: kind.__name__)
def test_every_node_type_gets_a_children_function(kind: type) -> None:
    """Types the samples above never produce still get valid code (generated on first use)."""
    from trtcodemod.astutil import _children_function

    assert callable(_children_function(kind))


def test_children_is_a_new_list_each_time() -> None:
    """Callers reverse and filter what they get."""
    call = cst.parse_expression("f(a, b)")
    first = children(call)
    first.reverse()
    assert [type(n).__name__ for n in children(call)] == ["Name", "Arg", "Arg"]


def _leftover_objects(run) -> list[object]:
    """Objects of LibCST or of ours that only the cycle collector would free after ``run``."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return [
            item for item in gc.garbage
            if type(item).__module__.startswith(("libcst", "trtcodemod"))
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("name", ["detection_postprocess.py", "tracker_update.py", "legacy_ops.py",
                                  "bev_decoder.py"])
def test_a_pass_leaves_no_reference_cycle(name: str) -> None:
    source = (REPO / "examples" / name).read_bytes()
    options = Options(select=("ALL",), unsafe=True)
    assert check_source(source, name, options)  # the rules really ran and found something

    def run() -> None:
        check_source(source, name, options)
        check_source(source, name, Options(select=("ALL",), scope="all"))
        assert fix_source(source, name, options).changed

    leftovers = _leftover_objects(run)
    kinds = sorted({type(item).__qualname__ for item in leftovers})
    assert not leftovers, f"{len(leftovers)} objects in reference cycles: {kinds[:12]}"


def test_concrete_node_classes_have_no_subclasses() -> None:
    """The code tests `type(node) is cst.Call` rather than `isinstance` (an ABC check, five
    times slower): the same answer only while LibCST's concrete node classes stay final."""
    concrete = [kind for kind in _node_types() if not kind.__name__.startswith("Base")]
    assert len(concrete) > 150
    assert [kind.__name__ for kind in concrete if kind.__subclasses__()] == []


@pytest.mark.parametrize("code, expected", [
    ("torch.fft.rfft2(x, dim=(-2, -1))", {"torch", "x"}),  # the attribute and keyword names are not variables
    ("f(fft=fft)", {"f", "fft"}),  # the keyword's value is the variable of that name
    ("self.weight * weight", {"self", "weight"}),
    ("[a.b for a in items if c(key=a)]", {"a", "items", "c"}),
    ("1 + 2", set()),
])
def test_variable_names_leave_out_attribute_and_keyword_names(code: str, expected: set[str]) -> None:
    assert variable_names(cst.parse_expression(code)) == expected


def test_not_variables_holds_the_ids_of_the_names_left_out() -> None:
    node = cst.parse_expression("a.b(c=d)")
    names = {n.value: id(n) for n in walk(node) if type(n) is cst.Name}
    assert not_variables(node) == {names["b"], names["c"]}
