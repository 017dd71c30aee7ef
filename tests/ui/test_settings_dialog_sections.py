"""The settings dialog as a person meets it (issue 29): a section per plugin picked from a list,
human labels ("SSH hosts", "Base URL", not the raw "Ssh hosts", "Base url"), and compact: it fits
a 1024x700 screen and no section is a long scroll. An error turns to the section of its field.
Pictures of two sections go to $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under
first-encounters/."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox, QLabel, QLineEdit, QScrollArea
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.settings_dialog import SettingsDialog
from workbench.ui.settings_form import human_label

SCREEN_W, SCREEN_H = 1024, 700
LONGEST_SECTION_PX = 560  # the tallest section's content; was one 1,600 px scroll


def label_texts(dialog: SettingsDialog) -> set[str]:
    return {label.text() for label in dialog.findChildren(QLabel)}


def test_sections_per_plugin_with_human_labels_fit_a_small_screen(
    qtbot: QtBot, context: AppContext
) -> None:
    dialog = SettingsDialog(context)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.width() <= SCREEN_W - 40 and dialog.height() <= SCREEN_H - 60

    titles = [dialog.sections.item(i).text() for i in range(dialog.sections.count())]
    with_settings = [plugin.title for plugin in context.plugins if plugin.settings is not None]
    assert titles == ["General", *with_settings] and len(with_settings) >= 3

    texts = label_texts(dialog)
    assert {"SSH hosts", "Base URL"} <= texts, sorted(texts)
    assert not {"Ssh hosts", "Base url"} & texts
    assert not any(text.startswith("Saved to") for text in texts)  # nothing saved yet

    folder = artifact_folder("first-encounters")
    tallest = ("", 0)
    for row, title in enumerate(titles):
        dialog.sections.setCurrentRow(row)
        page = dialog.pages.currentWidget()
        assert isinstance(page, QScrollArea)
        height = page.widget().sizeHint().height()
        tallest = max(tallest, (title, height), key=lambda item: item[1])
        if title in ("General", "HPC"):
            qtbot.wait(20)
            assert dialog.grab().save(str(folder / f"settings-{title.lower()}.png"))
    assert tallest[1] <= LONGEST_SECTION_PX, tallest

    # an error on a plugin's field turns to that plugin's section
    model = dialog.findChild(QLineEdit, "setting:ollama.context_size")
    assert model is not None
    dialog.sections.setCurrentRow(len(titles) - 1)
    model.setText("not a number")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dialog.sections.currentRow() == 0 and dialog.isVisible()


def test_human_labels() -> None:
    assert human_label("ssh_hosts") == "SSH hosts"
    assert human_label("base_url") == "Base URL"
    assert human_label("poll_seconds") == "Poll seconds"
    assert human_label("api_key") == "API key"
