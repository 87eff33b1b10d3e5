"""Parameter checks: each mistake is named in one sentence the model can act on."""

from __future__ import annotations

import pytest

from mewrk_jupyter.tools.schema import check_params

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number"},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "required": ["deep"]},
        "maybe": {"type": ["string", "null"]},
    },
    "required": ["path"],
}


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({}, "the parameter `path` is required but missing"),
        ({"path": 3}, "`path` must be a string, not an integer (3)"),
        ({"path": "a", "limit": True}, "`limit` must be an integer, not true or false (True)"),
        ({"path": "a", "limit": 1.5}, "`limit` must be an integer, not a number (1.5)"),
        ({"path": "a", "limit": 0}, "`limit` must be at least 1; got 0"),
        ({"path": "a", "limit": 11}, "`limit` must be at most 10; got 11"),
        ({"path": "a", "ratio": "1"}, "`ratio` must be a number, not a string ('1')"),
        ({"path": "a", "mode": "medium"}, "`mode` must be one of fast, slow; got 'medium'"),
        ({"path": "a", "tags": ["x", 2]}, "`tags[1]` must be a string, not an integer (2)"),
        ({"path": "a", "opts": {}}, "the parameter `opts.deep` is required but missing"),
        ({"path": "a", "maybe": 1}, "`maybe` must be a string or null, not an integer (1)"),
        (
            {"path": "a", "pth": "b"},
            "`pth` is not a parameter here (the parameters are: path, limit, ratio, mode, tags, opts, maybe)",
        ),
    ],
)
def test_each_mistake_is_named(params, problem):
    assert check_params("demo", SCHEMA, params) == f"Invalid parameters for `demo`: {problem}."


def test_valid_parameters_pass():
    params = {
        "path": "a",
        "limit": 10,
        "ratio": 2,
        "mode": "slow",
        "tags": [],
        "opts": {"deep": False},
        "maybe": None,
    }
    assert check_params("demo", SCHEMA, params) is None


def test_parameters_must_be_an_object():
    assert (
        check_params("demo", SCHEMA, ["a"]) == "The parameters of `demo` must be a JSON object, not an array."
    )


def test_extra_keys_pass_when_the_schema_allows_them():
    schema = {"type": "object", "properties": {}, "additionalProperties": True}
    assert check_params("demo", schema, {"anything": 1}) is None
