"""The summary request (C6): the request the next turn would send, with a question for a summary at its end.

The request keeps the same system prompt, tools and messages as the conversation's own requests, so a
provider's prompt cache still serves it, and the vendor's count of its input is the count of the
context as it stood (less the question). Only the question is new.
"""

from __future__ import annotations

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


def summary_request(request: ModelRequest) -> ModelRequest:
    """The same request with the question for a summary at its end (joined to a last user message)."""
    return with_question(request, INSTRUCTION)


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
