"""`store.yaml`: the team store a configuration folder keeps its sessions in (#37).

    url: postgresql://mewrk:${PG_PASSWORD}@db.example:5432/mewrk
    workspace: my-project      # optional: the name the sessions go by there (else the folder's name)

does what MEWRK_STORE_URL and MEWRK_WORKSPACE do, once the person trusted the folder: the URL names a
server the sessions go to, so a cloned folder's file acts only after trust (config/trust.py). The
password is given only as a reference. A variable set in the environment (or by the Jupyter server's
c.MewrkJupyter keys) wins over the file. Sessions made or opened after a change go to the new store; a
session already open stays where it was opened.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import field_validator

from ..errors import StoreError
from ..store.address import URL_VARIABLE, PostgresPlace, file_password_refusal, postgres_place
from .base import ConfigModel
from .problems import invalid

STORE_FILE = "store.yaml"
STORE_KIND = "store"
# A workspace's name as the file may give it: what store/address.py takes, checked here to say so at the line.
_NAME = re.compile(r"^[^\x00-\x1f\x7f/\\]{1,200}$")


class StoreFile(ConfigModel):
    """Where the folder's sessions are kept: a PostgreSQL database, and the workspace's name in it."""

    url: str
    workspace: str | None = None

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: Any) -> Any:
        if not isinstance(value, str) or not value.strip():
            raise invalid("url must be a postgresql:// URL, written as text", "url")
        try:
            place = postgres_place(value.strip(), "workspace")
        except StoreError as exc:
            raise invalid(str(exc).replace(URL_VARIABLE, "url").rstrip("."), "url") from None
        refused = file_password_refusal(place)
        if refused is not None:
            raise invalid(f"url: {refused.rstrip('.')}", "url")
        return value.strip()

    @field_validator("workspace", mode="before")
    @classmethod
    def _workspace(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str) or not _NAME.match(value.strip()):
            raise invalid("workspace must be a name without slashes or control characters", "workspace")
        return value.strip()

    def place(self, workspace: str) -> PostgresPlace:
        """The store this file names, for the workspace of that name (the file's own name comes first)."""
        return postgres_place(self.url, self.workspace or workspace)
