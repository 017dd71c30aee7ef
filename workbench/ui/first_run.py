"""The first-run guide: a short, skippable window shown once on the first start (remembered in
the config folder's gui-state.json) and again from Help → Getting started….

It walks through picking a model (the chat's model picker: its status, the embedded model in one
click when no server answers) and the steps plugins provide (add a printer, an SSH host, a
documents folder; see `first_run_steps`), each opening that plugin's own editor. Non-modal: the
window behind stays usable, and nothing here waits on the network (the picker checks models on a
worker thread and the guide follows its answers).

objectNames: `first-run-guide`, `guide-step:model`, `guide-model-status`, `guide-choose-model`,
`guide-offer`, `guide-use-embedded`, `guide-step:<kind>`, `guide-open:<kind>`,
`guide-note:<kind>`, `guide-skip`, `guide-done` (kinds: printer, ssh_host, documents).
"""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.plugins import load_reference
from workbench.ui.chat.model_picker import ModelPicker
from workbench.ui.chat.style import COLOURS
from workbench.ui.first_run_steps import SetupStep, setup_steps
from workbench.ui.gui_state import guide_shown, mark_guide_shown
from workbench.ui.model_offer import ModelOffer
from workbench.ui.model_status import ModelsReport

log = logging.getLogger(__name__)
INTRO = (
    "Workbench runs engineering tools for you through a chat with an AI agent. A few things to "
    "set up first; every step can be done later, and you can skip this guide."
)
AGAIN = "You can open this guide again from Help → Getting started…"
GUIDE_SIZE = (560, 640)


class FirstRunGuide(QDialog):
    def __init__(
        self, context: AppContext, picker: ModelPicker | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("first-run-guide")
        self.setWindowTitle("Getting started with Workbench")
        self.setModal(False)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.context = context
        self.picker = picker
        self.steps = setup_steps(context.plugins)
        self.editors: dict[str, QDialog] = {}  # the plugin editors opened from here
        self.notes: dict[str, QLabel] = {}
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 4, 0)
        column.addWidget(intro)
        column.addWidget(self._model_step())
        for number, step in enumerate(self.steps, start=2):
            column.addWidget(self._plugin_step(number, step))
        column.addStretch(1)
        # a scroll area: it sizes wrapped text to the width (a window alone would cut it off)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addLayout(self._buttons())
        self.resize(*GUIDE_SIZE)
        if picker is not None:
            picker.checked.connect(self.show_report)
            if picker.report is None:
                picker.check()
        self.show_report(picker.report if picker is not None else None)

    def _model_step(self) -> QGroupBox:
        group = QGroupBox("1. Pick a model")
        group.setObjectName("guide-step:model")
        text = QLabel(
            "The agent needs a language model: an Ollama server on this machine or your network, "
            "an OpenAI-compatible server, or the small embedded model that needs no server."
        )
        text.setWordWrap(True)
        self.model_status = QLabel("Checking what is reachable…")
        self.model_status.setObjectName("guide-model-status")
        self.model_status.setWordWrap(True)
        self.offer = ModelOffer("guide", group)
        self.choose_button = QPushButton("Choose a model…")
        self.choose_button.setObjectName("guide-choose-model")
        self.choose_button.clicked.connect(self.open_model_menu)
        self.choose_button.setEnabled(self.picker is not None)
        if self.picker is not None:
            self.offer.accepted.connect(self.picker.use_embedded)
        column = QVBoxLayout(group)
        column.addWidget(text)
        column.addWidget(self.model_status)
        column.addWidget(self.offer)
        column.addWidget(self.choose_button, 0, Qt.AlignmentFlag.AlignRight)
        return group

    def _plugin_step(self, number: int, step: SetupStep) -> QGroupBox:
        group = QGroupBox(f"{number}. {step.title}")
        group.setObjectName(f"guide-step:{step.kind}")
        text = QLabel(f"{step.text} (plugin: {step.plugin})")
        text.setWordWrap(True)
        button = QPushButton(f"{step.title}…")
        button.setObjectName(f"guide-open:{step.kind}")
        button.clicked.connect(lambda _checked=False, chosen=step: self.open_editor(chosen))
        note = QLabel()
        note.setObjectName(f"guide-note:{step.kind}")
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {COLOURS['error']};")
        note.hide()
        self.notes[step.kind] = note
        column = QVBoxLayout(group)
        column.addWidget(text)
        column.addWidget(note)
        column.addWidget(button, 0, Qt.AlignmentFlag.AlignRight)
        return group

    def _buttons(self) -> QHBoxLayout:
        again = QLabel(AGAIN)
        again.setStyleSheet(f"color: {COLOURS['note']};")
        skip = QPushButton("Skip")
        skip.setObjectName("guide-skip")
        skip.setToolTip("Close the guide; everything here can be set up later")
        skip.clicked.connect(self.close)
        done = QPushButton("Done")
        done.setObjectName("guide-done")
        done.setDefault(True)
        done.clicked.connect(self.close)
        row = QHBoxLayout()
        row.addWidget(again, 1)
        row.addWidget(skip)
        row.addWidget(done)
        return row

    # -- the model step -------------------------------------------------------------------------
    def show_report(self, report: ModelsReport | None) -> None:
        if not shiboken6.isValid(self):
            return
        if report is None:
            self.model_status.setText("Checking what is reachable…")
        else:
            self.model_status.setText(f"In use: {report.status_line}")
        self.offer.show_report(report)

    def open_model_menu(self) -> None:
        """The chat's model menu, under this step's button (a popup: nothing waits on it)."""
        if self.picker is None:
            return
        button = self.choose_button
        self.picker.menu_.popup(button.mapToGlobal(button.rect().bottomLeft()))

    # -- the plugins' steps ---------------------------------------------------------------------
    def open_editor(self, step: SetupStep) -> QDialog | None:
        """Open the plugin's own editor (e.g. the Printers dialog, with its connection test)."""
        note = self.notes[step.kind]
        try:
            dialog = load_reference(step.editor)(self.context, self)
        except Exception as error:  # a plugin's editor that fails must not take the guide down
            log.exception("editor %s failed to open", step.editor)
            note.setText(
                f"The {step.plugin} plugin's editor could not be opened: {error}. The rest of "
                "Workbench works; update or reinstall that plugin."
            )
            note.show()
            return None
        note.hide()
        self.editors[step.kind] = dialog
        return dialog  # type: ignore[no-any-return]


def open_guide(
    context: AppContext, picker: ModelPicker | None, parent: QWidget | None = None
) -> FirstRunGuide:
    """Show the guide (the one already open, if any), without waiting for it."""
    existing = parent.findChild(FirstRunGuide) if parent is not None else None
    if existing is None or not existing.isVisible():  # a closed one is being deleted
        existing = FirstRunGuide(context, picker, parent)
    guide = existing
    guide.show()
    guide.raise_()
    guide.activateWindow()
    return guide


def show_guide_on_first_start(
    context: AppContext, picker: ModelPicker | None, parent: QWidget | None = None
) -> FirstRunGuide | None:
    """The guide on the first start only: remembered as shown as soon as it is shown."""
    config_dir = context.paths.config_dir
    if guide_shown(config_dir):
        return None
    try:
        mark_guide_shown(config_dir)
    except OSError as error:  # shown again next time; not worth stopping the start for
        log.warning("could not remember that the first-run guide was shown: %s", error)
    return open_guide(context, picker, parent)
