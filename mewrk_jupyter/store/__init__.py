"""Storage: one SQLite database per workspace (cards, sessions, history, runs)."""

from .db import Database, database, forget_databases

__all__ = ["Database", "database", "forget_databases"]
