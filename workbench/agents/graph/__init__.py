"""The supervisor/specialist graph (LangGraph StateGraph, one graph per workspace).

supervisor --transfer_to_<name>(task)--> specialist <--> tools
     ^                                        |
     +------------- report (ToolMessage) -----+

The supervisor sees only the engineer's conversation and the specialists' reports; a specialist
sees its prompt, its task and its own short tool list. Malformed replies (bad JSON, unknown tools,
wrong or missing arguments, empty messages) go back to the model as error messages, a bounded
number of times, and never raise. Tool calls that need a person (`ask_human_for_clarification`,
tools with `Tool.confirm`, files outside the workspace: `ToolRegistry.confirmation_needed`) are
LangGraph interrupts, all raised before any tool of that reply runs,
because a resumed node runs again from its start.

Modules, in reading order: `state` (state, limits, node names), `deps` (what nodes work with),
`messages` and `stream` (helpers), `model_calls`, `endings`, `guards`, `tool_calls`, the nodes
`supervisor`, `specialist` and `tool_node`, and `build` (the wiring).
"""

from workbench.agents.graph.build import build_graph
from workbench.agents.graph.deps import GraphDeps
from workbench.agents.graph.messages import text_of
from workbench.agents.graph.state import (
    MAX_CONSECUTIVE_ROUTES,
    MAX_RETRIES,
    AgentState,
    turn_input,
)

__all__ = [
    "MAX_CONSECUTIVE_ROUTES",
    "MAX_RETRIES",
    "AgentState",
    "GraphDeps",
    "build_graph",
    "text_of",
    "turn_input",
]
