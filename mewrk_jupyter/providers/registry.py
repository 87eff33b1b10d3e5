"""Find the provider that serves a `vendor/model` name: the offline models, or a vendor of `llm/`."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TypedDict

from ..config import Config, ModelConfig, VendorConfig, read_config, trust_state
from ..config.files import KINDS
from ..config.secrets import resolve_secret
from ..config.store_file import STORE_FILE
from ..errors import ConfigError, WorkspaceNotTrusted
from .base import Exchange, ModelInfo, ModelRequest, Provider
from .discovery import ListedModel, discovered_models
from .offline import OfflineProvider
from .unstreamed import shown_address

DEFAULT_MODEL = "offline/echo"
CONFIG_FOLDERS = tuple(KINDS)  # every subfolder of the configuration folder, hooks/ included
# Protocols that take a PDF as a document; compatible Chat Completions servers mostly do not.
PDF_PROTOCOLS = ("anthropic-messages", "openai-responses", "azure-openai", "bedrock")

_OFFLINE = OfflineProvider()
_cache: dict[Path, tuple[tuple, Config]] = {}
_cache_lock = threading.Lock()
# The provider built for a vendor's configuration, as long as that configuration stands (it keeps no
# secret: the key and headers are read at each request).
_providers: dict[tuple[Path | None, str], tuple[VendorConfig, dict[str, ModelConfig], Provider]] = {}
# Inside `one_reading()`: the configuration each folder had when it was first read there.
_reading: ContextVar[dict[Path, Config] | None] = ContextVar("mewrk_config_reading", default=None)


@contextmanager
def one_reading(going_on: dict[Path, Config] | None = None) -> Iterator[None]:
    """Within the block, each folder's configuration is read (and checked for changes) once.

    A request is built from one reading: a file saved while it is prepared takes effect for the next
    one, not for half of this one. Preparing a request asks for the configuration ten times.
    `going_on` continues a reading taken elsewhere (`current_reading()`): a turn's first request is
    built from the very configuration that `send` checked on the calling thread.
    """
    token = _reading.set(going_on if going_on is not None else {})
    try:
        yield
    finally:
        _reading.reset(token)


def current_reading() -> dict[Path, Config] | None:
    """A copy of the reading this thread is inside of (see `one_reading`), to go on with on another
    thread; None outside of one."""
    reading = _reading.get()
    return dict(reading) if reading is not None else None


def _signature(home: Path) -> tuple:
    """What changes when a configuration file is added, removed or saved.

    Read several times per turn, before the request is sent: one os.scandir of the folder and of
    each configuration folder in it costs a fraction of pathlib's is_dir, iterdir and stat.
    """
    entries = []
    try:
        with os.scandir(home) as found:
            folders = []
            for e in found:
                if e.name in CONFIG_FOLDERS and e.is_dir():
                    folders.append(e.path)
                elif e.name == STORE_FILE:  # the one file at the top the Config reads
                    try:
                        stat = e.stat()
                        entries.append((e.path, stat.st_mtime_ns, stat.st_size, stat.st_ino))
                    except OSError:
                        entries.append((e.path, -1, -1, -1))
            folders.sort()
    except (FileNotFoundError, NotADirectoryError):
        return ()
    for folder in folders:
        with os.scandir(folder) as found:
            for entry in found:
                try:
                    stat = entry.stat()
                except OSError:  # a dangling link: its name still counts
                    entries.append((entry.path, -1, -1, -1))
                    continue
                # The inode too: a file replaced by a rename (the settings editor's save) is seen even
                # when its size is the same and the file system's clock did not move.
                entries.append((entry.path, stat.st_mtime_ns, stat.st_size, stat.st_ino))
    entries.sort()
    return tuple(entries)


def config_for(home: Path | None) -> Config | None:
    """The configuration of a `.mewrk` folder, re-read only when one of its files changed.

    An invalid file is left out (its problems are in `Config.problems`), so it disables only what it defines.
    """
    if home is None:
        return None
    reading = _reading.get()
    if reading is not None:
        # Looked up as given first: a Path keeps its hash, where Path(home) would work it out again
        # (a request asks about ten times, on the way to the first token).
        found = reading.get(home)
        if found is not None:
            return found
    home = Path(home)
    if reading is not None and home in reading:
        return reading[home]
    config = _current_config(home)
    if reading is not None:
        reading[home] = config
    return config


def _current_config(home: Path) -> Config:
    signature = _signature(home)
    with _cache_lock:
        cached = _cache.get(home)
        if cached is not None and cached[0] == signature:
            return cached[1]
    config = read_config(home)
    with _cache_lock:
        _cache[home] = (signature, config)
    return config


def model_info(name: str, vendor: VendorConfig, model: ModelConfig) -> ModelInfo:
    """The engine's view of a configured model."""
    return ModelInfo(
        name=name,
        protocol=vendor.protocol,
        context_window=model.context_window,
        vision=model.vision,
        pdf_input=model.pdf_input if model.pdf_input is not None else vendor.protocol in PDF_PROTOCOLS,
        thinking=model.thinking,
        max_tokens=model.max_tokens,
        prefill=model.prefill,
        native_compaction=model.native_compaction,
        async_tools=model.async_tools,
        reasoning_content_roundtrip=model.reasoning_content_roundtrip,
        prices=model.prices.model_dump() if model.prices else None,
    )


