"""Typed settings in one TOML file. Secrets never go here: see `workbench.core.secrets`.

Plugins keep their own section `[plugins.<name>]`, validated by the pydantic model they contribute.
A value the file may not hold is left out and named, the rest is used (`settings_refusals`); a
file that is not TOML is reported with its line and the app runs on defaults. Loading never
changes the file.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import tomli_w
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from workbench.core.secrets import SERVICE as KEYRING_SERVICE
from workbench.core.settings_models import ModelProfile, profile_problems
from workbench.core.settings_refusals import (
    Refusal,
    drop_refused_strings,
    item_label,
    validate_keeping_the_rest,
)

M = TypeVar("M", bound=BaseModel)
# `scheme://user:password@`: the password part of a URL (a user name alone is not a secret)
_URL_PASSWORD = re.compile(
    r"\b(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/?#@\s:]*):[^/?#@\s]+@", re.I
)
# `user:password@host[:port]`: how an SSH host entry would carry one
_HOST_PASSWORD = re.compile(r"^(?P<user>[^@\s:/]+):[^@\s]+@")
# an external MCP server's URL (its bearer token's entry) or an environment variable of it
_MCP_SERVER_FIELD = re.compile(
    r"^plugins\.mcp_servers\.servers\[(?P<name>[a-z][a-z0-9_]*)\]\.(?:url|env\.(?P<variable>\w+))$"
)


class SettingsError(ValueError):
    pass


class OllamaSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    base_url: str = Field("http://127.0.0.1:11434", description="Ollama server address")
    model: str = Field("qwen3:4b", description="Default chat model on that server")
    context_size: int = Field(8192, ge=512, description="Context window in tokens")

    @field_validator("base_url")
    @classmethod
    def _no_password(cls, value: str) -> str:
        return refuse_url_credentials(value, "ollama.base_url")

    def address(self) -> str:
        """Where the server is: a base URL set in settings wins; otherwise OLLAMA_HOST (as every
        Ollama client honours it); otherwise the default."""
        configured = self.base_url.rstrip("/")
        environment = os.environ.get("OLLAMA_HOST", "").strip()
        if environment and configured == OllamaSettings.model_fields["base_url"].default:
            return parse_ollama_host(environment)
        return configured


def parse_ollama_host(host: str) -> str:
    """OLLAMA_HOST as the Ollama clients read it: scheme and port added when missing."""
    host = host.strip().rstrip("/")
    scheme, separator, rest = host.partition("://")
    if separator:
        default_port = "443" if scheme == "https" else "80"
    else:
        scheme, rest, default_port = "http", host, "11434"
    hostname, colon, port = rest.rpartition(":")
    if not colon:
        hostname, port = rest, ""
    return f"{scheme}://{hostname or '127.0.0.1'}:{port or default_port}"


class Settings(BaseModel):
    # hide_input_in_errors: a refused value may hold a password, which must not reach a message
    model_config = ConfigDict(extra="forbid", validate_assignment=True, hide_input_in_errors=True)

    workspace: str = Field("", description="Workspace folder (empty: the default in the data dir)")
    model: str = Field(
        "ollama:qwen3:4b", description="Agent model: a profile's name, or e.g. ollama:qwen3:4b"
    )
    ollama: OllamaSettings = Field(default_factory=OllamaSettings)
    model_profiles: list[ModelProfile] = Field(
        default_factory=list,
        description="Named models (server, key entry, temperature, seed): the only models tools "
        "and MCP clients may name",
        json_schema_extra={
            "edited_in": "the Models dialog",
            "editor": "workbench.ui.model_profiles_dialog:open_model_profiles",
        },
    )
    ssh_hosts: list[str] = Field(default_factory=list, description="Clusters, as user@host[:port]")
    printers: list[str] = Field(default_factory=list, description="Printers: serial ports or URLs")
    allowed_folders: list[str] = Field(
        default_factory=list,
        description="Folders besides the workspace where tools may read and write files without "
        "asking (absolute paths; anywhere else needs your confirmation)",
    )
    plugins: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @field_validator("allowed_folders")
    @classmethod
    def _absolute_folders(cls, folders: list[str]) -> list[str]:
        # a relative folder would mean a different place for every process that reads it
        relative = [f for f in folders if f.strip() and not os.path.isabs(os.path.expanduser(f))]
        if relative:
            raise ValueError(f"allowed folders must be absolute paths: {', '.join(relative)}")
        return folders

    @field_validator("workspace", "model", "ssh_hosts", "printers", "plugins", "model_profiles")
    @classmethod
    def _no_password(cls, value: object, info: ValidationInfo) -> object:
        refuse_credentials(value, str(info.field_name))
        return value

    @field_validator("model_profiles")
    @classmethod
    def _profiles_usable(cls, profiles: list[ModelProfile], info: ValidationInfo) -> object:
        ollama = info.data.get("ollama") or OllamaSettings()  # validated before the profiles
        problems = profile_problems(profiles, ollama.address())
        if problems:
            raise ValueError("; ".join(problems))
        return profiles

    def plugin(self, name: str, model: type[M]) -> M:
        """This plugin's section, validated; defaults where the file says nothing."""
        try:
            return model.model_validate(self.plugins.get(name, {}))
        except ValidationError as invalid:
            raise SettingsError(
                f"Settings of plugin {name!r} are invalid: {_problems(invalid)}. "
                f"Fix [plugins.{name}] in the settings file or reset it in the settings dialog."
            ) from invalid

    def with_plugin(self, name: str, values: BaseModel) -> Settings:
        refuse_secrets(values, f"plugins.{name}")
        plugins = {**self.plugins, name: values.model_dump(mode="json", exclude_none=True)}
        return self.model_copy(update={"plugins": plugins})


