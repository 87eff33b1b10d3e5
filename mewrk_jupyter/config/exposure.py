"""What a configuration folder would do beyond the offline default: the servers it would reach, the
secrets and headers it would send and the commands it would run — what a person trusts when they trust it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .codex_login import CHATGPT_CODEX_URL, CODEX_CLI, codex_login_path
from .llm import AWS_SECRETS, VendorConfig
from .loader import Config
from .secrets import is_reference
from .store_file import STORE_FILE

# Where each protocol goes when a vendor file names no base_url; writing one of these out is no change.
OFFICIAL_URLS: dict[str, tuple[str, ...]] = {
    "anthropic-messages": ("https://api.anthropic.com", "https://api.anthropic.com/v1"),
    "openai-chat": ("https://api.openai.com", "https://api.openai.com/v1"),
    "openai-responses": ("https://api.openai.com", "https://api.openai.com/v1"),
    "openai-codex": (CHATGPT_CODEX_URL,),
    "claude-agent": ("https://api.anthropic.com", "https://api.anthropic.com/v1"),
}


# Built-in tools that change files or run commands (`python` runs code in the kernel).
ACTING_TOOLS = ("bash", "write", "edit", "python")
# A name in a policy's list that stands for an MCP server's tools, which may do anything.
_MCP = "mcp__"


@dataclass(frozen=True)
class Exposure:
    """Everything in a folder that acts on the person's behalf, each item with the file that asks for it."""

    servers: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    # Tools that change things and that a safety level lets run without asking: told when trusting, but
    # alone they ask for no trust (without a trusted vendor only the person's own scripted calls run).
    unasked: tuple[str, ...] = ()
    # Variables a safety level keeps in the environment of the commands the engine starts (its `keep`
    # overrides the filter that hides credentials from them).
    passed: tuple[str, ...] = ()
    # What a safety level's `sandbox:` opens to the commands: no sandbox, or folders outside the workspace.
    unconfined: tuple[str, ...] = ()

    @property
    def needs_trust(self) -> bool:
        """Whether anything here reaches beyond the folder: a server, a secret, a header, a command, or a
        command let out of its sandbox."""
        return bool(
            self.servers or self.secrets or self.headers or self.commands or self.passed or self.unconfined
        )

    def summary(self) -> str:
        """What the folder would do, in one clause: "send requests to …, with the secrets …, and run …"."""
        parts = []
        if self.servers:
            parts.append(f"send requests to {_listed(self.servers)}")
        if self.secrets:
            noun = "secret" if len(self.secrets) == 1 else "secrets"
            parts.append(f"read the {noun} {_listed(self.secrets)}")
        if self.headers:
            noun = "header" if len(self.headers) == 1 else "headers"
            parts.append(f"send the {noun} {_listed(self.headers)}")
        if self.commands:
            noun = "command" if len(self.commands) == 1 else "commands"
            parts.append(f"run the {noun} {_listed(self.commands)}")
        if self.passed:
            parts.append(f"pass the environment variables {_listed(self.passed)} to the commands it runs")
        if self.unconfined:
            parts.append(f"let the commands it runs {_listed(self.unconfined)}")
        if self.unasked:
            parts.append(f"let the model run {_listed(self.unasked)} without asking")
        return _listed(tuple(parts))


