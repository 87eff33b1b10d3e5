"""Check a tool call's parameters against the tool's JSON schema, with a message that names the parameter.

Only the part of JSON Schema that tool schemas use is checked: type, required, properties,
additionalProperties, enum, minimum/maximum and items. It is small enough to own, and its messages are
written for a model that has to correct its call.
"""

from __future__ import annotations

from typing import Any

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _is_type(value: Any, kind: str) -> bool:
    # bool is an int in Python but not an integer in JSON.
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "boolean": bool,
        "array": (list, tuple),
        "object": dict,
        "null": type(None),
    }
    expected = checks.get(kind)
    return expected is None or isinstance(value, expected)


def _json_kind(value: Any) -> str:
    for kind in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, kind):
            return kind
    return type(value).__name__


def _check_value(value: Any, schema: dict[str, Any], where: str) -> str | None:
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_is_type(value, kind) for kind in kinds):
            wanted = " or ".join(_TYPE_NAMES.get(kind, kind) for kind in kinds)
            return f"`{where}` must be {wanted}, not {_TYPE_NAMES.get(_json_kind(value), 'that')} ({value!r})"
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(str(choice) for choice in schema["enum"])
        return f"`{where}` must be one of {choices}; got {value!r}"
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            return f"`{where}` must be at least {schema['minimum']}; got {value!r}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"`{where}` must be at most {schema['maximum']}; got {value!r}"
    if isinstance(value, (list, tuple)) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problem = _check_value(item, schema["items"], f"{where}[{index}]")
            if problem:
                return problem
    if isinstance(value, dict) and "properties" in schema:
        return _check_object(value, schema, f"{where}.")
    return None


def _check_object(value: dict[str, Any], schema: dict[str, Any], prefix: str) -> str | None:
    properties: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return f"the parameter `{prefix}{name}` is required but missing"
    # Tool schemas list every parameter, so an unknown key is a typo unless the schema says otherwise.
    if schema.get("additionalProperties", False) is False:
        unknown = [name for name in value if name not in properties]
        if unknown:
            known = ", ".join(properties) or "no parameters"
            return f"`{prefix}{unknown[0]}` is not a parameter here (the parameters are: {known})"
    for name, item in value.items():
        if name in properties:
            problem = _check_value(item, properties[name], f"{prefix}{name}")
            if problem:
                return problem
    return None


def check_params(tool: str, schema: dict[str, Any], params: Any) -> str | None:
    """None when `params` fits `schema`; otherwise one sentence naming the parameter that does not."""
    if not isinstance(params, dict):
        kind = _TYPE_NAMES.get(_json_kind(params), "that")
        return f"The parameters of `{tool}` must be a JSON object, not {kind}."
    problem = _check_object(params, schema, "")
    return f"Invalid parameters for `{tool}`: {problem}." if problem else None
