"""One refused value costs that value only (issue 28, "nothing lost").

A password in an external MCP server's URL used to make the whole app run on defaults (a shell
timeout set beside it was ignored), said only on stderr, naming a keyring entry nobody reads. Now
the one server is left out, the rest is used, and it is said at start, in `doctor` and (see
tests/ui/test_settings_refusal_notice.py) in the window, naming the entry the plugin reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel, model_validator

from tests.support.memory_keyring import MemoryKeyring
from workbench.core.context import AppContext
from workbench.core.doctor import run_checks
from workbench.core.paths import app_paths
from workbench.core.settings import load_settings, read_settings
from workbench.core.settings_refusals import validate_keeping_the_rest
from workbench_plugins.mcp_servers.client import _http_transport
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings, token_entry
from workbench_plugins.shell.config import ShellSettings

PASSWORD = "hunter2-planted"
SETTINGS = f"""
model = "ollama:qwen3:8b"

[plugins.shell]
timeout_s = 7.0

[[plugins.mcp_servers.servers]]
name = "lab"
url = "http://lab:{PASSWORD}@10.0.0.5/mcp"

[[plugins.mcp_servers.servers]]
name = "docs"
command = "python"
args = ["docs_server.py"]
"""
REFUSED = "plugins.mcp_servers.servers[lab].url"


def write_settings(text: str = SETTINGS) -> Path:
    path = app_paths().settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_rest_of_the_settings_is_kept(workbench_home: Path) -> None:
    path = write_settings()
    settings, problem = load_settings(path)
    assert settings.model == "ollama:qwen3:8b"
    assert settings.plugin("shell", ShellSettings).timeout_s == 7.0
    servers = settings.plugin("mcp_servers", McpServersSettings).servers
    assert [server.name for server in servers] == ["docs"]  # only the server holding it goes
    assert problem is not None and REFUSED in problem and "the rest" in problem
    assert PASSWORD not in problem
    assert path.read_text(encoding="utf-8") == SETTINGS  # the user's file is left as it was


def test_the_refusal_names_the_keyring_entry_the_plugin_reads(workbench_home: Path) -> None:
    [refusal] = read_settings(write_settings()).refused
    entry = token_entry("lab")
    assert f"entry '{entry}'" in refusal.reason and "service 'workbench'" in refusal.reason
    assert "servers[lab]" in refusal.left_out


def test_the_named_entry_is_the_token_the_client_sends(
    workbench_home: Path, memory_keyring: MemoryKeyring
) -> None:
    """A token stored as the refusal says is the one the client's HTTP transport sends."""
    [refusal] = read_settings(write_settings()).refused
    entry = refusal.reason.split("entry '")[1].split("'")[0]
    memory_keyring.set_password("workbench", entry, "lab-token")
    transport = _http_transport(McpServer(name="lab", url="http://10.0.0.5/mcp"), [])
    assert transport._http.headers["Authorization"] == "Bearer lab-token"


def test_other_invalid_values_are_left_out_one_by_one(workbench_home: Path) -> None:
    path = write_settings(
        'model = "ollama:qwen3:8b"\nunknown_key = 1\n[ollama]\ncontext_size = 10\nmodel = "x"\n'
    )
    loaded = read_settings(path)
    assert loaded.settings.model == "ollama:qwen3:8b" and loaded.settings.ollama.model == "x"
    assert loaded.settings.ollama.context_size == 8192  # the default for the refused value
    assert sorted(r.setting for r in loaded.refused) == ["ollama.context_size", "unknown_key"]


def test_it_is_said_at_start_and_by_doctor(workbench_home: Path) -> None:
    write_settings()
    context = AppContext.open()
    try:
        assert any(REFUSED in notice for notice in context.notices)
        assert context.settings.plugin("shell", ShellSettings).timeout_s == 7.0
        failing = [result for result in run_checks(context) if result.level == "fail"]
    finally:
        context.close()
    [settings_line] = [result for result in failing if result.name.startswith("settings")]
    assert settings_line.name == f"settings {REFUSED}"
    assert f"entry '{token_entry('lab')}'" in settings_line.detail
    assert PASSWORD not in settings_line.line()


def test_the_headless_commands_say_it_on_stderr_and_in_doctor(workbench_home: Path) -> None:
    write_settings()
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", "doctor"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"},
    )
    assert REFUSED in done.stderr and "the rest of the settings are in use" in done.stderr
    assert f"settings {REFUSED}" in done.stdout
    assert PASSWORD not in done.stdout + done.stderr


class _Crossed(BaseModel):
    """Two settings checked together (as model profiles are against the Ollama address)."""

    low: int = 0
    high: int = 10
    name: str = "kept"

    @model_validator(mode="after")
    def _ordered(self) -> _Crossed:
        if self.low > self.high:
            raise ValueError("low must not be above high")
        return self


def test_a_check_across_settings_leaves_out_one_of_them_not_all() -> None:
    raw = {"low": 50, "high": 10, "name": "mine"}
    validated, refused = validate_keeping_the_rest(raw, _Crossed.model_validate)
    assert validated == _Crossed(low=0, high=10, name="mine")
    assert [(refusal.setting, refusal.left_out) for refusal in refused] == [("low", "low")]


def test_one_unusable_model_profile_costs_that_profile_only(workbench_home: Path) -> None:
    """Two profiles with one name: the second is left out and named, the first and a third
    profile stay (the list's check used to drop every profile)."""
    path = write_settings(
        """
[[model_profiles]]
name = "lab"
kind = "ollama"
model = "qwen3:8b"

[[model_profiles]]
name = "lab"
kind = "ollama"
model = "llama3:8b"

[[model_profiles]]
name = "cloud"
kind = "openai-compatible"
model = "gpt-5-mini"
"""
    )
    loaded = read_settings(path)
    assert [(p.name, p.model) for p in loaded.settings.model_profiles] == [
        ("lab", "qwen3:8b"),
        ("cloud", "gpt-5-mini"),
    ]
    assert [refusal.left_out for refusal in loaded.refused] == ["model_profiles[lab]"]
    assert "another profile has this name" in loaded.refused[0].reason