class _Reach(TypedDict):
    """How an SDK provider reaches its vendor."""

    api_key: Callable[[], str | None]
    base_url: str | None
    headers: Callable[[], dict[str, str]]


def _reach(vendor: VendorConfig) -> _Reach:
    # The key and headers are read from their references at each request, never kept (S3).
    return _Reach(
        api_key=lambda: vendor.resolve_api_key() or "no-key",
        base_url=vendor.base_url,
        headers=vendor.resolve_headers,
    )


def _provider(vendor_name: str, vendor: VendorConfig, specs: dict[str, ModelConfig]) -> Provider:
    models = {
        f"{vendor_name}/{m}": model_info(f"{vendor_name}/{m}", vendor, spec) for m, spec in specs.items()
    }
    reach = _reach(vendor)
    # Each adapter is imported with its SDK when a vendor of its protocol is first asked for: importing
    # `anthropic` and `openai` takes over a second, which a session on the offline models never needs.
    if vendor.protocol == "anthropic-messages":
        from .anthropic import AnthropicProvider

        return AnthropicProvider(models, **reach)
    if vendor.protocol == "bedrock":
        from .bedrock import BedrockProvider

        # No key is sent where none is configured: the requests are signed with the AWS credentials.
        return BedrockProvider(
            models,
            api_key=vendor.resolve_api_key,
            base_url=vendor.base_url or vendor.bedrock_runtime(),
            headers=vendor.resolve_headers,
            aws_region=vendor.aws_region or "",
            credentials=vendor.resolve_aws_credentials,
        )
    if vendor.protocol == "openai-chat":
        from .openai_chat import OpenAIChatProvider

        return OpenAIChatProvider(models, **reach)
    if vendor.protocol in ("openai-responses", "azure-openai"):
        from .openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(
            models,
            **reach,
            protocol=vendor.protocol,
            api_version=vendor.api_version,
            deployments=vendor.deployments,
        )
    if vendor.protocol == "vertex":
        from .vertex import VertexProvider

        return VertexProvider(
            models,
            project_id=vendor.project_id or "",
            region=vendor.region or "",
            access_token=lambda: resolve_secret(vendor.access_token) if vendor.access_token else None,
            service_account=lambda: (
                resolve_secret(vendor.service_account) if vendor.service_account else None
            ),
            base_url=vendor.base_url,
            headers=vendor.resolve_headers,
        )
    if vendor.protocol == "openai-codex":
        from .openai_codex import PROTOCOL, CodexCLIProvider, CodexProvider

        codex = CodexCLIProvider if vendor.credentials == "codex-cli" else CodexProvider
        return codex(models, **reach, protocol=PROTOCOL)
    if vendor.protocol == "claude-agent":
        from .claude_agent import ClaudeAgentProvider

        # No key where none is configured: Claude Code signs in with its own login.
        return ClaudeAgentProvider(
            models,
            api_key=vendor.resolve_api_key,
            base_url=vendor.base_url,
            headers=vendor.resolve_headers,
            cli_path=vendor.cli_path,
        )
    raise ConfigError(
        f"llm/{vendor_name}.yaml: the offline models are built in and need no file; "
        f"name them offline/echo, offline/thinker, offline/slow, offline/tiny or offline/big."
    )


class _Untrusted(Provider):
    """A configured vendor of a folder not trusted yet: its facts are known, but nothing is ever sent."""

    def __init__(self, provider: Provider, sentence: str) -> None:
        self.protocol = provider.protocol
        self._provider = provider
        self._sentence = sentence

    def model_info(self, model: str) -> ModelInfo:
        return self._provider.model_info(model)

    def open(self, request: ModelRequest) -> Exchange:
        raise WorkspaceNotTrusted(self._sentence)


