"""The protocol's JSON Schema, from which js/build.mjs generates the front end's types.

Kernel messages are described as they are sent (every field present), view messages as they are read
(fields with a default may be left out). Each model becomes a definition named as the class, so the
TypeScript names are the Python names.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, models_json_schema

from .kernel import JSON_SCHEMA_DEF, KERNEL_MODELS, SEE_JSON_SCHEMA_DEF
from .view import ACTION_MODELS, VIEW_MODELS

# Where the committed schema lives, relative to the project root; js/build.mjs reads it there.
SCHEMA_PATH = "js/protocol.schema.json"


class _Generator(GenerateJsonSchema):
    """Pydantic's generator, without a title per field (the TypeScript generator would name each one)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def literal_schema(self, schema: Any) -> Any:
        # A Literal's values in sorted order: Python takes Literal["allow", "ask", "deny"] and a library's
        # Literal["allow", "deny", "ask"] for one type, so their order would be whichever was made first
        # (importing the Claude Agent SDK changed the schema's text).
        made = super().literal_schema(schema)
        values = made.get("enum")
        if isinstance(values, list) and all(isinstance(v, str) for v in values):
            made["enum"] = sorted(values)
        return made

    def field_is_required(self, field: Any, total: bool) -> bool:
        # The kernel always sends every field of a model (null rather than absent); a card's payload
        # (a TypedDict) has the fields of its kind only.
        if self.mode == "serialization" and field["type"] != "typed-dict-field":
            return not field.get("serialization_exclude")
        return super().field_is_required(field, total)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _union(title: str, description: str, members: list[dict[str, str]]) -> dict[str, Any]:
    return {"title": title, "description": description, "oneOf": members}


def _point_at_definitions(node: Any) -> Any:
    """Replace each marker left by a field (see SEE_JSON_SCHEMA_DEF) with a reference to its definition."""
    if isinstance(node, dict):
        if set(node) == set(SEE_JSON_SCHEMA_DEF):
            return _ref(node["x-definition"])
        return {key: _point_at_definitions(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_point_at_definitions(value) for value in node]
    return node


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of every message between the kernel and a view, with a definition per model."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [(m, "serialization") for m in KERNEL_MODELS]
    models += [(m, "validation") for m in (*VIEW_MODELS, *ACTION_MODELS)]
    names, top = models_json_schema(models, schema_generator=_Generator)
    defs = _point_at_definitions(dict(sorted(top["$defs"].items())))
    defs["JsonSchema"] = JSON_SCHEMA_DEF
    name = {model: names[(model, mode)]["$ref"].rsplit("/", 1)[1] for model, mode in models}
    defs["KernelMsg"] = _union(
        "KernelMsg", "What the kernel sends a view.", [_ref(name[m]) for m in KERNEL_MODELS]
    )
    defs["Action"] = _union(
        "Action",
        "What a view asks of the session; each is answered by one result.",
        [_ref(name[m]) for m in ACTION_MODELS],
    )
    defs["ViewMsg"] = _union(
        "ViewMsg", "What a view sends the kernel.", [*(_ref(name[m]) for m in VIEW_MODELS), _ref("Action")]
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "WidgetProtocol",
        "description": "The timeline widget's wire protocol (mewrk_jupyter/widget/protocol).",
        "oneOf": [_ref("KernelMsg"), _ref("ViewMsg")],
        "$defs": defs,
    }


def schema_text() -> str:
    """The schema as committed in js/protocol.schema.json: stable key order, one trailing newline."""
    return json.dumps(protocol_schema(), indent=2, ensure_ascii=False) + "\n"
