"""The Grading view's Qt-free libraries, loaded before the view is built (`ViewSpec.warm_up`,
on a worker thread): LangChain's core and the agent's model plumbing (the judge's model), the
scoring pipeline, and every problem family (the problem picker lists them). Imported on the GUI
thread inside the view's module, they froze the window for up to 600 ms on a busy machine."""

from __future__ import annotations

import importlib

from workbench_plugins.judging.problems.registry import families

MODULES = (
    "langchain_core.language_models",
    "langchain_core.messages",
    "workbench.agents.accounting",
    "workbench.agents.model_errors",
    "workbench.agents.runtime",
    "workbench_plugins.judging.bench.rubric_judge",
    "workbench_plugins.judging.scoring.aggregate",
    "workbench_plugins.judging.scoring.pipeline",
)


def preload() -> None:
    for name in MODULES:
        importlib.import_module(name)
    families()
