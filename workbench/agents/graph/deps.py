"""What every node of the graph works with: the app, the model (bound to each agent's tools), the
specialists, the call log and the limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from workbench.agents.accounting import AgentLog
from workbench.agents.graph.state import MAX_CONSECUTIVE_ROUTES, MAX_RETRIES, SUPERVISOR
from workbench.agents.toolbridge import CLARIFY, handoff_name, handoff_schema, schemas_for
from workbench.core.context import AppContext
from workbench.core.plugins import Specialist


@dataclass
class GraphDeps:
    """Built once per run by the runtime; `allowed` and `bound` are derived from the rest."""

    context: AppContext
    model: BaseChatModel
    model_name: str
    specialists: dict[str, Specialist]
    log: AgentLog
    max_routes: int = MAX_CONSECUTIVE_ROUTES
    max_retries: int = MAX_RETRIES
    allowed: dict[str, list[str]] = field(init=False)  # tool names per agent
    bound: dict[str, Runnable] = field(init=False)  # the model with each agent's tool schemas

    def __post_init__(self) -> None:
        registry = self.context.registry
        self.allowed = {
            name: [t for t in spec.tools if t == CLARIFY or registry.get(t) is not None]
            for name, spec in self.specialists.items()
        }
        handoffs = [handoff_schema(s.name, s.description) for s in self.specialists.values()]
        self.allowed[SUPERVISOR] = [handoff_name(name) for name in self.specialists]
        self.bound = {SUPERVISOR: self._bind(handoffs)}
        for name in self.specialists:
            self.bound[name] = self._bind(schemas_for(self.context, self.allowed[name]))

    def _bind(self, schemas: list[dict[str, Any]]) -> Runnable:
        return self.model.bind_tools(schemas) if schemas else self.model
