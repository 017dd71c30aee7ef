"""Doctor check of the arXiv plugin: the API really answers a one-paper query."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import TYPE_CHECKING

from workbench.core.doctor import Check, CheckResult
from workbench.core.settings import SettingsError
from workbench_plugins.arxiv import client
from workbench_plugins.arxiv.config import ArxivSettings

if TYPE_CHECKING:
    from workbench.core.context import AppContext

TIMEOUT_S = 5.0
PROBE_QUERY = "all:electron"  # any query with results; the API's own documented example


def check_api(context: AppContext) -> CheckResult:
    name = "arxiv search"
    try:
        settings = context.settings.plugin("arxiv", ArxivSettings)
    except SettingsError as invalid:
        return CheckResult(name, "fail", f"not checked: {invalid}")
    host = client.host_of(settings.api_url)
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # the caller may run a loop
            total, _ = pool.submit(
                asyncio.run, client.search(settings.api_url, PROBE_QUERY, 1, TIMEOUT_S)
            ).result()
    except client.ArxivError as error:
        fix = (
            f"Connect to the network (or allow {host} through the firewall or proxy); "
            "search_arxiv and download_arxiv_paper fail until it answers."
            if error.unreachable
            else "Check api_url in [plugins.arxiv] (default: the arXiv export API)."
        )
        return CheckResult(name, "missing" if error.unreachable else "fail", str(error), fix)
    return CheckResult(name, "ok", f"{host} answered ({total} papers for a test query)")


def checks() -> list[Check]:
    return [check_api]
