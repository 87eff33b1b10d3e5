"""A grep whose RE2 search overruns its time limit: once the call has returned, the search burns no more CPU.

RE2 matches in linear time, but the constant can be large: `(.{1,100}[ab]){10}z` outgrows RE2's DFA
memory and falls back to its NFA, some 10 µs a character, so one search of a few megabytes of one line
runs for a minute. Each trial starts a Python process that writes such files, runs the grep with a
time limit of one second (and no margin), and then counts the CPU seconds that it and every process
under it spend in the next few seconds. The product held when that is near zero and nothing the search
started is left running; before, the search went on in an abandoned thread (13.9 CPU-s in the next 20 s).
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import last_json_line

ATTACK = "a grep past its time limit burns no CPU after the call returned"
TRIALS = 3  # each waits out the limit and a few seconds of watching
WATCH = 4.0  # seconds of watching after the call returned
HELD_BELOW = 0.5  # CPU seconds in that time that still count as the search having stopped
HUNG = 120.0
PATTERN = r"(.{1,100}[ab]){10}z"

TURN = """
    import dataclasses, json, os, random, sys, time
    from pathlib import Path
    from mewrk_jupyter.tools import ToolRegistry, registry as registry_module

    def cpu_of_tree(pid):
        # CPU seconds of `pid`, its waited-for children and every live process under it, from /proc.
        ticks = os.sysconf("SC_CLK_TCK")
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                parents.setdefault(int(fields[1]), []).append((int(entry), fields))
        total, todo = 0, [pid]
        own = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(own[i]) for i in (11, 12, 13, 14))
        while todo:
            for child, fields in parents.get(todo.pop(), []):
                total += sum(int(fields[i]) for i in (11, 12, 13, 14))
                todo.append(child)
        return total / ticks

    random.seed(7)
    for index in range(3):  # one long line each: there is no line break to look at a stop request at
        Path(f"big{index}.txt").write_text("".join(random.choices("abcdefghij", k=3_000_000)) + "\\n")
    registry_module._MARGIN = 0.0
    with ToolRegistry.build(Path(".")) as tools:
        grep = tools.get("grep")
        tools._tools["grep"] = dataclasses.replace(grep, timeout=1.0)
        started = time.monotonic()
        result = tools.run("grep", {"pattern": sys.argv[1]})
        seconds = time.monotonic() - started
        before = cpu_of_tree(os.getpid())
        time.sleep(float(sys.argv[2]))
        after = cpu_of_tree(os.getpid())
    print(json.dumps({"text": result.text, "seconds": seconds, "cpu_after": after - before}))
"""


def trial(folder: Path) -> bool:
    """One grep that overruns its limit; held when the CPU spent after it returned is near zero."""
    outcome = last_json_line(TURN, [PATTERN, str(WATCH)], folder, HUNG)
    if outcome is None:
        return False
    print(
        f"grep_after_limit: returned in {outcome['seconds']:.1f} s, then {outcome['cpu_after']:.2f} CPU-s "
        f"in {WATCH:g} s",
        file=sys.stderr,
    )
    ended = outcome["text"].startswith("`grep` was ended after its time limit of 1 seconds")
    return ended and outcome["cpu_after"] < HELD_BELOW
