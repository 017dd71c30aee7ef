"""The Models dialog: a profile added with its key is saved (the key to the keyring under the
profile's entry, never to the file), a key entry shared by two servers is refused, and the
connection test asks the profile's own server with its own key, off the GUI thread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.agents.test_model_profiles_keys import RecordingServer
from workbench.core import secrets
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.model_profiles_dialog import ModelProfilesDialog
from workbench.ui.settings_dialog import SettingsDialog


@pytest.fixture
def dialog(context: AppContext, qtbot: QtBot) -> Iterator[ModelProfilesDialog]:
    shown = ModelProfilesDialog(context)
    qtbot.addWidget(shown)
    shown.show()
    yield shown
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=20000)


def fill(dialog: ModelProfilesDialog, name: str, url: str, key: str = "") -> None:
    dialog.add_profile()
    dialog.fields["name"].setText(name)
    dialog.kind.setCurrentText("openai-compatible")
    dialog.fields["model"].setText("qwen")
    dialog.fields["base_url"].setText(url)
    dialog.key.setText(key)


def test_a_profile_is_saved_with_its_key_in_the_keyring(
    dialog: ModelProfilesDialog, context: AppContext
) -> None:
    fill(dialog, "lab", "http://127.0.0.1:9/v1", key="sk-lab-secret")
    dialog.fields["seed"].setText("5")
    dialog.save()
    [lab] = context.settings.model_profiles
    assert (lab.name, lab.base_url, lab.seed, lab.temperature) == (
        "lab",
        "http://127.0.0.1:9/v1",
        5,
        0.0,
    )
    assert secrets.get_secret("model:lab:api_key") == "sk-lab-secret"
    assert "sk-lab-secret" not in context.paths.settings_file.read_text(encoding="utf-8")


def test_a_key_entry_shared_by_two_servers_is_not_saved(
    dialog: ModelProfilesDialog, context: AppContext
) -> None:
    fill(dialog, "lab", "http://127.0.0.1:9/v1")
    fill(dialog, "other", "http://127.0.0.1:10/v1")
    dialog.fields["key_entry"].setText("model:lab:api_key")
    dialog.save()
    assert "a key goes to one server only" in dialog.errors.text()
    assert context.settings.model_profiles == []


def test_the_connection_test_asks_the_profiles_own_server_off_the_gui_thread(
    dialog: ModelProfilesDialog, qtbot: QtBot
) -> None:
    with RecordingServer() as server:
        fill(dialog, "lab", f"{server.url}/v1", key="sk-typed")
        dialog.test_connection()
        assert not dialog.test_button.isEnabled()  # under way; the GUI thread goes on
        qtbot.waitUntil(lambda: dialog.test_button.isEnabled(), timeout=20000)
    assert dialog.test_result.text().startswith("Works:"), dialog.test_result.text()
    assert server.keys == ["Bearer sk-typed"]


def test_the_settings_dialog_opens_the_models_dialog(context: AppContext, qtbot: QtBot) -> None:
    settings = SettingsDialog(context)
    qtbot.addWidget(settings)
    settings.show()
    button, _editor = settings.core_form.editor_buttons["model_profiles"]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    opened = settings.findChild(ModelProfilesDialog)
    assert opened is not None and opened.isVisible()
    fill(opened, "lab", "http://127.0.0.1:9/v1")
    opened.save()  # the count in the settings form follows, and OK keeps the new profile
    assert "1 configured" in settings.core_form.kept_labels["model_profiles"].text()
    settings.accept()
    assert [p.name for p in context.settings.model_profiles] == ["lab"]
