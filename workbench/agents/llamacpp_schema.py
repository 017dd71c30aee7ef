"""The JSON a local model may write, as one JSON schema that llama.cpp turns into a grammar.

A reply of a model bound to tools is one JSON object: `{"tool": NAME, "arguments": {...}}` with
the arguments of that tool's own schema, or `{"answer": TEXT}` (left out when a tool is required).
A structured-output call's reply is the answer schema itself. The grammar is applied token by
token, so a small model cannot write a tool name that is not bound, an argument that is not in
the schema, or text that is not JSON (only a reply cut off by the token limit can still break).

Schemas are tightened first, where llama.cpp's converter is looser than the tools' validation:
no properties beyond the declared ones (the tools forbid extra fields), integer and decimal
ranges written out (the converter ignores minimum and maximum), and strings and lists of bounded
length (a small model repeating itself would otherwise run into the token limit mid-JSON).
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

TOOL_KEY = "tool"
ARGUMENTS_KEY = "arguments"
ANSWER_KEY = "answer"
MAX_ENUMERATED_RANGE = 64  # an integer range up to this many values becomes an enum
# a small model can repeat a phrase inside a string until the token limit cuts the JSON off;
# a string with no limit of its own ends here (in characters; a reply has 512 tokens)
MAX_STRING = 240
MAX_ANSWER = 1200
MAX_ITEMS = 8  # the same for a list (a judge repeated one error until the reply was cut off)
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {ANSWER_KEY: {"type": "string", "maxLength": MAX_ANSWER}},
    "required": [ANSWER_KEY],
    "additionalProperties": False,
}


def tool_name(tool: dict[str, Any]) -> str:
    return str(tool["function"]["name"])


def reply_schema(tools: list[dict[str, Any]], *, answer: bool) -> dict[str, Any]:
    """One object per bound tool (its name as a constant, then its arguments), and with `answer`
    the final-answer object; each tool's `$defs` renamed so that two tools' never collide."""
    choices: list[dict[str, Any]] = []
    defs: dict[str, Any] = {}
    for index, tool in enumerate(tools):
        parameters = tool["function"].get("parameters") or {"type": "object", "properties": {}}
        prefix = f"t{index}_"
        for name, definition in (parameters.get("$defs") or {}).items():
            defs[prefix + name] = tightened(_renamed_refs(definition, prefix))
        arguments = {k: v for k, v in parameters.items() if k != "$defs"}
        choices.append(
            {
                "type": "object",
                "properties": {
                    TOOL_KEY: {"const": tool_name(tool)},
                    ARGUMENTS_KEY: tightened(_renamed_refs(arguments, prefix)),
                },
                "required": [TOOL_KEY, ARGUMENTS_KEY],
                "additionalProperties": False,
            }
        )
    if answer or not choices:
        choices.append(ANSWER_SCHEMA)
    schema: dict[str, Any] = choices[0] if len(choices) == 1 else {"oneOf": choices}
    return {**schema, "$defs": defs} if defs else schema


def _renamed_refs(schema: Any, prefix: str) -> Any:
    if isinstance(schema, dict):
        return {
            key: (
                value.replace("#/$defs/", f"#/$defs/{prefix}")
                if key == "$ref" and isinstance(value, str)
                else _renamed_refs(value, prefix)
            )
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_renamed_refs(item, prefix) for item in schema]
    return schema


def tightened(schema: Any) -> Any:
    """`schema` with objects closed to undeclared properties and small integer ranges
    enumerated, recursively (everything else as it was)."""
    if isinstance(schema, list):
        return [tightened(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: (
            {name: tightened(sub) for name, sub in value.items()}
            if key in ("properties", "$defs") and isinstance(value, dict)
            else tightened(value)
        )
        for key, value in schema.items()
    }
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if out.get("type") == "string" and not {"maxLength", "pattern", "format", "enum"} & set(out):
        out["maxLength"] = MAX_STRING
    if out.get("type") == "array" and "maxItems" not in out:  # a list repeated to the limit
        least = out.get("minItems", 0)
        out["maxItems"] = max(MAX_ITEMS, least if isinstance(least, int) else 0)
    values = _integer_range(out)
    if values is not None:
        out = {k: v for k, v in out.items() if k not in ("type", "minimum", "maximum")}
        out["enum"] = values
    elif (marker := _number_range(out)) is not None:
        out = {"const": marker}  # written as a grammar rule of its own by `grammar_text`
    return out


def _number_range(schema: dict[str, Any]) -> str | None:
    """A placeholder for a number between two whole, non-negative bounds not far apart, e.g. a
    volume fraction 0-1 or a 0-10 score; None for any other number."""
    if schema.get("type") != "number" or "enum" in schema:
        return None
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None or high is None or low != int(low) or high != int(high):
        return None
    if not 0 <= low < high <= low + MAX_ENUMERATED_RANGE:
        return None
    return f"{RANGE_MARK}{int(low)}_{int(high)}"


def _range_rule(low: int, high: int) -> str:
    """GBNF for a decimal number in [low, high]: a whole part below `high` with up to 6 decimals,
    or `high` itself (with zeros only)."""
    wholes = " | ".join(f'"{value}"' for value in range(low, high))
    return f'(({wholes}) ("." [0-9]{{1,6}})? | "{high}" ("." "0"{{1,6}})?)'


def _integer_range(schema: dict[str, Any]) -> list[int] | None:
    """The values of a bounded integer schema with few enough of them, else None."""
    if schema.get("type") != "integer" or "enum" in schema:
        return None
    low = schema.get("minimum", _after(schema.get("exclusiveMinimum")))
    high = schema.get("maximum", _before(schema.get("exclusiveMaximum")))
    if low is None or high is None or high - low >= MAX_ENUMERATED_RANGE:
        return None
    return list(range(int(low), int(high) + 1))


def _after(bound: float | None) -> int | None:
    return None if bound is None else math.floor(bound) + 1


def _before(bound: float | None) -> int | None:
    return None if bound is None else math.ceil(bound) - 1


# the converter writes "up to n chars" as n nested optional groups, which llama.cpp's sampler
# walks at every token (a 240-deep string made each token several times slower); GBNF's own
# bounded repetition says the same
RANGE_MARK = "__number_range_"
RANGE_LITERAL = re.compile(r'"\\"__number_range_(\d+)_(\d+)\\""')
NESTED_CHARS = re.compile(r"(?:\(char )*\(char(?:\)\?)+")


@lru_cache(maxsize=64)
def grammar_text(schema_json: str) -> str:
    """The GBNF grammar of a JSON schema (cached: the same tools are bound call after call)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf = json_schema_to_gbnf(schema_json)
    gbnf = NESTED_CHARS.sub(lambda found: f"char{{0,{found.group(0).count('(char')}}}", gbnf)
    return RANGE_LITERAL.sub(
        lambda found: _range_rule(int(found.group(1)), int(found.group(2))), gbnf
    )


