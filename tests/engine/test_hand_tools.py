"""Tool cards by hand (T5, T6): Save, Execute and add under the safety level, Re-execute, undo."""

import pytest

import mewrk_jupyter as mw


def allow_bash(workspace):
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True)
    (folder / "default.yaml").write_text("safety_level: default\nallow: [ls, read, bash]\nask: [write]\n")


def test_save_records_the_call_and_its_typed_result_and_runs_nothing(workspace):
    s = mw.Session.new()
    card = s.insert(mw.ToolCall(name="bash", params={"command": "touch ran.txt"}, result="typed"))
    assert card.status == "saved" and card.result == "typed"
    assert not (workspace / "ran.txt").exists() and not s.history


def test_execute_and_add_runs_now_and_inserts_the_real_result(workspace):
    (workspace / "a.txt").write_text("one\n")
    s = mw.Session.new()
    first = s.insert(mw.UserInput(text="look"))
    s.execute("ls", {"path": "."}, after=first.id)
    card = s.cards[1]
    assert card.status == "done" and card.origin == "person" and "a.txt" in card.result
    assert [c.kind for c in s.cards] == ["user_input", "tool_call"]
    assert [h.request["input"] for h in s.history if h.protocol == "tool"] == [{"path": "."}]
    assert not [h for h in s.history if h.protocol != "tool"]  # no model call


def test_undoing_an_execution_removes_the_card_but_not_its_effects(workspace):
    allow_bash(workspace)
    s = mw.Session.new()
    s.execute("bash", {"command": "echo made > made.txt"})
    assert [c.kind for c in s.cards] == ["tool_call"]
    assert s.undo() == "Undid: ran bash"
    assert s.cards == [] and (workspace / "made.txt").read_text() == "made\n"
    s.redo()
    assert s.cards[0].status == "done" and s.cards[0].result is not None


def test_execute_of_an_ask_tool_waits_for_approval_and_then_does_not_call_the_model(workspace):
    s = mw.Session.new()
    s.execute("write", {"path": "w.txt", "content": "x"})
    assert s.state == "awaiting_approval" and not (workspace / "w.txt").exists()
    s.approve()
    assert (workspace / "w.txt").read_text() == "x" and s.state == "idle"
    assert [c.kind for c in s.cards] == ["tool_call", "approval"]
    assert not [h for h in s.history if h.protocol != "tool"]


def test_execute_refuses_denied_unknown_and_malformed_calls_and_adds_nothing(workspace):
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True)
    (folder / "default.yaml").write_text("safety_level: default\nallow: [ls]\ndeny: [bash]\n")
    s = mw.Session.new()
    with pytest.raises(mw.InvalidInput, match="not allowed at the safety level"):
        s.execute("bash", {"command": "true"})
    with pytest.raises(mw.InvalidInput, match="no tool `nope`.*enabled tools: ls"):
        s.execute("nope", {})
    with pytest.raises(mw.InvalidInput, match="parameters are a dict"):
        s.execute("ls", "path=.")
    assert s.cards == []


def test_reexecute_runs_the_edited_parameters_again_and_undo_restores_the_old_result(workspace):
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    s = mw.Session.new()
    s.execute("read", {"path": "a.txt"})
    card = s.cards[0]
    assert "alpha" in card.result
    s.edit(card.id, params={"path": "b.txt"})
    s.reexecute(card.id)
    assert "beta" in s.card(card.id).result and s.card(card.id).params == {"path": "b.txt"}
    s.undo()
    assert "alpha" in s.card(card.id).result


def test_reexecute_exists_only_for_the_read_only_tools(workspace):
    allow_bash(workspace)
    s = mw.Session.new()
    card = s.insert(mw.ToolCall(name="bash", params={"command": "touch x"}, result="saved"))
    with pytest.raises(mw.NotEditable, match="Re-execute exists only for find, grep, ls, lsp, read"):
        s.reexecute(card.id)
    note = s.insert(mw.UserInput(text="hi"))
    with pytest.raises(mw.NotEditable, match="Only a tool call"):
        s.reexecute(note.id)
    assert not (workspace / "x").exists()


def test_undoing_a_hand_run_call_that_asked_first_removes_it_and_its_approval(workspace):
    # The default safety level asks before bash: the call waits, the person approves, then undoes.
    s = mw.Session.new()
    s.execute("bash", {"command": "echo made > made.txt"})
    assert s.state == "awaiting_approval"
    s.approve()
    assert [c.kind for c in s.cards] == ["tool_call", "approval"] and s.cards[0].status == "done"
    assert s.undo() == "Undid: ran bash"
    assert s.cards == [] and (workspace / "made.txt").read_text() == "made\n"
    assert s.redo() == "Redid: ran bash"
    assert [c.kind for c in s.cards] == ["tool_call", "approval"]
    assert s.cards[0].status == "done" and s.cards[1].decision == "approved"


def test_undoing_a_hand_run_call_the_person_rejected_removes_it_too(workspace):
    s = mw.Session.new()
    s.execute("bash", {"command": "echo made > made.txt"})
    s.reject("not now")
    assert s.cards[0].status == "rejected"
    assert s.undo() == "Undid: ran bash" and s.cards == []
    assert not (workspace / "made.txt").exists()


def test_the_approval_of_a_call_run_by_hand_says_the_person_asked(workspace):
    s = mw.Session.new()
    s.execute("bash", {"command": "echo by-hand"})
    approval = s.pending_approval
    assert approval.asked_by == "person" and approval.title_line() == "You asked to run bash"
    assert "You asked to run bash" in repr(approval) and "You asked to run" in s._repr_markdown_()
    model = mw.Session.new()
    model.send('call: bash {"command": "echo by-model"}')
    assert model.pending_approval.asked_by == "model"
    assert model.pending_approval.title_line() == "The model asks to run bash"


def test_undoing_a_reexecution_that_asked_first_restores_the_old_result_and_removes_its_approval(workspace):
    (workspace / "b.txt").write_text("beta\n")
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True)
    (folder / "default.yaml").write_text("safety_level: default\nask: [read]\n")
    s = mw.Session.new()
    card = s.insert(mw.ToolCall(name="read", params={"path": "b.txt"}, result="typed by hand"))
    s.reexecute(card.id)
    assert s.state == "awaiting_approval" and s.pending_approval.title_line() == "You asked to run read"
    s.approve()
    assert "beta" in s.card(card.id).result and [c.kind for c in s.cards] == ["tool_call", "approval"]
    assert s.undo() == "Undid: ran read again"
    assert s.card(card.id).result == "typed by hand" and [c.kind for c in s.cards] == ["tool_call"]
    assert s.redo() == "Redid: ran read again"
    assert "beta" in s.card(card.id).result and [c.kind for c in s.cards] == ["tool_call", "approval"]
