"""A bash command cut into the simple commands it runs, for approval rules by command.

`git status && rm -rf build` runs two commands; `echo $(curl …)` runs two; `ls > /etc/motd` writes a
file. A rule such as `bash(git status*)` may allow a command only when every command it runs is allowed,
so this finds them all: the parts between `&&`, `||`, `;`, `|`, `&` and newlines, those inside subshells,
braces, `if`, `while` and `for`, command and process substitutions (`$(…)`, `<(…)`), and each part's
redirections.

The command is parsed by the bash grammar (command_grammar) and read over its tree by allow-list: each
node type read here is read as bash reads it, and any other — a here-document, arithmetic (`$((…))`,
`((…))`), `[[ … ]]`, `case`, a function, a backtick, a `${…}` other than `${NAME}`, a stream duplicated
onto something other than a number — or a syntax error makes it answer None, "cannot tell", and the
command asks the person. It never guesses a form it does not know into an allowed one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING

from .command_grammar import Source, Unknown, syntax_tree
from .command_words import DIGITS, WORD_NODES, Word, read_word

if TYPE_CHECKING:
    from tree_sitter import Node

# Words that open or continue a shell construct rather than name a command (`if`, `for`, `!`, …).
KEYWORDS = frozenset("if then elif else fi for while until do done time ! { }".split())
# Constructs read differently from a simple command, not read here: they ask.
UNREAD_KEYWORDS = frozenset("case esac select function coproc [[ ]]".split())
# Builtins that evaluate an argument as an array subscript (arithmetic, which runs `$(…)` inside it) or
# as code: any argument with a `[` or one the shell computes, and the reader cannot be sure.
EVALUATES_ARGUMENTS = frozenset(
    "printf test [ read declare typeset local export readonly unset let eval source . mapfile readarray "
    "getopts wait trap shopt".split()
)
# Deeper than this, a command is not one a person writes: it asks rather than exhausting the stack.
MAX_DEPTH = 50
_INDEXED_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")


@dataclass
class Part:
    """One simple command: its words, the files its redirections write (`targets`) and read (`reads`)."""

    items: list[Word] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        """Its words as written (quotes kept)."""
        return [w.raw for w in self.items]

    @property
    def text(self) -> str:
        """The command as written: its words, one space apart (its redirections left out)."""
        return " ".join(self.words)

    def command_items(self) -> list[Word]:
        """Its words after leading keywords (`then`, `do`, `!`) and variable assignments (`A=1`)."""
        items = list(self.items)
        while items and (items[0].raw in KEYWORDS or assignment(items[0].raw)):
            items.pop(0)
        return items

    def command_words(self) -> list[str]:
        """Its words as written after leading keywords and assignments."""
        return [w.raw for w in self.command_items()]


def command_parts(text: str) -> list[Part] | None:
    """The simple commands `text` runs, in order (substitutions before the command that holds them);
    None when it holds a form this reader cannot be sure of."""
    try:
        source = Source(text.encode())
        root = syntax_tree(text)
        source.gap(0, root.start_byte, newlines=True)
        source.gap(root.end_byte, len(source.data), newlines=True)
        return _Reader(source).statements(root, 0)
    except (Unknown, RecursionError, UnicodeError):
        return None


def assignment(word: str) -> bool:
    """Whether `word` sets a variable for the command (`A=1`, `A+=1`)."""
    name, eq, _ = word.partition("=")
    return bool(eq) and name.removesuffix("+").isidentifier()


def _check(part: Part) -> None:
    """Raise Unknown for a finished part whose words the shell reads otherwise than as arguments."""
    for item in part.items:
        if item.raw in KEYWORDS or assignment(item.raw):
            continue
        if _INDEXED_ASSIGNMENT.match(item.raw) and "=" in item.raw:
            raise Unknown  # `a[$_]=1`: the subscript is arithmetic, which may run a substitution
        break
    command = part.command_items()
    if not command:
        return
    name = command[0]
    if name.raw in UNREAD_KEYWORDS or name.value in UNREAD_KEYWORDS:
        raise Unknown
    if name.value in EVALUATES_ARGUMENTS or name.value is None:
        if any(w.value is None or "[" in w.raw for w in command[1:]):
            raise Unknown


_SEPARATORS = frozenset((";", "&", "\n"))
# The statement lists of the grammar, with the tokens each may hold besides its statements (separators,
# keywords, brackets). A token not listed (`;;`, a backtick, `select`) asks.
LISTS: dict[str, frozenset[str]] = {
    "program": _SEPARATORS,
    "list": frozenset(("&&", "||")),
    "pipeline": frozenset(("|", "|&")),
    "negated_command": frozenset(("!",)),
    "subshell": _SEPARATORS | {"(", ")"},
    "compound_statement": _SEPARATORS | {"{", "}"},
    "do_group": _SEPARATORS | {"do", "done"},
    "if_statement": _SEPARATORS | {"if", "then", "fi"},
    "elif_clause": _SEPARATORS | {"elif", "then"},
    "else_clause": _SEPARATORS | {"else"},
    "while_statement": _SEPARATORS | {"while", "until"},
    "command_substitution": _SEPARATORS | {"$(", ")"},
    "process_substitution": _SEPARATORS | {"<(", ">(", ")"},
}
# Parts of a statement that open with a keyword of their own, so need no separator before them.
CLAUSES = frozenset(("elif_clause", "else_clause", "do_group"))
# Simple commands: a command, `export`/`declare`/`local`/… and `unset` with their words, assignments alone.
SIMPLE = frozenset(
    "command declaration_command unset_command variable_assignment variable_assignments".split()
)
DECLARING = frozenset("export declare typeset local readonly unset unsetenv".split())
REDIRECTS = frozenset(("file_redirect", "herestring_redirect"))
WRITES = frozenset((">", ">>", ">|", "&>", "&>>"))
DUPLICATES = frozenset((">&", "<&"))
CLOSES = frozenset((">&-", "<&-"))
# Before a redirection it touches, a word bash takes for the stream it names: `2>x`, `{fd}>x`.
_STREAM_WORD = re.compile(r"(?:^|[ \t])(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})$")
_STREAM = re.compile(r"[0-9]+-?|-")


class _Reader:
    """Reads the parts of a command over its syntax tree."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def statements(self, node: Node, depth: int) -> list[Part]:
        """The parts a statement list runs, in order; Unknown for a token or node it may not hold."""
        if depth > MAX_DEPTH:
            raise Unknown
        tokens = LISTS[node.type]
        parts: list[Part] = []
        separated = True  # bash needs a separator or a keyword before the next statement
        at = node.start_byte
        for child in node.children:
            if self.source.gap(at, child.start_byte, newlines=True) == "\n":
                separated = True
            at = child.end_byte
            if child.type == "comment":
                self.source.check_comment(child)
            elif not child.is_named:
                token = self.source.text(child).strip(" \t")
                if token not in tokens:
                    raise Unknown
                if token.isalpha() or token in ("!", "{", "}"):
                    self.source.check_bounded(child)
                separated = True
            elif not separated and child.type not in CLAUSES:
                raise Unknown  # the grammar split what bash reads as one command
            elif child.type in REDIRECTS and node.type == "command_substitution":
                part = Part()  # `$(<file)`: the file is read
                if self.redirect(child, part):
                    raise Unknown
                parts.append(part)
                separated = False
            else:
                parts.extend(self.statement(child, depth + 1))
                separated = False
        self.source.gap(at, node.end_byte, newlines=True)
        return parts

    def statement(self, node: Node, depth: int) -> list[Part]:
        """The parts one statement runs."""
        if node.type in LISTS:
            return self.statements(node, depth)
        if node.type in SIMPLE:
            return self.simple(node, depth)
        if node.type == "redirected_statement":
            return self.redirected(node, depth)
        if node.type == "test_command":
            return self.test(node, depth)
        if node.type == "for_statement":
            return self.loop(node, depth)
        raise Unknown  # `case`, a function, `((…))`, `for ((…))`, …

    def simple(self, node: Node, depth: int) -> list[Part]:
        """A simple command: its words (assignments, name, arguments) and its redirections."""
        self.source.check_span(node)
        found: list[Part] = []
        part = Part()
        elements = [node] if node.type == "variable_assignment" else node.children
        self.touching(elements)
        for child in elements:
            if child.type == "variable_assignment":
                part.items.append(self.assignment(child, found, depth))
            elif child.type in REDIRECTS:
                if self.redirect(child, part):
                    raise Unknown  # `>x y echo`: where the grammar's extra words go is not read
            elif child.type == "command_name" and len(child.children) == 1:
                self.source.check_span(child)
                part.items.append(self.word(child.children[0], found, depth))
            elif not child.is_named and node.type != "command" and self.source.text(child) in DECLARING:
                part.items.append(Word(self.source.text(child), self.source.text(child)))
            elif child.type in WORD_NODES and child.type != "test_operator":
                part.items.append(self.word(child, found, depth))
            else:
                raise Unknown
        _check(part)
        return [*found, part]

    def redirected(self, node: Node, depth: int) -> list[Part]:
        """A statement with redirections: those of a simple command (also the last one of `a && b > f`,
        where the grammar gives them to the list) are its own, and the words the grammar puts after their
        file are its arguments (`ls > out.txt extra`: a redirection takes one word); those of a group,
        loop or subshell, made before it runs, are read as made after it (where a `cd` inside it may
        have moved the folder)."""
        self.source.check_span(node)
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c != body]
        if any(c.type not in REDIRECTS for c in redirects):
            raise Unknown  # a here-document, a comment
        self.touching(node.children)
        parts = self.statement(body, depth + 1) if body is not None else []
        last = body
        while last is not None and last.type in ("list", "pipeline"):
            last = last.named_children[-1] if last.named_children else None
        simple = last is not None and last.type in SIMPLE and bool(parts)
        target = parts[-1] if simple else Part()
        found: list[Part] = []
        for redirect in redirects:
            arguments = self.redirect(redirect, target)
            if arguments and not simple:
                raise Unknown
            target.items.extend(self.word(argument, found, depth) for argument in arguments)
        _check(target)
        return [*parts[:-1], *found, target] if simple else [*parts, target]

    def test(self, node: Node, depth: int) -> list[Part]:
        """`[ … ]` as the command `[` with its words (`[[ … ]]` asks: it reads its words otherwise)."""
        self.source.check_span(node)
        children = node.children
        if [self.source.text(children[0]), self.source.text(children[-1])] != ["[", "]"]:
            raise Unknown
        pieces = [children[0], *(p for c in children[1:-1] for p in _test_pieces(c)), children[-1]]
        found: list[Part] = []
        part = Part()
        group: list[Node] = []
        for piece in pieces:  # the grammar parses an expression; bash's words are its pieces that touch
            if group and self.source.gap(group[-1].end_byte, piece.start_byte) == " ":
                part.items.append(self.joined(group, found, depth))
                group = []
            group.append(piece)
        part.items.append(self.joined(group, found, depth))
        _check(part)
        return [*found, part]

    def joined(self, pieces: list[Node], found: list[Part], depth: int) -> Word:
        """One word of `[ … ]`, made of the pieces of the expression that touch."""
        words = []
        for piece in pieces:
            text = self.source.text(piece)
            if piece.is_named:
                words.append(self.word(piece, found, depth))
            elif any(c in text for c in "<>()&|;'\"`$\\"):
                raise Unknown  # `[ a > b ]`: bash redirects to the file `b`
            else:
                words.append(Word(text, text))
        value = None if any(w.value is None for w in words) else "".join(w.value or "" for w in words)
        return Word("".join(w.raw for w in words), value, any(w.glob for w in words))

    def loop(self, node: Node, depth: int) -> list[Part]:
        """`for NAME in WORDS; do …; done`: its header is read as the command `for NAME in WORDS` (setting a
        variable, it is allowed by no rule), then its body."""
        self.source.check_span(node)
        children = node.children
        if not children or self.source.text(children[0]) != "for" or children[-1].type != "do_group":
            raise Unknown  # `select`
        head = children[:-1]
        while head and self.source.text(head[-1]) in (";", "\n"):
            head = head[:-1]
        if (
            len(head) == len(children) - 1
            and self.source.gap(head[-1].end_byte, children[-1].start_byte, True) != "\n"
        ):
            raise Unknown  # `for x in a b do`: bash takes `do` for a word
        self.touching(head)
        found: list[Part] = []
        header = Part()
        for child in head:
            text = self.source.text(child)
            if not child.is_named and text in ("for", "in"):
                header.items.append(Word(text, text))
            elif child.type in WORD_NODES:
                header.items.append(self.word(child, found, depth))
            else:
                raise Unknown
        _check(header)
        return [*found, header, *self.statements(children[-1], depth + 1)]

    def word(self, node: Node, found: list[Part], depth: int) -> Word:
        """The word `node` makes, adding the commands of its substitutions to `found`."""
        return read_word(node, self.source, self.substitution(found, depth))

    def substitution(self, found: list[Part], depth: int) -> Callable[[Node], None]:
        """What reads a substitution inside a word: its commands go to `found`."""
        return lambda node: found.extend(self.statements(node, depth + 1))

    def assignment(self, node: Node, found: list[Part], depth: int) -> Word:
        """`NAME=VALUE` or `NAME+=VALUE` (`a[i]=…` and `a=(…)` ask: a subscript is arithmetic)."""
        self.source.check_span(node)
        name, operator, *rest = node.children
        if name.type != "variable_name" or self.source.text(operator) not in ("=", "+=") or len(rest) > 1:
            raise Unknown
        self.source.check_touching(node.children)
        value = self.word(rest[0], found, depth) if rest else Word("", "")
        known = (
            None if value.value is None else self.source.text(name) + self.source.text(operator) + value.value
        )
        return Word(self.source.text(node), known, value.glob)

    def redirect(self, node: Node, part: Part) -> list[Node]:
        """Read a redirection into `part`: the file it writes or reads (a stream duplicated or closed names
        none); the words the grammar put after it, which bash reads as arguments. A file a substitution
        computes, or `>&` onto anything but a stream number, asks."""
        self.source.check_span(node)
        children = node.children
        apart = [self.source.gap(left.end_byte, right.start_byte) for left, right in pairwise(children)]
        words = [c for c in children if c.is_named and c.type != "file_descriptor"]
        operators = [self.source.text(c) for c in children if not c.is_named]
        if len(operators) != 1 or any(c.type == "file_descriptor" for c in children[1:]):
            raise Unknown
        operator = operators[0]
        descriptor = children[0].type == "file_descriptor"
        if descriptor and (apart[0] or not _digits(children[0])):
            raise Unknown  # `2 >x`: the grammar's stream number is bash's argument
        if any(gap != " " for gap in apart[descriptor + 1 :]):
            raise Unknown  # words the grammar split apart, which bash reads as one
        if operator in CLOSES:
            return words
        if not words:
            raise Unknown
        text = self.source.text(words[0])
        if operator in DUPLICATES:
            if not _STREAM.fullmatch(text) or words[0].type not in ("number", "word") or words[0].children:
                raise Unknown  # `>&file`, `>&2x`: bash writes the file
            return words[1:]
        if descriptor and operator.startswith("&"):
            raise Unknown
        read_word(words[0], self.source, _refuse)  # what bash would read otherwise asks
        if node.type == "herestring_redirect" and operator == "<<<":
            pass
        elif operator == "<":
            part.reads.append(text)
        elif operator in WRITES:
            part.targets.append(text)
        else:
            raise Unknown
        return words[1:]

    def touching(self, elements: list[Node]) -> None:
        """Check the elements of a simple command or a redirected statement are apart as bash reads them:
        blanks between words (no newline); touching, only a redirection after something that is not a
        stream's number or name (`hi>x`, not `2>x` read as an argument and a redirection)."""
        for left, right in pairwise(elements):
            if self.source.gap(left.end_byte, right.start_byte):
                continue
            if right.type not in REDIRECTS or self.source.text(right)[:1] not in "<>&":
                raise Unknown
            if self.source.text(right)[:1] != "&" and _STREAM_WORD.search(self.source.text(left)):
                raise Unknown


def _digits(node: Node) -> bool:
    return not node.children and bool(node.text) and all(chr(b) in DIGITS for b in node.text or b"")


def _test_pieces(node: Node) -> list[Node]:
    """The words and operators of an expression inside `[ … ]`, in order."""
    if node.type in ("unary_expression", "binary_expression", "parenthesized_expression"):
        return [p for c in node.children for p in _test_pieces(c)]
    if node.is_named and node.type not in WORD_NODES:
        raise Unknown
    return [node]


def _refuse(node: Node) -> None:
    """A substitution where the reader takes none: in a redirection's file or a here-string."""
    raise Unknown
