"""Sending, continuing and the history: what each request carried, exactly (T1, T2, T12, T17)."""

import json

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.context import ContextInfo
from mewrk_jupyter.engine.assembly.prefix import ENGINE_SECTION


def sent_messages(entry):
    return entry.request["messages"]


def test_send_adds_the_question_and_the_streamed_reply(workspace):
    s = mw.Session.new()
    run = s.send("What is 2+2?")
    assert run.state == "done" and run.error is None
    user, reply = s.cards
    assert (user.kind, user.text) == ("user_input", "What is 2+2?")
    assert reply.kind == "model_reply" and reply.complete and not reply.interrupted
    assert reply.text.startswith("You said: “What is 2+2?”")
    assert reply.usage.output_tokens > 0 and reply.model == "offline/echo"
    assert [c.id for c in run.cards] == [user.id, reply.id]


def test_continue_runs_on_the_timeline_as_it_stands(workspace):
    s = mw.Session.new()
    s.send("hi")
    s.edit(s.cards[-1].id, text="An edited answer.")
    s.send()  # no text: continue (T12), no new user card
    assert [c.kind for c in s.cards] == ["user_input", "model_reply", "model_reply"]
    assert "An edited answer." in s.cards[-1].text
    s.send("   ")  # only spaces also continues
    assert [c.kind for c in s.cards].count("user_input") == 1


def test_each_request_is_recorded_as_sent_and_survives_later_edits(workspace):
    s = mw.Session.new()
    s.send("first question")
    reply = s.cards[-1]
    s.edit(reply.id, text="EDITED REPLY")
    s.send("second question")
    first, second = s.history
    assert sent_messages(first) == [{"role": "user", "parts": [{"type": "text", "text": "first question"}]}]
    assert sent_messages(second)[1] == {
        "role": "assistant",
        "parts": [{"type": "text", "text": "EDITED REPLY"}],
    }
    assert first.response["parts"][0]["text"].startswith("You said: “first question”")
    assert first.response["usage"]["input_tokens"] > 0
    # Editing or deleting cards now does not rewrite what was sent then.
    s.delete(*[c.id for c in s.cards])
    again = s.history
    assert sent_messages(again[1])[1]["parts"][0]["text"] == "EDITED REPLY"
    assert again[0].request == first.request


def test_no_edit_marker_is_ever_sent(workspace):
    s = mw.Session.new()
    s.send("question")
    s.edit(s.cards[0].id, text="question (edited by hand)")
    s.edit(s.cards[1].id, text="answer (edited by hand)")
    s.send()
    body = json.dumps(s.history[-1].request)
    assert "edited" not in body.replace("(edited by hand)", "")
    for message in s.history[-1].request["messages"]:
        for part in message["parts"]:
            assert set(part) <= {
                "type",
                "text",
                "signature",
                "signed_text",
                "encrypted",
                "protocol",
                "id",
                "name",
                "input",
                "tool_use_id",
                "content",
                "is_error",
                "media_type",
                "data",
            }


def test_hidden_prefix_holds_engine_section_project_instructions_and_memory(workspace, tmp_path):
    (workspace / "AGENTS.md").write_text("Use tabs.")
    (workspace / "MEWRK.md").write_text("Answer in French.")
    (workspace / ".mewrk").mkdir(exist_ok=True)
    (workspace / ".mewrk" / "MEMORY.md").write_text("- project memory index")
    user_memory = tmp_path / "home" / ".mewrk"
    user_memory.mkdir(parents=True)
    (user_memory / "MEMORY.md").write_text("- user memory index")
    s = mw.Session.new()
    s.insert(mw.SystemPrompt(text="A system prompt card."))
    s.send("hi")
    system = s.history[-1].request["system"]
    assert system[0] == ENGINE_SECTION
    assert "Use tabs." in system[1] and "AGENTS.md" in system[1]
    assert "Answer in French." in system[2]
    assert "user memory index" in system[3] and "project memory index" in system[4]
    assert system[5] == "A system prompt card."
    # The timeline does not show the prefix.
    assert [c.kind for c in s.cards] == ["system_prompt", "user_input", "model_reply"]


