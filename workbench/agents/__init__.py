"""The agent runtime: model backends, a supervisor routing to plugin specialists (LangGraph),
human-in-the-loop interrupts, checkpointed conversations, token/latency accounting.

The GUI and the bench use `AgentRuntime` and the event types in `workbench.agents.events`.

The names below are imported on first use (PEP 562): importing a light submodule such as
`workbench.agents.errors` must not pull in LangChain and LangGraph (about 0.8 s), which the
desktop app only needs once the first message is sent.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.agents.backends import make_chat_model
    from workbench.agents.errors import BackendError
    from workbench.agents.hitl import HeadlessPolicy
    from workbench.agents.ollama import list_ollama_models, ollama_base_url
    from workbench.agents.overhead import prompt_overhead
    from workbench.agents.runtime import AgentRuntime, RunResult
    from workbench.agents.scripted import ScriptedChatModel

_HOMES = {
    "AgentRuntime": "workbench.agents.runtime",
    "BackendError": "workbench.agents.errors",
    "HeadlessPolicy": "workbench.agents.hitl",
    "RunResult": "workbench.agents.runtime",
    "ScriptedChatModel": "workbench.agents.scripted",
    "list_ollama_models": "workbench.agents.ollama",
    "make_chat_model": "workbench.agents.backends",
    "ollama_base_url": "workbench.agents.ollama",
    "prompt_overhead": "workbench.agents.overhead",
}

__all__ = [  # the names of _HOMES, spelt out for linters and `import *`
    "AgentRuntime",
    "BackendError",
    "HeadlessPolicy",
    "RunResult",
    "ScriptedChatModel",
    "list_ollama_models",
    "make_chat_model",
    "ollama_base_url",
    "prompt_overhead",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup is an ordinary one
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
