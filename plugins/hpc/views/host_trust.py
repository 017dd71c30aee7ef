"""Trusting an unknown cluster host from the queue view: the question, and the write.

A poll refused with `UnknownHostKey` carries the host, port, key type and SHA256 fingerprint;
the view asks the person to compare the fingerprint with the server's own and, on Yes, writes
the key to the app's known_hosts (`trust_host_key`, on a worker thread, never the GUI thread).
A changed host key (`HostKeyChanged`) is never offered: it stays refused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

from workbench.ui.naming import named
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.ssh.errors import SshFailure, UnknownHostKey
from workbench_plugins.hpc.ssh.host_keys import KnownHosts
from workbench_plugins.hpc.ssh.pool import SshPool
from workbench_plugins.hpc.views.queue_source import HostProblem

PROBLEM_STYLE = "QLabel { color: #a00000; }"
TRUST_QUESTION = "confirm-hpc-trust-host"
SERVER_FINGERPRINTS = "ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub"


def trust_question(parent: QWidget, host: str, failure: UnknownHostKey, file: str) -> QMessageBox:
    """Non-modal Yes/No showing what identifies the host; No is the default."""
    text = (
        f"<p><b>{host}</b> ({failure.hostname}, port {failure.port}) is not a known host.</p>"
        f"<p>Its <b>{failure.key_type}</b> host key has the fingerprint:<br>"
        f"<code style='font-size: 110%'>{failure.fingerprint}</code></p>"
        "<p>Before trusting it, compare this with what the server itself says: run "
        f"<code>{SERVER_FINGERPRINTS}</code> on it (or ask its admins for the published "
        "fingerprints). Trust it only if one of them matches exactly; a different fingerprint "
        "means you may not be talking to your cluster.</p>"
        f"<p>Yes writes the key to the app's known_hosts ({file}).</p>"
    )
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        "Trust this host?",
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        parent,
    )
    box.setObjectName(TRUST_QUESTION)
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box


def trust_host_key(settings: HpcSettings, host: str, failure: UnknownHostKey) -> None:
    """Write the refused key to the app's known_hosts (blocking: call it off the GUI thread).

    With the key on the refusal this is a one-line append. Without it, one connection is made
    whose host-key check accepts exactly the fingerprint the person confirmed (any other key
    is refused again), and the SSH layer writes that key itself.
    """
    key = failure.key
    if key is not None:
        known = KnownHosts(settings.known_hosts_file())
        if known.known_key(failure.hostname, failure.port, key.get_name()) != key:
            known.append(failure.hostname, failure.port, key)  # not twice on a second Yes
        return
    accepted = threading.Event()

    def same_key(offered: UnknownHostKey) -> bool:
        match = (offered.hostname, offered.port, offered.fingerprint) == (
            failure.hostname,
            failure.port,
            failure.fingerprint,
        )
        if match:
            accepted.set()
        return match

    with SshPool(settings, confirm=same_key) as pool:
        try:
            pool.shell(host).connect()
        except SshFailure:
            if not accepted.is_set():
                raise  # the host now offers another key, or cannot be reached: nothing written
            # the key was written before the login failed; the next poll says what failed


@dataclass
class HostTrust:
    """What the view needs to trust a host: the settings of the moment (read when asked)."""

    settings: Callable[[], HpcSettings]

    def file(self) -> str:
        return str(self.settings().known_hosts_file())

    def trust(self, host: str, failure: UnknownHostKey) -> None:
        trust_host_key(self.settings(), host, failure)


class ProblemRow(QWidget):
    """The hosts that cannot be read, in words; a "Trust this host…" button for each host
    refused only because its key is unknown (never for a changed key)."""

    trust_requested = Signal(str, object)  # host, UnknownHostKey

    def __init__(self, offer_trust: bool) -> None:
        super().__init__()
        self.offer_trust = offer_trust
        self.label = named(QLabel(""), "hpc-queue-problem")
        self.label.setWordWrap(True)
        self.label.setStyleSheet(PROBLEM_STYLE)
        self.label.hide()
        self.buttons: dict[str, QPushButton] = {}
        self.failures: dict[str, UnknownHostKey] = {}
        self._buttons_box = QVBoxLayout()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addLayout(self._buttons_box)

    def show_problems(self, problems: Sequence[HostProblem]) -> None:
        self.setVisible(bool(problems))  # no empty row above the table when all is well
        self.label.setVisible(bool(problems))
        self.label.setText(" ".join(problem.summary for problem in problems))
        self.label.setToolTip("\n\n".join(problem.detail for problem in problems))
        unknown = {
            problem.host: problem.failure
            for problem in problems
            if self.offer_trust and isinstance(problem.failure, UnknownHostKey)
        }
        self.failures = unknown
        for host in set(self.buttons) - set(unknown):
            gone = self.buttons.pop(host)
            self._buttons_box.removeWidget(gone)
            gone.deleteLater()
        for host, failure in unknown.items():
            button = self.buttons.get(host)
            if button is None:
                button = self.buttons[host] = named(QPushButton(), f"hpc-trust-host-{host}")
                button.clicked.connect(lambda _checked=False, host=host: self._ask(host))
                self._buttons_box.addWidget(button)
                button.show()  # a child added to a shown widget stays hidden otherwise
            button.setText("Trust this host…" if len(unknown) == 1 else f"Trust {host}…")
            button.setToolTip(f"{host}: {failure.key_type} key {failure.fingerprint}")

    def _ask(self, host: str) -> None:
        failure = self.failures.get(host)
        if failure is not None:
            self.trust_requested.emit(host, failure)
