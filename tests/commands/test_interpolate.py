"""`{expression}` in a message typed in a notebook: what becomes text, what stays as typed, what is refused."""

import re

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.commands.interpolate import MAX_VALUE_CHARS, interpolate


def assert_refused(refusals: dict[str, str], namespace: dict) -> None:
    """Each template is refused with its sentence."""
    for template, said in refusals.items():
        with pytest.raises(
            mw.InvalidInput, match=re.escape(f"was not interpolated: {said}, and an expression")
        ):
            interpolate(template, namespace)


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


def test_an_expression_calls_reading_builtins_and_listed_methods_only():
    import os

    class Note:
        def loud(self):
            return "HI"

    namespace = {"os": os, "rows": [2, 1], "word": "ab", "note": Note(), "getcwd": os.getcwd}
    text, _ = interpolate(
        "{word.upper()} {max(rows)} {isinstance(rows, list)} {list(map(str, rows))} {sorted(['b', 'A'], key=str.lower)}",
        namespace,
    )
    assert text == "AB 2 True ['2', '1'] ['A', 'b']"
    refusals = {
        "{os.getcwd()}": "it reads `os`, a module",
        "{eval('1')}": "it calls `eval`",
        "{getcwd()}": "it calls `getcwd`",
        "{str.maketrans('a', 'b')}": "it calls `str.maketrans`, an attribute of a class",
        "{(lambda: 1)()}": "it calls `lambda: 1`",
        "{note.loud()}": "it calls `note.loud`, which is not among the reading methods",
        "{max(rows, key=getcwd)}": "it hands `max` something it would call",
        "{word.join([getcwd])}": "it hands `word.join` something it would call",
        "{list(map(getcwd, rows))}": "it hands `map` something it would call",
        "{type('X', (), {})}": "it calls `type` to make a class",
    }
    assert_refused(refusals, namespace)


def test_an_expression_never_changes_a_value_nor_writes_a_file(tmp_path):
    import pandas as pd

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    rows, table = [3, 1, 2], pd.DataFrame({"a": [2, 1]})
    namespace = {"p": victim, "rows": rows, "table": table, "seen": {"a": 1}, "out": str(tmp_path / "o.csv")}
    refusals = {
        "{p.unlink()}": "it calls `p.unlink`, which is not among the reading methods",  # a method of the file system is not a reading one
        "{p.read_text()}": "it calls `p.read_text`, which is not among the reading methods",
        "{rows.sort()}": "it calls `rows.sort`, which is not among the reading methods",
        "{rows.clear()}": "it calls `rows.clear`, which is not among the reading methods",
        "{seen.update(b=2)}": "it calls `seen.update`, which is not among the reading methods",
        "{table.pop('a')}": "it calls `table.pop`, which is not among the reading methods",
        "{table.sort_values('a', inplace=True)}": "it calls `table.sort_values`, which changes its value in place",
        "{table.to_csv(out)}": "it calls `table.to_csv`, which writes outside the kernel",
        "{table.to_string(buf=out)}": "it calls `table.to_string`, which writes outside the kernel",
        "{table.to_pickle(path=out)}": "it calls `table.to_pickle`, which is not among the reading methods",
        "{table.to_clipboard()}": "it calls `table.to_clipboard`, which is not among the reading methods",
    }
    assert_refused(refusals, namespace)
    assert victim.read_text() == "keep me" and rows == [3, 1, 2] and namespace["seen"] == {"a": 1}
    assert (
        list(table.columns) == ["a"] and table["a"].tolist() == [2, 1] and not (tmp_path / "o.csv").exists()
    )
    # Reading stays: a method that returns a new value, and a writer asked for its text.
    text, _ = interpolate(
        "{p.name} {sorted(rows)} {table.sort_values('a')['a'].tolist()} {len(table.to_csv())} {table.a.max()}",
        namespace,
    )
    assert text == "victim.txt [1, 2, 3] [1, 2] 11 2"
