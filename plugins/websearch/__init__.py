"""Web search: Tavily search with a key from the keyring, and its specialist.

client.py         the Tavily REST client (search, usage), httpx
tools/            web_search.py (the tool, offered only when a key is stored), access.py (the
                  key, and what to do when Tavily fails)
specialist.py     the web search specialist and its tool names
config.py         settings ([plugins.websearch]); the key's keyring entry
doctor_checks.py  is there a key, and does Tavily accept it

`plugin` is a function (discovery calls it): without a key the plugin still loads (settings,
doctor) but offers neither the tool nor the specialist, so the supervisor never hands work to an
agent that has nothing to work with.
"""

from workbench.core.plugins import Plugin
from workbench_plugins.websearch.config import WebSearchSettings
from workbench_plugins.websearch.specialist import specialist
from workbench_plugins.websearch.tools.access import tavily_key


def plugin() -> Plugin:
    offered = tavily_key() is not None
    return Plugin(
        name="websearch",
        title="Web search",
        description="Search the web with Tavily (API key in the keyring).",
        tools="workbench_plugins.websearch.tools:tools" if offered else None,
        specialist=specialist if offered else None,
        settings=WebSearchSettings,
        checks="workbench_plugins.websearch.doctor_checks:checks",
    )
