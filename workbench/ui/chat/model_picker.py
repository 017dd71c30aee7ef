"""The model in use with its status, a menu to pick another, and the embedded model offered in
one click when the model in use finds no server.

What is reachable is checked on a worker thread (`check_models`: Ollama's models with sizes, the
embedded model, OpenAI-compatible servers configured or picked before) when the model is shown,
when the menu opens and when a run ends; the status and the menu fill in when the answer comes.

objectNames: `model-bar` (this widget), `model-picker` (the button), `model-menu`,
`model-status`, `model-offer`, `model-offer-text`, `model-use-embedded`, and each menu entry
`model:<spec>`.
"""

from __future__ import annotations

import asyncio
import logging

import shiboken6
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.agents.defaults import EMBEDDED_SPEC
from workbench.core.context import AppContext
from workbench.ui.async_loop import start_task
from workbench.ui.chat.style import COLOURS, MENU_BUTTON_STYLE
from workbench.ui.elided_label import ElidedLabel
from workbench.ui.gui_state import recent_models
from workbench.ui.model_offer import ModelOffer
from workbench.ui.model_status import ModelEntry, ModelsReport, check_models

log = logging.getLogger(__name__)
OTHER_HINT = "ollama:<model>, openai:<model>@<base-url>, llamacpp:<path.gguf> or scripted:<file>"
MIN_BUTTON_WIDTH = 120  # px: "Model: ollama:qw…b ▾" still tells what is in use
SECTIONS = {
    "profile": "Your model profiles (Settings → Model profiles)",
    "local": "In this process (llama.cpp)",
    "openai": "OpenAI-compatible servers",
}


