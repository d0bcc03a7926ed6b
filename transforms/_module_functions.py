"""Functions defined at module level in the file being read: which one a name calls, and its body.

A rule that reads a called function's body to judge its result (TRT360's row functions, TRT203's new tensors)
first needs the one definition the name refers to wherever the module runs: a single undecorated ``def`` at
module level that no other module-level statement binds again.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, walk


def binds_at_module_level(statement: cst.BaseStatement, name: str) -> bool:
    """Does a module-level statement (not a function's definition) bind ``name`` in the module: an assignment, a
    ``for`` or ``with`` target, an import, a class of that name? A class's body binds its own attributes, and a read
    (``box = corners(p)`` in a method) binds nothing."""
    if type(statement) is cst.ClassDef:
        return statement.name.value == name
    for node in walk(statement):
        if type(node) in (cst.FunctionDef, cst.ClassDef) and node.name.value == name:
            return True  # under an `if` or `try` (or a class's own body, which binds nothing: conservative)
        if type(node) in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.AsName, cst.NamedExpr):
            target = node.name if type(node) is cst.AsName else node.target
            if any(type(n) is cst.Name and n.value == name for n in walk(target)):
                return True
        if type(node) is cst.ImportAlias and node.asname is None \
                and code_of(node.name).strip().split(".")[0] == name:
            return True
    return False


def file_function(module: cst.Module, name: str) -> cst.FunctionDef | None:
    """The one undecorated module-level ``def name`` with an indented body, bound nowhere else at module level."""
    found = [s for s in module.body if type(s) is cst.FunctionDef and s.name.value == name]
    if len(found) != 1 or found[0].decorators or type(found[0].body) is not cst.IndentedBlock \
            or any(type(s) is not cst.FunctionDef and binds_at_module_level(s, name) for s in module.body):
        return None
    return found[0]


def body_statements(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    """``function``'s statements, its docstring (a lone string expression) left out."""
    return [s for s in function.body.body if not (type(s) is cst.SimpleStatementLine and len(s.body) == 1
                                                   and type(s.body[0]) is cst.Expr
                                                   and type(s.body[0].value) is cst.SimpleString)]
