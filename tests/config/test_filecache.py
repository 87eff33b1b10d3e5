"""A file's derived value is worked out again exactly when the file changed."""

from __future__ import annotations

import os
from pathlib import Path

from mewrk_jupyter.config.filecache import FileCache


def counting_cache() -> tuple[FileCache[str | None], list[str]]:
    reads: list[str] = []

    def derive(path: str) -> str | None:
        reads.append(path)
        try:
            return Path(path).read_text()
        except (OSError, ValueError):  # ValueError: a name the system refuses
            return None

    return FileCache(derive), reads


def test_a_file_is_read_again_only_after_it_changed(tmp_path: Path):
    cache, reads = counting_cache()
    path = tmp_path / "MEMORY.md"
    path.write_text("first")
    assert cache.get(str(path)) == "first" and cache.get(str(path)) == "first"
    assert len(reads) == 1
    # The same size and the same time, written to a new file renamed over the old one (an editor's save).
    replacement = tmp_path / "MEMORY.md.new"
    replacement.write_text("again")
    stat = path.stat()
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(replacement, path)
    assert cache.get(str(path)) == "again" and len(reads) == 2


def test_a_missing_file_and_a_folder_are_kept_and_seen_when_they_change(tmp_path: Path):
    cache, reads = counting_cache()
    path = tmp_path / "preferences.yaml"
    assert cache.get(str(path)) is None and cache.get(str(path)) is None
    assert len(reads) == 1  # "no file" is kept too
    path.write_text("auto_compaction: false\n")
    assert cache.get(str(path)) == "auto_compaction: false\n"
    path.unlink()
    path.mkdir()
    assert cache.get(str(path)) is None and len(reads) == 3


def test_a_path_that_cannot_be_looked_at_is_derived_each_time(tmp_path: Path):
    cache, reads = counting_cache()
    bad = str(tmp_path / "a\0b")  # the operating system refuses the name
    assert cache.get(bad) is None and cache.get(bad) is None
    assert len(reads) == 2
