"""Workflows with the offline models (X8): steps run one after the other, each a subagent session that
reads the workflow's input and the results before it; started by the model's `workflow` call or by the
person; results as a `<task-notification>` or the call's output; approvals answered on the starting
timeline; Stop; the handoff's refusal; a bad file or an unknown name as a sentence."""

from __future__ import annotations

import json

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config.loader import read_config
from mewrk_jupyter.engine.background.tasks import running_background_work
from mewrk_jupyter.engine.subagents.limits import MAX_RUNNING
from mewrk_jupyter.store import sessions as session_rows

from ..conftest import run_python, wait_for
from ..ports import free_port
from ..providers.vendors import write_vendor

REVIEW = """\
description: Review a module, then fix what the review found
steps:
  - name: review
    agent: reviewer
    prompt: Review {input}.
  - name: fix
    prompt: "Fix {input} as the review says: {review}"
"""
# A step that calls bash, which asks first: the test decides when it ends.
GATED = """\
steps:
  - name: check
    agent: reviewer
    prompt: 'call: bash {"command": "echo checked {input}"}'
  - name: report
    agent: reviewer
    prompt: Report.
"""


def folder(workspace, main_tools="[ls, read, workflow, task_wait]", **workflows: str) -> None:
    home = workspace / ".mewrk"
    (home / "agents").mkdir(parents=True, exist_ok=True)
    (home / "workflows").mkdir(parents=True, exist_ok=True)
    (home / "agents" / "main.yaml").write_text(f"model: offline/echo\ntools: {main_tools}\n")
    (home / "agents" / "reviewer.yaml").write_text(
        "model: offline/echo\ntools: [ls, read, bash]\nsystem_prompt: You review code.\n"
    )
    for name, text in {"review": REVIEW, "gated": GATED, **workflows}.items():
        (home / "workflows" / f"{name}.yaml").write_text(text)
    mw.trust(workspace)


def workflow_card(s: mw.Session) -> mw.Workflow:
    return next(c for c in s.cards if isinstance(c, mw.Workflow))


def ended(s: mw.Session) -> mw.Workflow:
    return wait_for(lambda: (c := workflow_card(s)).state in ("completed", "failed", "stopped") and c)


def notifications(s: mw.Session) -> list[mw.HostMessage]:
    return [c for c in s.cards if isinstance(c, mw.HostMessage) and c.topic == "task_notification"]


def test_a_person_starts_a_workflow_whose_steps_run_in_order_as_subagent_sessions(workspace):
    folder(workspace)
    s = mw.Session.new()
    card = s.workflow("review", "the parser")
    assert (card.name, card.text, card.origin) == ("review", "the parser", "person")
    assert [(step.name, step.agent) for step in card.steps] == [("review", "reviewer"), ("fix", "main")]
    card = ended(s)
    assert card.state == "completed" and [step.state for step in card.steps] == ["completed", "completed"]
    review, fix = card.step_session("review"), card.step_session(1)
    # Each step is a stored subagent session of the starting conversation (never auto-compacting), with
    # its agent's system prompt, and its prompt filled with the input and the earlier step's result.
    conn = s.stored_timeline.db.conn()
    for step in (review, fix):
        row = session_rows.get_session(conn, step.id)
        assert row["parent_id"] == s.id and row["subagent"] == session_rows.WORKFLOW_STEP
    assert review.title == "review · review: Review the parser."
    assert [c.kind for c in review.cards] == ["system_prompt", "user_input", "model_reply"]
    assert review.cards[1].text == "Review the parser."
    assert fix.cards[0].text == f"Fix the parser as the review says: {card.steps[0].result}"
    assert card.steps[0].result == review.cards[-1].text
    assert card.result == card.steps[1].result == fix.cards[-1].text
    # Read-only, and not sent: the model reads the result when it arrives, not the card.
    with pytest.raises(mw.NotEditable, match="read-only"):
        s.edit(card.id, text="something else")
    s.send("and?")
    [note] = notifications(s)
    assert "<status>completed</status>" in note.text and "The workflow `review` completed." in note.text
    assert card.result in note.text and card.task_id in note.text
    [sent] = s.history[-1].request["messages"]  # the card is not sent: one message, the person's
    assert sent["role"] == "user" and json.dumps(sent).count("<task-notification>") == 1


