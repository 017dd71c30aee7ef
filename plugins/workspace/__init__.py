"""The workspace plugin: look into the store and the ledger, and measure the spine's own speed."""

from workbench.core.plugins import Plugin

plugin = Plugin(
    name="workspace",
    title="Workspace",
    description="Tool-call history, artifacts and the engineering ledger; spine benchmarks.",
    tools="workbench_plugins.workspace.tools:tools",
    suites="workbench_plugins.workspace.bench:suites",
)
