"""Compact now (C5): the conversation continues in a new session at once, whatever the threshold and
the auto-compaction toggle say. The new session opens but does not run; it waits for the next message.

In native mode (on a model that compacts by itself) the provider compacts, and the new session begins
with the native-compaction card (native_handover.py). In handoff mode it costs one call to the session's model, like a summary's: the request the next turn
would send, with a question for the handoff documents at its end. The documents become a `handoff`
card, placed at the end of the original (where it stops) and seeding the handover session.
"""

from __future__ import annotations

from typing import Any

from ...cards.models import Card, Handoff, NativeCompaction, SummaryDivider
from ...errors import MewrkError, NothingToCompact, SessionBusy
from ...providers.base import ModelRequest
from ...providers.offline_handoff import HANDOFF_REQUEST
from ...providers.registry import check_trusted, resolve
from ...store import sessions as session_rows
from ..background.tasks import running_background_work, still_running
from ..events import StatusChanged
from ..turns.parts import SessionParts
from .handover import Handed, open_handover
from .native_handover import native_handover
from .prompt import compaction_instructions, with_question
from .summary import Call, append_unless_changed, ask_model

HANDING_OVER = "Writing the handoff documents…"
PERSON_SAYS_HANDOFF = "The person's instructions for these documents: "
INSTRUCTION = (
    f"{HANDOFF_REQUEST}\n"
    "This conversation will continue in a new session that starts from handoff documents alone, with the "
    "same system prompt and tools. Write those documents now, for the agent that takes over: the goal and "
    "the person's own words where they matter, what was decided and found, the files and code touched, "
    "errors and how they were fixed, what is still pending and the next step. Answer with the documents "
    "only, in Markdown, and do not call any tool."
)
HANDOFF_CALL = Call(
    "handoff",
    "The handoff documents could not be written, so nothing was compacted",
    "The model answered without writing handoff documents, so nothing was compacted: compact again.",
    "The handoff documents were cut off at the model's output limit, so nothing was compacted.",
)

TURN_RUNS = (
    "A turn is running, and the new session would miss what it is still writing: stop it or let it end, "
    "then compact."
)
APPROVAL_WAITS = (
    "An approval is waiting, and the new session would leave its tool call behind: approve or reject it "
    "first, then compact."
)
NO_REPLY_YET = "The model has not replied yet, so there is nothing to compact: send a message first."
NO_REPLY_SINCE = (
    "The model has not replied since the last compaction, so there is nothing new to compact: send a "
    "message first."
)
CHANGED = (
    "The timeline changed while the handoff documents were being written, so nothing was compacted: "
    "compact again."
)
STARTED = (
    "A turn started while the handoff documents were being written, so nothing was compacted: compact "
    "again once it ends."
)
COMPACTIONS = (SummaryDivider, Handoff, NativeCompaction)


def not_replied(cards: list[Card], handed_over_at: float | None = None) -> str | None:
    """Why there is nothing to compact: no card of the model's since the last compaction (or at all).

    A handoff leaves its card on the original; a native compaction leaves the original as it is, so the
    newest handover's time (`handed_over_at`) marks it: only a card of the model's made since counts.
    """
    since = 0
    for index in range(len(cards) - 1, -1, -1):
        if isinstance(cards[index], COMPACTIONS):
            since = index + 1
            break
    after = handed_over_at if handed_over_at is not None else float("-inf")
    if any(card.origin == "model" and card.created_at > after for card in cards[since:]):
        return None
    return NO_REPLY_SINCE if since or handed_over_at is not None else NO_REPLY_YET


def handoff_request(request: ModelRequest, instructions: str | None = None) -> ModelRequest:
    """The same request with the question for handoff documents at its end (joined to a last user
    message), the person's instructions after it (C7)."""
    question = INSTRUCTION if not instructions else f"{INSTRUCTION}\n\n{PERSON_SAYS_HANDOFF}{instructions}"
    return with_question(request, question)


def compact_now_refusal(parts: SessionParts) -> MewrkError | None:
    """Why compact now would be refused now, as the error it raises; None when it would act. The same
    for every surface: `s.compact_now()`, `%mewrk compact now`, `/compact now` and the ring's button."""
    state = parts.status.state()
    if state == "running":
        return SessionBusy(TURN_RUNS)
    if state == "awaiting_approval":
        return SessionBusy(APPROVAL_WAITS)
    conn = parts.timeline.db.conn()
    why = not_replied(parts.timeline.current().cards, session_rows.last_handover_at(conn, parts.session_id))
    if why is not None:
        return NothingToCompact(why)
    work = running_background_work(parts.session_id, conn)
    if work:
        return SessionBusy(still_running(work, "then compact"))
    return None


def compact_now(parts: SessionParts, session: Handed, instructions: object = None) -> Any:
    """Hand the conversation over to a new session now; returns it, opened but not run. The handoff
    question carries the person's `instructions`, and so does a native compaction whose protocol takes
    them (Anthropic's; OpenAI's compaction has no place for them and is refused with a sentence).

    Refused, changing nothing and sending nothing, for instructions that are not text, while a turn runs,
    while an approval waits, when the model has not replied since the last compaction (or at all), and
    while background work runs.
    """
    given = compaction_instructions(instructions)
    parts.settings.refresh()  # the documents are written by the model as stored, whoever changed it last
    timeline, sid = parts.timeline, parts.session_id
    rev = session_rows.get_rev(timeline.db.conn(), sid)  # read first: a change after it is seen
    refused = compact_now_refusal(parts)
    if refused is not None:
        raise refused
    cards = timeline.current().cards
    model, home = parts.settings.value.model, parts.workspace.home
    check_trusted(model, home)
    parts.toolbox.check()  # the call carries the tools: a broken tool is said before anything is sent
    provider, info = resolve(model, home)
    if parts.settings.value.compaction == "native" and info.native_compaction:
        # The provider compacts (with the instructions where its protocol takes them, else refused with a
        # sentence before anything is sent); the original stays as it is.
        return native_handover(parts, session, instructions=given)
    timeline.emit(StatusChanged(sid, HANDING_OVER))
    try:
        request = handoff_request(parts.assemble(cards, info).request, given)
        written = ask_model(parts, None, provider, info, request, None, HANDOFF_CALL)
    finally:
        timeline.emit(StatusChanged(sid, None))
    card = Handoff(origin="model", text=written.text)
    place(parts, card, rev)
    return open_handover(session, [card], run=False)


def place(parts: SessionParts, card: Handoff, rev: int) -> None:
    """Put the handoff card at the end of the original, only if the timeline has not changed meanwhile."""
    append_unless_changed(parts, card, rev, STARTED, CHANGED)
