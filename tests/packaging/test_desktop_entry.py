"""The desktop entry and the icon: the entry is valid, install-desktop-entry.sh puts it and the
icon where a desktop looks (a tmp HOME here), pointing at a program that exists; the PNG is the
SVG's 256 px render. The bundle itself is built and checked by its own CI step
(packaging/check-bundle.sh).
"""

from __future__ import annotations

import configparser
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.rigs.require import require_rig

PACKAGING = ROOT / "packaging"
ENTRY = PACKAGING / "workbench.desktop"
INSTALLER = PACKAGING / "install-desktop-entry.sh"
ICONS = ROOT / "resources" / "icons"
PNG = ICONS / "workbench-256.png"
SVG = ICONS / "workbench.svg"
VENV_PROGRAM = Path(sys.executable).parent / "workbench"


def read_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    if header[:8] != b"\x89PNG\r\n\x1a\n" or header[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file")
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def install(home: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run(
        ["bash", str(INSTALLER), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_entry_names_the_program_and_icon_and_launches_an_application() -> None:
    entry = read_entry(ENTRY)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Workbench"
    assert entry["Exec"] == "workbench" and entry["Icon"] == "workbench"
    assert entry["Terminal"] == "false"
    assert "Engineering" in entry["Categories"].split(";")


def test_desktop_file_validate_accepts_the_entry() -> None:
    validator = shutil.which("desktop-file-validate")
    require_rig(
        "desktop-file-validate", validator is not None, "apt-get install desktop-file-utils"
    )
    done = subprocess.run([str(validator), str(ENTRY)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "error" not in done.stdout, done.stdout + done.stderr


def test_the_icon_png_is_256_px_square_and_the_svg_is_drawn_on_256() -> None:
    assert png_size(PNG) == (256, 256)
    text = SVG.read_text(encoding="utf-8")
    assert 'viewBox="0 0 256 256"' in text


def test_the_png_is_the_render_of_the_svg() -> None:
    """Edit the SVG, then run packaging/render_icon.py: the two must not drift apart."""
    require_rig("PySide6", _has_qt_svg(), "the GUI extra: pip install -e '.[gui]'")
    from PySide6.QtGui import QImage

    sys.path.insert(0, str(PACKAGING))
    try:
        from render_icon import render  # packaging/ is not a package
    finally:
        sys.path.remove(str(PACKAGING))
    fresh = Path(os.environ["WORKBENCH_HOME"]).parent / "fresh.png"
    render(SVG, fresh, 256)
    committed, drawn = QImage(str(PNG)), QImage(str(fresh))
    differing = sum(
        committed.pixel(x, y) != drawn.pixel(x, y)
        for x in range(0, 256, 4)
        for y in range(0, 256, 4)
    )
    assert differing <= 40, f"{differing} of 4096 sampled pixels differ: run render_icon.py"


def test_installing_puts_entry_and_icons_under_the_users_data_folder(tmp_path: Path) -> None:
    done = install(tmp_path, str(VENV_PROGRAM))
    assert done.returncode == 0, done.stderr
    data = tmp_path / ".local" / "share"
    installed = read_entry(data / "applications" / "workbench.desktop")
    program = Path(installed["Exec"])
    assert program.is_absolute() and os.access(program, os.X_OK)
    assert program == VENV_PROGRAM and installed["TryExec"] == str(VENV_PROGRAM)
    icon = data / "icons" / "hicolor" / "256x256" / "apps" / f"{installed['Icon']}.png"
    assert png_size(icon) == (256, 256)
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "workbench.svg").is_file()

    removed = install(tmp_path, "--remove")
    assert removed.returncode == 0, removed.stderr
    assert not (data / "applications" / "workbench.desktop").exists() and not icon.exists()


def test_without_a_program_the_entry_starts_the_bundle_if_built_else_the_venv(
    tmp_path: Path,
) -> None:
    done = install(tmp_path)
    assert done.returncode == 0, done.stderr
    installed = read_entry(tmp_path / ".local/share/applications/workbench.desktop")
    candidates = [ROOT / "dist" / "workbench" / "workbench", ROOT / ".venv" / "bin" / "workbench"]
    expected = next(path for path in candidates if os.access(path, os.X_OK))
    assert installed["Exec"] == str(expected)


def test_checking_a_bundle_that_was_not_built_says_how_to_build_it(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(PACKAGING / "check-bundle.sh"), str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "build-bundle.sh" in done.stderr, done.stderr


def test_a_path_with_spaces_is_quoted_in_exec(tmp_path: Path) -> None:
    folder = tmp_path / "my apps"
    folder.mkdir()
    program = folder / "workbench"
    program.symlink_to(VENV_PROGRAM)
    done = install(tmp_path, str(program))
    assert done.returncode == 0, done.stderr
    installed = read_entry(tmp_path / ".local/share/applications/workbench.desktop")
    assert installed["Exec"] == f'"{program}"' and installed["TryExec"] == str(program)


@pytest.mark.parametrize(
    ("name", "problem"),
    [("missing", "is not an executable program"), ("odd$name", "cannot hold")],
)
def test_a_program_that_cannot_be_started_is_refused_with_the_reason(
    tmp_path: Path, name: str, problem: str
) -> None:
    program = tmp_path / name
    if name != "missing":
        program.symlink_to(VENV_PROGRAM)
    done = install(tmp_path, str(program))
    assert done.returncode == 2 and problem in done.stderr, done.stderr
    assert not (tmp_path / ".local/share/applications/workbench.desktop").exists()


def _has_qt_svg() -> bool:
    try:
        import PySide6.QtSvg  # noqa: F401
    except ImportError:
        return False
    return True
