"""Tool results that no longer serve (#39): a `read`, `ls` or `grep` that a later call of the same tool
did again, a file read before it was changed (by a later `write` or `edit`, or as the file watcher told
the model), and a large result nothing later refers to. Each with why, and what it costs in tokens."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...cards.inert import for_notebook
from ...cards.models import Card, HostMessage, ModelReply, Thinking, ToolCall
from ...cards.words import count
from ...providers.offline import estimate_tokens

# The tools whose result a later call of the same tool replaces, and what makes two calls the same.
REREAD: dict[str, tuple[str, ...] | None] = {"read": ("path",), "ls": ("path",), "grep": None, "find": None}
CHANGING = ("write", "edit")  # a later one of these on a read file's path changed it
BIG_TOKENS = 2_000  # a result at least this large that nothing later refers to is stale
QUOTED_CHARS = 12  # a word of a result this long, found in a later card, is a reference to it
PRUNED = "[pruned:"
_WORD = re.compile(rf"[\w./:-]{{{QUOTED_CHARS},}}")


def tokens_text(tokens: int) -> str:
    """A count of tokens as the person reads it: 840 tokens, 1.2k tokens, 12k tokens."""
    if tokens < 1000:
        return f"{tokens} tokens"
    thousands = tokens / 1000
    return f"{thousands:.1f}k tokens" if thousands < 10 else f"{round(thousands)}k tokens"


@dataclass(frozen=True)
class StaleResult:
    """A tool call whose result no longer serves, why, and its result's tokens."""

    card_id: str
    name: str
    params: dict[str, Any]
    why: str
    tokens: int

    def line(self) -> str:
        """One line: the call, why it is stale, its tokens."""
        return f"{self.card_id} {self.name} {call_subject(self.name, self.params)}: {self.why} ({tokens_text(self.tokens)})"


class StaleList(list[StaleResult]):
    """The stale results of a session, oldest first; `tokens` is what pruning them all would save at most."""

    @property
    def tokens(self) -> int:
        return sum(item.tokens for item in self)

    def __str__(self) -> str:
        if not self:
            return "No stale tool results."
        head = f"{count(len(self), 'stale tool result')}, ≈{tokens_text(self.tokens)}:"
        return "\n".join([head, *(f"- {item.line()}" for item in self)])

    def _repr_markdown_(self) -> str:
        return for_notebook(str(self))


def call_subject(name: str, params: dict[str, Any]) -> str:
    """What a call is of, in a few words: the path, the pattern."""
    path = params.get("path")
    pattern = params.get("pattern")
    if name == "grep" and isinstance(pattern, str):
        return f"{pattern!r} in {path or '.'}"
    if isinstance(path, str):
        return path
    if name == "ls":
        return "."
    text = json.dumps(params, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def _same_key(call: ToolCall) -> tuple[str, str] | None:
    if call.name not in REREAD:
        return None
    fields = REREAD[call.name]
    params = dict(call.params)
    if fields is None:
        return call.name, json.dumps(params, sort_keys=True)
    if call.name == "ls":
        params.setdefault("path", ".")
    return call.name, json.dumps({f: params.get(f) for f in fields}, sort_keys=True)


def is_pruned(call: ToolCall) -> bool:
    """Whether the call's result is a stub that pruning left."""
    return (call.result or "").startswith(PRUNED)


def _settled(card: Card) -> bool:
    return (
        isinstance(card, ToolCall) and card.status == "done" and not card.is_error and card.result is not None
    )


def stale_results(cards: list[Card]) -> StaleList:
    """The tool calls among `cards` (a timeline, in order) whose results no longer serve."""
    found: dict[str, StaleResult] = {}
    last_reply = max((i for i, c in enumerate(cards) if isinstance(c, ModelReply)), default=-1)
    later_keys: dict[tuple[str, str], str] = {}
    changed_paths: dict[str, str] = {}  # path → why, from what came after
    later_words: set[str] = set()  # the distinctive words of the replies, thinking and calls after
    # From the end: what a card is followed by is known when it is reached.
    for index in range(len(cards) - 1, -1, -1):
        card = cards[index]
        if isinstance(card, HostMessage) and card.topic == "file_changed":
            for path in re.findall(r"^The file `([^`]+)`", card.text):
                changed_paths.setdefault(path, "the file changed since it was read, as the model was told")
            continue
        if isinstance(card, ModelReply | Thinking):
            later_words.update(words_of(card.id, card.text))
            continue
        if not isinstance(card, ToolCall):
            continue
        settled = _settled(card) and not is_pruned(card)
        if settled:
            tokens = estimate_tokens(card.result or "")
            key = _same_key(card)
            path = card.params.get("path")
            why = None
            if key is not None and key in later_keys:
                why = f"{card.name} again later ({later_keys[key]})"
            elif card.name == "read" and isinstance(path, str) and path in changed_paths:
                why = changed_paths[path]
            elif tokens >= BIG_TOKENS and index < last_reply and not _quoted(card, later_words):
                why = f"{tokens_text(tokens)} that nothing after it quotes"
            if why is not None:
                found[card.id] = StaleResult(card.id, card.name, dict(card.params), why, tokens)
            if key is not None:
                later_keys[key] = card.id
            if card.name in CHANGING and isinstance(path, str):
                changed_paths[path] = f"{path} was changed since by {card.name} ({card.id})"
        later_words.update(words_of(card.id, str(card.params)))  # a later call's input may name what it read
    return StaleList(item for card in cards if (item := found.get(card.id)) is not None)


def _quoted(call: ToolCall, later: set[str]) -> bool:
    """Whether something after the call quotes its result: one of the result's distinctive words (a name,
    a path, a number of QUOTED_CHARS characters or more) is in a later reply, thinking or call's input.
    A word every reply uses would make every result quoted: then the result is kept, the safe way."""
    return not later.isdisjoint(words_of(call.id, call.result or ""))


# The distinctive words of a card's text, by its id and the text's hash (a str keeps its hash, so a card
# read again unchanged is found at once): a timeline's texts are looked at again at each stale().
_WORDS: dict[tuple[str, int], frozenset[str]] = {}
_WORDS_KEPT = 50_000


def words_of(card_id: str, text: str) -> frozenset[str]:
    """The words of QUOTED_CHARS characters or more in a card's text."""
    key = (card_id, hash(text))
    found = _WORDS.get(key)
    if found is None:
        if len(_WORDS) >= _WORDS_KEPT:
            _WORDS.clear()
        found = _WORDS[key] = frozenset(_WORD.findall(text))
    return found
