"""The chat panel: a transcript and an input line.

The agent runtime arrives later; until then the panel is a direct line to the tool registry:
`/tool NAME {json}` runs a tool exactly as the agent would (same registry, recorded in the store,
caller "gui:chat"), on the asyncio loop so the window never waits for it.
"""

from __future__ import annotations

import html
import json
from typing import Any

import shiboken6
from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCompleter,
    QDockWidget,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.events import ToolCalled
from workbench.core.tools import ToolOutcome
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui

CALLER = "gui:chat"
HELP_TEXT = (
    "Commands:\n"
    "  /tools                  list the tools of the loaded plugins\n"
    "  /describe NAME          a tool's arguments\n"
    '  /tool NAME {"arg": 1}   call a tool with JSON arguments\n'
    "  /clear                  empty this transcript\n"
    "  /help                   this text"
)
NO_AGENT_TEXT = (
    "No agent model is connected yet, so plain messages are not answered. You can call tools "
    'directly: /tools lists them, /tool NAME {"arg": value} runs one.'
)
COLOURS = {"you": "#0b57d0", "workbench": "#444444", "ok": "#1a7f37", "error": "#cf222e"}


class HistoryLineEdit(QLineEdit):
    """An input line that recalls earlier entries with Up and Down, like a shell."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history: list[str] = []
        self._position = 0

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        popup = self.completer().popup() if self.completer() else None
        if popup is None or not popup.isVisible():
            if event.key() == Qt.Key.Key_Up and self.history:
                self._position = max(0, self._position - 1)
                self.setText(self.history[self._position])
                return
            if event.key() == Qt.Key.Key_Down and self.history:
                self._position = min(len(self.history), self._position + 1)
                at_end = self._position == len(self.history)
                self.setText("" if at_end else self.history[self._position])
                return
        super().keyPressEvent(event)


class ChatPanel(QWidget):
    tool_finished = Signal(object)  # ToolOutcome, once its result is in the transcript

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.transcript = QTextBrowser()
        self.transcript.setObjectName("chat-transcript")
        self.transcript.setOpenExternalLinks(True)
        self.input = HistoryLineEdit()
        self.input.setObjectName("chat-input")
        self.input.setPlaceholderText("Message, or /tool NAME {json}  (/help)")
        self.input.returnPressed.connect(self.submit)
        self.send_button = QPushButton("Send")
        self.send_button.clicked.connect(self.submit)
        self._completions = QStringListModel(self)
        completer = QCompleter(self._completions, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.input.setCompleter(completer)
        self._refresh_completions()
        self._confirmations: list[QMessageBox] = []

        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addWidget(self.send_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.transcript, 1)
        layout.addLayout(row)

        subscribe_in_gui(context.bus, ToolCalled, self._on_tool_called, self)
        count = len(context.registry.names())
        self.say(
            f"Welcome to Workbench: {count} tool(s) loaded. No agent model is connected yet; "
            "meanwhile you can run the tools yourself:\n"
            "  /tools   list them\n"
            "  /tool NAME {json}   run one\n"
            "  /help   all commands"
        )

    # -- transcript ---------------------------------------------------------------------------
    def say(self, text: str, *, who: str = "workbench", colour: str | None = None) -> None:
        """Append a message; `text` is plain text (escaped here), shown with its line breaks."""
        name = {"you": "You", "workbench": "Workbench"}.get(who, who)
        tint = colour or COLOURS.get(who, COLOURS["workbench"])
        body = html.escape(text).replace("\n", "<br>").replace("  ", "&nbsp; ")
        self.transcript.append(f'<p><b style="color:{tint}">{name}:</b> {body}</p>')

    def say_block(self, title: str, text: str, *, colour: str) -> None:
        """Append a titled preformatted block (JSON results, error explanations)."""
        self.transcript.append(
            f'<p><b style="color:{colour}">{html.escape(title)}</b></p>'
            f'<pre style="color:{colour}; white-space: pre-wrap">{html.escape(text)}</pre>'
        )

    def transcript_text(self) -> str:
        return self.transcript.toPlainText()

    # -- input --------------------------------------------------------------------------------
    def submit(self) -> None:
        text = self.input.text().strip()
        if not text:
            return
        self.input.remember(text)
        self.input.clear()
        self.handle(text)

    def handle(self, text: str) -> None:
        self.say(text, who="you")
        command, _, rest = text.partition(" ")
        rest = rest.strip()
        if command == "/tool":
            self._tool_command(rest)
        elif command == "/tools":
            self._list_tools()
        elif command == "/describe":
            self._describe(rest)
        elif command == "/clear":
            self.transcript.clear()
        elif command == "/help":
            self.say(HELP_TEXT)
        elif command.startswith("/"):
            self.say(f"Unknown command {command}.\n{HELP_TEXT}", colour=COLOURS["error"])
        else:
            self.say(NO_AGENT_TEXT)

    def _list_tools(self) -> None:
        registry = self.context.registry
        if not registry.names():
            self.say("No tools are loaded: no plugin contributed any (see the notices).")
            return
        lines = []
        for name in registry.names():
            tool = registry.get(name)
            assert tool is not None
            summary = tool.description.strip().splitlines()[0] if tool.description else ""
            lines.append(f"{name} [{tool.side_effect.value}] — {summary}")
        self.say("Tools:\n" + "\n".join(lines))

    def _describe(self, name: str) -> None:
        tool = self.context.registry.get(name)
        if tool is None:
            self._unknown_tool(name)
            return
        schema = tool.args.model_json_schema()
        required = set(schema.get("required", []))
        lines = [tool.description.strip(), "", "Arguments:"]
        for field, spec in schema.get("properties", {}).items():
            kind = spec.get("type") or " | ".join(
                str(option.get("type", "?")) for option in spec.get("anyOf", [])
            )
            default = "" if field in required else f" = {json.dumps(spec.get('default'))}"
            note = f" — {spec['description']}" if spec.get("description") else ""
            lines.append(f"  {field}: {kind}{default}{note}")
        if tool.confirm:
            lines.append("This tool acts on the physical world: you will be asked to confirm.")
        self.say("\n".join(lines))

    def _unknown_tool(self, name: str) -> None:
        known = ", ".join(self.context.registry.names()) or "none"
        self.say(f"There is no tool named {name!r}. Known tools: {known}.", colour=COLOURS["error"])

    def _tool_command(self, rest: str) -> None:
        name, _, raw_arguments = rest.partition(" ")
        if not name:
            self.say('Usage: /tool NAME {"arg": value}', colour=COLOURS["error"])
            return
        arguments = self._parse_arguments(name, raw_arguments.strip())
        if arguments is None:
            return
        tool = self.context.registry.get(name)
        if tool is not None and tool.confirm:
            self._ask_confirmation(name, arguments)
        else:
            self.call_tool(name, arguments)

    def _parse_arguments(self, name: str, raw: str) -> dict[str, Any] | None:
        if not raw:
            return {}
        try:
            arguments = json.loads(raw)
        except json.JSONDecodeError as error:
            self.say(
                f"The arguments of {name} are not valid JSON: {error.msg} at column {error.colno}."
                f'\nWrite them as a JSON object, e.g. /tool {name} {{"field": 1}}',
                colour=COLOURS["error"],
            )
            return None
        if not isinstance(arguments, dict):
            self.say(
                f"The arguments of {name} must be a JSON object ({{...}}), "
                f"not {type(arguments).__name__}.",
                colour=COLOURS["error"],
            )
            return None
        return arguments

    def _ask_confirmation(self, name: str, arguments: dict[str, Any]) -> None:
        # Non-modal question: the window (and running jobs' progress) stays live while it is open.
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Confirm a physical action",
            f"{name} acts on the physical world.\n\nArguments:\n"
            f"{json.dumps(arguments, indent=2)}\n\nRun it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("confirm-tool")
        self._confirmations.append(box)

        def answered(result: int) -> None:
            self._confirmations.remove(box)
            box.deleteLater()
            if result == QMessageBox.StandardButton.Yes:
                self.call_tool(name, arguments, confirmed=True)
            else:
                self.say(f"{name} was not run: you declined.")

        box.finished.connect(answered)
        box.open()

    # -- calling --------------------------------------------------------------------------------
    def call_tool(self, name: str, arguments: dict[str, Any], *, confirmed: bool = False) -> None:
        self.say(f"Running {name}…")
        start_task(self._run_tool(name, arguments, confirmed), name=f"chat:{name}")

    async def _run_tool(self, name: str, arguments: dict[str, Any], confirmed: bool) -> None:
        outcome = await self.context.registry.acall(
            name, arguments, caller=CALLER, confirmed=confirmed
        )
        if shiboken6.isValid(self):  # the panel may have been closed meanwhile
            self.show_outcome(outcome)
            self.tool_finished.emit(outcome)

    def show_outcome(self, outcome: ToolOutcome) -> None:
        timing = f"call {outcome.call_id}, {outcome.duration_s:.2f} s"
        if outcome.ok:
            text = json.dumps(outcome.result, indent=2, ensure_ascii=False, default=str)
            self.say_block(f"✔ {outcome.tool} ({timing})", text, colour=COLOURS["ok"])
        else:
            explanation = outcome.error.explain() if outcome.error else "failed without a message"
            self.say_block(f"✖ {outcome.tool} ({timing})", explanation, colour=COLOURS["error"])

    def _on_tool_called(self, event: ToolCalled) -> None:
        # Calls by the agent, views or scripts show up too, so the transcript tells the whole story.
        if event.caller != CALLER:
            state = "ok" if event.ok else "failed"
            self.say(
                f"{event.caller} called {event.tool} ({state}, {event.duration_s:.2f} s)",
                colour="#777777",
            )

    def _refresh_completions(self) -> None:
        names = self.context.registry.names()
        commands = ["/help", "/tools", "/clear"]
        commands += [f"/tool {name} " for name in names]
        commands += [f"/describe {name}" for name in names]
        self._completions.setStringList(commands)


class ChatDock(QDockWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__("Chat", parent)
        self.setObjectName("chat-dock")
        self.panel = ChatPanel(context, self)
        self.setWidget(self.panel)
