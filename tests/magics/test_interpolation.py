"""`{expression}`, `{In[N]}`, `{Out[N]}` and `{Err[N]}` in `%%mewrk` and `%mewrk send`: the card keeps what
was typed and what each expression became; the request carries the text."""

from mewrk_jupyter import magics


def user_inputs(session):
    return [c for c in session.cards if c.kind == "user_input"]


def test_a_cell_body_interpolates_names_and_expressions_and_the_history_sends_the_text(ip, mewrk):
    ip.user_ns["rows"] = [3, 1, 2]
    mewrk("new")
    mewrk("", "Sorted: {sorted(rows)}; first {rows[0]}; braces {{kept}}")
    card = user_inputs(magics.current_session())[0]
    assert card.text == "Sorted: [1, 2, 3]; first 3; braces {kept}"
    assert card.template == "Sorted: {sorted(rows)}; first {rows[0]}; braces {{kept}}"
    assert [(i.source, i.text) for i in card.interpolated] == [
        ("sorted(rows)", "[1, 2, 3]"),
        ("rows[0]", "3"),
    ]
    sent = magics.current_session().history[-1].request["messages"][0]["parts"][0]["text"]
    assert sent == card.text


def test_in_out_and_err_of_earlier_cells(ip, mewrk):
    ip.run_cell("21 * 2", store_history=True)
    n = ip.execution_count - 1
    ip.run_cell("1 / 0", store_history=True)
    failed = ip.execution_count - 1
    mewrk("new")
    mewrk(f"send code {{In[{n}]}} gave {{Out[{n}]}}; then: {{Err[{failed}]}}")
    card = user_inputs(magics.current_session())[0]
    assert card.text.startswith("code 21 * 2 gave 42; then: Traceback (most recent call last):")
    assert card.text.rstrip().endswith("ZeroDivisionError: division by zero")
    assert [i.source for i in card.interpolated] == [f"In[{n}]", f"Out[{n}]", f"Err[{failed}]"]


def test_a_message_without_expressions_records_nothing(mewrk):
    mewrk("new")
    mewrk('send {"json": true} stays as typed')
    card = user_inputs(magics.current_session())[0]
    assert card.text == '{"json": true} stays as typed'
    assert card.template is None and card.interpolated == []


def test_a_failing_expression_is_refused_and_nothing_is_sent(mewrk):
    mewrk("new")
    shown = mewrk("send look at {Out[999999]}")
    assert "could not be interpolated (KeyError: 999999)" in shown and "nothing was sent" in shown
    assert magics.current_session().cards == []


def test_braces_pasted_from_a_reply_never_run_a_command_open_a_file_or_import(ip, mewrk, workspace):
    # A reply the person copies into a cell to ask about it; its braces must not act when the cell runs.
    ip.run_cell("import os\nrows = [3, 1, 2]\nclass Note:\n    def loud(self): return 'HI'\nnote = Note()")
    marker = workspace / "pwned"
    pasted = [
        f"{{__import__('os').system('touch {marker}')}}",
        f"{{os.system('touch {marker}')}}",
        f"{{get_ipython().system('touch {marker}')}}",
        f"{{open('{marker}', 'w').write('x')}}",
        f"{{sorted(['touch {marker}'], key=os.system)}}",
        f"{{[f('touch {marker}') for f in [os.system]]}}",
        "{().__class__.__base__.__subclasses__()}",
        "{current_session().configure(safety_level='default')}",
        "{session.approve(always=True)}",
    ]
    mewrk("new")
    ip.run_cell("from mewrk_jupyter.magics import current_session\nsession = current_session()")
    for text in pasted:
        shown = mewrk("", f"What does this do? {text}")
        assert "was not interpolated: it " in shown and "nothing was sent" in shown, shown
        assert not marker.exists()
    assert magics.current_session().cards == []
    # A method of the person's own class is their code, not a reading one: it is not called either.
    assert "it calls `note.loud`, which is not among the reading methods" in mewrk("", "{note.loud()}")
    assert magics.current_session().cards == []
    # What a person types to read values still works: builtins that compute, reading methods.
    mewrk("", "{len(rows)} rows, {sorted(rows, key=abs)}, {rows.index(1)}, {', '.join(map(str, rows))}")
    assert user_inputs(magics.current_session())[0].text == "3 rows, [1, 2, 3], 1, 3, 1, 2"


def test_a_known_secret_a_message_or_an_attachment_reads_from_the_kernel_is_hidden_on_its_card(
    ip, mewrk, workspace, monkeypatch
):
    secret = "sk-ant-" + "k3y" * 12
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    ip.run_cell("import os\nsettings = {'region': 'eu', 'key': os.environ['ANTHROPIC_API_KEY']}")
    mewrk("new")
    refused = mewrk("", "Is this key right? {os.environ['ANTHROPIC_API_KEY']}")
    assert "it reads `os`, a module" in refused and "nothing was sent" in refused
    mewrk("", "Is this key right? {settings['key']}")
    mewrk("attach settings")
    s = magics.current_session()
    asked, attached = user_inputs(s)[:2]
    assert asked.text == "Is this key right? [redacted]" and asked.interpolated[0].text == "[redacted]"
    assert asked.template == "Is this key right? {settings['key']}"
    assert "'region': 'eu'" in attached.text and "[redacted]" in attached.text
    exported = s.export("asked.ipynb").read_text()
    assert secret not in exported and secret not in str([c.model_dump() for c in s.cards])
