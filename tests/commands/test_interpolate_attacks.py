"""Braces that try to act: the forms of the attacker's run on the evaluator, each refused with its sentence,
nothing run, written or changed; and, for any expression built of the same pieces, nothing of the
person's called."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mewrk_jupyter as mw
from mewrk_jupyter.commands.interpolate import evaluate, interpolate

SECRET = "sk-ant-" + "s3cr3t" * 8


def refused(template: str, namespace: dict, secret_in=None) -> str:
    """The sentence a message with `template` is refused with."""
    with pytest.raises(mw.InvalidInput) as caught:
        interpolate(template, namespace, *(() if secret_in is None else (secret_in,)))
    said = str(caught.value)
    assert " was not interpolated: it " in said and "nothing was sent" in said, said
    return said


def attacked(tmp_path: Path) -> tuple[dict, Path]:
    import os

    target = tmp_path / "written.txt"
    namespace = {
        "os": os,
        "path": str(target),
        "rows": [3, 1, 2],
        "df": pd.DataFrame({"a": [1, 2]}),
        "arr": np.arange(3),
    }
    return namespace, target


def test_the_attackers_forms_are_refused_and_nothing_runs_writes_or_empties(tmp_path):
    namespace, target = attacked(tmp_path)
    forms = {
        f"{{exec.__call__(\"open({str(target)!r}, 'w')\")}}": "it calls `exec.__call__`",
        "{eval.__call__('1 + 1')}": "it calls `eval.__call__`",
        '{open.__call__(path, "w")}': "it calls `open.__call__`",
        "{df.to_csv.__call__(path)}": "it calls `df.to_csv.__call__`",
        "{arr.tofile.__call__(path)}": "it reads `arr.tofile`, which is not among the reading methods",
        "{rows.__init__()}": "it calls `rows.__init__`",
        '{os.environ["ANTHROPIC_API_KEY"][::-1]}': "it reads `os`, a module",
        "{arr.tofile(path)}": "it calls `arr.tofile`, which is not among the reading methods",
        "{df.to_csv(path)}": "it calls `df.to_csv`, which writes outside the kernel",
        "{df.to_json(path)}": "it calls `df.to_json`, which writes outside the kernel",
        "{list(map(df.to_csv, [path]))}": "it calls `df.to_csv`, which writes outside the kernel",
        "{[].__class__.__base__.__subclasses__()}": "it reads `[].__class__`, a name starting with `_`",
        "{type(rows).__init__(rows)}": "it calls `type(rows).__init__`, a name starting with `_`",
        "{(lambda: open(path, 'w'))()}": "it calls `lambda: open(path, 'w')`",
        "{(w := open)}": "it uses `:=`",
    }
    for template, said in forms.items():
        assert f"was not interpolated: {said}" in refused(template, namespace), template
    assert not target.exists() and namespace["rows"] == [3, 1, 2]


def test_a_value_holding_a_configured_secret_is_shown_redacted_but_never_computed_with():
    env = {"ANTHROPIC_API_KEY": SECRET, "HOME": "/home/me"}
    namespace = {"settings": {"region": "eu", "key": SECRET}, "env": env, "key": SECRET}

    def secret_in(text: str) -> bool:
        return SECRET in text

    for template in (
        "{settings['key'][::-1]}",
        "{key[::-1]}",
        "{''.join(reversed(key))}",
        "{[ord(c) for c in key]}",
        "{list(map(list, settings.values()))}",
        "{str(settings)[::-1]}",
        "{key.encode().hex()}",
        "{key + 'x'}",
        "{env['ANTHROPIC_API_KEY'][1:]}",
    ):
        assert "computes with a configured secret" in refused(template, namespace, secret_in), template
    # Read as it is, it goes as it is, and sending redacts it (the session's own redaction).
    text, _ = interpolate("{settings['region']} {key}", namespace, secret_in)
    assert text == f"eu {SECRET}"


def test_os_environ_and_modules_are_never_read_even_under_another_name():
    import os
    import subprocess

    namespace = {"env": os.environ, "sp": subprocess, "mods": [os]}
    assert "it reads `env`, the kernel's environment" in refused("{env['HOME']}", namespace)
    assert "it reads `sp`, a module" in refused("{sp.run(['true'])}", namespace)
    assert "it reads `mods[0]`, a module" in refused("{mods[0].system('true')}", namespace)
    assert "it reads `m`, a module" in refused("{[m for m in mods]}", namespace)


def test_a_class_of_the_persons_own_is_read_for_its_data_without_running_its_code():
    ran: list[str] = []

    class Report:
        title = "Q3"

        def __init__(self) -> None:
            self.rows = [1, 2]

        @property
        def total(self) -> int:
            ran.append("total")
            return 3

        def head(self) -> str:  # named as pandas' is; still the person's code
            ran.append("head")
            return "x"

        def __getattr__(self, name: str) -> str:
            ran.append(name)
            return name

        def __getitem__(self, key: int) -> int:
            ran.append("getitem")
            return key

    namespace = {"report": Report()}
    text, _ = interpolate("{report.title} {report.rows} {len(report.rows)}", namespace)
    assert text == "Q3 [1, 2] 2"
    assert "a property that runs code of its own" in refused("{report.total}", namespace)
    assert "calls `report.head`" in refused("{report.head()}", namespace)
    assert "whose `[…]` is code of the value's own class" in refused("{report[0]}", namespace)
    said = [str(e) for e in _errors("{report.missing}", namespace)]
    assert said and "could not be interpolated (AttributeError:" in said[0]
    assert ran == []


def _errors(template: str, namespace: dict) -> list[Exception]:
    try:
        interpolate(template, namespace)
    except mw.InvalidInput as error:
        return [error]
    return []


def test_an_iterator_of_the_persons_is_not_used_up_but_one_the_expression_makes_is():
    gen = iter([1, 2, 3])
    namespace = {"gen": gen, "rows": [1, 2]}
    assert "hands `list` an iterator of yours" in refused("{list(gen)}", namespace)
    assert "iterates `gen`, an iterator of yours" in refused("{[x for x in gen]}", namespace)
    assert next(gen) == 1
    text, _ = interpolate("{list(map(str, rows))} {sum(x for x in rows)} {list(enumerate(rows))}", namespace)
    assert text == "['1', '2'] 3 [(0, 1), (1, 2)]"


def test_a_dict_with_a_default_of_its_own_is_not_changed_by_a_missing_key():
    from collections import defaultdict

    counts: defaultdict[str, int] = defaultdict(int, {"a": 1})
    with pytest.raises(mw.InvalidInput, match=re.escape("could not be interpolated (KeyError: 'b')")):
        interpolate("{counts['b']}", {"counts": counts})
    assert dict(counts) == {"a": 1}


def test_attach_is_refused_the_same_way():
    with pytest.raises(
        mw.InvalidInput, match=r"^`rows\.__init__\(\)` was not attached: it calls `rows\.__init__`"
    ):
        evaluate("rows.__init__()", {"rows": [1]})


def test_what_the_readme_promises_reads_as_it_did():
    table = pd.DataFrame({"city": ["Oslo", "Rome"], "sales": [3, 5]})
    namespace = {
        "sales": table,
        "In": ["", "x = 1"],
        "Out": {1: 42},
        "Err": {2: "Traceback …\nZeroDivisionError: division by zero"},
        "arr": np.array([1.0, 3.0]),
    }
    text, done = interpolate(
        "{len(sales)} {In[1]} {Out[1]} {Err[2].splitlines()[-1]} {sales.shape} {list(sales.columns)} "
        "{sales['sales'].sum()} {sales.loc[0, 'city']} {arr.mean()} {arr.shape} {{x}} "
        '{"json": 1} {sales.head(1).to_string(index=False)}',
        namespace,
    )
    assert text == (
        "2 x = 1 42 ZeroDivisionError: division by zero (2, 2) ['city', 'sales'] 8 Oslo 2.0 (2,) {x} "
        '{"json": 1} city  sales\nOslo      3'
    )
    assert len(done) == 11


# The pieces an attacker's expression is made of: names of the person's values (one of them a function that
# must never run), dunder and writing attributes, calls, and the builtins that call what they are handed.
_PIECES = st.sampled_from(
    ["spy", "rows", "df", "'x'", "1", ".__call__", ".__init__", ".head", ".to_csv", ".run", ".sort",
     ".__class__", "[0]", "()", "(spy)", "(rows)", "('p')", "(key=spy)", "map(spy, rows)", "sorted(rows, key=spy)",
     "filter(spy, rows)", "[spy][0]", "list(", ")", ", ", "[", "]", "x for x in rows", "spy.__self__"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=8))
def test_no_expression_of_these_pieces_calls_the_persons_function_or_changes_a_value(pieces):
    ran: list[object] = []

    def spy(*args: object, **kwargs: object) -> bool:
        ran.append(args)
        return True

    rows, df = [3, 1, 2], pd.DataFrame({"a": [2, 1]})
    spy.run = spy  # type: ignore[attr-defined]
    namespace = {"spy": spy, "rows": rows, "df": df}
    try:
        interpolate("{" + "".join(pieces) + "}", namespace)
    except mw.InvalidInput:
        pass
    assert ran == [] and rows == [3, 1, 2] and df["a"].tolist() == [2, 1]
