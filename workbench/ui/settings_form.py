"""A form generated from a pydantic model: one editor per field, nested models as groups.

Values are collected as the user typed them and validated by the model itself, so the rules live
in one place (the settings module) and every error comes back naming its field.

A list of models (e.g. a plugin's printer profiles) is not edited here: the form shows how many
there are, where they are edited (the field's `json_schema_extra` "edited_in"), and a button
when the field names an editor ("editor": "module:function(context, parent) -> QDialog"); the
list itself passes through untouched.
"""

from __future__ import annotations

import enum
import json
import types
import typing
from typing import Any

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

ERROR_STYLE = "color: #cf222e;"
# words a label spells the way people write them ("SSH hosts", "Base URL", not "Ssh hosts")
SPELLED = {
    "ssh": "SSH", "url": "URL", "urls": "URLs", "api": "API", "mcp": "MCP", "hpc": "HPC",
    "gpu": "GPU", "cpu": "CPU", "cpus": "CPUs", "id": "ID", "llm": "LLM", "http": "HTTP",
    "https": "HTTPS", "pdf": "PDF", "stl": "STL", "json": "JSON", "toml": "TOML", "omc": "OMC",
    "gcode": "G-code", "usb": "USB", "ip": "IP", "dpi": "DPI", "rag": "RAG",
}  # fmt: skip
INVALID_STYLE = "border: 1px solid #cf222e;"


