"""The notebook's context in a real ipykernel: interpolation, attach, and the `python` and `inspect` tools."""

from __future__ import annotations

import base64
import json
import os
import re
import struct
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import claude_code_vendor
from tests.providers.wire import anthropic_reply, anthropic_tool_use

from .test_kernel import WAIT, Kernel

SETUP = "%load_ext mewrk_jupyter\nimport json\nfrom mewrk_jupyter.magics import current_session"


@pytest.fixture
def kernel(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "MEWRK_HOME"}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    try:
        kernel = Kernel(client)
        kernel.execute(SETUP)
        yield kernel
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def failing_cell(kernel: Kernel, code: str) -> int:
    """Run a cell that raises (the cells after it are not aborted); its prompt number."""
    msg_id = kernel.client.execute(code, stop_on_error=False)
    reply = kernel.client.get_shell_msg(timeout=WAIT)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kernel.client.get_shell_msg(timeout=WAIT)
    assert reply["content"]["status"] == "error"
    return int(reply["content"]["execution_count"])


def value(kernel: Kernel, expression: str):
    """An expression's value in the kernel, through JSON."""
    return json.loads(kernel.stdout(f"print(json.dumps({expression}))"))


def cards(kernel: Kernel) -> list[dict]:
    """The current session's cards once its turn has ended (or paused for an approval)."""
    kernel.execute("s = current_session()\nif s.last_run is not None: s.last_run.wait()")
    return value(kernel, "[c.model_dump(mode='json') for c in s.cards]")


def test_cell_bodies_and_send_interpolate_names_cells_outputs_and_errors(kernel):
    _, reply = kernel.execute("x = 20\nx + 1")
    n = reply["content"]["execution_count"]
    failed = failing_cell(kernel, "undefined_thing")
    kernel.execute("%mewrk new")
    kernel.execute(f"%%mewrk\nx is {{x}}, twice {{x * 2}}; In {{In[{n}]}}; Out {{Out[{n}]}}; {{{{literal}}}}")
    kernel.execute(f"%mewrk send and the error: {{Err[{failed}]}}")
    first, _, second, _ = cards(kernel)
    assert first["text"] == "x is 20, twice 40; In x = 20\nx + 1; Out 21; {literal}\n"  # a body ends its line
    assert first["template"].startswith("x is {x}, twice {x * 2};")
    assert [i["source"] for i in first["interpolated"]] == ["x", "x * 2", f"In[{n}]", f"Out[{n}]"]
    assert second["text"].startswith("and the error: Traceback (most recent call last):")
    assert second["text"].endswith("NameError: name 'undefined_thing' is not defined")
    sent = value(kernel, "s.history[0].request['messages'][0]['parts'][0]['text']")
    assert sent == first["text"]


def test_attach_a_dataframe_an_array_a_figure_and_an_image(kernel):
    kernel.execute(
        "import pandas as pd, numpy as np\n"
        "import matplotlib.pyplot as plt\n"
        "from PIL import Image\n"
        "df = pd.DataFrame({'a': range(30), 'b': [i / 2 for i in range(30)]})\n"
        "arr = np.zeros((4, 5), dtype='float32')\n"
        "fig, ax = plt.subplots()\n"
        "ax.plot([1, 2, 3])\n"
        "img = Image.new('RGB', (3, 2), 'blue')"
    )
    kernel.execute("%mewrk new")
    for name in ("df", "arr", "fig", "img"):
        kernel.execute(f"%mewrk attach {name}")
    table, array, figure, image = cards(kernel)
    assert table["text"].startswith("`df`: pandas DataFrame, 30 rows × 2 columns")
    assert "_Not shown: 10 more rows._" in table["text"]
    assert array["text"].startswith("`arr`: NumPy array, shape 4 × 5, dtype float32")
    assert figure["attachments"][0]["media_type"] == "image/png" and figure["attachments"][0]["size"] > 0
    assert image["attachments"][0]["name"] == "img.png"