def test_a_steps_timeline_is_a_read_only_record_and_a_branch_of_it_is_a_conversation(workspace):
    folder(workspace)
    s = mw.Session.new()
    s.workflow("gated", "x")
    wait_for(lambda: s.pending_approval)
    step = workflow_card(s).step_session("check")
    assert step.read_only.startswith("This is a workflow step's own timeline") and s.read_only is None
    reply = step.cards[-1]
    refusals = [
        lambda: step.send("something else"),
        lambda: step.send(None),
        lambda: step.edit(reply.id, text="changed"),
        lambda: step.insert(mw.UserInput(text="more")),
        lambda: step.delete(reply.id),
        lambda: step.undo(),
        lambda: step.execute("ls", {}),
        lambda: step.workflow("review", "y"),
        lambda: step.compact(),
    ]
    for refused in refusals:
        with pytest.raises(mw.NotEditable, match="read-only: branch it to go on from it"):
            refused()
    # Its approval is still the person's to decide there (or on the starting timeline).
    step.approve()
    card = ended(s)
    assert card.state == "completed" and step.cards[-1].kind == "model_reply"
    branch = step.branch(step.cards[-1])
    assert branch.read_only is None
    assert branch.send("and now?").state == "done"


def test_a_step_without_a_placeholder_gets_the_previous_result_after_its_prompt(workspace):
    folder(workspace, plain="steps:\n  - prompt: First {input}.\n  - prompt: Second.\n")
    s = mw.Session.new()
    s.workflow("plain", "x")
    card = ended(s)
    assert [step.name for step in card.steps] == ["step1", "step2"]
    second = card.step_session("step2").cards[0].text
    assert second == f"Second.\n\nThe previous step's result:\n\n{card.steps[0].result}"


def test_the_models_workflow_call_starts_it_and_the_result_arrives_as_a_notification(workspace):
    folder(workspace)
    s = mw.Session.new()
    spec = next(t for t in s.tool_specs() if t.name == "workflow")
    assert "`review` (Review a module, then fix what the review found)" in spec.description
    assert "`gated`" in spec.description and "task_wait" in {t.name for t in s.tool_specs()}
    s.send("call: workflow " + json.dumps({"name": "review", "input": "the lexer"}))
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.status == "done" and not call.is_error
    assert call.result.startswith("Started the workflow `review` in the background as task `task_")
    card = ended(s)
    assert card.origin == "engine" and card.text == "the lexer"
    s.send("go on")
    [note] = notifications(s)
    assert card.result in note.text


def test_with_async_tool_calls_the_result_becomes_the_workflow_calls_output(workspace):
    folder(workspace)
    s = mw.Session.new(model="offline/big", async_tools=True)
    s.send("call: workflow " + json.dumps({"name": "review", "input": "the lexer"}))
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert "its result will replace this output when it ends" in call.result
    card = ended(s)
    s.send("go on")
    assert s.card(call.id).result == card.result and notifications(s) == []


def test_a_steps_approval_is_answered_on_the_starting_timeline_and_the_next_step_follows(workspace):
    folder(workspace)
    s = mw.Session.new()
    s.workflow("gated", "the parser")
    mirror = wait_for(lambda: s.pending_approval)
    assert mirror.name == "bash" and mirror.params == {"command": "echo checked the parser"}
    card = wait_for(lambda: (c := workflow_card(s)).state == "awaiting_approval" and c)
    assert card.steps[0].state == "awaiting_approval" and card.steps[1].state == "waiting"
    assert mirror.session_id == card.steps[0].session_id
    assert s.state == "subagent_awaiting_approval"
    assert running_background_work(s.id) == [f"workflow `gated` ({card.task_id}, waiting for an approval)"]
    s.approve()
    card = ended(s)
    assert card.state == "completed" and [step.state for step in card.steps] == ["completed", "completed"]
    check = card.step_session("check")
    assert "checked the parser" in next(c for c in check.cards if c.kind == "tool_call").result
    assert card.step_session("report").cards[1].text.startswith("Report.\n\nThe previous step's result:")


def test_stop_stops_the_step_at_work_and_the_steps_after_it(workspace):
    folder(workspace)
    s = mw.Session.new()
    s.workflow("gated", "x")
    wait_for(lambda: s.pending_approval)
    assert s.stop()
    card = ended(s)
    assert card.state == "stopped" and [step.state for step in card.steps] == ["stopped", "waiting"]
    assert card.result.startswith("The step `check` (1 of 2) was stopped:")
    assert s.pending_approval is None and s.state == "idle"
    assert running_background_work(s.id) == []


