"""Add a cluster host from the queue view: name, address, user, port, key, and a connection test.

Like the Printers… dialog: nothing is saved while a field is wrong (the message says which),
"Test connection" runs the doctor's own check of the host as typed (a real SSH login and
`sinfo --version`) on a worker thread, and Save appends a `[[plugins.hpc.hosts]]` profile to the
settings file. Non-modal (opened with `open()`), so the window stays responsive.
"""

from __future__ import annotations

import asyncio

import shiboken6
from pydantic import ValidationError
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.doctor import CheckResult
from workbench.core.settings import SettingsError
from workbench.ui.async_loop import start_task
from workbench.ui.naming import named
from workbench_plugins.hpc.config import HostProfile, HpcSettings
from workbench_plugins.hpc.doctor_checks import check_host

ERROR_STYLE = "QLabel { color: #a00000; }"


class HostForm(QDialog):
    """`saved` fires with the new host's name once it is in the settings file."""

    saved = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hpc-host-form")
        self.setWindowTitle("Add an SSH host")
        self.setMinimumWidth(520)
        self.context = context
        self.testing = False
        self.name = named(QLineEdit(), "hpc-host-name")
        self.name.setPlaceholderText("what you call it, e.g. cluster (or a ~/.ssh/config Host)")
        self.hostname = named(QLineEdit(), "hpc-host-hostname")
        self.hostname.setPlaceholderText("login.cluster.example.org (empty: the name)")
        self.user = named(QLineEdit(), "hpc-host-user")
        self.user.setPlaceholderText("your login there (empty: ~/.ssh/config, or yours)")
        self.port = named(QSpinBox(), "hpc-host-port")
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("default (22)")
        self.key_file = named(QLineEdit(), "hpc-host-key")
        self.key_file.setPlaceholderText("private key (empty: ssh-agent, ~/.ssh)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_file, 1)
        key_row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Hostname", self.hostname)
        form.addRow("User", self.user)
        form.addRow("Port", self.port)
        form.addRow("Private key", key_row)

        self.test_button = named(QPushButton("Test connection"), "hpc-host-test")
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = named(QLabel(""), "hpc-host-result")
        self.test_result.setWordWrap(True)
        self.errors = named(QLabel(""), "hpc-host-errors")
        self.errors.setWordWrap(True)
        self.errors.setStyleSheet(ERROR_STYLE)
        self.errors.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.test_button)
        column.addWidget(self.test_result)
        column.addWidget(self.errors)
        column.addWidget(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Private key", "~/.ssh")
        if path:
            self.key_file.setText(path)

    def profile(self) -> HostProfile | None:
        """The host as typed, or None with the problem said under the form."""
        try:
            profile = HostProfile(
                name=self.name.text().strip(),
                hostname=self.hostname.text().strip(),
                user=self.user.text().strip(),
                port=self.port.value() or None,
                key_file=self.key_file.text().strip(),
            )
        except ValidationError as invalid:
            problems = [
                f"{'.'.join(str(p) for p in item['loc']) or 'host'}: {item['msg']}"
                for item in invalid.errors(include_url=False)
            ]
            self._say_error("Fix: " + "; ".join(problems))
            return None
        self._say_error("")
        return profile

    def _current(self) -> HpcSettings:
        return self.context.settings.plugin("hpc", HpcSettings)

    def save(self) -> None:
        profile = self.profile()
        if profile is None:
            return
        previous = self.context.settings
        try:
            current = self._current()
            updated = current.model_copy(update={"hosts": [*current.hosts, profile]})
            HpcSettings.model_validate(updated.model_dump())  # distinct names
            self.context.settings = previous.with_plugin("hpc", updated)
            self.context.save_settings()
        except (OSError, SettingsError, ValidationError, ValueError) as failure:
            self.context.settings = previous
            self._say_error(f"Nothing was saved: {failure}")
            return
        self.saved.emit(profile.name)
        self.accept()

    def test_connection(self) -> None:
        profile = self.profile()
        if profile is None or self.testing:
            return
        self.testing = True
        self.test_button.setEnabled(False)
        self.test_result.setText(f"Testing {profile.address}…")
        start_task(self._test(profile), name="hpc-host-test")

    async def _test(self, profile: HostProfile) -> None:
        others = [host for host in self._current().hosts if host.name != profile.name]
        settings = self._current().model_copy(update={"hosts": [*others, profile]})
        try:  # a real login: seconds, on a worker thread
            result = await asyncio.to_thread(check_host, settings, profile.name)
        except Exception as error:  # the check itself broke: still an answer in words
            result = CheckResult(f"ssh host {profile.name}", "fail", f"the test broke: {error}")
        if not shiboken6.isValid(self):
            return
        self.testing = False
        self.test_button.setEnabled(True)
        verdict = "Connected" if result.level == "ok" else "Not reachable"
        text = f"{verdict}: {result.detail}"
        if result.level != "ok" and result.fix:
            text += f"\n{result.fix}"
        self.test_result.setText(text)
        self.test_result.setStyleSheet("" if result.level == "ok" else ERROR_STYLE)

    def _say_error(self, text: str) -> None:
        self.errors.setText(text)
        self.errors.setVisible(bool(text))


def open_host_form(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """Settings ▸ HPC ▸ Hosts ▸ Edit…: the same form (non-modal), returned open."""
    form = HostForm(context, parent)
    form.open()
    return form
