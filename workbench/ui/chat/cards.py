"""The items of the chat, one widget each: message bubbles (streamed), tool-call cards, questions
from the agent, notes and errors. Each knows its plain text (for tests, copying, export).

Streaming stays cheap: a token is appended to a Python list and the label is repainted at most
every STREAM_REFRESH_MS, however fast the model produces tokens.
"""

from __future__ import annotations

import json
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
)

from workbench.core.events import EventBus
from workbench.ui.chat.card_progress import CardProgress
from workbench.ui.chat.citations import cited_in_result, link_markdown, links_html, target_of
from workbench.ui.chat.job_links import StartedJobs
from workbench.ui.chat.style import COLOURS, MONO, STATUS_MARKS
from workbench.ui.chat.summaries import compact_json
from workbench.ui.chat.wording import card_status
from workbench.ui.chat.wrapping import WrappingLabel

STREAM_REFRESH_MS = 40


def _label(text: str = "", *, style: str = "", selectable: bool = True) -> QLabel:
    label = WrappingLabel(text)  # long paths wrap too, instead of being cut off
    label.setTextFormat(Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if style:
        label.setStyleSheet(style)
    # wrapped labels must be allowed to shrink with the dock, or the view scrolls sideways
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(40)
    return label


class ChatItem(QFrame):
    """Base of everything in the chat view: knows its plain text (for tests, copy, export)."""

    def plain_text(self) -> str:
        return ""


class MessageBubble(ChatItem):
    """A message from the engineer, the supervisor ("Workbench") or a specialist; streamable.
    With `cite`, a final answer's citations ("docs/x.pdf, page 7") are links
    (`citation_opened`, with the target "docs/x.pdf#page=7")."""

    citation_opened = Signal(str)

    def __init__(
        self, who: str, text: str = "", *, agent: str = "", role: str = "", cite: bool = False
    ) -> None:
        super().__init__()
        self.setObjectName("chat-bubble")
        self.agent = agent
        self.cite = cite
        self.role = role or ("you" if who == "You" else "workbench")
        self.final = False
        self.discarded = False
        self._parts: list[str] = [text] if text else []
        self._text = text
        background = {"you": "#eef4ff", "specialist": "#f6f2fc"}.get(self.role, "#f6f8fa")
        self.setStyleSheet(
            f"#chat-bubble {{ background: {background}; border: 1px solid #d0d7de;"
            " border-radius: 6px; }"
        )
        self.header = _label(who, selectable=False)
        colour = COLOURS.get(self.role, COLOURS["workbench"])
        self.header.setStyleSheet(f"color: {colour}; font-weight: bold;")
        self.body = _label(text)
        self.body.setObjectName("chat-bubble-body")
        self.body.linkActivated.connect(self._link_activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 5, 8, 6)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.body)
        self._refresh = QTimer(self)
        self._refresh.setSingleShot(True)
        self._refresh.setInterval(STREAM_REFRESH_MS)
        self._refresh.timeout.connect(self.flush)

    def append(self, text: str) -> None:
        """Per token: O(1) here; the label is repainted later by the refresh timer."""
        self._parts.append(text)
        if not self._refresh.isActive():
            self._refresh.start()

    def text(self) -> str:
        if len(self._parts) != 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def flush(self) -> None:
        self._refresh.stop()
        text = self.text()
        if text != self._text:
            self._text = text
            self.body.setText(text)

    def mark_final(self, text: str | None = None) -> None:
        """The answer is complete: show it as Markdown (models write lists, code, emphasis)."""
        if text is not None:
            self._parts = [text]
        self.flush()
        self.final = True
        self.body.setTextFormat(Qt.TextFormat.MarkdownText)
        if self.cite:
            linked = link_markdown(self._text)
            if linked != self._text:
                self.body.setTextInteractionFlags(_LINKS)
            self.body.setText(linked)
        else:
            self.body.setText(self._text)

    def _link_activated(self, link: str) -> None:
        target = target_of(link)
        if target:
            self.citation_opened.emit(target)

    def discard(self, reason: str) -> None:
        """The streamed text is not part of the conversation (malformed reply, failed call)."""
        self.flush()
        self.discarded = True
        self.body.setStyleSheet("color: #8c959f;")
        self.header.setText(f"{self.header.text()} — {reason}")
        self.header.setStyleSheet("color: #8c959f; font-weight: bold;")

    def plain_text(self) -> str:
        return f"{self.header.text()}: {self.text()}"


# selectable, and links that a click or Tab then Enter opens
_LINKS = (
    Qt.TextInteractionFlag.TextSelectableByMouse
    | Qt.TextInteractionFlag.LinksAccessibleByMouse
    | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
)