def test_compact_now_refuses_while_a_workflow_runs(workspace):
    folder(workspace)
    s = mw.Session.new()
    s.send("hello")
    s.workflow("gated", "x")
    wait_for(lambda: s.pending_approval)
    task_id = workflow_card(s).task_id
    with pytest.raises(
        mw.MewrkError, match=rf"Background work is still running \(workflow `gated` \({task_id}"
    ):
        s.compact_now()
    s.reject()
    assert ended(s).state == "completed"  # the step read the rejection and replied; the next step ran


def test_a_failed_step_ends_the_workflow_and_the_later_steps_do_not_run(workspace, monkeypatch):
    folder(workspace, failing="steps:\n  - agent: away\n    prompt: Hi.\n  - prompt: Never.\n")
    # A vendor nobody listens for: the step's turn fails as a request to a server that is down does.
    monkeypatch.setenv("AWAY_KEY", "sk-away-0000")
    models = "  m:\n    context_window: 8000\n"
    write_vendor(workspace, "away", "openai-chat", f"http://127.0.0.1:{free_port()}/v1", models, "AWAY_KEY")
    (workspace / ".mewrk" / "agents" / "away.yaml").write_text("model: away/m\n")
    mw.trust(workspace)
    s = mw.Session.new()
    s.workflow("failing", "")
    card = ended(s)
    assert card.state == "failed" and [step.state for step in card.steps] == ["failed", "waiting"]
    assert card.result.startswith(
        "The step `step1` (1 of 2) failed: The subagent's turn failed: Could not reach"
    )
    assert "sk-away" not in card.result


def test_unknown_workflows_agents_and_models_are_refused_before_anything_starts(workspace):
    folder(
        workspace,
        stranger="steps:\n  - agent: nobody\n    prompt: Hi.\n",
        elsewhere="steps:\n  - prompt: Hi.\n  - agent: lost\n    prompt: Bye.\n",
    )
    (workspace / ".mewrk" / "agents" / "lost.yaml").write_text("model: nowhere/none\n")
    s = mw.Session.new()
    with pytest.raises(
        mw.InvalidInput, match=r"There is no workflow `nope`.*the workflows: `elsewhere`, `gated`"
    ):
        s.workflow("nope")
    with pytest.raises(mw.InvalidInput, match="No workflow was started: There is no agent `nobody`"):
        s.workflow("stranger")
    with pytest.raises(mw.InvalidInput, match="No workflow was started: .*nowhere"):
        s.workflow("elsewhere")
    assert [c for c in s.cards if isinstance(c, mw.Workflow)] == []
    s.send("call: workflow " + json.dumps({"name": "nope", "input": ""}))
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.is_error and "There is no workflow `nope`" in call.result


def test_a_bad_workflow_file_is_a_sentence_naming_its_file_and_line_and_the_rest_works(workspace):
    folder(
        workspace,
        typo="steps:\n  - name: look\n    prompt: Look at {input}.\n  - prompt: |\n      Fix {lok}.\n",
        empty="steps: []\n",
        twice="steps:\n  - name: a\n    prompt: x\n  - name: a\n    prompt: y\n",
    )
    config = read_config(workspace / ".mewrk")
    said = {p.file: (p.line, p.message) for p in config.problems}
    assert said["workflows/typo.yaml"] == (
        4,
        "steps.1.prompt: {lok} is not something this step can read; it can read {input}, {previous}, {look}",
    )
    assert said["workflows/empty.yaml"][1] == "steps must list at least one step"
    assert said["workflows/twice.yaml"][0] == 4 and "'a' is taken" in said["workflows/twice.yaml"][1]
    assert set(config.workflows) == {"review", "gated"}
    # A new session says so too, each problem with its line; the other workflows load.
    with pytest.warns(mw.ConfigNotice, match=r"workflows/typo.yaml: steps.1.prompt: \{lok\} .* \(line 4\)"):
        s = mw.Session.new()
    with pytest.raises(
        mw.InvalidInput, match=r"started: workflows/typo.yaml: steps.1.prompt: \{lok\} .* \(line 4\)$"
    ):
        s.workflow("typo")
    s.workflow("review", "still works")
    assert ended(s).state == "completed"


