"""Load the whole configuration folder into one validated, secret-free Config."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError
from .agents import AgentConfig
from .files import KINDS, STORE, SUFFIXES, read_text, validate_text
from .hooks import HookConfig
from .llm import ModelConfig, VendorConfig
from .mcp import McpServerConfig
from .policy import DEFAULT_POLICY, PolicyConfig
from .problems import InvalidConfig, Problem, raise_problems
from .prompts import PromptProfile
from .server import ServerConfig
from .store_file import STORE_FILE, StoreFile
from .tools import ToolConfig
from .workflows import WorkflowConfig


class Config(BaseModel):
    """Everything in the configuration folder; empty when there is none (the offline default, P4)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path | None = None
    vendors: dict[str, VendorConfig] = {}
    agents: dict[str, AgentConfig] = {}
    policies: dict[str, PolicyConfig] = {}
    tools: dict[str, ToolConfig] = {}
    prompts: dict[str, PromptProfile] = {}
    hooks: dict[str, HookConfig] = {}
    mcp: dict[str, McpServerConfig] = {}
    workflows: dict[str, WorkflowConfig] = {}
    server: ServerConfig | None = None
    store: StoreFile | None = None  # store.yaml: the team store of the folder's sessions
    # What is wrong with the files that were left out: each disables only what it defines.
    problems: tuple[Problem, ...] = ()
    # What was read otherwise than it is written now (an older file's fraction as its percent): said,
    # and the file is used.
    notes: tuple[Problem, ...] = ()
    # A digest of the files that can ask for trust (TRUST_FOLDERS), of the very text this Config read.
    digest: str = ""

    @property
    def is_empty(self) -> bool:
        """True when no file configures anything, so the session falls back to the offline provider."""
        parts = (
            self.vendors,
            self.agents,
            self.policies,
            self.tools,
            self.prompts,
            self.hooks,
            self.mcp,
            self.workflows,
        )
        return not any(parts) and self.server is None

    def broken(self, folder: str, name: str) -> tuple[Problem, ...]:
        """What is wrong with the file `<folder>/<name>.yaml`, which was left out; empty when it loaded."""
        files = (f"{folder}/{name}.yaml", f"{folder}/{name}.yml")
        return tuple(p for p in self.problems if p.file in files)

    def _refuse_broken(self, folder: str, name: str) -> None:
        """Asked for by name, a file left out raises its own problems (InvalidConfig)."""
        found = self.broken(folder, name)
        if found:
            raise_problems(found)

    def vendor(self, name: str) -> VendorConfig:
        """The vendor declared by `llm/<name>.yaml`."""
        if name not in self.vendors:
            self._refuse_broken("llm", name)
            raise ConfigError(f"There is no vendor `{name}`: `.mewrk/llm/{name}.yaml` does not exist")
        return self.vendors[name]

    def model(self, ref: str) -> tuple[VendorConfig, ModelConfig]:
        """The vendor and model facts for `vendor/model`."""
        vendor_name, _, model_name = ref.partition("/") if isinstance(ref, str) else ("", "", "")
        if not vendor_name or not model_name:
            raise ConfigError(f"A model is named `vendor/model`, e.g. `offline/echo`; got {ref!r}")
        vendor = self.vendors.get(vendor_name)
        if vendor is None:
            self._refuse_broken("llm", vendor_name)
        if vendor is None or model_name not in vendor.models:
            raise ConfigError(f"The model `{ref}` is not in `.mewrk/llm/{vendor_name}.yaml`")
        return vendor, vendor.models[model_name]

    def agent(self, name: str) -> AgentConfig:
        """The agent declared by `agents/<name>.yaml`."""
        if name not in self.agents:
            self._refuse_broken("agents", name)
            raise ConfigError(f"There is no agent `{name}`: `.mewrk/agents/{name}.yaml` does not exist")
        return self.agents[name]

    def workflow(self, name: str) -> WorkflowConfig:
        """The workflow declared by `workflows/<name>.yaml`."""
        if name not in self.workflows:
            self._refuse_broken("workflows", name)
            listed = ", ".join(f"`{known}`" for known in sorted(self.workflows)) or "none"
            raise ConfigError(
                f"There is no workflow `{name}`: `.mewrk/workflows/{name}.yaml` does not exist "
                f"(the workflows: {listed})"
            )
        return self.workflows[name]

    def policy(self, level: str) -> PolicyConfig:
        """The tiers of safety level `level`, from `policy/<level>.yaml`."""
        if level not in self.policies:
            self._refuse_broken("policy", level)
            raise ConfigError(
                f"There is no safety level `{level}`: `.mewrk/policy/{level}.yaml` does not exist"
            )
        return self.policies[level]

    def prompt(self, key: str, profile: str = "default") -> str | None:
        """The profile's wording for `key` (e.g. `handoff.armed_notice`), or None to keep the engine's own."""
        found = self.prompts.get(profile)
        return found.get(key) if found else None


