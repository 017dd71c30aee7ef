"""The llama.cpp backend's own tool calls and structured output, with a FAKE llama (no model file):
what grammar and prompt go out, and how replies come back. The real model: test_structured_*."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, Field

from tests.rigs.require import require_module
from workbench.agents.llamacpp import LlamaCppChatModel
from workbench.agents.llamacpp_reply import chat_messages, read_reply
from workbench.agents.llamacpp_schema import (
    MAX_ITEMS,
    MAX_STRING,
    grammar_text,
    reply_schema,
    tightened,
)

require_module("llama_cpp", "the embedded extra (pip install 'workbench[embedded]')")


class Verdict(BaseModel):
    """A judge's verdict, as the judging plugin's (a pydantic class, not an OpenAI dict)."""

    score: float = Field(ge=0, le=10)
    level: int = Field(ge=1, le=3)
    comment: str = ""


class FakeLlama:
    """A FAKE llama_cpp.Llama: records each request and answers the next scripted text."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.asked: list[dict[str, Any]] = []

    def create_chat_completion(self, **request: Any) -> dict[str, Any]:
        self.asked.append(request)
        usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
        return {"choices": [{"message": {"content": self.texts.pop(0)}}], "usage": usage}


def add_tool(name: str = "add") -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"$ref": "#/$defs/Term"}},
        "required": ["a", "b"],
        "$defs": {"Term": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def test_structured_output_of_a_pydantic_class_with_a_fake_llama() -> None:
    """The judge's call that ended in "Verdict cannot be parametrized" (a pydantic class handed
    to llama.cpp's tool handler as if it were a dict) now gets a grammar of its schema."""
    fake = FakeLlama('{"score": 7.5, "level": 2, "comment": "fine"}', '{"score": 7.5}')
    structured = LlamaCppChatModel(llama=fake).with_structured_output(Verdict, include_raw=True)
    result = structured.invoke("Judge this.")
    assert result["parsed"] == Verdict(score=7.5, level=2, comment="fine")
    assert result["parsing_error"] is None and result["raw"].usage_metadata["input_tokens"] == 11
    [asked] = fake.asked
    assert "tools" not in asked or asked["tools"] is None
    grammar = asked["grammar"]._grammar
    assert 'level ::= "1" | "2" | "3"' in grammar  # a small integer range, written out
    assert f"char{{0,{MAX_STRING}}}" in grammar  # a string cannot run to the token limit
    missing = structured.invoke("Again.")  # a reply without the required level: not parsed
    assert missing["parsed"] is None and missing["parsing_error"] is not None


def test_tool_calls_go_through_one_grammar_of_the_bound_tools_with_a_fake_llama() -> None:
    fake = FakeLlama(
        '{"tool": "add", "arguments": {"a": 2, "b": {"x": 3}}}',
        '{"answer": "The sum is 5."}',
    )
    model = LlamaCppChatModel(llama=fake).bind_tools([add_tool(), add_tool("mul")])
    called = model.invoke([("system", "You add."), ("user", "Add 2 and 3.")])
    assert called.tool_calls[0]["name"] == "add"
    assert called.tool_calls[0]["args"] == {"a": 2, "b": {"x": 3}}
    answered = model.invoke("Thanks")
    assert answered.content == "The sum is 5." and not answered.tool_calls
    system = fake.asked[0]["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You add.")
    assert "- add:" in system["content"] and "- mul:" in system["content"]
    grammar = fake.asked[0]["grammar"]._grammar
    assert '"\\"add\\""' in grammar and '"\\"mul\\""' in grammar and "answer" in grammar


def test_a_required_tool_leaves_no_answer_in_the_grammar_with_a_fake_llama() -> None:
    fake = FakeLlama('{"tool": "add", "arguments": {"a": 1, "b": {}}}')
    LlamaCppChatModel(llama=fake).bind_tools([add_tool()], tool_choice="any").invoke("Add.")
    assert "answer" not in fake.asked[0]["grammar"]._grammar


def test_each_tools_defs_are_kept_apart_and_objects_closed() -> None:
    schema = reply_schema([add_tool("add"), add_tool("mul")], answer=True)
    assert set(schema["$defs"]) == {"t0_Term", "t1_Term"}
    first, second, answer = schema["oneOf"]
    assert first["properties"]["arguments"]["properties"]["b"] == {"$ref": "#/$defs/t0_Term"}
    assert second["properties"]["arguments"]["properties"]["b"] == {"$ref": "#/$defs/t1_Term"}
    assert schema["$defs"]["t1_Term"]["additionalProperties"] is False
    assert answer["required"] == ["answer"]
    grammar = grammar_text(json.dumps(schema))
    assert "root ::=" in grammar and "t1-Term" in grammar.replace("_", "-")


def test_tightening_keeps_bounds_it_cannot_write_and_open_ranges() -> None:
    wide = {"type": "integer", "minimum": 1, "maximum": 10_000}
    assert tightened(wide) == wide
    assert tightened({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 4}) == {
        "enum": [1, 2, 3],
        "exclusiveMinimum": 0,
        "exclusiveMaximum": 4,
    }
    assert tightened({"type": "string", "enum": ["a"]}) == {"type": "string", "enum": ["a"]}


def test_a_reply_cut_off_mid_arguments_is_an_invalid_call_naming_its_tool() -> None:
    cut = read_reply('{"tool": "add", "arguments": {"a": 2, "b": {"x"')
    assert not cut.tool_calls and cut.invalid_tool_calls[0]["name"] == "add"
    assert "cut off" in cut.invalid_tool_calls[0]["error"]
    answer = read_reply('{"answer": "The beam is 2 m lo')
    assert answer.content == "The beam is 2 m lo" and not answer.invalid_tool_calls
    newline = read_reply('{"answer": "two\nlines"}')  # the grammar allows a raw newline
    assert newline.content == "two\nlines"


def test_history_shows_calls_as_json_and_results_as_user_turns() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    history = [
        HumanMessage("Add 2 and 3."),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2}, "id": "c1"}]),
        ToolMessage('{"total": 5}', tool_call_id="c1"),
        AIMessage("Done."),
    ]
    turns = chat_messages(history, "TOOLS", json_replies=True)
    assert turns[0] == {"role": "system", "content": "TOOLS"}
    assert json.loads(turns[2]["content"]) == {"tool": "add", "arguments": {"a": 2}}
    assert turns[3] == {"role": "user", "content": 'Result of add:\n{"total": 5}'}
    assert json.loads(turns[4]["content"]) == {"answer": "Done."}


