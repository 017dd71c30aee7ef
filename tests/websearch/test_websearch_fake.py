"""web_search with the real Tavily client against a FAKE Tavily API on 127.0.0.1: results,
a wrong key, no key (not offered; doctor says how), and an unreachable server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.arxiv.conftest import closed_port
from tests.conftest import ROOT
from tests.rigs.fake_tavily import FakePage, FakeTavily
from workbench.core.context import AppContext
from workbench.core.doctor import run_checks
from workbench.core.secrets import set_secret
from workbench_plugins.websearch.config import KEY_ENTRY, WebSearchSettings

RIGHT_KEY = "tvly-fake-right-key"
PAGES = [
    FakePage("PLA datasheet", "https://example.com/pla", "PLA tensile strength 50 MPa at 23 C"),
    FakePage("PETG datasheet", "https://example.com/petg", "PETG tensile strength 45 MPa"),
    FakePage("Gear design", "https://example.com/gears", "Module and pitch of spur gears"),
]


@pytest.fixture
def fake_tavily() -> Iterator[FakeTavily]:
    with FakeTavily(RIGHT_KEY, PAGES) as server:
        yield server


def open_app(api_url: str) -> AppContext:
    app = AppContext.open()
    app.settings = app.settings.with_plugin("websearch", WebSearchSettings(api_url=api_url))
    return app


def test_fake_tavily_search_returns_title_url_snippet(fake_tavily: FakeTavily) -> None:
    set_secret(KEY_ENTRY, RIGHT_KEY)
    app = open_app(fake_tavily.url)
    try:
        assert "web_search" in app.registry.names()
        assert app.plugins.plugins["websearch"].specialist is not None
        outcome = app.registry.call(
            "web_search", {"query": "tensile strength", "max_results": 1}, caller="agent"
        )
        assert outcome.ok and outcome.result is not None, outcome.error
        [page] = outcome.result["results"]
        assert page == {
            "rank": 1,
            "title": "PLA datasheet",
            "url": "https://example.com/pla",
            "snippet": "PLA tensile strength 50 MPa at 23 C",
        }
        assert "[1] PLA datasheet\nhttps://example.com/pla" in outcome.result["text"]
        [request] = [r for r in fake_tavily.requests if r["path"] == "/search"]
        assert (
            request["body"]["max_results"] == 1 and request["body"]["query"] == "tensile strength"
        )
        [line] = [r for r in run_checks(app) if r.name == "web search"]
        assert line.level == "ok" and "accepts the key" in line.detail
    finally:
        app.close()


def test_wrong_key_at_fake_tavily_names_the_keyring_entry(fake_tavily: FakeTavily) -> None:
    set_secret(KEY_ENTRY, "tvly-wrong")
    app = open_app(fake_tavily.url)
    try:
        outcome = app.registry.call("web_search", {"query": "gears"}, caller="agent")
        assert not outcome.ok and outcome.error is not None
        assert "refused the API key" in outcome.error.message
        assert f"entry '{KEY_ENTRY}'" in outcome.error.message
        assert "tvly-wrong" not in outcome.error.explain()  # the key itself is never shown
        assert f"keyring set workbench {KEY_ENTRY}" in (outcome.error.hint or "")
        [line] = [r for r in run_checks(app) if r.name == "web search"]
        assert line.level == "fail" and KEY_ENTRY in line.detail
    finally:
        app.close()


def test_no_key_means_no_web_search_and_doctor_says_how() -> None:
    app = AppContext.open()
    try:
        assert "web_search" not in app.registry.names()
        assert app.plugins.plugins["websearch"].specialist is None
    finally:
        app.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the memory keyring: empty in a new process
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    [line] = [row for row in done.stdout.splitlines() if "web search:" in row]
    assert "[missing]" in line and "web_search is not offered" in line
    assert f"keyring set workbench {KEY_ENTRY}" in line


def test_unreachable_tavily_gives_clear_error_naming_the_host() -> None:
    set_secret(KEY_ENTRY, RIGHT_KEY)
    host = f"127.0.0.1:{closed_port()}"
    app = open_app(f"http://{host}")
    try:
        outcome = app.registry.call("web_search", {"query": "gears"}, caller="agent")
        assert not outcome.ok and outcome.error is not None
        assert f"Tavily at {host} is unreachable" in outcome.error.message
        assert "Check the network" in (outcome.error.hint or "")
        [line] = [r for r in run_checks(app) if r.name == "web search"]
        assert line.level == "missing" and host in line.detail and host in line.fix
    finally:
        app.close()


def test_web_search_tool_is_described_for_agents(fake_tavily: FakeTavily) -> None:
    set_secret(KEY_ENTRY, RIGHT_KEY)
    app = open_app(fake_tavily.url)
    try:
        described = {d["name"]: d for d in app.registry.describe()}["web_search"]
        assert described["side_effect"] == "read" and not described["needs_confirmation"]
        assert set(described["arguments"]["properties"]) == {"query", "max_results"}
    finally:
        app.close()
