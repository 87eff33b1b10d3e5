"""An interpolated `{expression}` evaluated node by node, each node checked against what reads.

Python's `eval` runs whatever the parsed expression says. Here the evaluator knows a few forms — a name,
an attribute, a subscript, a literal, an operator, a comprehension, a call — and evaluates each itself,
so that a form it does not know is refused rather than run, and every call, including one a builtin
makes (`map(f, …)`), passes the list in interpolate_calls.py. It never reads a module, `os.environ`, an
underscore name, a property or method of a class it does not know (`inspect.getattr_static` finds plain
data without running a getter), and it never computes with a value holding a configured secret: such a
value may be shown (the message's text is redacted) but not reversed, encoded or sliced past redaction.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import itertools
import operator
import os
import types
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .interpolate_calls import (
    NEVER_CALL_ARGUMENTS,
    NOT_FOUND,
    WRITES_TO,
    column,
    is_known,
    known_attribute,
    may_call,
    reading_method,
    subscript,
)
from .interpolate_secrets import SCAN, holds_secret


class CallRefused(Exception):
    """An expression reads or calls something it may not; the message says what, after "it "."""


_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.MatMult: operator.matmul,
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Invert: operator.invert, ast.Not: operator.not_,
}  # fmt: skip
# Builtins that call what they are handed: wrapped, so that a call they make is checked like any other.
_CALLING_BUILTINS = (map, filter, sorted, min, max)
# The shell, the kernel, the widgets and mewrk: their objects act, and even their plain attributes are
# left alone (a session's settings, the shell's namespace).
_ACTING_PACKAGES = frozenset(
    {"IPython", "ipykernel", "ipywidgets", "anywidget", "jupyter_client", "traitlets", "mewrk_jupyter"}
)
# Descriptors that hand back what the instance holds, running nothing: a slot, a namedtuple's field.
_PLAIN_DESCRIPTORS = (types.MemberDescriptorType, type(inspect.getattr_static(namedtuple("Point", "x"), "x")))  # noqa: PYI024
_FORMS = {ast.Lambda: "a lambda", ast.NamedExpr: "`:=`", ast.JoinedStr: "an f-string", ast.Await: "await"}


class Reading:
    """A method or builtin the expression may call, bound to the evaluation: each call of it is
    checked, whoever makes it (the evaluator, or `map` calling it for each item)."""

    def __init__(self, evaluation: Evaluation, func: Any, source: str, owner: Any = NOT_FOUND) -> None:
        self.evaluation, self.func, self.source, self.owner = evaluation, func, source, owner

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        e = self.evaluation
        if self.owner is NOT_FOUND:
            return e.call(self.func, args, kwargs, self.source)
        if e.holds_secret(self.owner):
            raise CallRefused(f"computes with a configured secret (`{self.source}`)")
        bound = _bind(self.func, self.owner, args, kwargs)
        if kwargs.get("inplace") or (bound is not None and bound.get("inplace")):
            raise CallRefused(f"calls `{self.source}`, which changes its value in place")
        if bound is not None and any(bound.get(name) is not None for name in WRITES_TO):
            raise CallRefused(f"calls `{self.source}`, which writes outside the kernel")
        return e.call(self.func.__get__(self.owner, type(self.owner)), args, kwargs, self.source, self)

    def __repr__(self) -> str:
        return f"<{self.source}>"


def _bind(func: Any, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments of a pandas writer by parameter name (`to_csv(path)` names `path_or_buf`)."""
    if not str(getattr(func, "__name__", "")).startswith("to_"):
        return None
    try:
        return dict(inspect.signature(func).bind(owner, *args, **kwargs).arguments)
    except (TypeError, ValueError):
        return None  # the call itself says what is wrong with its arguments


