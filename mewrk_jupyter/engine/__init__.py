"""The engine: sessions, runs, request assembly and the hidden prefix."""

from .catalog import list_sessions
from .session import Session

__all__ = ["Session", "list_sessions"]
