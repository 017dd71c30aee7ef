"""EngJudge scoring (seed 002; formulas in ../shared/specs/engjudge.md).

stages.py        the 8 stages, their tags, SOLUTION_FORMAT (what a generator is told)
parser.py        parse_solution: tagged blocks; missing, repeated, empty, nested, out of order
graphs.py        dependency graphs (dag, chain, flat) as tables
aggregate.py     penalties, fatal caps, propagation, S_final and what lowered it
final_answer.py  the final answer against the ground truth with pint (our code, not the judge)
prompts.py       the judge's instructions (condensed from the paper's Appendix F)
judge.py         the judge calls as Questions: a model's by structured output (one retry,
                 tokens, time), a rule judge's directly; failures
grade.py         Grade: the whole result of grading one solution
baselines.py     SinglePass and SinglePass + DP
pipeline.py      grade(): EngJudge end to end
"""

from workbench_plugins.judging.scoring.aggregate import (
    FATAL_CAPS,
    FATAL_LABELS,
    PENALTIES,
    Breakdown,
    MetaJudgement,
    StageError,
    StageJudgement,
    StageVerdict,
    final_score,
    propagate,
    raw_score,
)
from workbench_plugins.judging.scoring.final_answer import FinalAnswerCheck, check_final_answer
from workbench_plugins.judging.scoring.grade import Grade
from workbench_plugins.judging.scoring.graphs import GRAPHS, GraphError, edges, resolve_graph
from workbench_plugins.judging.scoring.judge import (
    CallRecord,
    CoverageVerdict,
    GradingCancelled,
    JudgeFailure,
    SanityVerdict,
    VerbosityVerdict,
)
from workbench_plugins.judging.scoring.parser import ParsedSolution, parse_solution
from workbench_plugins.judging.scoring.pipeline import grade, grade_single_pass
from workbench_plugins.judging.scoring.stages import SOLUTION_FORMAT, STAGE_NAMES, STAGES

__all__ = [
    "FATAL_CAPS",
    "FATAL_LABELS",
    "GRAPHS",
    "PENALTIES",
    "SOLUTION_FORMAT",
    "STAGES",
    "STAGE_NAMES",
    "Breakdown",
    "CallRecord",
    "CoverageVerdict",
    "FinalAnswerCheck",
    "Grade",
    "GradingCancelled",
    "GraphError",
    "JudgeFailure",
    "MetaJudgement",
    "ParsedSolution",
    "SanityVerdict",
    "StageError",
    "StageJudgement",
    "StageVerdict",
    "VerbosityVerdict",
    "check_final_answer",
    "edges",
    "final_score",
    "grade",
    "grade_single_pass",
    "parse_solution",
    "propagate",
    "raw_score",
    "resolve_graph",
]