class ToolCard(ChatItem):
    """One tool call: tool, agent, arguments, status, duration, and a short summary in a
    person's words; what the model was told is one click away (Details). A card whose tool's
    results some view shows has a link to that view (`open_view_requested`)."""

    open_view_requested = Signal(str, str)  # view name, tool
    citation_opened = Signal(str)  # "docs/x.pdf#page=7": a place the result cites (`cite`)

    def __init__(
        self,
        tool: str,
        arguments: Any = None,
        *,
        agent: str = "",
        view_name: str = "",
        view_title: str = "",
        cite: bool = False,
        bus: EventBus | None = None,
        started: StartedJobs | None = None,
    ) -> None:
        """`bus`: where the jobs of the call report (`follow_jobs` shows their progress);
        `started`: the jobs calls started before their cards were made."""
        super().__init__()
        self.setObjectName("tool-card")
        self.bus = bus
        self.started_jobs = started
        self.tool = tool
        self.cite_places = cite
        self.agent = agent
        self.view_name = view_name
        self.status = "running"
        self.duration_s: float | None = None
        self.title = _label(selectable=False)
        self.title.setObjectName("tool-card-title")
        self.timing = QLabel()
        self.timing.setObjectName("tool-card-timing")
        self.timing.setStyleSheet(f"color: {COLOURS['note']};")
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        top.addWidget(self.timing)
        shown_arguments = compact_json(arguments if arguments is not None else {})
        self.arguments = _label(shown_arguments, style=f"color: #424a53; {MONO}")
        self.arguments.setToolTip(
            json.dumps(arguments, indent=2, ensure_ascii=False, default=str)[:4000]
        )
        self.summary = _label(style=f"color: {COLOURS['note']};")
        self.summary.setObjectName("tool-card-summary")
        self.details = _label(style=MONO)
        self.details.setObjectName("tool-card-details")
        self.details.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 5, 8, 6)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.arguments)
        layout.addWidget(self.summary)
        self.progress = CardProgress(self)  # the call's jobs, while it runs
        layout.addWidget(self.progress)
        layout.addLayout(self._links(view_title))
        self.citations = QLabel()  # links to the places a search's result cites
        self.citations.setObjectName("tool-card-citations")
        self.citations.setTextFormat(Qt.TextFormat.RichText)
        self.citations.setWordWrap(True)
        self.citations.setTextInteractionFlags(_LINKS)
        self.citations.linkActivated.connect(self._citation_activated)
        self.citations.hide()
        layout.addWidget(self.citations)
        layout.addWidget(self.details)
        self._show()

    def _links(self, view_title: str) -> QHBoxLayout:
        """The row under the summary: Details (hidden until there are some), the view link."""
        self.details_button = _link_button("Details ▸", "tool-card-details-toggle")
        self.details_button.setCheckable(True)
        self.details_button.setToolTip("Show what the tool answered, as the agent read it")
        self.details_button.toggled.connect(self._toggle_details)
        self.details_button.hide()
        self.view_button = _link_button(f"Show in {view_title} view ↗", "tool-card-open-view")
        self.view_button.setToolTip(f"Open the {view_title} view, which shows this result")
        self.view_button.clicked.connect(self.open_view)
        self.view_button.setVisible(bool(self.view_name))
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.details_button)
        row.addWidget(self.view_button)
        row.addStretch(1)
        return row

    def finish(
        self,
        ok: bool,
        *,
        duration_s: float | None = None,
        summary: str = "",
        error: str = "",
        error_kind: str = "",
    ) -> None:
        """`summary`: the line a person reads; `error`: the failure as the model read it
        (kept under Details)."""
        self.progress.stop()
        self.status = card_status(ok, error_kind)
        self.duration_s = duration_s
        if ok:
            self.summary.setText(summary or "done")
        else:
            first, _, rest = error.strip().partition("\n")
            shown = summary or first or "failed"
            self.summary.setText(shown)
            self.summary.setToolTip(error.strip()[:4000])
            # the rest of what the agent read; its first line only when the summary differs
            self.set_details(rest.strip() if first.strip() == shown else error.strip())
        self._show()

    def follow_jobs(self, tool_call_id: str, bus: EventBus | None = None) -> None:
        """While running, show the progress of the jobs whose JobStarted names the call."""
        bus = bus or self.bus
        if bus is not None and self.status == "running":
            self.progress.follow(bus, tool_call_id, self.started_jobs)

    def cite(self, result: Any) -> None:
        """Links to the places `result` cites ("[1] docs/x.pdf, page 7" of a search)."""
        places = cited_in_result(result) if self.cite_places else []
        self.citations.setText(links_html(places) if places else "")
        self.citations.setVisible(bool(places))

    def _citation_activated(self, link: str) -> None:
        target = target_of(link)
        if target:
            self.citation_opened.emit(target)

    def set_details(self, text: str) -> None:
        self.details.setText(text)
        self.details_button.setVisible(bool(text))
        if not text:
            self.details_button.setChecked(False)

    def _toggle_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_button.setText("Details ▾" if shown else "Details ▸")

    def open_view(self) -> None:
        if self.view_name:
            self.open_view_requested.emit(self.view_name, self.tool)

    def alive(self) -> bool:
        return shiboken6.isValid(self)

    def _show(self) -> None:
        colour = COLOURS[self.status]
        by = f"  ·  {self.agent}" if self.agent else ""
        self.title.setText(f"{STATUS_MARKS[self.status]} {self.tool}{by}")
        self.title.setStyleSheet(f"color: {colour}; font-weight: bold;")
        self.summary.setStyleSheet(
            f"color: {colour};" if self.status == "error" else f"color: {COLOURS['note']};"
        )
        if self.status == "running":
            self.summary.setText("running…")
        self.timing.setText(
            f"{self.status} · {self.duration_s:.2f} s"
            if self.duration_s is not None
            else self.status
        )
        self.setStyleSheet(
            "#tool-card { background: #ffffff; border: 1px solid #d0d7de;"
            f" border-left: 4px solid {colour}; border-radius: 4px; }}"
        )

    def plain_text(self) -> str:
        parts = [self.title.text(), self.timing.text(), self.arguments.text(), self.summary.text()]
        if self.progress.text():
            parts.append(self.progress.text())
        if self.details.text():
            parts.append(self.details.text())
        return "\n".join(parts)


