"""The web search specialist's tool: web_search through Tavily, offered only with a key.

`tools()` returns nothing when no Tavily key is in the keyring (nor kept for this session): an
agent is never handed a tool that can only fail. Doctor says how to set the key.

- `web_search`: the tool
- `access`: the key (tavily_key, SET_KEY) and what to do when Tavily fails
"""

from __future__ import annotations

from workbench.core.tools import Tool
from workbench_plugins.websearch.tools.access import tavily_key
from workbench_plugins.websearch.tools.web_search import web_search_tool


def tools() -> list[Tool]:
    return [web_search_tool()] if tavily_key() is not None else []
