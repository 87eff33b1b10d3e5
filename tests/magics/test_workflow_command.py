"""`%mewrk workflow NAME TEXT` (X8): a workflow started from a notebook cell, its card on the session's
timeline, its result for the model; a refusal in one line."""

from __future__ import annotations

from mewrk_jupyter import magics

from ..conftest import wait_for
from ..engine.test_workflows import folder


def test_workflow_starts_it_in_the_background_and_says_which_steps_it_has(mewrk, workspace):
    folder(workspace)
    mewrk("new")
    session = magics.current_session()
    out = mewrk("workflow review the parser module")
    assert out.strip() == (
        "Started the workflow `review` in the background (`review`, `fix`); its card shows each step, and "
        "its result reaches the model before its next request."
    )
    card = wait_for(lambda: (c := session.cards[-1]).state == "completed" and c)
    assert card.kind == "workflow" and card.text == "the parser module"
    assert card.step_session("review").cards[1].text == "Review the parser module."
    refused = mewrk("workflow nope")
    assert refused.strip().startswith("**mewrk:** No workflow was started: There is no workflow `nope`")
    assert "`review`" in refused and [c.kind for c in session.cards].count("workflow") == 1
    usage = mewrk("workflow")
    assert "workflow NAME [TEXT]" in usage
