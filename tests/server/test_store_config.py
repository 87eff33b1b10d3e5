"""The team store named in the Jupyter server's configuration (`c.MewrkJupyter.store_url`, #37): a real
server started with it keeps its sessions in PostgreSQL; a literal password, an unknown key and a
value that the environment overrides are each refused with a sentence in the log."""

from __future__ import annotations

from traitlets.config import Config

from mewrk_jupyter.server.store_config import apply_store_config
from tests.server.conftest import start_server, stop_server
from tests.server.test_api import new_session


def config_of(**keys: str) -> Config:
    config = Config()
    for key, value in keys.items():
        setattr(config.MewrkJupyter, key, value)
    return config


def test_a_server_configured_with_the_team_store_keeps_its_sessions_there(tmp_path, postgres):
    url = postgres.new_database().replace(postgres.password, "${TEAM_PG_PASSWORD}")
    base = tmp_path / "server"
    server = start_server(
        base,
        TEAM_PG_PASSWORD=postgres.password,
        args=(f"--MewrkJupyter.store_url={url}", "--MewrkJupyter.workspace=shared-name"),
    )
    try:
        with server.client() as client:
            sid = new_session(client, title="configured")["id"]
        import psycopg

        with psycopg.connect(url.replace("${TEAM_PG_PASSWORD}", postgres.password)) as conn:
            name, schema = conn.execute("SELECT name, schema_name FROM public.mewrk_workspaces").fetchone()
            assert name == "shared-name"
            titles = conn.execute(f'SELECT id, title FROM "{schema}".sessions').fetchall()
        assert titles == [(sid, "configured")]
        assert not (server.root / ".mewrk" / "mewrk.db").exists()
        log = (base / "server.log").read_text()
        assert "the sessions are kept in the team store postgresql://mewrk@127.0.0.1" in log
        assert "(workspace 'shared-name')" in log
        assert postgres.password not in log
    finally:
        stop_server(server)


def test_a_literal_password_in_the_configuration_is_refused():
    env: dict[str, str] = {}
    said = apply_store_config(config_of(store_url="postgresql://u:hunter2-secret@h/db"), "proj", env)
    assert env == {}
    assert said == [
        (
            "error",
            "MewrkJupyter.store_url was not used: a configuration file holds no password: write it as a "
            "reference (postgresql://user:${NAME}@host/db, NAME an environment variable) or leave it to "
            "PGPASSWORD or ~/.pgpass.",
        )
    ]
    assert "hunter2-secret" not in repr(said)


def test_an_unknown_key_a_bad_url_and_an_overriding_environment_are_said():
    env = {"MEWRK_WORKSPACE": "from-env"}
    said = apply_store_config(
        config_of(store_url="mysql://h/db", workspace="from-file", stor_url="typo"), "proj", env
    )
    assert env == {"MEWRK_WORKSPACE": "from-env"}
    assert [level for level, _ in said] == ["error", "error", "warning"]
    assert said[0][1] == "MewrkJupyter: there is no setting stor_url; the settings are store_url, workspace."
    assert said[1][1].startswith("MewrkJupyter.store_url was not used: the URL must be a postgresql:// URL")
    assert said[2][1] == (
        "MewrkJupyter.workspace was not used: MEWRK_WORKSPACE is set in the environment, which wins."
    )
