"""The options of common commands known to only read, which a rule's `*` may stand for.

A rule's `*` stands for a command's operands (`git diff:*` for `git diff HEAD~1 src/`), not its options:
an option can make a reading command write a file (`git diff --output=/etc/x`), delete a folder
(`pytest --basetemp=/home`) or load code (`pytest -p x`). An option is allowed when the rule writes it
out, or when it is listed here for that command. The lists name what is known to be harmless — nothing
here is a list of what is forbidden — and a command not listed has no option a `*` stands for.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """A command's read-only options: letters that may be combined (`-la`), and whole options (`--stat`,
    `-name`; a long option may carry `=VALUE`). `every` is for commands none of whose options write a
    file or run another program (`ls`, `cat`): any option, and any word the shell computes, is theirs."""

    letters: str = ""
    whole: frozenset[str] = frozenset()
    every: bool = False


EVERY = Options(every=True)
_DIGITS = "0123456789"
_GIT_DIFF_LONG = (
    "--stat --numstat --shortstat --dirstat --summary --name-only --name-status --patch --no-patch --raw "
    "--color --no-color --word-diff --color-words --unified --ignore-space-change --ignore-all-space "
    "--ignore-blank-lines --minimal --histogram --patience --check --exit-code --quiet --full-index "
    "--abbrev --no-ext-diff --no-textconv --find-renames --find-copies --no-renames --relative "
    "--cached --staged --merge-base --diff-filter --compact-summary"
)
_GIT_LOG_LONG = (
    "--oneline --graph --decorate --no-decorate --all --branches --tags --format --pretty --since "
    "--until --after --before --author --committer --grep --max-count --skip --reverse --follow "
    "--first-parent --no-merges --merges --abbrev-commit --date --left-right --cherry-pick"
)

# Keyed by the command, or the command and its subcommand for git.
READ_ONLY: dict[str, Options] = {
    **{
        name: EVERY
        for name in "ls cat echo pwd wc head tail grep egrep fgrep diff du df cd basename dirname realpath whoami true false".split()
    },
    "git status": Options(
        letters="sbv",  # not `-z`: it implies --porcelain, which a level may ask for
        whole=frozenset(
            "--short --branch --porcelain --long --verbose --untracked-files --ignored --ignore-submodules "
            "--column --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames "
            "--show-stash -uno -unormal -uall".split()
        ),
    ),
    "git diff": Options(letters="pusUMCBRabwWz" + _DIGITS, whole=frozenset(_GIT_DIFF_LONG.split())),
    "git log": Options(
        letters="pn" + _DIGITS, whole=frozenset(_GIT_LOG_LONG.split() + _GIT_DIFF_LONG.split())
    ),
    "git show": Options(
        letters="psn" + _DIGITS, whole=frozenset(_GIT_LOG_LONG.split() + _GIT_DIFF_LONG.split())
    ),
    "git branch": Options(
        letters="arv",
        whole=frozenset(
            "--list --all --remotes --verbose --show-current --contains --merged --no-merged".split()
        ),
    ),
    # `-k`/`-m` select tests by name (pytest's own expression reader, not Python's eval).
    "pytest": Options(
        letters="qvxsl",
        whole=frozenset(
            "-k -m -ra -rA -rf -rE -rs -rx -rX -rN --quiet --verbose --exitfirst --maxfail --tb --lf "
            "--last-failed --ff --failed-first --nf --new-first --sw --stepwise --co --collect-only "
            "--durations --no-header --no-summary --showlocals --strict-markers --color -vv -qq "
            "--cache-clear --runxfail --disable-warnings".split()
        ),
    ),
    "find": Options(
        letters="LHP",
        whole=frozenset(
            "-name -iname -path -ipath -type -maxdepth -mindepth -newer -size -mtime -mmin -empty -print "
            "-print0 -not -a -o -and -or -regex -iregex -readable -samefile -links -user -group -perm "
            "-xtype -wholename".split()
        ),
    ),
}


def read_only_options(command: list[str]) -> Options:
    """The read-only options of the command `command` starts (its name and words), none when unknown."""
    if not command:
        return Options()
    if len(command) > 1 and f"{command[0]} {command[1]}" in READ_ONLY:
        return READ_ONLY[f"{command[0]} {command[1]}"]
    if command[0] == "git":
        return Options()  # git's own options (`-c`, `-C`) come before a subcommand
    return READ_ONLY.get(command[0], Options())


def known_option(options: Options, word: str) -> bool:
    """Whether `word`, an option of the command, is one of its read-only options."""
    name = word.split("=", 1)[0] if word.startswith("--") else word
    if name in options.whole:
        return True
    if word.startswith("-") and not word.startswith("--") and len(word) > 1:
        return all(ch in options.letters for ch in word[1:])
    return False
