"""Doctor check of the web search plugin: is there a Tavily key, and does Tavily accept it
(GET /usage: no search credit spent)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import TYPE_CHECKING

from workbench.core.doctor import Check, CheckResult
from workbench.core.secrets import where
from workbench.core.settings import SettingsError
from workbench_plugins.websearch import client
from workbench_plugins.websearch.config import KEY_ENTRY, WebSearchSettings
from workbench_plugins.websearch.tools.access import SET_KEY, tavily_key, what_to_do

if TYPE_CHECKING:
    from workbench.core.context import AppContext

TIMEOUT_S = 5.0
NAME = "web search"


def check_tavily(context: AppContext) -> CheckResult:
    try:
        settings = context.settings.plugin("websearch", WebSearchSettings)
    except SettingsError as invalid:
        return CheckResult(NAME, "fail", f"not checked: {invalid}")
    key = tavily_key()
    if key is None:
        return CheckResult(
            NAME,
            "missing",
            f"web_search is not offered: no Tavily key in {where(KEY_ENTRY)}",
            SET_KEY,
        )
    host = client.host_of(settings.api_url)
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # the caller may run a loop
            pool.submit(asyncio.run, client.usage(settings.api_url, key, TIMEOUT_S)).result()
    except client.TavilyError as error:
        unreachable = error.cause == "unreachable"  # no network: web search is unavailable
        return CheckResult(
            NAME, "missing" if unreachable else "fail", str(error), what_to_do(error)
        )
    return CheckResult(NAME, "ok", f"Tavily at {host} accepts the key")


def checks() -> list[Check]:
    return [check_tavily]
