"""Every Markdown the product writes into a notebook escapes its `$`, so that JupyterLab's MathJax typesets
no `${A} … ${B}` of a notice, a card, a title or a history as a formula; code keeps its `$` as written."""

from __future__ import annotations

import ast
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter import magics
from mewrk_jupyter.cards.inert import for_notebook
from tests.markup import render_with_marked, typeset_dollars, visible_text

PACKAGE = Path(mw.__file__).parent
DOLLARS = "costs $5, then ${A} and ${B}"
VENDOR = """\
protocol: openai-chat
base_url: http://127.0.0.1:9/v1
api_key: ${A}
headers: {X-Extra: "${B}"}
models:
  m: {context_window: 1000}
"""


def test_dollars_outside_code_are_escaped_once_and_code_keeps_them():
    markdown = (
        f"{DOLLARS}\n\n`${{A}}` and\n\n```\n$ ls ${{B}}\n```\n\n| a | ${{A}} |\n|---|---|\n| b | ${{B}} |"
    )
    shown = for_notebook(markdown)
    assert typeset_dollars(shown) == []
    assert for_notebook(shown) == shown  # a second pass (a repr shown by a command) changes nothing
    html = render_with_marked(shown)
    assert "<code>${A}</code>" in html and "$ ls ${B}" in html  # code is left as written
    # MathJax shows each `\$` as `$`: the text reads as typed.
    assert "costs \\$5, then \\${A} and \\${B}" in visible_text(html)
    assert typeset_dollars(markdown) != []  # as written, MathJax would have made formulas of it


def test_every_notebook_view_of_a_session_escapes_its_dollars(workspace):
    s = mw.Session.new(title=DOLLARS)
    s.insert(mw.SystemPrompt(text=DOLLARS))
    s.send(DOLLARS)
    s.insert(mw.ToolCall(name="ls", params={"path": "${A}"}, result=DOLLARS))
    views = {
        "session": s._repr_markdown_(),
        "session bundle": s._repr_mimebundle_()[0]["text/markdown"],
        "history": s.history._repr_markdown_(),
        "request": s.history[0]._repr_markdown_(),
        "context": s.context._repr_markdown_(),
        "sessions": mw.list_sessions()._repr_markdown_(),
        **{f"card {c.kind}": c._repr_markdown_() for c in s.cards},
    }
    for name, markdown in views.items():
        assert typeset_dollars(markdown) == [], name
    assert 'class="mathjax_ignore"' in s.cards._repr_html_()  # the table's text is left alone by MathJax


def test_what_mewrk_commands_show_escapes_the_dollars_of_what_they_quote(mewrk, workspace):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "acme.yaml").write_text(VENDOR)
    refused = mewrk("new --model acme/m")  # the folder is not trusted: the sentence names ${A} and ${B}
    assert "${A} (llm/acme.yaml, api_key) and" in refused.replace("\\", "")
    outputs = {"refused": refused, "new": mewrk(f"new {DOLLARS}"), "trust": mewrk("trust")}
    session = magics.current_session()
    session.insert(mw.ModelReply(text=DOLLARS))
    outputs.update(
        turn=mewrk("", DOLLARS),
        cards=mewrk("cards"),
        history=mewrk("history"),
        request=mewrk("history 1"),
        context=mewrk("context"),
        sessions=mewrk("sessions"),
        set=mewrk("set"),
        preferences=mewrk("preferences"),
        error=mewrk(f"edit nowhere {DOLLARS}"),
    )
    for name, shown in outputs.items():
        assert typeset_dollars(shown) == [], (name, shown)


def _returns(function: ast.FunctionDef) -> list[ast.expr | None]:
    return [node.value for node in ast.walk(function) if isinstance(node, ast.Return)]


def _through_for_notebook(value: ast.expr | None) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("for_notebook", "markdown_view")
    )


def test_each_markdown_the_package_shows_goes_through_for_notebook():
    """So that no path is missed: every `_repr_markdown_` returns, and every display bundle's Markdown is,
    a call of for_notebook (or of markdown_view, the session's, which calls it)."""
    missed = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "_repr_markdown_":
                missed += [
                    f"{path.name}:{node.lineno}" for v in _returns(node) if not _through_for_notebook(v)
                ]
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "text/markdown":
                        if not _through_for_notebook(value):
                            missed.append(f"{path.name}:{node.lineno}")
    assert missed == []
