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

Modules, in reading order: `state` (the state, its limits and node names, and `GraphDeps`, what
every node works with), `run` (what a run streams and how its stretches end: final answer,
report, a person's Cancel), `model` (the model call of the two agent nodes and the messages it
sees), the nodes `supervisor`, `specialist` and `tools` (tool calls, their guards and a person's
Cancel of their jobs), and `build` (the wiring and the checkpoint file).
"""

from workbench.agents.graph.build import CheckpointFile, build_graph, settle_stopped_run
from workbench.agents.graph.model import text_of
from workbench.agents.graph.run import USER_CANCELLED
from workbench.agents.graph.state import (
    MAX_CONSECUTIVE_ROUTES,
    MAX_RETRIES,
    AgentState,
    GraphDeps,
    turn_input,
)

__all__ = [
    "MAX_CONSECUTIVE_ROUTES",
    "MAX_RETRIES",
    "USER_CANCELLED",
    "AgentState",
    "CheckpointFile",
    "GraphDeps",
    "build_graph",
    "settle_stopped_run",
    "text_of",
    "turn_input",
]
