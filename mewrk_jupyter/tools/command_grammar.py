"""A bash command's syntax tree, from the maintained bash grammar (tree-sitter-bash), and the checks that
the tree reads the text as bash does.

The grammar is not bash: it reads `ec\\<newline>ho` as two words where bash joins them into `echo`,
takes `x\\<newline>#;rm` for a comment where bash runs `rm`, and gives `2>y {fd}>z` two files. So the
readers over it (command_parts, command_words) accept only the nodes they know, and check here that no
text lies outside them: what is left between two nodes must be blanks (or, between commands, newlines);
two words the grammar split apart must have a blank between them; a comment must start where bash
starts one. Anything else raises Unknown and the command asks.

The grammar is a compiled extension, loaded when the first command is read, not on `import mewrk_jupyter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language, Node

# Bash's metacharacters, which end a word (with newline).
METACHARACTERS = " \t\n;&|()<>"
# Where bash begins a comment: at the start of a word, after a blank or an operator. Not after `)`
# (`$(ls)#x` is one word), `<`, `>` or `>&` (`>&2#` names a file): those ask.
COMMENT_AFTER = " \t\n;&|("
_CONTINUED = "\\\n"  # a line continued: bash removes it, joining the text on either side


class Unknown(Exception):
    """A form the reader does not understand: the caller answers 'cannot tell'."""


@cache
def _language() -> Language:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def syntax_tree(text: str) -> Node:
    """The root of `text`'s syntax tree; Unknown when the grammar finds an error or a missing token."""
    import tree_sitter

    root = tree_sitter.Parser(_language()).parse(text.encode()).root_node  # a parser per call: not shared
    if root.has_error:
        raise Unknown
    return root


@dataclass(frozen=True)
class Source:
    """The command's text as the tree counts it (bytes), with what lies between its nodes."""

    data: bytes

    def text(self, node: Node) -> str:
        """The text of `node`."""
        return self.data[node.start_byte : node.end_byte].decode()

    def between(self, start: int, end: int) -> str:
        """The text from byte `start` to byte `end`."""
        return self.data[start:end].decode()

    def after(self, node: Node) -> str:
        """The character right after `node` ('' at the end)."""
        return self.data[node.end_byte : node.end_byte + 1].decode(errors="replace")

    def gap(self, start: int, end: int, newlines: bool = False) -> str:
        """What separates two nodes once continued lines are joined: '' (nothing: they touch), ' ' (blanks)
        or '\\n' (a newline, allowed only where `newlines`); Unknown for any other text between them."""
        rest = self.between(start, end).replace(_CONTINUED, "")
        if rest.strip(" \t\n" if newlines else " \t"):
            raise Unknown  # text the tree left out of every node
        if not rest:
            return ""
        return "\n" if "\n" in rest else " "

    def check_span(self, node: Node) -> None:
        """Raise Unknown when `node` holds text before its first child or after its last."""
        children = node.children
        if children and (children[0].start_byte != node.start_byte or children[-1].end_byte != node.end_byte):
            raise Unknown

    def check_touching(self, nodes: list[Node]) -> None:
        """Raise Unknown unless each of `nodes` touches the next: pieces of one word to bash."""
        for left, right in pairwise(nodes):
            if self.gap(left.end_byte, right.start_byte):
                raise Unknown

    def check_bounded(self, node: Node) -> None:
        """Raise Unknown unless `node` (a keyword: `if`, `{`, `!`) stands apart as a word of its own, as
        bash needs to read it as a keyword (`{ls; }` runs `{ls` to bash, a group to the grammar)."""
        before = self.data[: node.start_byte].decode()
        after = self.after(node)
        if before and (before[-1] not in METACHARACTERS or escaped(before, len(before) - 1)):
            raise Unknown
        if after and after not in METACHARACTERS:
            raise Unknown

    def check_comment(self, node: Node) -> None:
        """Raise Unknown for a comment bash would not read as one (after a continued line, inside a word)."""
        before = self.data[: node.start_byte].decode()
        if not before:
            return
        if before[-1] not in COMMENT_AFTER or escaped(before, len(before) - 1):
            raise Unknown
        if before[-1] == "&" and before[-2:-1] in ("<", ">"):
            raise Unknown  # `>&#`: bash reads a file name there


def escaped(text: str, i: int) -> bool:
    """Whether the character at `i` follows an odd run of backslashes."""
    run = 0
    while i - run - 1 >= 0 and text[i - run - 1] == "\\":
        run += 1
    return run % 2 == 1