def test_a_disabled_memory_level_is_not_sent(workspace, tmp_path):
    (tmp_path / "home" / ".mewrk").mkdir(parents=True)
    (tmp_path / "home" / ".mewrk" / "MEMORY.md").write_text("- user memory index")
    s = mw.Session.new(memory=["project"])
    s.send("hi")
    assert not any("user memory index" in part for part in s.history[-1].request["system"])
    with pytest.raises(mw.InvalidInput, match="unknown memory level"):
        mw.Session.new(memory=["team"])


def test_tool_calls_pair_with_their_results_and_the_loop_continues(workspace):
    (workspace / "a.txt").write_text("hello\n")
    s = mw.Session.new()
    s.send('call: ls {"path": "."}\ncall: read {"path": "a.txt"}')
    kinds = [c.kind for c in s.cards]
    assert kinds == ["user_input", "model_reply", "tool_call", "tool_call", "model_reply"]
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert [c.status for c in calls] == ["done", "done"] and not any(c.is_error for c in calls)
    assert "a.txt" in calls[0].result and "hello" in calls[1].result
    second = [h for h in s.history if h.protocol != "tool"][1].request["messages"]
    assistant, results = second[1], second[2]
    assert [p["type"] for p in assistant["parts"]] == ["text", "tool_use", "tool_use"]
    assert [p["tool_use_id"] for p in results["parts"]] == [c.call_id for c in calls]
    assert s.cards[-1].text.count("returned") == 2


def test_a_hand_inserted_tool_call_is_sent_with_its_typed_result(workspace):
    s = mw.Session.new()
    s.insert(mw.UserInput(text="list files"))
    s.insert(mw.ToolCall(name="bash", params={"command": "ls"}, result="a.txt\nb.txt"))
    s.send()
    messages = s.history[-1].request["messages"]
    assert messages[1]["parts"][0] == {
        "type": "tool_use",
        "id": s.cards[1].call_id,
        "name": "bash",
        "input": {"command": "ls"},
    }
    assert messages[2]["parts"][0]["content"] == "a.txt\nb.txt"
    assert "a.txt" in s.cards[-1].text


