"""The settings dialog: a form generated from the `Settings` model and each plugin's own model.

One section per plugin, picked from a list on the left (General first), each on its own page, so
the dialog stays compact at 1024x700 rather than one long scroll; fields carry human labels
(settings_form.human_label). OK validates everything first; on any error nothing is saved, the
dialog stays open with every typed value intact, turns to the first section with a problem, and
each message sits under the field it names.

A plugin's list of models (its printer profiles, say) is edited in the plugin's own dialog: the
form shows a count and, when the field names one, a button opening that editor (loaded by
reference, so this module imports no plugin). On OK such a list is taken from the settings as
they are then, so what that editor saved meanwhile is kept.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.plugins import load_reference
from workbench.core.settings import Settings, SettingsError
from workbench.ui.settings_form import ERROR_STYLE, ModelForm

log = logging.getLogger(__name__)


def _problems(error: ValidationError, prefix: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    for item in error.errors(include_url=False):
        path = prefix + ".".join(str(part) for part in item["loc"])
        found.setdefault(path, item["msg"])
    return found


class SettingsDialog(QDialog):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle("Settings")
        self.resize(820, 540)  # fits a 1024x700 screen with the window's frame
        self.context = context
        settings = context.settings

        self.summary = QLabel()
        self.summary.setObjectName("settings-errors")
        self.summary.setStyleSheet(ERROR_STYLE)
        self.summary.setWordWrap(True)
        self.summary.hide()

        self.sections = QListWidget()
        self.sections.setObjectName("settings-sections")
        self.pages = QStackedWidget()
        self.pages.setObjectName("settings-pages")
        self.sections.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.section_of: dict[str, int] = {}  # a field path's prefix -> its page

        self.core_form = ModelForm(Settings, settings, skip=("plugins",))
        for button, editor in self.core_form.editor_buttons.values():  # the Models dialog
            button.clicked.connect(lambda _=False, e=editor: self.open_editor("", e))
        self._add_section("General", self.core_form, "")

        self.plugin_forms: dict[str, ModelForm] = {}
        for plugin in context.plugins:
            if plugin.settings is None:
                continue
            page = self._plugin_group(plugin.name, plugin.title, plugin.settings)
            self._add_section(plugin.title, page, f"plugins.{plugin.name}.")
        self.sections.setCurrentRow(0)
        self.sections.setFixedWidth(
            min(200, self.sections.sizeHintForColumn(0) + 2 * self.sections.frameWidth() + 8)
        )

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons

        body = QHBoxLayout()
        body.addWidget(self.sections)
        body.addWidget(self.pages, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(body, 1)
        where = QLabel(f"OK writes to {context.paths.settings_file}")
        where.setObjectName("settings-file")
        layout.addWidget(where)
        layout.addWidget(buttons)

    def _add_section(self, title: str, content: QWidget, prefix: str) -> None:
        """One page: `content` (scrolling only if a section outgrows the dialog)."""
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(4, 0, 4, 0)
        column.addWidget(content)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setObjectName(f"section:{title}")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(page)
        self.section_of[prefix] = self.pages.addWidget(scroll)
        self.sections.addItem(title)

    def section_at(self, path: str) -> int:
        """The page holding the field at dotted `path` (its plugin's, else General)."""
        found = [prefix for prefix in self.section_of if prefix and path.startswith(prefix)]
        return self.section_of[max(found, key=len)] if found else 0

    def _plugin_group(self, name: str, title: str, model: type[BaseModel]) -> QGroupBox:
        group = QGroupBox(title)  # the section's own page: its title says which plugin
        group.setObjectName(f"group:plugins.{name}")
        group.setFlat(True)
        layout = QVBoxLayout(group)
        try:
            current = self.context.settings.plugin(name, model)
        except SettingsError as invalid:
            # The file holds values this plugin rejects: start from defaults and say so.
            warning = QLabel(f"{invalid} The form shows the defaults.")
            warning.setWordWrap(True)
            warning.setStyleSheet(ERROR_STYLE)
            layout.addWidget(warning)
            current = model()
        form = ModelForm(model, current, prefix=f"plugins.{name}.")
        for button, editor in form.editor_buttons.values():
            button.clicked.connect(lambda _=False, e=editor, n=name: self.open_editor(n, e))
        layout.addWidget(form)
        self.plugin_forms[name] = form
        return group

    def open_editor(self, plugin: str, reference: str) -> QDialog | None:
        """Open a plugin's own editor of one of its lists; the count follows what it saves."""
        try:
            dialog: QDialog = load_reference(reference)(self.context, self)
        except Exception as error:  # a plugin's editor that fails to open must not take this down
            log.exception("editor %s failed to open", reference)
            self._show_errors({}, f"Cannot open that editor ({reference}): {error}")
            return None
        dialog.finished.connect(lambda _result: self._refresh_kept(plugin))
        return dialog

    def _refresh_kept(self, plugin: str) -> None:
        if not plugin:  # a list of the core settings (model profiles)
            saved = self.context.settings.model_dump(mode="json")
            for field in self.core_form.kept:
                self.core_form.keep(field, saved.get(field, []))
            return
        form = self.plugin_forms[plugin]
        section = self.context.settings.plugins.get(plugin, {})
        for field in form.kept:
            form.keep(field, section.get(field, []))

    # -- OK -------------------------------------------------------------------------------------
    def collect(self) -> tuple[Settings | None, dict[str, str]]:
        """The validated new settings, or None and every problem by dotted field path."""
        errors: dict[str, str] = {}
        raw: dict[str, Any] = self.core_form.values()
        # Sections of plugins not installed right now are kept as they are: nothing is lost.
        sections = dict(self.context.settings.plugins)
        for name, form in self.plugin_forms.items():
            raw_section = self.context.settings.plugins.get(name, {})
            typed = form.values()
            for field in form.kept:  # as saved now (maybe by the plugin's own editor), untouched
                if field in raw_section:
                    typed[field] = raw_section[field]
                else:
                    typed.pop(field, None)
            try:
                values = form.model.model_validate(typed)
            except ValidationError as invalid:
                errors.update(_problems(invalid, prefix=f"plugins.{name}."))
                continue
            sections[name] = values.model_dump(mode="json", exclude_none=True)
        raw["plugins"] = sections
        try:
            settings = Settings.model_validate(raw)
        except ValidationError as invalid:
            errors.update(_problems(invalid))
            return None, errors
        return (None if errors else settings), errors

    def accept(self) -> None:
        settings, errors = self.collect()
        if settings is None:
            self._show_errors(errors)
            return
        previous = self.context.settings
        self.context.settings = settings
        try:
            self.context.save_settings()
        except (OSError, SettingsError) as failure:
            self.context.settings = previous
            self._show_errors({}, f"Nothing was saved: {failure}")
            return
        super().accept()

    def _show_errors(self, errors: dict[str, str], headline: str = "") -> None:
        known = self.core_form.all_error_labels().keys() | {
            path for form in self.plugin_forms.values() for path in form.all_error_labels()
        }
        placed = {_nearest_field(path, known): message for path, message in errors.items()}
        self.core_form.show_errors(placed)
        for form in self.plugin_forms.values():
            form.show_errors(placed)
        lines = [headline] if headline else []
        if errors:
            # turn to the first section with a problem, where it can be fixed
            self.sections.setCurrentRow(min(self.section_at(path) for path in errors))
            lines.append(f"Not saved. Fix {len(errors)} field(s):")
            lines += [f"• {path}: {message}" for path, message in errors.items()]
        self.summary.setText("\n".join(lines))
        self.summary.setVisible(bool(lines))


def _nearest_field(path: str, known: set[str]) -> str:
    """Map an error at `ssh_hosts.2` to the editor of `ssh_hosts`."""
    parts = path.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return path
