"""llm/<vendor>.yaml: protocols, models, the S3 rule, Azure fields, and the `vendor/model` lookup."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import load_config, validate_file
from mewrk_jupyter.errors import ConfigError

from .conftest import ANTHROPIC


def test_a_vendor_file_loads_with_its_models(home, write):
    write("llm/anthropic.yaml", ANTHROPIC)
    config = load_config(home)
    vendor, model = config.model("anthropic/claude-sonnet-4-5")
    assert vendor.protocol == "anthropic-messages"
    assert vendor.api_key == "${ANTHROPIC_API_KEY}"
    assert (model.context_window, model.vision, model.thinking) == (200000, True, "signed")
    assert config.vendor("anthropic") is vendor


def test_model_defaults_and_an_empty_model_entry(home, write):
    write(
        "llm/deepseek.yaml",
        """
        protocol: openai-chat
        base_url: https://api.deepseek.com
        api_key: ${DEEPSEEK_API_KEY}
        models:
          deepseek-chat:
          deepseek-reasoner:
            reasoning_content_roundtrip: tool_turns
            prices: {input: 0.28, output: 0.42, cache_read: 0.028}
        """,
    )
    config = load_config(home)
    _, chat = config.model("deepseek/deepseek-chat")
    assert chat.context_window is None  # D4: no window declared, no percentage
    assert (chat.vision, chat.thinking, chat.max_tokens, chat.prefill) == (False, "none", 4096, False)
    assert chat.native_compaction is False and chat.prices is None
    _, reasoner = config.model("deepseek/deepseek-reasoner")
    assert reasoner.reasoning_content_roundtrip == "tool_turns"
    assert reasoner.prices.output == 0.42 and reasoner.prices.cache_write is None


def test_a_model_missing_from_its_vendor_file_is_named_plainly(home, write):
    write("llm/anthropic.yaml", ANTHROPIC)
    config = load_config(home)
    with pytest.raises(ConfigError) as missing_model:
        config.model("anthropic/claude-opus-9")
    assert (
        str(missing_model.value)
        == "The model `anthropic/claude-opus-9` is not in `.mewrk/llm/anthropic.yaml`"
    )
    with pytest.raises(ConfigError) as missing_vendor:
        config.model("x/y")
    assert str(missing_vendor.value) == "The model `x/y` is not in `.mewrk/llm/x.yaml`"
    with pytest.raises(ConfigError, match="vendor/model"):
        config.model("no-slash")


def test_model_names_may_contain_slashes(home, write):
    write("llm/openrouter.yaml", "protocol: openai-chat\nmodels:\n  meta-llama/llama-3-70b: {}\n")
    _, model = load_config(home).model("openrouter/meta-llama/llama-3-70b")
    assert model.max_tokens == 4096


@pytest.mark.parametrize("literal", ["sk-ant-api03-abcdef", "12345", "''", "ANTHROPIC_API_KEY"])
def test_s3_a_literal_api_key_is_refused_with_the_exact_sentence(home, write, literal):
    write("llm/anthropic.yaml", ANTHROPIC.replace("${ANTHROPIC_API_KEY}", literal))
    with pytest.raises(ConfigError) as err:
        load_config(home)
    assert str(err.value) == "llm/anthropic.yaml: api_key must be a reference, not a literal"


def test_s3_applies_to_validate_file_too():
    text = "protocol: openai-chat\napi_key: sk-proj-123\nmodels: {gpt-4o: {}}\n"
    with pytest.raises(ConfigError) as err:
        validate_file("llm", text, name="openai")
    assert str(err.value) == "llm/openai.yaml: api_key must be a reference, not a literal"


@pytest.mark.parametrize("ref", ["${OPENAI_API_KEY}", "@file:/run/secrets/openai", "@file:~/.keys/openai"])
def test_references_are_accepted_as_written(ref):
    vendor = validate_file(
        "llm", f"protocol: openai-chat\napi_key: '{ref}'\nmodels: {{gpt-4o: {{}}}}\n", name="o"
    )
    assert vendor.api_key == ref


def test_a_malformed_reference_says_how_to_write_one():
    with pytest.raises(ConfigError, match=r"write an environment reference as \$\{ENV_VAR\}"):
        validate_file("llm", "protocol: openai-chat\napi_key: ${lower case}\nmodels: {m: {}}\n", name="o")
    with pytest.raises(ConfigError, match="@file: needs an absolute path"):
        validate_file("llm", "protocol: openai-chat\napi_key: '@file:keys/o'\nmodels: {m: {}}\n", name="o")


def test_credential_headers_must_be_references_other_headers_are_free():
    base = "protocol: openai-chat\nmodels: {m: {}}\nheaders:\n"
    vendor = validate_file("llm", base + "  X-Title: mewrk\n  Authorization: ${AUTH}\n", name="o")
    assert vendor.headers == {"X-Title": "mewrk", "Authorization": "${AUTH}"}
    with pytest.raises(ConfigError) as err:
        validate_file("llm", base + "  Authorization: Bearer sk-123\n", name="o")
    assert str(err.value) == "llm/o.yaml: headers.Authorization must be a reference, not a literal"
    assert "sk-123" not in str(err.value)


def test_an_unknown_protocol_is_refused_naming_the_field():
    with pytest.raises(ConfigError) as err:
        validate_file("llm", "protocol: gemini\nmodels: {m: {}}\n", name="g")
    assert str(err.value).startswith("llm/g.yaml: protocol: input should be 'anthropic-messages'")


def test_thinking_must_be_signed_plain_or_none():
    with pytest.raises(
        ConfigError, match=r"llm/a.yaml: models.m.thinking: input should be 'signed', 'plain' or 'none'"
    ):
        validate_file("llm", "protocol: anthropic-messages\nmodels: {m: {thinking: yes}}\n", name="a")


@pytest.mark.parametrize(
    ("field", "value"),
    [("context_window", 0), ("max_tokens", -1), ("context_window", "lots")],
)
def test_model_numbers_are_checked(field, value):
    with pytest.raises(
        ConfigError, match=rf"llm/a.yaml: models.m.{field}(: input should be| must be a whole number)"
    ):
        validate_file("llm", f"protocol: openai-chat\nmodels: {{m: {{{field}: {value}}}}}\n", name="a")


def test_prices_are_non_negative_and_closed():
    with pytest.raises(
        ConfigError, match=r"models.m.prices.input: input should be greater than or equal to 0"
    ):
        validate_file("llm", "protocol: openai-chat\nmodels: {m: {prices: {input: -1}}}\n", name="a")
    with pytest.raises(
        ConfigError, match=r"unknown field 'models.m.prices.currency' \(allowed: input, output"
    ):
        validate_file("llm", "protocol: openai-chat\nmodels: {m: {prices: {currency: EUR}}}\n", name="a")


def test_type_mistakes_are_said_in_yaml_terms():
    with pytest.raises(ConfigError) as err:
        validate_file("llm", "protocol: openai-chat\nmodels: {m: 200000, n: {vision: maybe}}\n", name="a")
    assert str(err.value).splitlines() == [
        "llm/a.yaml: models.m must be a mapping of fields",
        "llm/a.yaml: models.n.vision must be true or false",
    ]


def test_models_must_not_be_empty():
    with pytest.raises(ConfigError, match="llm/a.yaml: models must declare at least one model"):
        validate_file("llm", "protocol: openai-chat\nmodels: {}\n", name="a")


def test_base_url_must_be_http_without_credentials():
    with pytest.raises(ConfigError, match="base_url must be an http"):
        validate_file("llm", "protocol: openai-chat\nbase_url: localhost:8000\nmodels: {m: {}}\n", name="a")
    with pytest.raises(ConfigError, match="base_url must not carry credentials") as err:
        validate_file(
            "llm", "protocol: openai-chat\nbase_url: https://me:pw@x.io\nmodels: {m: {}}\n", name="a"
        )
    assert "pw" not in str(err.value)


def test_azure_fields():
    text = """\
