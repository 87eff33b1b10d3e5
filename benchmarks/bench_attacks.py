"""Repeat the attacks of the security review and print how many the product held.

Run: python benchmarks/bench_attacks.py [NAME ...]
Each module in benchmarks/attacks/ is one attack: it names itself (ATTACK), says how many trials make a
fair figure (TRIALS) and runs one trial in a fresh workspace (`trial(folder) -> bool`, True when the
product held: nothing leaked, nothing lost, nothing hung). The table lists trials, held and lost.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import attacks  # noqa: E402


def run(names: list[str]) -> int:
    """Run every attack (or the ones named) and print the table; exit status 1 when any attack got through."""
    rows = []
    for info in sorted(pkgutil.iter_modules(attacks.__path__), key=lambda m: m.name):
        if names and info.name not in names:
            continue
        module = importlib.import_module(f"attacks.{info.name}")
        held = 0
        started = time.perf_counter()
        for _ in range(module.TRIALS):
            with tempfile.TemporaryDirectory() as folder:
                previous = os.getcwd(), os.environ.get("MEWRK_USER_CONFIG")
                os.chdir(folder)
                # What a trial trusts stays in the trial: the person's own configuration is its folder's.
                os.environ["MEWRK_USER_CONFIG"] = str(Path(folder) / "person-config")
                try:
                    held += bool(module.trial(Path(folder)))
                except Exception:  # an attack that breaks the product counts as lost, with its trace
                    traceback.print_exc()
                finally:
                    os.chdir(previous[0])
                    if previous[1] is None:
                        os.environ.pop("MEWRK_USER_CONFIG", None)
                    else:
                        os.environ["MEWRK_USER_CONFIG"] = previous[1]
        seconds = time.perf_counter() - started
        rows.append((module.ATTACK, module.TRIALS, held, module.TRIALS - held, seconds))
    width = max((len(r[0]) for r in rows), default=6)
    print(f"{'attack':<{width}}  trials  held  lost  seconds")
    for attack, trials, held, lost, seconds in rows:
        print(f"{attack:<{width}}  {trials:>6}  {held:>4}  {lost:>4}  {seconds:>7.1f}")
    return 1 if any(r[3] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