def _link_button(text: str, name: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setFlat(True)
    button.setCursor(QCursor(Qt.CursorShape.PointingHandCursor))
    button.setStyleSheet(
        "QPushButton { color: #0969da; border: none; padding: 0 6px 0 0; text-align: left; }"
        " QPushButton:hover { text-decoration: underline; }"
    )
    button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    return button


class QuestionCard(ChatItem):
    """The agent asks the engineer something; the answer box resumes the run."""

    answered = Signal(str)

    def __init__(self, question: str, agent: str = "") -> None:
        super().__init__()
        self.setObjectName("question-card")
        self.setStyleSheet(
            "#question-card { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; }"
        )
        who = f"{agent} asks" if agent else "The agent asks"
        header = _label(who, style="font-weight: bold; color: #7d4e00;", selectable=False)
        self.question = _label(question)
        self.answer = QLineEdit()
        self.answer.setObjectName("question-answer")
        self.answer.setPlaceholderText("Your answer")
        self.answer.returnPressed.connect(self._submit)
        self.button = QPushButton("Answer")
        self.button.setObjectName("question-answer-button")
        self.button.clicked.connect(self._submit)
        row = QHBoxLayout()
        row.addWidget(self.answer, 1)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 5, 8, 6)
        layout.addWidget(header)
        layout.addWidget(self.question)
        layout.addLayout(row)
        self.given: str | None = None

    def submit(self, text: str) -> None:
        self.answer.setText(text)
        self._submit()

    def _submit(self) -> None:
        text = self.answer.text().strip()
        if not text or self.given is not None:
            return
        self.given = text
        self.answer.setReadOnly(True)
        self.button.setEnabled(False)
        self.button.setText("Answered")
        self.answered.emit(text)

    def plain_text(self) -> str:
        answer = f"\nAnswer: {self.given}" if self.given is not None else ""
        return f"Question: {self.question.text()}{answer}"


class NoteLine(ChatItem):
    """A small line: routing, what the runtime did, confirmations given, commands' output."""

    def __init__(
        self, text: str, *, colour: str = COLOURS["note"], mono: bool = False, detail: str = ""
    ) -> None:
        super().__init__()
        self.setObjectName("chat-note")
        self.label = _label(text, style=f"color: {colour};" + (MONO if mono else ""))
        if detail:  # what the model was told, for whoever wants it (hover)
            self.label.setToolTip(detail)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 1, 8, 1)
        layout.addWidget(self.label)

    def plain_text(self) -> str:
        return self.label.text()


class ErrorCard(ChatItem):
    """What went wrong and what to do; with an action (Retry) when there is one."""

    action = Signal()

    def __init__(self, text: str, action: str = "") -> None:
        super().__init__()
        self.setObjectName("error-card")
        self.setStyleSheet(
            "#error-card { background: #ffebe9; border: 1px solid #ff8182; border-radius: 6px; }"
        )
        self.label = _label(text, style=f"color: {COLOURS['error']};")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 5, 8, 6)
        layout.addWidget(self.label, 1)
        self.button: QPushButton | None = None
        if action:
            self.button = QPushButton(action)
            self.button.setObjectName("error-action")
            self.button.clicked.connect(self._act)
            layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)

    def _act(self) -> None:
        if self.button is not None:  # one retry per failure; a new failure brings a new card
            self.button.setEnabled(False)
        self.action.emit()

    def plain_text(self) -> str:
        return self.label.text()
