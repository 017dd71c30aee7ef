"""The steps of the first-run guide that plugins provide: adding a printer, an SSH host, a
documents folder. Qt-free, and found generically: a plugin's settings field that names an editor
(json_schema_extra "editor": "module:function(context, parent) -> QDialog", as the settings form
uses it) and says which step it is ("setup_step", or a well-known field name such as `printers`).
A step no installed plugin provides does not show; the core never imports a plugin.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench.core.plugins import Plugin

# kind -> (title, what it is for); the guide shows them in this order
STEP_KINDS: dict[str, tuple[str, str]] = {
    "printer": (
        "Add a printer",
        "A USB printer or a PrusaLink address; the dialog tests the connection before you rely "
        "on it, and keeps keys in the system keyring.",
    ),
    "ssh_host": (
        "Add an SSH host",
        "A cluster or workstation to run long jobs on (user@host; keys through ssh-agent).",
    ),
    "documents": (
        "Add a documents folder",
        "Datasheets, standards and notes the agent may search and cite.",
    ),
}
# settings field names that mean a step when the field does not say ("setup_step")
FIELD_KINDS = {
    "printers": "printer",
    "ssh_hosts": "ssh_host",
    "hosts": "ssh_host",
    "documents": "documents",
    "document_folders": "documents",
    "documents_folders": "documents",
}


@dataclass(frozen=True)
class SetupStep:
    kind: str  # a key of STEP_KINDS
    title: str
    text: str
    plugin: str  # the plugin's title
    editor: str  # "module:function", called with (context, parent), returns a QDialog


def setup_steps(plugins: Iterable[Plugin]) -> list[SetupStep]:
    """Every step some installed plugin provides an editor for, in the guide's order."""
    found: list[SetupStep] = []
    for plugin in plugins:
        if plugin.settings is None:
            continue
        for name, info in plugin.settings.model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            editor, kind = extra.get("editor"), extra.get("setup_step") or FIELD_KINDS.get(name)
            if isinstance(editor, str) and editor and kind in STEP_KINDS:
                title, text = STEP_KINDS[str(kind)]
                found.append(SetupStep(str(kind), title, text, plugin.title, editor))
    order = list(STEP_KINDS)
    return sorted(found, key=lambda step: order.index(step.kind))
