"""Several editors (windows, kernels) saved one configuration file from the same version at once, and all
but the last change were lost without a word."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import mewrk_jupyter as mw

from . import as_a_newcomer, write

ATTACK = "editors saving one file from the same version at once silently lose all but one change"
TRIALS = 40


def trial(folder: Path) -> bool:
    """True when exactly one save wins, every other one raises ConfigConflict, and the file is the winner's."""
    count = random.Random(str(folder)).randint(2, 6)
    path = write(folder, "agents/main.yaml", "model: offline/echo\n")
    won: list[int] = []
    conflicts: list[int] = []
    with as_a_newcomer(folder):
        version = mw.SettingsEditor(workspace=folder).read("agents/main.yaml").version
        start = threading.Barrier(count)

        def save(index: int) -> None:
            editor = mw.SettingsEditor(workspace=folder)
            start.wait()
            try:
                editor.save("agents/main.yaml", f"model: offline/echo\nsystem_prompt: '{index}'\n", version)
                won.append(index)
            except mw.ConfigConflict:
                conflicts.append(index)

        threads = [threading.Thread(target=save, args=(i,)) for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if len(won) != 1 or len(conflicts) != count - 1:
        return False
    return path.read_text() == f"model: offline/echo\nsystem_prompt: '{won[0]}'\n"
