"""A bash command cut into the commands it runs (A5): every part found, and "cannot tell" for what the
reader does not know — never a guess that would let a rule allow more than it says."""

import os

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
        ("echo $(curl x) $(id)", [("curl x", []), ("id", []), ("echo $(curl x) $(id)", [])]),
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
        ("ls 2&>x", [("ls 2", ["x"])]),  # `&>` takes no stream number: `2` is an argument
        ('echo "$\'" x#y #z', [('echo "$\'" x#y', [])]),  # `#` inside a word is no comment
        ("cat < in.txt > out.txt", [("cat", ["out.txt"])]),
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
        "echo hi >&2#",  # bash reads `2#` as a file name
        "echo `id`",  # backticks
        "((x = 1))",
        "[[ -f x ]]",
        "echo ${x[0]}",
        "f() { ls; }",
        "{fd}>x ls",
    ],
)
def test_what_the_reader_does_not_know_is_cannot_tell(command):
    assert command_parts(command) is None


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        # the bash grammar knows `if`, `while` and `!` for what they are: no command is named `if`
        (
            "if git status; then ls; elif true; then echo x; else pwd; fi",
            ["git status", "ls", "true", "echo x", "pwd"],
        ),
        ("while read line; do echo $line; done", ["read line", "echo $line"]),
        ("until false; do ls; done", ["false", "ls"]),
        ("! git diff --quiet", ["git diff --quiet"]),
        # a loop variable is set: its header is a command of its own, which no rule allows unless it says so
        ("for f in *.py $(ls); do wc -l $f; done", ["ls", "for f in *.py $(ls)", "wc -l $f"]),
        ("[ -f x ] && [ a = b ]", ["[ -f x ]", "[ a = b ]"]),
        ("ls > out.txt extra", ["ls extra"]),  # a redirection takes one word: `extra` is an argument
        ("cat $(<in.txt)", ["", "cat $(<in.txt)"]),
    ],
)
def test_the_parts_come_from_the_bash_grammar(command, parts):
    assert [p.text for p in command_parts(command)] == parts


@pytest.mark.parametrize(
    "command",
    [
        # where the grammar reads the text otherwise than bash, the reader cannot tell
        "ec\\\nho x",  # bash joins the continued line: `echo x`; the grammar reads `ec` and `ho`
        "echo x\\\n#; rm -rf /",  # bash runs `echo x#` and `rm`; the grammar reads a comment
        "echo $\\  p",  # bash: `$ ` and `p`; the grammar reads `$p`
        "cat  ] ]",  # bash: two words `]`; the grammar reads one
        "\\ <<< x",  # bash runs a command named ` `; the grammar has no command
        "echo hi 2>y {fd}>z",  # the grammar gives `2>` two files
        "{ls; }",  # bash runs `{ls`; the grammar reads a group
        'echo $"t"',  # translated text
        "select x in a; do ls; done",
    ],
)
def test_where_the_grammar_is_not_bash_the_reader_cannot_tell(command):
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
        ("if git status; then ls -la; fi", "allow"),  # the keywords run nothing
        ("if git status; then curl x; fi", "ask"),
        ("for x in a; do ls; done", "ask"),  # a loop sets a variable
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
            assert not rules or tier_of(POLICY, "bash", rules, subject) in ("allow", "deny")
    # a glob at a word's start may name a file called `-rf`: no rule for "commands like it"
    assert suggested_rules("bash", command_subject("rm *.pyc", "/tmp"))[1] == []
    # an option no list knows is written into the rule, so the rule allows the command it was made for
    assert suggested_rules("bash", command_subject("make -j4 test", "/tmp"))[1] == ["bash(make -j4*)"]


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


# The attack review's policy: reading commands allowed, `touch`, `rm`, `curl`, `python` denied.
REVIEW = PolicyConfig(
    safety_level="review",
    allow=[
        "bash(git status*)",
        "bash(ls *)",
        "bash(cat *)",
        "bash(echo *)",
        "bash(pytest *)",
        "bash(git diff:*)",
    ],
    ask=["bash", "bash(git status --porcelain*)"],
    deny=["bash(rm *)", "bash(curl *)", "bash(python*)", "bash(touch *)"],
)


