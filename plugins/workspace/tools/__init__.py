"""The workspace plugin's tools.

store.py   what the workspace holds: workspace_info, list_artifacts, recent_tool_calls
ledger.py  the engineering ledger: list_candidates, candidate_readiness, submit_candidate
"""

from __future__ import annotations

from workbench.core.tools import Tool
from workbench_plugins.workspace.tools.ledger import ledger_tools
from workbench_plugins.workspace.tools.store import store_tools


def tools() -> list[Tool]:
    return [*store_tools(), *ledger_tools()]
