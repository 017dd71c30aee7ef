"""The graph's wiring: three nodes over one `GraphDeps`, entered at the supervisor."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from workbench.agents.graph.deps import GraphDeps
from workbench.agents.graph.specialist import SpecialistNode
from workbench.agents.graph.state import SPECIALIST, SUPERVISOR, TOOLS, AgentState
from workbench.agents.graph.supervisor import SupervisorNode
from workbench.agents.graph.tool_node import ToolNode


def build_graph(deps: GraphDeps) -> StateGraph:
    """The uncompiled graph; the runtime compiles it with a checkpointer per run."""
    builder = StateGraph(AgentState)
    builder.add_node(SUPERVISOR, SupervisorNode(deps), destinations=(SUPERVISOR, SPECIALIST, END))
    builder.add_node(SPECIALIST, SpecialistNode(deps), destinations=(SPECIALIST, TOOLS, SUPERVISOR))
    builder.add_node(TOOLS, ToolNode(deps), destinations=(SPECIALIST, SUPERVISOR, END))
    builder.add_edge(START, SUPERVISOR)
    return builder
