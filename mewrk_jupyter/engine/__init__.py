"""The engine: sessions, runs, request assembly and the hidden prefix."""

from .session import Session, list_sessions

__all__ = ["Session", "list_sessions"]
