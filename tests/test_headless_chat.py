"""`workbench --headless chat`: the desk's agent on one request, its events as JSON lines.

The model is a scripted fake (`scripted:<file>`); the specialists, tools, confirmations and the
conversation store are the real ones (the shell plugin's confirmed `execute_cli_command`, the
topopt specialist's question to the person). The command runs in-process through `cli.main`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from workbench.agents import AgentRuntime
from workbench.cli import main
from workbench.core.context import AppContext


def handoff(specialist: str, task: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": f"transfer_to_{specialist}", "args": {"task": task}}]}


def tool(name: str, args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def say(text: str) -> dict[str, Any]:
    return {"content": text}


LIST_FILES = [
    handoff("shell", "list the workspace"),
    tool("execute_cli_command", {"command": ["ls"], "cwd": "."}),
    say("Listed the workspace."),
    say("Here are your files."),
]


def script(folder: Path, replies: list[dict[str, Any]], name: str = "script.json") -> str:
    path = folder / name
    path.write_text(json.dumps(replies))
    return f"scripted:{path}"


def chat(
    capsys: pytest.CaptureFixture[str], model: str, *args: str
) -> tuple[int, list[dict[str, Any]]]:
    code = main(["--headless", "chat", *args, "--model", model])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return code, lines


def kinds(lines: list[dict[str, Any]]) -> list[str]:
    return [line["event"] for line in lines]


def only(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["event"] == kind]


def test_scripted_fake_prints_every_event_kind_as_it_happens(tmp_path, capsys) -> None:
    model = script(
        tmp_path,
        [
            {"tool_calls": [{"name": "transfer_to_topopt", "args": '{"task": '}]},  # broken
            handoff("topopt", "optimise a beam"),
            tool("ask_human_for_clarification", {"question": "Which volume fraction?"}),
            say("The engineer said 0.4."),
            *LIST_FILES,
        ],
    )
    code, lines = chat(
        capsys, model, "optimise a beam, then list my files", "--yes", "--answer", "0.4"
    )
    assert code == 0
    seen = kinds(lines)
    assert seen[0] == "run_started" and seen[-1] == "run_finished"
    for kind in ("malformed", "routed", "interrupt_requested", "answered", "model_called"):
        assert kind in seen, kind
    assert [r["specialist"] for r in only(lines, "routed")] == ["topopt", "shell"]
    question, confirmation = only(lines, "interrupt_requested")
    assert question["kind"] == "clarification" and "volume fraction" in question["question"]
    assert confirmation["kind"] == "confirmation"
    assert confirmation["tool"] == "execute_cli_command"
    answers = only(lines, "answered")
    assert answers[0]["answer"] == "0.4" and answers[0]["by"] == "--answer"
    assert answers[1]["approved"] is True and answers[1]["by"] == "--yes"
    # printed as they happened: the answer right after its request, the tool run after that
    assert seen.index("answered") == seen.index("interrupt_requested") + 1
    [started] = [s for s in only(lines, "tool_started") if s["tool"] == "execute_cli_command"]
    [finished] = [f for f in only(lines, "tool_finished") if f["tool"] == "execute_cli_command"]
    assert finished["ok"] is True and finished["result"]["exit_code"] == 0
    assert lines.index(started) > lines.index(answers[1])
    assert only(lines, "final_answer")[0]["text"] == "Here are your files."
    totals = only(lines, "run_finished")[0]["totals"]
    assert totals["model_calls"] == 8 and totals["input_tokens"] > 0
    assert "token" not in seen  # streamed text only with --stream


def test_stream_adds_the_streamed_text(tmp_path, capsys) -> None:
    model = script(tmp_path, [say("Nothing to hand over, hello.")])
    code, lines = chat(capsys, model, "hello", "--stream")
    assert code == 0
    text = "".join(line["text"] for line in only(lines, "token"))
    assert text == "Nothing to hand over, hello."
    assert "routed" not in kinds(lines)


def test_no_declines_the_confirmation(tmp_path, capsys) -> None:
    code, lines = chat(capsys, script(tmp_path, LIST_FILES), "list my files", "--no")
    assert code == 0
    [answer] = only(lines, "answered")
    assert answer["approved"] is False and answer["by"] == "--no"
    [finished] = only(lines, "tool_finished")
    assert finished["ok"] is False and "declined" in finished["error"]


def test_neither_yes_nor_no_refuses_and_says_so_in_the_exit_code(tmp_path, capsys) -> None:
    code, lines = chat(capsys, script(tmp_path, LIST_FILES), "list my files")
    assert code == 3
    [answer] = only(lines, "answered")
    assert answer["approved"] is False and answer["by"] == "refused"
    assert "--yes" in answer["reason"]
    [finished] = only(lines, "tool_finished")
    assert finished["ok"] is False and "declined" in finished["error"]


def test_yes_and_no_together_are_a_usage_error(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--headless", "chat", "hi", "--yes", "--no"])
    assert stop.value.code == 2


def test_a_guard_or_an_error_ends_with_exit_code_1(tmp_path, capsys) -> None:
    looping = [item for _ in range(4) for item in (handoff("shell", "again"), say("no."))]
    code, lines = chat(capsys, script(tmp_path, looping), "loop")
    assert code == 1
    assert only(lines, "loop_stopped")[0]["specialist"] == "shell"
    assert only(lines, "run_finished")[0]["status"] == "stopped"

    code, lines = chat(capsys, script(tmp_path, [handoff("shell", "x")], "short.json"), "x")
    assert code == 1  # the fake's script ran out: the run fails, and says so
    assert only(lines, "agent_error")[0]["message"]
    assert only(lines, "run_finished")[0]["status"] == "error"


def test_continue_goes_on_with_the_newest_conversation(tmp_path, capsys) -> None:
    code, first = chat(capsys, script(tmp_path, [say("Hello.")]), "hello")
    assert code == 0
    model = script(tmp_path, [say("Still here.")], "second.json")
    code, second = chat(capsys, model, "are you there?", "--continue")
    assert code == 0
    thread = first[0]["thread_id"]
    assert second[0]["thread_id"] == thread
    context = AppContext.open()
    runtime = AgentRuntime(context, model)
    try:
        said = [
            e["content"] for e in asyncio.run(runtime.transcript(thread)) if e["role"] == "user"
        ]
    finally:
        runtime.close()
        context.close()
    assert said == ["hello", "are you there?"]


def test_continue_answers_what_the_desks_conversation_waits_for(tmp_path, capsys) -> None:
    # the desk (no policy) stops at the confirmation, waiting for the person
    context = AppContext.open()
    runtime = AgentRuntime(context, script(tmp_path, LIST_FILES))
    try:
        waiting = runtime.send_sync(runtime.new_thread(), "list my files")
    finally:
        runtime.close()
        context.close()
    assert waiting.status == "interrupted"
    model = script(tmp_path, LIST_FILES[2:], "rest.json")  # the rest of the same script
    code, lines = chat(capsys, model, "--continue", "--yes")
    assert code == 0
    assert lines[0]["event"] == "interrupt_requested"
    assert lines[0]["thread_id"] == waiting.thread_id
    assert only(lines, "answered")[0]["approved"] is True
    assert only(lines, "tool_finished")[0]["ok"] is True
    assert only(lines, "final_answer")[0]["text"] == "Here are your files."


def test_continue_with_nothing_to_continue_is_exit_code_2(tmp_path, capsys) -> None:
    code, lines = chat(capsys, script(tmp_path, []), "--continue", "hi")
    assert code == 2 and lines == []
    code, lines = chat(capsys, script(tmp_path, []))
    assert code == 2 and lines == []


def test_route_only_stops_at_the_hand_over(tmp_path, capsys) -> None:
    code, lines = chat(capsys, script(tmp_path, LIST_FILES), "list my files", "--route-only")
    assert code == 0
    seen = kinds(lines)
    assert only(lines, "routed")[0]["specialist"] == "shell"
    assert "tool_started" not in seen and "interrupt_requested" not in seen
    assert len(only(lines, "model_called")) == 1  # the specialist never called the model
    assert only(lines, "run_finished")[0]["status"] == "cancelled"

    code, lines = chat(capsys, script(tmp_path, [say("Hi.")], "hi.json"), "hi", "--route-only")
    assert code == 1  # answered, not handed over
