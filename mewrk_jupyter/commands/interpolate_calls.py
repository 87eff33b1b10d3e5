"""What an interpolated `{expression}` may call and read: a list of what reads, everything else refused.

A message is text that may have been pasted from elsewhere — a model's reply among others — so braces in
it must not run a command, write a file or change a value: `{exec.__call__(…)}`, `{df.to_csv.__call__(p)}`
or `{rows.__init__()}` would do that the moment the cell ran, without the approval a `python` call needs.
A list of what is forbidden always misses a form, so this lists what is allowed: the builtins that only
compute, and for a few known types (Python's own, pandas', NumPy's, paths, dates) the methods that return
a new value and the attributes that hold one. A method is known by the function it resolves to on the
value's class, never by its name: a class of the person's own with a `head` that writes is not pandas'.
"""

from __future__ import annotations

import builtins
import inspect
import sys
from collections.abc import Callable
from typing import Any

# The builtins an expression may call; `type` with one argument only (with three it makes a class).
_READING_BUILTINS = (
    "abs all any ascii bin bool bytes callable chr complex dict divmod enumerate filter float format "
    "frozenset hash hex int isinstance issubclass len list map max min oct ord pow range repr "
    "reversed round set slice sorted str sum tuple type zip"
).split()
READING_BUILTINS = tuple(getattr(builtins, name) for name in _READING_BUILTINS)
# These never call what they are handed, so a callable among their arguments is a value to them:
# `len(model)`, `str(pipeline)`, `isinstance(x, Note)`.
NEVER_CALL_ARGUMENTS = tuple(
    getattr(builtins, name)
    for name in "abs ascii bool callable hash isinstance issubclass len repr str type".split()
    if hasattr(builtins, name)
)

_STR = (
    "capitalize casefold center count encode endswith expandtabs find index isalnum isalpha isascii "
    "isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust "
    "lower lstrip partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit "
    "rstrip split splitlines startswith strip swapcase title upper zfill"
)
_BYTES = (
    "count decode endswith find hex index isalnum isalpha isascii isdigit islower isspace isupper "
    "join lower lstrip replace rfind rindex rsplit rstrip split splitlines startswith strip upper"
)
_SET = "copy difference intersection isdisjoint issubset issuperset symmetric_difference union"
_FRAME = (
    "abs all any astype copy corr count cov cummax cummin cumsum describe diff drop drop_duplicates "
    "dropna duplicated equals fillna filter get groupby head idxmax idxmin isin isna isnull items "
    "iterrows itertuples keys kurt max mean median memory_usage merge min mode nlargest notna notnull "
    "nsmallest nunique pct_change prod quantile rename reset_index round select_dtypes sem set_index "
    "skew sort_index sort_values std sum tail to_csv to_dict to_html to_json to_markdown to_numpy "
    "to_string transpose value_counts var"
)
_SERIES = f"{_FRAME} between tolist to_list to_frame unique"
_INDEX = "copy equals isin max min nunique tolist to_list unique value_counts"
_GROUPS = "count describe first head last max mean median min nunique size std sum tail var"
_ARRAY = (
    "all any argmax argmin astype clip copy cumprod cumsum flatten item max mean min nonzero prod "
    "ravel reshape round std sum tolist transpose var"
)
_FRAME_ATTRS = "T at columns dtypes empty iat iloc index loc ndim shape size values"
_SERIES_ATTRS = "T at dtype empty iat iloc index loc name ndim shape size values"
_DATE_ATTRS = "year month day hour minute second microsecond tzinfo days seconds microseconds"
_DATES = "date isoformat isoweekday strftime time total_seconds weekday"

# module, class, reading methods, attributes that hold a value. A module not imported is skipped: the
# person's values cannot be of its types then.
_KNOWN = [
    ("builtins", "str", _STR, ""),
    ("builtins", "bytes", _BYTES, ""),
    ("builtins", "list", "copy count index", ""),
    ("builtins", "tuple", "count index", ""),
    ("builtins", "dict", "copy get items keys values", ""),
    ("builtins", "set", _SET, ""),
    ("builtins", "frozenset", _SET, ""),
    ("builtins", "int", "as_integer_ratio bit_count bit_length conjugate", "denominator imag numerator real"),
    ("builtins", "float", "as_integer_ratio conjugate hex is_integer", "imag real"),
    ("builtins", "complex", "conjugate", "imag real"),
    ("builtins", "range", "count index", "start step stop"),
    ("builtins", "slice", "", "start step stop"),
    (
        "pathlib",
        "PurePath",
        "as_posix is_absolute joinpath match relative_to with_name with_suffix",
        "anchor drive name parent parents parts root stem suffix suffixes",
    ),
    ("datetime", "date", _DATES, _DATE_ATTRS),
    ("datetime", "time", _DATES, _DATE_ATTRS),
    ("datetime", "timedelta", _DATES, _DATE_ATTRS),
    ("decimal", "Decimal", "as_integer_ratio is_nan quantize to_integral_value", "imag real"),
    ("fractions", "Fraction", "as_integer_ratio limit_denominator", "denominator numerator"),
    ("numpy", "ndarray", _ARRAY, "T dtype imag itemsize nbytes ndim real shape size"),
    ("numpy", "generic", "item tolist round", "dtype imag ndim real shape size"),
    ("pandas", "DataFrame", _FRAME, _FRAME_ATTRS),
    ("pandas", "Series", _SERIES, _SERIES_ATTRS),
    ("pandas", "Index", _INDEX, "dtype empty name names ndim shape size values"),
    ("pandas", "MultiIndex", _INDEX, "dtypes empty levels names ndim nlevels shape size values"),
    ("pandas", "RangeIndex", _INDEX, "dtype empty name ndim shape size start step stop values"),
    ("pandas.core.groupby.generic", "DataFrameGroupBy", _GROUPS, "groups ndim"),
    ("pandas.core.groupby.generic", "SeriesGroupBy", _GROUPS, "groups ndim"),
]
# Indexers of pandas (`df.loc[…]`, `df.iloc[…]`): only subscripted.
_INDEXERS = [
    ("pandas.core.indexing", name) for name in "_LocIndexer _iLocIndexer _AtIndexer _iAtIndexer".split()
]
# The parameters a pandas writer is given to write to: without one, `to_csv()` and its kind return text.
WRITES_TO = frozenset({"path_or_buf", "path_or_buffer", "buf", "path", "excel_writer", "fname", "file"})

