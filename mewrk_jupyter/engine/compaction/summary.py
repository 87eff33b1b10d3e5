"""Summary compaction in place (C6): one call to the session's own model writes a summary, and a divider
placed after the last card makes every later request carry that summary instead of the cards above it.

One path serves both triggers: a person's `s.compact()` (`compact_in_place`) and the agent's
`summarize_at` threshold inside a turn (auto.py). The call is recorded in the history like every request,
its response marked `compaction` so that the context figures pass over it. The cards above the divider
stay on the timeline and in the history; undo takes the divider away and the old context comes back.

The divider's saving is an estimate: the vendor's count of the context as it stood (the summary call's
input, less the question) minus the estimate of the next request after the cut (the same estimate the
dashboard's "next" figure uses), which holds the summary in place of what it covers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...cards.models import Card, ModelReply, SummaryDivider
from ...cards.undo import UNDO, CardChange, CardState, UndoStep
from ...cards.words import count, format_tokens
from ...errors import MewrkError, NothingToCompact, ProviderError, SessionBusy
from ...providers.base import Exchange, ModelInfo, ModelRequest, Provider
from ...providers.faults import describe_failure
from ...providers.offline import estimate_tokens
from ...providers.record import Stop
from ...providers.registry import check_trusted, resolve
from ...store import cards as card_rows
from ...store import history as history_rows
from ...store import sessions as session_rows
from ..assembly.context import beside_timeline, measure, request_size, tokens_by_kind
from ..assembly.cut import messages_of, since_last_summary
from ..events import CardAdded, StatusChanged
from ..timeline.state import state_of
from ..turns.fold import ResponseState, accumulate, finish, record
from ..turns.parts import SessionParts
from .handoff import wording
from .prompt import (
    SUMMARY_KEY,
    compaction_instructions,
    given_instructions,
    summary_question,
    summary_request,
)

COMPACTING = "Compacting the conversation…"
MIN_MESSAGES = 4  # fewer, and a summary (with its opening and the person's words) may be longer than them
MIN_TOKENS = 4_000  # a smaller context would hardly shrink
UNDO_LABEL = "compacted the conversation"

TURN_RUNS = (
    "A turn is running, and compacting would cut the history it is using: stop it or let it end, "
    "then compact."
)
APPROVAL_WAITS = (
    "An approval is waiting, and compacting would cut the history it belongs to: approve or reject it "
    "first, then compact."
)
CHANGED = "The timeline changed while the summary was being written, so nothing was compacted: compact again."
STARTED = (
    "A turn started while the summary was being written, so nothing was compacted: compact again once it "
    "ends."
)
NO_SUMMARY = "The model answered without writing a summary, so nothing was compacted: compact again."
CUT_OFF = "The summary was cut off at the model's output limit, so nothing was compacted."


@dataclass(frozen=True)
class Call:
    """A compaction's call to the model: how its response is marked, and what its failures say."""

    kind: str  # the response's `compaction` mark: the context figures pass over the call
    failed: str  # before the provider's error
    empty: str
    cut_off: str


SUMMARY_CALL = Call(
    "summary", "The summary could not be written, so nothing was compacted", NO_SUMMARY, CUT_OFF
)


def ask_model(
    parts: SessionParts,
    run_id: str | None,
    provider: Provider,
    info: ModelInfo,
    request: ModelRequest,
    watch: Callable[[Exchange], None] | None,
    call: Call,
) -> Written:
    """Send a compaction's request (a question at the end of the conversation), recorded in the history
    like every request, and return the text the model answered."""
    sid = parts.session_id
    request = parts.secrets.redact_request(request)
    exchange = provider.open(request)  # nothing is sent before events() is read
    if watch is not None:
        watch(exchange)
    with parts.timeline.db.tx() as conn:
        entry = history_rows.record_request(conn, sid, run_id, info.name, info.protocol, exchange.body)
    state = ResponseState(request=request, model=info.name, protocol=info.protocol)
    failure: Exception | None = None
    try:
        for event in exchange.events():
            state = accumulate(state, event)
    except Exception as exc:
        failure = exc
    state = finish(state, interrupted=failure is not None)
    response = record(state).model_copy(update={"compaction": call.kind})
    error = None
    if failure is not None:
        error = parts.secrets.redact(describe_failure(failure, info.name))
    with parts.timeline.db.tx() as conn:
        history_rows.record_response(conn, entry, parts.secrets.redact_data(response.stored()), error=error)
    if failure is not None:
        if isinstance(failure, MewrkError):
            raise failure
        raise ProviderError(f"{call.failed}: {error}")
    text = "\n\n".join(c.text for c in state.blocks.values() if isinstance(c, ModelReply) and c.text)
    if state.stop == Stop.MAX_TOKENS:
        raise ProviderError(call.cut_off)
    if not text.strip():
        raise ProviderError(call.empty)
    usage = response.usage.model_dump() if response.usage is not None else None
    return Written(parts.secrets.redact(text.strip()), usage, exchange.body)


def too_little(cards: list[Card], size: int) -> str | None:
    """Why the conversation is not worth compacting (fewer than 4 messages, or under about 4k tokens)."""
    new = messages_of(since_last_summary(cards))
    if new < MIN_MESSAGES:
        since = "since the last summary" if len(since_last_summary(cards)) < len(cards) else "so far"
        return (
            f"Nothing worth compacting: the conversation has {count(new, 'message')} {since}, "
            f"and a summary needs at least {MIN_MESSAGES}."
        )
    if size < MIN_TOKENS:
        return (
            f"Nothing worth compacting: the context is about {format_tokens(size)} tokens, under the "
            f"{format_tokens(MIN_TOKENS)} or so a summary needs to save anything."
        )
    return None


