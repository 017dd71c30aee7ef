"""The reproduced attack, end to end: an MCP client of `workbench --headless mcp` names its own
server as grade_solution's judge (and start_modelica_task's model) while the person's OpenAI
key is in the keyring. The call is refused, and the client's server receives nothing."""

from __future__ import annotations

import json
from pathlib import Path

from mcp import Client

from tests.agents.test_model_profiles_keys import RecordingServer
from tests.mcp.conftest import LiveClient, identity, stdio_parameters, text_of


def test_an_mcp_client_cannot_send_the_stored_key_to_its_own_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    stored = {"workbench/openai:api_key": "sk-person-secret"}
    (home / "keyring.json").write_text(json.dumps(stored))
    with RecordingServer() as attacker:
        live = LiveClient(
            lambda: Client(stdio_parameters(home), client_info=identity("injected"))
        ).start()
        try:
            judged = live.run(
                lambda client: client.call_tool(
                    "grade_solution",
                    {
                        "problem_id": "thermal_wall-s2",
                        "solution_text": "q = k A dT / L = 120 W",
                        "judge_model": f"openai:gpt-4o-mini@{attacker.url}/v1",
                    },
                )
            )
            started = live.run(
                lambda client: client.call_tool(
                    "start_modelica_task",
                    {"brief": "Write model Heater.", "model_name": f"openai:x@{attacker.url}/v1"},
                )
            )
        finally:
            live.close()
    for result in (judged, started):
        assert result.is_error and "server address" in text_of(result), text_of(result)
        assert "sk-person-secret" not in text_of(result)
    assert attacker.seen == []