def test_the_python_tool_asks_first_then_runs_in_the_kernel_and_captures_what_it_did(kernel):
    kernel.execute("x = 41")
    kernel.execute("%mewrk new")
    assert value(kernel, "[t.name for t in current_session().tool_specs()][-2:]") == ["python", "inspect"]
    assert value(kernel, "[current_session().tool_tier(n) for n in ('python', 'inspect')]") == [
        "ask",
        "allow",
    ]
    code = "import sys\\nprint('hello')\\nprint('careful', file=sys.stderr)\\ny = x + 1\\ny"
    kernel.execute(f'%%mewrk\ncall: python {{"code": "{code}"}}')
    kernel.execute("s = current_session()\ns.last_run.wait()")
    assert value(kernel, "s.state") == "awaiting_approval"
    assert value(kernel, "'y' in globals()") is False  # nothing ran before the approval
    kernel.execute("s.approve(wait=True)")
    call = next(c for c in cards(kernel) if c["kind"] == "tool_call")
    assert call["result"] == "[stdout]\nhello\n[stderr]\ncareful\n[result]\n42" and not call["is_error"]
    assert value(kernel, "y") == 42  # the code ran in the person's namespace


def test_a_python_call_past_its_time_limit_is_interrupted_and_errors_come_back(kernel):
    kernel.execute("%mewrk new")
    kernel.execute(
        '%%mewrk\ncall: python {"code": "print(\'started\')\\nwhile True: pass", "timeout": 1}\n'
        'call: python {"code": "1 / 0"}'
    )
    kernel.execute("s = current_session()\ns.last_run.wait()")
    kernel.execute("s.approve(always=True, wait=True)")
    looped, failed = (c for c in cards(kernel) if c["kind"] == "tool_call")
    assert (
        looped["result"] == "[stdout]\nstarted\n[interrupted: the code ran past its time limit of 1 seconds]"
    )
    assert looped["is_error"]
    assert failed["is_error"] and failed["result"].endswith("ZeroDivisionError: division by zero")
    assert value(kernel, "1 + 1") == 2  # the kernel is well after the interrupt


def test_inspect_runs_without_asking_and_describes_a_variable(kernel):
    kernel.execute("import pandas as pd\ndf = pd.DataFrame({'city': ['a', 'b', 'c'], 'n': [1, 2, 3]})")
    kernel.execute("%mewrk new")
    kernel.execute('%%mewrk\ncall: inspect {"name": "df"}\ncall: inspect {"name": "df.merge"}')
    frame, method = (c for c in cards(kernel) if c["kind"] == "tool_call")
    assert re.search(r"^type: pandas\.(core\.frame\.)?DataFrame$", frame["result"], re.M)
    assert "shape: 3 rows × 2 columns" in frame["result"] and "columns: city (" in frame["result"]
    assert "signature: df.merge(right" in method["result"] and "docstring:" in method["result"]
    assert value(kernel, "s.state") == "idle"


def test_a_figure_the_python_call_draws_is_kept_on_its_card_and_noted_for_the_model(kernel):
    kernel.execute("import matplotlib\nmatplotlib.use('Agg')")
    kernel.execute("%mewrk new")
    code = "import matplotlib.pyplot as plt\\nfig = plt.figure(figsize=(2, 1))\\nplt.plot([1, 2])"
    kernel.execute(f'%%mewrk\ncall: python {{"code": "{code}"}}')
    kernel.execute("s = current_session()\ns.last_run.wait()\nrun = s.approve()\nrun.wait()")
    # offline/echo has no vision input: the figure counts for the vision gate, so the turn stops there.
    assert value(kernel, "str(run.error)").startswith(
        "This conversation holds images (output-1.png from `python`) and `offline/echo` has no vision input."
    )
    call = next(c for c in cards(kernel) if c["kind"] == "tool_call")
    assert "[image: matplotlib figure 1, 200 × 100 pixels; shown to the person on the card]" in call["result"]
    assert [(i["name"], i["media_type"]) for i in call["images"]] == [("output-1.png", "image/png")]
    kernel.execute(
        "s.export('drawn.ipynb')\nimport mewrk_jupyter as mw\nback = mw.Session.import_notebook('drawn.ipynb')"
    )
    assert value(
        kernel, "[c.images == d.images for c, d in zip(s.cards, back.cards) if c.kind == 'tool_call']"
    ) == [True]


