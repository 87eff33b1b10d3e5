"""Find a literal credential anywhere in a configuration file, whatever the field: a file is a place people
share, commit and show, so a credential in it is a reference (`${ENV_VAR}`, `@file:/path`), in a header, a
URL, an argument or an environment value alike. The finding names the field, never the value."""

from __future__ import annotations

import math
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from .problems import Problem
from .secrets import SECRET_HEADER, is_reference

# Vendors' key formats, by the prefix each vendor gives its keys; the part after it is long and random
# (with a digit), so `sk-learn-extensions` or `hf_transfer` are words, not keys.
_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"(?:sk-ant-|sk-proj-|sk-|rk_live_|sk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-"
    r"|xox[abposr]-|hf_|AIza|ya29\.|npm_|pypi-|dop_v1_|shpat_|SG\.)(?=[A-Za-z_\-.]*\d)[A-Za-z0-9_\-.]{16,}"
    r"|(?:AKIA|ASIA)[A-Z0-9]{16}"
    r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"  # a JSON Web Token
    r")"
)
# The schemes of an Authorization-style header's value: what follows them is the credential.
_SCHEME = re.compile(r"^\s*(?:bearer|basic|token|digest|apikey)\s+\S", re.IGNORECASE)
# A run of the characters keys are written in, long enough to be one ("/" separates: paths are not keys).
_RUN = re.compile(r"[A-Za-z0-9_+\-]{24,}")
_PIECE = re.compile(r"[-_]")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
# Bits per character: a random 24-character token has about 4.3 (40 characters: 4.8), a run of one letter
# repeated or a short alphabet less. CamelCase names reach 4.2 too, so the two measures below tell them
# apart: random characters change kind at about 3 neighbours in 5, a CamelCase name about twice a word.
MIN_ENTROPY = 3.5
MIN_CHANGES = 0.4  # the share of neighbouring characters of different kinds (upper, lower, digit, sign)
# Random letters and digits are about 42 % lower case; words in CamelCase are 70 % and more.
MAX_LOWER = 0.65
# A flag or a URL's query parameter whose name ends saying its value is a credential (`--token`,
# `--api-key`, `?key=`); `--max-tokens` or `--token-file` name something else, and `--auth` often a mode.
SECRET_PARAMETER = re.compile(
    r"(?:^|[-_])(?:api[-_]?key|key|token|secret|password|passwd|pwd|credentials?|pat|sig|signature)$",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"^\{[A-Za-z_][A-Za-z0-9_]*\}$")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")


def looks_like_a_key(text: str) -> bool:
    """Whether `text` holds a vendor's key format or a long random token.

    A token is random when it has 24 or more of [A-Za-z0-9_+-], letters of both cases and two digits or
    more, at least 3.5 bits of entropy per character, a piece between dashes of 12 or more, kinds of
    character changing often and no more lower case than random characters have (CamelCase words change
    kind about twice a word and are mostly lower case). Hex alone (digests, commits,
    UUIDs) is an id as often as a key, so it is left to the prefixes and the field names.
    """
    if _PREFIXED.search(text):
        return True
    return any(_random(run) for run in _RUN.findall(text))


def _random(run: str) -> bool:
    digits = sum(char.isdigit() for char in run)
    if _UUID.match(run) or digits < 2 or not (re.search(r"[a-z]", run) and re.search(r"[A-Z]", run)):
        return False
    if max(len(piece) for piece in _PIECE.split(run)) < 12:  # words joined by dashes: a model's name
        return False
    counts = Counter(run)
    entropy = -sum(n / len(run) * math.log2(n / len(run)) for n in counts.values())
    changes = sum(_kind(a) != _kind(b) for a, b in zip(run, run[1:], strict=False)) / (len(run) - 1)
    lower = sum(char.islower() for char in run) / len(run)
    return entropy >= MIN_ENTROPY and changes >= MIN_CHANGES and lower <= MAX_LOWER


def _kind(char: str) -> int:
    return 0 if char.islower() else 1 if char.isupper() else 2 if char.isdigit() else 3


def holds_credential(text: str, header: str | None = None) -> bool:
    """Whether a value (of the header named `header`, if it is one) carries a literal credential."""
    if is_reference(text):
        return False
    if looks_like_a_key(text) or _url_carries_one(text):
        return True
    if header is None or not text.strip():
        return False
    return bool(_SCHEME.match(text)) or bool(SECRET_HEADER.search(header))


def _url_carries_one(text: str) -> bool:
    """A URL with a password (not one written as a reference, `postgresql://u:${NAME}@host/db`), or a query
    parameter whose name says credential and whose value is given."""
    for found in _URL.findall(text):
        try:
            parts = urlsplit(found)
            password = parts.password
        except ValueError:
            continue
        if password and not is_reference(unquote(password)):
            return True
        for key, value in parse_qsl(parts.query, keep_blank_values=False):
            if SECRET_PARAMETER.search(key) and _given(value):
                return True
    return False


def credential_problems(
    data: Any, rel: str, line_of: Callable[[tuple[str, ...]], int | None]
) -> list[Problem]:
    """One problem for each field of a file's data holding a literal credential."""
    found: list[Problem] = []
    for path, advice in _literals(data, ()):
        field = ".".join(path)
        message = f"{field} must be a reference, not a literal: write ${{ENV_VAR}} or @file:/path{advice}"
        found.append(Problem(rel, field, message, line_of(path)))
    return found


def _literals(value: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            inner = (*path, str(key))
            if isinstance(item, str) and key == "command":  # a command line: its words are arguments
                if next(_arguments(_words(item), inner), None) is not None:
                    yield inner, ""
            elif isinstance(item, str):
                if holds_credential(item, _named(path, str(key))):
                    yield inner, ""
            else:
                yield from _literals(item, inner)
    elif isinstance(value, list):
        yield from _arguments(value, path)
    elif isinstance(value, str) and holds_credential(value):
        yield path, ""


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError:  # an unclosed quote: the words as written
        return line.split()


def _named(path: tuple[str, ...], key: str) -> str | None:
    """The header's name, when the value is a header's: its name says what the value is."""
    return key if path and path[-1] == "headers" else None


def _arguments(items: list[Any], path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    """A list's texts, read as a command's arguments: `--token VALUE` and `--token=VALUE` hold one."""
    alone = " as an argument of its own (e.g. --api-key, then ${API_KEY})"
    for index, item in enumerate(items):
        inner = (*path, str(index))
        if not isinstance(item, str):
            yield from _literals(item, inner)
            continue
        flag, equals, given = item.partition("=")
        if equals and _secret_flag(flag) and _given(given):
            yield inner, alone
        elif holds_credential(item):
            yield inner, alone if equals else ""
        elif index and isinstance(items[index - 1], str) and _secret_flag(items[index - 1]):
            if not item.startswith("-") and _given(item):
                yield inner, ""


def _secret_flag(text: str) -> bool:
    return text.startswith("-") and bool(SECRET_PARAMETER.search(text.lstrip("-")))


def _given(value: str) -> bool:
    """Whether the value of a credential's flag or parameter is a credential given as written: not a
    reference, not a tool's `{parameter}`, not a short figure (`sort --key=2`, `?sig=1`)."""
    return len(value) >= 6 and not is_reference(value) and not _PLACEHOLDER.match(value)
