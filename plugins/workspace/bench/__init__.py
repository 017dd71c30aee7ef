"""The workspace plugin's bench suites: what the shared machinery itself costs.

spine/            `spine`: the tool registry, event bus and worker jobs, each against a baseline
prompt_overhead/  `prompt-overhead`: prompt + tool-schema tokens per specialist call against one
                  agent holding every installed tool
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.bench import Suite


def suites() -> list[Suite]:
    """Both suites; their modules are imported only when the bench asks for suites."""
    from workbench_plugins.workspace.bench.prompt_overhead.suite import PromptOverheadSuite
    from workbench_plugins.workspace.bench.spine.suite import SpineSuite

    return [SpineSuite(), PromptOverheadSuite()]