class ModelPicker(QWidget):
    chosen = Signal(str)  # a model spec the engineer picked
    listed = Signal(list)  # the Ollama models found (empty when the server did not answer)
    checked = Signal(object)  # a ModelsReport: what a check found

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("model-bar")
        self.context = context
        self.spec = ""
        self.problem = ""
        self.loading = False  # the model file is being read on a worker thread
        self.report: ModelsReport | None = None
        self._checks = 0  # number of the latest check: answers of older ones are dropped
        self._other_dialog: QInputDialog | None = None
        self.button = QToolButton(self)
        self.button.setObjectName("model-picker")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setAutoRaise(True)
        self.button.setStyleSheet(MENU_BUTTON_STYLE + " QToolButton { text-align: left; }")
        # a long spec (a scripted file, a GGUF path) must not widen the dock: elided, whole in
        # the tooltip and in `text()`
        self.button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.button.setMinimumWidth(MIN_BUTTON_WIDTH)
        self._button_text = ""
        self.menu_ = QMenu(self.button)
        self.menu_.setObjectName("model-menu")
        self.menu_.setToolTipsVisible(True)
        self.menu_.aboutToShow.connect(self.refresh)
        self.button.setMenu(self.menu_)
        # its own row, one line: in a narrow dock a wrapped status became a column of words
        self.status = ElidedLabel()
        self.status.setObjectName("model-status")
        self.offer = ModelOffer("model", self)
        self.offer.accepted.connect(self.use_embedded)
        self.button_row = QHBoxLayout()  # the chat adds its token count at the end
        self.button_row.setContentsMargins(0, 0, 0, 0)
        self.button_row.addWidget(self.button, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(self.button_row)
        layout.addWidget(self.status)
        layout.addWidget(self.offer)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    # -- what is shown --------------------------------------------------------------------------
    def text(self) -> str:
        """The button's text, "Model: <spec> ▾" (⚠ when the model cannot be used)."""
        return self._button_text

    def status_line(self) -> str:
        """ "<spec> — <status>", as a person reads it next to the model."""
        return f"{self.spec} {self.status.text()}".strip()

    def set_model(self, spec: str, problem: str = "", *, loading: bool = False) -> None:
        """Show `spec`; `loading`: its model file is being read on a worker thread."""
        changed = spec != self.spec
        self.spec, self.problem, self.loading = spec, problem, loading
        mark = " ⚠" if problem else ""
        self._button_text = f"Model: {spec}{mark} ▾"
        self._elide_button()
        tip = problem or f"The agent runs on {spec}. Click to pick another model."
        self.button.setToolTip(f"{spec}\n{tip}" if not problem else tip)
        if changed:
            self.report = None
            self.offer.show_report(None)
        self._show_status()
        self.check()

    def _show_status(self) -> None:
        report = self.report
        if report is not None and report.current != self.spec:
            report = None  # a check of the model shown before
        if self.problem:
            text, colour, tip = "— cannot be used (hover)", COLOURS["error"], self.problem
        elif self.loading:
            text, colour, tip = "— loading model…", COLOURS["note"], f"Reading {self.spec}"
        elif report is None:
            text, colour, tip = "— checking…", COLOURS["note"], "Asking the model's server"
        else:
            bad = report.current_unreachable or report.current_status.startswith("not ")
            colour = COLOURS["error"] if bad else COLOURS["ok"]
            text, tip = f"— {report.current_status}", report.status_line
        self.status.show_text(text, tip)
        self._status_or_offer()
        self.status.setStyleSheet(f"color: {colour};")

    def _elide_button(self) -> None:
        metrics = self.button.fontMetrics()
        room = max(MIN_BUTTON_WIDTH, self.button.width()) - 2 * metrics.averageCharWidth()
        shown = metrics.elidedText(self._button_text, Qt.TextElideMode.ElideMiddle, room)
        self.button.setText(shown)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._elide_button()

    def _status_or_offer(self) -> None:
        # the offer's first line says what the status would: one of the two is enough
        self.status.setVisible(self.offer.isHidden())

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        # the chat enables the picker again when a run ends: the server may have gone meanwhile
        super().changeEvent(event)
        if event.type() == QEvent.Type.EnabledChange and self.isEnabled() and self.spec:
            self.check()

    # -- checking -------------------------------------------------------------------------------
    def check(self) -> None:
        """Ask the servers again, off the GUI thread; `checked` fires with the answer."""
        self._checks += 1
        start_task(self._check(self._checks, self.spec), name="chat:check-models")

    async def _check(self, number: int, spec: str) -> None:
        settings, config_dir = self.context.settings, self.context.paths.config_dir
        try:
            report = await asyncio.to_thread(
                lambda: check_models(settings, spec, recent_models(config_dir))
            )
        except Exception:  # a check that fails must not take the chat down; the status says so
            log.exception("checking the models failed")
            if shiboken6.isValid(self) and number == self._checks:
                self.status.show_text("— could not be checked (see the log)")
            return
        if not shiboken6.isValid(self) or number != self._checks:
            return
        self.report = report
        self.offer.show_report(report)
        self._show_status()
        self._fill(report)
        self.listed.emit([] if report.ollama_problem else [m.name for m in report.ollama_models])
        self.checked.emit(report)

    def refresh(self) -> None:
        """Rebuild the menu now, and again when the servers have answered."""
        self._fill(self.report)
        self.check()

    # -- the menu -------------------------------------------------------------------------------
    def _fill(self, report: ModelsReport | None) -> None:
        menu = self.menu_
        menu.clear()
        current = menu.addAction(f"In use: {self.status_line()}")
        current.setEnabled(False)
        if report is None:
            menu.addAction("Asking the servers…").setEnabled(False)
        else:
            self._add_ollama(report)
            for family, title in SECTIONS.items():
                entries = [e for e in report.entries if e.family == family]
                if entries:
                    menu.addSection(title)
                for entry in entries:
                    self._add_entry(entry)
        menu.addSeparator()
        other = menu.addAction("Other model…", self.ask_other)
        other.setObjectName("model-other-action")

    def _add_ollama(self, report: ModelsReport) -> None:
        menu = self.menu_
        menu.addSection(f"Ollama at {report.ollama_url}")
        if report.ollama_problem:
            unreachable = menu.addAction("The server does not answer (hover for what to do)")
            unreachable.setToolTip(
                f"{report.ollama_problem}. Start `ollama serve`, or fix the Ollama address in "
                "settings (or OLLAMA_HOST)."
            )
            unreachable.setEnabled(False)
        elif not report.ollama_models:
            menu.addAction("No models: run `ollama pull qwen3:4b`").setEnabled(False)
        for entry in report.entries:
            if entry.family == "ollama":
                self._add_entry(entry)

    def _add_entry(self, entry: ModelEntry) -> None:
        action = self.menu_.addAction(entry.label())
        action.setObjectName(f"model:{entry.spec}")
        action.setCheckable(True)
        action.setChecked(entry.spec == self.spec)
        action.setEnabled(entry.usable)
        if entry.advice:
            action.setToolTip(entry.advice)
        action.triggered.connect(lambda _checked=False, spec=entry.spec: self.chosen.emit(spec))

    # -- choosing -------------------------------------------------------------------------------
    def use_embedded(self) -> None:
        """The one-click switch to the embedded model."""
        self.chosen.emit(EMBEDDED_SPEC)

    def ask_other(self) -> QInputDialog:
        """Type any model spec (non-blocking dialog: the chat keeps streaming meanwhile)."""
        dialog = QInputDialog(self)
        dialog.setObjectName("model-other")
        dialog.setWindowTitle("Agent model")
        dialog.setLabelText(f"Model ({OTHER_HINT}):")
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setTextValue(self.spec)
        dialog.textValueSelected.connect(self._other_chosen)
        dialog.finished.connect(dialog.deleteLater)
        self._other_dialog = dialog
        dialog.open()
        return dialog

    def _other_chosen(self, text: str) -> None:
        if text.strip():
            self.chosen.emit(text.strip())