def _without_none(annotation: Any) -> tuple[Any, bool]:
    """(X, True) for `X | None`, else (annotation, False)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1 and len(typing.get_args(annotation)) == 2:
            return options[0], True
    return annotation, False


def human_label(name: str) -> str:
    """A field name as a person reads it: `ssh_hosts` -> "SSH hosts", `base_url` -> "Base URL"."""
    words = [SPELLED.get(word.lower(), word.lower()) for word in name.split("_") if word]
    if not words:
        return name
    first = words[0]
    words[0] = first if first != first.lower() else first[:1].upper() + first[1:]
    return " ".join(words)


def _title(name: str, info: FieldInfo) -> str:
    return info.title or human_label(name)


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _is_model_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    return origin in (list, tuple) and any(_is_model(arg) for arg in typing.get_args(annotation))


def _extra(info: FieldInfo) -> dict[str, Any]:
    return info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}


def _is_secret(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, SecretStr)


def _plain(item: Any) -> Any:
    return item.model_dump(mode="json") if isinstance(item, BaseModel) else item


class FieldEditor:
    """One editor widget for one scalar-ish field, reading and writing plain Python values."""

    def __init__(self, path: str, annotation: Any, value: Any) -> None:
        self.path = path
        self.annotation, self.optional = _without_none(annotation)
        origin = typing.get_origin(self.annotation)
        self.choices: list[Any] | None = None
        self.as_json = False
        if origin is typing.Literal:
            self.choices = list(typing.get_args(self.annotation))
        elif isinstance(self.annotation, type) and issubclass(self.annotation, enum.Enum):
            self.choices = [member.value for member in self.annotation]
        self.widget: QWidget = self._make_widget(value, origin)
        self.widget.setObjectName(f"setting:{path}")

    def _make_widget(self, value: Any, origin: Any) -> QWidget:
        if self.annotation is bool:
            box = QCheckBox()
            box.setChecked(bool(value))
            return box
        if self.choices is not None:
            combo = QComboBox()
            if self.optional:
                combo.addItem("(none)", None)
            for choice in self.choices:
                combo.addItem(str(choice), choice)
            current = value.value if isinstance(value, enum.Enum) else value
            combo.setCurrentIndex(max(0, combo.findData(current)))
            return combo
        if origin in (list, tuple, set, frozenset) and typing.get_args(self.annotation)[:1] == (
            str,
        ):
            lines = QPlainTextEdit("\n".join(value or []))
            lines.setPlaceholderText("one per line")
            lines.setMaximumHeight(72)
            return lines
        text = QLineEdit()
        if self.annotation in (str, int, float) or getattr(self.annotation, "__name__", "") in (
            "Path",
            "PosixPath",
            "WindowsPath",
        ):
            text.setText("" if value is None else str(value))
        else:  # anything else is edited as JSON, so no type is unrepresentable
            self.as_json = True
            plain = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
            text.setText(json.dumps(plain, default=str))
            text.setPlaceholderText("a JSON value")
        if self.optional:
            text.setPlaceholderText("(empty: none)")
        return text

    def value(self) -> Any:
        widget = self.widget
        if isinstance(widget, QCheckBox):
            return widget.isChecked()
        if isinstance(widget, QComboBox):
            return widget.currentData()
        if isinstance(widget, QPlainTextEdit):
            return [line.strip() for line in widget.toPlainText().splitlines() if line.strip()]
        if not isinstance(widget, QLineEdit):
            raise TypeError(f"a settings field has an unexpected widget: {type(widget).__name__}")
        text = widget.text()
        if self.optional and not text.strip():
            return None
        if self.as_json:
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return text  # let the model reject it, naming the field
        if self.annotation in (int, float):
            return text.strip()  # pydantic parses "8192"; "abc" comes back as a named error
        return text


class ModelForm(QWidget):
    """Editors for the fields of `model`, prefilled from `values`; nested models become groups."""

    def __init__(
        self,
        model: type[BaseModel],
        values: BaseModel,
        *,
        prefix: str = "",
        skip: tuple[str, ...] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.prefix = prefix
        self.editors: dict[str, FieldEditor] = {}
        self.subforms: dict[str, ModelForm] = {}
        self.error_labels: dict[str, QLabel] = {}
        # lists of models shown as a count and passed through (see the module docstring)
        self.kept: dict[str, Any] = {}
        self.kept_labels: dict[str, QLabel] = {}
        self._kept_where: dict[str, str] = {}
        self.editor_buttons: dict[str, tuple[QPushButton, str]] = {}  # field -> (button, editor)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._layout.addLayout(form)
        for name, info in model.model_fields.items():
            if name in skip:
                continue
            annotation, _ = _without_none(info.annotation)
            if _is_secret(annotation):
                continue  # secrets belong in the keyring, never in this file
            path = f"{prefix}{name}"
            current = getattr(values, name, info.get_default(call_default_factory=True))
            if _is_model(annotation):
                self._add_group(name, info, annotation, current, path)
            elif _is_model_list(annotation):
                self._add_kept(form, name, info, current, path)
            else:
                self._add_field(form, name, info, current, path)

    def _add_field(
        self, form: QFormLayout, name: str, info: FieldInfo, value: Any, path: str
    ) -> None:
        editor = FieldEditor(path, info.annotation, value)
        if info.description:
            editor.widget.setToolTip(info.description)
        error = QLabel()
        error.setObjectName(f"error:{path}")
        error.setStyleSheet(ERROR_STYLE)
        error.setWordWrap(True)
        error.hide()
        cell = QWidget()
        column = QVBoxLayout(cell)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        column.addWidget(editor.widget)
        column.addWidget(error)
        label = QLabel(_title(name, info))
        if info.description:
            label.setToolTip(info.description)
        form.addRow(label, cell)
        self.editors[name] = editor
        self.error_labels[path] = error

    def _add_kept(
        self, form: QFormLayout, name: str, info: FieldInfo, value: Any, path: str
    ) -> None:
        label = QLabel()
        label.setObjectName(f"kept:{path}")
        label.setWordWrap(True)
        self.kept_labels[name] = label
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(label, 1)
        editor = _extra(info).get("editor")
        if isinstance(editor, str) and editor:
            button = QPushButton("Edit…")
            button.setObjectName(f"edit:{path}")
            line.addWidget(button)
            self.editor_buttons[name] = (button, editor)
        title = QLabel(_title(name, info))
        if info.description:
            title.setToolTip(info.description)
        form.addRow(title, row)
        self._kept_where[name] = str(_extra(info).get("edited_in") or "")
        self.keep(name, [_plain(item) for item in value or []])

    def keep(self, name: str, value: Any) -> None:
        """Set the passed-through value of list field `name` (e.g. after its editor saved)."""
        self.kept[name] = value
        count = len(value) if isinstance(value, list | tuple) else 0
        where = self._kept_where.get(name, "")
        said = f"{count} configured" if count else "none configured"
        self.kept_labels[name].setText(
            f"{said} — edit them in {where}" if where else f"{said} (not editable in this form)"
        )

    def _add_group(
        self, name: str, info: FieldInfo, model: type[BaseModel], value: Any, path: str
    ) -> None:
        group = QGroupBox(info.title or info.description or human_label(name))
        group.setObjectName(f"group:{path}")
        inner = QVBoxLayout(group)
        subform = ModelForm(model, value, prefix=f"{path}.", parent=group)
        inner.addWidget(subform)
        self._layout.addWidget(group)
        self.subforms[name] = subform

    def values(self) -> dict[str, Any]:
        """The raw values, nested like the model; not yet validated."""
        collected: dict[str, Any] = {name: editor.value() for name, editor in self.editors.items()}
        collected.update(self.kept)
        for name, subform in self.subforms.items():
            collected[name] = subform.values()
        return collected

    def all_error_labels(self) -> dict[str, QLabel]:
        labels = dict(self.error_labels)
        for subform in self.subforms.values():
            labels.update(subform.all_error_labels())
        return labels

    def editor_widgets(self) -> dict[str, QWidget]:
        widgets = {editor.path: editor.widget for editor in self.editors.values()}
        for subform in self.subforms.values():
            widgets.update(subform.editor_widgets())
        return widgets

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show each message under its field (by dotted path); clear the others."""
        widgets = self.editor_widgets()
        for path, label in self.all_error_labels().items():
            message = errors.get(path)
            label.setText(message or "")
            label.setVisible(bool(message))
            widgets[path].setStyleSheet(INVALID_STYLE if message else "")
