"""Background work of a session — subagents and workflows that run beside its turns.

None exists yet: background subagents and workflows arrive with their own issue, and until then nothing
runs beside a turn. What must wait for background work (a handoff, a compaction into a new session)
asks `running_background_work`, so that their arrival changes this one function.
"""

from __future__ import annotations


def running_background_work(session_id: str) -> list[str]:
    """What runs in the background for the session, one short description each; today always none."""
    del session_id  # read once background work exists
    return []


def still_running(work: list[str], then: str) -> str:
    """The refusal while background work runs: what runs, and what to do ("then hand off")."""
    return (
        f"Background work is still running ({', '.join(work)}), and a new session would leave it behind: "
        f"wait for it to finish, {then}."
    )