def test_a_workflow_left_behind_by_a_process_that_ended_is_settled_at_the_next_request(workspace):
    folder(workspace)
    code = "\n".join(
        [
            "import time",
            "import mewrk_jupyter as mw",
            "s = mw.Session.new(title='left')",
            "s.workflow('gated', 'x')",
            "deadline = time.monotonic() + 30",
            "def waiting():",
            "    card = next(c for c in s.cards if c.kind == 'workflow')",
            "    return s.pending_approval is not None and card.state == 'awaiting_approval'",
            "while not waiting() and time.monotonic() < deadline:",
            "    time.sleep(0.01)",
            "print(s.id)",
        ]
    )
    done = run_python(code, workspace)
    assert done.returncode == 0, done.stderr
    s = mw.Session.open(done.stdout.split()[-1])
    assert workflow_card(s).state == "awaiting_approval"
    s.send("what happened?")
    card = workflow_card(s)
    assert card.state == "stopped" and card.result.endswith("each step's own session keeps what it did.)")
    assert [step.state for step in card.steps] == ["stopped", "waiting"]
    assert next(c for c in s.cards if c.kind == "approval").decision == "expired"
    [note] = notifications(s)
    assert "<status>stopped</status>" in note.text and card.task_id in note.text


def test_plan_mode_turned_on_while_a_step_waits_reaches_it_and_the_steps_after_it(workspace):
    folder(workspace)
    s = mw.Session.new()
    s.workflow("gated", "x")
    mirror = wait_for(lambda: s.pending_approval)
    step = workflow_card(s).step_session("check")
    assert not step.settings.plan_mode
    s.configure(plan_mode=True)
    # The step's approval of bash is withdrawn, and it goes on planning; so does the step after it.
    assert step.settings.plan_mode and s.card(mirror.id).decision == "expired"
    card = ended(s)
    assert card.state == "completed"
    assert next(c for c in step.cards if c.kind == "tool_call").status == "denied"
    assert card.step_session("report").settings.plan_mode


def test_a_stop_right_after_the_start_stops_the_first_step_before_it_runs_anything(workspace):
    folder(
        workspace,
        slow='steps:\n  - agent: fast\n    prompt: "long: 3000\\ncall: bash {\\"command\\": \\"touch made\\"}"\n',
    )
    (workspace / ".mewrk" / "agents" / "fast.yaml").write_text("model: offline/slow\ntools: [bash]\n")
    (workspace / ".mewrk" / "policy").mkdir(exist_ok=True)
    (workspace / ".mewrk" / "policy" / "free.yaml").write_text("safety_level: free\nallow: [bash]\n")
    mw.trust(workspace)
    s = mw.Session.new(safety_level="free")
    s.workflow("slow", "")
    assert s.stop()
    card = ended(s)
    assert card.state == "stopped" and card.steps[0].state in ("stopped", "waiting")
    assert not (workspace / "made").exists()
    assert running_background_work(s.id) == []


def test_a_workflow_whose_first_prompt_is_empty_is_refused_and_counts_toward_the_limit(workspace):
    folder(workspace, echo="steps:\n  - prompt: '{input}'\n")
    s = mw.Session.new()
    with pytest.raises(
        mw.InvalidInput, match="the first step `step1` reads only what the workflow is started"
    ):
        s.workflow("echo", "  ")
    assert [c for c in s.cards if isinstance(c, mw.Workflow)] == []
    started = [s.workflow("gated", str(i)) for i in range(MAX_RUNNING)]
    with pytest.raises(mw.InvalidInput, match=f"{MAX_RUNNING} subagents already run in this conversation"):
        s.workflow("gated", "one too many")
    assert len(started) == MAX_RUNNING
    assert s.stop()
    wait_for(lambda: all(c.state == "stopped" for c in s.cards if isinstance(c, mw.Workflow)))


def test_a_workflow_card_put_back_by_undo_after_the_workflow_ended_says_how_it_ended(workspace):
    folder(workspace)
    s = mw.Session.new()
    s.workflow("gated", "x")
    wait_for(lambda: s.pending_approval)
    # The card says so a moment after the approval shows: delete it once it does.
    card = wait_for(lambda: workflow_card(s).state == "awaiting_approval" and workflow_card(s))
    s.delete(card.id)
    s.stop()
    wait_for(lambda: running_background_work(s.id) == [])
    s.undo()
    assert workflow_card(s).state == "awaiting_approval"  # as it was when it was deleted
    s.send("and?")
    back = workflow_card(s)
    assert back.state == "stopped" and back.result.startswith("The step `check` (1 of 2) was stopped")
    assert len(notifications(s)) == 1
