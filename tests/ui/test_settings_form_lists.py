"""The generated settings form leaves a plugin's list of models alone (issue 13, defect 8: the
printer profiles): it shows how many there are and where they are edited, opens the plugin's
own editor through a reference when the field names one, and OK keeps what that editor saved."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel, Field
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.core.plugins import Plugin
from workbench.ui.settings_dialog import SettingsDialog
from workbench.ui.settings_form import ModelForm

EDITOR = "tests.ui.test_settings_form_lists:open_gadget_editor"


class Gadget(BaseModel):
    name: str
    size: int = 1


class GadgetSettings(BaseModel):
    title: str = "gadgets"
    gadgets: list[Gadget] = Field(
        default_factory=list,
        description="The gadgets",
        json_schema_extra={"edited_in": "the Gadgets dialog", "editor": EDITOR},
    )
    spares: list[Gadget] = Field(default_factory=list)  # no editor named


def open_gadget_editor(context: AppContext, parent: QWidget | None) -> QDialog:
    """The plugin's own editor, as a plugin would provide it: it saves one more gadget."""
    section = dict(context.settings.plugins.get("gadgets", {}))
    section["gadgets"] = [*section.get("gadgets", []), {"name": "added", "size": 3}]
    context.settings = context.settings.with_plugin("gadgets", GadgetSettings(**section))
    context.save_settings()
    dialog = QDialog(parent)
    dialog.setObjectName("gadget-editor")
    dialog.open()
    return dialog


@pytest.fixture
def dialog(qtbot: QtBot, context: AppContext) -> Iterator[SettingsDialog]:
    context.plugins.plugins["gadgets"] = Plugin(
        name="gadgets", title="Gadgets", settings=GadgetSettings
    )
    two = GadgetSettings(gadgets=[Gadget(name="a"), Gadget(name="b", size=2)])
    context.settings = context.settings.with_plugin("gadgets", two)
    settings = SettingsDialog(context)
    qtbot.addWidget(settings)
    settings.show()
    yield settings


def kept_text(dialog: SettingsDialog, path: str) -> str:
    label = dialog.findChild(QLabel, f"kept:{path}")
    assert label is not None, f"no summary line for {path}"
    return label.text()


def test_a_list_of_models_is_a_count_not_a_json_field(dialog: SettingsDialog) -> None:
    assert dialog.findChild(QLineEdit, "setting:plugins.gadgets.gadgets") is None
    assert kept_text(dialog, "plugins.gadgets.gadgets") == (
        "2 configured — edit them in the Gadgets dialog"
    )
    assert kept_text(dialog, "plugins.gadgets.spares") == (
        "none configured (not editable in this form)"
    )
    assert dialog.findChild(QPushButton, "edit:plugins.gadgets.spares") is None


def test_the_editor_opens_by_reference_and_ok_keeps_what_it_saved(
    qtbot: QtBot, dialog: SettingsDialog
) -> None:
    button = dialog.findChild(QPushButton, "edit:plugins.gadgets.gadgets")
    assert button is not None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    editor = dialog.findChild(QDialog, "gadget-editor")
    assert editor is not None and editor.isVisible()
    editor.accept()
    assert kept_text(dialog, "plugins.gadgets.gadgets").startswith("3 configured")

    title = dialog.findChild(QLineEdit, "setting:plugins.gadgets.title")
    assert title is not None
    title.setText("my gadgets")
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    reopened = AppContext.open()
    try:
        saved = reopened.settings.plugins["gadgets"]
    finally:
        reopened.close()
    assert saved["title"] == "my gadgets"
    assert [g["name"] for g in saved["gadgets"]] == ["a", "b", "added"]


def test_an_editor_that_cannot_open_is_said_not_raised(dialog: SettingsDialog) -> None:
    assert dialog.open_editor("gadgets", "tests.ui.no_such_module:editor") is None
    assert "Cannot open that editor" in dialog.summary.text() and dialog.summary.isVisible()


def test_the_form_passes_the_list_through(qtbot: QtBot) -> None:
    values = GadgetSettings(gadgets=[Gadget(name="a", size=5)])
    form = ModelForm(GadgetSettings, values)
    qtbot.addWidget(form)
    assert GadgetSettings.model_validate(form.values()) == values
