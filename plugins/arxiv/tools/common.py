"""What both arXiv tools share: the plugin's settings, and a client error as a tool failure."""

from __future__ import annotations

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.arxiv import client
from workbench_plugins.arxiv.config import ArxivSettings

NEEDS_NETWORK = (
    "Check the network, or the address in [plugins.arxiv] (api_url, pdf_url); "
    "`workbench --headless doctor` tries it."
)


def arxiv_settings(context: ToolContext) -> ArxivSettings:
    return context.app.settings.plugin("arxiv", ArxivSettings)


def tool_failure(error: client.ArxivError) -> ToolFailure:
    hint = NEEDS_NETWORK if error.unreachable else "Check the query or the id and call again."
    return ToolFailure(str(error), hint)
