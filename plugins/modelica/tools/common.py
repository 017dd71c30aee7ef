"""What every Modelica tool shares: the `run` argument, finding that run, the plugin settings,
and the compact argument schema a model is shown."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import (
    DEFAULT_REF_TEMPLATE,
    GenerateJsonSchema,
    JsonSchemaMode,
    SkipJsonSchema,
)
from pydantic_core import core_schema

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.config import ModelicaSettings


def settings_of(context: ToolContext) -> ModelicaSettings:
    return context.app.settings.plugin("modelica", ModelicaSettings)


class CompactSchema(GenerateJsonSchema):
    """JSON schema without what a model does not need. Every schema token is paid on each model
    call, so: no titles (the field names say it); `X` instead of `anyOf [X, null]` with
    `default: null` (an optional field is simply not required); `$ref`s inlined (each
    sub-schema is used once); no empty defaults, bounds, or type of an enum. Validation is
    unchanged: only the schema shown differs."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def nullable_schema(self, schema: core_schema.NullableSchema) -> dict[str, Any]:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> dict[str, Any]:
        shown = super().default_schema(schema)
        if shown.get("default", 0) is None:
            shown.pop("default")
        return shown

    def generate(
        self, schema: core_schema.CoreSchema, mode: JsonSchemaMode = "validation"
    ) -> dict[str, Any]:
        generated = super().generate(schema, mode)
        definitions = generated.pop("$defs", {})
        shown = _inlined(generated, definitions)
        shown.pop("title", None)
        return shown


# bounds too: a value out of range comes back as a validation error naming the bound
_UNNEEDED = frozenset(
    {
        "title",
        "discriminator",
        "minLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    }
)
_UNNEEDED_VALUES = (("additionalProperties", True), ("default", ""))


def _inlined(node: Any, definitions: dict[str, Any]) -> Any:
    """`node` with every `$ref` replaced by its definition, and no titles or discriminators."""
    if isinstance(node, list):
        return [_inlined(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        node = {**definitions[ref.rsplit("/", 1)[-1]], **node}
        node.pop("$ref")
    shown: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and "enum" in node:  # the values say the type
            continue
        if key == "properties":  # a map of field names, not a schema: keep every name
            shown[key] = {name: _inlined(field, definitions) for name, field in value.items()}
        elif key not in _UNNEEDED and (key, value) not in _UNNEEDED_VALUES:
            shown[key] = _inlined(value, definitions)
    return shown


class ToolArgs(BaseModel):
    """Arguments of a Modelica tool, shown to a model with the compact schema."""

    @classmethod
    def model_json_schema(
        cls,
        by_alias: bool | None = None,
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = CompactSchema,
        mode: JsonSchemaMode = "validation",
        **options: Any,
    ) -> dict[str, Any]:
        return super().model_json_schema(by_alias, ref_template, schema_generator, mode, **options)


class RunArg(ToolArgs):
    # said once in the specialist's prompt instead of in every schema (the harness fills it in)
    run: SkipJsonSchema[str | None] = None


def optional_run(args: RunArg, context: ToolContext) -> harness.Run | None:
    """The task run the call names, or the single running one; None outside task runs. A run
    another caller's loop drives is refused (harness.find_run)."""
    return harness.find_run(args.run, context.caller)


def watched_run(args: RunArg) -> harness.Run:
    """The named (or single running) run, to read only: any caller may watch any run."""
    return _required(harness.find_run(args.run))


def required_run(args: RunArg, context: ToolContext) -> harness.Run:
    """As `optional_run`, for tools that only make sense on a task's ledger."""
    return _required(harness.find_run(args.run, context.caller))


def _required(run: harness.Run | None) -> harness.Run:
    if run is None:
        raise ToolFailure(
            "No Modelica task run is active, and this tool works on a task's ledger.",
            "Start a task run (harness.start_run) or name it with 'run'.",
        )
    return run