def review(command, root="/tmp/ws", policy=REVIEW):
    return tier_of(policy, "bash", [], command_subject(command, root))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # `>&` takes a stream number only; `2#` is a word to bash, so `#` starts no comment there
        ("echo hi >&2#; touch /tmp/pwned", "deny"),
        ("ls -a 2>&1#; rm -f /tmp/victim", "deny"),
        ("echo 'evil' >& /tmp/pwned", "ask"),  # `>& FILE` writes FILE
        ("ls -la >&/tmp/pwned", "ask"),
        ("echo hi >&2x", "ask"),
        # inside "…", `$'` is a dollar and a quote, not the start of $'…'
        ('echo "$\'" ; touch /tmp/pwned ; echo "\'"', "deny"),
        # backticks quote and nest otherwise than `$(…)`: not read
        ("echo `echo \\`touch /tmp/pwned\\``", "deny"),
        ("echo `echo '` ; touch /tmp/pwned ; echo `'`", "deny"),
        ("echo x `#` ; touch /tmp/pwned ; echo x `\n`", "deny"),
        ("echo `date`", "ask"),
        # `${…}` beyond `${NAME}` may run the code `$_` holds
        ("echo '$(touch /tmp/pwned)'; echo ${_@P}", "deny"),
        ("echo 'a[$(touch /tmp/pwned)]'; echo ${x[_]}", "deny"),
        ("echo 'a[$(touch /tmp/pwned)]'; echo ${!_}", "deny"),
        ("echo 'a[$(touch /tmp/pwned)]'; echo ${PWD:_}", "deny"),
        ("echo ${x:-default}", "ask"),
        ('echo "$[1]"', "ask"),
        # `((…))` and `[[ … ]]` are arithmetic and tests, not subshells and commands
        ("echo 'a[$(touch /tmp/pwned)]'; ((ls + _))", "deny"),
        ("((ls + _))", "ask"),
        ("[[ -v a[_] ]]", "ask"),
        ("a[$_]=1 ls", "ask"),
        # options a rule's `*` does not stand for
        ("git diff --output=/tmp/pwned HEAD", "ask"),
        ("pytest -q -p no:cacheprovider --basetemp=/tmp/victim test_t.py", "ask"),
        ("pytest -c other.ini tests/", "ask"),
        ("pytest -o addopts=-x tests/", "ask"),
        ("pytest --junitxml=/tmp/x tests/", "ask"),
        ("pytest --rootdir=/ tests/", "ask"),
        ("pytest @args.txt", "ask"),  # pytest reads options from the file
        ("pytest -q *", "ask"),  # a glob may name a file called `--basetemp=..`
        ("git diff $_", "ask"),  # a computed word may be any option
        # an ask rule meets the option quoted, abbreviated or anywhere
        ("git status '--porcelain'", "ask"),
        ("git status --porc", "ask"),
        ("git status -s --porcelain", "ask"),
        ("git status --porcelain=v2", "ask"),
        # `²` is no stream number
        ("\u00b2>/dev/null echo /tmp/pwned", "ask"),
        ("echo " + "$(" * 3000 + "id" + ")" * 3000, "ask"),  # too deep: asks, no RecursionError
        # deny sees through quotes, paths, wrappers, braces, and into text the reader cannot read
        ("\\rm -f x", "deny"),
        ("'rm' -f x", "deny"),
        ("r''m -f x", "deny"),
        ("/bin/rm -f x", "deny"),
        ("command rm -f x", "deny"),
        ("env -i A=1 rm -f x", "deny"),
        ("nice -n 5 rm -f x", "deny"),
        ("{rm,-f,x}", "deny"),
        ("$'rm' -f x", "deny"),
        ("cat <<E\nE\nrm -f x", "deny"),
        ("echo $((1)); rm -f x", "deny"),
        ("python3 -c 1", "deny"),
        # the grammar reads a comment or two words where bash joins a continued line
        ("echo x\\\n#; touch /tmp/pwned", "deny"),
        ("r\\\nm -f x", "deny"),
    ],
)
def test_the_attack_review_forms_ask_or_are_denied(command, expected):
    assert review(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git status --short",
        "git status -sb",
        "ls -la",
        "ls *.py",
        "cat README.md",
        "cat 'my notes.txt'",
        "echo hi > out.txt",
        "echo $HOME",
        "pytest -q tests/",
        "pytest -x -k 'parser and not slow' --tb=short tests/tools",
        "git diff HEAD~1",
        "git diff --stat HEAD~1 src/",
        "git diff",
        "e\\cho x",  # bash runs `echo x`
        "ls -a 2>&1 | cat -n",
        "(ls -la src; git status) > listing.txt 2>/dev/null",
    ],
)
def test_the_common_reading_commands_still_run(command, tmp_path):
    assert review(command, tmp_path) == "allow"