def compacted(divider: SummaryDivider) -> str:
    """What a compaction says when it is done: "Compacted: 12 earlier messages · … · ≈62k tokens saved."."""
    return f"Compacted: {divider.title_line()}."


@dataclass(frozen=True)
class Written:
    """A summary as the model wrote it, with the figures of the call that wrote it."""

    text: str
    usage: dict[str, Any] | None
    body: dict[str, Any]


class Summary:
    """One summary of a session's conversation, from the call to the model to the divider on the timeline."""

    def __init__(self, parts: SessionParts, run_id: str | None = None, instructions: str | None = None):
        self.parts = parts
        self.run_id = run_id  # the turn the compaction happens in, if any
        self.instructions = instructions  # the person's, for this summary (C7)
        self.question = ""  # the question the summary call asked, once written
        self.given: str | None = None  # every instruction it was written with, the hooks' too

    def compact(
        self, watch: Callable[[Exchange], None] | None = None, cancelled: Callable[[], bool] = lambda: False
    ) -> SummaryDivider | None:
        """Write the summary and place its divider; None when the turn was stopped meanwhile."""
        timeline = self.parts.timeline
        conn = timeline.db.conn()
        rev = session_rows.get_rev(conn, timeline.session_id)  # read first: a change after it is seen
        cards = timeline.current().cards
        provider, info = resolve(self.parts.settings.value.model, self.parts.workspace.home)
        timeline.emit(StatusChanged(timeline.session_id, COMPACTING))
        try:
            try:
                written = self.write(provider, info, cards, watch)
            except MewrkError:
                if cancelled():  # Stop closed the exchange: the turn ends stopped, not failed
                    return None
                raise
            if cancelled():
                return None
            divider = self.divider(cards, written)
            self.place(divider, rev if self.run_id is None else None)
            return divider
        finally:
            timeline.emit(StatusChanged(timeline.session_id, None))

    def write(
        self,
        provider: Provider,
        info: ModelInfo,
        cards: list[Card],
        watch: Callable[[Exchange], None] | None = None,
    ) -> Written:
        """One call to the model, recorded in the history: the conversation as it stands, and the question
        (the prompt profile's wording, the person's instructions and those of the before_compact hooks)."""
        hooks = self.parts.toolbox.hooks.before_compact(self.instructions)
        self.given = given_instructions(self.instructions, hooks)
        worded = wording(self.parts.workspace.home, SUMMARY_KEY, "")
        self.question = summary_question(worded, self.instructions, hooks)
        request = summary_request(self.parts.assemble(cards, info).request, self.question)
        return ask_model(self.parts, self.run_id, provider, info, request, watch, SUMMARY_CALL)

    def divider(self, cards: list[Card], written: Written) -> SummaryDivider:
        """The divider for a summary: the messages it covers and, when the call was counted, the saving."""
        divider = SummaryDivider(summary=written.text, covered=messages_of(cards), instructions=self.given)
        if written.usage:
            size = request_size(written.usage)
            before = size - estimate_tokens(self.question)
            after = beside_timeline(size, written.body) + sum(tokens_by_kind([*cards, divider]).values())
            divider.tokens_saved = max(0, before - after)
        return divider

    def place(self, divider: SummaryDivider, rev: int | None) -> None:
        """Put the divider after the last card, as one step undo can take back; with `rev`, only if the
        timeline has not changed since (a turn holds the session, so inside one nothing else writes)."""
        key = append_unless_changed(self.parts, divider, rev, STARTED, CHANGED)
        UNDO.push(
            UndoStep(
                self.parts.session_id, UNDO_LABEL, [CardChange(divider.id, None, CardState(divider, key))]
            )
        )


def append_unless_changed(
    parts: SessionParts, card: Card, rev: int | None, started: str, changed: str
) -> str:
    """Put `card` after the last card and return its key; with `rev`, only if no turn runs and the timeline
    has not changed since that revision (SessionBusy with `started` or `changed` otherwise)."""
    timeline, sid = parts.timeline, parts.session_id

    def write(conn: Any) -> str:
        if rev is not None and state_of(conn, sid) == "running":  # another window's turn, say
            raise SessionBusy(started)
        if rev is not None and session_rows.get_rev(conn, sid) != rev:
            raise SessionBusy(changed)
        key = card_rows.key_for_insert(conn, sid, before=None, after=None)
        card_rows.put_card(conn, sid, card, key)
        return key

    key = timeline.commit(write, lambda t, key: t.put(card, key))
    timeline.emit(CardAdded(sid, card, key))
    return key


def compact_in_place(parts: SessionParts, instructions: object = None) -> SummaryDivider:
    """A person's compaction, with their instructions for the summary if any: refused, changing nothing
    and sending nothing, for instructions that are not text, while a turn runs, while an approval waits,
    or when there is too little to compact."""
    given = compaction_instructions(instructions)
    parts.settings.refresh()  # the summary is written by the model as stored, whoever changed it last
    state = parts.status.state()
    if state == "running":
        raise SessionBusy(TURN_RUNS)
    if state == "awaiting_approval":
        raise SessionBusy(APPROVAL_WAITS)
    model, home = parts.settings.value.model, parts.workspace.home
    check_trusted(model, home)
    timeline = parts.timeline
    cards = timeline.current().cards
    why = too_little(cards, measure(timeline.db.conn(), parts.session_id, cards).next_request)
    if why is not None:
        raise NothingToCompact(why)
    parts.toolbox.check()  # the summary call carries the tools: a broken tool is said before it is sent
    divider = Summary(parts, instructions=given).compact()
    assert divider is not None  # only a turn's compaction can be stopped
    return divider