NOT_FOUND = object()  # what a look-up found when there is nothing of that name


class _Known:
    """The reading methods, attributes and subscripts of the known types imported so far."""

    def __init__(self) -> None:
        self.modules: set[tuple[str, str]] = set()
        self.seen = 0  # how many modules were imported at the last look
        self.types: tuple[type, ...] = ()
        # By id, each with the object itself, so that ids stay valid and a hit is confirmed by identity.
        self.methods: dict[int, Any] = {}
        self.attributes: dict[int, Any] = {}
        self.subscripts: dict[int, Any] = {}
        self.callables: dict[int, Any] = {id(f): f for f in READING_BUILTINS}

    def refresh(self) -> _Known:
        """Add the types of the modules imported since the last look (pandas after the first cell)."""
        if len(sys.modules) == self.seen:  # nothing imported since: the common case, once per node
            return self
        self.seen = len(sys.modules)
        for module, name, methods, attributes in _KNOWN:
            if (module, name) in self.modules or module not in sys.modules:
                continue
            cls = getattr(sys.modules[module], name, None)
            if not isinstance(cls, type):
                continue
            self.modules.add((module, name))
            self.types = (*self.types, cls)
            self._add(self.methods, cls, methods.split())
            self._add(self.attributes, cls, attributes.split())
            self._add(self.subscripts, cls, ["__getitem__"])
            if module == "builtins":  # `str.lower` as a key: a method of Python's own, checking its self
                self._add(self.callables, cls, methods.split())
        for module, name in _INDEXERS:
            cls = getattr(sys.modules.get(module), name, None) if module in sys.modules else None
            if isinstance(cls, type):
                self._add(self.subscripts, cls, ["__getitem__"])
        return self

    @staticmethod
    def _add(table: dict[int, Any], cls: type, names: list[str]) -> None:
        for name in names:
            raw = inspect.getattr_static(cls, name, NOT_FOUND)
            if raw is not NOT_FOUND:
                table[id(raw)] = raw


KNOWN = _Known()


def _listed(table: dict[int, Any], raw: Any) -> bool:
    return table.get(id(raw), NOT_FOUND) is raw


def _on_class(value: Any, name: str) -> Any:
    """What `value.name` resolves to on the value's class, when the instance holds nothing of that name."""
    raw = inspect.getattr_static(value, name, NOT_FOUND)
    on_class = inspect.getattr_static(type(value), name, NOT_FOUND)
    return on_class if raw is on_class else NOT_FOUND


def reading_method(value: Any, name: str) -> Any | None:
    """The function `value.name` resolves to when it is a reading method of a known type; else None."""
    raw = _on_class(value, name)
    return raw if raw is not NOT_FOUND and _listed(KNOWN.refresh().methods, raw) else None


def known_attribute(value: Any, name: str) -> Any:
    """The descriptor of `value.name` when it is a listed attribute of a known type (`df.shape`)."""
    raw = _on_class(value, name)
    return raw if raw is not NOT_FOUND and _listed(KNOWN.refresh().attributes, raw) else None


def subscript(value: Any) -> Callable[..., Any] | None:
    """`value[key]`'s function when the value's class is known to read by it (a list, a dict, a frame)."""
    raw = inspect.getattr_static(type(value), "__getitem__", NOT_FOUND)
    return raw if raw is not NOT_FOUND and _listed(KNOWN.refresh().subscripts, raw) else None


def is_known(value: Any) -> bool:
    """Whether the value is of a known type, whose operators (`+`, `<`, `in`) compute and do nothing else."""
    return value is None or isinstance(value, KNOWN.refresh().types)


def may_call(func: Any) -> bool:
    """Whether an expression may call `func`: a reading builtin or a listed method of Python's own types
    (a bound reading method is wrapped by the evaluator and checked there)."""
    return _listed(KNOWN.refresh().callables, func)


def column(value: Any, name: str) -> Any:
    """`df.sales` for a DataFrame's column `sales`, read as `df["sales"]` is; NOT_FOUND otherwise."""
    pandas = sys.modules.get("pandas")
    if pandas is None or not isinstance(value, pandas.DataFrame) or name not in value.columns:
        return NOT_FOUND
    get = subscript(value)
    return NOT_FOUND if get is None else get(value, name)
