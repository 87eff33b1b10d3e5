"""PDFs (T18) over the real SDKs: a document where the protocol takes one, else its extracted text."""

import base64

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.attachments import check_attachments
from mewrk_jupyter.providers.registry import resolve

from ..pdf_files import encrypted_pdf, make_pdf
from .vendors import write_vendor
from .wire import anthropic_reply, chat_reply, responses_reply

REPORT = make_pdf("Quarterly report: revenue up 12%", "Costs flat")
REPORT_B64 = base64.b64encode(REPORT).decode()
EXTRACTED = "[report.pdf: text extracted from the PDF]\nQuarterly report: revenue up 12%\n\nCosts flat"


@pytest.fixture
def vendors(workspace, wire_server, monkeypatch):
    """One workspace with a vendor per protocol, all pointed at the wire server; report.pdf on disk."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    files = {
        "anthropic": ("anthropic-messages", wire_server.url, "claude-test: {context_window: 200000}"),
        "openai": ("openai-responses", wire_server.openai_base_url, "gpt-test: {context_window: 400000}"),
        "deepseek": ("openai-chat", wire_server.openai_base_url, "deepseek-chat: {context_window: 64000}"),
        "oai": ("openai-chat", wire_server.openai_base_url, "gpt-4o: {pdf_input: true}"),
    }
    for vendor, (protocol, url, model) in files.items():
        write_vendor(workspace, vendor, protocol, url, f"  {model}\n", "TEST_KEY")
    (workspace / "report.pdf").write_bytes(REPORT)
    return wire_server


def _user_content(body):
    return body["messages"][-1]["content"]


def test_anthropic_receives_the_pdf_as_a_document_block(vendors):
    vendors.enqueue(anthropic_reply("Revenue is up."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("summarise", attachments=["report.pdf"])
    document, question = _user_content(vendors.last_json())
    assert document == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": REPORT_B64},
        "title": "report.pdf",
    }
    assert question["text"] == "summarise"
    assert s.cards[0].attachments[0].text == "Quarterly report: revenue up 12%\n\nCosts flat"


def test_a_pdf_longer_than_anthropic_takes_goes_as_its_text(vendors, workspace):
    (workspace / "long.pdf").write_bytes(make_pdf(*[f"page {i}" for i in range(101)]))
    vendors.enqueue(anthropic_reply("Long."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("summarise", attachments=["long.pdf"])
    attachment = s.cards[0].attachments[0]
    assert attachment.pages == 101 and attachment.sent_as == "extracted_text"
    first = _user_content(vendors.last_json())[0]
    assert first["type"] == "text" and first["text"].startswith("[long.pdf: text extracted from the PDF]")
    assert "page 100" in first["text"]


def test_openai_responses_receives_the_pdf_as_an_input_file(vendors):
    vendors.enqueue(responses_reply("Revenue is up."))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("summarise", attachments=["report.pdf"])
    content = vendors.last_json()["input"][-1]["content"]
    assert content[0] == {
        "type": "input_file",
        "filename": "report.pdf",
        "file_data": f"data:application/pdf;base64,{REPORT_B64}",
    }


def test_chat_completions_receives_the_extracted_text_naming_the_file(vendors):
    vendors.enqueue(chat_reply("Revenue is up."))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("summarise", attachments=["report.pdf"])
    assert _user_content(vendors.last_json()) == f"{EXTRACTED}\n\nsummarise"
    assert REPORT_B64 not in vendors.last_request().raw_body.decode()


def test_a_chat_model_configured_with_pdf_input_receives_a_file_part(vendors):
    vendors.enqueue(chat_reply("Revenue is up."))
    s = mw.Session.new(model="oai/gpt-4o")
    s.send("summarise", attachments=["report.pdf"])
    file_part = _user_content(vendors.last_json())[0]
    assert file_part == {
        "type": "file",
        "file": {"filename": "report.pdf", "file_data": f"data:application/pdf;base64,{REPORT_B64}"},
    }


def test_after_a_switch_to_a_text_only_model_the_same_pdf_goes_as_text(vendors):
    vendors.enqueue(anthropic_reply("Seen."), chat_reply("Still seen."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("summarise", attachments=["report.pdf"])
    s.configure(model="deepseek/deepseek-chat")
    s.send("and the costs?")
    first_user = vendors.last_json()["messages"][1]
    assert first_user == {"role": "user", "content": f"{EXTRACTED}\n\nsummarise"}


@pytest.mark.parametrize(
    ("pdf", "reason"),
    [
        (make_pdf(None), "it has no text layer, e.g. a scan"),
        (encrypted_pdf("secret text"), "it is encrypted"),
    ],
)
def test_a_pdf_without_text_on_a_text_only_protocol_is_refused_before_anything_is_sent(
    vendors, workspace, pdf, reason
):
    (workspace / "scan.pdf").write_bytes(pdf)
    s = mw.Session.new(model="deepseek/deepseek-chat")
    with pytest.raises(mw.InvalidInput) as caught:
        s.send("what does it say?", attachments=["scan.pdf"])
    assert str(caught.value) == (
        f"`scan.pdf` cannot be read as text ({reason}), and `deepseek/deepseek-chat` takes PDFs only as "
        "extracted text. Nothing was sent — switch to a model that takes PDFs or delete the attachment."
    )
    assert vendors.requests == []
    assert all(c.kind == "user_input" for c in s.cards)  # the question is not lost either way


def test_a_scan_still_goes_as_a_document_where_the_protocol_takes_pdfs(vendors, workspace):
    (workspace / "scan.pdf").write_bytes(make_pdf(None))
    vendors.enqueue(anthropic_reply("It is a drawing."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("what is it?", attachments=["scan.pdf"])
    assert _user_content(vendors.last_json())[0]["type"] == "document"
    assert s.cards[0].attachments[0].text is None


@pytest.mark.parametrize(
    ("model", "sent_as"),
    [
        ("anthropic/claude-test", "original"),
        ("openai/gpt-test", "original"),
        ("oai/gpt-4o", "original"),
        ("deepseek/deepseek-chat", "extracted_text"),
    ],
)
def test_check_attachments_notes_on_the_new_input_how_its_pdf_goes(vendors, workspace, model, sent_as):
    _, info = resolve(model, workspace / ".mewrk")
    pdf = mw.Attachment(name="r.pdf", media_type="application/pdf", data=REPORT_B64, text="x")
    user = mw.UserInput(text="summarise", attachments=[pdf])
    check_attachments([user], info, new=user)
    assert user.attachments[0].sent_as == sent_as


@pytest.mark.parametrize(
    ("model", "reply", "sent_as"),
    [
        ("anthropic/claude-test", anthropic_reply("ok"), "original"),
        ("deepseek/deepseek-chat", chat_reply("ok"), "extracted_text"),
    ],
)
def test_the_card_says_whether_the_model_received_the_original_or_the_text(vendors, model, reply, sent_as):
    vendors.enqueue(reply)
    s = mw.Session.new(model=model)
    s.send("summarise", attachments=["report.pdf"])
    assert s.cards[0].attachments[0].sent_as == sent_as
