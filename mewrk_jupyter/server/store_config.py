"""The team store named in the Jupyter server's own configuration (#37):

    c.MewrkJupyter.store_url = "postgresql://mewrk:${PG_PASSWORD}@db.example:5432/mewrk"
    c.MewrkJupyter.workspace = "my-project"

in `jupyter_server_config.py` (or the same keys in its JSON) do what MEWRK_STORE_URL and MEWRK_WORKSPACE do
in the environment, for the server and the kernels it starts. A configuration file is not a place for a
password: the URL gives one only as a reference (`${NAME}`), or leaves it to PGPASSWORD and ~/.pgpass. An
environment variable that is set already wins, and the log says the file's value was not used.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from typing import Any

from ..errors import StoreError
from ..store.address import URL_VARIABLE, WORKSPACE_VARIABLE, file_password_refusal, postgres_place

SECTION = "MewrkJupyter"
KEYS = {"store_url": URL_VARIABLE, "workspace": WORKSPACE_VARIABLE}


def apply_store_config(
    config: Any, root_name: str, environ: MutableMapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """Put the section's keys into the environment; returns what to log, as (level, sentence) pairs."""
    env = os.environ if environ is None else environ
    section = config.get(SECTION) if hasattr(config, "get") else None
    if not section:
        return []
    said: list[tuple[str, str]] = []
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        said.append(
            (
                "error",
                f"{SECTION}: there is no setting {', '.join(unknown)}; the settings are {', '.join(KEYS)}.",
            )
        )
    values: dict[str, str] = {}
    for key, variable in KEYS.items():
        if key not in section:
            continue
        value = section[key]
        if not isinstance(value, str) or not value.strip():
            said.append(("error", f"{SECTION}.{key} must be a text, so it was not used."))
            continue
        values[variable] = value.strip()
    url = values.get(URL_VARIABLE)
    if url is not None:
        refused = _refusal(url, values.get(WORKSPACE_VARIABLE) or root_name)
        if refused is not None:
            said.append(("error", f"{SECTION}.store_url was not used: {refused}"))
            values.pop(URL_VARIABLE)
    for variable, value in values.items():
        key = next(k for k, v in KEYS.items() if v == variable)
        if env.get(variable) and env[variable] != value:
            said.append(
                (
                    "warning",
                    f"{SECTION}.{key} was not used: {variable} is set in the environment, which wins.",
                )
            )
            continue
        env[variable] = value
    if URL_VARIABLE in values and env.get(URL_VARIABLE) == values[URL_VARIABLE]:
        place = postgres_place(env[URL_VARIABLE], env.get(WORKSPACE_VARIABLE) or root_name)
        said.append(("info", f"the sessions are kept in the team store {place}"))
    return said


def _refusal(url: str, workspace: str) -> str | None:
    """Why the URL cannot be used from a configuration file, or None."""
    try:
        place = postgres_place(url, workspace)
    except StoreError as exc:
        return str(exc).replace(URL_VARIABLE, "the URL")
    return file_password_refusal(place)
