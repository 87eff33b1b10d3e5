"""Which calls an interpolated `{expression}` may make: it reads values, it does not act.

A message is text that may have been pasted from elsewhere — a model's reply among others — so braces in
it must not run a command, open a file or import a module: `{__import__('os').system(...)}`,
`{open(...)}`, `{os.remove(...)}` or `{get_ipython().system(...)}` would do that the moment the cell ran,
without the approval a `python` call needs. An expression may call the builtins that only compute
(`len`, `sum`, `sorted`, `str` …) and the methods of the person's own values (`df.head()`); a function of a
module, a class, a function of the namespace, a lambda, a method of the shell, the kernel or mewrk itself
(`get_ipython().system`, a session's `approve`) or a builtin that reaches further (`open`, `eval`, `exec`,
`getattr`, `__import__` …) is refused, and so is handing one to a call that could call it back. So is a
method of a file-system, process or network object of the standard library (`path.unlink()`), one that
changes its value in place (`rows.sort()`, `inplace=True`), and a writer given where to write
(`df.to_csv("x.csv")`, `fig.savefig(…)`); `df.to_csv()` with nothing to write to returns its text. A
method of a class the person wrote is theirs and is called.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import os
import types
from typing import Any

GUARD = "__mewrk_call__"
_COMPUTING = (
    "abs all any ascii bin bool bytes callable chr complex dict divmod enumerate filter float format "
    "frozenset hash hex id int isinstance issubclass len list map max min oct ord pow range repr "
    "reversed round set slice sorted str sum tuple type zip"
).split()
COMPUTING_BUILTINS = tuple(getattr(builtins, name) for name in _COMPUTING)
# Packages whose objects' methods act rather than compute: the shell, the kernel, the widgets, mewrk, and
# the standard library's objects of files, processes and the network (`path.unlink()`, `conn.execute(…)`).
_ACTING_PACKAGES = frozenset(
    {"IPython", "ipykernel", "ipywidgets", "anywidget", "jupyter_client", "traitlets", "mewrk_jupyter"}
    | {"pathlib", "io", "_io", "os", "posix", "nt", "shutil", "subprocess", "socket", "_socket", "ssl"}
    | {"sqlite3", "_sqlite3", "tempfile", "zipfile", "tarfile", "urllib", "http", "mmap", "logging"}
    | {"multiprocessing", "threading", "asyncio", "selectors", "ftplib", "smtplib"}
)
# Methods that change the value they belong to (a list's, a dict's, a set's, a deque's, an array's, a
# DataFrame's): an expression reads the person's values, it never changes them.
_IN_PLACE = frozenset(
    "append extend insert remove pop popitem clear sort reverse update setdefault add discard "
    "intersection_update difference_update symmetric_difference_update appendleft extendleft popleft "
    "rotate fill resize put itemset setfield setflags".split()
)
# What a `to_…` writer is given to write to (pandas: `to_csv(path_or_buf)`, `to_excel(excel_writer)` …);
# without it, `to_csv()` and its kind return the text. These write wherever they are called.
_WRITES_TO = frozenset(
    {"path", "path_or_buf", "path_or_buffer", "buf", "excel_writer", "fname", "con", "file"}
)
_ALWAYS_WRITE = frozenset({"to_sql", "to_clipboard", "to_hdf"})
_WRITER_PREFIXES = ("save", "dump", "write", "tofile", "export")
# These look at the classes they are given and never call them.
_TAKES_CLASSES = (isinstance, issubclass)


class CallRefused(Exception):
    """An interpolated expression called something it may not; the message says what, after "it "."""


def _is_computing_builtin(value: Any) -> bool:
    return any(value is builtin for builtin in COMPUTING_BUILTINS)


def may_call(func: Any) -> bool:
    """Whether an interpolated expression may call `func`: a computing builtin, or a method bound to a
    value (not to a module, a class, or an object of the shell, the kernel or mewrk)."""
    if _is_computing_builtin(func):
        return True
    if not (inspect.ismethod(func) or inspect.isbuiltin(func) or isinstance(func, types.MethodWrapperType)):
        return False
    owner = getattr(func, "__self__", None)
    if owner is None or isinstance(owner, type) or inspect.ismodule(owner):
        return False
    # The shell, the kernel and mewrk's own objects act (`get_ipython().system`, a session's `approve`).
    return not any(cls.__module__.split(".")[0] in _ACTING_PACKAGES for cls in type(owner).__mro__)


def _guarded(source: str, func: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Make the call `source` names when its function and every callable handed to it may be called."""
    if not may_call(func):
        raise CallRefused(f"calls `{source}`")
    if _changes_in_place(func, kwargs):
        raise CallRefused(f"calls `{source}`, which changes its value in place")
    if _writes(func, args, kwargs):
        raise CallRefused(f"calls `{source}`, which writes outside the kernel")
    for value in (*args, *kwargs.values()):
        if isinstance(value, type | tuple) and any(func is f for f in _TAKES_CLASSES):
            continue
        # A list or dict of functions is called too (`df.agg([f])`): its items are looked at as well.
        items = list(value.values()) if isinstance(value, dict) else value if _is_collection(value) else []
        if any(callable(v) and not may_call(v) for v in (value, *items)):
            raise CallRefused(f"hands `{source}` something it would call")
    return func(*args, **kwargs)


def _method_name(func: Any) -> str:
    return "" if _is_computing_builtin(func) else str(getattr(func, "__name__", ""))


def _changes_in_place(func: Any, kwargs: dict[str, Any]) -> bool:
    return _method_name(func) in _IN_PLACE or kwargs.get("inplace") is True


def _writes(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    name = _method_name(func)
    if name.startswith(_WRITER_PREFIXES) or name in _ALWAYS_WRITE:
        return True
    if not name.startswith("to_"):
        return False
    first = args[0] if args else None
    target = isinstance(first, str | os.PathLike) or callable(getattr(first, "write", None))
    return target or bool(_WRITES_TO & kwargs.keys())


def _is_collection(value: Any) -> bool:
    return isinstance(value, list | tuple | set | frozenset)


class _Guard(ast.NodeTransformer):
    """Rewrites every call `f(a, k=b)` as `GUARD('f', f, a, k=b)`."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        name = ast.Constant(ast.unparse(node.func))  # as typed, before its own calls are rewritten
        self.generic_visit(node)
        call = ast.Call(ast.Name(GUARD, ast.Load()), [name, node.func, *node.args], node.keywords)
        return ast.copy_location(call, node)


def guarded_eval(tree: ast.Expression, namespace: dict[str, Any]) -> Any:
    """Evaluate the expression with each of its calls checked first; CallRefused names one refused."""
    checked = ast.fix_missing_locations(_Guard().visit(tree))
    globals_ = {**namespace, GUARD: _guarded}
    return eval(compile(checked, "<interpolation>", "eval"), globals_)  # noqa: S307 — every call checked
