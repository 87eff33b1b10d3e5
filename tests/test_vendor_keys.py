"""Nothing above an adapter sees a vendor's JSON (DESIGN §1): no key, block type or event name that one of
the adapters reads or writes in its protocol's JSON appears as a string under mewrk_jupyter/engine/.

The vendor words are taken from the adapters themselves — every string an adapter uses as a dict key, in a
`.get()` or a subscript, as a `type`, or compares a value with — less the neutral request's own field
names (providers/base.py), which the engine speaks, and the few words every JSON shares. A new adapter's
words count once it is listed in ADAPTERS. Run as a script, the module prints each hit (the measure of
issue #27)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from mewrk_jupyter.providers import base

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "mewrk_jupyter" / "engine"
ADAPTERS = ("anthropic.py", "openai_chat.py", "openai_responses.py")
# The engine's own words that a vendor happens to use too, each with where the engine's meaning is.
ENGINE_OWN = {
    "text_delta": "the widget's event of streamed text (PROTOCOLS.md, engine/events.py)",
    "call_id": "a tool card's field (cards/models.py ToolCall), kept in a tool run's own history row",
}


def _neutral_names() -> set[str]:
    """The field names of the neutral request's models (and the values its settings take), the words the
    engine is meant to use."""
    models = [v for v in vars(base).values() if isinstance(v, type) and issubclass(v, BaseModel)]
    names = {name for model in models for name in model.model_fields}
    for info in base.ModelInfo.model_fields.values():
        names |= {v for v in getattr(info.annotation, "__args__", ()) if isinstance(v, str)}
    return names


def _constant(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _adapter_words(tree: ast.AST) -> Iterator[str]:
    """The strings an adapter uses as JSON keys, types, compared values or a field's name it passes on."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (word := _constant(key)) is not None:
                    yield word
                    if word == "type" and (kind := _constant(value)) is not None:
                        yield kind
        elif isinstance(node, ast.Call):
            yield from (w for arg in node.args[:1] if (w := _constant(arg)) is not None)
        elif isinstance(node, ast.Subscript) and (word := _constant(node.slice)) is not None:
            yield word
        elif isinstance(node, ast.Compare):
            for op, side in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, (ast.Eq, ast.NotEq)):
                    yield from (w for s in (node.left, side) if (w := _constant(s)) is not None)
                elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(side, (ast.Tuple, ast.List, ast.Set)):
                    yield from (w for item in side.elts if (w := _constant(item)) is not None)


def _distinctive(word: str) -> bool:
    """A compound name (`stop_reason`, `response.output_text.delta`): a plain word (`text`, `title`)
    names nothing of one vendor."""
    parts = word.split(".")
    return ("_" in word or len(parts) > 1) and all(p.isidentifier() and p.islower() for p in parts)


def vendor_words() -> set[str]:
    """Every vendor word of the adapters, less the neutral names and the shared ones."""
    words: set[str] = set()
    for name in ADAPTERS:
        path = ROOT / "mewrk_jupyter" / "providers" / name
        words |= set(_adapter_words(ast.parse(path.read_text())))
    return {w for w in words if _distinctive(w)} - _neutral_names() - set(ENGINE_OWN)


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each string constant of a module, docstrings left out (they may name a vendor's word in prose)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and _constant(node.body[0].value) is not None
    }
    for node in ast.walk(tree):
        if (word := _constant(node)) is not None and id(node) not in docstrings:
            yield node.lineno, word


def engine_hits() -> list[str]:
    """Each vendor word written as a string under engine/, as `file:line 'word'`."""
    words = vendor_words()
    hits = []
    for path in sorted(ENGINE.rglob("*.py")):
        for line, text in _strings(ast.parse(path.read_text(), filename=str(path))):
            found = [w for w in words if w == text or ("." in w and w in text)]
            hits += [f"{path.relative_to(ROOT)}:{line} {w!r}" for w in found]
    return hits


def test_the_vendor_words_are_found_in_the_adapters() -> None:
    # The derivation finds what each protocol names (a check that it still reads the adapters).
    words = vendor_words()
    assert {"stop_reason", "tool_use", "tool_result", "cache_read_input_tokens"} <= words
    assert {"tool_calls", "finish_reason", "prompt_tokens", "function_call", "function_call_output"} <= words
    assert {"response.output_text.delta", "content_block_delta", "encrypted_content", "image_url"} <= words
    # The neutral request's own names, and Usage's (`input_tokens`, `output_tokens`), are the engine's.
    assert not words & {"text", "signature", "tool_use_id", "is_error", "input_tokens", "output_tokens"}


def test_the_engine_writes_no_vendor_word() -> None:
    hits = engine_hits()
    assert hits == [], "vendor JSON words under mewrk_jupyter/engine/ (an adapter's to read):\n" + "\n".join(
        hits
    )


if __name__ == "__main__":
    found = engine_hits()
    print("\n".join(found))
    print(f"{len(found)} vendor words under engine/ ({len({h.split()[-1] for h in found})} distinct)")
    sys.exit(1 if found else 0)
