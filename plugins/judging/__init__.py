"""The judging plugin: grade engineering reasoning stage by stage (EngJudge, seed 002).

problems/    our own problem set: families by subject (problems/families/), each drawing its
             diagram and computing its ground truth with units (pint); registry.py finds them
scoring/     the 8-stage solution format and its parser, the judge calls (one per stage and
             three meta checks), penalties, caps, dependency propagation, S_final; baselines
solving.py   a generator model solves a problem in the 8-stage format
tools.py, specialist.py  list, show and grade problems from the chat; the specialist
bench/       the `engjudge` suite (generator --model, judge --judge), its report and validation
views/       the Grading panel (Qt)
"""

from workbench.core.plugins import Plugin, Specialist, ViewSpec
from workbench_plugins.judging.specialist import PROMPT, TOOL_NAMES

plugin = Plugin(
    name="judging",
    title="Judging",
    description=(
        "Engineering problems with diagrams and checkable answers, and stage-wise grading of a "
        "solution's reasoning (EngJudge)."
    ),
    tools="workbench_plugins.judging.tools:tools",
    specialist=Specialist(
        name="judging",
        description="Poses engineering problems and grades solutions stage by stage.",
        prompt=PROMPT,
        tools=TOOL_NAMES,
    ),
    views=(
        ViewSpec(
            "judging.grading",
            "Grading",
            "workbench_plugins.judging.views:grading_view",
            shows=("grade_solution",),
        ),
    ),
    suites="workbench_plugins.judging.bench:suites",
)
