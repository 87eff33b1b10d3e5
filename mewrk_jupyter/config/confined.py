"""The files every request carries unseen (AGENTS.md, MEMORY.md, a skill's SKILL.md) are read only when
they are regular files whose real path, every link followed, lies inside their own folder: a cloned
folder whose AGENTS.md links to ~/.aws/credentials would otherwise send that file with every request,
trusted or not. What is allowed is listed (inside the folder, a regular file); anything else is left out
with a sentence saying what is there."""

from __future__ import annotations

import os
import stat

from ..errors import ConfigError


class LeftOut(ConfigError):
    """A file of the hidden prefix that is not read: the sentence says what it is and what to do."""


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def confined(path: str, folder: str, shown: str, where: str) -> str | None:
    """The real path to read for `path`: None when there is nothing to read (no file, or a folder).

    LeftOut when a link on the way leads outside `folder` (named `where` in the sentence, and `path` as
    `shown`), or when what is there is not a regular file (a pipe would block every request)."""
    real = os.path.realpath(path)
    if not _inside(real, os.path.realpath(folder)):
        if not os.path.lexists(path):
            return None  # a linked folder on the way holds no such file: there is nothing to read
        how = "is a link to" if os.path.islink(path) else "leads through a link to"
        raise LeftOut(
            f"{shown} {how} {real}, outside {where}, so it is not read; put the file itself there to use it."
        )
    try:
        mode = os.stat(real).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return real  # no permission, say: opening it fails the way any unreadable file does
    if stat.S_ISDIR(mode):
        return None
    if not stat.S_ISREG(mode):
        raise LeftOut(f"{shown} is not a regular file (a pipe, a device or a socket), so it is not read.")
    return real
