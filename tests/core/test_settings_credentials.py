"""A password inside a URL (`user:password@`) never reaches settings.toml, nor any message.

Refused when the file is loaded, when settings are assigned or saved, and in plugin sections such
as the PrusaLink URL; the message names the keyring service and entry where it belongs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from workbench.core.settings import Settings, SettingsError, load_settings, save_settings
from workbench_plugins.printing.config import PrintingSettings

PASSWORD = "hunter2-planted"


def test_loading_a_url_with_a_password_is_refused_and_names_the_keyring(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    text = f'printers = ["http://maker:{PASSWORD}@192.168.1.20/"]\n'
    path.write_text(text)
    settings, problem = load_settings(path)
    assert settings == Settings()  # running on defaults: doctor never sees the URL
    assert problem is not None and "printers" in problem
    assert "service 'workbench'" in problem and "'prusalink:http://192.168.1.20:api_key'" in problem
    assert PASSWORD not in problem
    assert path.read_text() == text  # the user's file is left as it was


def test_saving_a_url_with_a_password_writes_nothing(tmp_path: Path) -> None:
    settings = Settings()
    settings.printers.append(f"https://maker:{PASSWORD}@printer.local")  # bypasses validation
    path = tmp_path / "settings.toml"
    with pytest.raises(SettingsError, match="keyring") as refused:
        save_settings(settings, path)
    assert PASSWORD not in str(refused.value)
    assert not path.exists()


@pytest.mark.parametrize(
    ("field", "value", "entry"),
    [
        ("ssh_hosts", [f"alice:{PASSWORD}@cluster:22"], "ssh:alice@cluster:22:password"),
        ("model", f"openai:gpt-4o@http://u:{PASSWORD}@127.0.0.1:8000/v1", "openai:api_key"),
    ],
)
def test_assigning_a_password_is_refused(field: str, value: object, entry: str) -> None:
    settings = Settings()
    with pytest.raises(ValidationError) as refused:
        setattr(settings, field, value)
    assert f"entry '{entry}'" in str(refused.value) and PASSWORD not in str(refused.value)


def test_prusalink_url_with_a_password_names_its_keyring_entry() -> None:
    with pytest.raises(ValidationError) as refused:
        PrintingSettings(
            prusalink_url=f"http://maker:{PASSWORD}@mk4.local", prusalink_auth="digest"
        )
    message = str(refused.value)
    assert "'prusalink:http://mk4.local:password'" in message and PASSWORD not in message
    # a section that skipped validation is still caught on its way into the settings
    sneaked = PrintingSettings.model_construct(prusalink_url=f"http://maker:{PASSWORD}@mk4.local")
    with pytest.raises(SettingsError):
        Settings().with_plugin("printing", sneaked)


def test_a_printer_profile_url_with_a_password_names_its_own_keyring_entry() -> None:
    """Each printer has its auth mode, so the entry named is that printer's (issue 13)."""
    with pytest.raises(ValidationError) as refused:
        PrintingSettings.model_validate(
            {
                "printers": [
                    {"name": "mk3", "address": "http://192.168.1.20"},
                    {
                        "name": "mk4",
                        "address": f"http://maker:{PASSWORD}@mk4.local/",
                        "auth": "digest",
                    },
                ]
            }
        )
    message = str(refused.value)
    assert "service 'workbench'" in message and "'prusalink:http://mk4.local:password'" in message
    assert PASSWORD not in message


def test_user_names_and_ordinary_values_are_accepted(tmp_path: Path) -> None:
    settings = Settings(
        model="openai:gpt-4o@http://127.0.0.1:8000/v1",
        ssh_hosts=["alice@cluster:22"],
        printers=["/dev/ttyACM0", "http://maker@192.168.1.20"],
        plugins={"printing": {"prusalink_url": "http://192.168.1.20"}},
    )
    save_settings(settings, tmp_path / "settings.toml")
    assert load_settings(tmp_path / "settings.toml") == (settings, None)


def test_a_password_inside_a_list_of_models_is_refused() -> None:
    """Models built without validation (model_construct): a plugin's list of servers."""
    from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings

    server = McpServer.model_construct(name="lab", url=f"http://lab:{PASSWORD}@10.0.0.5/mcp")
    servers = McpServersSettings.model_construct(servers=[server])
    with pytest.raises(SettingsError, match="keyring") as refused:
        Settings().with_plugin("mcp_servers", servers)
    message = str(refused.value)  # the server by its name, and the entry its token is read from
    assert "servers[lab].url" in message and "entry 'mcp-server-lab'" in message
    assert PASSWORD not in message
