"""What a cold start must read from disk, and making it so before each cold start.

The cold set: the Python installation and the virtual environment (stdlib, site-packages, Qt's
libraries inside PySide6), Workbench's source and plugins, the temporary home, and every file
the two programs mapped in their first start (system libraries, fonts, caches). Bytecode in
__pycache__ stays as it is: a person's cold start has it too. Pages that other running processes
keep mapped cannot be evicted; `still_cached` says how much of each program's mapped files that
left in memory.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
from pathlib import Path

import workbench
from workbench.ui.startup.page_cache import (
    cached_bytes,
    drop_all_caches,
    evict,
    files_under,
)

MB = 1_000_000


def installation_roots() -> list[Path]:
    """The folders Python and Workbench run from."""
    roots = {
        Path(folder).resolve()
        for folder in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    roots.add(Path(workbench.__file__).resolve().parent)
    plugins = importlib.util.find_spec("workbench_plugins")
    for folder in (plugins.submodule_search_locations or []) if plugins else []:
        roots.add(Path(folder).resolve())
    return sorted(roots)


class ColdStarts:
    """Evicts the cold set before each cold start and keeps count of what could not be evicted."""

    def __init__(
        self, home: Path, mapped: dict[str, list[str]], *, drop_everything: bool = True
    ) -> None:
        self.home = home
        self.drop_everything = drop_everything  # also /proc/sys/vm/drop_caches, where allowed
        self.mapped = {key: [Path(path) for path in files] for key, files in mapped.items()}
        extra = [path for files in self.mapped.values() for path in files]
        self.files = files_under([*installation_roots(), *extra])
        self.bytes = 0
        self.dropped_everything = False
        self.still_cached: dict[str, list[int]] = {key: [] for key in mapped}

    def prepare(self, program_key: str) -> None:
        """Make the next start of `program_key` a cold one (as far as this process may)."""
        eviction = evict([*self.files, *files_under([self.home])])
        self.bytes = eviction.bytes
        if self.drop_everything:
            self.dropped_everything = drop_all_caches() or self.dropped_everything
        cached, _ = cached_bytes(self.mapped.get(program_key, []))
        self.still_cached.setdefault(program_key, []).append(cached)

    def description(self, titles: dict[str, str]) -> str:
        if self.dropped_everything:
            method = "/proc/sys/vm/drop_caches (the whole page cache) and posix_fadvise(DONTNEED)"
        elif self.drop_everything:
            method = "posix_fadvise(DONTNEED) only (/proc/sys/vm/drop_caches is not writable here)"
        else:
            method = "posix_fadvise(DONTNEED) only (--no-drop-caches)"
        kept = []
        for key, samples in self.still_cached.items():
            if samples:
                _, mapped = cached_bytes(self.mapped[key])
                kept.append(
                    f"{titles.get(key, key)} {statistics.median(samples) / MB:.0f} of the "
                    f"{mapped / MB:.0f} MB it maps"
                )
        return (
            f"before each, {method} on {len(self.files):,} files ({self.bytes / MB:,.0f} MB: the "
            "Python installation, the virtual environment, Workbench's source and plugins, the "
            "temporary home, and every file either program mapped); bytecode kept. Still cached "
            "after eviction (pages other running processes keep mapped), median: "
            + "; ".join(kept)
            + "."
        )
