"""Where Workbench keeps its files: platformdirs by default, one variable to move them all."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "workbench"
HOME_VARIABLE = "WORKBENCH_HOME"


@dataclass(frozen=True)
class AppPaths:
    config_dir: Path
    data_dir: Path
    cache_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.toml"

    @property
    def layout_file(self) -> Path:
        return self.config_dir / "window-layout.json"

    @property
    def default_workspace(self) -> Path:
        return self.data_dir / "workspace"

    def ensure(self) -> AppPaths:
        for folder in (self.config_dir, self.data_dir, self.cache_dir):
            folder.mkdir(parents=True, exist_ok=True)
        return self


def app_paths() -> AppPaths:
    """Config, data and cache folders; `WORKBENCH_HOME` moves all three (tests, portable use)."""
    home = os.environ.get(HOME_VARIABLE)
    if home:
        root = Path(home).expanduser().resolve()
        return AppPaths(root / "config", root / "data", root / "cache")
    return AppPaths(
        Path(platformdirs.user_config_dir(APP_NAME)),
        Path(platformdirs.user_data_dir(APP_NAME)),
        Path(platformdirs.user_cache_dir(APP_NAME)),
    )
