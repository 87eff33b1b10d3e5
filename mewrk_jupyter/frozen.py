"""Frozen value classes that are cheap to build, for the events made once per streamed token.

A frozen dataclass's own `__init__` sets each field through `object.__setattr__`, which looks the
attribute up on the type and checks it each time: for the small events built once per streamed token
(the provider's text delta, the session's text delta) that is most of what building one costs. The
`__init__` `quick_init` gives sets each slot through its descriptor instead; the instance is the same,
and still frozen: assigning to a field afterwards raises `FrozenInstanceError`.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import TypeVar

T = TypeVar("T", bound=type)


def quick_init(cls: T) -> T:
    """Give a frozen, slotted dataclass whose fields are all required and positional an `__init__` that
    sets its slots directly; use it as the outer decorator, over `@dataclass(frozen=True, slots=True)`."""
    options = getattr(cls, "__dataclass_params__", None)
    if options is None or not options.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"quick_init needs a frozen dataclass with slots; {cls.__name__} is not one")
    names = [f.name for f in dataclasses.fields(cls)]
    # The dataclass's own __init__ must take exactly the fields, in order, each required and positional:
    # no default, no keyword-only field, no InitVar, and no __post_init__ that the new one would skip.
    params = list(inspect.signature(cls).parameters.values())
    plain = all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params)
    if [p.name for p in params] != names or not plain or hasattr(cls, "__post_init__"):
        raise TypeError(
            f"quick_init needs every field required and positional, and no __post_init__; {cls.__name__} "
            "has a default, a keyword-only field, an InitVar or a __post_init__"
        )
    namespace: dict[str, object] = {f"_set_{name}": cls.__dict__[name].__set__ for name in names}
    lines = [f"def __init__(self, {', '.join(names)}):"] + [f"    _set_{n}(self, {n})" for n in names]
    exec("\n".join(lines), namespace)  # the same shape of code as dataclasses' own generated __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    init.__doc__ = cls.__init__.__doc__  # type: ignore[misc]
    cls.__init__ = init  # type: ignore[misc]
    return cls