def test_thinking_is_streamed_into_its_own_card_and_signed_by_the_thinker(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("think: step by step\nhello")
    thinking = s.cards[1]
    assert thinking.kind == "thinking" and thinking.text == "step by step"
    assert thinking.signature and thinking.signed_text == "step by step"
    assert s.history[-1].response["parts"][0]["signature"] == thinking.signature


def test_an_unknown_model_is_a_clear_error_before_anything_is_sent(workspace):
    with pytest.raises(mw.ConfigError, match=r"The model `nowhere/x` is not in `\.mewrk/llm/nowhere\.yaml`"):
        mw.Session.new(model="nowhere/x")
    with pytest.raises(mw.ConfigError, match="vendor/model"):
        mw.Session.new(model="echo")
    with pytest.raises(mw.ConfigError, match="not an offline model"):
        mw.Session.new(model="offline/nope")


def test_context_figures_say_the_last_requests_size_and_the_next_ones(workspace):
    s = mw.Session.new()
    assert s.context.line() == "Agent: main · offline/echo · Reasoning: off · Context: ≈0 / 32k (0 %)"
    assert s.context.last_request is None and s.context.estimated
    s.send("long: 50")
    info = s.context
    sent = s.history[-1].response["usage"]["input_tokens"]
    # The figure is the most recent request's size, the vendor's own count (marked ≈ all the same: a
    # vendor counts its own way), not an estimate of the engine's.
    assert info.used == info.last_request == sent > 0 and not info.estimated and not info.last_stopped
    reply = info.by_kind["model_reply"]
    assert reply >= 50 and abs(info.next_request - (sent + reply)) <= 2  # the next one carries the reply
    assert info.window == 32_000
    assert set(info.by_kind) == {"user_input", "model_reply"}
    assert info.line().endswith(
        f"Context: last request ≈{sent} / 32k ({info.percent:.0f} %) · next ≈{info.next_request}"
    )
    s.delete(s.cards[-1].id)  # the next request no longer carries the reply; the last one's size stays
    assert s.context.used == sent and abs(s.context.next_request - sent) <= 2
    s.send()
    assert s.context.used == s.history[-1].response["usage"]["input_tokens"]


def test_after_a_stopped_request_the_figure_is_that_requests_estimate(workspace):
    s = mw.Session.new(model="offline/slow")
    s.send("hello")
    before = s.context.last_request
    stopped: list[str] = []

    def stop_at_the_first_words(event):  # the person presses Stop once the reply has begun
        if event.kind == "text_delta" and not stopped:
            stopped.append(event.card_id)
            s.stop()

    unsubscribe = s.subscribe(stop_at_the_first_words)
    s.send("Tell me a long story.\nlong: 2000")
    unsubscribe()
    assert s.last_run.state == "stopped" and s.history[-1].response["usage"] is None  # no vendor's count
    info = s.context
    # The figure is the stopped request, by the engine's estimate, and says so; not the request before.
    assert info.last_stopped and info.estimated and info.used == info.last_request
    assert info.last_request > before  # it carried the first exchange and the new question
    assert info.next_request > info.last_request  # the next one carries the stopped reply's words too
    assert info.line().endswith(
        f"Context: last request (stopped, estimated) ≈{info.last_request} / 32k ({info.percent:.0f} %) "
        f"· next ≈{info.next_request}"
    )
    assert info.sizes()[1] == (
        f"Last request: ≈{info.last_request} tokens of 32k ({info.percent:.0f} %) — an estimate: it was "
        "stopped before the vendor counted it."
    )
    s.send("go on")  # answered: the vendor's count again
    again = s.context
    assert again.last_request == s.history[-1].response["usage"]["input_tokens"] and not again.last_stopped


def test_context_without_a_window_counts_tokens_with_the_right_plural():
    one = ContextInfo(
        agent="main", model="x/y", reasoning="off", used=1, window=None, estimated=True, by_kind={}
    )
    assert one.figure() == "≈1 token"
    both = one.model_copy(
        update={"used": 1_200, "estimated": False, "last_request": 1_200, "next_request": 1_500}
    )
    assert both.figure() == "last request ≈1.2k tokens · next ≈1.5k"


def test_the_dashboard_turns_amber_by_the_larger_of_the_last_and_the_next_request():
    info = ContextInfo(
        agent="main",
        model="x/y",
        reasoning="off",
        used=1_000,
        window=2_000,
        estimated=False,
        by_kind={},
        last_request=1_000,
        next_request=1_700,
    )
    assert info.percent == 50 and info.level == "amber"  # the next send would fill 85 %: say so now


def test_one_history_entry_is_read_by_its_id(workspace):
    s = mw.Session.new()
    s.send("one")
    s.send("two")
    second = s.history[1]
    assert s.history_entry(second.id) == second
    assert s.history_entry(10_000) is None
    other = mw.Session.new()
    assert other.history_entry(second.id) is None  # an entry of another session is not this one's


def test_a_lone_surrogate_in_a_message_is_refused_with_a_sentence_and_nothing_is_stored(workspace):
    s = mw.Session.new()
    s.send("hi")
    before = [(c.id, c.text) for c in s.cards]
    for text in ("\ud800", "half a pair: \udfff, then more"):
        with pytest.raises(mw.InvalidInput) as err:
            s.send(text)
        assert str(err.value).startswith("The message holds a lone surrogate")
    assert [(c.id, c.text) for c in mw.Session.open(s.id).cards] == before
    assert s.send("whole again").state == "done"