def test_what_a_python_call_shows_with_display_comes_back_in_order_with_what_it_printed(kernel):
    # The kernel's own matplotlib backend (inline): display() of a figure publishes its PNG.
    kernel.execute("%mewrk new")
    code = (
        "import pandas as pd\nimport matplotlib.pyplot as plt\nfrom IPython.display import display\n"
        "print('before')\ndisplay(pd.DataFrame({'a': [1, 2]}))\nprint('between')\n"
        "fig = plt.figure(figsize=(2, 1))\nplt.plot([1, 2])\ndisplay(fig)\nprint('after')"
    )
    shown_at = len(kernel.iopub)
    kernel.execute(f"%%mewrk\ncall: python {json.dumps({'code': code})}")
    # offline/echo has no vision input: once the call ran, the figure stops the turn at the vision gate.
    kernel.execute("s = current_session()\ns.last_run.wait()\ns.approve().wait()")
    call = next(c for c in cards(kernel) if c["kind"] == "tool_call")
    # One image: the figure displayed is not noted again as a figure the call left open.
    [image] = call["images"]
    assert (image["name"], image["media_type"]) == ("output-1.png", "image/png")
    png = base64.b64decode(image["data"])
    width, height = struct.unpack(">II", png[16:24])
    assert call["result"] == (
        "[stdout]\nbefore\n[display]\n   a\n0  1\n1  2\n[stdout]\nbetween\n"
        "[display]\n<Figure size 200x100 with 1 Axes>\n"
        f"[image: displayed, {width} × {height} pixels; shown to the person on the card]\n[stdout]\nafter"
    )
    assert not call["is_error"]
    # What the call showed went to its card, not to the notebook's output.
    published = [
        m for m in kernel.iopub[shown_at:] if m["msg_type"] in ("display_data", "update_display_data")
    ]
    assert not [m for m in published if "0  1" in m["content"]["data"].get("text/plain", "")]
    # A cell's own display() after the call still reaches the notebook.
    msg_id, _ = kernel.execute("from IPython.display import display\ndisplay('shown in the cell')")
    [own] = [
        m
        for m in kernel.iopub
        if m["msg_type"] == "display_data" and m["parent_header"].get("msg_id") == msg_id
    ]
    assert own["content"]["data"]["text/plain"] == "'shown in the cell'"


def test_a_figure_the_python_call_draws_reaches_a_model_with_vision_input(kernel, tmp_path, wire_server):  # noqa: F811
    """Against the local Anthropic wire server: the figure goes in the call's `tool_result` as an image
    block after the result's text, the same bytes the card keeps."""
    llm = tmp_path / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "ant.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire_server.url}\napi_key: ${{IMG_KEY}}\n"
        "models:\n  v: {context_window: 100000, vision: true}\n"
    )
    code = "import matplotlib.pyplot as plt\nfig = plt.figure(figsize=(2, 1))\nplt.plot([1, 2])"
    wire_server.enqueue(
        anthropic_reply(anthropic_tool_use("python", {"code": code})), anthropic_reply("A line.")
    )
    kernel.execute(
        "import matplotlib\nmatplotlib.use('Agg')\nimport os\nos.environ['IMG_KEY'] = 'sk-img-test'"
    )
    kernel.execute("import mewrk_jupyter as mw\nmw.trust()\n%mewrk new")
    kernel.execute("s = current_session()\ns.configure(model='ant/v')")
    kernel.execute("%mewrk send draw a line")
    kernel.execute("s.last_run.wait()\ns.approve(wait=True)")
    call = next(c for c in cards(kernel) if c["kind"] == "tool_call")
    [image] = call["images"]
    [result] = [
        block
        for message in wire_server.json_bodies()[-1]["messages"]
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert result["content"] == [
        {"type": "text", "text": call["result"]},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image["data"]}},
    ]
    assert "[image: matplotlib figure 1, 200 × 100 pixels; shown to the person on the card]" in call["result"]


