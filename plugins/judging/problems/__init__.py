"""Our own engineering problems with diagrams and ground-truth answers (pint).

model.py     Problem, Family, Subject, UREG (the one unit registry)
registry.py  families(), problem(id), problem_set(seeds)
diagrams.py  shared drawing helpers (matplotlib Agg): PNG bytes, arrows, supports, springs, labels
families/    one module per family, by subject
"""

from workbench_plugins.judging.problems.model import UREG, Family, Problem, Subject
from workbench_plugins.judging.problems.registry import families, problem, problem_set

__all__ = ["UREG", "Family", "Problem", "Subject", "families", "problem", "problem_set"]
