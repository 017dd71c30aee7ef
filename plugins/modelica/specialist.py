"""The Modelica specialist as the agents runtime sees it: its prompt and the tools it may call.

Plain constants, so that loading the plugin's descriptor (the package `__init__`) imports no
harness, ledger or backend.
"""

from __future__ import annotations

from workbench.core.plugins import Specialist

# the tools that act within one task run (what a harness-mode model is bound to)
RUN_TOOL_NAMES: tuple[str, ...] = (
    "read_file",
    "write_file",
    "check_model",
    "simulate",
    "evaluate_observable",
    "add_invariant",
    "record_evidence",
    "ledger_status",
    "submit",
)
# the plain comparison loop: files, check and simulate only; no ledger
PLAIN_TOOL_NAMES: tuple[str, ...] = ("read_file", "write_file", "check_model", "simulate")
TOOLS: tuple[str, ...] = (*RUN_TOOL_NAMES, "start_modelica_task")

# Every token here is paid on each model call (`bench prompt-overhead`): say only what the
# schemas do not.
WORKFLOW = """\
1. add_invariant per requirement (observables, scenarios, condition), plus physical ones.
2. write_file (tuning: simulate's parameters) makes a new candidate; all invariants reopen.
   Fix check_model errors.
3. Per open invariant: simulate, evaluate_observable with its condition, record_evidence.
4. submit once ledger_status shows all required invariants supported; else the run fails.
"""
PROMPT = (
    "Modelica specialist: repair, write or tune models to a brief; prove claims by simulation.\n"
    + WORKFLOW
    + "Tools act on the running task (or 'run': its id).\n"
)

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "Repair the Modelica model so that it compiles.",
    "Write a Modelica model of a spring-mass-damper system.",
    "Tune the PID gains of the Modelica model so the overshoot stays below 5%.",
    "Simulate the model for 10 seconds and check that the tank never overflows.",
    "Start a Modelica task from this brief.",
    "Prove by simulation that the heat exchanger outlet stays below 80 degrees.",
)

specialist = Specialist(
    name="modelica",
    description="Repairs, writes and tunes Modelica models, proving each claim by simulation.",
    prompt=PROMPT,
    tools=TOOLS,
    examples=EXAMPLES,
)
