"""Approve-always grants belong to the person and the place that gave them: each is stored with the real
path of the workspace and the trust digest of its configuration at the moment of granting, and used only
where both are still the same. A store committed to a repository, copied or cloned to another folder, or
a folder whose trust-asking files changed since, keeps no grant and says so once: the grants are dropped
from the store with that sentence."""

from __future__ import annotations

import os

from ...providers.registry import config_for
from ..settings.model import GrantPlace, SessionSettings, StoredSettings
from ..workspace import Workspace


def grant_place(workspace: Workspace) -> GrantPlace:
    """Where a grant given now is given: the workspace's real path and its configuration's trust digest."""
    config = config_for(workspace.home)
    return GrantPlace(root=os.path.realpath(workspace.root), digest=config.digest if config else "")


def granted_here(settings: SessionSettings, here: GrantPlace) -> list[str]:
    """The tools approved always that were approved here, as the folder's configuration stands now."""
    return [tool for tool in settings.approved_always if settings.approved_where.get(tool) == here]


def _not_here(settings: SessionSettings, stale: list[str], here: GrantPlace) -> str:
    """The one sentence that says why these grants are not used."""
    tools = ", ".join(stale)
    places = [settings.approved_where.get(tool) for tool in stale]
    elsewhere = next((p.root for p in places if p is not None and p.root != here.root), None)
    if elsewhere is not None:
        why = f"were given in {elsewhere}, not in this folder ({here.root})"
    elif any(p is not None for p in places):
        why = "were given before the configuration files that ask for trust changed"
    else:
        why = "were stored without the folder they were given in"
    return (
        f"The approve-always grants of this session ({tools}) {why}, so they are not used here; "
        "approve again to grant."
    )


def drop_foreign_grants(workspace: Workspace, settings: StoredSettings) -> str | None:
    """Drop from the store the grants not given here, returning the sentence that says so; None when
    every grant was given here (then nothing is written)."""
    value = settings.value
    if not value.approved_always:
        return None
    here = grant_place(workspace)
    kept = granted_here(value, here)
    if len(kept) == len(value.approved_always):
        return None
    stale = [tool for tool in value.approved_always if tool not in kept]
    said = _not_here(value, stale, here)
    settings.update(approved_always=kept, approved_where={tool: value.approved_where[tool] for tool in kept})
    return said
