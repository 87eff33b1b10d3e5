"""Attachments (T18) and the vision gate (T19)."""

import base64
import tracemalloc

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import Attachment, ToolCall, UserInput
from mewrk_jupyter.engine.assembly.assemble import assemble
from mewrk_jupyter.engine.assembly.attachments import UnreadablePdf, check_attachments, pdf_text
from mewrk_jupyter.providers.base import ModelInfo, ToolResultPart
from mewrk_jupyter.providers.offline import FILE_TOKENS, request_tokens

from ..pdf_files import encrypted_pdf, make_pdf

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def test_a_file_path_becomes_an_attachment_that_is_sent(workspace):
    (workspace / "notes.txt").write_text("line one\nline two")
    s = mw.Session.new()
    s.send("read this", attachments=["notes.txt"])
    attachment = s.cards[0].attachments[0]
    assert (attachment.name, attachment.media_type, attachment.text) == (
        "notes.txt",
        "text/plain",
        "line one\nline two",
    )
    part = s.history[-1].request["messages"][0]["parts"][0]
    assert part["type"] == "attachment" and part["name"] == "notes.txt"


def test_more_than_32_mb_in_one_message_is_refused_and_nothing_is_sent(workspace):
    big = workspace / "big.bin"
    big.write_bytes(b"\0" * (20 * 1024 * 1024))
    (workspace / "big2.bin").write_bytes(b"\0" * (13 * 1024 * 1024))
    s = mw.Session.new()
    with pytest.raises(mw.InvalidInput, match="33.0 MB; a message takes at most 32 MB"):
        s.send("two files", attachments=[big, workspace / "big2.bin"])
    assert s.cards == [] and s.history == []


def test_a_file_over_the_limit_is_refused_before_it_is_read(workspace):
    huge = workspace / "huge.bin"
    with huge.open("wb") as f:  # 200 MB on disk as a hole: reading it would take 200 MB of memory
        f.truncate(200 * 1024 * 1024)
    s = mw.Session.new()
    tracemalloc.start()
    try:
        with pytest.raises(mw.InvalidInput, match="200.0 MB; a message takes at most 32 MB"):
            s.send("a huge file", attachments=[huge])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024
    assert s.cards == [] and s.history == []


def test_a_missing_file_is_a_clear_error(workspace):
    s = mw.Session.new()
    with pytest.raises(mw.InvalidInput, match="no such file"):
        s.send("x", attachments=["nope.png"])


def test_images_are_not_sent_to_a_model_without_vision(workspace):
    (workspace / "dot.png").write_bytes(PNG)
    s = mw.Session.new()  # offline/echo has no vision input
    with pytest.raises(
        mw.InvalidInput, match=r"holds images \(dot.png\) and `offline/echo` has no vision input"
    ):
        s.send("what is this?", attachments=["dot.png"])
    assert s.cards == []


def test_a_pdf_is_read_for_its_text_and_goes_as_text_to_a_model_that_takes_no_pdfs(workspace):
    (workspace / "memo.pdf").write_bytes(make_pdf("Meet at noon", "Bring the keys"))
    s = mw.Session.new()  # the offline models read text only
    s.send("when?", attachments=["memo.pdf"])
    assert s.cards[0].attachments[0].text == "Meet at noon\n\nBring the keys"
    part = s.history[-1].request["messages"][0]["parts"][0]
    assert (part["data"], part["text"]) == ("", "Meet at noon\n\nBring the keys")


def test_a_pdf_text_layer_is_extracted_and_a_broken_file_says_why_it_has_none():
    assert pdf_text(make_pdf("one", None, "three")) == "one\n\nthree"
    with pytest.raises(UnreadablePdf, match="damaged or not a PDF"):
        pdf_text(b"%PDF-1.4 this is not really a PDF")
    with pytest.raises(UnreadablePdf, match="encrypted"):
        pdf_text(encrypted_pdf("locked"))
    assert pdf_text(encrypted_pdf("restricted, not locked", password="")) == "restricted, not locked"


def test_a_pdf_attachment_holding_only_its_text_goes_as_text_and_one_holding_nothing_is_refused(workspace):
    s = mw.Session.new()
    s.send("read", attachments=[mw.Attachment(name="a.pdf", media_type="application/pdf", text="the text")])
    assert s.history[-1].request["messages"][0]["parts"][0]["text"] == "the text"
    with pytest.raises(mw.InvalidInput, match="`b.pdf` holds neither the PDF nor its text"):
        s.send("read", attachments=[mw.Attachment(name="b.pdf", media_type="application/pdf")])


def test_bytes_are_read_as_a_file_of_that_name_would_be(workspace):
    from mewrk_jupyter.engine.assembly.attachments import attachment_from_bytes

    text = attachment_from_bytes("C:\\notes\\todo.md", b"- milk\n")
    assert (text.name, text.media_type, text.text, text.size) == ("todo.md", "text/markdown", "- milk\n", 7)
    blob = attachment_from_bytes("data", b"\x00\x01", "image/png")
    assert blob.media_type == "image/png" and blob.text is None
    assert mw.Session.new().model_info.vision is False


def test_a_tool_s_images_go_only_to_a_vision_model_and_count_as_attached_images_do(workspace):
    def timeline(png: bytes) -> list:
        image = Attachment(name="output-1.png", media_type="image/png", data=base64.b64encode(png).decode())
        svg = Attachment(
            name="drawing.svg", media_type="image/svg+xml", data=base64.b64encode(b"<svg/>").decode()
        )
        return [
            UserInput(text="plot it"),
            ToolCall(name="python", params={"code": "plot()"}, result="[image: …]", images=[image, svg]),
        ]

    seeing = ModelInfo(name="v/m", protocol="anthropic-messages", vision=True)
    blind = ModelInfo(name="t/m", protocol="anthropic-messages")
    small, large = timeline(b"\x89PNG" * 4), timeline(b"\x89PNG" * 40_000)
    with pytest.raises(mw.InvalidInput, match=r"holds images \(output-1\.png from `python`\) and `t/m`"):
        check_attachments(small, blind)  # a tool's image counts for the vision gate as an attached one does
    [sent] = assemble(small, seeing, []).messages[-1].parts
    assert isinstance(sent, ToolResultPart) and [i.name for i in sent.images] == ["output-1.png"]  # no SVG
    [plain] = assemble(small, blind, []).messages[-1].parts
    assert isinstance(plain, ToolResultPart) and plain.images == () and plain.content == "[image: …]"
    # A vendor counts an image, not its base64: the size of the file does not change the estimate.
    with_image = request_tokens(assemble(large, seeing, []))
    assert with_image == request_tokens(assemble(small, seeing, []))
    assert with_image >= request_tokens(assemble(large, blind, [])) + FILE_TOKENS
