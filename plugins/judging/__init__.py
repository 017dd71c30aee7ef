"""The judging plugin: grade engineering reasoning stage by stage (EngJudge, seed 002).

problems/    our own problem set: families by subject (problems/families/), each drawing its
             diagram and computing its ground truth with units (pint); registry.py finds them
scoring/     the 8-stage solution format and its parser, the judge calls (one per stage and
             three meta checks), penalties, caps, dependency propagation, S_final; baselines
solving.py   a generator model solves a problem in the 8-stage format
specialist.py  the chat specialist: its prompt and tools
tools/       list and show problems (problems.py), grade a solution as a job (grading.py)
bench/       the `engjudge` suite (generator --model, judge --judge), its report and validation
views/       the Grading panel (Qt)
"""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.judging.specialist import specialist

plugin = Plugin(
    name="judging",
    title="Judging",
    description=(
        "Engineering problems with diagrams and checkable answers, and stage-wise grading of a "
        "solution's reasoning (EngJudge)."
    ),
    tools="workbench_plugins.judging.tools:tools",
    specialist=specialist,
    views=(
        ViewSpec(
            "judging.grading",
            "Grading",
            "workbench_plugins.judging.views:grading_view",
            shows=("grade_solution",),
            warm_up="workbench_plugins.judging.grading_preload:preload",  # off the GUI thread
        ),
    ),
    suites="workbench_plugins.judging.bench:suites",
)
