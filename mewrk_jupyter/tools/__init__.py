"""The tools a model may call: workspace-confined file tools, search, bash, lsp and configured commands."""

from .base import Tool, ToolResult
from .lsp import LSP_COMMAND, NOT_INSTALLED
from .registry import BUILTIN_TOOLS, REEXECUTABLE, ToolRegistry

__all__ = [
    "BUILTIN_TOOLS",
    "LSP_COMMAND",
    "NOT_INSTALLED",
    "REEXECUTABLE",
    "Tool",
    "ToolRegistry",
    "ToolResult",
]
