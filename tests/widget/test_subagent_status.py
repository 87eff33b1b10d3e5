"""While a subagent's approval waits, the parent's composer says so on its status line — in the views
open then and in one opened later — and its header's state, and the parent stays free: the person may go
on writing there."""

from __future__ import annotations

import mewrk_jupyter as mw

from ..conftest import wait_for
from ..engine.test_subagents import GATED, SPAWN, agents, ended
from .recording import RecordingWidget

WAITING = (
    "A subagent waits for your approval of `bash`: approve or reject it on its card "
    "(you can keep writing here meanwhile)."
)


def statuses(w: RecordingWidget, after: int = 0) -> list[str | None]:
    return [m["text"] for m in w.sent[after:] if m["type"] == "status"]


def states(w: RecordingWidget, after: int = 0) -> list[str]:
    return [m["state"] for m in w.sent[after:] if m["type"] == "state"]


def test_the_parents_status_line_says_that_a_subagent_waits_and_the_parent_stays_free(workspace):
    agents(workspace)
    s = mw.Session.new()
    w = RecordingWidget(s)
    w.hello()
    s.send(SPAWN % GATED)
    mirror = wait_for(lambda: s.pending_approval)
    wait_for(lambda: WAITING in statuses(w))
    assert s.status_line == WAITING and s.state == "subagent_awaiting_approval"
    wait_for(lambda: states(w)[-1:] == ["subagent_awaiting_approval"])  # the header's word
    later = RecordingWidget(s)  # a view opened while it waits reads the line with the timeline
    later.hello()
    assert statuses(later) == [WAITING]
    mark = len(w.sent)
    assert s.send("meanwhile, something else").state == "done"  # the parent is not held by the approval
    assert statuses(w, mark) == [] and s.pending_approval == s.card(mirror.id)
    assert w.do("approve")["ok"]  # answered from the parent's view
    assert ended(s).state == "completed"
    wait_for(lambda: statuses(w, mark)[-1:] == [None])
    assert s.status_line is None and s.card(mirror.id).decision == "approved"
    assert s.state == "idle"
    wait_for(lambda: states(w)[-1:] == ["idle"])
