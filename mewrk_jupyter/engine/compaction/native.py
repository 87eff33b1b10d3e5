"""Native compaction (C4): the provider compacts the conversation into an item of its own, and a
native-compaction card carries it, with the person's newest messages, into the session that goes on.

The request is the one the engine was about to send (same system prompt, tools, whole history) sent to
the provider's compaction instead: OpenAI Responses and Azure through `POST /responses/compact`,
Anthropic through server-side compaction, the offline models through their own. The call is recorded in
the history like every request, its response marked `compaction: native` so that the context figures
pass over it. What a later request reads of the card is in engine/assembly/compacted.py.
"""

from __future__ import annotations

from ...cards.models import Card, NativeCompaction, SystemPrompt, UserInput, new_card_id
from ...cards.words import format_tokens
from ...errors import InvalidInput, MewrkError, ProviderError
from ...providers.base import Compacted, ModelInfo
from ...providers.faults import describe_failure
from ...providers.offline import estimate_tokens
from ...providers.record import ModelResponse, Stop
from ...providers.registry import resolve
from ...store import history as history_rows
from ..assembly.compacted import Envelope, card_tokens
from ..assembly.context import measure
from ..assembly.cut import read_cards
from ..events import StatusChanged
from ..settings.preferences import preferences_at
from ..turns.parts import SessionParts
from .summary import COMPACTING

# Where the oldest kept message was cut: its beginning and its end stay, either side of this line.
CUT_MARK = "\n[… the middle of this message was cut when the conversation was compacted …]\n"


def person_messages(cards: list[Card]) -> list[str]:
    """What the person wrote that the request reads, oldest first (a native card's kept messages too)."""
    said: list[str] = []
    for card in read_cards(cards):
        if isinstance(card, NativeCompaction):
            said.extend(card.kept)
        elif isinstance(card, UserInput) and card.text.strip():
            said.append(card.text)
    return said


def system_prompts(cards: list[Card]) -> list[SystemPrompt]:
    """Every system-prompt card of the timeline, in order, those placed mid-conversation too: the seeds
    the new session takes before the native-compaction card, so that none of them is lost."""
    return [
        card.model_copy(update={"id": new_card_id()}, deep=True)
        for card in cards
        if isinstance(card, SystemPrompt)
    ]


def cut_middle(text: str, tokens: int) -> str:
    """`text` in at most `tokens` tokens (as the engine estimates them), its middle replaced by a mark;
    empty when even the mark does not fit."""
    room = tokens * 4 - len(CUT_MARK)
    if room < 2:
        return ""
    head = room // 2
    return text[:head] + CUT_MARK + text[len(text) - (room - head) :]


def keep_messages(said: list[str], budget: int) -> list[str]:
    """The person's messages newest first up to `budget` tokens, returned oldest first; the oldest one
    kept is cut in the middle when it does not fit whole; a budget of 0 keeps none."""
    kept: list[str] = []
    left = budget
    for text in reversed(said):
        size = estimate_tokens(text)
        if size <= left:
            kept.append(text)
            left -= size
            continue
        if cut := cut_middle(text, left):
            kept.append(cut)
        break
    return kept[::-1]


def card_line(model: str, before: int, after: int, instructed: bool = False) -> str:
    """The card's one line for the person (never sent): which model compacted, tokens before and after,
    and whether it was given instructions."""
    line = f"`{model}` compacted the conversation natively: ≈{format_tokens(before)} → ≈{format_tokens(after)} tokens"
    return f"{line} · with instructions" if instructed else line


def native_card(
    model: ModelInfo, compacted: Compacted, kept: list[str], before: int, instructed: bool = False
) -> NativeCompaction:
    """The card for a provider's compaction and the kept messages; `before` is the context's size."""
    item = Envelope(model.protocol, model.name, compacted.item, compacted.tokens_after)
    card = NativeCompaction(encrypted=item.dumps(), kept=kept)
    card.text = card_line(model.name, before, card_tokens(card), instructed)
    return card


def native_compaction(
    parts: SessionParts,
    *,
    keep_user_tokens: int | None = None,
    run_id: str | None = None,
    instructions: str | None = None,
) -> NativeCompaction:
    """Compact the session's conversation with its model's own compaction; the card that carries it.

    `parts`: the session being compacted (its timeline as it stands, settings, tools, hidden prefix);
    `keep_user_tokens`: how many tokens of the person's newest messages the card keeps (default: the
    preference `keep_user_tokens`, 0–128,000); `run_id`: the turn it happens in, if any (the history
    entry belongs to it); `instructions`: the person's for the summary, where the protocol takes them
    (C7; refused with a sentence before anything is sent where it does not). The request is the one the next turn would send; the call is recorded in the
    history. Returns the card — `text` its line for the person (never sent), `encrypted` the provider's
    item in its envelope, `kept` the messages kept, oldest first — not placed anywhere: the caller makes
    it a seed of the new session `<title>-handover-<n>`, after the original's system-prompt cards
    (`system_prompts(cards)`, mid-conversation ones included); the new session's settings carry its tools.

    Raises InvalidInput when the model has no native compaction (nothing is sent), and ProviderError (a
    sentence) when the call fails or brings back no item; nothing is placed either way.
    """
    settings, home = parts.settings.value, parts.workspace.home
    provider, info = resolve(settings.model, home)
    if not info.native_compaction:
        raise InvalidInput(
            f"`{info.name}` has no compaction of its own, so nothing was compacted: use the handoff, or a "
            "model that declares native_compaction."
        )
    if keep_user_tokens is None:
        keep_user_tokens = preferences_at(home)[0].keep_user_tokens
    cards = parts.timeline.current().cards
    request = parts.secrets.redact_request(parts.assemble(cards, info).request)
    compaction = provider.compaction(request, instructions)
    with parts.timeline.db.tx() as conn:
        entry = history_rows.record_request(
            conn, parts.session_id, run_id, info.name, info.protocol, compaction.body
        )
    parts.timeline.emit(StatusChanged(parts.session_id, COMPACTING))
    try:
        compacted = compaction.run()
    except Exception as exc:
        error = parts.secrets.redact(describe_failure(exc, info.name))
        with parts.timeline.db.tx() as conn:
            history_rows.record_response(
                conn, entry, ModelResponse(compaction="native").stored(), error=error
            )
        if isinstance(exc, MewrkError):
            raise
        raise ProviderError(f"The conversation could not be compacted: {error}") from exc
    finally:
        parts.timeline.emit(StatusChanged(parts.session_id, None))
    response = ModelResponse(
        stop=Stop.COMPACTION,
        usage=compacted.usage,
        compaction="native",
        tokens_before=compacted.tokens_before,
        tokens_after=compacted.tokens_after,
    )
    with parts.timeline.db.tx() as conn:
        history_rows.record_response(conn, entry, response.stored())
    kept = keep_messages(person_messages(cards), keep_user_tokens)
    # The vendor's count of the context compacted; the engine's estimate where it gave none.
    before = (
        compacted.tokens_before or measure(parts.timeline.db.conn(), parts.session_id, cards).next_request
    )
    kept_text = [parts.secrets.redact(text) for text in kept]
    return native_card(info, compacted, kept_text, before, instructed=bool(instructions))
