"""`{expression}` in a message typed in a notebook: what becomes text, what stays as typed, what is refused."""

import re

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.commands.interpolate import MAX_VALUE_CHARS, interpolate


def test_names_and_expressions_become_their_text_and_are_recorded():
    namespace = {"x": 42, "rows": [1, 2, 3], "In": ["", "df = load()"], "Out": {2: "two"}}
    text, done = interpolate("x={x}, n={len(rows)}, cell={In[1]}, out={Out[2]}", namespace)
    assert text == "x=42, n=3, cell=df = load(), out=two"
    assert [(i.source, i.text) for i in done] == [
        ("x", "42"),
        ("len(rows)", "3"),
        ("In[1]", "df = load()"),
        ("Out[2]", "two"),
    ]


def test_doubled_braces_escape_and_what_is_not_an_expression_of_known_names_stays():
    text, done = interpolate(
        '{{x}} {"a": {"b": 1}} {undefined_name} {} {sum(x * 2 for x in rows)}', {"rows": [1]}
    )
    assert text == '{x} {"a": {"b": 1}} {undefined_name} {} 2'
    assert [i.source for i in done] == ["sum(x * 2 for x in rows)"]


def test_an_expression_that_fails_is_refused_with_a_sentence():
    with pytest.raises(mw.InvalidInput, match=r"`\{Out\[7\]\}` could not be interpolated \(KeyError: 7\)"):
        interpolate("see {Out[7]}", {"Out": {}})


def test_a_long_value_is_cut_with_a_note():
    text, done = interpolate("{big}", {"big": "a" * (MAX_VALUE_CHARS + 5)})
    assert text.endswith(
        f"[cut: {MAX_VALUE_CHARS + 5:,} characters in all, the first {MAX_VALUE_CHARS:,} shown]"
    )
    assert done[0].text == text


def test_an_expression_calls_computing_builtins_and_methods_of_values_only():
    import os

    namespace = {"os": os, "rows": [2, 1], "word": "ab"}
    text, _ = interpolate(
        "{word.upper()} {max(rows)} {isinstance(rows, list)} {list(map(str, rows))}", namespace
    )
    assert text == "AB 2 True ['2', '1']"
    refusals = {
        "{os.getcwd()}": "it calls `os.getcwd`",
        "{eval('1')}": "it calls `eval`",
        "{str.upper('a')}": "it calls `str.upper`",
        "{(lambda: 1)()}": "it calls `lambda: 1`",
        "{max(rows, key=os.getpid)}": "it hands `max` something it would call",
        "{word.join([os.getcwd])}": "it hands `word.join` something it would call",
        "{word.format(**{'f': os.getcwd})}": "it hands `word.format` something it would call",
    }
    for template, said in refusals.items():
        with pytest.raises(
            mw.InvalidInput, match=re.escape(f"was not interpolated: {said}, and an expression")
        ):
            interpolate(template, namespace)
