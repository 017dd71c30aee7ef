"""The Models dialog: add, edit and remove model profiles, store each one's key, test them.

Profiles are saved to `model_profiles` in the settings (all valid, or nothing); a typed key goes
to the keyring under the profile's own entry, which the dialog names, and never into settings.
"Test connection" asks the profile's server for its models on a worker thread
(`model_profile_check`): the GUI thread never waits.
"""

from __future__ import annotations

import asyncio
from typing import Any

import shiboken6
from pydantic import ValidationError
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.secrets import SecretUnavailable, set_secret
from workbench.core.settings import Settings, SettingsError
from workbench.core.settings_models import ModelKind, ModelProfile
from workbench.ui.async_loop import start_task
from workbench.ui.model_profile_check import check_profile
from workbench.ui.settings_form import ERROR_STYLE

KINDS: tuple[ModelKind, ...] = ("ollama", "openai-compatible", "llamacpp", "embedded", "scripted")
TEXT_FIELDS = ("name", "model", "base_url", "key_entry", "temperature", "seed", "context_length")


class ModelProfilesDialog(QDialog):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("model-profiles")
        self.setWindowTitle("Model profiles")
        self.resize(720, 460)
        self.context = context
        self.drafts: list[dict[str, Any]] = [
            p.model_dump(mode="json") for p in context.settings.model_profiles
        ]
        self.keys: dict[int, str] = {}  # draft index -> key typed, stored on Save
        self.current = -1
        self.profiles = QListWidget()
        self.profiles.setObjectName("model-profile-list")
        self.kind = QComboBox()
        self.kind.addItems(KINDS)
        self.fields = {name: QLineEdit() for name in TEXT_FIELDS}
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.test_button = QPushButton("Test connection")
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.errors = QLabel()
        self.errors.setStyleSheet(ERROR_STYLE)
        self.errors.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self._lay_out()
        self.profiles.currentRowChanged.connect(self.select)
        self.test_button.clicked.connect(self.test_connection)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self._refill(0)

    def _lay_out(self) -> None:
        add, remove = QPushButton("Add"), QPushButton("Remove")
        add.clicked.connect(self.add_profile)
        remove.clicked.connect(self.remove_profile)
        side = QVBoxLayout()
        side.addWidget(self.profiles, 1)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        side.addLayout(row)
        form = QFormLayout()
        form.addRow("Name", self.fields["name"])
        form.addRow("Kind", self.kind)
        for name in TEXT_FIELDS[1:]:
            self.fields[name].setObjectName(f"profile:{name}")
            form.addRow(name.replace("_", " ").capitalize(), self.fields[name])
        form.addRow("API key", self.key)
        form.addRow(self.test_button, self.test_result)
        self.fields["name"].setObjectName("profile:name")
        self.fields["base_url"].setPlaceholderText("empty: the Ollama settings' / the OpenAI API")
        self.fields["key_entry"].setPlaceholderText("empty: model:<name>:api_key")
        self.fields["seed"].setToolTip("-1: no fixed seed (a different answer each time)")
        self.key.setPlaceholderText("typed here, stored in the keyring on Save")
        body = QHBoxLayout()
        body.addLayout(side, 2)
        body.addLayout(form, 5)
        layout = QVBoxLayout(self)
        layout.addWidget(self.errors)
        layout.addLayout(body, 1)
        layout.addWidget(self.buttons)

    # -- the list ---------------------------------------------------------------------------
    def _refill(self, selected: int) -> None:
        self.profiles.blockSignals(True)
        self.profiles.clear()
        self.profiles.addItems([str(d.get("name") or "(unnamed)") for d in self.drafts])
        self.profiles.blockSignals(False)
        self.current = -1
        self.select(min(selected, len(self.drafts) - 1))
        self.profiles.setCurrentRow(self.current)

    def select(self, row: int) -> None:
        self._store()
        self.current = row
        blank = ModelProfile(name="").model_dump()
        draft = self.drafts[row] if 0 <= row < len(self.drafts) else blank
        self.kind.setCurrentText(str(draft.get("kind") or "ollama"))
        for name, edit in self.fields.items():
            value = draft.get(name)
            edit.setText("" if value is None else str(value))
        self.key.setText(self.keys.get(row, ""))
        self.test_result.clear()

    def _store(self) -> None:
        """Keep what the form holds in the current draft (as typed; validated on Save)."""
        if not 0 <= self.current < len(self.drafts):
            return
        draft = self.drafts[self.current]
        draft["kind"] = self.kind.currentText()
        for name, edit in self.fields.items():
            text = edit.text().strip()
            draft[name] = text
        if self.key.text():
            self.keys[self.current] = self.key.text()

    def add_profile(self) -> None:
        self._store()
        self.drafts.append(ModelProfile(name=f"model-{len(self.drafts) + 1}").model_dump())
        self._refill(len(self.drafts) - 1)

    def remove_profile(self) -> None:
        if 0 <= self.current < len(self.drafts):
            removed = self.current
            self.current = -1
            del self.drafts[removed]
            self.keys = {i - (i > removed): k for i, k in self.keys.items() if i != removed}
            self._refill(removed)

    # -- saving and testing ---------------------------------------------------------------
    def validated(self) -> Settings | None:
        """The settings with these profiles, or None and the problems shown."""
        self._store()
        raw = self.context.settings.model_dump(mode="json")
        try:
            settings = Settings.model_validate({**raw, "model_profiles": self.drafts})
        except ValidationError as invalid:
            problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in invalid.errors()]
            self.errors.setText("Not saved:\n" + "\n".join(problems))
            return None
        self.errors.clear()
        return settings

    def save(self) -> None:
        settings = self.validated()
        if settings is None:
            return
        previous = self.context.settings
        try:
            self.context.settings = settings
            self.context.save_settings()
            for index, key in self.keys.items():
                entry = settings.model_profiles[index].key_name
                if entry:  # only the kinds that talk to a server have one
                    set_secret(entry, key)
        except (OSError, SettingsError, SecretUnavailable) as failure:
            self.context.settings = previous
            self.errors.setText(f"Not saved: {failure}")
            return
        self.accept()

    def test_connection(self) -> None:
        settings = self.validated()
        if settings is None or not 0 <= self.current < len(self.drafts):
            return
        name = str(self.drafts[self.current]["name"])
        self.test_result.setText(f"Testing {name}…")
        self.test_button.setEnabled(False)
        start_task(self._run_check(name, settings, self.keys.get(self.current, "")))

    async def _run_check(self, name: str, settings: Settings, key: str) -> None:
        try:
            works, said = await asyncio.to_thread(check_profile, name, settings, key)
        except Exception as error:  # the test itself broke: still an answer in words
            works, said = False, f"the test broke: {error}"
        if not shiboken6.isValid(self):
            return  # the dialog was closed meanwhile
        self.test_button.setEnabled(True)
        self.test_result.setText(("Works: " if works else "Does not work: ") + said)


def open_model_profiles(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """Open the Models dialog (window-modal, without blocking) and return it."""
    dialog = ModelProfilesDialog(context, parent)
    dialog.open()
    return dialog
