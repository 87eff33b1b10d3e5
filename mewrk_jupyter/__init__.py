"""mewrk_jupyter — an LLM agent workbench in Jupyter where the timeline is the context."""

from .cards.models import (
    Approval,
    Attachment,
    Card,
    ComparedSide,
    Comparison,
    Handoff,
    HostMessage,
    Interpolation,
    ModelReply,
    NativeCompaction,
    Preview,
    Subagent,
    SummaryDivider,
    SystemPrompt,
    Thinking,
    ToolCall,
    Usage,
    UserInput,
    Workflow,
)
from .cards.undo import UNDO
from .config.preferences import Preferences
from .engine.catalog import list_sessions
from .engine.display import register_view
from .engine.replay.run import Replay
from .engine.replay_check import replay_check
from .engine.session import Session
from .engine.settings.editor import SettingsEditor
from .engine.settings.preferences import preferences, set_preferences
from .engine.trust import trust
from .errors import (
    CardNotFound,
    ConfigConflict,
    ConfigError,
    ConfigNotice,
    ContextTooLarge,
    InvalidInput,
    MewrkError,
    NotEditable,
    NothingToCompact,
    NothingToUndo,
    ProviderError,
    RunNotFound,
    SessionBusy,
    SessionNotFound,
    StoreError,
    ToolChangeHeld,
    WorkspaceNotTrusted,
)

__version__ = "0.1.0"

__all__ = [
    "UNDO",
    "Approval",
    "Attachment",
    "Interpolation",
    "Card",
    "CardNotFound",
    "ComparedSide",
    "Comparison",
    "ConfigConflict",
    "ConfigError",
    "ConfigNotice",
    "ContextTooLarge",
    "Handoff",
    "HostMessage",
    "InvalidInput",
    "MewrkError",
    "ModelReply",
    "NativeCompaction",
    "NotEditable",
    "NothingToCompact",
    "NothingToUndo",
    "Preferences",
    "Preview",
    "ProviderError",
    "Replay",
    "RunNotFound",
    "Session",
    "SessionBusy",
    "SessionNotFound",
    "SettingsEditor",
    "StoreError",
    "Subagent",
    "Workflow",
    "SummaryDivider",
    "SystemPrompt",
    "Thinking",
    "ToolCall",
    "ToolChangeHeld",
    "Usage",
    "UserInput",
    "WorkspaceNotTrusted",
    "list_sessions",
    "load_ipython_extension",
    "preferences",
    "replay_check",
    "set_preferences",
    "trust",
]


def _timeline_widget(session: Session):
    """The view `s.widget()` returns and displaying `s` shows; imported on first use (anywidget is slow)."""
    from .widget import session_widget

    return session_widget(session)


register_view(_timeline_widget)


def load_ipython_extension(ipython) -> None:
    """`%load_ext mewrk_jupyter`: register the `%mewrk` and `%%mewrk` magics."""
    from .magics import register

    register(ipython)
