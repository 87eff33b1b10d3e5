"""The protocol's models: each message survives the wire, a card of every kind fits CardPayload, and an
action that does not fit its model is refused in one sentence."""

from __future__ import annotations

import ast
import inspect
import json
import textwrap
from typing import Any, get_args

import pytest
from pydantic import TypeAdapter

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import CARD_CLASSES, Attachment, Usage
from mewrk_jupyter.engine.assembly.assemble import BROKEN_SIGNATURE
from mewrk_jupyter.errors import InvalidInput
from mewrk_jupyter.widget import protocol
from mewrk_jupyter.widget.actions import ActionHandler
from mewrk_jupyter.widget.payloads import card_payload
from mewrk_jupyter.widget.settings import SettingsHandler, SettingsRequest

CARD = {"id": "c1", "kind": "user_input", "origin": "person", "edited": False, "created_at": 1.5}
CARD = {**CARD, "response_id": None, "text": "hi"}
CONTEXT = protocol.ContextMsg(
    line="≈12 / 200k (0 %)",
    level="ok",
    percent=0.006,
    used=12,
    window=200_000,
    estimated=True,
    by_kind={"user_input": 12},
    used_text="≈12",
    window_text="200k",
    last_request=None,
    last_text=None,
    next_request=12,
    next_text="≈12",
    sizes=["Next request: ≈12 of 200k (0 %)."],
    cost=None,
    cost_line="",
    tool_lock=protocol.ToolLockInfo(text="The prompt cache is warm, so requests keep the tools.", until=1.0),
)
SUMMARY = {"number": 1, "entry_id": 7, "title": "Request 1", "meta": "offline/echo", "sizes": "1 message"}
SUMMARY = {**SUMMARY, "changes": [], "messages": ["user: hi"], "received": ["reply"], "error": None}
HISTORY_ROW = {"id": 7, "number": 1, "summary": SUMMARY, "run_id": "r1", "model": "offline/echo"}
HISTORY_ROW = {**HISTORY_ROW, "protocol": "offline", "started_at": 1.0, "ended_at": 2.0, "messages": 1}
HISTORY_ROW = {**HISTORY_ROW, "usage": {"input_tokens": 3}, "error": None, "answered": True}

# One example of every kernel → view message.
KERNEL_EXAMPLES: list[protocol.SentModel] = [
    protocol.SnapshotMsg(
        for_="v1",
        session=protocol.SessionInfo(id="s1", title="t", model="offline/echo"),
        came_from=protocol.CameFrom(id="s0", title="before"),
        cards=[protocol.CardRow(card=CARD, order_key="a0")],
        state="idle",
        context=CONTEXT,
        kinds=["user_input"],
        editable={"user_input": ["text"]},
        read_only={"preview": "Preview cards are read-only."},
        confirm_delete=False,
        commands=[protocol.CommandInfo(name="undo", synopsis="/undo", summary="Undo the last change.")],
        tools=[
            protocol.ToolInfo(name="ls", description="List.", input_schema={"type": "object"}, reexecute=True)
        ],
        vision=False,
        chunk=2_097_152,
        heartbeat=20.0,
        trust="The configuration folder /w/.mewrk is not trusted yet …",
    ),
    protocol.CardAddedMsg(card=CARD, order_key="a1"),
    protocol.CardChangedMsg(card={**CARD, "edited": True}, order_key="a1"),
    protocol.CardRemovedMsg(card_id="c1"),
    protocol.TextDeltaMsg(card_id="c1", offset=3, text="more"),
    protocol.StateMsg(state="running"),
    protocol.NoticeMsg(level="error", text="The stream broke off."),
    protocol.PreferencesMsg(confirm_delete=True),
    protocol.StatusMsg(text="Compacting the conversation…", busy="compacting"),
    protocol.StatusMsg(text=None),
    CONTEXT,
    protocol.ResultMsg(
        for_="v1",
        req=4,
        ok=True,
        message="",
        card_id=None,
        data={"entries": [HISTORY_ROW], "sent": True, "something_new": [1]},
    ),
]

