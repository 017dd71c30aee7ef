"""The Documents view on an app context: the workspace's index, and the events that say it
changed. A citation in the chat reaches `DocumentsView.show_target` through the window."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from workbench.core.context import AppContext
from workbench.core.events import ToolCalled
from workbench.ui.bridge import subscribe_in_gui
from workbench_plugins.retrieval.tools.documents import DocumentsIndexing
from workbench_plugins.retrieval.views.backend import DocumentsBackend
from workbench_plugins.retrieval.views.documents_view import DocumentsView

VIEW_NAME = "documents"
CHANGES_INDEX = ("add_document", "delete_document")


def documents_view(context: AppContext) -> QWidget:
    view = DocumentsView(DocumentsBackend(context), context.bus)

    def tool_called(event: ToolCalled) -> None:
        if event.tool in CHANGES_INDEX and event.ok:
            view.refresh()

    subscribe_in_gui(context.bus, ToolCalled, tool_called, view)
    subscribe_in_gui(context.bus, DocumentsIndexing, view.indexing_elsewhere, view)
    return view
