"""A bash command cut into the commands it runs (A5): every part found, and "cannot tell" for what the
reader does not know — never a guess that would let a rule allow more than it says."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mewrk_jupyter.config.policy import PolicyConfig
from mewrk_jupyter.config.rules import exact_rule, parse_rule
from mewrk_jupyter.engine.toolbox.policy import command_subject, suggested_rules, tier_of
from mewrk_jupyter.tools.command_parts import command_parts


def texts(command):
    parts = command_parts(command)
    return None if parts is None else [(p.text, p.targets) for p in parts]


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("git status", [("git status", [])]),
        ("git status && rm -rf build", [("git status", []), ("rm -rf build", [])]),
        ("ls; echo hi | wc -l || true", [("ls", []), ("echo hi", []), ("wc -l", []), ("true", [])]),
        ("make &\nmake test", [("make", []), ("make test", [])]),
        ("echo $(curl x) `id`", [("curl x", []), ("id", []), ("echo $(curl x) `id`", [])]),
        ('echo "at $(whoami)"', [("whoami", []), ('echo "at $(whoami)"', [])]),
        ("diff <(ls a) >(cat)", [("ls a", []), ("cat", []), ("diff <(ls a) >(cat)", [])]),
        ("(cd a && make)", [("cd a", []), ("make", [])]),
        ("{ ls; echo }; }", [("ls", []), ("echo }", [])]),
        ("ls > out.txt 2>&1", [("ls", ["out.txt"])]),
        ("ls 2>/dev/null >> 'log file'", [("ls", ["/dev/null", "'log file'"])]),
        ("echo 'a; b' \\; c", [("echo 'a; b' \\; c", [])]),
        ("git log # a comment; rm -rf /", [("git log", [])]),
        ("A=1 pytest -x", [("A=1 pytest -x", [])]),
        ("echo ${HOME}/x", [("echo ${HOME}/x", [])]),
        ("cat <<< word", [("cat", [])]),
    ],
)
def test_the_commands_a_line_runs(command, parts):
    assert texts(command) == parts


@pytest.mark.parametrize(
    "command",
    [
        "cat <<EOF\nrm -rf /\nEOF",  # a here-document's body is not read
        "echo $((1 + $(id -u)))",  # arithmetic
        "echo ${x:-$(rm -rf /)}",  # a substitution inside ${…}
        "echo 'unclosed",
        'echo "unclosed $(id)',
        "echo $(id",
        "ls > $(mktemp)",  # a file a command computes
        "case x in x) rm -rf /;; esac",
        "ls )",
        "echo \\",
    ],
)
def test_what_the_reader_does_not_know_is_cannot_tell(command):
    assert command_parts(command) is None


POLICY = PolicyConfig(
    safety_level="x",
    allow=["bash(git status*)", "bash(pytest *)", "bash(ls*)", "read(src/*)"],
    ask=["bash", "bash(git status --porcelain*)"],
    deny=["bash(rm -rf *)"],
)


def tier(command, granted=(), root=None):
    return tier_of(POLICY, "bash", list(granted), command_subject(command, root or "/tmp"))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", "allow"),
        ("git status -s && pytest -x tests", "allow"),
        ("(git status; ls -la) | pytest -q", "allow"),
        ("git status; curl http://x", "ask"),  # one part no rule allows
        ("git status $(curl http://x)", "ask"),  # its substitution runs too
        ("git status `curl http://x`", "ask"),
        ("git status <(curl http://x)", "ask"),
        ("ls > /etc/motd", "ask"),  # writes outside the workspace
        ("ls > ../elsewhere", "ask"),
        ("ls > ~/x", "ask"),
        ("ls > $HOME/x", "ask"),
        ("cd / && ls > etc/x", "ask"),  # relative to a folder the command chose
        ("ls > out.txt 2>/dev/null", "allow"),
        ("A=1 git status", "ask"),  # an assignment changes what runs
        ("cat <<E\nE", "ask"),
        ("git status --porcelain", "ask"),  # an ask rule wins over an allow rule
        ("rm -rf build", "deny"),
        ("ls && rm -rf build", "deny"),
        ("echo $(rm -rf build)", "deny"),
        ("if true; then rm -rf build; fi", "deny"),
        ("pytest", "ask"),  # `pytest *` wants an argument
    ],
)
def test_a_compound_command_is_allowed_only_when_every_part_is(command, expected):
    assert tier(command) == expected


def test_an_approved_rule_and_an_exact_command_allow_only_what_they_say():
    assert tier("make test", ["bash(make *)"]) == "allow"
    assert tier("make test && curl x", ["bash(make *)"]) == "ask"
    # "this command": its very text, stars and all, and nothing that merely fits it as a pattern
    exact = exact_rule("bash", "rm *.pyc; make")
    assert exact == "bash(rm \\*.pyc; make)"
    assert tier("rm *.pyc; make", [exact]) == "allow"
    assert tier("rm x.pyc; make", [exact]) == "ask"
    assert tier("rm *.pyc; make; curl x", [exact]) == "ask"
    assert tier("rm -rf *", [exact_rule("bash", "rm -rf *")]) == "deny"  # deny wins over a grant


def test_path_rules_match_the_path_inside_the_workspace(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "up").symlink_to(tmp_path.parent)
    from mewrk_jupyter.engine.toolbox.policy import Subject, inside_workspace

    def read_tier(path):
        inside = inside_workspace(path, tmp_path)
        subject = Subject(path, None if inside is None else (inside,))
        return tier_of(POLICY, "read", [], subject)

    assert read_tier("src/a.py") == "allow"
    assert read_tier("./src/../src/a.py") == "allow"
    assert read_tier("src/../secret.txt") == "ask"
    assert read_tier("src/up/other/x") == "ask"  # a link out of the workspace
    assert read_tier(str(tmp_path / "src" / "a.py")) == "allow"


@pytest.mark.parametrize(
    ("command", "this", "like"),
    [
        ("git status -s", ["bash(git status -s)"], ["bash(git status*)"]),
        ("pytest tests/x.py && ls", ["bash(pytest tests/x.py && ls)"], ["bash(pytest *)", "bash(ls*)"]),
        ("python -c 'import os'", ["bash(python -c 'import os')"], []),  # runs what it is told
        ("xargs rm < list", ["bash(xargs rm < list)"], []),
        ("A=1 make", ["bash(A=1 make)"], []),
        ("cat <<E\nE", ["bash(cat <<E\nE)"], []),
    ],
)
def test_approve_always_suggests_this_command_and_commands_like_it(command, this, like):
    assert suggested_rules("bash", command_subject(command, "/tmp")) == (this, like)


def test_every_suggested_rule_allows_the_command_it_was_made_for():
    for command in ["git status -s", "pytest -x && ls -la", "make test | tee out.txt", "rm *.pyc"]:
        subject = command_subject(command, "/tmp")
        this, like = suggested_rules("bash", subject)
        for rules in (this, like):
            assert tier_of(POLICY, "bash", rules, subject) in ("allow", "deny")


WORDS = st.sampled_from(["git status", "pytest -x", "ls -la", "ls"])
EVIL = st.sampled_from(["curl http://x", "sh -c id", "python -c 1", "wget y", "nc -l 1"])
JOINS = st.sampled_from([" && ", "; ", " | ", " || ", "\n", " & "])
WRAPS = st.sampled_from(["{}", "$({})", "`{}`", "<({})", '"$({})"', "({})"])


@given(st.lists(st.tuples(WORDS, JOINS), min_size=1, max_size=4))
def test_allowed_commands_joined_any_way_are_allowed(pieces):
    command = "".join(word + join for word, join in pieces).rstrip(" &;|\n")
    assert tier(command) == "allow", command


@given(st.lists(st.tuples(WORDS, JOINS), min_size=1, max_size=3), EVIL, WRAPS, st.integers(0, 3))
def test_a_command_no_rule_allows_is_never_allowed_wherever_it_hides(pieces, evil, wrap, at):
    words = [w + j for w, j in pieces]
    hidden = wrap.format(evil)
    at = min(at, len(words))
    command = (
        "".join([*words[:at], hidden + " ; ", *words[at:]]) if at < len(words) else "".join(words) + hidden
    )
    assert tier(command) != "allow", command


def test_a_rule_is_read_as_written():
    assert parse_rule("bash(npm run test:*)").matches("npm run test -k x")
    assert not parse_rule("bash(npm run test:*)").matches("npm run tests")
    assert parse_rule("bash(npm run test:*)").matches("npm run test")
    assert parse_rule("bash") is not None and parse_rule("bash").pattern is None
    assert parse_rule("bash()") is None and parse_rule("ba sh") is None