@pytest.mark.parametrize("choice", ["add", {"type": "function", "function": {"name": "add"}}])
def test_a_named_tool_choice_offers_that_tool_only(choice: Any) -> None:
    model = LlamaCppChatModel(llama=FakeLlama()).bind_tools(
        [add_tool(), add_tool("mul")], tool_choice=choice
    )
    tools, answer = model.offered()
    assert [t["function"]["name"] for t in tools] == ["add"] and not answer


def test_a_bounded_number_is_written_as_its_range_in_the_grammar() -> None:
    schema = tightened(
        {
            "type": "object",
            "properties": {
                "fraction": {"type": "number", "minimum": 0, "maximum": 1},
                "load": {"type": "number", "minimum": 0, "maximum": 10_000},
            },
        }
    )
    grammar = grammar_text(json.dumps(schema))
    assert 'fraction ::= (("0") ("." [0-9]{1,6})? | "1" ("." "0"{1,6})?)' in grammar
    assert "load-kv ::= " in grammar and "space number" in grammar  # too wide: any number


def test_a_list_without_a_limit_gets_one() -> None:
    listed = tightened({"type": "array", "items": {"type": "string"}})
    assert listed["maxItems"] == MAX_ITEMS
    assert tightened({"type": "array", "items": {}, "minItems": 12})["maxItems"] == 12