_FIELDS = {
    "llm": "vendors",
    "agents": "agents",
    "policy": "policies",
    "tools": "tools",
    "prompts": "prompts",
    "hooks": "hooks",
    "mcp": "mcp",
    "workflows": "workflows",
}


# The folders whose files can name a server, a secret, a header or a command, or let commands run without
# asking, or run commands by themselves (hooks, MCP servers); agents and prompts act only through these.
TRUST_FOLDERS = ("llm", "tools", "server", "policy", "hooks", "mcp")


def load_config(home: Path | str) -> Config:
    """Read and validate every file under `home`; a missing folder gives an empty Config.

    Raises InvalidConfig (a ConfigError) listing every problem found, each naming its file and field.
    """
    config = read_config(home)
    if config.problems:
        raise_problems(config.problems)
    return config


def read_config(home: Path | str) -> Config:
    """Read every file under `home`, leaving out each invalid one: its problems go to `Config.problems`.

    Raises ConfigError only when `home` itself is not a folder.
    """
    home = Path(home)
    if not home.exists():
        return Config(home=home, digest=hashlib.sha256().hexdigest())
    if not home.is_dir():
        raise ConfigError(f"The configuration folder {home} is a file, not a folder")
    found: dict[str, dict[str, BaseModel]] = {kind: {} for kind in KINDS}
    problems: list[Problem] = []
    notes: list[Problem] = []
    digest = hashlib.sha256()
    for kind, spec in KINDS.items():
        for path in _files(home / spec.folder, problems):
            rel = f"{spec.folder}/{path.name}"
            if path.stem in found[kind]:
                problems.append(
                    Problem(rel, None, f"a second file for '{path.stem}' (keep .yaml or .yml, not both)")
                )
                continue
            try:
                text = read_text(path, rel)
                if kind in TRUST_FOLDERS:
                    digest.update(f"{rel}\0".encode() + hashlib.sha256(text.encode()).digest())
                read: list[Problem] = []
                found[kind][path.stem] = validate_text(spec, text, path.stem, rel, read)
                notes.extend(read)  # only a file that is used: one left out says what is wrong instead
            except InvalidConfig as exc:
                problems.extend(exc.problems)
    store = _store_file(home, digest, problems)
    servers = found.pop("server")
    if len(servers) > 1:
        listed = ", ".join(f"server/{name}" for name in servers)
        problems.append(Problem("server", None, f"several server files ({listed}); keep one"))
        servers = {}
    fields = {_FIELDS[kind]: models for kind, models in found.items()}
    # Validation checks that each folder's models are of its kind; the instances are kept as they are.
    return Config.model_validate(
        {
            "home": home,
            "server": next(iter(servers.values()), None),
            "store": store,
            "problems": tuple(problems),
            "notes": tuple(notes),
            "digest": digest.hexdigest(),
            **fields,
        }
    )


def _store_file(home: Path, digest: Any, problems: list[Problem]) -> StoreFile | None:
    """store.yaml, read as a file of TRUST_FOLDERS is: its text in the digest, a fault in the problems."""
    path = home / STORE_FILE
    if not path.is_file():
        return None
    try:
        text = read_text(path, STORE_FILE)
        digest.update(f"{STORE_FILE}\0".encode() + hashlib.sha256(text.encode()).digest())
        return cast(StoreFile, validate_text(STORE, text, "store", STORE_FILE))
    except InvalidConfig as exc:
        problems.extend(exc.problems)
        return None


def _files(folder: Path, problems: list[Problem]) -> list[Path]:
    """The YAML files of one subfolder, in name order; hidden files and editor backups are skipped."""
    if not folder.exists():
        return []
    if not folder.is_dir():
        problems.append(Problem(folder.name, None, "must be a folder, not a file"))
        return []
    return sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix in SUFFIXES and not p.name.startswith(".")
    )


def policy_for(config: Config | None, level: str) -> PolicyConfig:
    """The policy of a safety level: `policy/<level>.yaml`, or the built-in default level."""
    if config is not None and level in config.policies:
        return config.policies[level]
    if level == "default":  # an invalid default.yaml falls back to the built-in level (a notice said why)
        return DEFAULT_POLICY
    if config is not None and config.broken("policy", level):
        config.policy(level)  # the level's file failed to load: its own problems say why
    raise ConfigError(f"There is no safety level `{level}`: `.mewrk/policy/{level}.yaml` does not exist.")