def grammar_for(schema: dict[str, Any]) -> Any:
    """A llama_cpp LlamaGrammar for `schema`."""
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(grammar_text(json.dumps(schema)))  # key order: name first


def describe_tools(tools: list[dict[str, Any]], *, answer: bool) -> str:
    """The tools as the model reads them (a line per tool and argument), and how to reply."""
    lines = ["You can call these tools:"]
    for tool in tools:
        function = tool["function"]
        lines.append(f"- {function['name']}: {function.get('description', '')}".rstrip())
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required") or [])
        for name, schema in (parameters.get("properties") or {}).items():
            need = "required" if name in required else "optional"
            kind = _kind(schema)
            about = schema.get("description", "")
            lines.append(f"    {name} ({', '.join(p for p in (kind, need) if p)}): {about}")
    lines.append(
        'Reply with one JSON object: {"tool": "<tool name>", "arguments": {...}} to call a tool'
        + (', or {"answer": "<your reply>"} when no tool is needed.' if answer else ".")
    )
    return "\n".join(lines)


def _kind(schema: dict[str, Any]) -> str:
    """A property's type in a word or two ("integer", "string or null", "one of 1, 2")."""
    if choices := _choices(schema):
        return f"one of {choices}"
    if "type" in schema:
        return str(schema["type"])
    options = [str(option.get("type", "")) for option in schema.get("anyOf", [])]
    return " or ".join(option for option in options if option)


def _choices(schema: dict[str, Any]) -> str:
    values = schema.get("enum") or [
        option.get("const") for option in schema.get("anyOf", []) if "const" in option
    ]
    return ", ".join(json.dumps(value) for value in values)
