"""The Printers dialog: add, edit and remove printer profiles, store their keys, test them.

Profiles are saved to [plugins.printing] `printers` through the app's settings (nothing is saved
while any field is wrong; every message sits under its field). A PrusaLink API key or digest
password goes to the system keyring under the profile's entry, which the dialog names, and never
into settings. Without a usable keyring the dialog says so in one sentence (the advice on an
encrypted file keyring in its tooltip) and offers the way that works there: typed keys kept for
this session only, in memory, written nowhere; the rest is saved as usual. "Test connection"
runs the doctor's own check of that printer on a worker thread.
"""

from __future__ import annotations

import asyncio
from html import escape

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.doctor import CheckResult
from workbench.core.secrets import (
    SERVICE,
    SecretUnavailable,
    keep_for_session,
    keyring_advice,
    keyring_status,
    set_secret,
)
from workbench.core.settings import SettingsError
from workbench.ui.async_loop import start_task
from workbench.ui.settings_form import ERROR_STYLE
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.doctor_checks import check_prusalink, check_serial
from workbench_plugins.printing.views.printer_drafts import (
    PrinterDraft,
    describe_check,
    settings_with,
    validate_draft,
    validate_drafts,
)
from workbench_plugins.printing.views.printer_editor import NOTE_STYLE, PrinterEditor, note_label

ORIGINS = {"prusalink_url": "from prusalink_url", "printers": "from Settings: Printers"}