class Evaluation:
    """One expression's evaluation in the person's namespace; `secret_in` says whether text holds a
    configured secret."""

    def __init__(self, namespace: Mapping[str, Any], secret_in: Callable[[str], bool]) -> None:
        self.namespace, self.secret_in = namespace, secret_in
        # What the expression made itself (`map(…)`, a generator): an iterator of the person's is not
        # used up by it, one it made is. Kept by id with the object, so that an id is not reused.
        self.made: dict[int, Any] = {}
        self.sources: dict[int, str] = {}

    def source(self, node: ast.AST) -> str:
        """A node as typed, for a sentence (written once per node: a comprehension meets it per item)."""
        if id(node) not in self.sources:
            self.sources[id(node)] = ast.unparse(node)
        return self.sources[id(node)]

    def value(self, node: ast.AST, scope: dict[str, Any]) -> Any:
        """The value of one node; CallRefused when it is not a reading form or reads what it may not."""
        handler = getattr(self, f"_{type(node).__name__}", None)
        if handler is None:
            what = _FORMS.get(type(node), f"`{type(node).__name__}`")
            raise CallRefused(f"uses {what} (`{self.source(node)}`)")
        found = handler(node, scope)
        if isinstance(found, types.ModuleType):
            raise CallRefused(f"reads `{self.source(node)}`, a module")
        if found is os.environ:
            raise CallRefused(f"reads `{self.source(node)}`, the kernel's environment")
        if any(found is f for f in _CALLING_BUILTINS):
            return Reading(self, found, self.source(node))
        return found

    def call(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], source: str, via: Any = None
    ) -> Any:
        """Call `func` when it and what it is handed may be: nothing of the person's is called or used up."""
        if via is None and not (isinstance(func, Reading) or may_call(func)):
            raise CallRefused(f"calls `{source}`")
        if func is type and len(args) != 1:
            raise CallRefused(f"calls `{source}` to make a class")
        handed = (*args, *kwargs.values())
        if any(self.holds_secret(value) for value in handed):
            raise CallRefused(f"computes with a configured secret (`{source}`)")
        for value in handed:
            if isinstance(value, Iterator) and id(value) not in self.made:
                raise CallRefused(f"hands `{source}` an iterator of yours, which it would use up")
        if not any(func is f for f in NEVER_CALL_ARGUMENTS) and any(map(self._calls, handed)):
            raise CallRefused(f"hands `{source}` something it would call")
        result = func(*args, **kwargs)
        self.made[id(result)] = result
        return result

    def _calls(self, value: Any, depth: int = 0) -> bool:
        """Whether a value handed to a call holds something callable that the expression may not call."""
        if isinstance(value, Reading) or may_call(value):
            return False
        if callable(value):
            return True
        if depth < 3 and isinstance(value, dict):
            return any(self._calls(v, depth + 1) for v in itertools.islice(value.values(), SCAN))
        if depth < 3 and isinstance(value, list | tuple | set | frozenset):
            return any(self._calls(v, depth + 1) for v in itertools.islice(value, SCAN))
        return False

    def holds_secret(self, value: Any) -> bool:
        """Whether a value's text holds a configured secret (see interpolate_secrets.py)."""
        return holds_secret(value, self.secret_in)

    def _iterate(self, value: Any, source: str) -> Any:
        if isinstance(value, Iterator) and id(value) not in self.made:
            raise CallRefused(f"iterates `{source}`, an iterator of yours, which it would use up")
        if self.holds_secret(value):
            raise CallRefused(f"computes with a configured secret (`{source}`)")
        return value

    # The forms, one method each, named after the node (`_Name` for ast.Name).

    def _Constant(self, node: ast.Constant, scope: dict[str, Any]) -> Any:
        return node.value

    def _Name(self, node: ast.Name, scope: dict[str, Any]) -> Any:
        for names in (scope, self.namespace):
            if node.id in names:
                return names[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        raise NameError(f"name '{node.id}' is not defined")

    def _Attribute(self, node: ast.Attribute, scope: dict[str, Any], verb: str = "reads") -> Any:
        source = self.source(node)
        owner = self.value(node.value, scope)
        name = node.attr
        if name.startswith("_"):
            raise CallRefused(f"{verb} `{source}`, a name starting with `_`")
        if isinstance(owner, type):
            if may_call(inspect.getattr_static(owner, name, None)):  # Python's own, as `str.lower`
                return inspect.getattr_static(owner, name)
            raise CallRefused(f"{verb} `{source}`, an attribute of a class")
        method = reading_method(owner, name)
        if method is not None:
            return Reading(self, method, source, owner)
        attribute = known_attribute(owner, name)
        if attribute is not None:
            return attribute.__get__(owner, type(owner)) if hasattr(attribute, "__get__") else attribute
        found = column(owner, name)
        if found is not NOT_FOUND:
            return found
        if any(cls.__module__.split(".")[0] in _ACTING_PACKAGES for cls in type(owner).__mro__):
            raise CallRefused(f"{verb} `{source}`, a part of the shell, the kernel or mewrk")
        return self._plain(owner, name, source, verb)

    def _plain(self, owner: Any, name: str, source: str, verb: str) -> Any:
        """A value an object holds (in its `__dict__`, a slot, a class's constant), found without running code."""
        raw = inspect.getattr_static(owner, name, NOT_FOUND)
        if raw is NOT_FOUND:
            raise AttributeError(f"'{type(owner).__name__}' object has no attribute '{name}'")
        if raw is not inspect.getattr_static(type(owner), name, NOT_FOUND) or not hasattr(
            type(raw), "__get__"
        ):
            return raw  # the instance's own value, or a class's plain value: nothing runs to read it
        if isinstance(raw, _PLAIN_DESCRIPTORS):
            return raw.__get__(owner, type(owner))
        if isinstance(raw, property):
            raise CallRefused(f"reads `{source}`, a property that runs code of its own")
        raise CallRefused(f"{verb} `{source}`, which is not among the reading methods")

    def _Subscript(self, node: ast.Subscript, scope: dict[str, Any]) -> Any:
        owner = self.value(node.value, scope)
        key = self.value(node.slice, scope)
        source = self.source(node)
        get = subscript(owner)
        if get is None:
            raise CallRefused(f"reads `{source}`, whose `[…]` is code of the value's own class")
        if isinstance(owner, str | bytes) and self.holds_secret(owner):
            raise CallRefused(f"computes with a configured secret (`{source}`)")
        if isinstance(owner, dict) and type(owner) is not dict and key not in dict.keys(owner):
            raise KeyError(key)  # a default of a dict's own (`__missing__`) would run and may add the key
        return get(owner, key)

    def _Slice(self, node: ast.Slice, scope: dict[str, Any]) -> slice:
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else self.value(part, scope) for part in parts))

    def _Call(self, node: ast.Call, scope: dict[str, Any]) -> Any:
        source = self.source(node.func)
        if isinstance(node.func, ast.Attribute):
            func = self._Attribute(node.func, scope, verb="calls")
        elif isinstance(node.func, ast.Lambda):
            raise CallRefused(f"calls `{source}`")
        else:
            func = self.value(node.func, scope)
        args = self._items(node.args, scope, source)
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            given = self.value(keyword.value, scope)
            if keyword.arg is not None:
                kwargs[keyword.arg] = given
            elif isinstance(given, dict):
                kwargs.update(given)
            else:
                raise CallRefused(f"hands `{source}` `**` of a value that is not a dict")
        if isinstance(func, Reading):
            return func(*args, **kwargs)
        return self.call(func, tuple(args), kwargs, source)

    def _items(self, nodes: list[ast.expr], scope: dict[str, Any], source: str) -> list[Any]:
        out: list[Any] = []
        for item in nodes:
            if isinstance(item, ast.Starred):
                out.extend(self._iterate(self.value(item.value, scope), self.source(item.value)))
            else:
                out.append(self.value(item, scope))
        return out

    def _operands(self, node: ast.AST, op: ast.AST, *values: Any) -> None:
        if isinstance(op, ast.Is | ast.IsNot | ast.Not):
            return
        source = self.source(node)
        if not all(is_known(v) for v in values):
            raise CallRefused(f"applies an operator to a value whose class runs code of its own (`{source}`)")
        if any(self.holds_secret(v) for v in values):
            raise CallRefused(f"computes with a configured secret (`{source}`)")

    def _BinOp(self, node: ast.BinOp, scope: dict[str, Any]) -> Any:
        left, right = self.value(node.left, scope), self.value(node.right, scope)
        self._operands(node, node.op, left, right)
        return _OPERATORS[type(node.op)](left, right)

    def _UnaryOp(self, node: ast.UnaryOp, scope: dict[str, Any]) -> Any:
        operand = self.value(node.operand, scope)
        self._operands(node, node.op, operand)
        return _UNARY[type(node.op)](operand)

    def _Compare(self, node: ast.Compare, scope: dict[str, Any]) -> Any:
        # As Python chains `a < b < c`: each result decides whether to go on, the last one is the value
        # (a pandas comparison is a Series, not a bool).
        left, result = self.value(node.left, scope), True
        for i, (op, right_node) in enumerate(zip(node.ops, node.comparators, strict=True)):
            right = self.value(right_node, scope)
            self._operands(node, op, left, right)
            result = _OPERATORS[type(op)](left, right)
            if i < len(node.ops) - 1 and not result:
                return result
            left = right
        return result

    def _BoolOp(self, node: ast.BoolOp, scope: dict[str, Any]) -> Any:
        value: Any = None
        for item in node.values:
            value = self.value(item, scope)
            if bool(value) is isinstance(node.op, ast.Or):
                return value
        return value

    def _IfExp(self, node: ast.IfExp, scope: dict[str, Any]) -> Any:
        return self.value(node.body if self.value(node.test, scope) else node.orelse, scope)

    def _List(self, node: ast.List, scope: dict[str, Any]) -> list[Any]:
        return self._items(node.elts, scope, self.source(node))

    def _Tuple(self, node: ast.Tuple, scope: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(self._items(node.elts, scope, self.source(node)))

    def _Set(self, node: ast.Set, scope: dict[str, Any]) -> set[Any]:
        return set(self._items(node.elts, scope, self.source(node)))

    def _Dict(self, node: ast.Dict, scope: dict[str, Any]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            given = self.value(item, scope)
            if key is None and not isinstance(given, dict):
                raise CallRefused(f"unpacks `{self.source(item)}`, which is not a dict")
            out.update(given) if key is None else out.__setitem__(self.value(key, scope), given)
        return out

    def _generate(
        self, node: Any, scope: dict[str, Any], make: Callable[[dict[str, Any]], Any]
    ) -> Iterator[Any]:
        """The items of a comprehension, lazily: each `for` binds names the `if`s and the item read."""

        def level(i: int, bound: dict[str, Any]) -> Iterator[Any]:
            if i == len(node.generators):
                yield make(bound)
                return
            gen: ast.comprehension = node.generators[i]
            if gen.is_async:
                raise CallRefused(f"uses `async for` (`{self.source(node)}`)")
            for item in self._iterate(self.value(gen.iter, bound), self.source(gen.iter)):
                inner = {**bound, **_names(gen.target, item)}
                if all(self.value(test, inner) for test in gen.ifs):
                    yield from level(i + 1, inner)

        made = level(0, scope)
        self.made[id(made)] = made
        return made

    def _ListComp(self, node: ast.ListComp, scope: dict[str, Any]) -> list[Any]:
        return list(self._generate(node, scope, lambda bound: self.value(node.elt, bound)))

    def _SetComp(self, node: ast.SetComp, scope: dict[str, Any]) -> set[Any]:
        return set(self._generate(node, scope, lambda bound: self.value(node.elt, bound)))

    def _GeneratorExp(self, node: ast.GeneratorExp, scope: dict[str, Any]) -> Iterator[Any]:
        return self._generate(node, scope, lambda bound: self.value(node.elt, bound))

    def _DictComp(self, node: ast.DictComp, scope: dict[str, Any]) -> dict[Any, Any]:
        pairs = self._generate(node, scope, lambda b: (self.value(node.key, b), self.value(node.value, b)))
        return dict(pairs)


def _names(target: ast.AST, item: Any) -> dict[str, Any]:
    """The names a comprehension's `for` target binds to one item (`x`, or `k, v`)."""
    if isinstance(target, ast.Name):
        return {target.id: item}
    if isinstance(target, ast.Tuple | ast.List) and not any(isinstance(t, ast.Starred) for t in target.elts):
        items = tuple(item)
        if len(items) != len(target.elts):
            raise ValueError(f"cannot unpack {len(items)} values into {len(target.elts)} names")
        return {k: v for t, i in zip(target.elts, items, strict=True) for k, v in _names(t, i).items()}
    raise CallRefused(f"binds `{ast.unparse(target)}`, which is not a name")


def read(tree: ast.Expression, namespace: Mapping[str, Any], secret_in: Callable[[str], bool]) -> Any:
    """The expression's value; CallRefused names what it may not read or call."""
    return Evaluation(namespace, secret_in).value(tree.body, {})
