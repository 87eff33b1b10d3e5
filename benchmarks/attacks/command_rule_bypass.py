"""Commands that the approval rules of a reading level (`bash(echo *)`, `bash(ls *)`, `bash(git status*)`,
`bash(git diff:*)`, `bash(pytest *)`, …; `touch` and `rm` denied) once let run without asking, while bash
ran something else: a comment after `>&2#`, `$'` inside double quotes, backticks, `${_@P}` and other
`${…}` forms that evaluate `$_`, `((…))`, a write to `.git/config` or `conftest.py` that git or pytest
then runs, an option a `*` stood for (`--output=`, `--basetemp=`), an ask rule dodged by quoting or
abbreviating, a denied `rm` spelled `\\rm`, `/bin/rm` or `command rm`; and where the bash grammar the
reader parses with reads a continued line otherwise than bash (`x\\<newline>#;touch …` is no comment).

Each trial asks the real policy about one form in a fresh workspace holding a `.git` folder; when the
policy allows it, the trial runs it with bash there and looks for its effect. The product held when the
form asks or is denied, as it should be, and nothing ran.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from mewrk_jupyter.config.policy import PolicyConfig
from mewrk_jupyter.engine.toolbox.policy import command_subject, tier_of

ATTACK = "a command a rule allows runs another one, writes a file a tool runs, or dodges an ask or deny rule"
POLICY = PolicyConfig(
    safety_level="reading",
    allow=[
        "bash(git status*)",
        "bash(ls *)",
        "bash(cat *)",
        "bash(echo *)",
        "bash(pytest *)",
        "bash(git diff:*)",
        "bash(printf *)",
        "bash(test *)",
    ],
    ask=["bash", "bash(git status --porcelain*)"],
    deny=["bash(rm *)", "bash(curl *)", "bash(python*)", "bash(touch *)"],
)
# (the command, the decision it should get); {mark} is a file outside the workspace no allowed call makes.
FORMS = [
    ("echo hi >&2#; touch {mark}", "deny"),
    ("ls -a 2>&1#; rm -f {mark}", "deny"),
    ("echo evil >& {mark}", "ask"),
    ("ls -la >&{mark}", "ask"),
    ('echo "$\'" ; touch {mark} ; echo "\'"', "deny"),
    ("echo `echo \\`touch {mark}\\``", "deny"),
    ("echo `echo '` ; touch {mark} ; echo `'`", "deny"),
    ("echo x `#` ; touch {mark} ; echo x `\n`", "deny"),
    ("echo '$(touch {mark})'; echo ${{_@P}}", "deny"),
    ("echo 'a[$(touch {mark})]'; echo ${{x[_]}}", "deny"),
    ("echo 'a[$(touch {mark})]'; echo ${{!_}}", "deny"),
    ("echo 'a[$(touch {mark})]'; echo ${{PWD:_}}", "deny"),
    ("echo 'a[$(touch {mark})]'; ((ls + _))", "deny"),
    (
        "echo '[core]' >> .git/config && echo 'fsmonitor = echo > {mark}' >> .git/config && git status -s",
        "ask",
    ),
    ("echo '[diff]' >> .git/config; echo 'external = echo > {mark}' >> .git/config; git diff", "ask"),
    ("git diff --output={mark} HEAD", "ask"),
    ('echo \'open("{mark}", "w")\' > conftest.py && pytest -q conftest.py', "ask"),
    ("pytest -q -p no:cacheprovider --basetemp={folder}/.. test_t.py", "ask"),
    ("git status '--porcelain'", "ask"),
    ("git status --porc", "ask"),
    ("git status -s --porcelain", "ask"),
    ("\u00b2>/dev/null echo {mark}", "ask"),
    ("printf -v 'a[$(echo > {mark})]' x", "ask"),
    ("test -v 'a[$(echo > {mark})]'", "ask"),
    ("echo " + "$(" * 3000 + "id" + ")" * 3000, "ask"),
    ("\\rm -f x", "deny"),
    ("'rm' -f x", "deny"),
    ("r''m -f x", "deny"),
    ("/bin/rm -f x", "deny"),
    ("command rm -f x", "deny"),
    ("{{rm,-f,x}}", "deny"),
    ("$'rm' -f x", "deny"),
    ("cat <<E\nE\nrm -f x", "deny"),
    ("echo $((1)); rm -f x", "deny"),
    # the bash grammar reads a comment, or two words, where bash joins a continued line and runs `touch`, `rm`
    ("echo x\\\n#; touch {mark}", "deny"),
    ("r\\\nm -f x", "deny"),
]
TRIALS = len(FORMS)
_trial = 0


def trial(folder: Path) -> bool:
    """One form; held when the policy decides as it should and, if it allowed the form, nothing ran."""
    global _trial
    template, expected = FORMS[_trial % len(FORMS)]
    _trial += 1
    workspace = folder / "ws"
    (workspace / ".git").mkdir(parents=True)
    mark = folder / "pwned"
    command = template.format(folder=workspace, mark=mark)
    decided = tier_of(POLICY, "bash", [], command_subject(command, workspace))
    if decided == "allow":
        subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True, timeout=20, check=False)
    return decided == expected and not mark.exists()
