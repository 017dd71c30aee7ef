"""The MCP servers plugin's Qt view (the only part of the plugin that imports Qt): the servers,
their tests and their world tools; also the settings dialog's editor of the servers list."""

from PySide6.QtWidgets import QDialog, QWidget

from workbench.core.context import AppContext
from workbench_plugins.mcp_servers.views.servers_view import McpServersDialog, McpServersView


def servers_view(context: AppContext) -> QWidget:
    return McpServersView(context)


def open_servers_dialog(context: AppContext, parent: QWidget | None = None) -> QDialog:
    """Open the MCP servers dialog (window-modal, without blocking) and return it."""
    dialog = McpServersDialog(context, parent)
    dialog.open()
    return dialog


__all__ = ["McpServersDialog", "McpServersView", "open_servers_dialog", "servers_view"]