def check_trusted(model: str, home: Path | None) -> None:
    """Raise WorkspaceNotTrusted, naming what the folder would use, when `model` is a vendor of an untrusted folder."""
    vendor_name = model.split("/", 1)[0] if isinstance(model, str) else ""
    config = config_for(home)
    if vendor_name == "offline" or config is None or vendor_name not in config.vendors:
        return
    state = trust_state(config)
    if not state.trusted:
        raise WorkspaceNotTrusted(state.sentence)


def resolve(model: str, home: Path | None = None) -> tuple[Provider, ModelInfo]:
    """The provider and model facts for a model name, or a ConfigError that says what to fix.

    A vendor of a folder that is not trusted yet gives its facts, but its provider refuses to send.
    """
    if not isinstance(model, str) or "/" not in model or model.startswith("/") or model.endswith("/"):
        raise ConfigError(f"A model is named `vendor/model`, e.g. `offline/echo`; got {model!r}.")
    vendor_name = model.split("/", 1)[0]
    if vendor_name == "offline":
        return _OFFLINE, _OFFLINE.model_info(model)
    config = config_for(home)
    if config is None or vendor_name not in config.vendors:
        if config is not None and config.broken("llm", vendor_name):
            config.vendor(vendor_name)  # the vendor's file failed to load: its own problems say why
        raise ConfigError(f"The model `{model}` is not in `.mewrk/llm/{vendor_name}.yaml`.")
    state = trust_state(config)
    vendor = config.vendors[vendor_name]
    if vendor.discovers:
        specs = _listed_specs(config, model, vendor, trusted=state.trusted)
    else:
        vendor, _ = config.model(model)
        specs = vendor.models
    key = (home, vendor_name)
    with _cache_lock:
        built = _providers.get(key)
    # The vendor's file changed since, or its server lists other models now: build it again.
    if built is None or built[0] is not vendor or built[1] is not specs:
        built = (vendor, specs, _provider(vendor_name, vendor, specs))
        with _cache_lock:
            _providers[key] = built
    provider = built[2]
    if not state.trusted:
        provider = _Untrusted(provider, state.sentence)
    return provider, provider.model_info(model)


def _listed_specs(
    config: Config, model: str, vendor: VendorConfig, *, trusted: bool
) -> dict[str, ModelConfig]:
    """The models of a vendor whose server lists them, `model` among them (else a ConfigError saying so).

    In a folder not trusted yet nothing is asked: the model is taken as named, with no known window, and
    its provider refuses to send with the trust sentence.
    """
    vendor_name, _, model_name = model.partition("/")
    if not trusted:
        return {model_name: ModelConfig()}
    specs = discovered_models(config, vendor_name, vendor, _lister(vendor))
    if model_name not in specs:
        listed = ", ".join(f"`{vendor_name}/{name}`" for name in specs)
        raise ConfigError(
            f"The model `{model}` is not among the models the server of `.mewrk/llm/{vendor_name}.yaml` "
            f"lists ({shown_address(vendor.base_url, 'the default address')}): {listed}."
        )
    return specs


def _lister(vendor: VendorConfig) -> Callable[[], list[ListedModel]]:
    """How to ask the vendor's server for its models, through the adapter that talks to it."""

    def ask() -> list[ListedModel]:
        from .openai_chat import OpenAIChatProvider

        return OpenAIChatProvider({}, **_reach(vendor)).listed_models()

    return ask


def vendor_models(config: Config, vendor_name: str) -> dict[str, ModelConfig]:
    """The models a vendor offers now: the ones its file names, or the ones its server lists (none while
    the folder is not trusted or the server gives no list: `listing_problems` says why)."""
    vendor = config.vendors[vendor_name]
    if not vendor.discovers:
        return vendor.models
    try:
        return discovered_models(config, vendor_name, vendor, _lister(vendor))
    except ConfigError:
        return {}


def listing_problems(config: Config) -> dict[str, str]:
    """For a trusted folder, by vendor, the sentence of each server that was to list its models and did not."""
    if not trust_state(config).trusted:
        return {}
    problems = {}
    for name, vendor in config.vendors.items():
        if vendor.discovers:
            try:
                discovered_models(config, name, vendor, _lister(vendor))
            except ConfigError as exc:
                problems[name] = str(exc)
    return problems


def prices_of(model: str, home: Path | None = None) -> dict[str, float | None] | None:
    """A model's configured prices per million tokens, or None (none configured, or no longer configured)."""
    try:
        return resolve(model, home)[1].prices
    except ConfigError:
        return None
