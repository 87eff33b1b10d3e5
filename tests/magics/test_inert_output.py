"""What `%mewrk` commands show in the notebook quotes cards, titles and configuration inert."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter import magics
from tests.markup import live_in_markdown

ATTACK = "<img src=x onerror=alert(1)> [x](javascript:alert(1))"


def test_sentences_tables_and_errors_quoting_hostile_text_do_not_act(mewrk, workspace):
    tools = workspace / ".mewrk" / "tools"
    tools.mkdir(parents=True)
    (tools / "shout.yaml").write_text(
        f"name: shout\ndescription: '{ATTACK}'\ncommand: echo hi\nparameters: {{type: object}}\n"
    )
    mw.trust(workspace)  # the test wrote the command tool: its folder may run it
    mewrk(f"new '{ATTACK}'")
    session = magics.current_session()
    assert session.title == ATTACK
    reply = session.insert(mw.ModelReply(text=ATTACK))
    outputs = {
        "branch": mewrk(f"branch {reply.id}"),  # the sentence quotes the card's first line
        "sessions": mewrk("sessions"),
        "tools": mewrk("tools"),
        "cards": mewrk("cards"),
        "error": mewrk(f"edit {ATTACK}"),
    }
    for name, shown in outputs.items():
        assert "onerror=alert(1)" in shown or name == "error", (name, shown)
        assert live_in_markdown(shown) == [], (name, shown)
