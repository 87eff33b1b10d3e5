"""`python` and `inspect` outside a kernel (not offered), and over a namespace given to them directly."""

import threading

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.tools.base import ToolFailure
from mewrk_jupyter.tools.kernel import kernel_tools, run_python
from mewrk_jupyter.tools.kernel_inspect import describe


def test_outside_a_kernel_the_kernel_tools_are_not_offered(workspace):
    names = [spec.name for spec in mw.Session.new().tool_specs()]
    assert "python" not in names and "inspect" not in names
    assert kernel_tools() == []


def test_python_captures_only_its_own_thread_and_interrupts_at_stop():
    namespace: dict = {}
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    result = run_python("import time\nprint('tick')\nwhile True: time.sleep(0.01)", namespace, 30, stop)
    assert result.text == "[stdout]\ntick\n[interrupted: the turn was stopped]" and result.is_error


def test_python_result_of_a_statement_only_and_a_syntax_error():
    namespace: dict = {}
    assert run_python("a = 1", namespace, 5, None).text == "(no output)" and namespace["a"] == 1
    broken = run_python("def (", namespace, 5, None)
    assert broken.is_error and "SyntaxError" in broken.text


def test_inspect_reads_dotted_paths_without_calling_and_refuses_what_is_not_a_name():
    namespace = {"items": [1, 2, 3]}
    shown = describe("items", namespace).text
    assert shown.splitlines()[:3] == ["name: items", "type: builtins.list", "length: 3"]
    assert "value: [1, 2, 3]" in shown
    with pytest.raises(ToolFailure, match=r"`items\(\)` is not a variable name or a dotted path"):
        describe("items()", namespace)
    with pytest.raises(ToolFailure, match="There is no variable `nothing` in the kernel"):
        describe("nothing", namespace)


def test_code_blocked_in_one_call_is_interrupted_when_that_call_returns():
    namespace: dict = {}
    result = run_python("import time\ntime.sleep(1)\nafter = True\nprint('after')", namespace, 0.2, None)
    assert result.text == "[interrupted: the code ran past its time limit of 0.2 seconds]" and result.is_error
    assert "after" not in namespace  # nothing after the blocking call ran
