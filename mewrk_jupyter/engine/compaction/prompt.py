"""The summary request (C6): the request the next turn would send, with a question for a summary at its end.

The request keeps the same system prompt, tools and messages as the conversation's own requests, so a
provider's prompt cache still serves it, and the vendor's count of its input is the count of the
context as it stood (less the question). Only the question is new.
"""

from __future__ import annotations

from ...cards.rules import check_text
from ...errors import InvalidInput
from ...providers.base import Message, ModelRequest, TextPart
from ...providers.offline_summary import HEADINGS, SUMMARY_REQUEST

# The question: a structured summary that can stand in for the messages (goal, the person's own words,
# decisions, files, errors, pending work, next step), as summary compaction usually asks.
INSTRUCTION = (
    f"{SUMMARY_REQUEST}\n"
    "Write a summary of the conversation so far. It will replace the messages above in your context, so "
    "keep everything needed to go on without them: what the person asked for and their own words where "
    "they matter, what was decided and found, the files and code touched, errors and how they were fixed, "
    "what is still pending and the next step. If the conversation begins with an earlier summary, fold it "
    "in. Answer with the summary only, in plain text under these headings, and do not call any tool:\n\n"
    + "\n".join(f"## {heading}" for heading in HEADINGS)
)


# The prompt profile's key for the summary question (its marker line stays: the offline model reads it).
SUMMARY_KEY = "summary.instruction"
PERSON_SAYS = "The person's instructions for this summary: "
HOOKS_SAY = "The workspace's instructions for this summary:"


def summary_question(worded: str | None, person: str | None, hooks: list[str]) -> str:
    """The question a summary request ends with: the profile's wording (`summary.instruction`) or the
    engine's, then the person's instructions and those the `before_compact` hooks added (C7)."""
    question = f"{SUMMARY_REQUEST}\n{worded.strip()}" if worded and worded.strip() else INSTRUCTION
    if person:
        question += f"\n\n{PERSON_SAYS}{person}"
    if hooks:
        question += f"\n\n{HOOKS_SAY}\n" + "\n".join(hooks)
    return question


def compaction_instructions(instructions: object) -> str | None:
    """A person's instructions for a compaction, checked: text (blank is none), or InvalidInput."""
    if instructions is None:
        return None
    if not isinstance(instructions, str):
        raise InvalidInput(f"The instructions are text; got {type(instructions).__name__}.")
    check_text(instructions, "The instructions")
    return instructions.strip() or None


def given_instructions(person: str | None, hooks: list[str]) -> str | None:
    """What the divider keeps of the instructions a summary was written with, or None when there were none."""
    parts = [*([person] if person else []), *hooks]
    return "\n".join(parts) if parts else None


def summary_request(request: ModelRequest, question: str = INSTRUCTION) -> ModelRequest:
    """The same request with the question for a summary at its end (joined to a last user message)."""
    return with_question(request, question)


def with_question(request: ModelRequest, text: str) -> ModelRequest:
    """The same request with `text` asked at its end (joined to a last user message, so the roles still
    alternate): how compaction asks the model for a summary or for handoff documents."""
    messages = [message.model_copy(deep=True) for message in request.messages]
    question = TextPart(text=text)
    if messages and messages[-1].role == "user":
        messages[-1].parts.append(question)
    else:
        messages.append(Message(role="user", parts=[question]))
    return request.model_copy(update={"messages": messages})
