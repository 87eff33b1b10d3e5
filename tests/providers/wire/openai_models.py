"""The list of a server's models, scripted: ``GET /v1/models`` in the shapes the OpenAI-compatible local
servers answer it — vLLM's model cards carry ``max_model_len``, llama.cpp's server a ``meta`` object with
``n_ctx_train``, Ollama's OpenAI-compatible list only ``id``, ``object``, ``created`` and ``owned_by``."""

from __future__ import annotations

from typing import Any

from .core import Reply, json_reply

OPENAI_MODELS = "openai.models"
ROUTES = (("/models", OPENAI_MODELS),)


def vllm_model(name: str, max_model_len: int) -> dict[str, Any]:
    """A model card as vLLM's server lists it (`vllm serve`, its ModelCard)."""
    return {
        "id": name,
        "object": "model",
        "created": 1735142223,
        "owned_by": "vllm",
        "root": name,
        "parent": None,
        "max_model_len": max_model_len,
        "permission": [
            {
                "id": "modelperm-test",
                "object": "model_permission",
                "created": 1735142223,
                "allow_create_engine": False,
                "allow_sampling": True,
                "allow_logprobs": True,
                "allow_search_indices": False,
                "allow_view": True,
                "allow_fine_tuning": False,
                "organization": "*",
                "group": None,
                "is_blocking": False,
            }
        ],
    }


def llamacpp_model(name: str, n_ctx_train: int) -> dict[str, Any]:
    """A model as llama.cpp's server lists it (`llama-server`, its model_meta)."""
    return {
        "id": name,
        "object": "model",
        "created": 1735142223,
        "owned_by": "llamacpp",
        "meta": {
            "vocab_type": 2,
            "n_vocab": 128256,
            "n_ctx_train": n_ctx_train,
            "n_embd": 4096,
            "n_params": 8030261312,
            "size": 4912898304,
        },
    }


def ollama_model(name: str) -> dict[str, Any]:
    """A model as Ollama's OpenAI-compatible list gives it: no window."""
    return {"id": name, "object": "model", "created": 1735142223, "owned_by": "library"}


def models_reply(*models: dict[str, Any], **faults: Any) -> Reply:
    """The list of models, ``{"object": "list", "data": [...]}``."""
    return json_reply({"object": "list", "data": list(models)}, kind=OPENAI_MODELS, **faults)