# One example of every view → kernel message, as the front end sends it.
VIEW_EXAMPLES: list[dict[str, Any]] = [
    {"type": "hello", "view": "v1"},
    {"type": "alive", "view": "v1"},
    {"type": "bye", "view": "v1"},
    {
        "type": "upload",
        "view": "v1",
        "upload_id": "v1-1",
        "name": "a.txt",
        "media_type": "",
        "size": 3,
        "offset": 0,
    },
]
ACTION_EXAMPLES: list[dict[str, Any]] = [
    {"action": "edit", "card_id": "c1", "fields": {"text": "x"}},
    {"action": "insert", "kind": "user_input", "fields": {"text": "x"}, "anchor": None, "where": "after"},
    {"action": "delete", "card_ids": ["c1", "c2"]},
    {"action": "undo"},
    {"action": "redo"},
    {"action": "send", "text": "hi", "attachments": ["v1-1"]},
    {"action": "command", "text": "/help"},
    {"action": "history"},
    {"action": "history_entry", "entry_id": 7},
    {
        "action": "tool_call",
        "name": "ls",
        "params": {},
        "result": None,
        "execute": True,
        "anchor": "c1",
        "where": "before",
    },
    {"action": "reexecute", "card_id": "c1"},
    {"action": "revert", "card_id": "c1"},
    {"action": "tool_image", "card_id": "c1", "index": 0},
    {"action": "approve", "card_id": "c2", "reason": "", "always": True},
    {"action": "reject", "card_id": "c2", "reason": "no"},
    {"action": "stop"},
    {"action": "branch", "card_id": "c1"},
    {"action": "fork", "card_id": "c1"},
    {"action": "compact_now"},
    {"action": "replay", "model": "offline/thinker", "tools": "live"},
    {"action": "prune", "cards": ["c1", "c2"], "dry_run": True},
    {"action": "cache_preview", "card_id": "c1"},
    {"action": "open_session", "session_id": "s2"},
    {"action": "back"},
    {"action": "trust"},
    {"action": "accept_tool_change"},
    {"action": "settings"},
    {"action": "configure", "changes": {"model": "offline/thinker"}},
    {"action": "set_preferences", "changes": {"confirm_delete": True}},
    {"action": "config_read", "path": "agents/main.yaml"},
    {
        "action": "config_save",
        "path": "agents/main.yaml",
        "text": "model: offline/echo\n",
        "version": "v1",
        "overwrite": False,
    },
    {"action": "config_create", "path": "llm/acme.yaml", "text": "protocol: offline\n"},
    {"action": "config_delete", "path": "llm/acme.yaml", "version": None, "overwrite": True},
]


def _tag(model: type, field: str) -> str:
    return get_args(model.model_fields[field].annotation)[0]


def test_the_examples_cover_every_message():
    assert {type(m) for m in KERNEL_EXAMPLES} == set(protocol.KERNEL_MODELS)
    assert [m["type"] for m in VIEW_EXAMPLES] == [_tag(m, "type") for m in protocol.VIEW_MODELS]
    assert [a["action"] for a in ACTION_EXAMPLES] == [_tag(m, "action") for m in protocol.ACTION_MODELS]


