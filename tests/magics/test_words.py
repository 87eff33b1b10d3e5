"""What `%mewrk` says in words a person uses: card kinds, plurals, the two context sizes, no codes."""

from __future__ import annotations

import re

from mewrk_jupyter import magics

CODE = re.compile(r"\b[TADNSRC]\d{1,2}\b")


def test_context_says_both_sizes_and_the_kinds_in_words(mewrk):
    mewrk("new")
    empty = mewrk("context")
    assert "Context: ≈0 / 32k (0 %)" in empty and "Last request: none sent yet." in empty
    mewrk("send hello")
    session = magics.current_session()
    shown = mewrk("context")
    sent = session.context.last_request
    assert f"Context: last request ≈{sent} / 32k (0 %) · next ≈{session.context.next_request}`" in shown
    assert f"Last request: ≈{sent} tokens of 32k (0 %) — the vendor's own count of what was sent." in shown
    assert f"Next request: ≈{session.context.next_request} of 32k" in shown
    assert "| Model | ≈" in shown and "| You | ≈" in shown
    assert "model_reply" not in shown and "user_input" not in shown and "~" not in shown


def test_delete_edit_and_undo_name_cards_in_words(mewrk):
    mewrk("new")
    mewrk("send hello")
    reply = magics.current_session().cards[-1].id
    assert mewrk("edit -1 A better answer.").startswith(f"Edited reply `{reply}`")
    assert mewrk("undo").startswith("Undid: edited reply.")
    assert mewrk("redo").startswith("Redid: edited reply.")
    assert mewrk("delete -1").startswith(f"Deleted reply `{reply}` — `%mewrk undo` brings it back.")
    assert mewrk("undo").startswith("Undid: deleted reply.")


def test_help_has_no_requirement_codes(mewrk):
    shown = mewrk("help")
    assert "%mewrk continue" in shown and not CODE.search(shown)
