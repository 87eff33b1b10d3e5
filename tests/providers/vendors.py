"""Vendor files for tests: `llm/<vendor>.yaml` pointing the real SDKs at the wire server."""

from __future__ import annotations

from pathlib import Path

import mewrk_jupyter as mw

# Claude Code's CLI as npm installs it (`npm ci` in tests/claude-code/, part of the test command): what a
# person runs as `claude`, for the vendors of protocol claude-agent.
NPM_CLI = Path(__file__).resolve().parents[1] / "claude-code" / "node_modules" / ".bin" / "claude"


def write_vendor(
    workspace: Path, vendor: str, protocol: str, base_url: str, models: str, key_env: str
) -> None:
    """Write `.mewrk/llm/<vendor>.yaml` and trust the folder as it now stands (the person wrote it);
    `models` is the YAML under `models:`, indented by two spaces."""
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / f"{vendor}.yaml").write_text(
        f"protocol: {protocol}\nbase_url: {base_url}\napi_key: ${{{key_env}}}\nmodels:\n{models}"
    )
    mw.trust(workspace)


def claude_code_vendor(llm: Path, base_url: str, key_env: str, name: str = "cc") -> None:
    """Write `llm/<name>.yaml`: protocol claude-agent on npm's CLI (NPM_CLI), one model `claude-test`."""
    llm.mkdir(parents=True, exist_ok=True)
    (llm / f"{name}.yaml").write_text(
        f"protocol: claude-agent\nbase_url: {base_url}\napi_key: ${{{key_env}}}\ncli_path: {NPM_CLI}\n"
        "models:\n  claude-test: {context_window: 200000}\n"
    )
