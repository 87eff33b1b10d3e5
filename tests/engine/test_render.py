"""The notebook's Markdown views of a session show what a model, a tool or a person wrote, inert."""

from __future__ import annotations

import mewrk_jupyter as mw
from tests.markup import live_in_markdown, render_with_marked, visible_text

ATTACK = "<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))"
# A tool result that closes a plain ``` fence and goes on as Markdown.
FENCE_BREAK = "```\n<img src=x onerror=alert(2)>\n[y](javascript:alert(2))\n```"


def test_a_session_with_hostile_cards_renders_inert(workspace):
    (workspace / "notes.md").write_text(FENCE_BREAK)
    s = mw.Session.new(title=f"<img src=x onerror=alert(3)> {ATTACK}")
    s.insert(mw.Thinking(text=ATTACK))
    s.insert(mw.SystemPrompt(text=ATTACK))
    s.send(f'{ATTACK}\ncall: read {{"path": "notes.md"}}')
    s.send(f'call: bash {{"command": "echo `<img src=x onerror=alert(4)>`", "x": "{ATTACK}"}}')
    kinds = [c.kind for c in s.cards]
    assert {"thinking", "system_prompt", "user_input", "model_reply", "tool_call", "approval"} <= set(kinds)
    read = next(c for c in s.cards if c.kind == "tool_call" and c.name == "read")
    assert "<img src=x onerror=alert(2)>" in read.result  # the result itself is kept as the tool gave it
    for markdown in (s._repr_markdown_(), *(card._repr_markdown_() for card in s.cards)):
        assert live_in_markdown(markdown) == [], markdown
    shown = render_with_marked(s._repr_markdown_())
    assert "<img src=x onerror=alert(2)>" in visible_text(shown)  # the tool's output shows, as text
    assert s.history._repr_markdown_() and live_in_markdown(s.history._repr_markdown_()) == []