def exposure_of(config: Config) -> Exposure:
    """What the loaded files of `config` would use; a file that failed to load is not used, so not listed."""
    servers: list[str] = []
    secrets: list[str] = []
    headers: list[str] = []
    for name, vendor in config.vendors.items():
        where = f"llm/{name}.yaml"
        if vendor.protocol == "vertex":
            endpoint = vendor.base_url or vertex_endpoint(vendor.region or "")
            servers.append(f"{endpoint} for the Google Cloud project {vendor.project_id} ({where})")
        elif vendor.base_url and vendor.base_url.rstrip("/") not in OFFICIAL_URLS.get(vendor.protocol, ()):
            servers.append(f"{vendor.base_url} ({where})")
        if vendor.protocol == "bedrock":
            if not vendor.base_url:
                servers.append(f"{vendor.bedrock_runtime()} ({where})")
            secrets += _aws_credentials(vendor, where)
        if vendor.api_key:
            secrets.append(f"{vendor.api_key} ({where}, api_key)")
        secrets += _login_secrets(vendor, where)
        for header, value in vendor.headers.items():
            headers.append(f"{header} ({where})")
            if is_reference(value):
                secrets.append(f"{value} ({where}, headers.{header})")
    if config.store is not None:
        place = config.store.place("-")  # the server and the password; the workspace's name is not sent
        servers.append(f"{place.url}, the team store of the sessions ({STORE_FILE})")
        if place.password is not None:
            secrets.append(f"{place.password} ({STORE_FILE}, url)")
    if config.server is not None and config.server.token:
        secrets.append(f"{config.server.token} (server/, token)")
    commands = [f"`{_command_text(tool.command)}` (tools/{name}.yaml)" for name, tool in config.tools.items()]
    commands += [
        f"`{vendor.cli_path or 'claude'}` (llm/{name}.yaml, Claude Code)"
        for name, vendor in config.vendors.items()
        if vendor.protocol == "claude-agent"
    ]
    commands += [
        f"`{_command_text(hook.command)}` (hooks/{name}.yaml)" for name, hook in config.hooks.items()
    ]
    for name, server in config.mcp.items():
        where = f"mcp/{name}.yaml"
        if server.url is not None:
            servers.append(f"{server.url} ({where})")
        else:
            commands.append(f"`{server.where}` ({where})")
        secrets += [f"{ref} ({where}, {field})" for ref, field in server.references()]
        headers += [f"{header} ({where})" for header in server.headers]
    unasked = []
    passed = []
    unconfined = []
    for level, policy in config.policies.items():
        where = f"policy/{level}.yaml"
        sandbox = policy.sandbox
        if sandbox.mode == "off":
            unconfined.append(f"run outside the sandbox ({where}, sandbox: off)")
        if sandbox.read:
            unconfined.append(f"read {_listed(tuple(sandbox.read))} ({where}, sandbox.read)")
        if sandbox.write:
            unconfined.append(f"change {_listed(tuple(sandbox.write))} ({where}, sandbox.write)")
        if policy.environment.keep:
            passed.append(
                f"{_listed(tuple(policy.environment.keep))} (policy/{level}.yaml, environment.keep)"
            )
        # A rule by command (`bash(git *)`) lets the model run what it matches without asking, too.
        acting = [
            entry
            for entry, name in ((entry, entry.partition("(")[0]) for entry in policy.allow)
            if name in ACTING_TOOLS or name in config.tools or name.startswith(_MCP)
        ]
        if acting:
            unasked.append(f"{_listed(tuple(acting))} (policy/{level}.yaml)")
    return Exposure(
        tuple(servers),
        tuple(secrets),
        tuple(headers),
        tuple(commands),
        tuple(unasked),
        tuple(passed),
        tuple(unconfined),
    )


def _aws_credentials(vendor: VendorConfig, where: str) -> list[str]:
    """The AWS credentials a Bedrock vendor signs with: its references, its profile's, or the chain's."""
    found = [f"{ref} ({where}, {field})" for field in AWS_SECRETS if (ref := getattr(vendor, field))]
    if vendor.aws_profile:
        found.append(f"the credentials of the AWS profile {vendor.aws_profile} ({where}, aws_profile)")
    elif not found and not vendor.api_key:
        found.append(f"the AWS credentials found the standard way: environment, ~/.aws, role ({where})")
    return found


def vertex_endpoint(region: str) -> str:
    """Where the Vertex AI SDK client sends a region's requests when no base_url is given."""
    if region == "global":
        return "https://aiplatform.googleapis.com"
    if region in ("us", "eu"):  # the multi-region endpoints
        return f"https://aiplatform.{region}.rep.googleapis.com"
    return f"https://{region}-aiplatform.googleapis.com"


def _login_secrets(vendor: VendorConfig, where: str) -> list[str]:
    """The credentials a vendor signs in with beside api_key: Google's for Vertex, the Codex CLI's login."""
    if vendor.protocol == "vertex":
        named = [
            (ref, field) for field in ("access_token", "service_account") if (ref := getattr(vendor, field))
        ]
        if not named:
            return [f"Google's application default credentials ({where})"]
        return [f"{ref} ({where}, {field})" for ref, field in named]
    if vendor.credentials == CODEX_CLI:
        return [f"the Codex CLI's login {codex_login_path()} ({where}, credentials)"]
    if vendor.protocol == "claude-agent" and not vendor.api_key:
        return [f"Claude Code's own login ({where}, no api_key)"]
    return []


def _command_text(command: str | list[str]) -> str:
    return command if isinstance(command, str) else " ".join(command)


def _listed(items: tuple[str, ...]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
