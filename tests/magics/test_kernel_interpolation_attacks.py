"""The attacker's run on `{expression}` in a real ipykernel: text copied from a model's reply into a `%%mewrk`
cell, `%mewrk attach` and `/attach` — nothing runs, nothing is written, no list is emptied, the key does
not leave reversed, nothing is sent, and the person reads why; what the README promises still reads."""

from __future__ import annotations

from pathlib import Path

from .test_kernel_context import cards, kernel, value  # noqa: F401  (the fixture)

KEY = "sk-ant-" + "r3v3rs3d" * 6
SETUP = (
    "import os\nimport pandas as pd\nimport numpy as np\n"
    "rows = [3, 1, 2]\ndf = pd.DataFrame({{'a': [1, 2]}})\narr = np.arange(3)\n"
    "path = {path!r}\nos.environ['ANTHROPIC_API_KEY'] = {key!r}\n"
    "settings = {{'region': 'eu', 'key': os.environ['ANTHROPIC_API_KEY']}}"
)
# Each as the attacker wrote it, pasted into a question about it.
PASTED = [
    "{exec.__call__(\"open(path, 'w').write('pwned')\")}",
    "{eval.__call__(\"open(path, 'w').write('pwned')\")}",
    '{open.__call__(path, "w")}',
    "{df.to_csv.__call__(path)}",
    "{arr.tofile.__call__(path)}",
    "{rows.__init__()}",
    '{os.environ["ANTHROPIC_API_KEY"][::-1]}',
    "{settings['key'][::-1]}",
]
ATTACHED = [
    "rows.__init__()",
    "df.to_csv.__call__(path)",
    "arr.tofile.__call__(path)",
    "\"open.__call__(path, 'w')\"",
]


def shown(client, code: str) -> str:
    """What a cell displayed (its Markdown) and printed."""
    msg_id, _ = client.execute(code)
    mine = [m for m in client.iopub if m["parent_header"].get("msg_id") == msg_id]
    markdown = [
        m["content"]["data"].get("text/markdown", "") for m in mine if m["msg_type"] == "display_data"
    ]
    printed = [m["content"]["text"] for m in mine if m["msg_type"] == "stream"]
    return "\n".join(markdown + printed)


def test_pasted_braces_never_run_write_empty_or_send_in_a_real_kernel(kernel, tmp_path: Path):  # noqa: F811
    target = tmp_path / "pwned.txt"
    kernel.execute(SETUP.format(path=str(target), key=KEY))
    kernel.execute("%mewrk new")
    for text in PASTED:
        said = shown(kernel, f"%%mewrk\nWhat does this do? {text}")
        assert "was not interpolated: it " in said and "nothing was sent" in said, (text, said)
    for source in ATTACHED:
        said = shown(kernel, f"%mewrk attach {source}")
        assert "was not attached: it " in said and "nothing was added to the timeline" in said, (source, said)
    composer = shown(
        kernel,
        "from mewrk_jupyter.widget.commands import run_command\n"
        "try:\n    run_command(current_session(), '/attach rows.__init__()')\n"
        "except Exception as error:\n    print(error)",
    )
    assert "`rows.__init__()` was not attached: it calls `rows.__init__`" in composer
    assert not target.exists()
    assert value(kernel, "rows") == [3, 1, 2]
    assert value(kernel, "[len(current_session().cards), len(current_session().history)]") == [0, 0]

    # What the README promises reads as before; a key read as it is reaches the card redacted.
    kernel.execute(
        "%%mewrk\n{len(rows)} rows, {sorted(rows)}, {df['a'].sum()}, {{braces}}, key {settings['key']}"
    )
    (card,) = [c for c in cards(kernel) if c["kind"] == "user_input"]
    assert card["text"] == "3 rows, [1, 2, 3], 3, {braces}, key [redacted]\n"
    sent = value(kernel, "str(current_session().history[0].request)")
    assert KEY not in sent and KEY[::-1] not in sent and "[redacted]" in sent