def test_an_option_the_rule_writes_out_is_allowed():
    policy = PolicyConfig(safety_level="x", allow=["bash(git diff --output=diff.txt*)", "bash(make -j4 *)"])
    assert review("git diff --output=diff.txt HEAD", policy=policy) == "allow"
    assert review("git diff --output=/etc/x HEAD", policy=policy) == "ask"
    assert review("make -j4 test", policy=policy) == "allow"
    assert review("make -j4 -f other.mk test", policy=policy) == "ask"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("out.txt", "allow"),
        ("logs/run.log", "allow"),
        ("/dev/null", "allow"),
        (".git/config", "ask"),  # git runs `core.fsmonitor`, `diff.external` from it
        (".git/hooks/pre-commit", "ask"),
        (".mewrk/policy/default.yaml", "ask"),
        (".gitattributes", "ask"),
        ("conftest.py", "ask"),  # pytest runs it
        ("test_t.py", "ask"),
        ("pyproject.toml", "ask"),
        ("setup.cfg", "ask"),
        ("tox.ini", "ask"),
        ("pytest.ini", "ask"),
        ("site.pth", "ask"),
        ("Makefile", "ask"),
        ("requirements.txt", "ask"),
        ("sub/../.git/config", "ask"),
    ],
)
def test_a_redirection_writes_without_asking_only_a_plain_data_file(target, expected, tmp_path):
    (tmp_path / ".git").mkdir()
    assert review(f"echo x >> {target} && git status -s", tmp_path) == expected


def test_a_data_file_that_links_elsewhere_asks(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("")
    (tmp_path / "out.txt").symlink_to(tmp_path / ".git" / "config")
    os.link(tmp_path / ".git" / "config", tmp_path / "hard.txt")
    assert review("echo x > out.txt", tmp_path) == "ask"
    assert review("echo x > hard.txt", tmp_path) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "printf -v 'a[$(touch /tmp/pwned)]' x",
        "test -v 'a[$(touch /tmp/pwned)]'",
        "[ -v 'a[$(touch /tmp/pwned)]' ]",
        "read 'a[$(id)]'",
        "declare -n x='a[$(id)]'",
        'test -v "$_"',
    ],
)
def test_builtins_that_evaluate_subscripts_ask_whatever_rule_allows_them(command):
    policy = PolicyConfig(
        safety_level="x",
        allow=["bash(printf *)", "bash(test *)", "bash([ *)", "bash(read *)", "bash(declare *)"],
        ask=["bash"],
    )
    assert review(command, policy=policy) == "ask"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cd /home/u && echo x > notes.txt", "ask"),
        # the folder is moved by the command bash runs, however its name is written
        ("'cd' /home/u && echo x > notes.txt", "ask"),
        ("\\cd /home/u && echo x > notes.txt", "ask"),
        ('c""d /tmp; echo x > results.csv', "ask"),
        ("builtin cd /tmp; echo x > notes.txt", "ask"),
        ("command cd /tmp; echo x > notes.txt", "ask"),
        ("eval cd /tmp; echo x > notes.txt", "ask"),
        ("$c /tmp; echo x > notes.txt", "ask"),  # a computed name may be `cd`
        ("pushd /tmp; echo x < in.txt > notes.txt", "ask"),
        # commands known to keep the folder leave a later redirection in the workspace
        ("echo a > notes.txt && echo b >> notes.txt", "allow"),
        ("cd . > notes.txt", "allow"),  # the redirection is made before `cd` runs
        ("X=1; echo x > notes.txt", "allow"),
    ],
)
def test_a_redirection_after_a_command_that_may_move_the_folder_asks(command, expected, tmp_path):
    policy = PolicyConfig(safety_level="x", allow=["bash(cd *)", "bash(echo *)", "bash(X=1)"])
    assert review(command, tmp_path, policy=policy) == expected


