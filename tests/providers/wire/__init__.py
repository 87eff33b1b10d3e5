"""Scripted vendor servers that speak the real wire formats, for provider-adapter tests.

The official SDKs (``anthropic``, ``openai``) are pointed at a local `WireServer` through ``base_url``;
the test scripts the replies in order and afterwards asserts on the exact requests the SDK sent. Each
protocol has its own module of reply builders (`anthropic`, `bedrock`, `openai_chat`, `openai_responses`,
`vertex`, `openai_models` for the list of a server's models, with `openai_errors` shared by the two OpenAI ones); `core` holds what they share and `server`
the HTTP side. `bedrock` sends an Anthropic reply as Bedrock's AWS event-stream frames, to SigV4-signed
requests; `vertex` answers Vertex AI's streamRawPredict route.

Typical use::

    server.enqueue(anthropic_reply(anthropic_thinking("hmm", "sig"), "Hello", usage=anthropic_usage(10)))
    client = anthropic.Anthropic(base_url=server.url, api_key="test-key", max_retries=0)
    ...
    assert server.last_json()["model"] == "claude-test"
"""

from .anthropic import (
    anthropic_compaction,
    anthropic_compaction_reply,
    anthropic_count_tokens_reply,
    anthropic_error,
    anthropic_redacted_thinking,
    anthropic_reply,
    anthropic_text,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
)
from .bedrock import bedrock_reply, sigv4_problem
from .core import RecordedRequest, Reply, disconnect_reply, json_reply, sse_reply
from .openai_chat import chat_reply, chat_tool_call, chat_usage
from .openai_errors import openai_error
from .openai_models import llamacpp_model, models_reply, ollama_model, vllm_model
from .openai_responses import (
    compact_reply,
    responses_function_call,
    responses_message,
    responses_reasoning,
    responses_reply,
    responses_usage,
)
from .server import WireServer
from .vertex import google_token_reply, vertex_reply

__all__ = [
    "WireServer",
    "RecordedRequest",
    "Reply",
    "anthropic_reply",
    "anthropic_compaction",
    "anthropic_compaction_reply",
    "anthropic_text",
    "anthropic_thinking",
    "anthropic_redacted_thinking",
    "anthropic_tool_use",
    "anthropic_usage",
    "anthropic_error",
    "anthropic_count_tokens_reply",
    "bedrock_reply",
    "sigv4_problem",
    "chat_reply",
    "chat_tool_call",
    "chat_usage",
    "responses_reply",
    "responses_reasoning",
    "responses_message",
    "responses_function_call",
    "responses_usage",
    "compact_reply",
    "openai_error",
    "models_reply",
    "vllm_model",
    "llamacpp_model",
    "ollama_model",
    "vertex_reply",
    "google_token_reply",
    "sse_reply",
    "json_reply",
    "disconnect_reply",
]