class PrinterSettingsDialog(QDialog):
    """`saved` fires whenever the profiles were written to the settings file."""

    saved = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("printer-settings")
        self.setWindowTitle("Printers")
        self.resize(820, 560)
        self.context = context
        self.drafts: list[PrinterDraft] = []
        self.current = -1
        self.tests_running = 0

        self.keyring = note_label(style=NOTE_STYLE)
        self.keyring.setObjectName("keyring-status")
        self.session_keys = QCheckBox(
            "Keep typed keys for this session only (in memory, written nowhere)"
        )
        self.session_keys.setObjectName("printer-session-keys")
        self.session_keys.hide()
        self.summary = note_label(style=ERROR_STYLE)
        self.summary.setObjectName("printer-errors")
        self.summary.hide()
        self.status = note_label(style=NOTE_STYLE)
        self.status.setObjectName("printer-status")
        self.printers = QListWidget()
        self.printers.setObjectName("printer-list")
        self.printers.currentRowChanged.connect(self.select)
        self.add_button = QPushButton("Add")
        self.add_button.clicked.connect(self.add_printer)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_printer)
        self.editor = PrinterEditor()
        self.editor.edited.connect(self._relabel)
        self.editor.test_button.clicked.connect(self.test_connection)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self._lay_out()
        self._show_keyring()
        self._load_profiles()

    def _lay_out(self) -> None:
        side = QVBoxLayout()
        side.addWidget(self.printers, 1)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        side.addLayout(row)
        body = QHBoxLayout()
        body.addLayout(side, 2)
        body.addWidget(self.editor, 5)
        layout = QVBoxLayout(self)
        layout.addWidget(self.keyring)
        layout.addWidget(self.session_keys)
        layout.addWidget(self.summary)
        layout.addLayout(body, 1)
        layout.addWidget(self.status)
        where = QLabel(f"Save writes the printers to {self.context.paths.settings_file}")
        where.setObjectName("printer-settings-file")
        layout.addWidget(where)
        layout.addWidget(self.buttons)

    def _show_keyring(self) -> None:
        state = keyring_status()
        if state.kind == "none":
            # one sentence and the way on that works here; what to install is in the tooltip
            self.keyring.setText(
                "No system keyring on this computer, so keys cannot be stored: "
                "use them for this session only, or set up an encrypted file keyring."
            )
            self.keyring.setToolTip(f"{state.detail}. {keyring_advice()}")
            self.session_keys.setChecked(True)
            self.session_keys.show()
        elif state.kind == "plaintext":
            self.keyring.setText(
                f"<b>{escape(f'Keys are stored unencrypted: {state.detail}.')}</b>"
            )
            self.keyring.setToolTip(keyring_advice())
        else:
            self.keyring.hide()
            return
        self.keyring.show()

    def _keep(self, entry: str, secret: str) -> None:
        """Store a key in the keyring, or (when chosen) for this session only."""
        if self.session_keys.isVisible() and self.session_keys.isChecked():
            keep_for_session(entry, secret)
        else:
            set_secret(entry, secret)

    def _load_profiles(self) -> None:
        settings = self.context.settings
        try:
            printing = settings.plugin("printing", PrintingSettings)
        except SettingsError as invalid:
            # show what the file holds, field by field, so it can be fixed here
            self._say_errors(f"{invalid} Printers that are wrong show their problem below.")
            raw = settings.plugins.get("printing", {}).get("printers", [])
            self.drafts = [PrinterDraft.from_raw(item) for item in raw if isinstance(item, dict)]
            for draft in self.drafts:
                draft.errors = validate_draft(draft)[1]
            self._refill(0)
            return
        own = {profile.address for profile in printing.printers}
        bare = set(settings.printers)
        for profile in printing.profiles(settings.printers):
            origin = "" if profile.address in own else _origin(profile, bare)
            self.drafts.append(PrinterDraft.from_profile(profile, origin))
        self._refill(0)

    # -- the list -------------------------------------------------------------------------------
    def _refill(self, selected: int) -> None:
        self.printers.blockSignals(True)
        self.printers.clear()
        for draft in self.drafts:
            self.printers.addItem(draft.label)
            self.printers.item(self.printers.count() - 1).setToolTip(draft.values["address"])
        self.printers.blockSignals(False)
        self.current = -1
        self.printers.setCurrentRow(min(selected, len(self.drafts) - 1))
        if not self.drafts:
            self.select(-1)

    def select(self, row: int) -> None:
        if 0 <= self.current < len(self.drafts):
            self.editor.store(self.drafts[self.current])
        self.current = row
        has_one = 0 <= row < len(self.drafts)
        self.editor.setEnabled(has_one)
        self.remove_button.setEnabled(has_one)
        self.editor.load(self.drafts[row] if has_one else PrinterDraft.blank())

    def _relabel(self) -> None:
        if 0 <= self.current < len(self.drafts):
            draft = self.drafts[self.current]
            self.editor.store(draft)
            item = self.printers.item(self.current)
            if item is not None:
                item.setText(draft.label)

    def add_printer(self) -> None:
        self.drafts.append(PrinterDraft.blank())
        self._refill(len(self.drafts) - 1)
        self.editor.name.setFocus()

    def remove_printer(self) -> None:
        if not 0 <= self.current < len(self.drafts):
            return
        self.editor.store(self.drafts[self.current])
        draft = self.drafts[self.current]
        if draft.origin:
            where = (
                "the Settings dialog's Printers list"
                if "Settings" in draft.origin
                else ("prusalink_url in the Settings dialog")
            )
            self.status.setText(
                f"{draft.values['address']} is configured in {where}: remove it there."
            )
            return
        profile, _ = validate_draft(draft)
        removed = self.current
        del self.drafts[removed]
        self.current = -1
        self._refill(min(removed, len(self.drafts) - 1))
        left = ""
        if profile is not None and profile.transport == "prusalink":
            entry = profile.secret_key
            left = (
                f" Its key stays in the keyring (service '{SERVICE}', entry '{entry}'); "
                f"`keyring del {SERVICE} '{entry}'` removes it."
            )
        self.status.setText(f"Removed {draft.label} (on Save).{left}")

    # -- saving ---------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the profiles (all valid, or nothing), then store the typed keys."""
        if 0 <= self.current < len(self.drafts):
            self.editor.store(self.drafts[self.current])
        profiles, problems = validate_drafts(self.drafts)
        for draft in self.drafts:
            draft.errors = {}
        for index, field, message in problems:
            self.drafts[index].errors.setdefault(field, message)
        if problems:
            self._show_problems(problems)
            return
        kept = [
            (d, p) for d, p in zip(self.drafts, profiles, strict=True) if d.kept and p is not None
        ]
        previous = self.context.settings
        try:
            self.context.settings = settings_with(previous, [profile for _, profile in kept])
            self.context.save_settings()
        except (OSError, SettingsError) as failure:
            self.context.settings = previous
            self._say_errors(f"Nothing was saved: {failure}")
            return
        self.saved.emit()
        if self._store_secrets(kept):
            self.accept()

    def _show_problems(self, problems: list[tuple[int, str, str]]) -> None:
        first = problems[0][0]
        lines = [f"Not saved. Fix {len(problems)} field(s):"]
        lines += [
            f"• {self.drafts[index].label}: {field or 'printer'}: {message}"
            for index, field, message in problems
        ]
        self._say_errors("\n".join(lines))
        self.current = -1  # the drafts already hold what was typed
        self.printers.setCurrentRow(first)
        self.select(first)

    def _say_errors(self, text: str) -> None:
        self.summary.setText(text)
        self.summary.setVisible(bool(text))

    def _store_secrets(self, kept: list[tuple[PrinterDraft, PrinterProfile]]) -> bool:
        """Store each typed key in the keyring; False (and a message under it) if one failed."""
        stored, failed = [], []
        for draft, profile in kept:
            if not draft.secret or profile.transport != "prusalink":
                continue
            try:
                self._keep(profile.secret_key, draft.secret)
            except SecretUnavailable as error:
                draft.errors["secret"] = str(error)
                failed.append(draft.label)
                continue
            draft.secret = ""
            stored.append(profile.secret_key)
        if self.current >= 0:
            self.editor.load(self.drafts[self.current])
        if failed:
            self._say_errors(
                f"The printers were saved, but the key of {', '.join(failed)} was not stored: "
                "see the message under its field. It is still typed in; Save again after fixing "
                "the keyring, or Cancel to leave it."
            )
        if stored and self.session_keys.isVisible() and self.session_keys.isChecked():
            self.status.setText(f"Kept for this session only: {', '.join(stored)}")
        elif stored:
            self.status.setText(f"Stored in the keyring (service '{SERVICE}'): {', '.join(stored)}")
        return not failed

    # -- testing the connection ----------------------------------------------------------------
    def test_connection(self) -> None:
        """Run the doctor's check of the printer as typed, on a worker thread."""
        if not 0 <= self.current < len(self.drafts):
            return
        draft = self.drafts[self.current]
        self.editor.store(draft)
        profile, draft.errors = validate_draft(draft)
        self.editor.show_errors(draft.errors)
        if profile is None:
            return
        if draft.secret and profile.transport == "prusalink":
            try:  # the check reads the key from the keyring (or the session), as printing will
                self._keep(profile.secret_key, draft.secret)
            except SecretUnavailable as error:
                draft.errors["secret"] = str(error)
                self.editor.show_errors(draft.errors)
                return
            draft.secret = ""
            self.editor.secret.clear()
            self.editor.show_secret_state()
        draft.test_result, draft.test_level = f"Testing {profile.address}…", ""
        self.editor.show_test(draft)
        self.editor.test_button.setEnabled(False)
        self.tests_running += 1
        start_task(self._run_check(draft, profile), name="printer-settings-test")

    async def _run_check(self, draft: PrinterDraft, profile: PrinterProfile) -> None:
        check = check_prusalink if profile.transport == "prusalink" else check_serial
        try:
            result = await asyncio.to_thread(check, profile)
        except Exception as error:  # the check itself broke: still an answer in words
            result = CheckResult(f"printer {profile.name}", "fail", f"the test broke: {error}")
        self.tests_running -= 1
        if not shiboken6.isValid(self):
            return  # the dialog was closed meanwhile
        draft.test_result, draft.test_level = describe_check(result), result.level
        self.editor.test_button.setEnabled(True)
        if 0 <= self.current < len(self.drafts) and self.drafts[self.current] is draft:
            self.editor.show_test(draft)


def _origin(profile: PrinterProfile, bare: set[str]) -> str:
    return ORIGINS["printers"] if profile.address in bare else ORIGINS["prusalink_url"]


def open_printer_settings(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """Open the Printers dialog (window-modal, without blocking) and return it."""
    dialog = PrinterSettingsDialog(context, parent)
    dialog.open()
    return dialog
