"""The workspace plugin: look into the store and the ledger, and measure the spine's own speed.

tools/   the tools: store.py (calls, artifacts, the workspace itself), ledger.py (candidates,
         readiness, explicit submission)
bench/   the suites: spine/ (registry, events, worker jobs against baselines), prompt_overhead/
         (tokens per specialist call against a single all-tools agent)
"""

from workbench.core.plugins import Plugin

plugin = Plugin(
    name="workspace",
    title="Workspace",
    description="Tool-call history, artifacts and the engineering ledger; spine benchmarks.",
    tools="workbench_plugins.workspace.tools:tools",
    suites="workbench_plugins.workspace.bench:suites",
)
