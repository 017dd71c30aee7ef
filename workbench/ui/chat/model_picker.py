"""The model in use, and a menu to pick another: what the Ollama server has, or any model spec.

The Ollama server is asked each time the menu opens, on a worker thread (an unreachable server
takes up to the client's timeout to say so), and the menu fills in when the answer comes.
"""

from __future__ import annotations

import asyncio

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMenu, QToolButton, QWidget

from workbench.agents import BackendError, list_ollama_models, ollama_base_url
from workbench.core.context import AppContext
from workbench.ui.async_loop import start_task
from workbench.ui.chat.style import MENU_BUTTON_STYLE

OTHER_HINT = "ollama:<model>, openai:<model>@<base-url>, llamacpp:<path.gguf> or scripted:<file>"


class ModelPicker(QToolButton):
    chosen = Signal(str)  # a model spec the engineer picked
    listed = Signal(list)  # the Ollama models found (empty when the server did not answer)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("model-picker")
        self.context = context
        self.spec = ""
        self.problem = ""
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAutoRaise(True)
        self.setStyleSheet(MENU_BUTTON_STYLE)
        self.menu_ = QMenu(self)
        self.menu_.setObjectName("model-menu")
        self.menu_.aboutToShow.connect(self.refresh)
        self.setMenu(self.menu_)
        self._other_dialog: QInputDialog | None = None

    def set_model(self, spec: str, problem: str = "") -> None:
        self.spec, self.problem = spec, problem
        mark = " ⚠" if problem else ""
        self.setText(f"Model: {spec}{mark} ▾")
        self.setToolTip(problem or f"The agent runs on {spec}. Click to pick another model.")

    def refresh(self) -> None:
        """Rebuild the menu now, and again when the Ollama server has answered."""
        url = ollama_base_url(self.context.settings)
        self._fill(url, None, "")
        start_task(self._list(url), name="chat:list-models")

    async def _list(self, url: str) -> None:
        try:
            names = await asyncio.to_thread(list_ollama_models, url)
            problem = ""
        except BackendError as error:
            names, problem = [], str(error)
        if shiboken6.isValid(self):
            self._fill(url, names, problem)
            self.listed.emit(names)

    def _fill(self, url: str, names: list[str] | None, problem: str) -> None:
        menu = self.menu_
        menu.clear()
        current = menu.addAction(f"In use: {self.spec}")
        current.setEnabled(False)
        menu.addSection(f"Ollama at {url}")
        if names is None:
            menu.addAction("Asking the server…").setEnabled(False)
        elif problem:
            unreachable = menu.addAction("The server does not answer (hover for what to do)")
            unreachable.setToolTip(problem)
            unreachable.setEnabled(False)
            menu.setToolTipsVisible(True)
        elif not names:
            menu.addAction("No models: run `ollama pull qwen3:4b`").setEnabled(False)
        for name in names or []:
            spec = f"ollama:{name}"
            action = menu.addAction(spec)
            action.setObjectName(f"model:{spec}")
            action.setCheckable(True)
            action.setChecked(spec == self.spec)
            action.triggered.connect(lambda _checked=False, chosen=spec: self.chosen.emit(chosen))
        menu.addSeparator()
        menu.addAction("Other model…", self.ask_other)

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
