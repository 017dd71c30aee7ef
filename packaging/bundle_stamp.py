"""Whether CI must build and check the desktop bundle again (.ci/run): a key of what the bundle is
made of, and stamps of the keys whose build passed check-bundle.sh on this machine.

The key covers what can make a bundle fail while the tests pass, all read from the checkout and
the venv:
- every file in packaging/ (the spec, what goes in, the scripts, the apt packages), pyproject.toml
  and setup.py, by content;
- the names of the files the bundle takes from the checkout (bundle_contents: workbench/,
  plugins/, benchmarks/modelica/) and the import lines of the Python ones (`import`, `from ...
  import`, `import_module(`, `__import__(`): a new module, data file or dependency changes the
  key; a change inside a function does not (the tests check behaviour; the bundle check finds
  what the bundle misses);
- the installed distributions with their versions (PyInstaller's and its hooks' too), Python
  and the machine.

    python packaging/bundle_stamp.py key            print the key
    python packaging/bundle_stamp.py check KEY      exit 0 if a build with KEY passed (says when)
    python packaging/bundle_stamp.py record KEY     remember that the build with KEY passed

Stamps live outside the checkout, in ${XDG_CACHE_HOME:-~/.cache}/workbench/bundle-stamps/.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_contents  # found through the path above

ROOT = bundle_contents.ROOT
WHOLE_FILES = ("pyproject.toml", "setup.py")
IMPORT_LINE = re.compile(r"^\s*(?:import\s|from\s+\S+\s+import\b)|import_module\(|__import__\(")
SKIPPED_PARTS = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def stamp_folder() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "workbench" / "bundle-stamps"


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(ROOT)
        if path.is_file() and not SKIPPED_PARTS & set(relative.parts) and path.suffix != ".pyc":
            yield path


def _bundled_folders() -> list[Path]:
    sources = [ROOT / folder for folder in bundle_contents.SOURCE_PACKAGES.values()]
    return sources + [ROOT / source for source, _ in bundle_contents.DATA_FOLDERS]


def bundle_key() -> str:
    digest = hashlib.sha256()

    def add(*parts: str | bytes) -> None:
        for part in parts:
            digest.update(part if isinstance(part, bytes) else part.encode())
            digest.update(b"\0")

    for path in [*_files(ROOT / "packaging"), *(ROOT / name for name in WHOLE_FILES)]:
        if path.is_file():
            add(str(path.relative_to(ROOT)), path.read_bytes())
    for folder in _bundled_folders():
        for path in _files(folder):
            add(str(path.relative_to(ROOT)))
            if path.suffix == ".py":
                text = path.read_text(encoding="utf-8", errors="replace")
                add(*(line.strip() for line in text.splitlines() if IMPORT_LINE.search(line)))
    installed = {
        f"{dist.metadata['Name']}=={dist.version}".lower()
        for dist in importlib.metadata.distributions()
    }
    add(*sorted(installed), sys.version, platform.machine(), platform.platform())
    return digest.hexdigest()[:32]


def main(argv: list[str]) -> int:
    command, key = [*argv, "", ""][:2]
    stamp = stamp_folder() / key if key else None
    if command == "key":
        print(bundle_key())
        return 0
    if command == "check" and stamp is not None:
        if not stamp.is_file():
            return 1
        print(stamp.read_text().strip())
        return 0
    if command == "record" and stamp is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(f"built and checked {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
