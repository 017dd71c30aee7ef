"""Conversations persist in the workspace, are listed, continue in a new process, and export."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage

from tests.agents.conftest import call, calls, handoff, say, write_script
from workbench.agents import AgentRuntime
from workbench.core.context import AppContext

FIRST_TURN = [
    handoff("sample", "Add 2 and 3."),
    calls(call("sample_add", {"a": 2, "b": 3})),
    say("5"),
    say("2 + 3 = 5."),
]
SECOND_TURN = [say("Twice that is 10.")]


def test_conversation_continues_in_a_new_app_context_with_scripted_model(app, tmp_path):
    runtime = AgentRuntime(app, write_script(tmp_path, FIRST_TURN, "one.json"))
    assert runtime.send_sync("thread-1", "What is 2 + 3?").status == "done"
    runtime.close()
    app.close()

    reopened = AppContext.open()
    try:
        runtime = AgentRuntime(reopened, write_script(tmp_path, SECOND_TURN, "two.json"))
        [listed] = runtime.conversations()
        assert listed.thread_id == "thread-1" and listed.title == "What is 2 + 3?"
        result = runtime.send_sync("thread-1", "And twice that?")
        assert result.answer == "Twice that is 10.", result.error
        seen = runtime.model.seen[0]["messages"]  # type: ignore[attr-defined]
        said = [m.content for m in seen if isinstance(m, HumanMessage | AIMessage)]
        assert said[0] == "What is 2 + 3?" and "2 + 3 = 5." in said
        assert said[-1] == "And twice that?"
        assert runtime.conversations()[0].updated >= listed.updated
        runtime.close()
    finally:
        reopened.close()


def test_conversation_continues_after_the_process_ends_with_scripted_model(
    sample_plugins, workbench_home, tmp_path
):
    first = write_script(tmp_path, FIRST_TURN, "one.json")
    program = textwrap.dedent(
        f"""
        from workbench.agents import AgentRuntime
        from workbench.core.context import AppContext
        app = AppContext.open()
        app.plugins.plugins = {{"sample": app.plugins.plugins["sample"]}}
        result = AgentRuntime(app, {first!r}).send_sync("proc", "What is 2 + 3?")
        print(result.status, result.answer)
        app.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done 2 + 3 = 5."

    app = AppContext.open()
    try:
        app.plugins.plugins = {"sample": app.plugins.plugins["sample"]}
        runtime = AgentRuntime(app, write_script(tmp_path, SECOND_TURN, "two.json"))
        assert [c.thread_id for c in runtime.conversations()] == ["proc"]
        assert runtime.send_sync("proc", "And twice that?").answer == "Twice that is 10."
        transcript = asyncio.run(runtime.transcript("proc"))
        assert [e["content"] for e in transcript if e["role"] == "user"] == [
            "What is 2 + 3?",
            "And twice that?",
        ]
        runtime.close()
    finally:
        app.close()


def test_export_as_markdown_and_json_with_scripted_model(app, scripted):
    runtime, _ = scripted(FIRST_TURN)
    runtime.send_sync("export-me", "What is 2 + 3?")

    markdown = asyncio.run(runtime.export("export-me", "markdown"))
    assert markdown.startswith("# What is 2 + 3?")
    for expected in (
        "What is 2 + 3?",
        "supervisor → sample",
        "`sample_add` (ok)",
        '"a": 2',
        "sample reports",
        "2 + 3 = 5.",
    ):
        assert expected in markdown

    document = json.loads(asyncio.run(runtime.export("export-me", "json")))
    assert document["thread_id"] == "export-me"
    roles = [e["role"] for e in document["entries"]]
    assert roles == ["user", "assistant", "handoff", "assistant", "tool", "report", "assistant"]
    [tool] = [e for e in document["entries"] if e["role"] == "tool"]
    assert tool["arguments"] == {"a": 2, "b": 3} and tool["store_call_id"] == 1


def test_checkpoints_live_in_the_workspace_folder(app, scripted):
    runtime, _ = scripted([say("hi")])
    runtime.send_sync("where", "hello")
    folder = Path(app.store.folder)
    assert (folder / "conversations.sqlite").is_file()
    assert (folder / "agents.sqlite").is_file()