protocol: azure-openai
base_url: https://res.openai.azure.com
api_key: ${AZURE_OPENAI_API_KEY}
api_version: 2025-04-01-preview
deployments: {gpt-5: prod-gpt5}
models: {gpt-5: {native_compaction: true}, gpt-5-mini: {}}
"""
    vendor = validate_file("llm", text, name="azure")
    assert vendor.deployment("gpt-5") == "prod-gpt5"
    assert vendor.deployment("gpt-5-mini") == "gpt-5-mini"
    assert vendor.api_version == "2025-04-01-preview"


def test_azure_rules_are_enforced():
    with pytest.raises(ConfigError, match="llm/a.yaml: api_version is only for protocol azure-openai"):
        validate_file("llm", "protocol: openai-chat\napi_version: '1'\nmodels: {m: {}}\n", name="a")
    with pytest.raises(ConfigError, match="protocol azure-openai needs base_url"):
        validate_file("llm", "protocol: azure-openai\nmodels: {m: {}}\n", name="a")
    with pytest.raises(ConfigError, match="deployments.gpt-9: no model 'gpt-9' in models"):
        validate_file(
            "llm",
            "protocol: azure-openai\nbase_url: https://r.io\ndeployments: {gpt-9: d}\nmodels: {m: {}}\n",
            name="a",
        )