def test_inspect_and_python_never_show_the_start_of_a_secret_where_they_cut_a_long_value(kernel):
    # The model reads a variable whose long value holds a known secret just where the output is cut.
    secret = "sk-ant-" + "s3cr3t" * 8
    kernel.execute(
        f"import os\nos.environ['ANTHROPIC_API_KEY'] = {secret!r}\n"
        "settings = {'notes': 'n' * 1970, 'key': os.environ['ANTHROPIC_API_KEY']}"
    )
    kernel.execute("%mewrk new")
    code = "print('x' * 29980 + os.environ['ANTHROPIC_API_KEY'])"
    kernel.execute(f'%%mewrk\ncall: inspect {{"name": "settings"}}\ncall: python {{"code": "{code}"}}')
    kernel.execute("s = current_session()\ns.last_run.wait()\ns.approve(wait=True)")
    shown, printed = (c for c in cards(kernel) if c["kind"] == "tool_call")
    assert "value: {'notes': 'nnn" in shown["result"] and "'key': '[redact" in shown["result"]
    assert printed["result"].startswith("[stdout]\nxxx") and "[redacted]" in printed["result"]
    everything = json.dumps(cards(kernel)) + json.dumps(value(kernel, "[h.request for h in s.history]"))
    assert secret[:9] not in everything


def test_a_send_in_the_next_cell_waits_for_the_turn_this_kernel_runs(kernel, tmp_path, wire_server):  # noqa: F811
    """Run All over two `%mewrk send` cells: the second cell starts while the first turn still streams
    (its reply takes a second to begin); it waits for that turn to end and sends, rather than refusing."""
    llm = tmp_path / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "ant.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire_server.url}\napi_key: ${{RUN_ALL_KEY}}\n"
        "models:\n  m: {context_window: 100000}\n"
    )
    wire_server.enqueue(anthropic_reply("One.", first_byte_delay=1.0), anthropic_reply("Two."))
    kernel.execute("import os\nos.environ['RUN_ALL_KEY'] = 'sk-run-all'")
    kernel.execute("import mewrk_jupyter as mw\nmw.trust()\n%mewrk new")
    kernel.execute("s = current_session()\ns.configure(model='ant/m')")
    kernel.execute("%mewrk send first")
    assert value(kernel, "s.last_run.state") == "running"  # the next cell comes while the reply is slow
    kernel.execute("%mewrk send second")
    assert [(c["kind"], c["text"]) for c in cards(kernel)] == [
        ("user_input", "first"),
        ("model_reply", "One."),
        ("user_input", "second"),
        ("model_reply", "Two."),
    ]


def test_claude_code_in_a_kernel_calls_the_python_tool_through_the_magics(kernel, tmp_path, wire_server):  # noqa: F811
    """Protocol claude-agent from the magics: the real Claude Code CLI (npm's) asks for `python`, the call
    waits for the person's approval, runs in this kernel, and its output is what the CLI sends back."""
    claude_code_vendor(tmp_path / ".mewrk" / "llm", wire_server.url, "CC_KEY")
    wire_server.enqueue(
        anthropic_reply(
            "I will compute it.",
            anthropic_tool_use(
                "mcp__mewrk__python", {"code": "answer = 6 * 7\nprint(answer)"}, id="toolu_cc"
            ),
        ),
        anthropic_reply("It is 42."),
    )
    kernel.execute("import os\nos.environ['CC_KEY'] = 'sk-cc-test-key-0123456789'")
    kernel.execute("import mewrk_jupyter as mw\nmw.trust()\n%mewrk new --model cc/claude-test")
    kernel.execute("%mewrk send what is six times seven")
    kernel.execute("s = current_session()\ns.last_run.wait()")
    kinds = value(kernel, "[c.kind for c in s.cards]")
    # Said in full if not: it failed once under load, its cause not seen.
    said = (kinds, value(kernel, "[s.last_run.state, str(s.last_run.error)]"), len(wire_server.requests))
    assert kinds[-2:] == ["tool_call", "approval"], said
    kernel.execute("s.approve(wait=True)")
    assert value(kernel, "answer") == 42
    assert cards(kernel)[-1]["text"] == "It is 42."
    [result] = [
        block
        for message in wire_server.json_bodies()[-1]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert result["tool_use_id"] == "toolu_cc" and "42" in json.dumps(result["content"])
    assert "sk-cc-test-key-0123456789" not in json.dumps(cards(kernel))
