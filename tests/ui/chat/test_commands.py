"""What the engineer types, parsed without Qt: messages vs slash commands, /tool's arguments,
and the texts of /tools, /describe and the input's completions."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.context import AppContext
from workbench.ui.chat.commands import (
    HELP_TEXT,
    CommandError,
    SlashCommand,
    completions,
    parse_input,
    parse_tool_call,
    tool_description,
    tool_listing,
    unknown_tool,
)


def test_a_line_is_a_message_unless_it_starts_with_a_slash() -> None:
    assert parse_input("What is 2 + 3?") is None
    assert parse_input("and / or") is None
    assert parse_input("/help") == SlashCommand("/help", "")
    typed = '/tool sample_add   {"a": 1}  '
    assert parse_input(typed) == SlashCommand("/tool", 'sample_add   {"a": 1}')
    assert parse_input("/describe sample_add") == SlashCommand("/describe", "sample_add")


def test_tool_calls_parse_name_and_json_object() -> None:
    assert parse_tool_call('sample_add {"a": 1, "b": 2.5}') == ("sample_add", {"a": 1, "b": 2.5})
    assert parse_tool_call("workspace_info") == ("workspace_info", {})
    assert parse_tool_call("workspace_info    ") == ("workspace_info", {})


@pytest.mark.parametrize(
    ("rest", "explanation"),
    [
        ("", 'Usage: /tool NAME {"arg": value}'),
        ("sample_add {a: 1}", "The arguments of sample_add are not valid JSON: "),
        ("sample_add {a: 1}", "at column 2."),
        ("sample_add [1, 2]", "must be a JSON object ({...}), not list."),
        ("sample_add 3", "not int."),
    ],
)
def test_malformed_tool_calls_say_how_to_write_them(rest: str, explanation: str) -> None:
    with pytest.raises(CommandError) as raised:
        parse_tool_call(rest)
    assert explanation in str(raised.value)


def test_tool_texts_name_side_effects_arguments_and_confirmation(
    sample_plugins: Path, context: AppContext
) -> None:
    listing = tool_listing(context.registry)
    assert listing.startswith("Tools:\n")
    assert "sample_add [compute]" in listing and "sample_actuate [physical]" in listing
    add = context.registry.get("sample_add")
    actuate = context.registry.get("sample_actuate")
    assert add is not None and actuate is not None
    described = tool_description(add)
    assert "  a: number" in described and "Arguments:" in described
    assert "you will be asked to confirm" not in described
    assert "you will be asked to confirm" in tool_description(actuate)
    unknown = unknown_tool(context.registry, "nope")
    assert unknown.startswith("There is no tool named 'nope'. Known tools: ")
    assert "sample_add" in unknown


def test_completions_offer_commands_and_each_tool() -> None:
    offered = completions(["alpha", "beta"])
    assert offered[:4] == ["/help", "/tools", "/clear", "/new"]
    assert "/tool alpha " in offered and "/describe beta" in offered
    assert all(command.split()[0] in HELP_TEXT for command in offered)
