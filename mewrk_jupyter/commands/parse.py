"""The one parser of a command line, for `%mewrk …` and the composer's `/…` alike.

Arguments are split as a shell would (quotes group words; `#` starts a comment); a command whose
synopsis ends in free text (`TEXT`, `REASON`) keeps the rest of the line as typed, since "What's up"
is not a shell line.
"""

from __future__ import annotations

import io
import shlex

from .base import NOTEBOOK, Command, Surface, UsageProblem


def split_name(line: str) -> tuple[str, str]:
    """The command's name (lower case) and the rest of the line."""
    words = line.split(None, 1)
    return (words[0].lower() if words else ""), (words[1] if len(words) > 1 else "")


def _unquote(text: str) -> str:
    """Free text as typed; one quoted string loses its quotes."""
    text = text.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        try:
            words = shlex.split(text)
        except ValueError:
            return text
        if len(words) == 1:
            return words[0]
    return text


def parse(
    command: Command, rest: str, body: str | None = None, surface: Surface = NOTEBOOK
) -> tuple[list[str], str]:
    """Split the rest of a command line into arguments and free text (a `%%mewrk` cell body is free
    text); raise UsageProblem if they do not fit the command's synopsis on that surface."""
    fewest, most, free = command.shape(surface)
    text = ""
    try:
        if not free:
            if body is not None and body.strip():
                raise UsageProblem("this command takes no cell body")
            args = shlex.split(rest, comments=True)  # `%mewrk new  # a note`, as in Python
        else:
            # shlex reads the leading arguments; the rest stays verbatim, a `#` in it included.
            line = io.StringIO(rest)
            lexer = shlex.shlex(line, posix=True)
            lexer.whitespace_split, lexer.commenters = True, ""
            args = [t for t in (lexer.get_token() for _ in range(most or 0)) if t is not None]
            remainder = line.read()  # the lexer has read only the arguments' words
            if body is not None and remainder.strip():
                raise UsageProblem("give the text on the line or in the cell body, not both")
            text = body if body is not None else _unquote(remainder)
    except ValueError as exc:  # shlex: unbalanced quotes
        raise UsageProblem(str(exc)) from None
    if (
        len(args) < fewest
        or (most is not None and len(args) > most)
        or (free in ("TEXT", "REASON") and not text.strip())
    ):
        raise UsageProblem("wrong arguments")
    return args, text
