"""What a local model reads and how its JSON reply is read back (`llamacpp.LlamaCppChatModel`).

The conversation goes out as plain ChatML turns: one system turn (llama.cpp's ChatML keeps only
the first) with the tools' description, earlier tool calls shown as the JSON objects the model
itself writes, tool results and later system notes as user turns (ChatML has no tool role). A
reply is read back into an AIMessage: a tool call, the answer's text, or (a reply cut off by the
token limit) an invalid tool call that says so.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_json_schema
from pydantic import BaseModel

from workbench.agents.llamacpp_schema import ANSWER_KEY, ARGUMENTS_KEY, TOOL_KEY

NAMED_TOOL = re.compile(r'"tool"\s*:\s*"([^"]+)"')
STARTED_ANSWER = re.compile(r'^\s*\{\s*"answer"\s*:\s*"(.*)', re.DOTALL)


def choice_of(tool_choice: Any) -> str:
    """LangChain's tool_choice values as ours: "auto", "required", "none" or a tool's name."""
    if tool_choice in (None, "auto", False):
        return "auto"
    if tool_choice in ("any", "required", True):
        return "required"
    if tool_choice == "none":
        return "none"
    if isinstance(tool_choice, dict):
        return str((tool_choice.get("function") or {}).get("name") or tool_choice.get("name"))
    return str(tool_choice)


def json_schema_of(schema: dict[str, Any] | type) -> dict[str, Any]:
    """The JSON schema of a structured-output schema (a pydantic class, a TypedDict, a dict)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, dict) and "properties" in schema:
        return schema
    return convert_to_json_schema(schema)


def structured_parser(schema: dict[str, Any] | type) -> Runnable:
    """Reads the reply's text into the schema's class (pydantic), else into a dict."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return PydanticOutputParser(pydantic_object=schema)
    return JsonOutputParser()


def chat_messages(
    messages: list[BaseMessage], guide: str, *, json_replies: bool
) -> list[dict[str, str]]:
    """The conversation as OpenAI-shaped ChatML turns; `guide` (the tools and how to reply) goes
    into the system message; with `json_replies`, earlier answers are shown as JSON objects too,
    so the model sees one reply format throughout."""
    names = {
        call["id"]: call["name"]
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    }
    turns: list[dict[str, str]] = []
    system = [_text(m.content) for m in messages[:1] if isinstance(m, SystemMessage)]
    for message in messages[len(system) :]:
        text = _text(message.content) or "(empty)"  # llama.cpp's ChatML drops an empty turn's end
        if isinstance(message, SystemMessage):  # a note mid-way (llama.cpp keeps one system turn)
            turns.append({"role": "user", "content": f"(Note: {text})"})
        elif isinstance(message, ToolMessage):
            name = names.get(message.tool_call_id, "the tool")
            turns.append({"role": "user", "content": f"Result of {name}:\n{text}"})
        elif isinstance(message, AIMessage):
            turns.append({"role": "assistant", "content": _assistant(message, json_replies)})
        else:
            turns.append({"role": "user", "content": text})
    instructions = "\n\n".join(part for part in [*system, guide] if part)
    return [{"role": "system", "content": instructions}, *turns] if instructions else turns


def _assistant(message: AIMessage, json_replies: bool) -> str:
    calls = [
        json.dumps({TOOL_KEY: call["name"], ARGUMENTS_KEY: call["args"]})
        for call in message.tool_calls
    ]
    text = _text(message.content)
    if calls:
        return "\n".join(calls)
    if json_replies:
        return json.dumps({ANSWER_KEY: text})
    return text or "(no reply)"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        block if isinstance(block, str) else str(block.get("text", ""))
        for block in content
        if isinstance(block, str) or block.get("type") == "text"
    )


def read_reply(text: str) -> AIMessage:
    """A grammar-constrained reply as an AIMessage. The grammar allows only valid objects, so a
    reply that does not parse was cut off (the token limit, a run's deadline): an invalid tool
    call naming the tool when it got that far, else the answer's text so far."""
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    try:
        reply = json.loads(text, strict=False)  # the grammar lets a raw newline into a string
    except json.JSONDecodeError as error:
        if named := NAMED_TOOL.search(text):
            invalid = {
                "name": named.group(1),
                "args": text,
                "id": call_id,
                "error": f"the reply was cut off before its arguments were complete ({error})",
                "type": "invalid_tool_call",
            }
            return AIMessage(content="", invalid_tool_calls=[invalid])
        started = STARTED_ANSWER.match(text)
        return AIMessage(content=_partial_string(started.group(1)) if started else text)
    if isinstance(reply, dict) and TOOL_KEY in reply:
        arguments = reply.get(ARGUMENTS_KEY)
        call = {
            "name": str(reply[TOOL_KEY]),
            "args": arguments if isinstance(arguments, dict) else {},
            "id": call_id,
            "type": "tool_call",
        }
        return AIMessage(content="", tool_calls=[call])
    if isinstance(reply, dict) and isinstance(reply.get(ANSWER_KEY), str):
        return AIMessage(content=reply[ANSWER_KEY])
    return AIMessage(content=text)


def _partial_string(body: str) -> str:
    """The text of a JSON string cut off part way (escapes decoded where they are whole)."""
    for end in range(len(body), max(len(body) - 8, -1), -1):
        try:
            return str(json.loads(f'"{body[:end]}"'))
        except json.JSONDecodeError:
            continue
    return body
