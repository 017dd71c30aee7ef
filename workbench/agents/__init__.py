"""The agent runtime: model backends, a supervisor routing to plugin specialists (LangGraph),
human-in-the-loop interrupts, checkpointed conversations, token/latency accounting.

The GUI and the bench use `AgentRuntime` and the event types in `workbench.agents.events`.
"""

from workbench.agents.backends import make_chat_model
from workbench.agents.errors import BackendError
from workbench.agents.hitl import HeadlessPolicy
from workbench.agents.ollama import list_ollama_models, ollama_base_url
from workbench.agents.overhead import prompt_overhead
from workbench.agents.runtime import AgentRuntime, RunResult
from workbench.agents.scripted import ScriptedChatModel

__all__ = [
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