@pytest.mark.parametrize("message", KERNEL_EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_kernel_message_survives_the_wire(message):
    carried = json.loads(json.dumps(protocol.wire(message)))
    assert carried["type"] == message.type
    read_back = protocol.KERNEL.validate_python(carried)
    assert type(read_back) is type(message)
    assert protocol.wire(read_back) == carried
    if "for_" in type(message).model_fields:
        assert "for" in carried and "for_" not in carried  # spelled as the front end reads it


@pytest.mark.parametrize("content", VIEW_EXAMPLES, ids=lambda c: c["type"])
def test_every_view_message_is_read_as_sent(content):
    message = protocol.read_view_message(content)
    assert message.model_dump() == content


@pytest.mark.parametrize("action", ACTION_EXAMPLES, ids=lambda a: a["action"])
def test_every_action_is_read_as_sent(action):
    content = {"type": "action", "view": "v1", "req": 3, **action}
    request = protocol.read_action(content)
    assert request.action == action["action"] and request.view == "v1" and request.req == 3
    dumped = request.model_dump()
    assert {key: dumped[key] for key in content} == content  # nothing sent is lost or changed


def _matched(function) -> set[str]:
    """The classes a function's `match` statements name in their patterns."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {
        node.cls.id
        for node in ast.walk(tree)
        if isinstance(node, ast.MatchClass) and isinstance(node.cls, ast.Name)
    }


def test_every_action_has_its_case_and_every_case_its_action():
    # The type checker holds the match complete (assert_never); this says the same without it.
    actions = {m.__name__ for m in protocol.ACTION_MODELS}
    settings = _matched(SettingsHandler.handle)
    assert settings == {m.__name__ for m in get_args(SettingsRequest)}
    assert _matched(ActionHandler.handle) == actions
    assert settings < actions


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        ({"action": "teleport"}, "The widget asked for an unknown action 'teleport'."),
        ({"action": "edit", "fields": {}}, "The widget sent no card id."),
        ({"action": "branch", "card_id": ""}, "The widget sent no card id."),
        ({"action": "undo", "please": True}, "The widget's undo request does not take please."),
        (
            {"action": "insert", "kind": "user_input", "where": "inside"},
            "In the widget's insert request, where is not valid: input should be 'before' or 'after'.",
        ),
        ({"type": "action"}, "The widget sent a message without saying what it asks for."),
    ],
)
def test_an_action_that_does_not_fit_is_refused_in_one_sentence(content, sentence):
    with pytest.raises(InvalidInput) as refused:
        protocol.read_action({"type": "action", **content})
    assert str(refused.value) == sentence


def test_the_widget_answers_a_misfit_action_with_a_result_not_a_traceback(session, widget):
    reply = session.cards[-1]
    bad = widget.do("edit", card_id=reply.id, fields=["not", "an", "object"])
    assert not bad["ok"] and bad["req"] is not None and bad["for"] == "v1"
    assert (
        bad["message"]
        == "In the widget's edit request, fields is not valid: input should be a valid dictionary."
    )
    assert bad["card_id"] == reply.id  # shown on the card it was about
    extra = widget.do("delete", card_ids=[reply.id], everything=True)
    assert not extra["ok"] and extra["message"] == "The widget's delete request does not take everything."
    assert [c.id for c in session.cards][-1] == reply.id  # nothing was done
    widget.receive(widget, {"type": "hello"})  # a message without its view is ignored, not fatal
    widget.receive(widget, ["not", "a", "message"])
    assert widget.do("undo")["message"] == "Nothing to undo in this session."


def _every_kind() -> list[mw.Card]:
    """A card of each kind with every optional field filled, so each field reaches the payload."""
    usage = Usage(input_tokens=1, output_tokens=2)
    filled = {
        "user_input": {
            "attachments": [
                Attachment(name="a.pdf", media_type="application/pdf", data="eA==", size=1, pages=1)
            ]
        },
        "thinking": {
            "signature": "sig",
            "signed_text": "t",
            "encrypted": "e",
            "protocol": "anthropic",
            "bound_to": "c9",
        },
        "tool_call": {"name": "ls", "params": {"path": "."}, "result": "a.py"},
        "model_reply": {"model": "offline/echo", "usage": usage, "stop_reason": "end_turn"},
        "summary_divider": {"tokens_saved": 5},
        "native_compaction": {"encrypted": "blob", "kept": ["c1"]},
        "approval": {"tool_card_id": "c1", "name": "ls", "reason": "fine"},
    }
    return [cls(**filled.get(kind, {}), response_id="resp") for kind, cls in CARD_CLASSES.items()]


def test_a_card_of_every_kind_fits_the_payload_the_views_read():
    check = TypeAdapter(protocol.CardPayload)
    seen: set[str] = set()
    for card in _every_kind():
        payload = card_payload(card, BROKEN_SIGNATURE if card.kind == "thinking" else None)
        read = check.validate_python(payload)  # no field the protocol does not declare, none of a wrong type
        assert check.dump_python(read, mode="json") == payload, card.kind
        seen |= set(payload)
    assert seen == set(protocol.CardPayload.__annotations__)  # and none it declares in vain
