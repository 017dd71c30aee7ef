"""The shell plugin's Qt view (the only part of the plugin that imports Qt)."""

from PySide6.QtWidgets import QWidget

from workbench.core.context import AppContext
from workbench_plugins.shell.views.command_log import CommandLog


def command_log(context: AppContext) -> QWidget:
    return CommandLog(context)


__all__ = ["CommandLog", "command_log"]
