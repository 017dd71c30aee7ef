"""The queue view's submit form: a script file or a command, partition, time limit, CPUs.

The options apply to a script file too (added as #SBATCH lines after its own, so they win);
left at "default" they change nothing in a script, and mean Slurm's defaults for a command.

Non-modal, like every question of the app (opened with `open()`); the partitions come from the
client's `partitions()`, read by the view's poll, never here.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from workbench.ui.naming import named
from workbench_plugins.hpc.views.actions import SubmitRequest

YES_NO = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No


class SubmitForm(QDialog):
    def __init__(
        self, parent: QWidget, hosts: list[str], partitions: dict[str, list[str]], host: str = ""
    ) -> None:
        super().__init__(parent)
        self.setObjectName("hpc-submit-form")
        self.setWindowTitle("Submit a Slurm job")
        self.setMinimumWidth(540)  # room for a script path and the placeholders
        self._partitions = partitions
        self.host = named(QComboBox(), "hpc-submit-host")
        self.host.addItems(hosts)
        if host in hosts:
            self.host.setCurrentText(host)
        self.name = named(QLineEdit(), "hpc-submit-name")
        self.name.setPlaceholderText("job name (default: the command)")
        self.script = named(QLineEdit(), "hpc-submit-script")
        self.script.setPlaceholderText("a local batch script (its #SBATCH lines kept)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        script_row = QHBoxLayout()
        script_row.addWidget(self.script, 1)
        script_row.addWidget(browse)
        self.command = named(QLineEdit(), "hpc-submit-command")
        self.command.setPlaceholderText("or a command, e.g. python train.py --epochs 3")
        self.partition = named(QComboBox(), "hpc-submit-partition")
        self.time_limit = named(QLineEdit(""), "hpc-submit-time")
        self.time_limit.setPlaceholderText("default (00:10:00, or the script's own)")
        self.time_limit.setToolTip("MM, HH:MM:SS or D-HH:MM:SS")
        self.cpus = named(QSpinBox(), "hpc-submit-cpus")
        self.cpus.setRange(0, 1024)
        self.cpus.setSpecialValueText("default (1, or the script's own)")
        form = QFormLayout(self)
        form.addRow("Host", self.host)
        form.addRow("Name", self.name)
        form.addRow("Script file", script_row)
        form.addRow("Command", self.command)
        form.addRow("Partition", self.partition)
        form.addRow("Time limit", self.time_limit)
        form.addRow("CPUs", self.cpus)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Submit…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.host.currentTextChanged.connect(self._fill_partitions)
        self.script.textChanged.connect(self._script_or_command)
        self._fill_partitions(self.host.currentText())

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Batch script", "", "Scripts (*.sh *.sbatch *)")
        if path:
            self.script.setText(path)

    def _fill_partitions(self, host: str) -> None:
        self.partition.clear()
        self.partition.addItem("(default)", "")
        for name in self._partitions.get(host, []):
            self.partition.addItem(name, name)

    def _script_or_command(self, script: str) -> None:
        """A script file is what runs (the command is ignored); the options still apply."""
        uses_script = bool(script.strip())
        self.command.setEnabled(not uses_script)
        self.command.setToolTip("The script file runs, not a command." if uses_script else "")

    def request(self) -> SubmitRequest:
        return SubmitRequest(
            host=self.host.currentText(),
            name=self.name.text().strip(),
            script_file=self.script.text().strip(),
            command=self.command.text().strip(),
            partition=str(self.partition.currentData() or ""),
            time_limit=self.time_limit.text().strip(),
            cpus=self.cpus.value(),
        )


def describe(request: SubmitRequest) -> str:
    what = request.script_file or request.command
    default = "the script's" if request.script_file else "default"
    time_limit = request.time_limit or (
        "the script's time limit" if request.script_file else "00:10:00"
    )
    cpus = request.cpus or (0 if request.script_file else 1)
    cpu_text = f"{cpus} CPU{'s' if cpus > 1 else ''}" if cpus else "the script's CPUs"
    options = f" (partition {request.partition or default}, {time_limit}, {cpu_text})"
    return f"Submit {what!r} to {request.host}{options}?"


def question_box(parent: QWidget, title: str, question: str, name: str) -> QMessageBox:
    """A Yes/No question about the shared cluster, non-modal."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        f"{question}\n\nThis acts on a shared cluster.",
        YES_NO,
        parent,
    )
    box.setObjectName(name)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box
