"""`workbench --headless mcp` over stdio, driven by the MCP SDK's client (issue 19, acceptance 1).

One server process for the module (client name "acceptance-stdio"); the `--approve` test starts
its own. Every call is checked in the server's workspace store, with the caller mcp:<client>.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.mcp.conftest import (
    LiveClient,
    eventually,
    identity,
    recorded_call,
    stdio_parameters,
    text_of,
    workspace_calls,
)

CLIENT = "acceptance-stdio"
CALLER = f"mcp:{CLIENT}"
QUICK_BEAM = {"problem_type": "beams2d", "problem_config": {"max_iter": 5}}


@pytest.fixture(scope="module")
def server_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-stdio") / "home"


@pytest.fixture(scope="module")
def live(server_home: Path) -> Iterator[LiveClient]:
    session = LiveClient(
        lambda: Client(stdio_parameters(server_home), client_info=identity(CLIENT))
    ).start()
    yield session
    session.close()


def call(live: LiveClient, tool: str, arguments: dict[str, Any], **options: Any) -> Any:
    return live.run(lambda client: client.call_tool(tool, arguments, **options))


def test_lists_the_registry_tools_with_their_schemas_and_hints(
    live: LiveClient, context: Any
) -> None:
    assert live.client is not None and live.client.protocol_version in MODERN_PROTOCOL_VERSIONS
    listed = {tool.name: tool for tool in live.run(lambda client: client.list_tools()).tools}
    expected = set(context.registry.names()) - {"ask_human_for_clarification"}
    assert set(listed) == expected  # every registry tool but the one an MCP client's user is
    optimize = listed["optimize_design"]
    arguments = context.registry.get("optimize_design").args.model_json_schema()
    assert optimize.input_schema == arguments
    assert (
        optimize.output_schema is not None
        and "design_shape" in optimize.output_schema["properties"]
    )
    assert optimize.annotations.read_only_hint is False
    assert listed["list_candidates"].annotations.read_only_hint is True
    printer = listed["connect_printer"]
    assert printer.annotations.destructive_hint is True and "approval" in printer.description


def test_optimize_design_returns_its_result_and_sends_progress(
    live: LiveClient, server_home: Path
) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def note(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    result = call(live, "optimize_design", QUICK_BEAM, progress_callback=note)
    assert not result.is_error, text_of(result)
    optimized = result.structured_content
    assert optimized["design_shape"] == [50, 100]
    assert optimized["optimization_info"]["steps"] == 5
    assert optimized["final_c"] < optimized["initial_c"]
    assert json.loads(text_of(result)) == optimized  # the same result as text, for any client
    values = [value for value, _, _ in progress]
    assert values and values == sorted(values) and values[-1] == 100.0
    record = recorded_call(server_home, result.meta["workbench/call_id"])
    assert record["caller"] == CALLER and record["tool"] == "optimize_design" and record["ok"]


def test_a_physical_tool_is_refused_without_approval_and_the_refusal_recorded(
    live: LiveClient, server_home: Path
) -> None:
    result = call(live, "execute_cli_command", {"command": ["ls", "-l"]})
    assert result.is_error
    words = text_of(result)
    assert "acts on the physical world" in words and "Run: ls -l" in words
    assert "--approve" in words and "desktop app" in words  # how to allow it
    assert result.meta["workbench/error_kind"] == "confirmation_required"
    record = recorded_call(server_home, result.meta["workbench/call_id"])
    assert record["caller"] == CALLER and record["ok"] is False
    assert record["error"]["kind"] == "confirmation_required"


def test_bad_arguments_come_back_in_words_and_are_recorded(
    live: LiveClient, server_home: Path
) -> None:
    result = call(live, "optimize_design", {"problem_type": "airfoil9d"})
    assert result.is_error and "problem_type" in text_of(result)
    assert result.meta["workbench/error_kind"] == "invalid_arguments"
    assert recorded_call(server_home, result.meta["workbench/call_id"])["caller"] == CALLER
    unserved = call(live, "ask_human_for_clarification", {"clarification_request": "?"})
    assert unserved.is_error and "ask your user" in text_of(unserved)


def test_an_agent_works_under_explicit_submission_over_mcp(
    live: LiveClient, server_home: Path
) -> None:
    optimized = call(live, "optimize_design", {**QUICK_BEAM, "seed": 7}).structured_content
    candidate = optimized["candidate_id"]
    listed = call(live, "list_candidates", {}).structured_content["candidates"]
    summary = next(entry for entry in listed if entry["id"] == candidate)
    assert summary["ready"] is False and summary["blocking"] == ["watertight_export"]

    refused = call(live, "submit_candidate", {"candidate": candidate, "note": "looks good"})
    assert refused.is_error
    assert "not ready" in text_of(refused) and "watertight_export" in text_of(refused)

    exported = call(live, "convert_design_to_stl", {"npy_file_path": optimized["save_path"]})
    assert not exported.is_error, text_of(exported)
    readiness = call(live, "candidate_readiness", {"candidate": candidate}).structured_content
    assert readiness["ready"] is True
    submitted = call(live, "submit_candidate", {"candidate": candidate, "note": "ready now"})
    assert not submitted.is_error, text_of(submitted)
    assert submitted.structured_content["candidate_id"] == candidate
    assert submitted.structured_content["override"] is False
    ledger_calls = [c for c in workspace_calls(server_home) if c["tool"] == "submit_candidate"]
    assert [c["ok"] for c in ledger_calls] == [False, True]
    assert {c["caller"] for c in ledger_calls} == {CALLER}


def test_a_cancelled_request_cancels_its_optimisation_job(
    live: LiveClient, server_home: Path
) -> None:
    long_run = {"problem_type": "beams2d", "problem_config": {"max_iter": 1000}, "seed": 3}

    async def cancel_after_first_progress(client: Client) -> None:
        running = anyio.Event()

        async def note(value: float, total: float | None, message: str | None) -> None:
            running.set()

        async with anyio.create_task_group() as group:
            group.start_soon(
                lambda: client.call_tool("optimize_design", long_run, progress_callback=note)
            )
            with anyio.fail_after(120):
                await running.wait()
            group.cancel_scope.cancel()  # the client sends notifications/cancelled

    live.run(cancel_after_first_progress)

    def finished_run() -> dict[str, Any] | None:
        runs = [c for c in workspace_calls(server_home) if c["arguments"] == long_run]
        return runs[0] if runs and runs[0]["ok"] is not None else None

    run = eventually(finished_run, timeout=60)  # the job stops: no 1000-iteration wait
    assert run["ok"] is False and run["caller"] == CALLER
    assert "cancelled" in run["error"]["message"]


def test_with_approve_a_physical_call_goes_past_the_confirmation(
    tmp_path: Path,
) -> None:
    home = tmp_path / "approving"

    async def list_files(client: Client) -> types.CallToolResult:
        return await client.call_tool("execute_cli_command", {"command": ["ls"]})

    approving = LiveClient(
        lambda: Client(stdio_parameters(home, "--approve"), client_info=identity("approver"))
    ).start()
    try:
        result = approving.run(list_files)
    finally:
        approving.close()
    assert result.meta.get("workbench/error_kind") != "confirmation_required", text_of(result)
    assert not result.is_error and result.structured_content["exit_code"] == 0
    record = recorded_call(home, result.meta["workbench/call_id"])
    assert record["caller"] == "mcp:approver" and record["ok"] is True
