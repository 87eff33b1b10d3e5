"""The notebook bridge's routes on a real `jupyter server`: a kernel's command reaches the window that has
the notebook open and comes back with its answer; without such a window, with a bad body or path, or when
the window goes away, the kernel gets one sentence. (A real JupyterLab window answering is tested in
tests/widget/test_browser_notebook.py; here the window's end is a websocket client speaking its protocol.)"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from tests.server.conftest import Server


def _socket_url(server: Server, token: str | None) -> HTTPRequest:
    url = server.url.replace("http://", "ws://") + "mewrk/v2/notebook/views"
    headers = {"Authorization": f"token {token}"} if token else {}
    return HTTPRequest(url, headers=headers)


def _post(server: Server, body: dict, token: bool = True) -> httpx.Response:
    headers = {"Authorization": f"token {server.token}"} if token else {}
    return httpx.post(f"{server.api}/notebook", json=body, headers=headers, timeout=30)


@pytest.mark.parametrize(
    ("body", "status", "sentence"),
    [
        (
            {"op": "read", "path": "a.ipynb"},
            409,
            "a.ipynb is not open in JupyterLab: open it there, then ask again.",
        ),
        (
            {"op": "read", "path": "data.csv"},
            400,
            "data.csv is not a notebook (a notebook's name ends in .ipynb).",
        ),
        ({"op": "read", "path": "../a.ipynb"}, 400, "'../a.ipynb' is not a path inside the workspace."),
        (
            {"op": "read", "kernelId": "k-none"},
            404,
            "This kernel belongs to no notebook this Jupyter server knows.",
        ),
        ({"op": "read"}, 400, "Name the notebook (`path`) or the kernel it belongs to (`kernelId`)."),
        (
            {"op": "wipe", "path": "a.ipynb"},
            400,
            "The field `op` is invalid: Input should be 'read', 'edit' or 'run'.",
        ),
        (
            {"op": "read", "path": "a.ipynb", "please": 1},
            400,
            "Unknown field `please`; this route takes `op`, `path`, `kernelId`, `args`, `timeout`.",
        ),
    ],
)
def test_a_command_no_window_can_answer_gets_one_sentence(server: Server, body, status, sentence):
    response = _post(server, body)
    assert (response.status_code, response.json()) == (status, {"error": sentence})


def test_without_the_token_neither_route_lets_anyone_in(server: Server):
    assert _post(server, {"op": "read", "path": "a.ipynb"}, token=False).status_code == 403

    async def connect() -> int:
        try:
            await websocket_connect(_socket_url(server, None))
        except HTTPClientError as exc:
            return exc.code
        return 101

    assert asyncio.run(connect()) == 403


def test_a_command_reaches_the_window_with_the_notebook_open_and_its_answer_comes_back(server: Server):
    async def window() -> list[httpx.Response]:
        socket = await websocket_connect(_socket_url(server, server.token))
        await socket.write_message(
            json.dumps({"type": "notebooks", "notebooks": [{"path": "a.ipynb", "kernelId": "k1"}]})
        )
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(
            headers={"Authorization": f"token {server.token}"}, timeout=30
        ) as client:
            asked = asyncio.ensure_future(
                client.post(f"{server.api}/notebook", json={"op": "read", "kernelId": "k1"})
            )
            command = json.loads(await socket.read_message())
            assert command == {
                "type": "command",
                "id": command["id"],
                "op": "read",
                "path": "a.ipynb",
                "args": {},
            }
            await socket.write_message(
                json.dumps({"type": "answer", "id": command["id"], "ok": True, "data": {"cells": []}})
            )
            read = await asked
            # A refusal comes back with its sentence and what the window said besides.
            asked = asyncio.ensure_future(
                client.post(
                    f"{server.api}/notebook",
                    json={"op": "edit", "path": "a.ipynb", "args": {"mode": "delete", "index": 0}},
                )
            )
            command = json.loads(await socket.read_message())
            assert command["args"] == {"mode": "delete", "index": 0}
            answer = {
                "type": "answer",
                "id": command["id"],
                "ok": False,
                "error": "Cell 0 changed.",
                "data": {"changed": True},
            }
            await socket.write_message(json.dumps(answer))
            refused = await asked
            # The window goes away while a command waits: the kernel is told so.
            asked = asyncio.ensure_future(
                client.post(f"{server.api}/notebook", json={"op": "read", "path": "a.ipynb"})
            )
            await socket.read_message()
            socket.close()
            gone = await asked
            after = await client.post(f"{server.api}/notebook", json={"op": "read", "path": "a.ipynb"})
        return [read, refused, gone, after]

    read, refused, gone, after = asyncio.run(window())
    assert (read.status_code, read.json()) == (200, {"path": "a.ipynb", "cells": []})
    assert (refused.status_code, refused.json()) == (409, {"changed": True, "error": "Cell 0 changed."})
    assert (gone.status_code, gone.json()) == (
        409,
        {"error": "The JupyterLab window that had the notebook open closed."},
    )
    assert after.json() == {"error": "a.ipynb is not open in JupyterLab: open it there, then ask again."}


def test_a_window_that_does_not_answer_in_time_gets_the_kernel_a_sentence(server: Server):
    async def silent() -> httpx.Response:
        socket = await websocket_connect(_socket_url(server, server.token))
        await socket.write_message(
            json.dumps({"type": "notebooks", "notebooks": [{"path": "b.ipynb", "kernelId": None}]})
        )
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(
            headers={"Authorization": f"token {server.token}"}, timeout=30
        ) as client:
            response = await client.post(
                f"{server.api}/notebook", json={"op": "read", "path": "b.ipynb", "timeout": 0.5}
            )
        socket.close()
        return response

    response = asyncio.run(silent())
    assert (response.status_code, response.json()) == (
        504,
        {"error": "JupyterLab did not answer within 0.5 seconds."},
    )
