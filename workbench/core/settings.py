"""Typed settings in one TOML file. Secrets never go here: see `workbench.core.secrets`.

Plugins keep their own section `[plugins.<name>]`, validated by the pydantic model they contribute.
A broken file is reported with its line and left untouched; the app runs on defaults meanwhile.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, TypeVar

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

M = TypeVar("M", bound=BaseModel)


class SettingsError(ValueError):
    pass


class OllamaSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field("http://127.0.0.1:11434", description="Ollama server address")
    model: str = Field("qwen3:4b", description="Default chat model on that server")
    context_size: int = Field(8192, ge=512, description="Context window in tokens")


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    workspace: str = Field("", description="Workspace folder (empty: the default in the data dir)")
    model: str = Field("ollama:qwen3:4b", description="Agent model, e.g. ollama:qwen3:4b")
    ollama: OllamaSettings = Field(default_factory=OllamaSettings)
    ssh_hosts: list[str] = Field(default_factory=list, description="Clusters, as user@host[:port]")
    printers: list[str] = Field(default_factory=list, description="Printers: serial ports or URLs")
    plugins: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def plugin(self, name: str, model: type[M]) -> M:
        """This plugin's section, validated; defaults where the file says nothing."""
        try:
            return model.model_validate(self.plugins.get(name, {}))
        except ValidationError as invalid:
            raise SettingsError(
                f"Settings of plugin {name!r} are invalid: {invalid}. "
                f"Fix [plugins.{name}] in the settings file or reset it in the settings dialog."
            ) from invalid

    def with_plugin(self, name: str, values: BaseModel) -> Settings:
        refuse_secrets(values)
        plugins = {**self.plugins, name: values.model_dump(mode="json", exclude_none=True)}
        return self.model_copy(update={"plugins": plugins})


def refuse_secrets(model: BaseModel) -> None:
    for field_name, value in model:
        if isinstance(value, SecretStr):
            raise SettingsError(
                f"Field {field_name!r} holds a secret; secrets belong in the keyring, not in "
                "settings (use workbench.core.secrets)."
            )
        if isinstance(value, BaseModel):
            refuse_secrets(value)


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """Settings from `path` and, if the file could not be used, why (the file is left as it is)."""
    if not path.exists():
        return Settings(), None
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        return Settings.model_validate(raw), None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as broken:
        problem = f"{path} is not valid TOML ({broken})"
    except ValidationError as invalid:
        problem = f"{path} has invalid values: " + "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in invalid.errors()
        )
    return Settings(), problem + ". Running on defaults; fix or delete the file."


def save_settings(settings: Settings, path: Path) -> None:
    """Write atomically, so a crash mid-write leaves the previous file intact."""
    refuse_secrets(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".toml.part")
    partial.write_text(tomli_w.dumps(settings.model_dump(mode="json")), encoding="utf-8")
    os.replace(partial, path)
