"""Exceptions a user can act on: each carries a plain sentence, never a deep traceback."""

from __future__ import annotations

R1_SENTENCE = "This session is running in another window — stop it to take over"
RESUME_LOST = "This approval can no longer be resumed — send a new message to continue"


class MewrkError(Exception):
    """Base class of every error mewrk_jupyter raises on purpose."""


class SessionBusy(MewrkError):
    """The session runs a turn; it refuses sends and timeline changes until the turn ends (R1, T6)."""

    def __init__(self, message: str = R1_SENTENCE):
        super().__init__(message)


class NotEditable(MewrkError):
    """A card refuses this change under the rules of T6."""


class CardNotFound(MewrkError, KeyError):
    """No card with that id (or id prefix) exists in the session."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "card not found"


class SessionNotFound(MewrkError, KeyError):
    """No session with that id exists in the store."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "session not found"


class RunNotFound(MewrkError, KeyError):
    """No run with that id exists in the session (or the workspace)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "run not found"


class InvalidInput(MewrkError, ValueError):
    """The caller passed something the engine cannot use; the message says what and why."""


class NothingToUndo(MewrkError):
    """The undo (or redo) stack holds no step for this session."""


class StoreError(MewrkError):
    """The store on disk cannot be used (damaged, or written by a newer version); it is left untouched."""


class ConfigError(MewrkError):
    """The configuration folder holds something invalid; the message names the file and the field."""


class ProviderError(MewrkError):
    """The model provider failed in a way the engine could not recover from."""


class ConfigNotice(UserWarning):
    """The configuration asks for something the engine does not do yet; the sentence names file and field."""


class ToolChangeHeld(UserWarning):
    """A change of the offered tools that the tool lock holds while the prompt cache is warm: the sentence
    says what is held, until when, and that `s.accept_tool_change()` offers the new list now."""


class ConfigConflict(ConfigError):
    """A configuration file changed on disk since the editor read it, so it was not written (S5).

    `current_version` is the file's version now (None when it no longer exists): read it again, or save
    with `overwrite=True` to replace it.
    """

    def __init__(self, message: str, current_version: str | None):
        super().__init__(message)
        self.current_version = current_version


class WorkspaceNotTrusted(ConfigError):
    """The configuration folder would send secrets, reach a server or run commands, and is not trusted yet."""


class ContextTooLarge(MewrkError):
    """A request would not fit the model's context window, so it was not sent; the sentence gives both sizes."""


class NothingToCompact(MewrkError):
    """A compaction was refused: the conversation is too short for a summary to save anything (C6)."""
