"""The `mcp-roundtrip` bench suite: what it costs, and whether it is faithful, to reach
Workbench's tools through MCP, against calling them directly in the same cell.

The external server is Workbench itself (`python -m workbench --headless mcp` over stdio, with a
home of its own in the cell), reached through this plugin's client on a kept session, as the
specialists reach theirs.

  suite.py      the tasks (one tool each, payload-driven) and the cell: play, seal, score
  policies.py   the policies: the server's settings, the timed calls (MCP and direct)
  scoring.py    the sealed file and the server's own store against the direct results
  report.py     mcp-roundtrip.md and mcp-roundtrip.png
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    from workbench_plugins.mcp_servers.bench.suite import RoundtripSuite

    return [RoundtripSuite()]