def refuse_secrets(model: BaseModel, where: str = "") -> None:
    """SettingsError if `model` holds a SecretStr or a password inside a URL, at any depth."""
    for field_name, value in model:
        path = f"{where}.{field_name}" if where else field_name
        if isinstance(value, SecretStr):
            raise SettingsError(
                f"Field {path!r} holds a secret; secrets belong in the keyring, not in "
                "settings (use workbench.core.secrets)."
            )
        if isinstance(value, BaseModel):
            refuse_secrets(value, path)
        else:
            try:
                refuse_credentials(value, path)
            except ValueError as found:
                raise SettingsError(str(found)) from None


def refuse_credentials(value: object, where: str) -> None:
    """ValueError naming the field if any string in `value` carries a password in a URL.

    Settings are a plain file that doctor and logs print; a password there is a leak (DESIGN
    rule: secrets live in the keyring only). Lists and dicts are searched too (plugin sections).
    """
    if isinstance(value, str):
        refuse_url_credentials(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            refuse_credentials(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            refuse_credentials(item, f"{where}[{item_label(item, index)}]")
    elif isinstance(value, BaseModel):  # a list of models (servers, printers) holds them
        for field_name, item in value:
            refuse_credentials(item, f"{where}.{field_name}")


def refuse_url_credentials(text: str, where: str, entry: str = "") -> str:
    """`text` unchanged, or a ValueError saying where the password is and where it belongs.

    `entry` names the keyring entry the password belongs in (the caller knows it best); without
    it a sensible one is suggested from the field.
    """
    is_host = where.startswith("ssh_hosts")
    found = _URL_PASSWORD.search(text) or (_HOST_PASSWORD.match(text) if is_host else None)
    if found is None:
        return text
    masked = _without_password(text, is_host)  # the message itself must not leak it
    if is_host:
        bare = masked.replace(":***@", "@")
        entry = entry or f"ssh:{bare}:password"
        advice = "Use an SSH key (ssh-agent) instead; a password that is really needed goes in"
    else:
        bare = _URL_PASSWORD.sub(r"\g<scheme>", text).rstrip("/")
        entry = entry or _suggested_entry(where, bare)
        advice = f"Use {bare!r} and put the password (or API key) in"
    raise ValueError(
        f"{where} ({masked!r}) holds a password (user:password@); settings are a plain file, so "
        f"they refuse secrets. {advice} the system keyring, service '{KEYRING_SERVICE}', entry "
        f"'{entry}' (e.g. `keyring set {KEYRING_SERVICE} '{entry}'`)."
    )


def _without_password(text: str, is_host: bool) -> str:
    text = _URL_PASSWORD.sub(r"\g<scheme>\g<user>:***@", text)
    return _HOST_PASSWORD.sub(r"\g<user>:***@", text) if is_host else text


def _suggested_entry(where: str, url: str) -> str:
    mcp_server = _MCP_SERVER_FIELD.match(where)
    if mcp_server:  # the names the MCP servers plugin reads (workbench_plugins.mcp_servers.config)
        name, variable = mcp_server["name"], mcp_server["variable"]
        return f"mcp-server-{name}:{variable}" if variable else f"mcp-server-{name}"
    if where.startswith(("printers", "plugins.printing")):
        # the printing plugin's name for it (workbench_plugins.printing.config.prusalink_secret_key)
        return f"prusalink:{url}:api_key"
    if where.startswith("model_profiles"):
        return "model:<profile name>:api_key"
    if where == "model" or where.startswith("ollama"):
        return "openai:api_key"
    return f"{where}:password"


def _problems(invalid: ValidationError) -> str:
    """The errors by field, without the refused input values (they may hold a secret)."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in invalid.errors())


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    refused: list[Refusal]  # values left out, each naming its setting
    unusable: str = ""  # why nothing of the file could be used (defaults are in use)

    def problem(self, path: Path) -> str | None:
        """What a person must hear at start (a notice), or None."""
        if self.unusable:
            return f"{path} {self.unusable}. Running on defaults; fix or delete the file."
        if not self.refused:
            return None
        refused = "; ".join(refusal.explain() for refusal in self.refused)
        return (
            f"{path}: {len(self.refused)} value(s) refused, the rest of the settings are in use. "
            f"{refused}. Fix them in the settings (the file is left as it is)."
        )


def read_settings(path: Path) -> LoadedSettings:
    """The settings in `path`: a refused value is left out (its default applies) and named,
    the rest is used; the file itself is never changed here."""
    if not path.exists():
        return LoadedSettings(Settings(), [])
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as broken:
        return LoadedSettings(Settings(), [], f"is not valid TOML ({broken})")
    refused = drop_refused_strings(raw, refuse_url_credentials)
    settings, invalid = validate_keeping_the_rest(raw, Settings.model_validate)
    if settings is None:
        problems = "; ".join(refusal.explain() for refusal in [*refused, *invalid])
        return LoadedSettings(Settings(), [*refused, *invalid], f"has invalid values: {problems}")
    return LoadedSettings(settings, [*refused, *invalid])


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """Settings from `path` and, if some or all of it could not be used, why."""
    loaded = read_settings(path)
    return loaded.settings, loaded.problem(path)


def save_settings(settings: Settings, path: Path) -> None:
    """Write atomically, so a crash mid-write leaves the previous file intact."""
    refuse_secrets(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".toml.part")
    partial.write_text(tomli_w.dumps(settings.model_dump(mode="json")), encoding="utf-8")
    os.replace(partial, path)
