"""Cold starts without a reboot: drop files from the kernel's page cache, and count what stays.

`evict(files)` asks the kernel to forget each file's cached pages (posix_fadvise DONTNEED: works
without root, for clean pages no process has mapped). `drop_all_caches()` additionally empties
the whole page cache, dentries and inodes when this process may write /proc/sys/vm/drop_caches
(root outside a container). `cached_pages(file)` counts a file's pages in memory (mincore), so
the benchmark can say how cold the files really were.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DROP_CACHES = Path("/proc/sys/vm/drop_caches")
PAGE_SIZE = mmap.PAGESIZE


@dataclass(frozen=True)
class Eviction:
    files: int
    bytes: int


def supported() -> bool:
    return hasattr(os, "posix_fadvise") and hasattr(os, "POSIX_FADV_DONTNEED")


def files_under(roots: Iterable[Path]) -> list[Path]:
    """Every regular file under the roots (symlinks not followed), each once."""
    seen: set[str] = set()
    folders: list[str] = []
    for root in roots:
        resolved = root.resolve()
        if resolved.is_file():
            seen.add(str(resolved))
        elif resolved.is_dir():
            folders.append(str(resolved))
    while folders:  # scandir's entry types come with the listing: no stat per file
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue  # unreadable: nothing of it can be evicted anyway
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                seen.add(entry.path)
    return [Path(path) for path in sorted(seen)]


def evict(files: Iterable[Path]) -> Eviction:
    """Ask the kernel to drop the files' clean, unmapped pages; files that vanished are skipped."""
    if not supported():
        raise RuntimeError("This system has no posix_fadvise: files cannot be evicted one by one.")
    count = total = 0
    for path in files:
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            total += os.fstat(descriptor).st_size
            os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
            count += 1
        except OSError:
            pass  # a special file: nothing cached to drop
        finally:
            os.close(descriptor)
    return Eviction(count, total)


def drop_all_caches() -> bool:
    """Empty the whole page cache (and dentries, inodes) if allowed; True when it was done."""
    try:
        os.sync()  # dirty pages cannot be dropped: write them first
        DROP_CACHES.write_text("3\n")
    except OSError:
        return False
    return True


def cached_pages(path: Path) -> tuple[int, int]:
    """(pages of the file in the page cache, pages of the file); (0, 0) for an empty file."""
    size = path.stat().st_size
    if size == 0:
        return 0, 0
    pages = (size + PAGE_SIZE - 1) // PAGE_SIZE
    libc = _libc()
    descriptor = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, descriptor, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), f"cannot map {path}")
    finally:
        os.close(descriptor)  # the mapping stays valid without the descriptor
    try:
        residency = (ctypes.c_ubyte * pages)()
        if libc.mincore(address, size, residency) != 0:
            raise OSError(ctypes.get_errno(), f"mincore failed on {path}")
        return sum(byte & 1 for byte in residency), pages
    finally:
        libc.munmap(address, size)


def cached_bytes(files: Iterable[Path]) -> tuple[int, int]:
    """(bytes of the files in the page cache, bytes of the files), in whole pages."""
    cached = total = 0
    for path in files:
        try:
            in_memory, pages = cached_pages(path)
        except OSError:
            continue  # vanished or unmappable (a socket, /proc): not part of the count
        cached += in_memory * PAGE_SIZE
        total += pages * PAGE_SIZE
    return cached, total


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return libc
