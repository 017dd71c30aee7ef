"""Settings and the store survive a restart; secrets never reach a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, SecretStr

from workbench.core import secrets
from workbench.core.context import AppContext
from workbench.core.paths import app_paths
from workbench.core.settings import Settings, SettingsError, load_settings, save_settings

PLANTED = "sk-planted-7f3a9c1e5b2d4680"


def test_paths_follow_workbench_home(workbench_home: Path) -> None:
    paths = app_paths()
    assert paths.config_dir == workbench_home.resolve() / "config"
    assert paths.data_dir.is_relative_to(workbench_home.resolve())
    assert paths.cache_dir.is_relative_to(workbench_home.resolve())


def test_settings_and_store_survive_restart(sample_plugins) -> None:
    from wb_sample_plugin import SampleSettings

    first = AppContext.open()
    first.settings.model = "ollama:llama3.2:3b"
    first.settings.ssh_hosts = ["alice@cluster:22"]
    first.settings = first.settings.with_plugin("sample", SampleSettings(greeting="moin", repeat=3))
    first.save_settings()
    call = first.registry.call("sample_add", {"a": 1, "b": 2}, caller="test")
    first.close()

    second = AppContext.open()
    try:
        assert second.settings.model == "ollama:llama3.2:3b"
        assert second.settings.ssh_hosts == ["alice@cluster:22"]
        assert second.settings.plugin("sample", SampleSettings).repeat == 3
        [record] = second.store.tool_calls("sample_add")
        assert record["id"] == call.call_id and record["result"] == {"total": 3.0}
    finally:
        second.close()


def test_broken_settings_file_is_reported_and_kept(workbench_home: Path) -> None:
    path = app_paths().settings_file
    path.parent.mkdir(parents=True)
    path.write_text("model = [unclosed\n")
    settings, problem = load_settings(path)
    assert settings == Settings()
    assert problem is not None and "not valid TOML" in problem and "line 1" in problem
    assert path.read_text() == "model = [unclosed\n"  # the user's file is not lost
    path.write_text("ollama = { context_size = 10 }\n")
    _, problem = load_settings(path)
    assert problem is not None and "ollama.context_size" in problem


def test_settings_refuse_to_hold_a_secret(tmp_path: Path) -> None:
    class Leaky(BaseModel):
        api_key: SecretStr = SecretStr(PLANTED)

    with pytest.raises(SettingsError, match="keyring"):
        Settings().with_plugin("leaky", Leaky())
    save_settings(Settings(), tmp_path / "s.toml")  # an ordinary save works


def test_no_secret_in_any_file(sample_plugins, memory_keyring, workbench_home: Path) -> None:
    app = AppContext.open()
    secrets.set_secret("openai:api_key", PLANTED)
    assert secrets.get_secret("openai:api_key") == PLANTED
    assert memory_keyring.secrets[("workbench", "openai:api_key")] == PLANTED
    app.settings.model = "openai:gpt-4o@http://127.0.0.1:8000/v1"
    app.save_settings()
    app.registry.call("sample_add", {"a": 1, "b": 1}, caller="test")
    app.registry.call("sample_write_note", {"text": "a note"}, caller="test")
    app.close()
    files = [p for p in workbench_home.rglob("*") if p.is_file()]
    assert any(p.name == "settings.toml" for p in files)
    assert any(p.suffix == ".sqlite" for p in files)
    leaks = [p for p in files if PLANTED.encode() in p.read_bytes()]
    assert leaks == []
    # and the search itself can find a planted value (the check is not blind)
    (workbench_home / "config" / "probe.txt").write_text(PLANTED)
    assert any(PLANTED.encode() in p.read_bytes() for p in workbench_home.rglob("probe.txt"))