# A level that runs any command but one it refuses and one it asks about: what the reader cannot name
# must ask rather than slip past them.
FENCED = PolicyConfig(safety_level="fenced", allow=["bash"], ask=["bash(git push*)"], deny=["bash(rm *)"])


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # a name the shell computes may be the denied one: ask
        ("x=rm; $x -f y", "ask"),
        ("r${e}m -f y", "ask"),
        ("exec $x -f y", "ask"),
        ("time -p rm -f y", "ask"),  # `time`'s own option where a name should be
        # decoded escapes, eval, a shell's -c line: the reader tells it is `rm`
        ("$'\\x72m' -f y", "deny"),
        ("$'\\162\\155' -f y", "deny"),
        ("eval rm -f y", "deny"),
        ('bash -c "rm -f y"', "deny"),
        ("sh -c 'rm -f y'", "deny"),
        ("bash -e -lc 'echo a; rm -f y'", "deny"),
        ("eval 'echo $(rm y)'", "deny"),
        ("eval eval rm y", "deny"),
        ("env -S 'rm -f y'", "deny"),
        # what a shell or eval runs that the reader cannot see: ask
        ('eval "$cmd"', "ask"),
        ('bash -c "$cmd"', "ask"),
        ("echo rm -f y | sh", "ask"),  # a shell reading its commands from the input
        ("bash -s < script", "ask"),
        ("bash -c 'cat <<E\nE'", "ask"),
        # wrappers, with the options that take a value known
        ("sudo -u root rm -f y", "deny"),
        ("sudo --user=root -- rm -f y", "deny"),
        ("timeout -s KILL 5 rm -f y", "deny"),
        ("timeout --signal KILL 5 rm -f y", "deny"),
        ("nice -5 rm y", "deny"),
        ("stdbuf -oL rm y", "deny"),
        ("busybox rm -f y", "deny"),
        ("xargs -I % rm %", "deny"),
        ("xargs -I {} rm {}", "ask"),  # the reader takes any `{` for a brace the shell expands
        ("sudo -X rm -f y", "deny"),  # an option no list knows: the best guess still denies
        ("sudo -X foo rm -f y", "ask"),  # … and where it does not, the call asks
        ("timeout $t rm y", "ask"),  # a computed duration may be several words
        ("sudo $opt rm y", "ask"),
        # a computed word, or a glob, where an ask rule's words are
        ("git $p origin", "ask"),
        ("git pu?h origin", "ask"),
        ('eval "git push"', "ask"),
        ("bash -lc 'git push origin'", "ask"),
    ],
)
def test_what_the_reader_cannot_name_asks_under_a_deny_or_ask_rule(command, expected):
    assert review(command, policy=FENCED) == expected


@pytest.mark.parametrize(
    "command",
    [
        "ls *.py",
        "echo $HOME > out.txt",
        "[ -f x ] && echo y",
        "sudo make install",
        "nice -n 5 make",
        "timeout 60 pytest -q",
        "env -i PATH=/bin make",
        "find . -name x | xargs grep foo",
        "bash script.sh",
        "bash -e -c 'ls -la'",
        "python3 x.py",
        "/usr/bin/env python3 x.py",
        "git status && git log --oneline -3",
        "rmdir $d",  # computed words of a command no rule names
    ],
)
def test_common_commands_still_run_under_a_deny_and_an_ask_rule(command, tmp_path):
    assert review(command, tmp_path, policy=FENCED) == "allow"


def test_without_deny_or_ask_rules_what_the_reader_cannot_name_runs_as_the_level_says():
    anything = PolicyConfig(safety_level="any", allow=["bash"])
    for command in ["x=rm; $x -f y", 'eval "$cmd"', "echo ls | sh", "git $p origin", "sudo -X foo"]:
        assert review(command, policy=anything) == "allow"


DENIED = st.sampled_from(["rm -f y", "'rm' -f y", "\\rm -f y", 'r""m -f y', "$'\\x72m' -f y", "/bin/rm -f y"])
WRAPPER = st.sampled_from(
    [
        "sudo -u root {}",
        "sudo -n -- {}",
        "timeout -s KILL 5 {}",
        "timeout 5 {}",
        "env -i A=1 {}",
        "nice -n 5 {}",
        "busybox {}",
        "command {}",
        "exec {}",
        "xargs -0 {}",
        "stdbuf -oL {}",
        "eval {}",
        "taskset -c 1 {}",
        "{}",
    ]
)
LINE = st.sampled_from(["{}", 'bash -c "{}"', 'sh -ec "{}"', 'eval "{}"', "x; {}", "echo $({})"])


@given(DENIED, st.lists(WRAPPER, max_size=3), LINE)
def test_a_denied_command_is_never_allowed_however_it_is_wrapped(denied, wrappers, line):
    command = denied
    for wrapper in wrappers:
        command = wrapper.format(command)
    command = line.format(command.replace('"', '\\"'))
    assert review(command, policy=FENCED) != "allow", command
