"""The settings dialog saves valid values to the TOML file and refuses invalid ones by name."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field, SecretStr
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
)
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui.settings_dialog import SettingsDialog
from workbench.ui.settings_form import ModelForm


class Mode(enum.StrEnum):
    FAST = "fast"
    CAREFUL = "careful"


@pytest.fixture
def dialog(sample_plugins: Path, qtbot: QtBot) -> Iterator[SettingsDialog]:
    context = AppContext.open()
    settings = SettingsDialog(context)
    qtbot.addWidget(settings)
    settings.show()
    yield settings
    context.close()


def editor(dialog: SettingsDialog, path: str) -> QLineEdit:
    found = dialog.findChild(QLineEdit, f"setting:{path}")
    assert found is not None, f"no editor for {path}"
    return found


def press_ok(qtbot: QtBot, dialog: SettingsDialog) -> None:
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def test_ok_saves_to_the_toml_file(dialog: SettingsDialog, qtbot: QtBot) -> None:
    editor(dialog, "model").setText("ollama:llama3.2:3b")
    editor(dialog, "ollama.context_size").setText("16384")
    hosts = dialog.findChild(QPlainTextEdit, "setting:ssh_hosts")
    assert hosts is not None
    hosts.setPlainText("alice@cluster\n\nbob@gpu:2222\n")
    editor(dialog, "plugins.sample.greeting").setText("good morning")
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        press_ok(qtbot, dialog)

    reopened = AppContext.open()
    try:
        settings = reopened.settings
        assert settings.model == "ollama:llama3.2:3b"
        assert settings.ollama.context_size == 16384
        assert settings.ssh_hosts == ["alice@cluster", "bob@gpu:2222"]
        assert settings.plugins["sample"] == {"greeting": "good morning", "repeat": 1}
        assert not any("settings.toml" in notice for notice in reopened.notices)
    finally:
        reopened.close()


def test_an_invalid_value_is_named_and_nothing_is_saved(
    dialog: SettingsDialog, qtbot: QtBot
) -> None:
    settings_file = dialog.context.paths.settings_file
    editor(dialog, "model").setText("ollama:kept-while-invalid")
    editor(dialog, "ollama.context_size").setText("100")
    editor(dialog, "plugins.sample.repeat").setText("lots")
    press_ok(qtbot, dialog)

    assert dialog.isVisible() and dialog.result() == 0  # still open, not accepted
    assert not settings_file.exists()
    summary = dialog.summary.text()
    assert "ollama.context_size" in summary and "plugins.sample.repeat" in summary
    error = dialog.findChild(QLabel, "error:ollama.context_size")
    assert error is not None and error.isVisible()
    assert "greater than or equal to 512" in error.text()
    plugin_error = dialog.findChild(QLabel, "error:plugins.sample.repeat")
    assert plugin_error is not None and "valid integer" in plugin_error.text()
    # what was typed is still there to fix, and the live settings are untouched
    assert editor(dialog, "model").text() == "ollama:kept-while-invalid"
    assert dialog.context.settings.model == "ollama:qwen3:4b"

    editor(dialog, "ollama.context_size").setText("4096")
    editor(dialog, "plugins.sample.repeat").setText("3")
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        press_ok(qtbot, dialog)
    reopened = AppContext.open()
    assert reopened.settings.ollama.context_size == 4096
    assert reopened.settings.plugins["sample"]["repeat"] == 3
    reopened.close()


def test_the_form_covers_the_settings_model(dialog: SettingsDialog) -> None:
    for path in ("workspace", "model", "ollama.base_url", "ollama.model", "printers"):
        assert dialog.findChild(QLineEdit, f"setting:{path}") or dialog.findChild(
            QPlainTextEdit, f"setting:{path}"
        ), path
    assert dialog.findChild(QLineEdit, "setting:plugins") is None  # plugin sections are groups


class Limits(BaseModel):
    speed: float = 1.5
    axis: Literal["x", "y"] = "y"


class Gadget(BaseModel):
    enabled: bool = True
    retries: int | None = None
    mode: Mode = Mode.FAST
    limits: Limits = Field(default_factory=Limits)
    secret: SecretStr = SecretStr("never shown")


def test_model_form_editors_round_trip(qtbot: QtBot) -> None:
    form = ModelForm(Gadget, Gadget(retries=3))
    qtbot.addWidget(form)
    widgets = form.editor_widgets()
    assert isinstance(widgets["enabled"], QCheckBox) and widgets["enabled"].isChecked()
    assert isinstance(widgets["mode"], QComboBox) and widgets["mode"].currentText() == "fast"
    assert isinstance(widgets["limits.axis"], QComboBox)
    assert "secret" not in widgets  # secrets live in the keyring, never in the form
    assert Gadget.model_validate(form.values()) == Gadget(retries=3)

    widgets["enabled"].setChecked(False)
    widgets["retries"].setText("")  # empty optional field means None
    widgets["mode"].setCurrentText("careful")
    widgets["limits.speed"].setText("2.25")
    changed = Gadget.model_validate(form.values())
    assert (changed.enabled, changed.retries, changed.mode) == (False, None, Mode.CAREFUL)
    assert changed.limits.speed == 2.25

    form.show_errors({"limits.speed": "too fast"})
    assert form.all_error_labels()["limits.speed"].text() == "too fast"
